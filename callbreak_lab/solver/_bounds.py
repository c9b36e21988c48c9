"""Numba kernels: sure-trick bounds at a trick boundary.

All bounds are on the tricks the target takes from this boundary on, and are sound whatever the
rule switches (they only rely on "a spade above every enemy spade wins the trick it is played
to", "a player holding the led suit must follow" and "a void player holding a spade that would
win must play a spade", which holds for both void rules).
"""

from __future__ import annotations

import numpy as np

from ._consts import ABOVE, HI, LO, POP, Ints, kernel


@kernel
def quick_bounds(  # noqa: C901, PLR0912  (the sure-trick counts in turn, each able to stop early: one numba kernel of the hot path)
    hands: Ints, leader: int, target: int, left: int, vr: int, lo_stop: int = 99, hi_stop: int = -1
) -> tuple[int, int, int, int]:
    """(lower, upper, lower_marks, upper_marks): bounds on the target's tricks out of the
    ``left`` remaining ones, and the cards (52-bit masks) whose relative ranks they rely on
    (for partition search; suit lengths are always part of a table entry). ``vr``: the void
    rule (0 strict, 1 win_only).

    The upper bound is ``left`` minus the best of several counts of tricks the coalition is
    sure to take; the marks belong to the count used. A search only asks whether the value
    reaches some ``need``: with ``lo_stop`` / ``hi_stop`` the function returns as soon as the
    lower bound reaches ``lo_stop`` (the upper bound then reported as ``left``) or the upper
    bound falls below ``hi_stop``, skipping the remaining (costlier) counts. Every bound it
    returns is one of the full computation's candidates, so it is as sound. A count whose cheap
    cap (``_lower_cap``) shows it can neither decide the question nor raise the best count so far
    is not computed: the results are those of the full computation. With ``lo_stop`` the
    target's counts also stop adding terms (top spades, side suits) once they reach it, and the
    marks are those of the terms added: the count then answers the question with shallower
    marks, and it is still a bound wherever those marks agree, because every term is at least 0,
    so it never exceeds the full count there. The same for each enemy's count against
    ``hi_stop``."""
    lb, lmark = lower_bound(hands, leader, target, left, vr, lo_stop)
    if lb >= lo_stop:
        return lb, left, lmark, 0
    tsp = hands[target, 3]
    # each enemy's spades: its top j spades lose at most b_j to target spades above them
    cs = 0
    ml = 0
    umark = 0
    lmk = 0
    for q in range(4):
        if q == target:
            continue
        best, bmark = spade_margin(hands[q, 3], tsp)
        if best > cs:
            cs = best
            umark = bmark
        if q == leader:
            ml = best
            lmk = bmark
    if left - cs < hi_stop:
        return lb, left - cs, lmark, umark
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
        if left - cs < hi_stop:
            return lb, left - cs, lmark, umark
    # the coalition takes at least what any one enemy is sure to take against the other three
    for q in range(4):
        if q != target:
            cap = _lower_cap(hands, q)
            if cap <= cs or (hi_stop >= 0 and left - cap >= hi_stop):
                continue
            lq, mq = _lower(hands, leader, q, vr, left - hi_stop + 1 if hi_stop >= 0 else 99)
            if lq > cs:
                cs = lq
                umark = mq
                if left - cs < hi_stop:
                    break
    return lb, left - cs, lmark, umark


@kernel
def lower_bound(
    hands: Ints, leader: int, target: int, left: int, vr: int, lo_stop: int = 99
) -> tuple[int, int]:
    """(lower, lower_marks): ``quick_bounds``' lower bound alone, with its ``lo_stop``. The
    search at a trick boundary uses only this half: the coalition's counts (the upper bound)
    cut about one node for every hundred the target's do, and computing them at every boundary
    cost more time than the nodes they saved (benchmarks/HISTORY.md, "Card values")."""
    lb = 0
    lmark = 0
    if lo_stop > left or _lower_cap(hands, target) >= lo_stop:
        lb, lmark = _lower(hands, leader, target, vr, lo_stop)
    return lb, lmark


