"""Tests for callbreak_lab.bidding.calls: the call decision on hand-made trick distributions."""

from __future__ import annotations

import json

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callbreak_lab.bidding.calls import (
    best_call,
    best_calls,
    check_earlier_calls,
    expected_scores,
    legal_calls,
    make_probabilities,
    point_mass,
    score_matrix,
)
from callbreak_lab.errors import CallError, ModelError, RulesError
from callbreak_lab.rules import PRESETS, Ruleset

MODERN = Ruleset.preset("modern")
STRICT = Ruleset.preset("strict")
HOME = Ruleset.preset("home")  # exact_or_one_bonus, min call 2
PAGAT = Ruleset.preset("pagat")
EXACT = Ruleset.preset("modern+exact_or_one")
FLAT = Ruleset.preset("pagat+flat")
ALL_RULES = [*PRESETS.values(), EXACT, FLAT, Ruleset.preset("home+min_call=1")]


def formula(kind: str, c: int, t: int) -> int:
    """The docs/rules.md scoring table, written out independently (tenths)."""
    if kind in ("tenths", "flat"):
        if t < c:
            return -10 * c
        return 10 * c + (t - c if kind == "tenths" else 0)
    if c <= t <= c + 1:
        return 130 if kind == "exact_or_one_bonus" and c >= 8 else 10 * c
    return -10 * c


def made(kind: str, c: int, t: int) -> bool:
    return t >= c if kind in ("tenths", "flat") else t in (c, c + 1)


def dist(**mass: float) -> np.ndarray:
    """dist(t3=.5, t6=.5) -> 14-vector."""
    out = np.zeros(14)
    for key, p in mass.items():
        out[int(key[1:])] = p
    return out


def expected_at(rules: Ruleset, d: np.ndarray, call: int) -> float:
    return float(expected_scores(d, rules)[call - rules.min_call])


# --- the score matrix -------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
def test_score_matrix_matches_rules_md(rules: Ruleset) -> None:
    mat = score_matrix(rules)
    calls = legal_calls(rules)
    assert mat.shape == (len(calls), 14)
    assert calls[0] == rules.min_call and calls[-1] == rules.max_call
    for i, c in enumerate(calls):
        for t in range(14):
            assert mat[i, t] == formula(rules.scoring, int(c), t)
    assert not mat.flags.writeable
    assert score_matrix(rules) is mat  # cached per ruleset


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
def test_make_probabilities_match_scoring_kind(rules: Ruleset) -> None:
    rng = np.random.default_rng(3)
    d = rng.dirichlet(np.ones(14))
    got = make_probabilities(d, rules)
    for i, c in enumerate(legal_calls(rules)):
        want = sum(d[t] for t in range(14) if made(rules.scoring, int(c), t))
        assert got[i] == pytest.approx(want)


# --- tenths -----------------------------------------------------------------------------------


def test_certain_five_under_tenths() -> None:
    advice = best_call(point_mass(5), MODERN)
    assert advice.call == 5
    assert advice.expected_score == 50.0
    assert advice.make_probability == 1.0


def test_half_three_half_six_under_tenths() -> None:
    # E[call c] = .5 s(c, 3) + .5 s(c, 6) in tenths:
    #   c=1: .5(10+2) + .5(10+5) = 13.5;  c=2: .5(20+1) + .5(20+4) = 22.5
    #   c=3: .5(30)   + .5(30+3) = 31.5;  c=4: .5(-40)  + .5(40+2) = 1
    #   c=5: -25 + 25.5 = 0.5;  c=6: -30 + 30 = 0;  c>=7: -10c
    d = dist(t3=0.5, t6=0.5)
    exp = expected_scores(d, MODERN)
    np.testing.assert_allclose(exp[:7], [13.5, 22.5, 31.5, 1.0, 0.5, 0.0, -70.0])
    np.testing.assert_allclose(make_probabilities(d, MODERN)[:8], [1, 1, 1, 0.5, 0.5, 0.5, 0, 0])
    advice = best_call(d, MODERN)
    assert advice.call == 3 and advice.expected_score == pytest.approx(31.5)
    data = advice.to_dict()
    assert data == json.loads(json.dumps(data)) and data["call"] == 3
    assert data["calls"][:3] == [1, 2, 3] and data["expected_tenths"][2] == pytest.approx(31.5)
    batch = best_calls(np.stack([d, point_mass(5)]), MODERN).to_dict()
    assert [row["call"] for row in batch["rows"]] == [3, 5] and batch["rows"][0] == data


