"""Reviews of played deals: every card judged, double-dummy or as its player could see it.

``analyse_play(deal, plays, rules=None)`` judges each card double-dummy: for each card, the value
for its player (itself as the target) before and after, flagging each card that lost a trick against
double-dummy defence (everyone sees all hands and the other three gang up), with the better
cards.

``review_play(deal, plays, rules=None, calls=...)`` judges it as a player at the table could: for
each card, the single-dummy values of every legal card of its player at that moment
(``advice.single_dummy_values``: layouts of the hidden cards weighted by the calls, the
expected score of the seat's call), the best card, and the **cost** of the card played: the
best card's expected score minus its own, in points. A card the rules forced costs nothing and
is not searched. Each player's summary sums its play costs and adds the **call cost**: the
expected score of the best call for its hand (the bid model's forecast given the calls before
it, ``bidding.recommend_call``) minus that of the call it made.

The same review reads the other records a user has: an arena board record
(``arena.records.Board.review``) and one seat's play known only from its own hand
(``review_seat``: e.g. a bot's cards in the ``/play`` requests a Bhoos game server sent it, read
by ``arena.bhoos.review_bhoos``, since the other hands never show in full; its double-dummy
values are then unknown).

Expected scores are in points. Without the calls the cards are judged by expected tricks and
the review says so (``unit``). ``rules`` None stands for ``rules.DEFAULT_RULES`` (a deal carries
no rules of its own).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from callbreak_lab.analysis.advice import SingleDummy, single_dummy_values, values_from_knowledge
from callbreak_lab.analysis.lines import Step, judged_step
from callbreak_lab.cards import Card, CardLike, Deal, Hand, play_order_key
from callbreak_lab.errors import (
    IllegalPlayError,
    RecordError,
    UsageError,
    check_int,
    check_time_limit,
)
from callbreak_lab.game import Position, parse_calls, parse_record, record_seats
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.knowledge import Knowledge, replay_seen
from callbreak_lab.seat.layouts import BETA
from callbreak_lab.util.progress import Progress

__all__ = [
    "CardJudgement",
    "CardReview",
    "PlayerCost",
    "Review",
    "SingleDummyReview",
    "analyse_play",
    "read_plays",
    "review_play",
    "review_seat",
]

# --- double-dummy reviews (every hand seen) -------------------------------------------------------


@dataclass(frozen=True)
class CardReview:
    """One played card judged against double-dummy defence, for the seat that played it."""

    step: Step  # values are the player's own deal totals
    before: int  # what the player could guarantee before the card
    after: int  # ... and after it

    @property
    def lost(self) -> int:
        """Tricks the card gave away (0 for a best card)."""
        return self.before - self.after

    @property
    def flagged(self) -> bool:
        """True when the card lost at least one trick."""
        return self.after < self.before

    def better(self) -> list[Card]:
        """Cards that would have kept more, best first (then lowest)."""
        vals = self.step.values
        better = (c for c, v in vals.items() if v > self.after)
        return sorted(better, key=lambda c: (-vals[c], play_order_key(c)))

    def to_dict(self) -> dict[str, Any]:
        """The step's dict plus ``before``, ``after``, ``lost``, ``flagged``, ``better``."""
        d = self.step.to_dict()
        d.update(
            before=self.before,
            after=self.after,
            lost=self.lost,
            flagged=self.flagged,
            better=[str(c) for c in self.better()],
        )
        return d


@dataclass(frozen=True)
class Review:
    """The review of a played deal (or a prefix of one): per-card entries plus a summary."""

    deal: Deal
    rules: Ruleset
    calls: tuple[int, ...] | None
    entries: tuple[CardReview, ...]
    tricks: tuple[int, int, int, int]  # tricks won per seat by the cards reviewed

    @property
    def complete(self) -> bool:
        """True when all 52 cards were reviewed."""
        return len(self.entries) == 52

    def flagged(self, seat: int | None = None) -> list[CardReview]:
        """The cards that lost a trick (of one seat, or all)."""
        return [e for e in self.entries if e.flagged and (seat is None or e.step.seat == seat)]

    @property
    def flagged_per_seat(self) -> tuple[int, int, int, int]:
        """Number of flagged cards per seat."""
        n = [len(self.flagged(s)) for s in range(4)]
        return (n[0], n[1], n[2], n[3])

    @property
    def lost_per_seat(self) -> tuple[int, int, int, int]:
        """Tricks lost against double-dummy defence per seat (sum of the drops)."""
        n = [sum(e.lost for e in self.flagged(s)) for s in range(4)]
        return (n[0], n[1], n[2], n[3])

    def summary(self) -> dict[str, Any]:
        """Cards flagged and tricks lost per seat, tricks won, calls."""
        return {
            "cards": len(self.entries),
            "complete": self.complete,
            "flagged": list(self.flagged_per_seat),
            "lost": list(self.lost_per_seat),
            "tricks": list(self.tricks),
            "calls": list(self.calls) if self.calls else None,
        }

    def to_dict(self) -> dict[str, Any]:
        """``{"steps": [...], "tricks": [...], "summary": {...}, ...}``."""
        return {
            "kind": "review",
            "rules": self.rules.name,
            "deal": str(self.deal),
            "calls": list(self.calls) if self.calls else None,
            "steps": [e.to_dict() for e in self.entries],
            "tricks": list(self.tricks),
            "summary": self.summary(),
        }

    def text(self, detail: bool = False) -> str:
        """Plain text: one line per trick, then the flagged cards and the summary."""
        from callbreak_lab.render.text import review_text

        return review_text(self, detail)

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        from callbreak_lab.render.html import review_html

        return review_html(self)


