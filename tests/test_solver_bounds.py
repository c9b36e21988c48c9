"""The sure-trick bounds alone, against the brute-force reference on random endings.

The search cuts a subtree as soon as a bound settles its question, so a bound that is wrong by one
trick in a rare position gives a wrong value only where the search happens to rely on it. Checking
the bounds directly against exact values (``lower <= value <= upper``) finds such an error far more
often than comparing the final values does.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from reference.endings import random_ending

from callbreak_lab.solver._bounds import _side_winners_off_lead, quick_bounds
from callbreak_lab.solver._consts import ABOVE, HI, POP
from callbreak_lab.solver._engine import split_masks

SWITCHES = [(mb, vr) for mb in (True, False) for vr in ("strict", "win_only")]


def _masks(hands: tuple[frozenset[int], ...]) -> list[int]:
    return [sum(1 << c for c in h) for h in hands]


@pytest.mark.parametrize(("must_beat", "void_rule"), SWITCHES)
def test_bounds_hold_at_trick_boundaries(must_beat: bool, void_rule: str) -> None:
    rng = random.Random(f"bounds-{must_beat}-{void_rule}")
    vr = 0 if void_rule == "strict" else 1
    checked = off_lead_cuts = 0
    for _ in range(100):
        e = random_ending(
            rng, must_beat, void_rule, False, sizes={3: 2, 4: 4, 5: 3}, mid_trick_rate=0.0
        )
        hands = split_masks(_masks(e.hands))
        left = len(e.hands[e.leader])
        for target in range(4):
            lb, ub, _lm, _um = quick_bounds(hands, e.leader, target, left, vr)
            value = e.dd_value(target, must_beat, void_rule, False)
            assert lb <= value <= ub, (e, target, lb, value, ub)
            checked += 1
            if target != e.leader and lb > 0:
                off_lead_cuts += 1
        assert np.array_equal(hands, split_masks(_masks(e.hands)))  # inputs untouched
    assert checked == 400
    assert off_lead_cuts > 15  # the off-lead lower bound was exercised, not only the easy cases


@pytest.mark.parametrize("must_beat", [True, False])
def test_side_winners_off_lead_are_sure(must_beat: bool) -> None:
    """Endings where the target is not on lead, holds a master spade and the bound counts side
    winners on top of its masters (the case the off-lead bound exists for), strict void rule."""
    rng = random.Random(f"off-lead-{must_beat}")
    found = 0
    for _ in range(4000):
        e = random_ending(rng, must_beat, "strict", False, sizes={3: 1, 4: 2}, mid_trick_rate=0.0)
        hands = split_masks(_masks(e.hands))
        for target in range(4):
            if target == e.leader:
                continue
            tsp = hands[target, 3]
            osp = hands[0, 3] | hands[1, 3] | hands[2, 3] | hands[3, 3]
            osp ^= tsp
            masters = POP[tsp & ABOVE[HI[osp] + 1]]
            if masters == 0:
                continue
            sure, _marks = _side_winners_off_lead(hands, target, tsp, osp, 0)
            if sure > masters:
                assert sure <= e.dd_value(target, must_beat, "strict", False), (e, target, sure)
                found += 1
        if found >= 25:
            break
    assert found >= 25