def test_flat_ignores_overtricks() -> None:
    d = dist(t3=0.5, t6=0.5)
    assert best_call(d, FLAT).expected_score == pytest.approx(30.0)  # call 3, no 0.1s
    assert best_call(d, FLAT).call == 3
    assert best_call(point_mass(5), FLAT).call == 5


def test_tenths_prefers_safety_to_greed() -> None:
    # 80 % at 5, 20 % at 4: call 5 -> .8*50 - .2*50 = 30; call 4 -> .8*41 + .2*40 = 40.8
    advice = best_call(dist(t4=0.2, t5=0.8), PAGAT)
    assert advice.call == 4
    assert advice.expected_score == pytest.approx(40.8)


# --- exact_or_one ----------------------------------------------------------------------------


def test_exact_or_one_point_mass() -> None:
    # certain 5: call 4 (5 = 4 + 1) scores 40, call 5 scores 50, call 3 fails
    exp = expected_scores(point_mass(5), EXACT)
    assert exp[4 - 1] == 40 and exp[5 - 1] == 50 and exp[3 - 1] == -30
    assert best_call(point_mass(5), EXACT).call == 5


def test_exact_or_one_tie_goes_to_lower_call() -> None:
    # 50/50 at 3 and 6: calls 2, 3, 5, 6 each make exactly one outcome -> expected 0;
    # call 1 and 4 fail both -> -10, -40. Tie at 0 -> the lowest, 2.
    d = dist(t3=0.5, t6=0.5)
    exp = expected_scores(d, EXACT)
    np.testing.assert_allclose(exp[:7], [-10, 0, 0, -40, 0, 0, -70])
    assert best_call(d, EXACT).call == 2


# --- exact_or_one_bonus (home) ----------------------------------------------------------------


def test_bonus_call_eight_worth_thirteen() -> None:
    d = dist(t8=0.5, t9=0.5)
    # call 8: made on 8 and 9 -> 130; call 9: -90 / +130 -> 20; call 7: +70 / -70 -> 0
    assert expected_at(HOME, d, 8) == pytest.approx(130)
    assert expected_at(HOME, d, 9) == pytest.approx(20)
    assert expected_at(HOME, d, 7) == pytest.approx(0)
    advice = best_call(d, HOME)
    assert advice.call == 8 and advice.expected_score == pytest.approx(130)
    assert advice.make_probability == 1.0


def test_bonus_makes_best_call_non_monotone() -> None:
    # weak: 50/50 at 6 and 8. call 8: .5*130 - .5*80 = 25; call 7 (made only on 8): 0;
    #       call 6 (made only on 6): 0 -> best 8.
    # strong: 50/50 at 7 and 8 (first-order dominates weak). call 7: 70 on both;
    #       call 8: .5*(-80) + .5*130 = 25 -> best 7.
    weak, strong = dist(t6=0.5, t8=0.5), dist(t7=0.5, t8=0.5)
    assert np.all(np.cumsum(strong) <= np.cumsum(weak) + 1e-12)  # strong dominates weak
    assert best_call(weak, HOME).call == 8
    assert best_call(weak, HOME).expected_score == pytest.approx(25)
    assert best_call(strong, HOME).call == 7
    assert best_call(strong, HOME).expected_score == pytest.approx(70)
    # under tenths the best call never goes down as the hand gets stronger
    assert best_call(weak, MODERN).call <= best_call(strong, MODERN).call


@pytest.mark.parametrize(("tricks", "call"), [(1, 2), (5, 5), (7, 7), (8, 8), (9, 8), (13, 12)])
def test_bonus_point_masses(tricks: int, call: int) -> None:
    # certain 9: calls 8 and 9 both score 13 -> tie -> 8. certain 13: 12 and 13 -> 12.
    # certain 1 under home (min call 2): every call fails, the cheapest is 2.
    assert best_call(point_mass(tricks), HOME).call == call


# --- min call 2 presets ----------------------------------------------------------------------


@pytest.mark.parametrize("rules", [STRICT, HOME], ids=["strict", "home"])
def test_min_call_two_with_hopeless_hand(rules: Ruleset) -> None:
    d = dist(t0=0.5, t1=0.5)
    advice = best_call(d, rules)
    assert advice.call == 2
    assert advice.expected_score == -20
    assert advice.make_probability == 0.0
    assert advice.calls[0] == 2 and len(advice.expected) == 12