@kernel
def others_of(hands: Ints, q: int, s: int) -> int:
    """The cards of suit ``s`` held by the three seats other than ``q`` (hands are disjoint)."""
    live: int = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
    mine: int = hands[q, s]
    return live & ~mine


@kernel
def _lower_cap(hands: Ints, q: int) -> int:
    """A cheap cap on ``_lower(hands, leader, q, vr)`` whoever leads: ``q``'s spades plus its
    cards of each side suit whose top card is above every other player's card of that suit.
    Every count in ``_lower`` is at most that: its spade counts (top spades, drawn rounds plus
    the rest) never exceed ``q``'s spades, and a side suit yields tricks (``_rounds`` cashing,
    or the off-lead winners above every enemy card) only when ``q``'s top card of it is above
    every other card of it, and then at most ``q``'s length in it."""
    cap: int = POP[hands[q, 3]]
    for s in range(3):
        h = hands[q, s]
        if h == 0:
            continue
        o = others_of(hands, q, s)
        if HI[h] > HI[o]:
            cap += POP[h]
    return cap


@kernel
def spade_margin(mine: int, theirs: int, stop: int = 99) -> tuple[int, int]:
    """(margin, mark): the most tricks the top spades of ``mine`` win against the spades
    ``theirs`` whatever the order: over ``mine``'s top ``j`` spades, ``j`` minus the spades of
    ``theirs`` above the ``j``-th (each beats at most one of them), maximised over ``j``;
    ``mark`` the 52-bit card of the ``j``-th spade (0 when the margin is 0)."""
    best = 0
    mark = 0
    j = 0
    a = 0
    m = mine | theirs
    while m != 0:
        r = HI[m]
        m ^= 1 << r
        if (mine >> r) & 1:
            j += 1
            if j - a > best:
                best = j - a
                mark = 1 << (39 + r)
                if best >= stop:
                    break
        else:
            a += 1
    return best, mark


@kernel
def _lower(hands: Ints, leader: int, target: int, vr: int, stop: int = 99) -> tuple[int, int]:
    """(tricks, marks): tricks ``target`` takes for sure against the other three seats."""
    tsp = hands[target, 3]
    osp = others_of(hands, target, 3)
    # target's j-th highest spade: at most a_j enemy spades above it can beat any of the top j
    lb, lmark = spade_margin(tsp, osp, stop)
    if lb >= stop:
        return lb, lmark
    if leader == target:
        cash, mk = _cash_on_lead(hands, target, tsp, osp, lb, lmark, stop)
        if cash > lb:
            lb = cash
            lmark = mk
    elif tsp & ABOVE[HI[osp] + 1] != 0:
        sl, smk = _side_winners_off_lead(hands, target, tsp, osp, vr, stop)
        if sl > lb:
            lb = sl
            lmark = smk
    elif lb == 0 and tsp != 0:
        # the top spade x behind the only enemy holding higher spades: the right-hand enemy
        # plays before the target in every trick until the target wins one (only then does it
        # lead), so x wins any trick it is played to without a higher spade of that enemy in
        # it; x is legal whenever spades are led or the target is void and must or may trump
        # with a winning spade. The target loses x only when x is its last spade in a trick the
        # right-hand enemy tops, which needs more such tricks (one higher spade each) than the
        # target has other spades to play in them.
        x = HI[tsp]
        above = osp & ABOVE[x + 1]
        rho = hands[(target + 3) & 3, 3]
        if above & ~rho == 0 and POP[tsp] - 1 >= POP[above]:
            lb = 1
            lmark = 1 << (39 + x)
    return lb, lmark


@kernel
def _rounds(hands: Ints, target: int, s: int) -> tuple[int, int]:
    """(k, card): the target, leading suit ``s`` round after round, wins the first ``k`` rounds
    whatever the others play (ruffs aside): its ``i``-th card beats the top card of every enemy
    still holding ``i`` or more cards of the suit. ``card`` (52-bit) is the lowest card whose
    rank that relied on (0 when no enemy holds the suit)."""
    ts = hands[target, s]
    k = 0
    card = 0
    m = ts
    while m != 0:
        r = HI[m]
        m ^= 1 << r
        i = k + 1
        thr = -1
        for q in range(4):
            if q != target and POP[hands[q, s]] >= i and HI[hands[q, s]] > thr:
                thr = HI[hands[q, s]]
        if r <= thr:
            break
        k = i
        if thr >= 0:
            card = 1 << (13 * s + r)
    return k, card


