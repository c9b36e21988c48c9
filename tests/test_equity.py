"""Match equity (``callbreak_lab.bidding.equity``): the shipped recordings, the estimate's
properties, a direct simulation of whole matches, and the errors of bad standings."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from callbreak_lab import PRESETS, ModelError, RulesError, Ruleset, StandingError
from callbreak_lab.arena.matchcall import record_deals
from callbreak_lab.bidding.equity import (
    DealScores,
    EquityModel,
    equity_model,
    match_equity,
    shipped_path,
    tenths_of_points,
    totals_of_points,
    win_shares,
)

MODELS = Path(__file__).resolve().parents[1] / "callbreak_lab" / "models"


# --- the shipped recordings ----------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_ships_its_recorded_deals_and_card(preset: str) -> None:
    scores = DealScores.load(shipped_path(preset))
    assert scores.rules == PRESETS[preset] and len(scores) >= 3000
    assert np.all(scores.tricks.sum(axis=1) == 13)
    card = json.loads((MODELS / f"equity_{preset}.json").read_text())
    assert card["preset"] == preset and card["deals"] == len(scores)
    assert card["players"] == scores.players
    import hashlib

    assert card["sha256"] == hashlib.sha256((MODELS / card["file"]).read_bytes()).hexdigest()
    # the estimate agrees with the direct simulation the card made
    assert card["equity"]["largest_abs_z"] < 4.5
    # the file is small: package data
    assert (MODELS / card["file"]).stat().st_size < 100_000


def test_the_scores_follow_the_rules() -> None:
    scores = DealScores.load(shipped_path("home"))
    rules = scores.rules
    i, s = 3, 1
    assert scores.scores[i, s] == rules.score(int(scores.calls[i, s]), int(scores.tricks[i, s]))


# --- the estimate's properties -------------------------------------------------------------------


def test_equity_sums_to_one_and_has_a_standard_error() -> None:
    for totals, left in [((0, 0, 0, 0), 4), ((31, -12, 0, 5), 2), ((100, 0, 0, 0), 1)]:
        e = match_equity(totals, left, "online")
        assert sum(e.p) == pytest.approx(1, abs=1e-12)
        assert all(0 <= p <= 1 for p in e.p)
        assert all(0 <= se < 0.02 for se in e.se)
        assert e.deals == len(equity_model("online").scores)


def test_no_deal_left_is_the_final_result() -> None:
    e = match_equity((30, 30, 10, -5), 0, "online")
    assert e.p == (0.5, 0.5, 0.0, 0.0) and e.se == (0.0, 0.0, 0.0, 0.0)
    assert match_equity((-1, -2, -3, -1), 0, "modern").p == (0.5, 0.0, 0.0, 0.5)
    assert match_equity((7, 7, 7, 7), 0, "strict").p == (0.25, 0.25, 0.25, 0.25)


def test_a_larger_lead_gives_a_higher_equity() -> None:
    for left in (1, 2, 4):
        p0 = [match_equity((lead, 0, 0, 0), left, "online").p for lead in range(-100, 101, 5)]
        mine = [p[0] for p in p0]
        others = [p[1] for p in p0]
        assert all(b >= a for a, b in itertools.pairwise(mine))
        assert all(b <= a for a, b in itertools.pairwise(others))
        assert mine[0] < 0.05 and mine[-1] > 0.9 - 0.2 * left  # a ten-point lead, a ten behind
    # the more deals to come, the less a lead of 2 points is worth
    lead = [match_equity((20, 0, 0, 0), left, "online").p[0] for left in (1, 2, 3, 4)]
    assert lead == sorted(lead, reverse=True) and lead[-1] > 0.25


def test_only_the_differences_between_totals_matter() -> None:
    one = match_equity((31, -12, 0, 5), 2, "pagat")
    two = match_equity((531, 488, 500, 505), 2, "pagat")
    assert one.p == two.p and one.se == two.se


def test_symmetric_seats_have_equal_equity() -> None:
    """With the seats treated alike (futures closed under the seat permutations), seats with
    equal totals have exactly equal equity; with seats by their place at the table (the
    default), level seats differ by the place only, which the recorded deals measure."""
    scores = equity_model("online").scores
    alike = EquityModel(scores, exchangeable=True)
    p, _ = alike.equity((20, 20, 0, -10), 2)
    assert p[0] == p[1] and p[0] > p[2] > p[3]
    p, _ = alike.equity((5, 5, 5, 5), 3)
    assert np.all(p == 0.25)
    placed = match_equity((5, 5, 5, 5), 3, "online")
    assert max(placed.p) - min(placed.p) < 0.03


def _direct(
    scores: np.ndarray, totals: tuple[int, ...], left: int, n: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Whole matches played out directly: each deal to come drawn independently (with
    replacement) from the recorded deals, passed one seat on a deal."""
    rng = np.random.default_rng(seed)
    finals = np.tile(np.array(totals, dtype=np.int64), (n, 1))
    for k in range(left):
        finals += np.roll(scores[rng.integers(len(scores), size=n)], k, axis=1)
    shares = win_shares(finals)
    return shares.mean(axis=0), shares.std(axis=0, ddof=1) / math.sqrt(n)


