"""Numba kernels: the iterative null-window search and the MTD(f) driver.

The search is a depth-first walk with an explicit stack (one row of ``pl`` per ply), never a
recursive call, so ``cache=True`` is safe. ``probe`` answers "can the target take at least ``k``
of the remaining tricks (the trick in progress included)?"; ``solve_root`` drives probes to the
exact value.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._bounds import first_guess, lower_bound, others_of, quick_bounds, spade_margin
from ._consts import (
    HI,
    MAXPLY,
    OPT_DECIDED,
    OPT_EQUIV,
    OPT_GUESS,
    OPT_LAST,
    OPT_MOBILITY,
    OPT_MTD,
    OPT_ORDER,
    OPT_PART,
    OPT_QUICK,
    OPT_REVERSE,
    OPT_SIBLING,
    OPT_TT,
    POP,
    RANK,
    ST_NODES,
    ST_PROBES,
    ST_QUICK_CUTS,
    ST_SIBLING_SKIPS,
    ST_TT_HITS,
    ST_TT_STORES,
    SUIT,
    Ints,
    kernel,
)
from ._marks import all_moves_mark, cut_mark, sibling_skips, suit_live, trick_mark
from ._moves import can_beat, gen_moves, run_above, trick_info
from ._table import (
    DEEP,
    TOPK,
    Table,
    bucket_of,
    card_of_rel,
    codes_after_trick,
    d_best,
    entry_marks,
    length_word,
    rel_of,
    suit_codes,
    tt_lookup,
    tt_store,
)

# columns of the per-ply array ``pl``
F_LEAD = 0  # leader of the trick
F_WON = 1  # target's tricks since the root
F_NEED = 2  # tricks still needed (trick-boundary nodes)
F_BASE = 3  # >= 0: the node looked the table up, so its result is stored (-1: not stored)
F_NMV = 4  # number of moves
F_MI = 5  # next move index
F_W0 = 6  # length word of the table key
F_REL = 7  # relevant cards backed up from the children searched so far
F_LMARK = 8  # card compared by the legal-card rules at this node
F_TMARK = 9  # card that won the trick by rank (pos 3 nodes, current move)
F_CODE = 10  # 4 columns: owners of each suit, highest first
F_KILL = 14  # killer: the last move of the target that cut off at this ply
F_SKIP = 15  # moves whose result a searched sibling's result already gives (52-bit)
F_KILL2 = 16  # the same for the other seats' moves
F_AMARK = 17  # F_LMARK when the rules' comparison excluded a card of the class, else 0
N_FIELDS = 18

_ENTER = 0
_ITER = 1
_RETURN = 2
_ALL = (1 << 52) - 1


class Workspace(NamedTuple):
    """One search thread's stack (each thread searches with its own, ``new_workspace``)."""

    pl: np.ndarray  # int64[MAXPLY, N_FIELDS]: the per-ply fields (``F_*`` columns)
    mv: np.ndarray  # int64[MAXPLY, 16]: each ply's moves in the order they are tried
    tc: np.ndarray  # int64[MAXPLY + 4]: cards played, from the root trick's first card on
    scratch: np.ndarray  # int64[4, 16]: move generation's rows (legal, live, scores, spare)


class Problem(NamedTuple):
    """What a search is about: the root position's scalars (its hands and trick cards travel
    as arrays) and the seat whose tricks are counted."""

    pos: int  # cards already in the trick in progress (``tc[:pos]``)
    leader: int  # the seat that led it
    target: int
    mb: int  # must_beat 0/1
    vr: int  # void_rule 0 strict, 1 win_only
    ban: int  # 1: the first-trick spade ban applies to the lead at the root


class Run(NamedTuple):
    """One thread's settings and bookkeeping for one search."""

    opts: np.ndarray  # int64[N_OPTS]: technique switches (``OPT_*``)
    stats: np.ndarray  # int64[N_STATS]: counters the search adds to (``ST_*``)
    ctl: np.ndarray  # int64[1]: the search runs while ``ctl[0] == job``
    job: int  # the search's number
    gen: int  # the table generation its stores are marked with


def new_workspace() -> Workspace:
    """An empty stack."""
    return Workspace(
        pl=np.zeros((MAXPLY, N_FIELDS), dtype=np.int64),
        mv=np.zeros((MAXPLY, 16), dtype=np.int64),
        tc=np.zeros(MAXPLY + 4, dtype=np.int64),
        scratch=np.zeros((4, 16), dtype=np.int64),
    )


