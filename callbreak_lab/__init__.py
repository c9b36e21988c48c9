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
from callbreak_lab.game import (
    CallError,
    IllegalPlayError,
    Match,
    MatchError,
    Position,
    RecordError,
    parse_record,
    play_out,
    random_player,
)
from callbreak_lab.rules import (
    PRESETS,
    Legal,
    Reason,
    RulesError,
    Ruleset,
    format_tenths,
    legal_cards,
    legal_cards_with_reasons,
    score,
    trick_winner,
)

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "CallError",
    "Card",
    "CardError",
    "Deal",
    "DealError",
    "Hand",
    "HandError",
    "IllegalPlayError",
    "Legal",
    "Match",
    "MatchError",
    "NotationError",
    "Position",
    "Reason",
    "RecordError",
    "RulesError",
    "Ruleset",
    "Suit",
    "__version__",
    "format_tenths",
    "legal_cards",
    "legal_cards_with_reasons",
    "parse_record",
    "play_out",
    "random_player",
    "score",
    "trick_winner",
]