def read_plays(plays: str | Sequence[CardLike]) -> list[Card]:
    """The cards of a play record (``AS 2S 5S KS | QH``) or of a list of cards."""
    if isinstance(plays, str):
        return parse_record(plays)
    if not isinstance(plays, Iterable):
        raise RecordError(f"the plays are a play record or a list of cards, got {plays!r}")
    return [Card.parse(c) for c in plays]


def analyse_play(
    deal: Deal | str,
    plays: str | Sequence[CardLike],
    rules: Ruleset | str | None = None,
    *,
    calls: Iterable[int] | str | None = None,
) -> Review:
    """Review cards actually played (a whole deal or a prefix; a record or a list of cards)."""
    d = Deal.parse(deal)
    r = Ruleset.coerce(rules)
    c = parse_calls(calls, r)
    cards = read_plays(plays)
    pos = Position(d, r)
    entries: list[CardReview] = []
    for i, card in enumerate(cards):
        _check_card(pos, i, card)
        step = judged_step(pos, i, card)
        entries.append(CardReview(step, step.best, step.values[card]))
    return Review(d, r, c, tuple(entries), pos.tricks_won)


def _check_card(pos: Position, i: int, card: Card) -> None:
    """Raise IllegalPlayError unless ``card`` (card ``i`` of the plays) is legal in ``pos``."""
    mover = pos.to_move
    legal = pos.legal_cards_with_reasons()
    if card not in legal.legal:
        where = f"card {i + 1} ({card}, trick {i // 4 + 1})"
        if card not in pos.hand(mover):
            raise IllegalPlayError(f"{where}: seat {mover} does not hold {card}")
        raise IllegalPlayError(f"{where}: seat {mover} cannot play it: {legal.excluded[card]}")


# --- single-dummy reviews (as seen at the table) -------------------------------------------------


@dataclass(frozen=True)
class CardJudgement:
    """One played card: who played it, its double-dummy deal total for its player (None when the
    deal is not known), and the single-dummy judgement at that moment (None when the card was
    forced or its player is not judged)."""

    index: int  # 0-based position in the play record
    seat: int
    card: Card
    dd_value: int | None
    sd: SingleDummy | None = field(repr=False)
    forced: bool

    @property
    def trick(self) -> int:
        """1-based trick number."""
        return self.index // 4 + 1

    @property
    def sd_expected(self) -> float | None:
        """The played card's single-dummy expected score (tricks without the call)."""
        return None if self.sd is None else self.sd.value(self.card)

    @property
    def sd_best_card(self) -> Card | None:
        return None if self.sd is None else self.sd.best

    @property
    def sd_best_expected(self) -> float | None:
        return None if self.sd is None else self.sd.value(self.sd.best)

    @property
    def cost(self) -> float:
        """The best card's expected score minus the played card's (0 for a forced card)."""
        return 0.0 if self.sd is None else self.sd.cost(self.card)

    @property
    def cost_se(self) -> float:
        return 0.0 if self.sd is None else self.sd.cost_se(self.card)

    def to_dict(self) -> dict[str, Any]:
        """The issue's card object, plus ``trick``, ``forced``, ``cost_se`` and ``layouts``."""

        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "index": self.index,
            "trick": self.trick,
            "seat": self.seat,
            "card": str(self.card),
            "forced": self.forced,
            "dd_value": self.dd_value,
            "sd_expected": r(self.sd_expected),
            "sd_best_card": None if self.sd_best_card is None else str(self.sd_best_card),
            "sd_best_expected": r(self.sd_best_expected),
            "cost": round(self.cost, 4),
            "cost_se": round(self.cost_se, 4),
            "layouts": None if self.sd is None else self.sd.layouts,
        }


