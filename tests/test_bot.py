"""The Bhoos tournament bot endpoints against the recorded real client traffic, plus the table
inferences, the seat mapping, the layout sampling and the cheap fallback card."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from testdata import BHOOS_DIR

from callbreak_lab.arena import bhoos
from callbreak_lab.bidding import calls
from callbreak_lab.cards import SUIT_MASKS, Card, Deal, Hand
from callbreak_lab.game import Position
from callbreak_lab.rules import PRESETS
from callbreak_lab.seat import STRONG, Knowledge, draw
from callbreak_lab.service import Settings, create_app, jobs
from callbreak_lab.service.bidder import Bidder
from callbreak_lab.service.bot import cheap_card, read_play

CLIENT_DIR = BHOOS_DIR
ONLINE = PRESETS["online"]
IDS = ["P0", "Bot-1", "Bot-2", "Bot-3"]


def _plays() -> list[dict[str, Any]]:
    path = CLIENT_DIR / "play_requests.json"
    return list(bhoos.read_requests(path.read_text()))


def _bid() -> dict[str, Any]:
    path = CLIENT_DIR / "bid_request.json"
    return dict(json.loads(path.read_text()))


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(workers=2))) as c:
        yield c


def _legal_from_request(req: dict[str, Any]) -> Hand:
    """Legal cards computed independently: rules.py on the request's own hand and trick."""
    hand = Hand.from_cards(bhoos.parse_bhoos_card(c) for c in req["cards"])
    trick = [bhoos.parse_bhoos_card(c) for c in req.get("played", [])]
    return ONLINE.legal_cards(hand, trick, first_trick=not req.get("history"))


# --- protocol endpoints -----------------------------------------------------------------------


def test_hi(client: TestClient) -> None:
    assert client.get("/hi").json() == {"value": "hello"}


def test_bid_on_the_recorded_request(client: TestClient) -> None:
    req = _bid()
    resp = client.post("/bid", json=req)
    assert resp.status_code == 200, resp.text
    value = resp.json()["value"]
    assert isinstance(value, int) and 1 <= value <= 8
    # the three others have bid already: we are the fourth bidder (seat 3)
    assert bhoos.earlier_calls(req) == [3, 4, 1]
    hand = Hand.from_cards(bhoos.parse_bhoos_card(c) for c in req["cards"])
    forecast = Bidder().forecast(hand, 3, ONLINE, [3, 4, 1])
    # the context's round 5 and totals: the call for the match (bidding.match), the points-best
    # call unless another wins the match clearly more often
    from callbreak_lab.bidding.match import match_call_for

    bid_rules = ONLINE.replace(max_call=8)
    match = match_call_for(forecast.dist, 3, bid_rules, totals=(42, 137, 115, -60), deal_of_match=5,
                           earlier_calls=[3, 4, 1])  # fmt: skip
    assert match.points_call == calls.best_call(forecast.dist, bid_rules).call
    assert value == match.call
    source = resp.headers["x-callbreak-source"]
    assert source.endswith("; after calls [3, 4, 1]") == forecast.calls_used


def test_bid_reads_the_earlier_calls_from_the_context() -> None:
    def body(bids: dict[str, object]) -> dict[str, object]:
        players = {"P0": {"bid": 0}} | {p: {"bid": b} for p, b in bids.items()}
        return {"id": "P0", "cards": [], "context": {"players": players}}

    assert bhoos.earlier_calls({"cards": []}) == []
    assert bhoos.earlier_calls(body({"B1": 0, "B2": 0, "B3": 0})) == []
    assert bhoos.earlier_calls(body({"B1": 5, "B2": 0, "B3": 2})) == [5, 2]
    # a non-integral or boolean bid still counts as "has bid" but cannot be conditioned on
    assert bhoos.earlier_calls(body({"B1": 2.5, "B2": True, "B3": "4"})) == [-1]


def test_bid_with_an_odd_earlier_bid_still_answers(client: TestClient) -> None:
    req = _bid()
    req["context"]["players"]["Bot-1"]["bid"] = 2.5
    resp = client.post("/bid", json=req)
    assert resp.status_code == 200, resp.text
    assert 1 <= resp.json()["value"] <= 8
    assert "after calls" not in resp.headers["x-callbreak-source"]


