"""Playing a deal (``Position``), play records, policies, and scoring a match (``Match``).

Seats are numbered in the order of play for one deal (seat 0 bids first and leads trick 1, seat 3
deals). A ``Match`` numbers the four table seats as in its first deal; in deal ``k`` (0-based) the
dealer is table seat ``(3 + k) % 4`` and that deal's seat ``s`` is table seat ``(s + k) % 4``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from callbreak_lab.cards import ALL_CARDS, Card, CardLike, Deal, Hand, as_rng, check_seat
from callbreak_lab.errors import (
    CallError,
    CardError,
    IllegalPlayError,
    RecordError,
    RulesError,
    check_int,
)
from callbreak_lab.rules import Legal, Ruleset, format_tenths, legal_mask

__all__ = [
    "CallError",
    "DealResult",
    "IllegalPlayError",
    "Match",
    "Policy",
    "Position",
    "RecordError",
    "Trick",
    "parse_calls",
    "parse_record",
    "play_out",
    "random_player",
    "record_seats",
]


class Trick(NamedTuple):
    """A completed trick: who led, the four cards in play order, who won."""

    leader: int
    cards: tuple[Card, Card, Card, Card]
    winner: int


def _winner_index(trick: Sequence[int]) -> int:
    """Index of the winning card of a trick (highest spade, else highest of the led suit)."""
    led = trick[0] // 13
    best = 0
    b = trick[0]
    for i in range(1, len(trick)):
        c = trick[i]
        if (c >= 39 and c > b) or (b < 39 and c // 13 == led and c > b):
            best, b = i, c
    return best


def record_seats(record: Sequence[CardLike]) -> list[int]:
    """The seat of every card of a play record from the deal's start, and last the seat to play
    next (``len(record) + 1`` seats): seat 0 leads the first trick and each trick's winner the
    next. It needs no hands: the cards alone tell who won each trick."""
    cards = [Card.parse(c) for c in record]
    seats: list[int] = []
    leader = 0
    for i in range(len(cards)):
        seats.append((leader + i % 4) % 4)
        if i % 4 == 3:
            leader = seats[i - 3 + _winner_index(cards[i - 3 : i + 1])]
    seats.append((leader + len(cards) % 4) % 4)
    return seats


def parse_calls(calls: Iterable[int] | str | None, rules: Ruleset) -> tuple[int, ...] | None:
    """Four calls (``"3,4,2,3"`` or a sequence) checked against the ruleset, or None."""
    if calls is None:
        return None
    if isinstance(calls, str):
        parts = calls.replace(",", " ").split()
        try:
            vals = [int(p) for p in parts]
        except ValueError:
            raise CallError(f"calls must be four whole numbers, got {calls!r}") from None
    elif isinstance(calls, Iterable):
        vals = list(calls)
    else:
        raise CallError(f"calls must be four whole numbers, got {calls!r}")
    if len(vals) != 4:
        raise CallError(f"calls need one value per seat (4), got {len(vals)}")
    for seat, v in enumerate(vals):
        check_int(v, f"seat {seat}'s call", error=CallError)
        if not rules.min_call <= v <= rules.max_call:
            raise CallError(
                f"seat {seat} called {v!r}: {rules.name} calls are "
                f"{rules.min_call}..{rules.max_call}"
            )
    return tuple(int(v) for v in vals)


def _rules_repr(rules: Ruleset) -> str:
    try:
        if Ruleset.preset(rules.name) == rules:
            return f"Ruleset.preset({rules.name!r})"
    except RulesError:
        pass
    return repr(rules)


class Position:
    """A deal in progress: current hands, the trick on the table, tricks won, full history.

    ``play`` and ``unplay`` are cheap (mask arithmetic) so that search and sampling code can
    walk the game tree with one mutable object; ``copy`` gives an independent one.
    """

    __slots__ = (
        "_flags",
        "_hands",
        "_history",
        "_leader",
        "_trick",
        "_tricks",
        "_won",
        "deal",
        "rules",
    )

    def __init__(self, deal: Deal | str, rules: Ruleset | str) -> None:
        self.deal = Deal.parse(deal)
        self.rules = Ruleset.coerce(rules)
        self._flags = self.rules.kernel_flags()
        self._hands = [h.mask for h in self.deal.hands]
        self._trick: list[Card] = []
        self._leader = 0
        self._won = [0, 0, 0, 0]
        self._history: list[tuple[int, Card]] = []
        self._tricks: list[Trick] = []

    # --- state ------------------------------------------------------------------------------------
    @property
    def hands(self) -> tuple[Hand, Hand, Hand, Hand]:
        """The cards each seat still holds."""
        h = self._hands
        return (Hand(h[0]), Hand(h[1]), Hand(h[2]), Hand(h[3]))

    def hand(self, seat: int) -> Hand:
        """The cards ``seat`` still holds."""
        return Hand(self._hands[check_seat(seat)])

    def hand_masks(self) -> list[int]:
        """The current hands as int masks (a copy)."""
        return list(self._hands)

    @property
    def trick(self) -> tuple[Card, ...]:
        """The cards of the trick in progress, in play order (empty between tricks)."""
        return tuple(self._trick)

    @property
    def leader(self) -> int:
        """The seat that led (or will lead) the trick in progress."""
        return self._leader

    @property
    def to_move(self) -> int:
        """The seat to play next (when the deal is over: the winner of the last trick)."""
        return (self._leader + len(self._trick)) % 4

    @property
    def tricks_won(self) -> tuple[int, int, int, int]:
        """Completed tricks won per seat."""
        w = self._won
        return (w[0], w[1], w[2], w[3])

    @property
    def history(self) -> list[tuple[int, Card]]:
        """Every card played so far as ``(seat, card)``, in order (a copy)."""
        return list(self._history)

    @property
    def tricks(self) -> list[Trick]:
        """The completed tricks (leader, cards, winner), in order."""
        return list(self._tricks)

    @property
    def trick_index(self) -> int:
        """0-based index of the trick in progress = number of completed tricks (13 at the end)."""
        return len(self._tricks)

    @property
    def is_first_trick(self) -> bool:
        """True during the deal's first trick (matters for the first-trick spade ban)."""
        return not self._tricks

    @property
    def is_over(self) -> bool:
        """True once all 13 tricks are played."""
        return len(self._history) == 52

    # --- legal cards and moves ------------------------------------------------------------------
    def legal_mask(self) -> int:
        """Legal cards of the seat to move as an int mask (fast path; 0 when the deal is over)."""
        if len(self._history) == 52:
            return 0
        m, w, b = self._flags
        hand = self._hands[(self._leader + len(self._trick)) % 4]
        return legal_mask(hand, self._trick, not self._tricks, m, w, b)

    def legal_cards(self) -> Hand:
        """Legal cards of the seat to move (empty when the deal is over)."""
        return Hand(self.legal_mask())

    def legal_cards_with_reasons(self) -> Legal:
        """Legal cards of the seat to move with the reason (see ``Ruleset``)."""
        if self.is_over:
            raise IllegalPlayError("the deal is over: no card can be played")
        return self.rules.legal_cards_with_reasons(
            self.hand(self.to_move), self._trick, self.is_first_trick
        )

    def play(self, card: CardLike) -> None:
        """Play ``card`` for the seat to move; raises IllegalPlayError naming the rule broken."""
        c = card if type(card) is Card else Card.parse(card)
        if len(self._history) == 52:
            raise IllegalPlayError(f"the deal is over: cannot play {c}")
        trick = self._trick
        seat = (self._leader + len(trick)) % 4
        hand = self._hands[seat]
        if not hand >> c & 1:
            raise IllegalPlayError(f"seat {seat} does not hold {c}")
        m, w, b = self._flags
        if not legal_mask(hand, trick, not self._tricks, m, w, b) >> c & 1:
            why = self.legal_cards_with_reasons()
            legal = " ".join(x.symbol() for x in why.legal)
            raise IllegalPlayError(
                f"seat {seat} cannot play {c.symbol()}: {why.excluded[c]} (legal: {legal})"
            )
        self._hands[seat] = hand ^ (1 << c)
        trick.append(c)
        self._history.append((seat, c))
        if len(trick) == 4:
            winner = (self._leader + _winner_index(trick)) % 4
            self._won[winner] += 1
            self._tricks.append(
                Trick(self._leader, (trick[0], trick[1], trick[2], trick[3]), winner)
            )
            self._trick = []
            self._leader = winner

    def unplay(self) -> Card:
        """Take back the last card played and return it; restores the exact previous position."""
        if not self._history:
            raise IllegalPlayError("nothing to unplay: no card has been played")
        if not self._trick:
            last = self._tricks.pop()
            self._won[last.winner] -= 1
            self._trick = list(last.cards)
            self._leader = last.leader
        seat, c = self._history.pop()
        self._trick.pop()
        self._hands[seat] |= 1 << c
        return c

    def copy(self) -> Position:
        """An independent copy (same deal and rules objects, copied state)."""
        p = object.__new__(Position)
        p.deal, p.rules, p._flags = self.deal, self.rules, self._flags
        p._hands = list(self._hands)
        p._trick = list(self._trick)
        p._leader = self._leader
        p._won = list(self._won)
        p._history = list(self._history)
        p._tricks = list(self._tricks)
        return p

    # --- pickling and copying ---------------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its deal, rules and the cards played (as ints), and rebuilt by ``replay``:
        the same history, trick, tricks won and legal cards, the cards checked on the way."""
        cards = tuple(int(c) for _, c in self._history)
        return (type(self).replay, (self.deal, cards, self.rules))

    def __copy__(self) -> Position:
        """``copy``: the state is copied, not shared, so that playing on the copy leaves this
        position as it is (a shallow copy would share the hands and the trick)."""
        return self.copy()

    def __deepcopy__(self, memo: dict[int, object]) -> Position:
        """``copy`` as well: the deal and rules are immutable, so the copy shares them, and the
        state is copied."""
        return self.copy()

    # --- records ----------------------------------------------------------------------------------
    def record(self) -> str:
        """The cards played so far as a play record: ``AS 2S 5S KS | QH 2H 9H 4H | QC``."""
        cards = [str(c) for _, c in self._history]
        return " | ".join(" ".join(cards[i : i + 4]) for i in range(0, len(cards), 4))

    @classmethod
    def replay(
        cls, deal: Deal | str, record: str | Iterable[CardLike], rules: Ruleset | str
    ) -> Position:
        """The position after playing ``record`` from the start of ``deal``. Rejects an illegal
        card (with the rule, its 1-based index and trick number) and misplaced ``|``."""
        pos = cls(deal, rules)
        cards = parse_record(record) if isinstance(record, str) else [Card.parse(c) for c in record]
        for i, c in enumerate(cards):
            try:
                pos.play(c)
            except IllegalPlayError as e:
                raise IllegalPlayError(f"card {i + 1} ({c}, trick {i // 4 + 1}): {e}") from None
        return pos

    def under(self, rules: Ruleset | str) -> Position:
        """This position under ``rules``: a copy when they have the same legal-card switches as
        its own, else its cards replayed under them, raising IllegalPlayError for the first card
        they forbid (with the rule, its 1-based index and trick number)."""
        r = Ruleset.coerce(rules)
        if r.kernel_flags() == self._flags:
            p = self.copy()
            p.rules = r
            return p
        try:
            return Position.replay(self.deal, [c for _, c in self._history], r)
        except IllegalPlayError as e:
            msg = f"the position's cards are not legal under {r.name}: {e}"
            raise IllegalPlayError(msg) from None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Position)
            and other.deal == self.deal
            and other.rules == self.rules
            and other._history == self._history
        )

    def __hash__(self) -> int:
        return hash((self.deal, self.rules, tuple(c for _, c in self._history)))

    def __repr__(self) -> str:
        return f"Position.replay({self.deal!r}, {self.record()!r}, {_rules_repr(self.rules)})"

    def __str__(self) -> str:
        lines = [f"seat {s}: {Hand(self._hands[s])}  ({self._won[s]} tricks)" for s in range(4)]
        if self.is_over:
            lines.append("deal over")
        else:
            lines.append(
                f"trick {self.trick_index + 1}: {' '.join(map(str, self._trick)) or '-'}"
                f"  (seat {self.to_move} to play)"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from callbreak_lab.render.html import position_html

        return position_html(self)

    def _repr_svg_(self) -> str:
        """The card table (``callbreak_lab.render.svg.table_svg``) for front ends that show SVG."""
        from callbreak_lab.render.svg import table_svg

        return table_svg(self)


def parse_record(text: str) -> list[Card]:
    """The cards of a play record in order. Tricks are separated by ``|`` (the last may be
    partial, a trailing ``|`` is allowed); any card notation works, including ``1S/0``. A record
    without any ``|`` is read as a plain card sequence."""
    if not isinstance(text, str):
        raise RecordError(f"a play record is text, got {type(text).__name__}")
    groups = text.split("|")
    cards: list[Card] = []
    for k, group in enumerate(groups):
        tokens = group.replace(",", " ").split()
        is_last = k == len(groups) - 1
        bad = len(tokens) > 4 if is_last else len(tokens) != 4
        if len(groups) > 1 and bad:
            raise RecordError(
                f"trick {k + 1} of the play record has {len(tokens)} cards; '|' must "
                "separate complete tricks of 4 cards"
            )
        for tok in tokens:
            try:
                cards.append(Card.parse(tok))
            except CardError as e:
                raise RecordError(f"card {len(cards) + 1} of the play record: {e}") from None
    if len(cards) > 52:
        raise RecordError(f"a play record has at most 52 cards, got {len(cards)}")
    return cards


# --- policies -----------------------------------------------------------------------------------

Policy = Callable[[Position], CardLike]


def play_out(position: Position, policy: Policy) -> Position:
    """Play the deal to its end from ``position`` (mutating it) with ``policy``; returns it."""
    while not position.is_over:
        position.play(policy(position))
    return position


def random_player(seed: np.random.Generator | int | None = None) -> Callable[[Position], Card]:
    """A policy playing a uniformly random legal card (deterministic for a given seed)."""
    rng = as_rng(seed)  # a bad seed is a DealError naming it

    def policy(position: Position) -> Card:
        m = position.legal_mask()
        k = int(rng.integers(m.bit_count()))
        for _ in range(k):
            m &= m - 1
        return ALL_CARDS[(m & -m).bit_length() - 1]

    return policy


# --- match ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DealResult:
    """One scored deal of a match, indexed by table seat; scores in tenths."""

    dealer: int
    calls: tuple[int, int, int, int]
    tricks: tuple[int, int, int, int]
    scores: tuple[int, int, int, int]


def _four_ints(
    values: Iterable[int] | str, what: str, error: type[IllegalPlayError]
) -> tuple[int, int, int, int]:
    """One whole number per seat (text or a sequence), else ``error`` saying what is wrong."""
    if isinstance(values, str):
        try:
            values = [int(v) for v in re.split(r"[,\s]+", values.strip())]
        except ValueError:
            raise error(f"{what} must be four whole numbers, got {values!r}") from None
    vals = list(values)
    if len(vals) != 4:
        raise error(f"{what} need one value per seat (4), got {len(vals)}")
    for seat, v in enumerate(vals):
        check_int(v, f"seat {seat}'s {what}", error=error)
    return (int(vals[0]), int(vals[1]), int(vals[2]), int(vals[3]))


class Match:
    """Deals scored in tenths with exact running totals, places and the rotating dealer.

    Calls and tricks are given per table seat (see the module docstring for the seat mapping).
    """

    def __init__(self, rules: Ruleset | str, players: int | Sequence[str] = 4) -> None:
        self.rules = Ruleset.coerce(rules)
        if isinstance(players, int):
            if players != 4:
                raise IllegalPlayError(f"Call Break is played by exactly 4 players, got {players}")
            names: tuple[str, ...] = tuple(f"seat {s}" for s in range(4))
        else:
            if isinstance(players, str) or not isinstance(players, Iterable):
                raise IllegalPlayError(f"players is 4 or a list of four names, got {players!r}")
            names = tuple(str(p) for p in players)
            if len(names) != 4:
                raise IllegalPlayError(
                    f"Call Break is played by exactly 4 players, got {len(names)}"
                )
        self.names = names
        self.deals: list[DealResult] = []
        self.pending_calls: tuple[int, int, int, int] | None = None

    @property
    def totals(self) -> tuple[int, int, int, int]:
        """Running totals in tenths per table seat."""
        t = [sum(d.scores[s] for d in self.deals) for s in range(4)]
        return (t[0], t[1], t[2], t[3])

    @property
    def dealer(self) -> int:
        """Table seat dealing the current (or next) deal: seat 3 first, then 0, 1, 2, ..."""
        return (3 + len(self.deals)) % 4

    @property
    def first_bidder(self) -> int:
        """Table seat that bids first and leads trick 1 of the current deal (deal seat 0)."""
        return len(self.deals) % 4

    def table_seat(self, deal_seat: int) -> int:
        """Table seat of a seat of the current deal's ``Position``."""
        return (check_seat(deal_seat, "a deal seat") + len(self.deals)) % 4

    @property
    def is_over(self) -> bool:
        """After ``match_deals`` deals, or once someone reaches ``target_score``."""
        r = self.rules
        if r.match_deals is not None and len(self.deals) >= r.match_deals:
            return True
        return (
            r.target_score is not None and bool(self.deals) and max(self.totals) >= r.target_score
        )

    def _check_calls(self, calls: Iterable[int] | str) -> tuple[int, int, int, int]:
        c = _four_ints(calls, "calls", CallError)
        r = self.rules
        for seat, v in enumerate(c):
            if not r.min_call <= v <= r.max_call:
                raise CallError(
                    f"seat {seat} called {v}: {r.name} calls are {r.min_call}..{r.max_call}"
                )
        return c

    def start_deal(self, calls: Iterable[int] | str) -> None:
        """Announce the calls of the next deal (validated now); ``record_deal`` finishes it."""
        if self.is_over:
            raise IllegalPlayError("the match is over")
        self.pending_calls = self._check_calls(calls)

    def record_deal(
        self, calls: Iterable[int] | str | None, tricks: Iterable[int] | str
    ) -> DealResult:
        """Score one deal (``calls=None`` uses the calls of ``start_deal``) and add it."""
        if self.is_over:
            raise IllegalPlayError(f"the match is over after {len(self.deals)} deals")
        if calls is None:
            if self.pending_calls is None:
                raise CallError("no calls: pass calls or call start_deal first")
            c = self.pending_calls
        else:
            c = self._check_calls(calls)
            if self.pending_calls is not None and c != self.pending_calls:
                raise CallError(
                    f"calls {list(c)} differ from those given to start_deal "
                    f"{list(self.pending_calls)}"
                )
        t = _four_ints(tricks, "tricks", IllegalPlayError)
        for seat, v in enumerate(t):
            if not 0 <= v <= 13:
                raise IllegalPlayError(f"seat {seat} took {v} tricks; tricks are 0..13")
        if sum(t) != 13:
            raise IllegalPlayError(
                f"tricks must sum to 13, got {sum(t)} ({', '.join(map(str, t))})"
            )
        s = tuple(self.rules.score(c[i], t[i]) for i in range(4))
        result = DealResult(self.dealer, c, t, (s[0], s[1], s[2], s[3]))
        self.deals.append(result)
        self.pending_calls = None
        return result

    def places(self) -> tuple[int, int, int, int]:
        """Competition ranking of the totals: exact ties share a place (1, 1, 3, 4)."""
        t = self.totals
        p = [1 + sum(1 for other in t if other > mine) for mine in t]
        return (p[0], p[1], p[2], p[3])

    def winners(self) -> list[int]:
        """Table seats sharing the top total (all four before any deal is recorded)."""
        t = self.totals
        return [s for s in range(4) if t[s] == max(t)]

    def __eq__(self, other: object) -> bool:
        """Same rules, player names, scored deals and pending calls: a pickled or copied match
        equals its original. A match changes as deals are scored, so it is not hashable."""
        return (
            isinstance(other, Match)
            and other.rules == self.rules
            and other.names == self.names
            and other.deals == self.deals
            and other.pending_calls == self.pending_calls
        )

    __hash__ = None  # type: ignore[assignment]

    def __copy__(self) -> Match:
        """A match of its own: scoring a deal on the copy leaves this one as it is (a plain
        shallow copy would share the list of scored deals)."""
        m = object.__new__(type(self))
        m.__dict__.update(self.__dict__)
        m.deals = list(self.deals)
        return m

    def __repr__(self) -> str:
        totals = " ".join(format_tenths(x) for x in self.totals)
        return (
            f"<Match {self.rules.name}: {len(self.deals)} deal(s), totals {totals}"
            f"{', over' if self.is_over else ''}>"
        )

    def _repr_html_(self) -> str:
        from callbreak_lab.render.html import match_html

        return match_html(self)