@dataclass(frozen=True)
class PlayerCost:
    """A seat's summary: its call and the best call for its hand (None when not known), the
    points the call gave up in expectation, the points its cards gave up, and how many of its
    cards were judged and cost something (``mistakes``: more than ``Review.threshold``)."""

    seat: int
    call: int | None
    best_call: int | None
    call_cost: float | None
    play_cost: float
    judged: int
    mistakes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "call": self.call,
            "best_call": self.best_call,
            "call_cost": None if self.call_cost is None else round(self.call_cost, 4),
            "play_cost": round(self.play_cost, 4),
            "judged": self.judged,
            "mistakes": self.mistakes,
        }


@dataclass(frozen=True)
class SingleDummyReview:
    """The single-dummy review of a played deal (or a prefix, or one seat's cards)."""

    deal: Deal | None  # None: only the judged seats' hands are known (a bot's requests)
    rules: Ruleset
    calls: tuple[int, ...] | None
    cards: tuple[CardJudgement, ...]
    players: tuple[PlayerCost, ...]
    layouts: int  # layouts a decision
    seed: int
    seats: tuple[int, ...]  # the seats judged
    elapsed_s: float = field(compare=False)
    #: a card costing more than this (in the review's unit) counts as a mistake
    threshold: float = 0.05
    #: the time limit ran out: the review covers the first ``len(cards)`` cards of the plays
    stopped_early: bool = False

    @property
    def unit(self) -> str:
        """``"points"`` (expected scores) or ``"tricks"`` (no calls given)."""
        return "points" if self.calls else "tricks"

    def mistakes(self, k: int = 3) -> list[CardJudgement]:
        """The ``k`` costliest cards (cost above ``threshold``), costliest first."""
        costly = [c for c in self.cards if c.cost > self.threshold]
        return sorted(costly, key=lambda c: (-c.cost, c.index))[:k]

    def to_dict(self) -> dict[str, Any]:
        """``{"deal", "rules", "calls", "unit", "cards": [...], "players": [...],
        "mistakes": [card indices], "layouts", "seed", "seats"}``."""
        return {
            "kind": "single-dummy review",
            "deal": None if self.deal is None else str(self.deal),
            "rules": self.rules.name,
            "calls": list(self.calls) if self.calls else None,
            "unit": self.unit,
            "cards": [c.to_dict() for c in self.cards],
            "players": [p.to_dict() for p in self.players],
            "mistakes": [c.index for c in self.mistakes()],
            "layouts": self.layouts,
            "seed": self.seed,
            "seats": list(self.seats),
            "stopped_early": self.stopped_early,
        }

    def text(self) -> str:
        """Plain text: one line per judged card that cost something, the biggest mistakes and
        the players' summary."""
        from callbreak_lab.render.text import single_dummy_review_text

        return single_dummy_review_text(self)

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        from callbreak_lab.render.html import single_dummy_review_html

        return single_dummy_review_html(self)


def _call_costs(
    hands: Mapping[int, Hand], calls: tuple[int, ...] | None, rules: Ruleset
) -> dict[int, tuple[int | None, float | None]]:
    """``{seat: (best call, call cost)}`` for the seats whose hands are known (the bid model's
    forecast given the calls of the seats before it)."""
    from callbreak_lab.bidding.model import recommend_call

    out: dict[int, tuple[int | None, float | None]] = {}
    for seat, hand in hands.items():
        if not calls:
            out[seat] = (None, None)
            continue
        rec = recommend_call(hand, seat, rules, earlier_calls=list(calls[:seat]))
        expected = rec.expected
        made = expected.get(calls[seat])
        cost = None if made is None else max(0.0, expected[rec.call] - made)
        out[seat] = (rec.call, cost)
    return out


def _summaries(
    cards: Sequence[CardJudgement],
    seats: Sequence[int],
    calls: tuple[int, ...] | None,
    call_costs: Mapping[int, tuple[int | None, float | None]],
    threshold: float,
) -> tuple[PlayerCost, ...]:
    out = []
    for s in range(4):
        mine = [c for c in cards if c.seat == s and c.sd is not None]
        best, cost = call_costs.get(s, (None, None))
        play = float(sum(c.cost for c in mine))
        n_bad = sum(c.cost > threshold for c in mine)
        call = None if not calls else calls[s]
        out.append(PlayerCost(s, call, best, cost, play, len(mine), n_bad))
    return tuple(p for p in out if p.seat in seats)


def _check(layouts: int, seed: int, seats: Iterable[int] | None) -> tuple[int, ...]:
    from callbreak_lab.cards import check_seat

    check_int(layouts, "layouts (a decision)", low=1)
    check_int(seed, "seed")
    chosen = tuple(sorted({check_seat(s) for s in seats})) if seats is not None else (0, 1, 2, 3)
    if not chosen:
        raise UsageError("seats: give at least one seat to judge")
    return chosen


