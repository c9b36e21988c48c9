"""callbreak_lab: an analysis lab for the card game Call Break.

The core (cards, rules, game) is pure Python over small int encodings; see docs/architecture.md.
This module must not import the solver, widgets, plotting or web code.
"""

from callbreak_lab.cards import (
    Card,
    CardError,
    Deal,
    DealError,
    Hand,
    HandError,
    NotationError,
    Suit,
)

__version__ = "0.1.0"

__all__ = [
    "Card",
    "CardError",
    "Deal",
    "DealError",
    "Hand",
    "HandError",
    "NotationError",
    "Suit",
    "__version__",
]
