"""Pure controller of "after a deal" (no ipywidgets): a played deal replayed card by card.

``AfterDeal`` holds a deal, its play record (a whole deal or a prefix), the calls and the seat
studied (drawn at the bottom). ``step`` is the number of cards played (0: the four hands as
dealt); ``position`` is the position after them. Given a single-dummy review of the studied
seat's cards (``analysis.review.review_play``, ``set_review``), ``values()`` lists the seat's
expected score after each of its cards: the card played, the best card, and the double-dummy
score (every hand seen) of its call; ``after_deal_view.AfterDealView`` draws it as a chart. The
play table (``table_controller.PlayTable.after_deal``) and the analysis board both use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from callbreak_lab.analysis.review import SingleDummyReview
from callbreak_lab.cards import Card, CardLike, Deal, check_seat
from callbreak_lab.errors import UsageError
from callbreak_lab.game import Position, parse_calls, parse_record
from callbreak_lab.rules import Ruleset, format_tenths
from callbreak_lab.widgets.controllers import Stepper

__all__ = ["AfterDeal", "CardValue"]


@dataclass(frozen=True)
class CardValue:
    """The studied seat's values at one of its cards (``index``: 0-based in the record).

    ``played`` and ``best``: single-dummy expected scores (points; tricks without calls) of the
    card played and of the best card, None for a forced card; ``dd``: the double-dummy score
    of the seat's call for the tricks it can still guarantee after the card (tricks without
    calls), every hand seen."""

    index: int
    card: Card
    played: float | None
    best: float | None
    best_card: Card | None
    dd: float | None

    @property
    def trick(self) -> int:
        """1-based trick number."""
        return self.index // 4 + 1

    def to_dict(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "index": self.index,
            "trick": self.trick,
            "card": str(self.card),
            "played": r(self.played),
            "best": r(self.best),
            "best_card": None if self.best_card is None else str(self.best_card),
            "dd": r(self.dd),
        }


class AfterDeal(Stepper):
    """A played deal to step through (see the module docstring). ``names`` label the seats
    (default "seat 0".. "seat 3"); ``title`` says which deal it is."""

    def __init__(
        self,
        deal: Deal | str,
        record: str | Iterable[CardLike],
        rules: Ruleset | str | None = None,
        *,
        calls: Iterable[int] | str | None = None,
        seat: int = 0,
        names: Sequence[str] | None = None,
        title: str = "",
    ) -> None:
        super().__init__()
        self.deal = Deal.parse(deal) if isinstance(deal, str) else deal
        self.rules = Ruleset.coerce(rules)
        cards = parse_record(record) if isinstance(record, str) else [Card.parse(c) for c in record]
        self.final = Position.replay(self.deal, cards, self.rules)  # checks every card
        self.cards: tuple[Card, ...] = tuple(cards)
        parsed = parse_calls(calls, self.rules)
        self.calls: tuple[int, ...] | None = None if parsed is None else tuple(parsed)
        self.seat = check_seat(seat)
        if names is not None and len(names) != 4:
            raise UsageError(f"names: one per seat (4), got {len(names)}")
        self.names = list(names) if names is not None else [f"seat {s}" for s in range(4)]
        self.title = title
        self.step = 0  # the position after ``step`` cards
        self.message = ""
        self.review: SingleDummyReview | None = None

    # --- stepping ---------------------------------------------------------------------------
    @property
    def length(self) -> int:
        """Cards in the record."""
        return len(self.cards)

    def next_trick(self) -> None:
        """On to the end of the current trick (or of the next one at a trick's end)."""
        self.go((self.step // 4 + 1) * 4)

    def prev_trick(self) -> None:
        """Back to the start of the current trick (or of the one before at its start)."""
        self.go((self.step - 1) // 4 * 4 if self.step else 0)

    @property
    def position(self) -> Position:
        """The position after ``step`` cards."""
        return Position.replay(self.deal, self.cards[: self.step], self.rules)

    def describe(self) -> str:
        """Where the replay is, in plain words."""
        if self.step == 0:
            return f"The four hands as dealt ({self.length} cards to replay)."
        seat = self.final.history[self.step - 1][0]
        card = self.cards[self.step - 1]
        out = (
            f"Card {self.step} of {self.length} (trick {(self.step - 1) // 4 + 1}): "
            f"{self.names[seat]} plays {card.symbol()}"
        )
        if self.step % 4 == 0:
            out += f"; {self.names[self.final.tricks[self.step // 4 - 1].winner]} wins the trick"
        return out + "."

    def trick_lines(self) -> list[str]:
        """One line per trick of the record: who played what, and who won it."""
        lines = []
        for i, t in enumerate(self.final.tricks):
            played = ", ".join(
                f"{self.names[(t.leader + j) % 4]} {c.symbol()}" for j, c in enumerate(t.cards)
            )
            lines.append(f"Trick {i + 1}: {played} → {self.names[t.winner]}")
        return lines

    def summary(self) -> str:
        """Calls, tricks and scores at the end (or the tricks so far for a prefix)."""
        won = self.final.tricks_won
        parts = []
        for s in range(4):
            if self.calls is not None and self.final.is_over:
                score = format_tenths(self.rules.score(self.calls[s], won[s]))
                parts.append(f"{self.names[s]}: called {self.calls[s]}, took {won[s]}, {score}")
            else:
                parts.append(f"{self.names[s]}: took {won[s]}")
        return "; ".join(parts)

    # --- values -----------------------------------------------------------------------------
    def set_review(self, review: SingleDummyReview | None) -> None:
        """The single-dummy review (of ``seat``'s cards, this deal and record) the values come
        from; None removes it."""
        if review is not None:
            if review.deal is not None and review.deal != self.deal:
                raise UsageError("the review is of another deal")
            if self.seat not in review.seats:
                raise UsageError(f"the review does not judge {self.names[self.seat]}'s cards")
        self.review = review
        self._changed()

    def values(self) -> list[CardValue]:
        """The studied seat's values after each of its cards (empty without a review)."""
        if self.review is None:
            return []
        call = None if self.calls is None else self.calls[self.seat]
        out = []
        for j in self.review.cards:
            if j.seat != self.seat:
                continue
            dd: float | None = None
            if j.dd_value is not None:
                dd = float(j.dd_value) if call is None else self.rules.score(call, j.dd_value) / 10
            out.append(CardValue(j.index, j.card, j.sd_expected, j.sd_best_expected,
                                 j.sd_best_card, dd))  # fmt: skip
        return out

    @property
    def unit(self) -> str:
        """``points`` with calls, else ``tricks``."""
        return "tricks" if self.calls is None else "points"

    def final_score(self) -> float | None:
        """The studied seat's score at the end (points; tricks without calls); None for a
        record that stops before the end."""
        if not self.final.is_over:
            return None
        won = self.final.tricks_won[self.seat]
        if self.calls is None:
            return float(won)
        return self.rules.score(self.calls[self.seat], won) / 10

    def to_dict(self) -> dict[str, Any]:
        return {
            "deal": str(self.deal),
            "rules": self.rules.name,
            "record": self.final.record(),
            "calls": None if self.calls is None else list(self.calls),
            "seat": self.seat,
            "names": list(self.names),
            "title": self.title,
            "step": self.step,
            "values": [v.to_dict() for v in self.values()],
        }
