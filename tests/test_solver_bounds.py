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
from reference.endings import Ending, random_ending

from callbreak_lab.solver._bounds import (
    _lower,
    _lower_cap,
    _side_winners_off_lead,
    quick_bounds,
)
from callbreak_lab.solver._consts import ABOVE, HI, POP
from callbreak_lab.solver._engine import split_masks

pytestmark = pytest.mark.slow  # brute-force bound checks: minutes in all

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


def _enemy_spades(hands: np.ndarray, target: int) -> int:
    return int((hands[0, 3] | hands[1, 3] | hands[2, 3] | hands[3, 3]) ^ hands[target, 3])


def _move_spades(
    rng: random.Random, hl: list[list[int]], into: int, target: int, above: int = -1
) -> None:
    """Move the spades above card ``above`` of the seats other than ``target`` and ``into``
    into seat ``into``'s hand, each swapped for a random side card of it, while it has one."""
    for q in range(4):
        if q in (target, into):
            continue
        for c in [c for c in hl[q] if c // 13 == 3 and c > above]:
            others = [d for d in hl[into] if d // 13 != 3]
            if not others:
                break
            d = rng.choice(others)
            hl[q].remove(c)
            hl[into].remove(d)
            hl[q].append(d)
            hl[into].append(c)


def _one_enemy_with_spades(rng: random.Random) -> tuple[Ending, int]:
    """A random ending (3..5 tricks, spades and one or two side suits, nobody on lead but the
    target's enemies) where one enemy holds every enemy spade when it has room: the case where
    the off-lead bound still counts side winners under ``win_only``."""
    n = rng.choice([3, 4, 4, 5])
    suits = [3, *rng.sample(range(3), rng.choice([1, 2, 2]))]
    pool = [s * 13 + r for s in suits for r in range(13)]
    dealt = rng.sample(pool, 4 * n)
    hl = [sorted(dealt[i * n : (i + 1) * n]) for i in range(4)]
    target, leader = rng.sample(range(4), 2)
    q0 = rng.choice([q for q in range(4) if q != target])
    _move_spades(rng, hl, q0, target)
    return Ending(tuple(frozenset(h) for h in hl), (), leader), target


@pytest.mark.parametrize("must_beat", [True, False])
def test_side_winners_off_lead_win_only(must_beat: bool) -> None:
    """The off-lead bound under ``win_only`` with an enemy holding spades (it may shed up to
    ``1 + c_q`` side cards): never above the exact value, exactly equal to it in several
    endings (so one trick more would fail), while the strict rule's count (no shedding) is
    above the exact value in some (so the allowance is needed)."""
    rng = random.Random(f"off-lead-win-only-{must_beat}")
    found = tight = strict_wrong = 0
    for _ in range(60000):
        e, target = _one_enemy_with_spades(rng)
        hands = split_masks(_masks(e.hands))
        tsp = int(hands[target, 3])
        osp = _enemy_spades(hands, target)
        masters = POP[tsp & ABOVE[HI[osp] + 1]]
        if masters == 0 or osp == 0:
            continue
        sure, _marks = _side_winners_off_lead(hands, target, tsp, osp, 1)
        strict, _ = _side_winners_off_lead(hands, target, tsp, osp, 0)
        if sure <= masters and (strict <= masters or strict_wrong >= 2):
            continue
        if e.tree_size(must_beat, "win_only", False, 6000) is None:
            continue
        value = e.dd_value(target, must_beat, "win_only", False)
        assert sure <= value, (e, target, sure, value)
        if sure > masters:
            found += 1
            tight += sure == value
        strict_wrong += strict > value
        if found >= 15 and tight >= 5 and strict_wrong >= 2:
            break
    assert found >= 15 and tight >= 5
    assert strict_wrong >= 2  # shedding under a higher spade is real: the strict count fails


@pytest.mark.parametrize(("must_beat", "void_rule"), SWITCHES)
def test_cash_on_lead_and_coalition_bounds_are_tight(must_beat: bool, void_rule: str) -> None:
    """The on-lead cash (side suits round by round, spades after the draw) and the upper bound
    from an enemy's own sure tricks: never wrong, and tight in several endings where they beat
    the plain top-card counts."""
    rng = random.Random(f"cash-{must_beat}-{void_rule}")
    vr = 0 if void_rule == "strict" else 1
    lo_tight = hi_tight = 0
    for _ in range(3000):
        e = random_ending(rng, must_beat, void_rule, False, sizes={3: 1, 4: 2, 5: 1},
                          mid_trick_rate=0.0)  # fmt: skip
        hands = split_masks(_masks(e.hands))
        left = len(e.hands[e.leader])
        for target in range(4):
            lb, ub, _lm, _um = quick_bounds(hands, e.leader, target, left, vr)
            enemy_lb = max(_lower(hands, e.leader, q, vr)[0] for q in range(4) if q != target)
            uses_cash = target == e.leader and lb > 0
            uses_enemy = ub == left - enemy_lb and enemy_lb > 0
            if not (uses_cash or uses_enemy):
                continue
            value = e.dd_value(target, must_beat, void_rule, False)
            assert lb <= value <= ub, (e, target, lb, value, ub)
            lo_tight += uses_cash and lb == value
            hi_tight += uses_enemy and ub == value
        if lo_tight >= 20 and hi_tight >= 20:
            break
    assert lo_tight >= 20 and hi_tight >= 20


@pytest.mark.parametrize("preset", ["online", "home"])
def test_bounds_hold_win_only_presets(preset: str) -> None:
    """More endings (4..5 tricks, spades in play) for the ``win_only`` presets, where the
    off-lead bound allows for shedding."""
    must_beat = preset == "online"
    rng = random.Random(f"win-only-{preset}")
    for _ in range(150):
        e = random_ending(rng, must_beat, "win_only", False, sizes={4: 2, 5: 1},
                          mid_trick_rate=0.0)  # fmt: skip
        hands = split_masks(_masks(e.hands))
        left = len(e.hands[e.leader])
        for target in range(4):
            lb, ub, _lm, _um = quick_bounds(hands, e.leader, target, left, 1)
            value = e.dd_value(target, must_beat, "win_only", False)
            assert lb <= value <= ub, (e, target, lb, value, ub)


def test_lower_cap_and_early_stops_match_the_full_bounds() -> None:
    """``_lower_cap`` never falls below ``_lower`` (whoever leads, either void rule), and
    ``quick_bounds`` with a ``need`` (stopping once decided, skipping counts that cannot
    decide) settles exactly the questions the full computation settles, with bounds no
    stronger than its."""
    rng = random.Random("lower-cap")
    deck = list(range(52))
    decided = 0
    for _ in range(3000):
        n = rng.randint(1, 13)
        cards = rng.sample(deck, 4 * n)
        hands = split_masks([sum(1 << c for c in cards[i * n : (i + 1) * n]) for i in range(4)])
        for vr in (0, 1):
            for leader in range(4):
                for q in range(4):
                    assert _lower_cap(hands, q) >= _lower(hands, leader, q, vr)[0]
                target = rng.randrange(4)
                lb, ub, _lm, _um = quick_bounds(hands, leader, target, n, vr)
                for need in range(1, n + 1):
                    slb, sub, _sl, _su = quick_bounds(hands, leader, target, n, vr, need, need)
                    assert slb <= lb and sub >= ub
                    assert (slb >= need) == (lb >= need)
                    assert (sub < need) == (ub < need)
                    decided += lb >= need or ub < need
    assert decided > 1000


def _higher_spades_with_rho(rng: random.Random) -> tuple[Ending, int]:
    """A random ending (3 or 4 tricks, spades and one or two side suits, the target not on lead)
    where every enemy spade above the target's top spade sits with the target's right-hand
    enemy when it has room: the case of the "top spade behind" lower bound."""
    while True:
        n = rng.choice([3, 3, 4])
        suits = [3, *rng.sample(range(3), rng.choice([1, 2, 2]))]
        pool = [s * 13 + r for s in suits for r in range(13)]
        dealt = rng.sample(pool, 4 * n)
        hl = [sorted(dealt[i * n : (i + 1) * n]) for i in range(4)]
        target, leader = rng.sample(range(4), 2)
        rho = (target + 3) % 4
        tsp = [c for c in hl[target] if c // 13 == 3]
        if not tsp:
            continue
        _move_spades(rng, hl, rho, target, above=max(tsp))
        return Ending(tuple(frozenset(h) for h in hl), (), leader), target


@pytest.mark.parametrize(("must_beat", "void_rule"), SWITCHES)
def test_top_spade_behind_the_higher_spades_is_a_sure_trick(
    must_beat: bool, void_rule: str
) -> None:
    """Off lead, with every higher enemy spade in the right-hand enemy's hand and at least as
    many other spades as that enemy has above it, the target's top spade is a trick (the
    bound the search uses); with fewer guards it may not be."""
    rng = random.Random(f"behind-{must_beat}-{void_rule}")
    vr = 0 if void_rule == "strict" else 1
    fired = shut_out_without_guards = 0
    for _ in range(3000):
        e, target = _higher_spades_with_rho(rng)
        hands = split_masks(_masks(e.hands))
        tsp = int(hands[target, 3])
        above = _enemy_spades(hands, target) & int(ABOVE[HI[tsp] + 1])
        if above == 0 or above & ~int(hands[(target + 3) % 4, 3]):
            continue
        value = e.dd_value(target, must_beat, void_rule, False)
        lb, _mark = _lower(hands, e.leader, target, vr)
        assert lb <= value, (e, target, value, lb)
        if POP[tsp] - 1 >= POP[above]:
            assert value >= 1 and lb >= 1, (e, target, value, lb)
            fired += 1
        elif value == 0:
            shut_out_without_guards += 1
        if fired >= 40 and shut_out_without_guards >= 5:
            break
    assert fired >= 40
    assert shut_out_without_guards >= 5  # the guard count is needed, not decoration