def test_bid_is_reasoned_not_constant(client: TestClient) -> None:
    strong = ["1S", "KS", "QS", "JS", "TS", "9S", "1H", "KH", "1D", "KD", "1C", "KC", "QC"]
    weak = ["2S", "3H", "4H", "5H", "6H", "2D", "3D", "4D", "5D", "2C", "3C", "4C", "6C"]
    hi = client.post("/bid", json={"cards": strong}).json()["value"]
    lo = client.post("/bid", json={"cards": weak}).json()["value"]
    assert hi == 8 and lo == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"cards": ["1S", "1S"]}, "cards"),
        ({"cards": ["1X"]}, "cards"),
        ({"cards": ["1S", "2S"]}, "cards"),  # a bid needs 13 cards
        ({"cards": "1S"}, "cards"),
    ],
)
def test_bid_validation(client: TestClient, body: dict[str, Any], field: str) -> None:
    resp = client.post("/bid", json=body)
    assert resp.status_code == 422
    assert any(field in err["loc"] for err in resp.json()["detail"])


@pytest.mark.slow
def test_every_recorded_play_request_gets_a_legal_card(client: TestClient) -> None:
    reqs = _plays()
    assert len(reqs) == 61
    for req in reqs:
        resp = client.post("/play", json={**req, "timeBudget": 250})
        assert resp.status_code == 200, resp.text
        value = resp.json()["value"]
        assert value in req["cards"]  # the request's own notation
        assert bhoos.parse_bhoos_card(value) in _legal_from_request(req), (req, value)


def test_play_without_time_budget_answers_in_time(client: TestClient) -> None:
    reqs = _plays()
    deadline = time.monotonic() + 120  # earlier tiny budgets may have had workers replaced
    while time.monotonic() < deadline:
        workers = client.get("/healthz").json()["workers"]
        if workers["idle"] == workers["size"]:
            break
        time.sleep(0.2)
    later = next(r for r in reqs if len(r["history"]) >= 6 and len(_legal_from_request(r)) > 1)
    budget = Settings().default_time_budget_ms / 1000
    for req in (reqs[2], later):
        assert "timeBudget" not in req
        t0 = time.monotonic()
        resp = client.post("/play", json=req)
        elapsed = time.monotonic() - t0
        assert resp.status_code == 200
        print(f"answered in {elapsed:.2f} s (default budget {budget:.2f} s)")
    # with half the deal played, layouts solve in milliseconds: given time (a budget that a
    # loaded machine cannot use up), the answer comes from the search
    resp = client.post("/play", json={**later, "timeBudget": 30_000})
    assert resp.headers["x-callbreak-choice"].startswith("search"), resp.headers


def test_a_request_without_a_budget_gets_the_default_one() -> None:
    """``default_time_budget_ms`` is the budget of a request without ``timeBudget``: a default
    below the bot's margin leaves no time to search (the cheap card at once), and the same
    request with a budget of its own searches."""
    later = next(r for r in _plays() if len(r["history"]) >= 6 and len(_legal_from_request(r)) > 1)
    cfg = Settings(workers=1, default_time_budget_ms=1, bot_margin_ms=150)
    with TestClient(create_app(cfg)) as small:
        resp = small.post("/play", json=later)
        assert resp.status_code == 200
        assert resp.headers["x-callbreak-choice"] == "heuristic", resp.headers
        # no time to ask the search: the cheap card, computed at once
        k = read_play(later).knowledge
        assert bhoos.parse_bhoos_card(resp.json()["value"]) == cheap_card(k)
        resp = small.post("/play", json={**later, "timeBudget": 30_000})
        assert resp.headers["x-callbreak-choice"].startswith("search"), resp.headers


