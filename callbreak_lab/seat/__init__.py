"""The judgement of one seat: what it knows, the layouts of the cards it cannot see, each
card's outcome over them, and the card choice. Everything that judges a seat's card uses this
layer: the arena's players, the service's bot, single-dummy advice and reviews.

- ``view``: ``SeatView``, what the arena's referee shows a player.
- ``knowledge``: ``Knowledge``, what a seat knows (from a position, a record, a view or a Bhoos
  request) and what the plays showed about the other hands.
- ``dealing``: exact uniform dealing around known cards and void suits.
- ``layouts``: THE dealer of the hidden cards (every layout when few, exact counting under the
  limits the play shows, draws weighted by the calls and, with ``play_weight``, by the cards
  played under the learned play policy).
- ``playmodel``: the learned play policy (a probability for each legal card, for many
  hypothetical hands at once) and its shipped models.
- ``outcomes``: the solver's values on each layout and each card's weighted outcome, and
  ``judge``, the one draw -> solve -> outcomes path.
- ``policy``: ``SearchPolicy``, the card choice (``STRONG``, ``PIMC``, ``LEARNED``), and the
  cheap card.
- ``reading``: ``read_cards``, where the hidden cards are (each card's chance in each other
  seat, from the calls and the plays; what the rules prove exact).
"""

from __future__ import annotations

from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.seat.layouts import Layouts, draw
from callbreak_lab.seat.outcomes import (
    CardOutcome,
    Judgement,
    Outcomes,
    card_outcomes,
    judge,
    solve_layouts,
)
from callbreak_lab.seat.policy import LEARNED, PIMC, STRONG, Choice, SearchPolicy, cheap_card
from callbreak_lab.seat.reading import Reading, read_cards
from callbreak_lab.seat.view import SeatView

__all__ = [
    "LEARNED",
    "PIMC",
    "STRONG",
    "CardOutcome",
    "Choice",
    "Judgement",
    "Knowledge",
    "Layouts",
    "Outcomes",
    "Reading",
    "SearchPolicy",
    "SeatView",
    "card_outcomes",
    "cheap_card",
    "draw",
    "judge",
    "read_cards",
    "solve_layouts",
]
