"""The service's routes against their declared response models and the library.

Every route of the app declares a ``response_model`` (and its error answers); each example body
of a request model (the ones the OpenAPI document shows) gets a 200 whose JSON validates against
the route's response model and whose values are the library's: ``/v1/line`` is
``lines.play_line(...).to_dict()``, ``/v1/advise`` is ``advice.advise(...).to_dict()``,
``/v1/analyse`` is ``review.analyse_play(...)`` / ``review_play(...)``'s, and so on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter

from callbreak_lab import __version__
from callbreak_lab.arena import bhoos
from callbreak_lab.bidding import calls as calls_
from callbreak_lab.cards import Hand
from callbreak_lab.game import Position
from callbreak_lab.rules import DEFAULT_RULES, PRESETS, Ruleset
from callbreak_lab.service import Settings, create_app
from callbreak_lab.service import schemas as s
from callbreak_lab.service.bidder import Bidder
from callbreak_lab.service.botapi import BID_RULES
from callbreak_lab.service.common import model_cards

SETTINGS = Settings(workers=1)  # bounds far above the examples' work: nothing is cut short
APP = create_app(SETTINGS)
ROUTES = {
    (method, route.path): route
    for route in APP.routes
    if isinstance(route, APIRoute) and route.include_in_schema  # the API, not its /docs pages
    for method in route.methods
}
BODY_ROUTES = {
    ("POST", "/v1/evaluate"): s.EvaluateRequest,
    ("POST", "/v1/solve"): s.SolveRequest,
    ("POST", "/v1/line"): s.LineRequest,
    ("POST", "/v1/advise"): s.AdviseRequest,
    ("POST", "/v1/analyse"): s.AnalyseRequest,
    ("POST", "/bid"): s.BidRequest,
    ("POST", "/play"): s.PlayRequest,
}
GET_ROUTES = [("GET", "/healthz"), ("GET", "/v1/rules"), ("GET", "/hi")]


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(APP) as c:
        yield c


def _examples(model: type[BaseModel]) -> list[dict[str, Any]]:
    extra = model.model_config.get("json_schema_extra")
    assert isinstance(extra, dict), f"{model.__name__} has no examples"
    examples = extra["examples"]
    assert isinstance(examples, list) and examples
    return examples


def _rules(body: dict[str, Any]) -> Ruleset:
    spec = body.get("rules", DEFAULT_RULES)
    return Ruleset.preset(spec) if isinstance(spec, str) else Ruleset.from_dict(spec)


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _validated(method: str, path: str, resp: Any) -> Any:
    """The answer's JSON, after checking it is a 200 that the route's model accepts as is."""
    assert resp.status_code == 200, resp.text
    model = ROUTES[method, path].response_model
    adapter: TypeAdapter[Any] = TypeAdapter(model)
    parsed = adapter.validate_json(resp.content)
    data = resp.json()
    # nothing the model does not know, nothing it would fill in
    assert adapter.dump_python(parsed, mode="json", exclude_unset=True) == data
    return data


# --- the expected answers, from the library ---------------------------------------------------


def _evaluate(body: dict[str, Any], data: dict[str, Any]) -> None:
    rules, hand = _rules(body), Hand.parse(body["hand"])
    fc = Bidder().forecast(hand, body["seat"], rules, body.get("earlier_calls"))
    np.testing.assert_allclose(data["distribution"], fc.dist, atol=1e-12)
    best = calls_.best_call(fc.dist, rules)
    assert data["call"] == best.call and data["hand"] == str(hand)
    assert [r["call"] for r in data["calls"]] == list(best.calls)
    np.testing.assert_allclose(
        [r["expected_tenths"] for r in data["calls"]], calls_.expected_scores(fc.dist, rules)
    )
    if body.get("deal_of_match") is None:
        assert data["match"] is None
    else:
        from callbreak_lab.bidding.match import match_call_for
        from callbreak_lab.rules import totals_of_points

        totals = totals_of_points(body["totals"]) if body.get("totals") is not None else None
        match = match_call_for(fc.dist, body["seat"], rules, totals=totals,
                               deal_of_match=body["deal_of_match"],
                               earlier_calls=body.get("earlier_calls"))  # fmt: skip
        assert data["match"] == json.loads(json.dumps(match.to_dict()))
    mc = data["monte_carlo"]
    if body.get("layouts") is None:
        assert mc is None
        return
    from callbreak_lab.analysis import montecarlo

    n = body["layouts"]
    ref = montecarlo.monte_carlo(hand, body["seat"], rules, layouts=n, seed=SETTINGS.seed)
    assert (mc["layouts"], mc["requested"], mc["stopped_early"]) == (n, n, False)
    assert mc["call"] == ref.best_call
    np.testing.assert_allclose(mc["distribution"], ref.playout_dist, atol=1e-12)
    np.testing.assert_allclose(mc["floor_distribution"], ref.dd_dist, atol=1e-12)


def _solve(body: dict[str, Any], data: dict[str, Any]) -> None:
    from callbreak_lab import solver

    rules = _rules(body)
    pos = Position.replay(body["deal"], body.get("plays", ""), rules)
    table = [int(v) for v in solver.dd_table(pos, rules)]
    assert data["dd_table"] == table and data["rules"] == rules.name
    assert data["totals"] == [pos.tricks_won[t] + table[t] for t in range(4)]
    assert data["position"]["record"] == pos.record()
    assert data["position"]["legal"] == [str(c) for c in pos.legal_cards()]
    if body.get("card_values"):
        values = solver.card_values(pos, pos.to_move, rules)
        assert data["card_values"] == {str(c): int(v) for c, v in values.items()}
    else:
        assert data["card_values"] is None
    if body.get("playout"):
        out = solver.playout(pos, rules)
        assert data["playout"]["cards"] == [str(c) for c in out.cards]
        assert data["playout"]["tricks"] == [int(t) for t in out.tricks]
    else:
        assert data["playout"] is None


def _line(body: dict[str, Any], data: dict[str, Any]) -> None:
    from callbreak_lab.analysis import lines

    rules = _rules(body)
    pos = Position.replay(body["deal"], body.get("plays", ""), rules)
    c = body.get("calls")
    if body.get("playout"):
        want = lines.playout_line(pos, rules, calls=c)
    else:
        want = lines.play_line(pos, body.get("seat", 0), rules, calls=c)
    assert data == _json(want.to_dict())


def _advise(body: dict[str, Any], data: dict[str, Any]) -> None:
    from callbreak_lab.analysis.advice import advise
    from callbreak_lab.seat import Knowledge
    from callbreak_lab.seat.reading import advice_assumes, read_cards

    rules, plays, seed = _rules(body), body.get("plays", ""), body.get("seed", 0)
    want = advise(
        body["hand"], plays, rules, body.get("calls"),
        seat=body.get("seat"), layouts=body.get("layouts", 32), seed=seed,
    )  # fmt: skip
    k = Knowledge.at_table(body["hand"], plays, rules, body.get("calls"), seat=body.get("seat"))
    reading = read_cards(k, seed=seed).to_dict() if body.get("cards") else None
    how = {"source": "layouts", "solved": want.distinct, "total": want.distinct, "complete": True}
    assert data == _json(
        {**want.to_dict(), **how, "assumed": advice_assumes(k), "reading": reading}
    )


def _analyse(body: dict[str, Any], data: dict[str, Any]) -> None:
    from callbreak_lab.analysis import review

    deal, plays, rules, c = body["deal"], body["plays"], _rules(body), body.get("calls")
    if body.get("layouts") is None:
        want = review.analyse_play(deal, plays, rules, calls=c).to_dict()
    else:
        n, seed, seats = body["layouts"], body.get("seed", 0), body.get("seats")
        want = review.review_play(
            deal, plays, rules, calls=c, layouts=n, seed=seed, seats=seats
        ).to_dict()
    assert data == _json(want)


def _bid(body: dict[str, Any], data: dict[str, Any]) -> None:
    earlier = bhoos.earlier_calls(body)
    hand = Hand.from_cards(bhoos.parse_bhoos_card(c) for c in body["cards"])
    fc = Bidder().forecast(hand, len(earlier), PRESETS["online"], earlier or None)
    call = calls_.best_call(fc.dist, BID_RULES).call
    standing = bhoos.bid_standing(body)
    if standing is not None:  # the context's round and totals: the call for the match
        from callbreak_lab.bidding.match import match_call_for

        totals, number = standing
        call = match_call_for(fc.dist, len(earlier), BID_RULES, totals=totals, deal_of_match=number,
                              earlier_calls=earlier or None).call  # fmt: skip
    assert data["value"] == max(1, min(8, call))


def _play(body: dict[str, Any], data: dict[str, Any]) -> None:
    """A legal card of ``cards`` (the search is bounded in time: not one card to expect, unless
    the rules leave one)."""
    hand = Hand.from_cards(bhoos.parse_bhoos_card(c) for c in body["cards"])
    trick = [bhoos.parse_bhoos_card(c) for c in body["played"]]
    legal = PRESETS["online"].legal_cards(hand, trick, first_trick=not body["history"])
    written = [c for c in body["cards"] if bhoos.parse_bhoos_card(c) in legal]
    assert data["value"] in written
    if len(written) == 1:
        assert data["value"] == written[0]


EXPECTED: dict[tuple[str, str], Callable[[dict[str, Any], dict[str, Any]], None]] = {
    ("POST", "/v1/evaluate"): _evaluate,
    ("POST", "/v1/solve"): _solve,
    ("POST", "/v1/line"): _line,
    ("POST", "/v1/advise"): _advise,
    ("POST", "/v1/analyse"): _analyse,
    ("POST", "/bid"): _bid,
    ("POST", "/play"): _play,
}
CASES = [
    pytest.param(method, path, body, id=f"{path}-{i}")
    for (method, path), model in BODY_ROUTES.items()
    for i, body in enumerate(_examples(model))
]


def test_every_route_declares_its_answers() -> None:
    """Each route has a response model and documents the errors the service's layers give."""
    assert set(ROUTES) == set(BODY_ROUTES) | set(GET_ROUTES)
    doc = APP.openapi()
    for (method, path), route in ROUTES.items():
        assert route.response_model is not None, (method, path)
        documented = set(doc["paths"][path][method.lower()]["responses"])
        need = {"200", "408", "413"} | ({"415", "422"} if method == "POST" else set())
        assert need <= documented, (method, path, documented)
        if path.startswith("/v1/") and method == "POST":
            assert "503" in documented, (method, path)