def test_tiny_budget_falls_back_to_a_legal_card(client: TestClient) -> None:
    req = next(r for r in _plays() if len(r["history"]) == 5)
    resp = client.post("/play", json={**req, "timeBudget": 5})
    assert resp.status_code == 200
    assert resp.headers["x-callbreak-choice"].startswith("heuristic")
    assert bhoos.parse_bhoos_card(resp.json()["value"]) in _legal_from_request(req)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"cards": ["1S", "1S"]}, "cards"),
        ({"cards": []}, "cards"),
        ({"played": ["ZZ"]}, "played"),
        ({"played": ["1S", "2S", "3S", "4S"]}, "played"),
        ({"playerId": "nobody"}, "playerId"),
        ({"history": [[0, ["1H", "2H", "3H", "4H"], 3]]}, "history"),
        ({"history": [[0, ["1H", "2H", "3H"], 0]]}, "history"),
        ({"timeBudget": -1}, "timeBudget"),
    ],
)
def test_play_validation(client: TestClient, change: dict[str, Any], field: str) -> None:
    req = {**_plays()[2], **change}
    resp = client.post("/play", json=req)
    assert resp.status_code == 422, resp.text
    assert any(field in err["loc"] for err in resp.json()["detail"]), resp.json()


def test_play_wrong_hand_size(client: TestClient) -> None:
    req = _plays()[3]  # after one trick: 12 cards
    resp = client.post("/play", json={**req, "cards": req["cards"][:-1]})
    assert resp.status_code == 422
    assert "12 cards" in resp.json()["detail"][0]["msg"]


# --- seats, inferences, sampling, fallback ------------------------------------------------------


def test_seat_mapping_is_a_rotation() -> None:
    # index 2 is us; index 1 led the first trick (so it is deal seat 0) and index 3 won it
    req = {
        "playerId": "c",
        "playerIds": ["a", "b", "c", "d"],
        "cards": ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"],
        "history": [[1, ["5C", "6C", "2S", "QC"], 3]],
        "played": ["3D", "4D", "5D"],
    }
    got = read_play(req)
    state = got.knowledge
    assert state.seat == 1 and got.me == 2 and state.leader == 2  # index 1 led trick 1
    assert state.played_by[1] == 1 << Card.parse("6C")  # our own play is seat 1's
    assert state.played_by[2] == (1 << Card.parse("2S")) | (1 << Card.parse("3D"))
    # before any trick is complete: leader = our index - len(played)
    first = {**req, "history": [], "played": ["5C", "6C"], "cards": [*req["cards"], "9C"]}
    s = read_play(first)
    assert s.knowledge.seat == 2 and s.me == 2 and s.knowledge.leader == 0  # index 0 leads


def _state(history: list[Any], played: list[str], cards: list[str]) -> Knowledge:
    return read_play(
        {"playerId": "P0", "playerIds": IDS, "cards": cards, "history": history, "played": played}
    ).knowledge


HAND12 = ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD"]


def test_inference_void_and_no_winning_spade() -> None:
    # P0 leads 1C; Bot-1 discards a heart with no spade in the trick: void in clubs, and (win_only)
    # it holds no spade at all; Bot-2 follows low (9C under the ace: must_beat says nothing new
    # since it cannot beat the ace); Bot-3 plays 4S and wins.
    state = _state([[0, ["1C", "2H", "9C", "4S"], 3]], ["5H"], HAND12)
    assert state.voids[1] == {0, 3}
    assert state.excluded[1] & SUIT_MASKS[3] == SUIT_MASKS[3]
    assert state.excluded[2] == SUIT_MASKS[0] & ~((2 << Card.parse("AC")) - 1)  # nothing above A
    assert state.voids[3] == {0}  # void in clubs, played a winning spade: no spade inference


def test_inference_must_beat_and_losing_spade() -> None:
    # P0 leads 5H, Bot-1 plays KH, Bot-2 plays 7H below the king (so it holds no heart above the
    # king: not the ace), Bot-3 discards 2C with no spade in the trick: no spade at all
    state = _state([[0, ["5H", "KH", "7H", "2C"], 1]], ["3C", "4C", "5C"], HAND12)
    ah = Card.parse("AH")
    assert state.excluded[2] >> ah & 1 and not state.excluded[2] >> Card.parse("QH") & 1
    assert state.voids[3] == {2, 3}
    # a losing spade under a higher spade: no spade above the trick's top spade
    # Bot-1 leads 3C, Bot-2 trumps with 8S, Bot-3 (void) plays the losing 4S, P0 follows 6C
    cards = ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "2H"]
    state = _state([[1, ["3C", "8S", "4S", "6C"], 2]], ["2D", "1D"], cards)
    above8 = SUIT_MASKS[3] & ~((2 << Card.parse("8S")) - 1)
    assert state.excluded[2] & SUIT_MASKS[3] == above8