def test_min_call_one_with_hopeless_hand() -> None:
    d = dist(t0=0.5, t1=0.5)
    advice = best_call(d, MODERN)  # call 1: .5*(-10) + .5*10 = 0
    assert advice.call == 1 and advice.expected_score == 0
    assert best_call(point_mass(0), MODERN).expected_score == -10


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
@pytest.mark.parametrize("tricks", range(14))
def test_point_mass_every_preset(rules: Ruleset, tricks: int) -> None:
    advice = best_call(point_mass(tricks), rules)
    if tricks < rules.min_call:
        assert advice.call == rules.min_call
    elif rules.scoring == "exact_or_one_bonus" and tricks >= 9:
        assert advice.call == max(tricks - 1, rules.min_call)  # 13 either way, lower wins
    else:
        assert advice.call == tricks


# --- advice objects and batches ---------------------------------------------------------------


def test_advice_table_and_fields() -> None:
    d = dist(t3=0.5, t6=0.5)
    advice = best_call(d, MODERN)
    rows = advice.table()
    assert rows[0] == (1, 13.5, 1.0)
    assert len(rows) == 13
    np.testing.assert_array_equal(advice.dist, d)


def test_batch_matches_singles() -> None:
    rng = np.random.default_rng(11)
    ds = rng.dirichlet(np.full(14, 0.3), size=50)
    for rules in ALL_RULES:
        batch = best_calls(ds, rules)
        assert len(batch) == 50 and batch.call.shape == (50,)
        assert expected_scores(ds, rules).shape == (50, len(legal_calls(rules)))
        for i in range(50):
            single = best_call(ds[i], rules)
            assert batch[i].call == single.call
            np.testing.assert_allclose(batch.expected[i], single.expected)
        np.testing.assert_allclose(
            batch.expected_score, [best_call(d, rules).expected_score for d in ds]
        )


def test_empty_batch() -> None:
    assert len(best_calls(np.zeros((0, 14)), MODERN)) == 0


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=14, max_size=14).filter(lambda xs: sum(xs) > 1e-3),
    st.sampled_from(ALL_RULES),
)
def test_best_call_is_argmax_lowest_on_ties(weights: list[float], rules: Ruleset) -> None:
    d = np.array(weights) / sum(weights)
    advice = best_call(d, rules)
    naive = {
        c: sum(d[t] * formula(rules.scoring, c, t) for t in range(14))
        for c in range(rules.min_call, rules.max_call + 1)
    }
    top = max(naive.values())
    assert naive[advice.call] == pytest.approx(top, abs=1e-7)
    assert all(naive[c] < top - 1e-8 for c in naive if c < advice.call)


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.full(13, 1 / 13), "shape"),
        (np.full((2, 3, 14), 1 / 14), "shape"),
        (dist(t3=1.2, t4=-0.2), "negative"),
        (dist(t3=0.5, t4=0.4), "sum to 1"),
        (np.full(14, np.nan), "NaN"),
        (["a"] * 14, "numeric"),
    ],
)
def test_invalid_distributions(bad: npt.ArrayLike, message: str) -> None:
    for fn in (expected_scores, make_probabilities, best_call):
        with pytest.raises(ModelError, match=message) as info:
            fn(bad, MODERN)
        assert isinstance(info.value, ValueError)


def test_batch_and_single_shape_guards() -> None:
    with pytest.raises(ModelError, match="best_calls"):
        best_call(np.full((2, 14), 1 / 14), MODERN)
    with pytest.raises(ModelError, match=r"\(n, 14\)"):
        best_calls(point_mass(3), MODERN)
    with pytest.raises(ModelError):
        point_mass(14)


def test_tolerance_on_sum() -> None:
    d = point_mass(4)
    d[4] += 5e-7
    assert best_call(d, MODERN).call == 4


def test_bad_call_range_rejected() -> None:
    class Fake:
        min_call = 0
        max_call = 13

        def score(self, call: int, tricks: int) -> int:
            return 0

    with pytest.raises(RulesError, match=r"within 1\.\.13"):
        score_matrix(Fake())


def test_earlier_calls_checked_against_the_seat_and_call_range() -> None:
    assert check_earlier_calls([3, 4], 2, MODERN) == (3, 4)
    assert check_earlier_calls((), 0, STRICT) == ()
    with pytest.raises(CallError, match="takes 1 earlier call"):
        check_earlier_calls([3, 4], 1, MODERN)
    with pytest.raises(CallError, match=r"whole number 2\.\.13, got 1"):
        check_earlier_calls([1], 1, STRICT)
    with pytest.raises(CallError, match="sequence of numbers"):
        check_earlier_calls("34", 2, MODERN)  # type: ignore[arg-type]
