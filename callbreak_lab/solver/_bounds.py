"""Numba kernels: sure-trick bounds at a trick boundary.

All bounds are on the tricks the target takes from this boundary on, and are sound whatever the
rule switches (they only rely on "a spade above every enemy spade wins the trick it is played
to", "a player holding the led suit must follow" and "a void player holding a spade that would
win must play a spade", which holds for both void rules).
"""

from __future__ import annotations

from numba import njit

from ._consts import ABOVE, HI, POP


@njit(cache=True)
def quick_bounds(hands, leader, target, left, vr):
    """(lower, upper, lower_marks, upper_marks): bounds on the target's tricks out of the
    ``left`` remaining ones, and the cards (52-bit masks) whose relative ranks they rely on
    (for partition search; suit lengths are always part of a table entry). ``vr``: the void
    rule (0 strict, 1 win_only)."""
    tsp = hands[target, 3]
    osp = 0
    for q in range(4):
        if q != target:
            osp |= hands[q, 3]
    # target's j-th highest spade: at most a_j enemy spades above it can beat any of the top j
    lb = 0
    lmark = 0
    j = 0
    a = 0
    m = tsp | osp
    while m != 0:
        r = HI[m]
        m ^= 1 << r
        if (tsp >> r) & 1:
            j += 1
            if j - a > lb:
                lb = j - a
                lmark = 1 << (39 + r)
        else:
            a += 1
    if leader == target:
        # draw trumps with the spades above every enemy spade, then cash side-suit winners (safe
        # from ruffs once no enemy holding spades can be void in the suit)
        t_top = POP[tsp & ABOVE[HI[osp] + 1]]
        mk = 1 << (39 + HI[osp]) if osp != 0 and t_top > 0 else 0
        out_of_spades = True
        for q in range(4):
            if q != target and POP[hands[q, 3]] > t_top:
                out_of_spades = False
        cash = t_top
        if out_of_spades:
            cash = POP[tsp]
        for s in range(3):
            ts = hands[target, s]
            if ts == 0:
                continue
            os = 0
            for q in range(4):
                if q != target:
                    os |= hands[q, s]
            r = POP[ts & ABOVE[HI[os] + 1]]
            if r == 0:
                continue
            if os != 0:
                mk |= 1 << (13 * s + HI[os])
            # long suit: once the top r rounds have exhausted every enemy's cards of the suit,
            # the target's low cards in it are winners too (ruffs are limited just below)
            longest = 0
            for q in range(4):
                if q != target and POP[hands[q, s]] > longest:
                    longest = POP[hands[q, s]]
            if longest <= r:
                r = POP[ts]
            if not out_of_spades:
                for q in range(4):
                    if q != target and POP[hands[q, 3]] > t_top and POP[hands[q, s]] < r:
                        r = POP[hands[q, s]]
            cash += r
        if cash > lb:
            lb = cash
            lmark = mk
    elif tsp & ABOVE[HI[osp] + 1] != 0:
        sl, smk = _side_winners_off_lead(hands, target, tsp, osp, vr)
        if sl > lb:
            lb = sl
            lmark = smk
    # likewise each enemy's spades: its top j spades lose at most b_j to target spades above them
    cs = 0
    ml = 0
    cmark = 0
    lmk = 0
    for q in range(4):
        if q == target:
            continue
        qsp = hands[q, 3]
        m = qsp | tsp
        best = 0
        bmark = 0
        j = 0
        b = 0
        while m != 0:
            r = HI[m]
            m ^= 1 << r
            if (qsp >> r) & 1:
                j += 1
                if j - b > best:
                    best = j - b
                    bmark = 1 << (39 + r)
            else:
                b += 1
        if best > cs:
            cs = best
            cmark = bmark
        if q == leader:
            ml = best
            lmk = bmark
    umark = cmark
    if leader != target:
        # the enemy leader may lead a card the target can neither beat nor ruff
        for s in range(3):
            ls = hands[leader, s]
            if ls == 0:
                continue
            ts = hands[target, s]
            if ts != 0 and HI[ls] > HI[ts]:
                if ml + 1 > cs:
                    cs = ml + 1
                    umark = lmk | (1 << (13 * s + HI[ls]))
                break
            if ts == 0 and tsp == 0:
                if ml + 1 > cs:
                    cs = ml + 1
                    umark = lmk
                break
    return lb, left - cs, lmark, umark


@njit(cache=True)
def _side_winners_off_lead(hands, target, tsp, osp, vr):
    """(tricks, marks) the target takes for sure while an enemy is on lead, when it holds a
    spade above every enemy spade (a "master"): every master wins the trick it is played to, and
    each top card of a side suit wins its round of the suit unless an enemy holding spades is
    void by then.

    Why the side winners are sure: while the target holds a master it is never forced to throw
    a winner away (void in the led suit it may always trump with the master, which wins), and
    once any of these cards wins, the target is on lead and cashes the rest. Under the strict
    void rule an enemy holding spades cannot discard (void, it must trump), so it is void in a
    side suit only after as many rounds of it as it holds cards; under ``win_only`` it may
    discard under a higher spade, so side winners only count when no enemy holds a spade.
    """
    t_top = POP[tsp & ABOVE[HI[osp] + 1]]
    mk = 0
    if osp != 0:
        mk = 1 << (39 + HI[osp])
    total = t_top
    for s in range(3):
        ts = hands[target, s]
        if ts == 0:
            continue
        os = 0
        for q in range(4):
            if q != target:
                os |= hands[q, s]
        r = POP[ts & ABOVE[HI[os] + 1]]
        if r == 0:
            continue
        if osp != 0:
            if vr != 0:
                continue
            for q in range(4):
                if q != target and hands[q, 3] != 0 and POP[hands[q, s]] < r:
                    r = POP[hands[q, s]]
        if r > 0:
            total += r
            if os != 0:
                mk |= 1 << (13 * s + HI[os])
    return total, mk