@pytest.mark.parametrize(("method", "path", "body"), CASES)
def test_each_example_gets_the_library_s_answer(
    client: TestClient, method: str, path: str, body: dict[str, Any]
) -> None:
    data = _validated(method, path, client.post(path, json=body))
    EXPECTED[method, path](body, data)


def test_each_answer_variant_is_among_the_examples(client: TestClient) -> None:
    """The examples reach each shape an answer takes by the request's options."""
    kinds = {b.get("playout", False) for b in _examples(s.LineRequest)}
    assert kinds == {False, True}
    assert {b.get("calls") is None for b in _examples(s.AdviseRequest)} == {False, True}
    assert {b.get("cards", False) for b in _examples(s.AdviseRequest)} == {False, True}
    assert {b.get("layouts") is None for b in _examples(s.AnalyseRequest)} == {False, True}
    assert {b.get("layouts") is None for b in _examples(s.EvaluateRequest)} == {False, True}


def test_service_routes(client: TestClient) -> None:
    health = _validated("GET", "/healthz", client.get("/healthz"))
    assert health["version"] == __version__ and health["models"] == _json(model_cards())
    assert health["workers"]["size"] == SETTINGS.workers
    rules = _validated("GET", "/v1/rules", client.get("/v1/rules"))
    assert rules["presets"] == {name: r.to_dict() for name, r in PRESETS.items()}
    switches = set(Ruleset.preset("modern").to_dict()) - {"name"}
    assert set(rules["switches"]) == switches
    assert _validated("GET", "/hi", client.get("/hi")) == {"value": "hello"}


def test_an_error_answer_matches_its_model(client: TestClient) -> None:
    """The 4xx answers have the documented shapes: a field's 422 and the body cap's 413."""
    example = _examples(s.LineRequest)[0]
    resp = client.post("/v1/line", json={**example, "plays": "5D 5D"})
    assert resp.status_code == 422
    detail = resp.json()["detail"]
    assert detail[0]["loc"] == ["body", "plays"] and "5D" in detail[0]["msg"]
    big = client.post("/v1/line", json={**example, "deal": "x" * SETTINGS.max_body_bytes})
    assert big.status_code == 413
    assert s.TooLarge.model_validate(big.json()).limit == SETTINGS.max_body_bytes
