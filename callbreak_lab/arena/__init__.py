"""The arena: duplicate tournaments between Call Break players who see only their own seat.

- ``view``: ``SeatView``, a seat's information (its hand, calls, cards played, trick, totals).
- ``players``: the ``Player`` protocol, the built-in players and ``make_player``.
- ``protocol``: ``HttpPlayer``, a bot speaking the Bhoos protocol (``http:URL``).
- ``referee``: ``play_deal``/``play_match`` with faults counted and replaced.
- ``records``: ``Board`` records (files that ``analyse`` and the play-line viewer open).
- ``tournament``: ``run`` (duplicate format, parallel) and its ``Report``.
- ``pimc``: what a seat can infer from the table, sampled layouts and the search over them
  (shared with the service's tournament bot).
- ``sampling``: layouts of the hidden cards weighted by the likelihood of the calls.
- ``strong``: the ``strong`` player's card, the best expected score over those layouts.

The names below load lazily, so that the service's bot can import ``arena.pimc`` alone.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from callbreak_lab.arena.players import BUILTINS, Player, make_player
    from callbreak_lab.arena.records import Board, Fault, load_record
    from callbreak_lab.arena.referee import play_deal, play_match
    from callbreak_lab.arena.tournament import Margin, PlayerStats, Report, run, summarise
    from callbreak_lab.arena.view import SeatView

_LAZY = {
    "BUILTINS": "players",
    "Player": "players",
    "make_player": "players",
    "Board": "records",
    "Fault": "records",
    "load_record": "records",
    "play_deal": "referee",
    "play_match": "referee",
    "Margin": "tournament",
    "PlayerStats": "tournament",
    "Report": "tournament",
    "run": "tournament",
    "summarise": "tournament",
    "SeatView": "view",
}

__all__ = [
    "BUILTINS",
    "Board",
    "Fault",
    "Margin",
    "Player",
    "PlayerStats",
    "Report",
    "SeatView",
    "load_record",
    "make_player",
    "play_deal",
    "play_match",
    "run",
    "summarise",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'callbreak_lab.arena' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"callbreak_lab.arena.{module}"), name)
    globals()[name] = value
    return value
