"""What one seat knows during a deal: its own cards, the calls, every card played and by whom,
the tricks won, and what the plays showed about the hands it cannot see.

Every judgement of a seat (the players' card choice, the service's bot, single-dummy advice and
reviews) starts from a :class:`Knowledge`, built from whatever the caller has: a ``Position``
and a seat (``Knowledge.of_position``), a seat's own cards and a play record
(``Knowledge.at_table``), the arena's ``SeatView`` (``Knowledge.of_view``) or a list of
``(seat, card)`` plays (``Knowledge.from_history``); the protocol edge reads a Bhoos ``/play``
request into one (``arena.bhoos.knowledge_of_request``).

What the table tells. For each card ``c`` a seat played to a trick whose cards before it were
``T`` (led suit ``s``), every legal-card rule of docs/rules.md gives a set of cards the seat did
not hold *then*, so neither now (hands only shrink):

* ``c`` not of suit ``s``: no card of ``s`` (it would have had to follow).
* ``c`` of suit ``s`` below the card it had to beat (``must_beat``; the highest card of ``s`` in
  ``T`` when the trick is not trumped, the highest spade when spades were led): no card of ``s``
  above that card.
* void in ``s`` and ``c`` not a spade: with no spade in ``T``, no spade at all (a spade would
  have been compulsory); with a spade in ``T``, no spade above it (it would have had to
  overtrump), and under ``void_rule = strict`` no spade at all (even a losing spade is
  compulsory there).
* void in ``s`` and ``c`` a spade below the trick's highest spade: no spade above that one.
* leading a spade to the first trick under ``first_trick_spade_ban``: no card of another suit.

Together they are exactly the conditions for every observed card to have been legal, so every
layout that respects them replays without an illegal card (``seat.layouts`` deals them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from callbreak_lab.cards import FULL_MASK, SUIT_MASKS, Card, CardLike, Hand, Suit, check_seat
from callbreak_lab.errors import IllegalPlayError, RecordError, SeatError, SolverInputError
from callbreak_lab.game import Position, parse_calls, parse_record, record_seats
from callbreak_lab.rules import Ruleset, trick_winner

if TYPE_CHECKING:
    from callbreak_lab.seat.view import SeatView

__all__ = [
    "Knowledge",
    "beats_trick",
    "higher_in_suit",
    "inference",
    "replay_seen",
]

SPADES = int(Suit.SPADES)


def higher_in_suit(card: int) -> int:
    """Mask of the cards of ``card``'s suit ranked above it."""
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def beats_trick(card: int, trick: Sequence[int]) -> bool:
    """Whether ``card`` would win ``trick`` (the cards played to it so far) right now."""
    led = trick[0] // 13
    best = trick[0]
    for c in trick[1:]:
        if (c >= 39 and c > best) or (best < 39 and c // 13 == led and c > best):
            best = c
    return (card >= 39 and card > best) or (best < 39 and card // 13 == led and card > best)


def inference(  # noqa: PLR0911  (one return per rule that tells something)
    rules: Ruleset, trick: Sequence[int], card: int, first_trick: bool = False
) -> tuple[set[int], int]:
    """What playing ``card`` to ``trick`` (the cards before it) under ``rules`` shows about the
    player: the suits it is now known to be void in and the mask of cards it cannot hold."""
    if not trick:
        if first_trick and rules.first_trick_spade_ban and card // 13 == SPADES:
            return {0, 1, 2}, FULL_MASK & ~SUIT_MASKS[SPADES]
        return set(), 0
    led = trick[0] // 13
    spades = [c for c in trick if c // 13 == SPADES]
    top_spade = max(spades) if spades else -1
    if card // 13 == led:
        if not rules.must_beat:
            return set(), 0
        trumped = led != SPADES and top_spade >= 0
        top_led = max(c for c in trick if c // 13 == led)
        if not trumped and card < top_led:
            return set(), higher_in_suit(top_led)
        return set(), 0
    voids = {led}
    excluded = SUIT_MASKS[led]
    if card // 13 == SPADES:
        if top_spade >= 0 and card < top_spade:
            excluded |= higher_in_suit(top_spade)
        return voids, excluded
    if top_spade < 0 or rules.void_rule == "strict":
        voids.add(SPADES)
        excluded |= SUIT_MASKS[SPADES]
    else:
        excluded |= higher_in_suit(top_spade)
    return voids, excluded


def _four_calls(calls: Iterable[int | None] | None) -> tuple[int | None, ...]:
    """``calls`` of seats 0.. padded with None to four (None: not known)."""
    out: list[int | None] = [None if c is None else int(c) for c in (calls or ())]
    if len(out) > 4:
        raise SolverInputError(f"at most four calls, got {len(out)}")
    return tuple(out + [None] * (4 - len(out)))


@dataclass
class Knowledge:
    """What one seat knows during a deal: its hand now, the calls, every card played and by
    whom, the tricks won, and what the plays showed about the other hands (``voids``,
    ``excluded``: cards a seat cannot hold). ``add`` records the next card."""

    rules: Ruleset
    seat: int
    hand: int  # the seat's current hand (mask)
    record: list[Card] = field(default_factory=list)  # every card played, in order
    trick: list[Card] = field(default_factory=list)  # the trick in progress
    leader: int = 0  # the seat leading the trick in progress (or about to lead)
    played_by: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    voids: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    excluded: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    #: the calls of seats 0..3 (None: not known, e.g. still to be made)
    calls: tuple[int | None, ...] = (None, None, None, None)
    tricks_won: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    #: the match totals (tenths) of seats 0..3 before this deal, and the deals of the match
    #: still to play after it (None: not known, the deal judged on its own)
    totals: tuple[int, int, int, int] | None = None
    deals_left: int | None = None

    # --- constructors ------------------------------------------------------------------------

    @classmethod
    def from_history(
        cls,
        rules: Ruleset,
        seat: int,
        hand: int,
        history: Iterable[tuple[int, int]],
        calls: Iterable[int | None] | None = None,
    ) -> Knowledge:
        """The knowledge of ``seat`` holding ``hand`` now after the cards of ``history``
        (``(seat, card)`` in play order from the deal's start; seat 0 led the first trick),
        with the ``calls`` of seats 0.. (None where not known)."""
        k = cls(rules, check_seat(seat), int(hand), calls=_four_calls(calls))
        for who, card in history:
            k.add(who, Card(card))
        return k

    @classmethod
    def of_position(
        cls, position: Position, seat: int, calls: Iterable[int | None] | None = None
    ) -> Knowledge:
        """What ``seat`` knows in ``position`` (a deal whose hands are all known to the
        caller): its own hand and every card played."""
        hand = int(position.hand_masks()[check_seat(seat)])
        return cls.from_history(position.rules, seat, hand, position.history, calls)

    @classmethod
    def of_view(cls, view: SeatView) -> Knowledge:
        """What the seat of an arena ``SeatView`` knows (the calls made so far and the match's
        standing included)."""
        k = cls.from_history(view.rules, view.seat, view.hand.mask, view.history, view.calls)
        k.totals = view.totals
        if view.rules.match_deals is not None:
            k.deals_left = max(0, view.rules.match_deals - view.deal_number)
        return k

    @classmethod
    def at_table(
        cls,
        hand: Hand | str | Iterable[CardLike],
        plays: str | Sequence[CardLike],
        rules: Ruleset,
        calls: Iterable[int] | str | None = None,
        *,
        seat: int | None = None,
    ) -> Knowledge:
        """The knowledge of the seat to play after ``plays`` (a play record from the deal's
        start) holding ``hand`` (the cards it holds now, or the 13 it was dealt): what a bot or
        a player at the table knows. ``calls``: the four calls, checked against ``rules``.
        ``seat``: whose hand it is, when the caller knows; a seat that is not the one to play
        is a ``SeatError`` naming the seat to play. Every inconsistency between the plays and
        the hand is an error naming the card and the seat to play: a ``RecordError`` or
        ``IllegalPlayError`` for the plays, a ``NotationError`` for the hand's text, a
        ``SolverInputError`` for a hand that is not the cards the seat to play holds or was
        dealt (a card another seat played, or a count that does not match)."""
        record = parse_record(plays) if isinstance(plays, str) else [Card.parse(c) for c in plays]
        seen: dict[Card, int] = {}
        for i, c in enumerate(record):
            if c in seen:
                raise RecordError(f"{c} is played twice (cards {seen[c] + 1} and {i + 1})")
            seen[c] = i
        if len(record) >= 52:
            raise SolverInputError("the deal is over: no card is left to judge")
        seats = record_seats(record)
        to_play = seats[-1]
        if seat is not None and check_seat(seat) != to_play:
            where = f"after {len(record)} cards" if record else "at the deal's start"
            raise SeatError(
                f"seat {to_play} is to play {where}, not seat {seat}: the hand must be the cards "
                f"of the seat to play"
            )
        h = hand if isinstance(hand, Hand) else Hand.parse(hand)
        seat = to_play
        own = 0
        for i, c in enumerate(record):
            if seats[i] == seat:
                own |= 1 << c
            elif (h.mask >> c) & 1:
                raise SolverInputError(
                    f"{c} is in the hand of seat {seat} (to play), but seat {seats[i]} played it "
                    f"(card {i + 1})"
                )
        n_own = own.bit_count()
        if len(h) == 13 and own & ~h.mask == 0:
            dealt = h.mask
        elif h.mask & own == 0 and len(h) + n_own == 13:
            dealt = h.mask | own
        elif n_own == 0:
            raise SolverInputError(
                f"seat {seat} is to play with 13 cards; the hand has {len(h)} ({h})"
            )
        else:
            mine = " ".join(str(Card(c)) for c in range(52) if (own >> c) & 1)
            raise SolverInputError(
                f"seat {seat} is to play and has played {n_own} card{'s' * (n_own > 1)} "
                f"({mine}): give the {13 - n_own} cards it holds or the 13 it was dealt; the "
                f"hand has {len(h)} ({h})"
            )
        k = cls(rules, seat, dealt, calls=_four_calls(parse_calls(calls, rules)))
        for _ in replay_seen(k, record):
            pass
        return k

    # --- the play -----------------------------------------------------------------------------

    def add(self, seat: int, card: Card) -> None:
        """Record ``seat`` playing ``card`` to the trick in progress."""
        voids, excluded = inference(self.rules, self.trick, card, len(self.record) < 4)
        self.voids[seat] |= voids
        self.excluded[seat] |= excluded
        self.played_by[seat] |= 1 << card
        self.record.append(card)
        if not self.trick:
            self.leader = seat
        self.trick.append(card)
        if len(self.trick) == 4:
            winner = (self.leader + trick_winner(self.trick)) % 4
            self.tricks_won[winner] += 1
            self.trick = []
            self.leader = winner

    def banned(self, seat: int) -> int:
        """The cards ``seat`` cannot hold now: those the plays excluded and its void suits."""
        mask = self.excluded[seat]
        for x in self.voids[seat]:
            mask |= SUIT_MASKS[x]
        return mask

    @property
    def first_trick(self) -> bool:
        """True while the deal's first trick is being played."""
        return len(self.record) < 4

    @property
    def cards_left(self) -> int:
        """Cards still in the four hands."""
        return 52 - len(self.record)

    @property
    def won(self) -> int:
        """The tricks the seat has won so far."""
        return self.tricks_won[self.seat]

    @property
    def own_call(self) -> int | None:
        """The seat's own call (None: not known)."""
        return self.calls[self.seat]

    def legal_mask(self) -> int:
        """The seat's legal cards now (when it is to play)."""
        return self.rules.legal_mask(self.hand, self.trick, self.first_trick)

    def unseen(self) -> int:
        """The mask of the cards the seat has not seen (the other hands' cards now)."""
        seen = self.hand
        for m in self.played_by:
            seen |= m
        return FULL_MASK & ~seen


def replay_seen(
    k: Knowledge, record: Sequence[Card]
) -> Iterator[tuple[int, int, Card | None, int]]:
    """Replay a play record from the deal's start into ``k``, the knowledge of ``k.seat``
    holding the 13 cards it was dealt. Yields ``(index, seat, card, won)`` before each card is
    added (``won``: tricks ``k.seat`` has won so far) and last ``(len(record), seat to play,
    None, won)``. A card of ``k.seat`` that was not legal for it then is an
    ``IllegalPlayError``, and so is another seat's card that the earlier plays showed it could
    not hold (e.g. a heart after it showed out of hearts)."""
    seats = record_seats(record)
    for i, card in enumerate(record):
        mover = seats[i]
        where = f"card {i + 1} ({card}, trick {i // 4 + 1})"
        if mover == k.seat:
            if not (k.legal_mask() >> card) & 1:
                raise IllegalPlayError(f"{where}: seat {mover} cannot play it")
        elif (k.excluded[mover] >> card) & 1:
            raise IllegalPlayError(
                f"{where}: seat {mover} cannot hold it after the cards it played before"
            )
        yield i, mover, card, k.won
        if mover == k.seat:
            k.hand &= ~(1 << card)
        k.add(mover, card)
    yield len(record), seats[-1], None, k.won
