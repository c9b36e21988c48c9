"""The colours every rendering shares (HTML, SVG, the widgets' buttons and charts) and the
colour of a suit, so a card looks the same in each medium."""

from __future__ import annotations

from callbreak_lab.cards import Suit

__all__ = ["BEST", "BLACK", "FELT", "FELT_EDGE", "LEGAL", "PLAYED", "RED", "suit_color"]

RED = "#c0392b"  # hearts and diamonds, negative scores, errors, lost tricks
BLACK = "#111"  # spades and clubs, text
FELT = "#2f6e4a"  # the card table
FELT_EDGE = "#1f4d33"
LEGAL = "#f5b700"  # outline of a legal card, and of the card that wins a trick
PLAYED = "#1565c0"  # outline of the card a line plays
BEST = "#2e7d32"  # value badge of a best card


def suit_color(suit: int) -> str:
    """Red for hearts and diamonds (``Suit.is_red``), black for spades and clubs."""
    return RED if Suit(suit).is_red else BLACK
