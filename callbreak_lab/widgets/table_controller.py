"""Pure controller of "play a deal against the bots" (no ipywidgets).

A person sits at ``seat`` of a seeded random deal; the three other seats are arena players
(``strong`` by default) that see only their own seat (``arena.referee.seat_view``). Calls go in
seat order (seat 0 first), then the person plays its cards while the bots answer between its
turns. A hint gives the person's single-dummy values at its turn (``advice``), ``cards()`` where
the cards it cannot see are (``seat.reading``, from the calls and the plays); at the end the
deal is scored and ``review()`` judges the person's cards single-dummy (``review``), with the
double-dummy values now that every hand can be shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from callbreak_lab.analysis.advice import SingleDummy, single_dummy_values
from callbreak_lab.analysis.review import SingleDummyReview, review_play
from callbreak_lab.arena.players import make_player
from callbreak_lab.arena.referee import seat_seed, seat_view
from callbreak_lab.cards import Card, Deal, check_seat
from callbreak_lab.errors import CallbreakLabError, UsageError, check_int
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset, format_tenths
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.seat.reading import Reading, read_cards
from callbreak_lab.widgets.controllers import Observable

__all__ = ["PlayTable"]


class PlayTable(Observable):
    """One deal at a time against three bots (see the module docstring).

    ``phase``: ``"call"`` (the person's call is due), ``"play"`` (its card is due) or ``"over"``.
    ``message`` explains a refused call or card; ``log`` lists what the bots did, in order."""

    def __init__(
        self,
        rules: Ruleset | str | None = None,
        seat: int = 0,
        *,
        seed: int = 0,
        opponents: str = "strong",
        hint_layouts: int = 32,
        review_layouts: int = 16,
        time_limit: float | None = 3.0,
    ) -> None:
        super().__init__()
        self.rules = Ruleset.coerce(rules)
        self.seat = check_seat(seat)
        self.seed = int(seed)
        self.opponents = opponents
        self.hint_layouts = check_int(hint_layouts, "hint_layouts", low=1)
        self.review_layouts = check_int(review_layouts, "review_layouts", low=1)
        #: a hint answers within this many seconds with the layouts solved by then (a few deals
        #: at trick 1 need seconds a layout); None: every layout
        self.time_limit = time_limit
        self.bots: dict[int, Any] = {s: make_player(opponents) for s in range(4) if s != self.seat}
        self.deals = 0
        self.totals = [0, 0, 0, 0]  # tenths, over the deals played at this table
        self.new_deal()

    # --- the deal -------------------------------------------------------------------------
    def new_deal(self) -> None:
        """Deal the next seeded deal and let the bots before the person call."""
        self.deal = Deal.seeded(self.seed, self.deals)
        self.position = Position(self.deal, self.rules)
        self.calls: list[int] = []
        self.log: list[str] = []
        self.message = ""
        self._hint: SingleDummy | None = None
        self._cards: Reading | None = None
        self._review: SingleDummyReview | None = None
        for s, bot in self.bots.items():  # as the referee does (arena.referee.play_deal)
            ready = getattr(bot, "prepare", None)
            if ready is not None:
                ready(self.rules)
            hook = getattr(bot, "new_deal", None)
            if hook is not None:
                hook(seat_seed(self.seed, self.deals, s))
        self._bots_call()
        self._changed()

    @property
    def phase(self) -> str:
        """``call``, ``play`` or ``over``."""
        if len(self.calls) < 4:
            return "call"
        return "over" if self.position.is_over else "play"

    def _bots_call(self) -> None:
        while len(self.calls) < 4 and len(self.calls) != self.seat:
            s = len(self.calls)
            c = int(self.bots[s].call(seat_view(self.position, s, self.calls)))
            self.calls.append(c)
            self.log.append(f"seat {s} calls {c}")

    def _bots_play(self) -> None:
        while not self.position.is_over and self.position.to_move != self.seat:
            s = self.position.to_move
            card = Card.parse(self.bots[s].play(seat_view(self.position, s, self.calls)))
            self.position.play(card)
            self.log.append(f"seat {s} plays {card}")
            self._after_card()

    def _after_card(self) -> None:
        p = self.position
        if not p.trick and p.tricks:
            t = p.tricks[-1]
            self.log.append(f"trick {len(p.tricks)}: seat {t.winner} wins it")
        if p.is_over:
            scores = [self.rules.score(self.calls[s], p.tricks_won[s]) for s in range(4)]
            for s in range(4):
                self.totals[s] += scores[s]
            self.deals += 1

    # --- the person's moves -------------------------------------------------------------------
    def call(self, value: int | str) -> bool:
        """The person's call; the bots after it call and the play starts."""
        if self.phase != "call" or len(self.calls) != self.seat:
            self.message = "no call is due from you now"
            self._changed()
            return False
        try:
            c = int(value)
        except (ValueError, TypeError):
            self.message = f"not a call: {value!r}"
            self._changed()
            return False
        try:
            self.rules.check_call(c)
        except CallbreakLabError as exc:  # outside the preset's range
            self.message = str(exc)
            self._changed()
            return False
        self.calls.append(c)
        self.log.append(f"you (seat {self.seat}) call {c}")
        self._bots_call()
        self.message = ""
        self._bots_play()
        self._changed()
        return True

    def play(self, card: Card | str) -> bool:
        """The person's card (refused with the rule when it is not legal); the bots answer."""
        if self.phase != "play" or self.position.to_move != self.seat:
            self.message = "no card is due from you now"
            self._changed()
            return False
        try:
            c = Card.parse(card)
            if not self.position.legal_mask() >> c & 1:
                legal = self.position.legal_cards_with_reasons()
                why = legal.excluded.get(c, f"you do not hold {c}")
                raise UsageError(f"{c.symbol()} cannot be played: {why}")
        except CallbreakLabError as exc:
            self.message = str(exc)
            self._changed()
            return False
        self.position.play(c)
        self.log.append(f"you (seat {self.seat}) play {c}")
        self._after_card()
        self._hint = None
        self._cards = None
        self.message = ""
        self._bots_play()
        self._changed()
        return True

    # --- help and judgement ---------------------------------------------------------------
    def hint(self, progress: Callable[[int, int], None] | None = None) -> SingleDummy | None:
        """The person's single-dummy values now (its hand, the calls, the cards played); None
        when no card of the person is due."""
        if self.phase != "play" or self.position.to_move != self.seat:
            return None
        if self._hint is None:
            self._hint = single_dummy_values(
                self.position, self.seat, calls=self.calls, layouts=self.hint_layouts,
                seed=len(self.position.history), time_limit=self.time_limit, progress=progress,
            )  # fmt: skip
        self._changed()
        return self._hint

    @property
    def last_hint(self) -> SingleDummy | None:
        """The hint asked for at this turn (None if none was)."""
        return self._hint

    def cards(self) -> Reading | None:
        """Where the cards the person cannot see are now (``seat.reading.read_cards``: from the
        calls and the cards played); None before the play or after it."""
        if self.phase != "play":
            return None
        if self._cards is None:
            k = Knowledge.of_position(self.position, self.seat, self.calls)
            self._cards = read_cards(k, seed=len(self.position.history))
        self._changed()
        return self._cards

    @property
    def last_cards(self) -> Reading | None:
        """The reading asked for at this turn (None if none was)."""
        return self._cards

    def review(self, progress: Callable[[int, int], None] | None = None) -> SingleDummyReview:
        """The single-dummy review of the person's cards and call once the deal is over."""
        if self.phase != "over":
            raise UsageError("the review comes when the deal is over")
        if self._review is None:
            self._review = review_play(
                self.deal, self.position.record(), self.rules, calls=self.calls,
                layouts=self.review_layouts, seed=self.seed, seats=[self.seat], progress=progress,
            )  # fmt: skip
            self._changed()
        return self._review

    @property
    def last_review(self) -> SingleDummyReview | None:
        return self._review

    def result(self) -> str:
        """Plain words on the finished deal (empty before the end)."""
        if self.phase != "over":
            return ""
        won = self.position.tricks_won
        parts = []
        for s in range(4):
            who = "you" if s == self.seat else f"seat {s}"
            score = format_tenths(self.rules.score(self.calls[s], won[s]))
            parts.append(f"{who}: called {self.calls[s]}, took {won[s]}, scores {score}")
        total = format_tenths(self.totals[self.seat])
        return "; ".join(parts) + f". Your total over {self.deals} deal(s): {total}."

    def status(self) -> str:
        """What is due now, in plain words."""
        if self.phase == "call":
            lo, hi = self.rules.min_call, self.rules.max_call
            return f"Your call (seat {self.seat}, {lo}..{hi}): the calls so far are " + (
                ", ".join(f"seat {s}: {c}" for s, c in enumerate(self.calls)) or "none"
            )
        if self.phase == "play":
            return f"Trick {self.position.trick_index + 1}: your card (the raised ones are legal)"
        return "Deal over. " + self.result()
