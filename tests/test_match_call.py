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


#: online in ``make quick``; every preset in ``make test``
SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    "preset", ["online", pytest.param("strict", marks=SLOW), pytest.param("home", marks=SLOW)]
)
def test_the_first_deal_and_unknown_standings_give_todays_call(preset: str) -> None:
    for i in range(60):
        deal = Deal.random(1000 + i)
        seat = i % 4
        earlier = [3] * seat if preset != "strict" else [2] * seat
        today = recommend_call(deal[seat], seat, preset, earlier_calls=earlier).call
        first = match_call(
            deal[seat], seat, preset, totals=(0, 0, 0, 0), deal_of_match=1, earlier_calls=earlier
        )
        assert first.call == first.points_call == today
        assert (
            match_call(
                deal[seat], seat, preset, totals=None, deal_of_match=1, earlier_calls=earlier
            ).call
            == today
        )
        unknown = match_call(deal[seat], seat, preset, earlier_calls=earlier)
        assert unknown.call == today and all(r.win is None for r in unknown.rows)
        assert "standings are unknown" in unknown.reason


@pytest.mark.parametrize(
    "preset",
    ["online", *(pytest.param(p, marks=SLOW) for p in ("modern", "strict", "home", "pagat"))],
)
def test_level_totals_with_deals_to_come_give_todays_call(preset: str) -> None:
    # every total level (at any value) with two or more deals after this one: today's call,
    # with or without the earlier seats' calls
    low = 2 if preset in ("strict", "home") else 1
    for i in range(40):
        deal = Deal.random(2000 + i)
        seat = i % 4
        earlier = [low + (i + j) % 3 for j in range(seat)]
        today = recommend_call(deal[seat], seat, preset, earlier_calls=earlier).call
        for k, level in ((2, 37), (3, 0), (3, -12)):
            mc = match_call(
                deal[seat],
                seat,
                preset,
                totals=(level,) * 4,
                deal_of_match=k,
                earlier_calls=earlier,
            )
            assert mc.call == mc.points_call == today, mc.text()
            assert mc.reason.startswith("every total level"), mc.reason


def test_behind_in_the_last_deal_a_riskier_call_wins_more_matches() -> None:
    strong = "KQJ5.A98.AQ5.K32"
    mc = match_call(strong, 0, "online", totals=(0, 30, 0, 0), deal_of_match=5)
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
    level = match_call(strong, 0, "online", totals=(0, 0, 0, 0), deal_of_match=3)
    assert level.call == mc.points_call and level.reason.startswith("every total level")


def test_far_ahead_in_the_last_deal_the_call_plays_safe_and_keeps_points() -> None:
    mc = match_call(HAND, 0, "online", totals=(150, 0, 0, 0), deal_of_match=5)
    assert mc.row(mc.call).win == pytest.approx(1.0)
    # of the calls that win every match, the one that scores most: still more than a call of 1
    assert mc.call > 1 and mc.row(mc.call).expected >= max(
        r.expected for r in mc.rows if r.win == mc.row(mc.call).win
    )


def test_a_lost_match_keeps_the_points_best_call() -> None:
    mc = match_call(HAND, 0, "online", totals=(-300, 0, 0, 0), deal_of_match=5)
    assert all(r.win == 0 for r in mc.rows) and mc.call == mc.points_call


def test_the_match_call_never_wins_fewer_matches_than_todays() -> None:
    rng = np.random.default_rng(4)
    for i in range(40):
        deal = Deal.random(3000 + i)
        seat = i % 4
        totals = tuple(int(x) for x in rng.integers(-80, 120, size=4))
        k = int(rng.integers(2, 6))
        mc = match_call(deal[seat], seat, "modern", totals=totals, deal_of_match=k)
        assert mc.row(mc.call).win >= mc.row(mc.points_call).win
        assert all(0 <= r.win <= 1 for r in mc.rows)  # type: ignore[operator]


def test_known_calls_of_the_others_change_the_chances() -> None:
    """A seat whose call is known scores as the recorded seats that made that call did: its
    call or more when made, minus its call when missed; the caller's chances follow."""
    from callbreak_lab.bidding.equity import equity_model

    model = equity_model("online")
    drawn = model.others(2, {0: 8, 1: 1}, 4000, (1,))
    eight, one = drawn[:, :, 0].ravel(), drawn[:, :, 1].ravel()
    assert set(np.unique(eight)) <= {-80, *range(80, 131)} and (eight == -80).any()
    assert set(np.unique(one)) <= {-10, *range(10, 131)}
    free = drawn[:, :, 2].ravel()  # seat 3's call is unknown: any score
    assert len(np.unique(free)) > 20
    dist = point_mass(4)
    bold = match_call_for(
        dist, 1, "online", totals=(40, 0, 0, 0), deal_of_match=5, earlier_calls=[8]
    )
    safe = match_call_for(
        dist, 1, "online", totals=(40, 0, 0, 0), deal_of_match=5, earlier_calls=[1]
    )
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
        match_call(HAND, 0, "online", totals=totals, deal_of_match=deal)  # type: ignore[arg-type]


