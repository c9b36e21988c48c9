"""callbreak_lab: an analysis lab for the card game Call Break.

The core (cards, rules, game) is pure Python over small int encodings; see docs/architecture.md.
This module must not import the solver, widgets, plotting or web code.
"""

from callbreak_lab.cards import Card, Deal, Hand, Suit, check_seat
from callbreak_lab.errors import (
    CallbreakLabError,
    CallError,
    CardError,
    DataError,
    DealError,
    FieldError,
    HandError,
    IllegalPlayError,
    ModelError,
    NotationError,
    RecordError,
    RulesError,
    SeatError,
    SolverInputError,
    StandingError,
    UsageError,
)
from callbreak_lab.game import (
    Match,
    Position,
    parse_record,
    play_out,
    random_player,
)
from callbreak_lab.rules import (
    PRESETS,
    Legal,
    Reason,
    Ruleset,
    format_tenths,
    legal_cards,
    legal_cards_with_reasons,
    score,
    trick_winner,
)

#: the package version, written here only: pyproject.toml reads it (``dynamic``)
__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "CallError",
    "CallbreakLabError",
    "Card",
    "CardError",
    "DataError",
    "Deal",
    "DealError",
    "FieldError",
    "Hand",
    "HandError",
    "IllegalPlayError",
    "Legal",
    "Match",
    "ModelError",
    "NotationError",
    "Position",
    "Reason",
    "RecordError",
    "RulesError",
    "Ruleset",
    "SeatError",
    "SolverInputError",
    "StandingError",
    "Suit",
    "UsageError",
    "__version__",
    "check_seat",
    "format_tenths",
    "legal_cards",
    "legal_cards_with_reasons",
    "parse_record",
    "play_out",
    "random_player",
    "score",
    "trick_winner",
]
