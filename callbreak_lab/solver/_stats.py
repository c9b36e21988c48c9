"""Named reads of a search's statistics counters.

The kernels add to a flat ``int64[N_STATS]`` array by the ``ST_*`` indices of ``_consts`` (plain
integer indexing is what numba compiles best); ``Counters`` gives each counter a name on the
Python side, so callers need not know the layout.
"""

from __future__ import annotations

import numpy as np

from callbreak_lab.errors import UsageError

from . import _consts as c


class Counters:
    """A view of a stats array (``Engine.stats``, ``Helper.stats``, or a sum of them) with a
    name for each counter; the array views it returns share the array's memory."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        if array.shape != (c.N_STATS,):
            raise UsageError(f"a stats array has {c.N_STATS} counters, got shape {array.shape}")
        self.array = array

    def __add__(self, other: Counters) -> Counters:
        return Counters(self.array + other.array)

    @property
    def nodes(self) -> int:
        """Nodes entered (each card tried, and each probe's root)."""
        return int(self.array[c.ST_NODES])

    @property
    def tt_hits(self) -> int:
        """Table lookups that settled a node."""
        return int(self.array[c.ST_TT_HITS])

    @property
    def tt_stores(self) -> int:
        """Table stores (new entries and updates of one)."""
        return int(self.array[c.ST_TT_STORES])

    @property
    def quick_cuts(self) -> int:
        """Trick-boundary nodes settled by the sure-trick bounds."""
        return int(self.array[c.ST_QUICK_CUTS])

    @property
    def probes(self) -> int:
        """Null-window probes run."""
        return int(self.array[c.ST_PROBES])

    @property
    def sibling_skips(self) -> int:
        """Moves skipped because a searched sibling's result covers them."""
        return int(self.array[c.ST_SIBLING_SKIPS])
