"""What one seat at the table knows: ``SeatView``, the only thing the referee shows a player.

A view holds the seat's own cards, the calls made so far, every card played with who played it,
the trick in progress, tricks won and the match totals: exactly what a player at a real table
sees. It holds no other hand, nor any object that holds one (no ``Deal``, no ``Position``, no
function or closure): it is built from plain values and is immutable (a frozen dataclass with
slots, so there is no ``__dict__`` to add to either).
"""

from __future__ import annotations

from dataclasses import dataclass

from callbreak_lab.cards import Card, Hand
from callbreak_lab.rules import Ruleset

__all__ = ["SeatView"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's information at a decision (seat numbers are the deal's: seat 0 calls first
    and leads the first trick).

    ``calls`` are the calls of seats ``0..len(calls)-1`` (all four once calling is over);
    ``history`` every card played, ``(seat, card)`` in play order; ``trick`` the cards of the
    trick in progress (led by ``leader``); ``tricks_won`` per seat; ``totals`` the match totals
    in tenths per seat of this deal before it (``deal_number`` 1.. within the match);
    ``time_limit`` the seconds the player has for this decision (None: no limit)."""

    seat: int
    hand: Hand
    rules: Ruleset
    calls: tuple[int, ...]
    history: tuple[tuple[int, Card], ...]
    trick: tuple[Card, ...]
    leader: int
    tricks_won: tuple[int, int, int, int]
    totals: tuple[int, int, int, int] = (0, 0, 0, 0)
    deal_number: int = 1
    time_limit: float | None = None

    @property
    def calling(self) -> bool:
        """True while the calls are being made (before the first card)."""
        return len(self.calls) < 4

    @property
    def is_first_trick(self) -> bool:
        """True during the deal's first trick (the first-trick spade ban)."""
        return len(self.history) < 4

    @property
    def trick_index(self) -> int:
        """Finished tricks (0-based index of the trick in progress)."""
        return len(self.history) // 4

    def legal_cards(self) -> Hand:
        """The seat's legal cards now under the rules."""
        return Hand(self.rules.legal_mask(self.hand.mask, self.trick, self.is_first_trick))

    def played_by(self, seat: int) -> Hand:
        """The cards ``seat`` has played so far in this deal."""
        return Hand.from_cards(c for s, c in self.history if s == seat)

    def seen(self) -> Hand:
        """Every card the seat has seen: its own hand and the cards played."""
        return self.hand | Hand.from_cards(c for _, c in self.history)

    def __str__(self) -> str:
        trick = " ".join(str(c) for c in self.trick) or "-"
        calls = ",".join(map(str, self.calls)) or "-"
        return (
            f"seat {self.seat} ({self.rules.name}, deal {self.deal_number}): hand {self.hand}; "
            f"calls {calls}; trick {self.trick_index + 1}: {trick}; "
            f"tricks {'-'.join(map(str, self.tricks_won))}"
        )
