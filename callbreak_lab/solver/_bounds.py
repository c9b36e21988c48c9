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
def quick_bounds(hands, leader, target, left):  # type: ignore[no-untyped-def]
    """(lower, upper) bounds on the target's tricks out of the ``left`` remaining ones."""
    tsp = hands[target, 3]
    osp = 0
    for q in range(4):
        if q != target:
            osp |= hands[q, 3]
    # target spades above every enemy spade: each wins the trick it is played to
    lb = POP[tsp & ABOVE[HI[osp] + 1]]
    if leader == target:
        # cash side-suit winners while every enemy holding spades still follows suit
        for s in range(3):
            ts = hands[target, s]
            if ts == 0:
                continue
            os = 0
            for q in range(4):
                if q != target:
                    os |= hands[q, s]
            r = POP[ts & ABOVE[HI[os] + 1]]
            for q in range(4):
                if q != target and hands[q, 3] != 0 and POP[hands[q, s]] < r:
                    r = POP[hands[q, s]]
            lb += r
    # each enemy's spades above every target spade win distinct tricks for the coalition
    top_t = HI[tsp]
    cs = 0
    ml = 0
    for q in range(4):
        if q != target:
            m = POP[hands[q, 3] & ABOVE[top_t + 1]]
            if m > cs:
                cs = m
            if q == leader:
                ml = m
    if leader != target:
        # the enemy leader may lead a card the target can neither beat nor ruff
        for s in range(3):
            ls = hands[leader, s]
            if ls == 0:
                continue
            ts = hands[target, s]
            if (ts != 0 and HI[ls] > HI[ts]) or (ts == 0 and tsp == 0):
                if ml + 1 > cs:
                    cs = ml + 1
                break
    return lb, left - cs
