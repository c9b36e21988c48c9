"""Numba kernels: the iterative null-window search and the MTD(f) driver.

The search is a depth-first walk with an explicit stack (one row of ``pl`` per ply), never a
recursive call, so ``cache=True`` is safe. ``probe`` answers "can the target take at least ``k``
of the remaining tricks (the trick in progress included)?"; ``solve_root`` drives probes to the
exact value.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._bounds import quick_bounds
from ._consts import (
    HI,
    MAXPLY,
    OPT_EQUIV,
    OPT_LAST,
    OPT_MTD,
    OPT_ORDER,
    OPT_QUICK,
    OPT_TT,
    POP,
    ST_NODES,
    ST_PROBES,
    ST_QUICK_CUTS,
    ST_TT_HITS,
    ST_TT_STORES,
)
from ._moves import beats, gen_moves, trick_info
from ._table import bucket_of, card_of_rel, make_key, rel_of, tt_find, tt_store

# columns of the per-ply array ``pl``
F_LEAD = 0
F_WON = 1
F_K1 = 2
F_K2 = 3
F_NEED = 4
F_BASE = 5
F_NMV = 6
F_MI = 7
N_FIELDS = 8

_ENTER = 0
_ITER = 1
_RETURN = 2


def new_workspace() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-ply stack arrays: (pl, mv, tc, scratch)."""
    pl = np.zeros((MAXPLY, N_FIELDS), dtype=np.int64)
    mv = np.zeros((MAXPLY, 16), dtype=np.int64)
    tc = np.zeros(MAXPLY + 4, dtype=np.int64)
    scratch = np.zeros((3, 16), dtype=np.int64)
    return pl, mv, tc, scratch


@njit(cache=True)
def _store(hands, pl, p, r, card, keys, info, gens, gen, stats):  # type: ignore[no-untyped-def]
    """Record the result of a searched trick-boundary node in the table."""
    base = pl[p, F_BASE]
    if base < 0:
        return
    leader = pl[p, F_LEAD]
    left = 0
    for s in range(4):
        left += POP[hands[leader, s]]
    need = pl[p, F_NEED]
    best = -1
    if card >= 0:
        s = card // 13
        best = rel_of(card, hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s])
    if r:
        tt_store(keys, info, gens, gen, pl[p, F_K1], pl[p, F_K2], base, left, need, left, best)
    else:
        tt_store(keys, info, gens, gen, pl[p, F_K1], pl[p, F_K2], base, left, 0, need - 1, best)
    stats[ST_TT_STORES] += 1


