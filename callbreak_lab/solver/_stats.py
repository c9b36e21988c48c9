"""Named reads of a search's statistics counters.

The kernels add to a flat ``int64[N_STATS]`` array by the ``ST_*`` indices of ``_consts`` (plain
integer indexing is what numba compiles best); ``Counters`` gives each counter a name on the
Python side, so callers need not know the layout.
"""

from __future__ import annotations

import numpy as np

from callbreak_lab.errors import UsageError

from ._consts import (
    N_STATS,
    ST_CUTS,
    ST_KIND,
    ST_LEFT,
    ST_NODES,
    ST_POSCUT,
    ST_PROBES,
    ST_QUICK_CUTS,
    ST_SIBLING_SKIPS,
    ST_TT_HITS,
    ST_TT_STORES,
)


class Counters:
    """A view of a stats array (``Engine.stats``, ``Helper.stats``, or a sum of them) with a
    name for each counter; the array views it returns share the array's memory."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        if array.shape != (N_STATS,):
            raise UsageError(f"a stats array has {N_STATS} counters, got shape {array.shape}")
        self.array = array

    def __add__(self, other: Counters) -> Counters:
        return Counters(self.array + other.array)

    @property
    def nodes(self) -> int:
        """Nodes entered (each card tried, and each probe's root)."""
        return int(self.array[ST_NODES])

    @property
    def tt_hits(self) -> int:
        """Table lookups that settled a node."""
        return int(self.array[ST_TT_HITS])

    @property
    def tt_stores(self) -> int:
        """Table stores (new entries and updates of one)."""
        return int(self.array[ST_TT_STORES])

    @property
    def quick_cuts(self) -> int:
        """Trick-boundary nodes settled by the sure-trick bounds."""
        return int(self.array[ST_QUICK_CUTS])

    @property
    def probes(self) -> int:
        """Null-window probes run."""
        return int(self.array[ST_PROBES])

    @property
    def sibling_skips(self) -> int:
        """Moves skipped because a searched sibling's result covers them."""
        return int(self.array[ST_SIBLING_SKIPS])

    @property
    def by_tricks_left(self) -> np.ndarray:
        """int64[14]: trick-boundary nodes with n tricks left at index n (where the work is)."""
        return self.array[ST_LEFT : ST_LEFT + 14]

    @property
    def cutoffs(self) -> np.ndarray:
        """int64[2, 2]: cutoffs at [0] the target's nodes, [1] the other seats'; [:, 0] all of
        them, [:, 1] those on the first move tried."""
        return self.array[ST_CUTS : ST_CUTS + 4].reshape(2, 2)

    @property
    def stores_by_kind(self) -> np.ndarray:
        """int64[14, 2, 2]: table stores by [tricks left, result (0 below the count, 1 at or
        above it), target on lead (0 no, 1 yes)]."""
        return self.array[ST_KIND : ST_KIND + 56].reshape(14, 2, 2)

    @property
    def cutoffs_by_position(self) -> np.ndarray:
        """int64[4, 2, 3]: cutoffs at nodes [cards into the trick, 0 the target's node or 1
        another seat's, i]: i = 0 all, 1 on the first move, 2 moves tried before the cutting
        one (summed)."""
        return self.array[ST_POSCUT : ST_POSCUT + 32].reshape(4, 2, 4)[:, :, :3]