@pytest.mark.parametrize("preset", ["online", "home"])
def test_the_estimate_agrees_with_a_direct_simulation(preset: str) -> None:
    model = equity_model(preset)
    for i, (totals, left) in enumerate(
        [((20, 0, 0, 0), 1), ((0, -31, 12, 0), 2), ((50, 20, 0, -40), 3), ((0, 0, 0, 0), 4)]
    ):
        e = match_equity(totals, left, preset)
        q, qse = _direct(model.scores.scores, totals, left, 100_000, seed=i)
        z = (np.array(e.p) - q) / np.sqrt(np.array(e.se) ** 2 + qse**2)
        assert np.all(np.abs(z) < 4.5), (totals, left, e.p, q)


def test_a_variation_uses_its_presets_deals_and_its_own_match_length() -> None:
    assert match_equity((10, 0, 0, 0), 1, "modern+match_deals=3").p == (
        match_equity((10, 0, 0, 0), 1, "modern").p
    )
    with pytest.raises(StandingError, match=r"0\.\.2 in a match of 3 deals"):
        match_equity((10, 0, 0, 0), 3, "modern+match_deals=3")
    # a lower highest call plays the same deals (calls above 8 are rare)
    assert match_equity((0, 0, 0, 0), 1, "online+max_call=8").p == (
        match_equity((0, 0, 0, 0), 1, "online").p
    )


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("totals", "left", "rules", "error", "message"),
    [
        ((0, 0, 0), 1, "online", StandingError, "four totals, one a seat, got 3"),
        ((0, 0, 0, 0, 0), 1, "online", StandingError, "got 5"),
        ((0, 0, 0.5, 0), 1, "online", StandingError, "seat 2's total must be a whole number"),
        ((0, "1", 0, 0), 1, "online", StandingError, "seat 1's total"),
        ((True, 0, 0, 0), 1, "online", StandingError, "seat 0's total"),
        ("0,0,0,0", 1, "online", StandingError, "a list of four whole numbers"),
        (None, 1, "online", StandingError, "a list of four whole numbers"),
        ((0, 0, 0, 0), 5, "online", StandingError, "0..4 in a match of 5 deals, got 5"),
        ((0, 0, 0, 0), -1, "online", StandingError, "got -1"),
        ((0, 0, 0, 0), 1.0, "online", StandingError, "got 1.0"),
        ((0, 0, 0, 0), 1, "pagat+match_deals=none+target_score=300", RulesError, "target score"),
        ((0, 0, 0, 0), 1, "pagat+flat", ModelError, "no recorded deals for pagat+flat"),
        ((0, 0, 0, 0), 1, "bridge", RulesError, "unknown ruleset"),
    ],
)
def test_bad_standings_are_refused_naming_the_problem(
    totals: object, left: object, rules: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=re.escape(message)):
        match_equity(totals, left, rules)  # type: ignore[arg-type]


def test_totals_in_points() -> None:
    assert tenths_of_points("3.1") == 31 and tenths_of_points(-4) == -40
    assert tenths_of_points(4.199999999999999) == 42 and tenths_of_points("-0.3") == -3
    assert totals_of_points("0,0,31,-12") == (0, 0, 310, -120)
    assert totals_of_points([0, 4.2, "13.7", -6]) == (0, 42, 137, -60)
    for bad, message in [
        ("3.14", "at most one decimal"),
        (3.14, "whole number of tenths"),
        (float("nan"), "finite"),
        ("x", "a number of points"),
        (True, "a number of points"),
    ]:
        with pytest.raises(StandingError, match=message):
            tenths_of_points(bad)
    with pytest.raises(StandingError, match="got 3"):
        totals_of_points("1,2,3")
    with pytest.raises(StandingError, match="empty value"):
        totals_of_points("1,,2,3")


# --- recording ----------------------------------------------------------------------------------


def test_recorded_deals_round_trip_and_join(tmp_path: Path) -> None:
    one = record_deals("strict", "model", 10, seed=3)
    two = record_deals("strict", "model", 6, seed=3, first=10)
    both = DealScores.concat([one, two])
    assert len(both) == 16 and both.first == 0
    assert np.all(both.calls >= 2)  # strict calls 2..13
    path = both.save(tmp_path / "deals.npz")
    back = DealScores.load(path)
    assert np.array_equal(back.calls, both.calls) and np.array_equal(back.tricks, both.tricks)
    assert (back.rules, back.players, back.seed) == (Ruleset.preset("strict"), "model", 3)
    assert not list(tmp_path.glob(".tmp-*"))
    # the same deals again: the same record
    again = record_deals("strict", "model", 6, seed=3, first=10)
    assert np.array_equal(again.tricks, two.tricks)
    with pytest.raises(ModelError, match="starts at deal 0, not 16"):
        DealScores.concat([two, one])
    with pytest.raises(ModelError, match="cannot be read"):
        DealScores.load(tmp_path / "missing.npz")
    model = EquityModel(both, groups=2, futures=512)
    p, se = model.equity((0, 0, 10, 0), 2)
    assert p.sum() == pytest.approx(1) and np.all(se >= 0)