@kernel
def _cash_on_lead(  # noqa: C901, PLR0912, PLR0915  (two plans counted side by side in one pass over the suits; a numba kernel)
    hands: Ints, target: int, tsp: int, osp: int, sp0: int, sp0mark: int, stop: int = 99
) -> tuple[int, int]:
    """(tricks, marks) the target takes for sure on lead, by the better of two plans.

    A: draw trumps round by round as long as each round is sure to win (``_rounds`` on spades:
    at least the masters, the spades above every enemy spade), cash side suits round by round
    while no enemy still holding spades can be void, then play the other
    spades: the ``j``-th of them is beaten only by an enemy spade above it left after the
    draw, one per trick (at most ``min(a, R)``: ``a`` enemy spades above it, ``R`` enemy spades
    left). B: cash the side suits first (no enemy holding spades void), then count the spades
    alone (``sp0``, the top-spades count, which holds whatever the order). While the target
    cashes, every enemy holding spades follows suit, so nobody ruffs and the lead stays.
    """
    t_top, mka = _rounds(hands, target, 3)
    rest = 0
    for q in range(4):
        if q != target and POP[hands[q, 3]] > t_top:
            rest += POP[hands[q, 3]] - t_top
    # plan A, spades after the draw
    best = 0
    j = 0
    a = 0
    m = tsp | osp
    n_t = 0
    while m != 0:
        r = HI[m]
        m ^= 1 << r
        if (tsp >> r) & 1:
            n_t += 1
            if n_t <= t_top:
                continue
            j += 1
            lose = a if a < rest else rest
            if j - lose > best:
                best = j - lose
                mka = 1 << (39 + r)
        else:
            a += 1
    cash_a = t_top + best
    cash_b = sp0
    mkb = sp0mark
    for s in range(3):
        if cash_a >= stop and cash_b >= stop:
            break
        if hands[target, s] == 0:
            continue
        k, card = _rounds(hands, target, s)
        if k == 0:
            continue
        ka = k
        kb = k
        for q in range(4):
            if q == target or hands[q, 3] == 0:
                continue
            n = POP[hands[q, s]]
            if n < kb:
                kb = n
            if POP[hands[q, 3]] > t_top and n < ka:
                ka = n
        if cash_a < stop:
            cash_a += ka
            if ka > 0:
                mka |= card
        if cash_b < stop:
            cash_b += kb
            if kb > 0:
                mkb |= card
    if cash_a >= stop and cash_b >= stop:
        if _bits(mkb) < _bits(mka):
            return cash_b, mkb
        return cash_a, mka
    if cash_b > cash_a:
        return cash_b, mkb
    return cash_a, mka


@kernel
def _bits(m: int) -> int:
    """Number of cards in a 52-bit mask."""
    n: int = POP[m & 0x1FFF] + POP[(m >> 13) & 0x1FFF] + POP[(m >> 26) & 0x1FFF] + POP[m >> 39]
    return n