@njit(cache=True)
def probe(  # type: ignore[no-untyped-def]
    hands, tc, root_pos, root_leader, target, k, mb, vr, ban_root,
    pl, mv, scratch, keys, info, gens, gen, opts, stats,
):
    """True when the target can take at least ``k`` of the remaining tricks.

    ``hands`` (int64[4, 4] suit masks) is modified during the search and restored on return.
    ``tc[:root_pos]`` are the cards already in the current trick, led by ``root_leader``.
    """
    use_tt = opts[OPT_TT]
    use_quick = opts[OPT_QUICK]
    use_equiv = opts[OPT_EQUIV]
    use_order = opts[OPT_ORDER]
    use_last = opts[OPT_LAST]
    nslots = keys.shape[0]
    legal = scratch[0]
    live = scratch[1]
    scores = scratch[2]
    stats[ST_PROBES] += 1
    p = 0
    pl[0, F_LEAD] = root_leader
    pl[0, F_WON] = 0
    mode = _ENTER
    r = 0
    while True:
        if mode == _ENTER:
            stats[ST_NODES] += 1
            pos = (root_pos + p) % 4
            leader = pl[p, F_LEAD]
            won = pl[p, F_WON]
            mover = (leader + pos) % 4
            ts = root_pos + p - pos
            pl[p, F_BASE] = -1
            hint = -1
            ban = 0
            if pos == 0:
                left = 0
                for s in range(4):
                    left += POP[hands[leader, s]]
                need = k - won
                if need <= 0:
                    r = 1
                    mode = _RETURN
                    continue
                if need > left:
                    r = 0
                    mode = _RETURN
                    continue
                if left == 1 and use_last:
                    # one card each: the last trick plays itself
                    best = -1
                    wq = leader
                    for j in range(4):
                        q = (leader + j) % 4
                        c = -1
                        for s in range(4):
                            if hands[q, s] != 0:
                                c = s * 13 + HI[hands[q, s]]
                        if j == 0 or beats(c, best):
                            best = c
                            wq = q
                    r = 1 if wq == target else 0
                    mode = _RETURN
                    continue
                if use_quick:
                    lb, ub = quick_bounds(hands, leader, target, left)
                    if lb >= need:
                        stats[ST_QUICK_CUTS] += 1
                        r = 1
                        mode = _RETURN
                        continue
                    if ub < need:
                        stats[ST_QUICK_CUTS] += 1
                        r = 0
                        mode = _RETURN
                        continue
                ban = ban_root if p == 0 else 0
                if use_tt and ban == 0:
                    k1, k2 = make_key(hands, leader, target, mb, vr)
                    base = bucket_of(k1, k2, nslots)
                    slot = tt_find(keys, k1, k2, base)
                    if slot >= 0:
                        if info[slot, 0] >= need:
                            stats[ST_TT_HITS] += 1
                            r = 1
                            mode = _RETURN
                            continue
                        if info[slot, 1] < need:
                            stats[ST_TT_HITS] += 1
                            r = 0
                            mode = _RETURN
                            continue
                        if info[slot, 2] >= 0:
                            hint = card_of_rel(info[slot, 2], hands)
                    pl[p, F_K1] = k1
                    pl[p, F_K2] = k2
                    pl[p, F_BASE] = base
                    pl[p, F_NEED] = need
            n = gen_moves(
                hands, mover, target, leader, pos, tc, ts, mb, vr, ban, hint, use_equiv,
                use_order, mv, p, legal, live, scores,
            )
            pl[p, F_NMV] = n
            pl[p, F_MI] = 0
            mode = _ITER
        elif mode == _ITER:
            i = pl[p, F_MI]
            pos = (root_pos + p) % 4
            leader = pl[p, F_LEAD]
            mover = (leader + pos) % 4
            if i < pl[p, F_NMV]:
                c = mv[p, i]
                pl[p, F_MI] = i + 1
                hands[mover, c // 13] ^= 1 << (c % 13)
                tc[root_pos + p] = c
                won = pl[p, F_WON]
                if pos == 3:
                    led, best, wo = trick_info(tc, root_pos + p - 3, 4)
                    w = (leader + wo) % 4
                    pl[p + 1, F_LEAD] = w
                    pl[p + 1, F_WON] = won + (1 if w == target else 0)
                else:
                    pl[p + 1, F_LEAD] = leader
                    pl[p + 1, F_WON] = won
                p += 1
                mode = _ENTER
            else:
                r = 0 if mover == target else 1
                _store(hands, pl, p, r, -1, keys, info, gens, gen, stats)
                mode = _RETURN
        else:
            if p == 0:
                return r == 1
            p -= 1
            pos = (root_pos + p) % 4
            mover = (pl[p, F_LEAD] + pos) % 4
            c = tc[root_pos + p]
            hands[mover, c // 13] |= 1 << (c % 13)
            if (r == 1) == (mover == target):
                _store(hands, pl, p, r, c, keys, info, gens, gen, stats)
            else:
                mode = _ITER


@njit(cache=True)
def solve_root(  # type: ignore[no-untyped-def]
    hands, tc, root_pos, root_leader, target, mb, vr, ban_root, lo, hi, guess,
    pl, mv, scratch, keys, info, gens, gen, opts, stats,
):
    """Exact value in ``[lo, hi]`` (bounds known to hold) by null-window probes.

    With ``opts[OPT_MTD]`` the probes walk from ``guess`` (MTD(f)); otherwise they bisect.
    """
    if root_pos == 0 and opts[OPT_QUICK]:
        left = 0
        for s in range(4):
            left += POP[hands[root_leader, s]]
        lb, ub = quick_bounds(hands, root_leader, target, left)
        if lb > lo:
            lo = lb
        if ub < hi:
            hi = ub
    while lo < hi:
        if opts[OPT_MTD]:
            kk = guess
            if kk <= lo:
                kk = lo + 1
            if kk > hi:
                kk = hi
        else:
            kk = (lo + hi + 1) // 2
        if probe(
            hands, tc, root_pos, root_leader, target, kk, mb, vr, ban_root,
            pl, mv, scratch, keys, info, gens, gen, opts, stats,
        ):
            lo = kk
            guess = kk + 1
        else:
            hi = kk - 1
            guess = kk - 1
    return lo