@kernel
def _store(  # noqa: PLR0913  (a numba kernel: the node's state as scalars and arrays)
    hands: Ints,
    pl: Ints,
    p: int,
    r: int,
    card: int,
    rel: int,
    target: int,
    fl: int,
    table: Table,
    gen: int,
    stats: Ints,
) -> None:
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
        s = SUIT[card]
        best = rel_of(card, hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s])
    codes = pl[p, F_CODE : F_CODE + 4]
    if r:
        lo = need
        hi = left
    else:
        lo = 0
        hi = need - 1
    tt_store(table, gen, pl[p, F_W0], fl, target, codes, hands, rel, left, lo, hi, best)
    stats[ST_TT_STORES] += 1


@kernel
def probe(hands: Ints, problem: Problem, k: int, ws: Workspace, table: Table, run: Run) -> int:  # noqa: C901, PLR0912, PLR0915  (the whole search in one loop over an explicit stack, as cache=True needs)
    """1 when ``problem.target`` can take at least ``k`` of the remaining tricks, else 0; -1 when
    stopped: ``run.ctl[0]`` no longer equals ``run.job`` (another thread finished the search
    first).

    ``hands`` (int64[4, 4] suit masks) is modified during the search and restored on return
    (not when stopped). ``ws.tc[:problem.pos]`` are the cards already in the current trick, led
    by ``problem.leader``. ``run.opts[OPT_REVERSE]``: the other seats' moves are tried in reverse
    order at the first plies (a helper thread's search, see ``Engine``).
    """
    root_pos, root_leader, target, mb, vr, ban_root = problem  # Problem's fields in order
    pl = ws.pl
    mv = ws.mv
    tc = ws.tc
    scratch = ws.scratch
    opts = run.opts
    stats = run.stats
    ctl = run.ctl
    job = run.job
    gen = run.gen
    use_tt = opts[OPT_TT]
    use_quick = opts[OPT_QUICK]
    use_equiv = opts[OPT_EQUIV]
    use_order = opts[OPT_ORDER]
    use_mob = opts[OPT_MOBILITY]
    use_last = opts[OPT_LAST]
    use_part = opts[OPT_PART]
    use_decided = opts[OPT_DECIDED]
    use_sibling = opts[OPT_SIBLING] and use_part
    reverse = opts[OPT_REVERSE]
    fl = mb * 2 + vr
    nslots = table.gens.shape[0]
    legal = scratch[0]
    live = scratch[1]
    scores = scratch[2]
    spare = scratch[3]
    stats[ST_PROBES] += 1
    p = 0
    pl[0, F_LEAD] = root_leader
    pl[0, F_WON] = 0
    mode = _ENTER
    r = 0
    rel = 0  # relevant cards of the result being returned
    while True:
        if mode == _ENTER:
            if ctl[0] != job:
                return -1
            stats[ST_NODES] += 1
            pos = (root_pos + p) & 3
            leader = pl[p, F_LEAD]
            won = pl[p, F_WON]
            mover = (leader + pos) & 3
            ts = root_pos + p - pos
            pl[p, F_BASE] = -1
            pl[p, F_REL] = 0
            hint = -1
            ban = 0
            rel = 0
            led = 0
            best = 0
            wo = 0
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
                    for j in range(4):
                        q = (leader + j) & 3
                        for s in range(4):
                            if hands[q, s] != 0:
                                tc[ts + j] = s * 13 + HI[hands[q, s]]
                    wo, rel = trick_mark(tc, ts)
                    r = 1 if ((leader + wo) & 3) == target else 0
                    mode = _RETURN
                    continue
                ban = ban_root if p == 0 else 0
                if use_quick and ban == 0:  # the bounds assume a free lead
                    # the target's sure tricks only (``lower_bound``: the coalition's cost more
                    # than they save here; ``solve_root`` uses both at the root)
                    lb, lmk = lower_bound(hands, leader, target, left, vr, need)
                    if lb >= need:
                        stats[ST_QUICK_CUTS] += 1
                        r = 1
                        rel = lmk
                        mode = _RETURN
                        continue
                if use_tt and ban == 0:
                    codes = pl[p, F_CODE : F_CODE + 4]
                    if p >= 4 and pl[p - 4, F_BASE] >= 0:
                        # the last trick's node looked the table up, so its codes are current
                        codes_after_trick(
                            hands, tc, root_pos + p - 4, pl[p - 4, F_CODE : F_CODE + 4], codes
                        )
                    else:
                        suit_codes(hands, codes)
                    w0 = length_word(hands, leader)
                    tf = fl * 4 + target
                    base, fp = bucket_of(w0, tf, codes, nslots, TOPK)
                    res, ent = tt_lookup(table, base, fp, w0, fl, target, codes, need)
                    if res < 0:  # the deep entries' chain (``_table.DEEP``)
                        base, fp = bucket_of(w0, tf, codes, nslots, DEEP)
                        res2, ent2 = tt_lookup(table, base, fp, w0, fl, target, codes, need)
                        if res2 >= 0 or ent < 0:
                            res = res2
                            ent = ent2
                    if res >= 0:
                        stats[ST_TT_HITS] += 1
                        r = res
                        rel = entry_marks(ent, hands) if use_part else _ALL
                        mode = _RETURN
                        continue
                    if ent >= 0:
                        hint = card_of_rel(d_best(ent), hands)
                    pl[p, F_W0] = w0
                    pl[p, F_BASE] = base
                    pl[p, F_NEED] = need
            else:
                # the trick so far (move generation needs it too)
                led, best, wo = trick_info(tc, ts, pos)
            if pos > 0 and use_decided:
                # nobody still to play can beat the winning card (``can_beat`` ignores the
                # must-follow rules, so it errs towards "can"): the trick's winner is fixed; stop
                # when that alone settles the question, or (with the sure-trick bounds) that and
                # the target's spade margin after the trick, instead of trying every card still
                # to come (the next trick's bounds would stop each of them; the check costs about
                # what it saves in time and saves nodes). The result relied on the winning
                # card's rank (marked as at a completed trick).
                fixed = True
                for j in range(pos, 4):
                    if can_beat(hands[(leader + j) & 3], best, led):
                        fixed = False
                        break
                if fixed:
                    takes = 1 if ((leader + wo) & 3) == target else 0
                    if won + takes >= k:
                        r = 1
                        rel = 1 << best
                        mode = _RETURN
                        continue
                    if use_quick:
                        # the target's spades' margin over the others' (``_bounds.spade_margin``;
                        # their cards still to come in this trick only raise it) are tricks it
                        # takes after this one for sure; a target still to play here keeps its
                        # spades or, when it must play one, loses its lowest (none can win)
                        tsp = hands[target, 3]
                        if ((target - leader) & 3) >= pos:
                            tsp &= tsp - 1
                        osp = others_of(hands, target, 3)
                        sm, smark = spade_margin(tsp, osp, k - won - takes)
                        if won + takes + sm >= k:
                            r = 1
                            rel = (1 << best) | smark
                            mode = _RETURN
                            continue
                    if takes == 0:
                        after = 0
                        for s in range(4):
                            after += POP[hands[leader, s]]
                        if won + after < k:
                            r = 0
                            rel = 1 << best
                            mode = _RETURN
                            continue
            n, lmark = gen_moves(
                hands,
                mover,
                target,
                leader,
                pos,
                tc,
                ts,
                led,
                best,
                wo,
                mb,
                vr,
                ban,
                hint,
                pl[p, F_KILL if mover == target else F_KILL2] - 1,
                use_equiv,
                use_order,
                use_mob,
                mv,
                p,
                legal,
                live,
                scores,
                spare,
            )
            if p < reverse and mover != target:
                # a helper's search: the other seats' replies from the far end, so that the two
                # threads prove different parts of a "yes" and meet in the table
                for j in range(n // 2):
                    t = mv[p, j]
                    mv[p, j] = mv[p, n - 1 - j]
                    mv[p, n - 1 - j] = t
            pl[p, F_LMARK] = lmark
            pl[p, F_AMARK] = all_moves_mark(hands[mover], legal, SUIT[tc[ts]], vr, lmark)
            pl[p, F_NMV] = n
            pl[p, F_MI] = 0
            pl[p, F_SKIP] = 0
            mode = _ITER
        elif mode == _ITER:
            i = pl[p, F_MI]
            pos = (root_pos + p) & 3
            leader = pl[p, F_LEAD]
            mover = (leader + pos) & 3
            skip = pl[p, F_SKIP]
            while i < pl[p, F_NMV] and (skip >> mv[p, i]) & 1:
                stats[ST_SIBLING_SKIPS] += 1
                i += 1
            if i < pl[p, F_NMV]:
                c = mv[p, i]
                pl[p, F_MI] = i + 1
                hands[mover, SUIT[c]] ^= 1 << RANK[c]
                tc[root_pos + p] = c
                won = pl[p, F_WON]
                if pos == 3:
                    wo, tmark = trick_mark(tc, root_pos + p - 3)
                    pl[p, F_TMARK] = tmark
                    w = (leader + wo) & 3
                    pl[p + 1, F_LEAD] = w
                    pl[p + 1, F_WON] = won + (1 if w == target else 0)
                else:
                    pl[p + 1, F_LEAD] = leader
                    pl[p + 1, F_WON] = won
                p += 1
                mode = _ENTER
            else:
                r = 0 if mover == target else 1
                rel = pl[p, F_REL] | pl[p, F_AMARK]
                if not use_part:
                    rel = _ALL
                _store(hands, pl, p, r, -1, rel, target, fl, table, gen, stats)
                mode = _RETURN
        else:
            if p == 0:
                return r
            p -= 1
            pos = (root_pos + p) & 3
            leader = pl[p, F_LEAD]
            mover = (leader + pos) & 3
            c = tc[root_pos + p]
            hands[mover, SUIT[c]] |= 1 << RANK[c]
            if pos == 3:
                rel |= pl[p, F_TMARK]
            if (r == 1) == (mover == target):
                rel |= cut_mark(tc, root_pos + p - pos, pos, c, pl[p, F_LMARK])
                pl[p, F_KILL if mover == target else F_KILL2] = c + 1
                if not use_part:
                    rel = _ALL
                _store(hands, pl, p, r, c, rel, target, fl, table, gen, stats)
            else:
                s = SUIT[c]
                mine = hands[mover, s]
                # skipping needs more moves to come and another card of the suit
                sib = use_sibling != 0 and pl[p, F_MI] < pl[p, F_NMV] and mine != 1 << RANK[c]
                lv = 0
                if use_equiv or sib:
                    lv = suit_live(hands, tc, root_pos + p - pos, pos, s)
                if use_equiv and rel & run_above(c, mine, lv):
                    rel |= 1 << c
                pl[p, F_REL] |= rel
                if sib:
                    pl[p, F_SKIP] |= sibling_skips(mine, lv, c, rel)
                mode = _ITER


@kernel
def solve_root(  # noqa: C901, PLR0912  (bounds, first guess and the MTD(f) loop; a numba kernel)
    hands: Ints,
    problem: Problem,
    lo: int,
    hi: int,
    guess: int,
    ws: Workspace,
    table: Table,
    run: Run,
) -> int:
    """Exact value in ``[lo, hi]`` (bounds known to hold) by null-window probes; -1 when
    stopped (``probe``'s ``run.ctl`` and ``run.job``).

    With ``opts[OPT_MTD]`` the probes walk from ``guess`` (MTD(f)); otherwise they bisect. A
    negative ``guess`` asks for one: the estimate ``first_guess`` at a trick boundary (with
    ``opts[OPT_GUESS]``), else the upper bound.
    """
    root_pos, root_leader, target, mb, vr, ban_root = problem  # Problem's fields in order
    opts = run.opts
    pl = ws.pl
    # killers left by an earlier solve (another seat or deal) mislead more often than not, so
    # each solve starts without them (benchmarks/HISTORY.md, "Solver constants and layouts")
    pl[:, F_KILL] = 0
    pl[:, F_KILL2] = 0
    use_bounds = opts[OPT_QUICK] and ban_root == 0  # the bounds assume a free lead
    spare = ws.scratch[3]
    want_guess = guess < 0 and opts[OPT_GUESS]
    if root_pos == 0 and (use_bounds or want_guess):
        left = 0
        for s in range(4):
            left += POP[hands[root_leader, s]]
        lb, ub, _lm, _um = quick_bounds(hands, root_leader, target, left, vr)
        if want_guess:  # the estimate only steers, so an unsound lb (ban) is fine here
            guess = first_guess(hands, root_leader, target, left, lb, ub, mb * 2 + vr, spare)
        if use_bounds:
            if lb > lo:
                lo = lb
            if ub < hi:
                hi = ub
    if guess < 0:
        guess = hi
    while lo < hi:
        if opts[OPT_MTD]:
            kk = guess
            if kk <= lo:
                kk = lo + 1
            if kk > hi:
                kk = hi
        else:
            kk = (lo + hi + 1) // 2
        res = probe(hands, problem, kk, ws, table, run)
        if res < 0:
            return -1
        if res == 1:
            lo = kk
            guess = kk + 1
        else:
            hi = kk - 1
            guess = kk - 1
    return lo
