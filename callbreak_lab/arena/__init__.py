"""The arena: duplicate tournaments between Call Break players who see only their own seat.

- ``players``: the ``Player`` protocol, the built-in players and ``make_player`` (the search
  players wrap a ``seat.policy.SearchPolicy``: the service's bot plays the same policy).
- ``protocol``: ``HttpPlayer``, a bot speaking the Bhoos protocol (``http:URL``).
- ``referee``: ``play_deal``/``play_match`` with faults counted and replaced.
- ``records``: ``Board`` records (files that ``analyse`` and the play-line viewer open).
- ``tournament``: ``run`` (duplicate format, parallel) and its ``Report``.

What a player sees is a ``seat.view.SeatView`` (re-exported here).
"""

from __future__ import annotations

from callbreak_lab.arena.players import BUILTINS, Player, make_player
from callbreak_lab.arena.records import Board, Fault, load_record
from callbreak_lab.arena.referee import play_deal, play_match
from callbreak_lab.arena.tournament import Margin, PlayerStats, Report, run, summarise
from callbreak_lab.seat.view import SeatView

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