@kernel
def _side_winners_off_lead(  # noqa: C901, PLR0912  (the two counts of the docstring's proof in one pass; a numba kernel)
    hands: Ints, target: int, tsp: int, osp: int, vr: int, stop: int = 99
) -> tuple[int, int]:
    """(tricks, marks) the target takes for sure while an enemy is on lead, when it holds a
    spade above every enemy spade (a "master").

    The target's plan: until it wins a trick, follow suit with a top card of the led suit if it
    holds one (else any card of it) and trump with a master when void (a master wins any trick,
    and the void rules never stop the target playing it); once on lead, cash the masters, then the
    top cards of each side suit while no enemy holding spades is void in it. Call ``d_q`` the
    most cards enemy ``q`` (holding spades) can still shed while it holds spades and is void in
    the led suit. Each side suit ``x`` then yields ``min(r_x, min_q (len_q(x) - d_q))`` tricks.
    Proof by a potential: ``won + masters + sum_x f_x`` never falls (``f_x`` the count above
    for the current position):
    - strict rule: a void enemy holding spades must trump, so ``d_q = 0``;
    - ``win_only``: a void enemy holding spades may discard only under a spade above all of its
      spades already in the trick. Before the target's first won trick that spade is another
      enemy's (the target follows suit, else it trumps and wins), so it is one of the other
      enemies' spades (at most ``c_q`` of them, all their spades), each played once; in the
      trick the target wins it may be the target's master, once. Hence ``d_q = c_q + 1``
      before that trick and ``d_q = c_q`` after; each discard or the end of that trick lowers
      ``d_q`` as much as the length it costs. A top card of ``x`` the target loses to a trump
      before then was ruffed by an enemy void in ``x`` holding spades, so ``f_x`` was already
      0. Once on lead the target only plays cards counted as winners, every enemy holding
      spades follows suit, nobody discards, and each trick adds 1 to ``won`` and takes at
      most 1 from the rest.
    The alternative count ``masters + sum_x min(r_x, min_q len_q(x)) - sum_q d_q`` (each
    discard costs at most one trick) is proved the same way; the larger one is returned.
    """
    t_top = POP[tsp & ABOVE[HI[osp] + 1]]
    mk = 0
    if osp != 0:
        mk = 1 << (39 + HI[osp])
    # d_q = 1 + c_q under win_only: c_q the other enemies' spades above q's lowest spade (any
    # spade above all of q's spades is above that one); relies on the spades down to it
    dsum = 0
    if vr != 0:
        low = 13
        for q in range(4):
            sq = hands[q, 3]
            if q != target and sq != 0:
                c = POP[(osp ^ sq) & ABOVE[LO[sq] + 1]]
                dsum += 1 + c
                if c < POP[osp ^ sq] and LO[sq] < low:
                    low = LO[sq]
        if low < 13:
            mk |= 1 << (39 + low)
    total = t_top
    glob = t_top - dsum
    for s in range(3):
        if total >= stop or glob >= stop:
            break
        ts = hands[target, s]
        if ts == 0:
            continue
        os = others_of(hands, target, s)
        r = POP[ts & ABOVE[HI[os] + 1]]
        if r == 0:
            continue
        rg = r
        for q in range(4):
            if q == target or hands[q, 3] == 0:
                continue
            ln = POP[hands[q, s]]
            if ln < rg:
                rg = ln
            d = 0
            if vr != 0:
                sq = hands[q, 3]
                d = 1 + POP[(osp ^ sq) & ABOVE[LO[sq] + 1]]
            if ln - d < r:
                r = ln - d
        if r < 0:
            r = 0
        total += r
        glob += rg
        if rg > 0 and os != 0:
            mk |= 1 << (13 * s + HI[os])
    if glob > total:
        total = glob
    return total, mk