def review_play(  # noqa: PLR0913  (the public keyword API: the deal, then the judgement's options)
    deal: Deal | str,
    plays: str | Sequence[CardLike],
    rules: Ruleset | str | None = None,
    *,
    calls: Iterable[int] | str | None = None,
    layouts: int = 32,
    seed: int = 0,
    seats: Iterable[int] | None = None,
    beta: float = BETA,
    first: int = 0,
    time_limit: float | None = None,
    progress: Progress | None = None,
) -> SingleDummyReview:
    """Judge every card of ``plays`` (a record or a list of cards from the deal's start; a
    prefix is fine) single-dummy for the seats ``seats`` (default all four), ``layouts`` layouts a
    decision (the decision's layouts are seeded by ``seed`` and the card's index, so a review
    is reproducible). ``first``: the index of the first card judged (the cards before it are
    replayed and listed, not judged). ``time_limit``: seconds after which no further card is
    judged and the decision being judged then is cut short (its judgement covers the layouts
    solved by then); the review covers the cards before and says ``stopped_early``.
    ``progress(done, total)`` is called after each card."""
    from callbreak_lab import solver

    t0 = time.perf_counter()
    d = Deal.parse(deal)
    r = Ruleset.coerce(rules)
    c = parse_calls(calls, r)
    chosen = _check(layouts, seed, seats)
    check_time_limit(time_limit)
    played = read_plays(plays)
    first = check_int(first, "first (a card index)", low=0, high=len(played))
    stopped = False
    pos = Position(d, r)
    out: list[CardJudgement] = []
    for i, card in enumerate(played):
        left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        if stopped or (left is not None and left <= 0):
            stopped = True
            break
        _check_card(pos, i, card)
        mover = pos.to_move
        legal = pos.legal_cards_with_reasons()
        forced = len(legal.legal) == 1
        dd = pos.tricks_won[mover] + solver.card_values(pos, mover, r)[card]
        sd = None
        if not forced and mover in chosen and i >= first:
            left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
            if left is not None and left <= 0:
                stopped = True
                break
            sd = single_dummy_values(
                pos, mover, calls=c, layouts=layouts, seed=seed * 1009 + i, beta=beta,
                time_limit=left,
            )  # fmt: skip
            stopped = sd.stopped_early
        out.append(CardJudgement(i, mover, card, dd, sd, forced))
        pos.play(card)
        if progress is not None:
            progress(i + 1, len(played))
    costs = _call_costs({s: d[s] for s in chosen}, c, r)
    return SingleDummyReview(
        d, r, c, tuple(out), _summaries(out, chosen, c, costs, 0.05), layouts, seed, chosen,
        time.perf_counter() - t0, stopped_early=stopped,
    )  # fmt: skip


def review_seat(
    record: Sequence[CardLike],
    seat: int,
    hand: Hand,
    *,
    calls: Iterable[int] | str | None = None,
    rules: Ruleset | str | None = None,
    layouts: int = 32,
    seed: int = 0,
    progress: Progress | None = None,
) -> SingleDummyReview:
    """Judge ``seat``'s cards in ``record`` (from the deal's start) knowing only its ``hand``
    (its 13 cards; the other hands unknown, so the double-dummy values are None), ``layouts``
    layouts a decision seeded by ``seed`` and the card's index. ``calls``: the four calls (deal
    seats), else the cards are judged by tricks. ``rules``: default ``rules.DEFAULT_RULES``.
    ``progress(done, total)`` is called after each judged card. A bot's Bhoos requests are read
    into these by ``arena.bhoos.review_bhoos``."""
    t0 = time.perf_counter()
    rules = Ruleset.coerce(rules)
    calls = parse_calls(calls, rules)
    cards = [Card.parse(c) for c in record]
    mine = [i for i, s in enumerate(record_seats(cards)[:-1]) if s == seat]
    out: list[CardJudgement] = []
    k = Knowledge(rules, seat, int(hand.mask), calls=calls or (None, None, None, None))
    for i, mover, card, _won in replay_seen(k, cards):
        if card is None:
            break
        if mover == seat:
            forced = k.legal_mask().bit_count() == 1
            sd = None if forced else values_from_knowledge(k, layouts=layouts, seed=seed * 1009 + i)
            out.append(CardJudgement(i, seat, card, None, sd, forced))
            if progress is not None:
                progress(sum(j.seat == seat for j in out), len(mine))
        else:
            out.append(CardJudgement(i, mover, card, None, None, False))
    costs = _call_costs({seat: hand}, calls, rules)
    return SingleDummyReview(
        None, rules, calls, tuple(out), _summaries(out, (seat,), calls, costs, 0.05), layouts, seed,
        (seat,), time.perf_counter() - t0,
    )  # fmt: skip
