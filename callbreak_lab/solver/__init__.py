"""Exact double-dummy solver for Call Break (numba kernels behind a small facade).

``solve``, ``dd_table``, ``card_values`` (``card_values_within``: clipped to a window) and
``playout`` work on one position (a ``Position`` at any point of a deal, or a ``Deal`` from its
start); ``solve_many``, ``dd_tables`` and
``playouts`` batch them over many deals in parallel (joblib), results in input order;
``tables_and_playouts`` computes both for each deal at little more than the cost of the table;
``values_and_playouts`` one seat's value and the play-out (single-dummy Monte Carlo's need);
``warm_up`` loads the kernels before a timed search; inside ``with time_limit(seconds):`` a search
still running when the time is up raises ``SearchTimeout`` (a ``TimeoutError``, not an input error).
A long search uses a second core (``default_threads``; ``CALLBREAK_LAB_SOLVER_THREADS=1`` keeps
it to one). Bad input raises the library's errors (``callbreak_lab.errors``): ``SeatError``,
``SolverInputError`` for hands and trick that do not form a position or bad bounds,
``RulesError``, ``NotationError``, ``IllegalPlayError``.
"""

from __future__ import annotations

from ._threads import SearchTimeout
from .api import (
    SOLVER_VERSION,
    PlayoutResult,
    card_values,
    card_values_within,
    dd_table,
    default_threads,
    playout,
    solve,
    time_limit,
    warm_up,
)
from .batch import dd_tables, playouts, solve_many, tables_and_playouts, values_and_playouts

__all__ = [
    "SOLVER_VERSION",
    "PlayoutResult",
    "SearchTimeout",
    "card_values",
    "card_values_within",
    "dd_table",
    "dd_tables",
    "default_threads",
    "playout",
    "playouts",
    "solve",
    "solve_many",
    "tables_and_playouts",
    "time_limit",
    "values_and_playouts",
    "warm_up",
]