#: the features of ``guess_features``, in order
GUESS_FEATURES = (
    "one",
    "lb",
    "ub",
    "spades",
    "spade_honours",
    "side_honours",
    "short_x_spades",
    "longest_enemy_spades",
    "enemy_spades",
    "left",
    "on_lead",
    "second",
    "third",
    "voids_x_has_spades",
    "side_masters",
    "side_guarded_seconds",
)
N_GUESS_FEATURES = len(GUESS_FEATURES)
#: coefficients of the first-probe estimate per rule pair (must-beat * 2 + void rule), fitted by
#: ``scripts/fit_first_guess.py`` on the shipped datasets' training deals (start of the deal)
#: and 2,000 positions 1-10 tricks into other deals per profile; no preset has must-beat off
#: with the strict void rule, so row 0 is the mean of the others
# fmt: off
GUESS_COEF = np.array(
    [
        [-1.4231, 0.5049, -0.0112, 0.3752, 0.2246, 0.1134, 0.0914, -0.1664,
         -0.1101, 0.1602, 0.0438, -0.0293, -0.0178, 0.0445, 0.5307, 0.1456],
        [-1.3822, 0.5207, -0.0208, 0.3516, 0.2277, 0.1094, 0.0883, -0.1503,
         -0.1108, 0.1633, -0.1084, -0.0270, -0.0176, 0.0546, 0.5589, 0.1222],
        [-1.4463, 0.4775, -0.0208, 0.3966, 0.2173, 0.1206, 0.0944, -0.1837,
         -0.1125, 0.1739, 0.1617, -0.0306, -0.0174, 0.0537, 0.4726, 0.1505],
        [-1.4409, 0.5165, 0.0080, 0.3775, 0.2289, 0.1103, 0.0914, -0.1653,
         -0.1071, 0.1434, 0.0781, -0.0302, -0.0183, 0.0251, 0.5605, 0.1642],
    ],
    dtype=np.float64,
)
# fmt: on
#: added to the estimate before rounding down: probes a little above the value are cheaper on
#: the whole than probes below it
GUESS_SHIFT = 1.5


@kernel
def guess_features(  # noqa: C901, PLR0912, PLR0915  (one feature after another into out; a numba kernel)
    hands: Ints, leader: int, target: int, left: int, lb: int, ub: int, out: Ints
) -> None:
    """The features of the first-probe estimate (``GUESS_FEATURES``) into ``out`` (int64, so a
    kernel can use its scratch rows): the sure-trick bounds, the target's spades and honours
    (4, 2, 1 for the top three cards still out of a suit), short side suits, the enemies'
    spades, the tricks left and the target's place in the trick."""
    for i in range(N_GUESS_FEATURES):
        out[i] = 0
    out[0] = 1
    out[1] = lb
    out[2] = ub
    sp = POP[hands[target, 3]]
    out[3] = sp
    short = 0
    for s in range(4):
        live = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
        mine = hands[target, s]
        w = 4
        k = 0
        hp = 0
        while live != 0 and k < 3:
            r = HI[live]
            live ^= 1 << r
            if (mine >> r) & 1:
                hp += w
                if s < 3 and k == 0:
                    out[14] += 1
                if s < 3 and k == 1 and POP[mine] >= 2:
                    out[15] += 1
            w //= 2
            k += 1
        if s == 3:
            out[4] = hp
        else:
            out[5] += hp
            others = others_of(hands, target, s)
            if POP[mine] <= 1 and others != 0:
                short += 1
            if mine == 0 and others != 0 and sp > 0:
                out[13] += 1
    out[6] = short * sp
    emax = 0
    esum = 0
    for q in range(4):
        if q != target:
            n = POP[hands[q, 3]]
            esum += n
            if n > emax:
                emax = n
    out[7] = emax
    out[8] = esum
    out[9] = left
    place = (target - leader + 4) & 3
    if place == 0:
        out[10] = 1
    elif place == 1:
        out[11] = 1
    elif place == 2:
        out[12] = 1


@kernel
def first_guess(
    hands: Ints, leader: int, target: int, left: int, lb: int, ub: int, fl: int, buf: Ints
) -> int:
    """The first null-window probe of a solve from a trick boundary: a linear estimate of the
    target's value (``guess_features`` times ``GUESS_COEF[fl]``, ``fl`` = must-beat * 2 + void
    rule), plus ``GUESS_SHIFT``, rounded down. ``buf``: 16 int64 of scratch.

    A probe at the value and one just above it cost about the same, but the estimate errs
    either way, and a wrong probe below the value costs a whole proof in a hard solve, so the
    estimate leans high (coefficients from ``scripts/fit_first_guess.py``; its error and the
    measurements: benchmarks/HISTORY.md, "Solver constants and layouts" and "Figures from the
    source comments")."""
    guess_features(hands, leader, target, left, lb, ub, buf)
    est = GUESS_SHIFT
    for i in range(N_GUESS_FEATURES):
        est += GUESS_COEF[fl, i] * buf[i]
    g = int(np.floor(est))
    if g < 0:
        return 0
    if g > left:
        return left
    return g
