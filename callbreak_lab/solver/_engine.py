"""The low-level engine: one reusable search workspace and transposition table.

Works on plain ints (52-bit hand masks, cards 0..51); the public facade in ``api.py`` builds on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._consts import N_STATS, POP, default_opts
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

    def __init__(self, log2_slots: int = 21, opts: np.ndarray | None = None) -> None:
        self.keys, self.info, self.gens, self.fps = new_table(log2_slots)
        self.pl, self.mv, self.tc, self.scratch = new_workspace()
        self.opts = default_opts() if opts is None else np.asarray(opts, dtype=np.int64)
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.gen = 1

    def new_generation(self) -> None:
        """Mark the entries stored so far as older (preferred victims for replacement)."""
        self.gen += 1
        if self.gen > _MAX_GEN:
            self.gens[:] = np.minimum(self.gens, 1)
            self.gen = 2

    def clear(self) -> None:
        """Forget every table entry."""
        self.gens[:] = 0
        self.fps[:] = 0
        self.keys[:] = 0
        self.gen = 1

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