def test_layouts_respect_every_inference() -> None:
    req = _plays()[30]
    state = read_play(req).knowledge
    layouts = draw(state, 40, seed=3).rows
    assert len(layouts) > 0
    for row in layouts:
        deal = Deal([Hand(int(m)) for m in row])
        Position.replay(deal, state.record, ONLINE)  # every observed card legal
        for seat in range(4):
            unseen = int(row[seat]) & ~state.played_by[seat]
            if seat != state.seat:
                assert unseen & state.banned(seat) == 0
        assert int(row[state.seat]) & ~state.played_by[state.seat] == state.hand


def test_the_bots_card_without_a_solved_layout_is_strongs() -> None:
    """When the search solves no layout in time, the bot's job answers ``strong``'s card
    without search, the learned policy's likeliest (the same policy object as the arena's)."""
    from callbreak_lab.seat import policy

    state = _state([[0, ["1C", "2H", "9C", "4S"], 3]], ["5H"], HAND12)
    got = jobs.bot_play(state, 0.0, seed=1)
    assert got["how"] == "learned (no layout solved)"
    assert got["card"] == policy.learned_card(state) == STRONG.instant_card(state)


def test_cheap_card_wins_cheaply_or_discards_lowest() -> None:
    # Bot-3 led 5C, Bot-1... : we are last to play to a club trick and hold 9C, KC: 9C wins cheaply
    cards = ["9C", "KC", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD"]
    state = _state([], ["5C", "7C", "8C"], cards)
    assert cheap_card(state) == Card.parse("9C")
    state = _state([], ["5C", "1C", "8C"], cards)  # cannot win: lowest club (must follow)
    assert cheap_card(state) == Card.parse("9C")
    void = ["2S", "3H", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD"]
    state = _state([], ["5C", "1C", "8C"], void)  # void: must trump with 2S (it wins)
    assert cheap_card(state) == Card.parse("2S")
    state = _state([], ["5C", "1S", "8C"], void)  # void, cannot win: discard the lowest non-spade
    assert cheap_card(state) == Card.parse("2D")


def test_bot_search_takes_its_best_average() -> None:
    req = next(r for r in _plays() if len(r["history"]) >= 8)
    state = read_play(req).knowledge  # no calls in the request: judged by tricks
    out = jobs.bot_play(state, 2.0, seed=1)
    assert out["how"] == "search" and out["layouts"] > 0
    tricks = {card: o["tricks"] for card, o in out["outcomes"].items()}
    best = max(tricks.values())
    assert tricks[str(Card(out["card"]))] == best
    assert state.legal_mask() >> out["card"] & 1
    assert np.isfinite(best)


def test_play_reads_the_bids_and_tricks_and_plays_for_its_score() -> None:
    """With the bids in ``context`` the bot knows every seat's call (by library seat) and its
    tricks won, and the search is the strong player's (expected score over layouts weighted by
    the calls); without them it is pimc's average."""
    from callbreak_lab.service import jobs
    from callbreak_lab.service.bot import read_play

    req = _plays()[40]
    ids = req["playerIds"]
    bids = dict(zip(ids, [3, 5, 2, 4], strict=True))
    with_context = {**req, "context": {"players": {p: {"bid": b} for p, b in bids.items()}}}
    got = read_play(with_context)
    state = got.knowledge
    first_leader = (got.me - state.seat) % 4
    # library seat s is protocol index (first_leader + s) % 4
    assert state.calls == tuple(bids[ids[(first_leader + s) % 4]] for s in range(4))
    assert sum(state.tricks_won) == len(req["history"])
    legal = {int(c) for c in _legal_from_request(req)}
    searched = jobs.bot_play(state, None, 5)
    assert searched["card"] in legal
    assert all(o["expected"] is not None for o in searched["outcomes"].values())
    plain = jobs.bot_play(read_play(req).knowledge, None, 5)
    assert plain["card"] in legal
    assert all(o["expected"] is None for o in plain["outcomes"].values())
