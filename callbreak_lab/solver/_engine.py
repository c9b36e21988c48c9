"""The low-level engine: one reusable search workspace and transposition table.

Works on plain ints (52-bit hand masks, cards 0..51); the public facade in ``api.py`` builds on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._consts import N_STATS, POP, ST_TT_STORES, default_opts
from ._moves import beats
from ._search import new_workspace, probe, solve_root
from ._table import new_table

_MAX_GEN = 2**31 - 2


def split_masks(masks: Sequence[int]) -> np.ndarray:
    """52-bit hand masks -> int64[4, 4] rows of 13-bit suit masks."""
    hands = np.zeros((4, 4), dtype=np.int64)
    for q in range(4):
        m = int(masks[q])
        for s in range(4):
            hands[q, s] = (m >> (13 * s)) & 0x1FFF
    return hands


class Engine:
    """A search workspace plus a transposition table shared by every target seat.

    Table entries are keyed on the abstract position (relative ranks, leader, target, rules), so
    they stay valid across deals; a generation counter only steers replacement.
    """

    def __init__(
        self, log2_slots: int = 21, opts: np.ndarray | None = None, max_fill: float | None = 0.5
    ) -> None:
        """``max_fill``: empty the table before a search once more than this share of its
        slots is taken (``None``: never; entries are then only replaced, chain by chain)."""
        if max_fill is not None and not 0.0 < max_fill <= 1.0:
            raise ValueError(f"max_fill must be in (0, 1] or None, got {max_fill!r}")
        self.keys, self.info, self.gens, self.fps = new_table(log2_slots)
        self.max_fill = max_fill
        self.clears = 0  # times the table was emptied to make room
        self.pl, self.mv, self.tc, self.scratch = new_workspace()
        self.opts = default_opts() if opts is None else np.asarray(opts, dtype=np.int64)
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.gen = 1
        self._stores_at_check = 0

    def new_generation(self) -> None:
        """Mark the entries stored so far as older (preferred victims for replacement)."""
        self.gen += 1
        if self.gen > _MAX_GEN:
            self.gens[:] = np.minimum(self.gens, 1)
            self.gen = 2

    def clear(self) -> None:
        """Forget every table entry: a slot whose fingerprint byte is 0 is empty (lookups and
        stores read nothing else of it first), so zeroing the 2 MB of fingerprints empties the
        table (the keys, about 70 MB, are overwritten as slots fill again)."""
        self.gens[:] = 0
        self.fps[:] = 0
        self.gen = 1
        self._stores_at_check = int(self.stats[ST_TT_STORES])

    def _make_room(self) -> None:
        """Empty the table before a search when more than ``max_fill`` of its slots are taken.

        A long run (many deals through one engine: batches, dataset generation, the service)
        would otherwise fill every bucket chain, and then every missing lookup scans its whole
        chain and every store replaces an entry. Entries of other deals rarely answer a new
        one's positions. Checked only after enough stores to fill half the table could have
        happened (a store may also update an entry, so the count is an upper bound). The check
        and the clear cost well under a millisecond (2 MB of fingerprints, 8 MB of generations).

        Measured with ``SPILL`` 32, one core each at the same time, ``benchmarks/solver.py
        --deals 200`` against the same code with 4-bucket chains and no emptying: p99 of a
        seat-solve modern 2.97 -> 2.51 s, strict 1.79 -> 1.43, home 1.75 -> 1.41, online
        2.19 -> 2.41 (noise), worst home 25.9 -> 8.1 s."""
        if self.max_fill is None:
            return
        nslots = self.gens.shape[0]
        limit = int(nslots * self.max_fill)
        stores = int(self.stats[ST_TT_STORES])
        if stores < self._stores_at_check:  # the caller reset the statistics
            self._stores_at_check = 0
        if stores - self._stores_at_check < limit:
            return
        self._stores_at_check = stores
        if np.count_nonzero(self.fps.view(np.uint8)) > limit:
            self.clear()
            self.clears += 1

    def value(
        self,
        hands: np.ndarray,
        trick: Sequence[int],
        leader: int,
        target: int,
        mb: int,
        vr: int,
        ban: int,
        guess: int | None = None,
        lo: int | None = None,
        hi: int | None = None,
    ) -> int:
        """Tricks of the remaining ones (current trick included) the target can guarantee.

        ``hands`` int64[4, 4] suit masks *after* the trick cards were removed; ``ban`` 1 when the
        first-trick spade ban applies to the lead at this position. Optional ``lo``/``hi`` are
        bounds already known to hold; ``guess`` the first null-window probe (by default an estimate
        of the value at a trick boundary, the upper bound mid-trick).
        """
        pos = len(trick)
        mover = (leader + pos) % 4
        left = int(sum(POP[hands[mover, s]] for s in range(4)))
        if left == 0:
            return 0
        lo_ = 0 if lo is None else lo
        hi_ = left if hi is None else hi
        g = -1 if guess is None else guess  # -1: the search picks its first probe
        self._make_room()
        for i, c in enumerate(trick):
            self.tc[i] = c
        h = np.array(hands, dtype=np.int64)
        return int(
            solve_root(
                h,
                self.tc,
                pos,
                leader,
                target,
                mb,
                vr,
                ban,
                lo_,
                hi_,
                g,
                self.pl,
                self.mv,
                self.scratch,
                self.keys,
                self.info,
                self.gens,
                self.fps,
                self.gen,
                self.opts,
                self.stats,
            )
        )

    def at_least(self, root: Any, target: int, k: int) -> bool:
        """One null-window probe: can ``target`` take ``k`` of the remaining tricks of ``root``
        (an ``api.Root``)?"""
        self._make_room()
        self.new_generation()
        for i, c in enumerate(root.trick):
            self.tc[i] = c
        mb, vr, _ = root.flags
        h = split_masks(root.masks)
        return bool(
            probe(
                h,
                self.tc,
                len(root.trick),
                root.leader,
                target,
                k,
                mb,
                vr,
                root.ban,
                self.pl,
                self.mv,
                self.scratch,
                self.keys,
                self.info,
                self.gens,
                self.fps,
                self.gen,
                self.opts,
                self.stats,
            )
        )


def trick_winner_cards(cards: Sequence[int], leader: int) -> int:
    """Seat winning a complete trick of four cards led by ``leader``."""
    best = cards[0]
    w = 0
    for i in range(1, 4):
        if beats(cards[i], best):
            best = cards[i]
            w = i
    return (leader + w) % 4