def test_a_target_score_match_has_no_match_call() -> None:
    with pytest.raises(RulesError, match="target score"):
        match_call(
            HAND, 0, "pagat+match_deals=none+target_score=300", totals=(0, 0, 0, 0), deal_of_match=2
        )
    # without a standing it is today's call under any rules
    rules = "pagat+match_deals=none+target_score=300"
    assert match_call(Hand.parse(HAND), 0, rules).call == recommend_call(HAND, 0, rules).call
    # no rules: rules.DEFAULT_RULES (online), for the call and the match call alike
    assert recommend_call(HAND).rules.name == match_call(HAND).rules.name == "online"
    assert recommend_call(HAND).call == recommend_call(HAND, 0, "online").call


# --- the command line, the service and the bot ---------------------------------------------------


def test_cli_evaluate_for_the_match(capsys: pytest.CaptureFixture[str]) -> None:
    from callbreak_lab.cli import main

    strong = "KQJ5.A98.AQ5.K32"
    args = ["evaluate", "--rules", "online", strong, "--totals", "0,3,0,0", "--deal-of-match", "5"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "3 points behind with one deal left: a call of" in text and "wins the match" in text
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = match_call(strong, 0, "online", totals=(0, 30, 0, 0), deal_of_match=5)
    assert data["call"] == expected.points_call and data["match"]["call"] == expected.call
    assert data["match"]["totals"] == [0, 30, 0, 0] and data["match"]["deals_left"] == 0
    # the first deal alone needs no totals; the seat follows the earlier calls
    assert main(["evaluate", "--rules", "strict", HAND, "--earlier-calls", "3,4",
                 "--deal-of-match", "1", "--json"]) == 0  # fmt: skip
    first = json.loads(capsys.readouterr().out)
    assert first["match"]["seat"] == 2 and first["match"]["call"] == first["call"]
    for bad, message in [
        (["--totals", "0,3,0", "--deal-of-match", "5"], "--totals must be four totals"),
        (["--totals", "0,3,x,0", "--deal-of-match", "5"], "seat 2's total must be a number"),
        (["--totals", "0,3.25,0,0", "--deal-of-match", "5"], "at most one decimal"),
        (["--totals", "0,3,0,0", "--deal-of-match", "6"], "1..5 in a match of 5 deals"),
        (["--totals", "0,3,0,0"], "give the deal of the match"),
        (["--deal-of-match", "3"], "needs the four totals"),
    ]:
        assert main(["evaluate", "--rules", "online", HAND, *bad]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err


@pytest.fixture(scope="module")
def client() -> object:
    from fastapi.testclient import TestClient

    from callbreak_lab.service import Settings, create_app

    with TestClient(create_app(Settings(workers=1))) as c:
        yield c


def test_service_evaluate_for_the_match(client: object) -> None:
    body = {"hand": HAND, "seat": 2, "rules": "online", "earlier_calls": [3, 4],
            "totals": [4.2, 13.7, 10.6, -3], "deal_of_match": 5}  # fmt: skip
    resp = client.post("/v1/evaluate", json=body)  # type: ignore[attr-defined]
    assert resp.status_code == 200, resp.text
    data = resp.json()
    expected = match_call(
        HAND, 2, "online", totals=(42, 137, 106, -30), deal_of_match=5, earlier_calls=[3, 4]
    )
    assert data["match"] == json.loads(json.dumps(expected.to_dict()))
    assert data["call"] == expected.points_call
    plain = client.post("/v1/evaluate", json={"hand": HAND, "seat": 0})  # type: ignore[attr-defined]
    assert plain.json()["match"] is None


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"totals": [1, 2, 3]}, "totals", "at least 4 items"),
        ({"totals": [1, 2, 3, 4, 5]}, "totals", "at most 4 items"),
        ({"totals": [1, "a", 2, 3]}, "totals", "valid number"),
        ({"totals": [1.25, 0, 0, 0]}, "totals", "whole number of tenths"),
        ({"deal_of_match": 6}, "deal_of_match", "1..5 in a match of 5 deals"),
        ({"deal_of_match": 0}, "deal_of_match", "greater than or equal to 1"),
        ({"deal_of_match": None}, "deal_of_match", "give the deal of the match"),
        ({"deal_of_match": 1}, "totals", "before the first deal"),
        ({"totals": None, "deal_of_match": 3}, "totals", "needs the four totals"),
        ({"rules": "pagat+flat"}, "rules", "no recorded deals for pagat+flat"),
        ({"rules": "pagat+match_deals=none+target_score=300"}, "rules", "target score"),
    ],
)
def test_service_bad_standings_are_a_422_naming_the_field(
    client: object, change: dict[str, object], field: str, message: str
) -> None:
    body = {"hand": HAND, "seat": 0, "rules": "online", "totals": [0, 3, 0, 0],
            "deal_of_match": 5, **change}  # fmt: skip
    resp = client.post("/v1/evaluate", json=body)  # type: ignore[attr-defined]
    assert resp.status_code == 422, resp.text
    (detail, *_) = resp.json()["detail"]
    assert detail["loc"][:2] == ["body", field] and message in detail["msg"]


