"""seat.dealing and analysis.montecarlo: uniform constrained dealing, single-dummy Monte Carlo."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from callbreak_lab.analysis.montecarlo import MonteCarloResult, monte_carlo
from callbreak_lab.bidding.calls import best_call, expected_scores, legal_calls, point_mass
from callbreak_lab.cards import FULL_MASK, SUIT_MASKS, Deal, Hand
from callbreak_lab.errors import (
    CallbreakLabError,
    DealError,
    HandError,
    NotationError,
    RulesError,
    SeatError,
    SolverInputError,
)
from callbreak_lab.rules import PRESETS
from callbreak_lab.seat.dealing import deal_around, deals_from_masks

HAND = Deal.random(7)[1]


def popcounts(masks: np.ndarray) -> np.ndarray:
    return np.vectorize(lambda m: int(m).bit_count())(masks)


# --- deal_around: structure ---------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_known_hand_intact_and_every_card_once(seat: int) -> None:
    masks = deal_around(HAND, seat, 500, seed=seat)
    assert masks.shape == (500, 4) and masks.dtype == np.uint64
    assert np.all(masks[:, seat] == np.uint64(HAND.mask))
    assert np.all(popcounts(masks) == 13)
    union = masks[:, 0] | masks[:, 1] | masks[:, 2] | masks[:, 3]
    assert np.all(union == np.uint64(FULL_MASK))
    for a, b in itertools.combinations(range(4), 2):
        assert np.all(masks[:, a] & masks[:, b] == 0)
    deals = deals_from_masks(masks[:20])  # validated Deal objects
    assert all(d[seat] == HAND for d in deals)


def test_seeded_determinism() -> None:
    a = deal_around(HAND, 2, 300, seed=11)
    b = deal_around(HAND, 2, 300, seed=11)
    c = deal_around(HAND, 2, 300, seed=12)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    assert np.array_equal(deal_around(HAND, 0, 10, g1), deal_around(HAND, 0, 10, g2))
    assert deal_around(HAND, 0, 0, seed=1).shape == (0, 4)


def test_known_cards_stay_put() -> None:
    rest = Hand.full() - HAND
    extra = Hand.from_cards(list(rest)[:5])
    masks = deal_around(HAND, 0, 200, seed=3, known={2: extra})
    assert np.all(masks[:, 2] & np.uint64(extra.mask) == np.uint64(extra.mask))
    assert np.all(popcounts(masks) == 13)


# --- deal_around: uniformity ----------------------------------------------------------------------


def test_each_unseen_card_equally_likely_with_each_other_seat() -> None:
    n = 30_000
    masks = deal_around(HAND, 0, n, seed=2024)
    unseen = [c for c in range(52) if not HAND.mask >> c & 1]
    sigma = np.sqrt(1 / 3 * 2 / 3 / n)
    for c in unseen:
        bit = np.uint64(1 << c)
        freq = [float(np.mean(masks[:, s] & bit != 0)) for s in (1, 2, 3)]
        assert sum(freq) == pytest.approx(1.0)
        for f in freq:
            assert abs(f - 1 / 3) < 5 * sigma, (c, freq)


def test_unequal_needs_give_proportional_chances() -> None:
    # Seat 1 already has 5 known cards, so it takes 8 of the 34 unseen cards, the others 13 each.
    rest = Hand.full() - HAND
    extra = Hand.from_cards(list(rest)[:5])
    n = 20_000
    masks = deal_around(HAND, 0, n, seed=99, known={1: extra})
    card = next(iter(rest - extra))
    bit = np.uint64(1 << card)
    freq = np.array([np.mean(masks[:, s] & bit != 0) for s in (1, 2, 3)])
    expected = np.array([8, 13, 13]) / 34
    assert np.all(np.abs(freq - expected) < 5 * np.sqrt(expected * (1 - expected) / n))


def test_voids_match_brute_force_enumeration() -> None:
    """Exact uniformity with a void, on a case small enough to list every layout."""
    own = Hand.parse("AKQJT98765432...")
    known = {
        1: Hand.parse(".AKQJT9.AKQ.A"),  # 10 known, needs 3
        2: Hand.parse(".876.JT98765.K"),  # 11 known, needs 2
        3: Hand.parse("..432.QJT9876"),  # 10 known, needs 3
    }
    known_all = own.mask | known[1].mask | known[2].mask | known[3].mask
    unseen = [c for c in range(52) if not known_all >> c & 1]
    need = {s: 13 - len(h) for s, h in known.items()}
    assert len(unseen) == sum(need.values()) == 8
    voids = {1: ["H"]}  # seat 1 takes 3 of the 4 clubs; two different count matrices remain
    # Brute force: every assignment of the unseen cards meeting the needs and the voids.
    layouts = []
    for owners in itertools.product((1, 2, 3), repeat=len(unseen)):
        if any(owners.count(s) != need[s] for s in (1, 2, 3)):
            continue
        if any(c // 13 == 2 and s == 1 for c, s in zip(unseen, owners, strict=True)):
            continue
        layouts.append(owners)
    assert len(layouts) == 4 * (4 + 6)  # seat 2 gets a club and a heart, or two hearts
    n = 20_000
    masks = deal_around(own, 0, n, seed=5, known=known, voids=voids)
    assert np.all(
        masks[:, 1] & np.uint64(SUIT_MASKS[2]) == np.uint64(known[1].mask & SUIT_MASKS[2])
    )
    seen = Counter(
        tuple(next(s for s in (1, 2, 3) if int(row[s]) >> c & 1) for c in unseen) for row in masks
    )
    assert set(seen) <= set(layouts)
    observed = np.array([seen[lay] for lay in layouts])
    chi2 = stats.chisquare(observed)  # H0: every consistent layout equally likely
    assert chi2.pvalue > 1e-3, chi2


def test_without_voids_every_layout_is_equally_likely() -> None:
    """The plain dealing path (no voids) against every layout of a small case."""
    own = Hand.parse("AKQJT98765432...")
    known = {1: Hand.parse(".AKQJT9.AKQ.A"), 2: Hand.parse(".876.JT98765.K"),
             3: Hand.parse("..432.QJT9876")}  # fmt: skip
    known_all = own.mask | known[1].mask | known[2].mask | known[3].mask
    unseen = [c for c in range(52) if not known_all >> c & 1]
    need = {s: 13 - len(h) for s, h in known.items()}
    layouts = [
        owners
        for owners in itertools.product((1, 2, 3), repeat=len(unseen))
        if all(owners.count(s) == need[s] for s in (1, 2, 3))
    ]
    assert len(layouts) == 560  # 8! / (3! 2! 3!)
    masks = deal_around(own, 0, 56_000, seed=9, known=known)
    seen = Counter(
        tuple(next(s for s in (1, 2, 3) if int(row[s]) >> c & 1) for c in unseen) for row in masks
    )
    assert set(seen) <= set(layouts)
    chi2 = stats.chisquare(np.array([seen[lay] for lay in layouts]))
    assert chi2.pvalue > 1e-3, chi2


def test_void_seat_never_gets_the_suit() -> None:
    masks = deal_around(HAND, 0, 2000, seed=8, voids={2: "S", 3: ["H", "D"]})
    spades_hand = np.uint64(HAND.mask & SUIT_MASKS[3])
    assert np.all(masks[:, 2] & np.uint64(SUIT_MASKS[3]) == 0)
    assert np.all(masks[:, 3] & np.uint64(SUIT_MASKS[2] | SUIT_MASKS[1]) == 0)
    assert np.all(popcounts(masks) == 13)
    assert spades_hand == np.uint64(HAND.mask & SUIT_MASKS[3])


# --- deal_around: validation ----------------------------------------------------------------------


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(HandError, match="13 cards"):
        deal_around(Hand.parse("AKQ..."), 0, 5)
    with pytest.raises(SeatError, match=r"seat must be 0\.\.3"):
        deal_around(HAND, 4, 5)
    with pytest.raises(SeatError, match=r"a seat in known must be 0\.\.3, got 5"):
        deal_around(HAND, 0, 5, known={5: "AS"})
    with pytest.raises(ValueError, match="whole number >= 0"):
        deal_around(HAND, 0, -1)
    with pytest.raises(HandError, match="hand: "):
        deal_around("not a hand", 0, 5)
    with pytest.raises(HandError, match="known cards of seat 1: "):
        deal_around(HAND, 0, 5, known={1: "ZZ"})
    own_card = next(iter(HAND))
    with pytest.raises(SolverInputError, match="also at the known hand"):
        deal_around(HAND, 0, 5, known={1: Hand.from_cards([own_card])})
    with pytest.raises(NotationError, match="void suit"):
        deal_around(HAND, 0, 5, voids={1: ["X"]})
    with pytest.raises(SolverInputError, match="at most 1,000,000 layouts, got 1,000,000,000"):
        deal_around(HAND, 0, 10**9)  # was a MemoryError allocating 30 GB (or swapping)
    with pytest.raises(SolverInputError, match="at most 1,000,000 layouts"):
        monte_carlo(HAND, 0, "modern", layouts=10**9)
    for seed in (-1, "a"):
        with pytest.raises(DealError, match="seed must be a whole number >= 0"):
            deal_around(HAND, 0, 5, seed=seed)  # type: ignore[arg-type]
    assert issubclass(SolverInputError, CallbreakLabError)


def test_impossible_voids_raise() -> None:
    spades = Hand.parse("AKQJT98765432...")
    # Seats 1..3 all void in hearts: 13 hearts have nowhere to go.
    with pytest.raises(SolverInputError, match="void in hearts"):
        deal_around(spades, 0, 5, voids={1: "H", 2: "H", 3: "H"})
    # Void in hearts and diamonds: seat 1 gets exactly the 13 clubs; void in clubs too: impossible.
    deal_around(spades, 0, 5, voids={1: ["H", "D"]})
    with pytest.raises(SolverInputError, match="needs 13 more cards"):
        deal_around(spades, 0, 5, voids={1: ["H", "D", "C"]})
    # Counts that fit seat by seat but not jointly: seats 1 and 2 both only hold clubs.
    with pytest.raises(SolverInputError, match="no layout"):
        deal_around(Hand.parse("AKQJT98765432..."), 0, 5, voids={1: ["H", "D"], 2: ["H", "D"]})


# --- monte_carlo ----------------------------------------------------------------------------------


def test_monte_carlo_all_spades_is_thirteen_for_certain() -> None:
    rules = PRESETS["modern"]
    res = monte_carlo("AKQJT98765432...", 2, rules, layouts=4, seed=1)
    assert res.n == 4 and res.seat == 2
    assert np.all(res.playout == 13) and np.all(res.dd == 13)
    assert np.array_equal(res.playout_dist, point_mass(13))
    assert np.array_equal(res.dd_dist, point_mass(13))
    assert np.allclose(res.expected, expected_scores(point_mass(13), rules))
    assert np.all(res.expected_se == 0)
    assert res.best_call == 13 and res.advice.call == 13


# Full-deal solves take seconds each; this strong two-suiter keeps them short while its tricks
# still vary between layouts (and the guarantee sometimes falls below the play-out).
MC_HAND = Hand.parse("AKQJ.AKQJT98.2.2")
MC_N = 4


@pytest.fixture(scope="module")
def mc() -> MonteCarloResult:
    return monte_carlo(MC_HAND, 1, "modern", layouts=MC_N, seed=1)


def test_monte_carlo_summary_is_consistent(mc: MonteCarloResult) -> None:
    rules = PRESETS["modern"]
    assert mc.n == MC_N and mc.hand == MC_HAND and mc.rules == rules
    assert np.all(mc.masks[:, 1] == np.uint64(MC_HAND.mask))
    assert len(set(mc.playout.tolist())) > 1  # not a point mass: the summaries are exercised
    for dist, raw in ((mc.playout_dist, mc.playout), (mc.dd_dist, mc.dd)):
        assert dist.shape == (14,) and dist.sum() == pytest.approx(1.0)
        assert np.allclose(dist, np.bincount(raw, minlength=14) / MC_N)
    assert np.all(mc.dd <= mc.playout)  # the play-out never takes a seat below its guarantee
    assert np.all((mc.playout >= 0) & (mc.playout <= 13))
    assert np.array_equal(mc.calls, legal_calls(rules))
    assert np.allclose(mc.expected, expected_scores(mc.playout_dist, rules))
    assert mc.best_call == best_call(mc.playout_dist, rules).call
    per_layout = np.array([[rules.score(int(c), int(t)) for t in mc.playout] for c in mc.calls])
    assert np.allclose(mc.expected, per_layout.mean(axis=1))
    assert np.allclose(mc.expected_se, per_layout.std(axis=1, ddof=1) / np.sqrt(MC_N))
    mean, se = mc.mean_playout
    assert mean == pytest.approx(mc.playout.mean()) and se >= 0
    assert len(mc.table()) == len(mc.calls)


def test_monte_carlo_matches_the_solver_per_layout(mc: MonteCarloResult) -> None:
    from callbreak_lab import solver

    rules = PRESETS["modern"]
    for i in (0, MC_N - 1):
        deal = deals_from_masks(mc.masks[i : i + 1])[0]
        assert mc.dd[i] == solver.solve(deal, 1, rules)
        assert mc.playout[i] == solver.playout(deal, rules).tricks[1]


def test_monte_carlo_time_limit_stops_starting_layouts(mc: MonteCarloResult) -> None:
    """With a time limit the layouts are solved in order until it passes: the same layouts
    and answers as without it, as many as were solved (one at least)."""
    roomy = monte_carlo(MC_HAND, 1, "modern", layouts=MC_N, seed=1, time_limit=600.0)
    assert roomy.n == MC_N
    assert np.array_equal(roomy.playout, mc.playout) and np.array_equal(roomy.dd, mc.dd)
    short = monte_carlo(MC_HAND, 1, "modern", layouts=MC_N, seed=1, time_limit=1e-9)
    assert short.n == 1 and short.masks.shape == (1, 4)
    assert short.playout[0] == mc.playout[0] and np.array_equal(short.masks[0], mc.masks[0])
    assert short.playout_dist.sum() == pytest.approx(1.0) and np.isnan(short.expected_se).all()
    for bad, jobs in ((0.0, 1), (-1.0, 1), (5.0, 2)):
        with pytest.raises(SolverInputError, match="time_limit"):
            monte_carlo(MC_HAND, 1, "modern", layouts=MC_N, time_limit=bad, n_jobs=jobs)


def test_monte_carlo_reports_progress_and_plain_data(mc: MonteCarloResult) -> None:
    """``progress(done, total)`` rises to the layouts asked for, with or without a time limit;
    the options are keyword-only; ``to_dict`` is plain JSON data of the same figures."""
    seen: list[tuple[int, int]] = []
    again = monte_carlo(
        MC_HAND, 1, "modern", layouts=MC_N, seed=1, progress=lambda d, t: seen.append((d, t))
    )
    assert seen and seen[-1] == (MC_N, MC_N) and np.array_equal(again.playout, mc.playout)
    timed: list[tuple[int, int]] = []
    monte_carlo(MC_HAND, 1, "modern", layouts=4, seed=1, time_limit=600.0,
                progress=lambda d, t: timed.append((d, t)))  # fmt: skip
    assert timed == [(i, 4) for i in range(1, 5)]
    with pytest.raises(TypeError):
        monte_carlo(MC_HAND, 1, "modern", MC_N)  # type: ignore[misc]
    data = json.loads(json.dumps(mc.to_dict()))
    assert data["layouts"] == MC_N and data["best_call"] == mc.best_call
    assert data["playout_dist"] == pytest.approx(list(mc.playout_dist))
    assert [c["call"] for c in data["calls"]] == [int(c) for c in mc.calls]
    assert "best" in mc._repr_html_()


def test_monte_carlo_validates() -> None:
    with pytest.raises(SolverInputError, match="layouts must be a whole number >= 1"):
        monte_carlo(HAND, 0, "modern", layouts=0)
    with pytest.raises(RulesError, match="unknown ruleset"):
        monte_carlo(HAND, 0, "bridge", layouts=1)
