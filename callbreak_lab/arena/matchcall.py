"""A player that calls for the match (``model``'s cards, the match-aware call), and the
recorded deals the match equity rests on (:func:`record_deals`).

:class:`MatchModelPlayer` calls as ``strong`` does (``arena.players.strong_call``: the match
call of ``bidding.match`` from the match totals and the deal's number that the referee shows
every seat, ``SeatView.totals``, ``SeatView.deal_number``), in the rules' whole call range,
and plays ``simple``'s cards, like ``model``: against ``model``
players only the calls differ, so a tournament between them measures what calling for the
match gains in matches won and costs in points (``benchmarks/match.py``). Under rules whose
match is played to a target score it calls ``model``'s call (the equity needs a fixed number of
deals).

``run`` takes it as a factory: ``arena.run([MatchModelPlayer, "model", "model", "model"])``
(labelled ``model:match``), or ``functools.partial(MatchModelPlayer, scores=path)`` for an
equity over other recorded deals (``scripts/make_equity.py --out``).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from callbreak_lab.arena.players import (
    ModelPlayer,
    make_player,
    prepare_equity,
    prepare_model,
    strong_view_call,
)
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.arena.tournament import tournament_deal
from callbreak_lab.bidding.equity import DealScores, EquityModel
from callbreak_lab.errors import RulesError
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.view import SeatView

__all__ = ["MatchModelPlayer", "record_deals"]


@functools.lru_cache(maxsize=4)
def _recorded(path: str) -> EquityModel:
    """The equity model over the recorded deals in ``path`` (one a process)."""
    return EquityModel(DealScores.load(Path(path)))


class MatchModelPlayer(ModelPlayer):
    """``model:match``: ``strong``'s match-aware call (``arena.players.strong_call``, in the
    rules' whole call range), ``simple``'s cards. ``scores``: a file of recorded deals for the
    equity (default: the shipped recording of the rules' preset)."""

    name = "model:match"
    label = "model:match"

    def __init__(self, scores: str | Path | None = None) -> None:
        self.scores = None if scores is None else str(scores)
        #: what decided the last call
        self.last_call = ""

    def prepare(self, rules: Ruleset) -> None:
        prepare_model(rules)
        if self.scores is None:
            prepare_equity(rules)
            return
        try:
            n = rules.match_length()
        except RulesError:
            return
        model = _recorded(self.scores)
        for left in range(n):  # draw the futures before the clock starts
            model.futures(left, first=1)

    def call(self, view: SeatView) -> int:
        equity = None if self.scores is None else _recorded(self.scores)
        call, self.last_call = strong_view_call(view, equity=equity, max_call=None)
        return call


def record_deals(
    rules: Ruleset | str,
    players: str = "pimc",
    count: int = 100,
    *,
    seed: int = 0,
    first: int = 0,
) -> DealScores:
    """Play tournament deals ``first .. first + count - 1`` (``arena.tournament_deal(seed,
    j)``) with four copies of the arena player ``players`` and record calls and tricks."""
    r = Ruleset.coerce(rules)
    table = [make_player(players, r) for _ in range(4)]
    calls = np.zeros((count, 4), dtype=np.int8)
    tricks = np.zeros((count, 4), dtype=np.int8)
    for i in range(count):
        j = first + i
        board = play_deal(tournament_deal(seed, j), r, table, seed=seed, deal_index=j)
        calls[i], tricks[i] = board.calls, board.tricks
    return DealScores(r, calls, tricks, players, seed, first)