def _bid_request() -> dict[str, object]:
    from pathlib import Path

    path = Path(__file__).resolve().parent / "data" / "bhoos" / "bid_request.json"
    return dict(json.loads(path.read_text()))


def test_the_bot_calls_for_the_match_from_the_context(client: object) -> None:
    from callbreak_lab.arena import bhoos
    from callbreak_lab.service.bidder import Bidder
    from callbreak_lab.service.botapi import BID_RULES

    req = _bid_request()  # round 5; we (P0, -6) are last to call, 19.7 behind Bot-2
    assert bhoos.bid_standing(req) == ((42, 137, 115, -60), 5)
    resp = client.post("/bid", json=req)  # type: ignore[attr-defined]
    hand = Hand.from_cards(bhoos.parse_bhoos_card(c) for c in req["cards"])  # type: ignore[union-attr]
    fc = Bidder().forecast(hand, 3, BID_RULES, [3, 4, 1])
    expected = match_call_for(fc.dist, 3, BID_RULES, totals=(42, 137, 115, -60), deal_of_match=5,
                              earlier_calls=[3, 4, 1])  # fmt: skip
    assert resp.json()["value"] == expected.call
    assert resp.headers["x-callbreak-match"].startswith("19.7 points behind with one deal left")
    # a standing within reach: 0.5 behind the leader with one deal left
    ctx = req["context"]
    ctx["players"]["P0"]["totalPoints"] = 13.2  # type: ignore[index]
    found = bhoos.bid_standing(req)
    assert found == ((42, 137, 115, 132), 5)
    closer = match_call_for(
        fc.dist, 3, BID_RULES, totals=found[0], deal_of_match=5, earlier_calls=[3, 4, 1]
    )
    assert client.post("/bid", json=req).json()["value"] == closer.call  # type: ignore[attr-defined]
    # no round, or a round out of range: the points-best call, and the header says why
    ctx["round"] = 9  # type: ignore[index]
    resp = client.post("/bid", json=req)  # type: ignore[attr-defined]
    assert resp.json()["value"] == closer.points_call
    assert "1..5 in a match of 5 deals, got 9" in resp.headers["x-callbreak-match"]
    del ctx["round"]  # type: ignore[attr-defined]
    resp = client.post("/bid", json=req)  # type: ignore[attr-defined]
    assert resp.headers["x-callbreak-match"].startswith("no standing in the context")


def test_the_bot_calls_as_today_where_the_standing_cannot_matter(client: object) -> None:
    # the first deal of the match, and level totals with two or more deals to come: the same
    # call as a request without a standing
    req = _bid_request()
    ctx = req["context"]
    players = ctx["players"]  # type: ignore[index]
    del ctx["round"]  # type: ignore[attr-defined]
    today = client.post("/bid", json=req).json()["value"]  # type: ignore[attr-defined]
    for number, total in ((1, 0), (2, 3.1), (3, -2)):
        ctx["round"] = number  # type: ignore[index]
        for info in players.values():
            info["totalPoints"] = total
        resp = client.post("/bid", json=req)  # type: ignore[attr-defined]
        assert resp.status_code == 200, resp.text
        assert resp.json()["value"] == today, (number, resp.headers["x-callbreak-match"])
        assert resp.headers["x-callbreak-match"].startswith(
            "the first deal" if number == 1 else "every total level"
        )
