"""Tests for callbreak_lab.bidding.baselines: worked examples per rule, clamping, vectorisation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callbreak_lab.bidding.baselines import (
    BASELINES,
    baseline_call,
    baseline_calls,
    baseline_counts,
    clamp_calls,
)
from callbreak_lab.cards import Hand
from callbreak_lab.errors import ModelError
from callbreak_lab.rules import PRESETS, Ruleset

MODERN = Ruleset.preset("modern")
STRICT = Ruleset.preset("strict")
HOME = Ruleset.preset("home")

# Hands (dotted: spades.hearts.diamonds.clubs) with the raw count of each rule worked out:
#
# TOP_SPADES  AKQ2.T98.765.432
#   aces_kings:  A♠ K♠                                            = 2
#   support:     A♠ 1, K♠ (with ace) 1, spades beyond 3: 1, no short side suit = 3
#   fractional:  A♠ 1 + K♠ .75 + Q♠ .5 + beyond-3 1               = 3.25 -> 3
# RUFFER      98765.AK.AKQ432.-
#   aces_kings:  A♥ K♥ A♦ K♦                                      = 4
#   support:     aces 2, K♥ and K♦ (with ace) 2, spades beyond 3: 2,
#                spare spades 5 - 0 - 2 = 3, short side suits: clubs void 1 -> +1 = 7
#   fractional:  A♥ 1 + K♥ .5 + A♦ 1 + K♦ .5 + beyond-3 2          = 5
# ALL_SPADES  AKQJT98765432...
#   aces_kings:  2
#   support:     A♠ 1, K♠ 1, beyond 3: 10, spare 13 - 2 - 10 = 1, three voids -> +1 = 13
#   fractional:  1 + .75 + .5 + .25 + 10 = 12.5 -> rounds half up to 13
# WEAK        5432.5432.5432.6
#   aces_kings:  0 -> clamped to the minimum call
#   support:     beyond 3: 1, spare 4 - 0 - 1 = 3, clubs singleton +1 = 2
#   fractional:  beyond 3: 1                                      = 1
# KINGS       2.K.K5432.KQJ876
#   aces_kings:  K♥ K♦ K♣                                         = 3
#   support:     singleton K♥ unsupported; K♦ (4 others) 1, K♣ (5 others) 1;
#                spare spades 1, singleton heart +1                = 3
#   fractional:  3 side kings x .5 = 1.5 -> rounds half up to 2
HANDS = {
    "TOP_SPADES": "AKQ2.T98.765.432",
    "RUFFER": "98765.AK.AKQ432.-",
    "ALL_SPADES": "AKQJT98765432...",
    "WEAK": "5432.5432.5432.6",
    "KINGS": "2.K.K5432.KQJ876",
}
RAW: dict[str, dict[str, float]] = {
    "count_aces_kings": {"TOP_SPADES": 2, "RUFFER": 4, "ALL_SPADES": 2, "WEAK": 0, "KINGS": 3},
    "count_with_support": {
        "TOP_SPADES": 3,
        "RUFFER": 7,
        "ALL_SPADES": 13,
        "WEAK": 2,
        "KINGS": 3,
    },
    "fractional_honours": {
        "TOP_SPADES": 3.25,
        "RUFFER": 5.0,
        "ALL_SPADES": 12.5,
        "WEAK": 1.0,
        "KINGS": 1.5,
    },
}
MODERN_CALLS: dict[str, dict[str, int]] = {
    "count_aces_kings": {"TOP_SPADES": 2, "RUFFER": 4, "ALL_SPADES": 2, "WEAK": 1, "KINGS": 3},
    "count_with_support": {k: int(v) for k, v in RAW["count_with_support"].items()},
    "fractional_honours": {
        "TOP_SPADES": 3,
        "RUFFER": 5,
        "ALL_SPADES": 13,
        "WEAK": 1,
        "KINGS": 2,
    },
}


def test_registry_names() -> None:
    assert set(BASELINES) == {"count_aces_kings", "count_with_support", "fractional_honours"}


@pytest.mark.parametrize("name", sorted(BASELINES))
@pytest.mark.parametrize("hand", sorted(HANDS))
def test_raw_counts(name: str, hand: str) -> None:
    count = baseline_counts(name, [Hand.parse(HANDS[hand]).mask])
    assert count[0] == pytest.approx(RAW[name][hand])


@pytest.mark.parametrize("name", sorted(BASELINES))
@pytest.mark.parametrize("hand", sorted(HANDS))
def test_calls_modern(name: str, hand: str) -> None:
    assert baseline_call(name, Hand.parse(HANDS[hand]), MODERN) == MODERN_CALLS[name][hand]


@pytest.mark.parametrize("rules", [STRICT, HOME], ids=["strict", "home"])
def test_min_call_two_presets_clamp_weak_hands(rules: Ruleset) -> None:
    assert rules.min_call == 2
    weak = Hand.parse(HANDS["WEAK"])
    assert baseline_call("count_aces_kings", weak, rules) == 2  # raw 0
    assert baseline_call("fractional_honours", weak, rules) == 2  # raw 1
    assert baseline_call("count_with_support", weak, rules) == 2  # raw 2 already


def test_clamp_to_max_call() -> None:
    capped = MODERN.replace(max_call=10)
    assert baseline_call("count_with_support", Hand.parse(HANDS["ALL_SPADES"]), capped) == 10


def test_clamp_calls_rounds_half_up() -> None:
    got = clamp_calls([0.49, 0.5, 1.5, 2.5, 3.25, 14.0], MODERN)
    np.testing.assert_array_equal(got, [1, 1, 2, 3, 3, 13])
    assert got.dtype == np.int64


def test_unknown_baseline() -> None:
    with pytest.raises(ModelError, match="unknown baseline 'nope'") as info:
        baseline_calls("nope", [Hand.parse(HANDS["WEAK"]).mask], None, MODERN)
    assert isinstance(info.value, ValueError)


def test_bad_hand_rejected() -> None:
    with pytest.raises(ModelError, match="12 cards"):
        baseline_calls("count_aces_kings", [Hand.parse("5432.5432.5432.-").mask], None, MODERN)


def full_hands() -> st.SearchStrategy[int]:
    return st.sets(st.integers(0, 51), min_size=13, max_size=13).map(
        lambda cards: sum(1 << c for c in cards)
    )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(full_hands(), min_size=1, max_size=12),
    st.sampled_from(sorted(BASELINES)),
    st.sampled_from(sorted(PRESETS)),
)
def test_batch_matches_single_and_stays_in_range(masks: list[int], name: str, preset: str) -> None:
    rules = PRESETS[preset]
    arr = np.array(masks, dtype=np.uint64)
    calls = baseline_calls(name, arr, np.zeros(len(masks), dtype=np.int64), rules)
    assert calls.shape == (len(masks),) and calls.dtype == np.int64
    assert np.all((calls >= rules.min_call) & (calls <= rules.max_call))
    for m, c in zip(masks, calls, strict=True):
        assert baseline_call(name, m, rules) == c


@settings(max_examples=60, deadline=None)
@given(full_hands())
def test_aces_kings_count_is_an_upper_bound_on_honours(m: int) -> None:
    """Supported kings are a subset of kings; fractional honours never exceed A+K plus extras."""
    h = Hand(m)
    ak = baseline_counts("count_aces_kings", [m])[0]
    assert ak == sum(1 for c in h if c.rank >= 11)
    frac = baseline_counts("fractional_honours", [m])[0]
    extra = max(h.suit_count(3) - 3, 0)
    assert frac <= ak + 0.75 + extra + 1e-9  # Q♠ .5 + J♠ .25 beyond the A/K count
