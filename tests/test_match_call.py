"""Match-aware calls (``callbreak_lab.bidding.match``): today's call where the standings do
not matter, another call where they do, and clear errors for bad standings."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from callbreak_lab import Deal, Hand, RulesError, StandingError
from callbreak_lab.bidding.calls import point_mass
from callbreak_lab.bidding.match import MIN_GAIN, match_call, match_call_for
from callbreak_lab.bidding.model import recommend_call

HAND = "AKQ2.T98.765.432"


@pytest.mark.parametrize("preset", ["online", "strict", "home"])
def test_the_first_deal_and_unknown_standings_give_todays_call(preset: str) -> None:
    for i in range(60):
        deal = Deal.random(1000 + i)
        seat = i % 4
        earlier = [3] * seat if preset != "strict" else [2] * seat
        today = recommend_call(deal[seat], seat, preset, earlier_calls=earlier).call
        first = match_call(deal[seat], seat, preset, (0, 0, 0, 0), 1, earlier_calls=earlier)
        assert first.call == first.points_call == today
        assert match_call(deal[seat], seat, preset, None, 1, earlier_calls=earlier).call == today
        unknown = match_call(deal[seat], seat, preset, earlier_calls=earlier)
        assert unknown.call == today and all(r.win is None for r in unknown.rows)
        assert "standings are unknown" in unknown.reason


def test_level_totals_with_deals_to_come_give_todays_call() -> None:
    for i in range(80):
        deal = Deal.random(2000 + i)
        seat = i % 4
        today = recommend_call(deal[seat], seat, "online").call
        for k in (2, 3):
            mc = match_call(deal[seat], seat, "online", (37, 37, 37, 37), k)
            assert mc.call == today, mc.text()


def test_behind_in_the_last_deal_a_riskier_call_wins_more_matches() -> None:
    strong = "KQJ5.A98.AQ5.K32"
    mc = match_call(strong, 0, "online", (0, 30, 0, 0), 5)
    assert mc.points_call == recommend_call(strong, 0, "online").call
    assert mc.call > mc.points_call and mc.call == mc.match_best
    assert mc.gain >= max(MIN_GAIN, 5 * mc.gain_se)
    assert mc.row(mc.call).win > mc.row(mc.points_call).win + 0.05
    assert mc.row(mc.call).expected < mc.row(mc.points_call).expected
    assert re.search(
        r"^3 points behind with one deal left: a call of \d+ wins [\d.]+ % of matches against "
        r"[\d.]+ % for the points-best \d+$",
        mc.reason,
    )
    assert mc.reason in mc.text() and "wins the match" in mc.text()
    json.dumps(mc.to_dict())
    # every total level with three deals to play (this one and two more): the points-best call
    level = match_call(strong, 0, "online", (0, 0, 0, 0), 3)
    assert level.call == mc.points_call and level.reason.startswith("every total level")


def test_far_ahead_in_the_last_deal_the_call_plays_safe_and_keeps_points() -> None:
    mc = match_call(HAND, 0, "online", (150, 0, 0, 0), 5)
    assert mc.row(mc.call).win == pytest.approx(1.0)
    # of the calls that win every match, the one that scores most: still more than a call of 1
    assert mc.call > 1 and mc.row(mc.call).expected >= max(
        r.expected for r in mc.rows if r.win == mc.row(mc.call).win
    )


def test_a_lost_match_keeps_the_points_best_call() -> None:
    mc = match_call(HAND, 0, "online", (-300, 0, 0, 0), 5)
    assert all(r.win == 0 for r in mc.rows) and mc.call == mc.points_call


def test_the_match_call_never_wins_fewer_matches_than_todays() -> None:
    rng = np.random.default_rng(4)
    for i in range(40):
        deal = Deal.random(3000 + i)
        seat = i % 4
        totals = tuple(int(x) for x in rng.integers(-80, 120, size=4))
        k = int(rng.integers(2, 6))
        mc = match_call(deal[seat], seat, "modern", totals, k)
        assert mc.row(mc.call).win >= mc.row(mc.points_call).win
        assert all(0 <= r.win <= 1 for r in mc.rows)  # type: ignore[operator]


def test_known_calls_of_the_others_change_the_chances() -> None:
    """A seat whose call is known scores as the recorded seats that made that call did: its
    call or more when made, minus its call when missed; the caller's chances follow."""
    from callbreak_lab.equity import equity_model

    model = equity_model("online")
    drawn = model.others(2, {0: 8, 1: 1}, 4000, (1,))
    eight, one = drawn[:, :, 0].ravel(), drawn[:, :, 1].ravel()
    assert set(np.unique(eight)) <= {-80, *range(80, 131)} and (eight == -80).any()
    assert set(np.unique(one)) <= {-10, *range(10, 131)}
    free = drawn[:, :, 2].ravel()  # seat 3's call is unknown: any score
    assert len(np.unique(free)) > 20
    dist = point_mass(4)
    bold = match_call_for(dist, 1, "online", (40, 0, 0, 0), 5, earlier_calls=[8])
    safe = match_call_for(dist, 1, "online", (40, 0, 0, 0), 5, earlier_calls=[1])
    gap = abs(bold.row(4).win - safe.row(4).win)  # type: ignore[operator]
    assert gap > 5 * max(bold.row(4).win_se, safe.row(4).win_se)  # type: ignore[type-var]


@pytest.mark.parametrize(
    ("totals", "deal", "error", "message"),
    [
        ((0, 0, 0), 3, StandingError, "four totals, one a seat, got 3"),
        ((0, 0, 0, "x"), 3, StandingError, "seat 3's total must be a whole number of tenths"),
        ((0, 0, 1.5, 0), 3, StandingError, "seat 2's total"),
        ((0, 0, 0, 0), 0, StandingError, "1..5 in a match of 5 deals, got 0"),
        ((0, 0, 0, 0), 6, StandingError, "got 6"),
        ((0, 0, 0, 0), 2.0, StandingError, "got 2.0"),
        ((0, 10, 0, 0), 1, StandingError, "before the first deal of a match every total is 0"),
        ((0, 10, 0, 0), None, StandingError, "give the deal of the match"),
        (None, 3, StandingError, "deal 3 of the match needs the four totals"),
    ],
)
def test_bad_standings_are_refused(
    totals: object, deal: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=re.escape(message)):
        match_call(HAND, 0, "online", totals, deal)  # type: ignore[arg-type]


def test_a_target_score_match_has_no_match_call() -> None:
    with pytest.raises(RulesError, match="target score"):
        match_call(HAND, 0, "pagat+match_deals=none+target_score=300", (0, 0, 0, 0), 2)
    # without a standing it is today's call under any rules
    rules = "pagat+match_deals=none+target_score=300"
    assert match_call(Hand.parse(HAND), 0, rules).call == recommend_call(HAND, 0, rules).call
