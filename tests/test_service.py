"""The analysis endpoints of the HTTP service: content, validation errors, body cap, time bound."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from testdata import stop_server

from callbreak_lab import __version__
from callbreak_lab.bidding import calls
from callbreak_lab.cards import Deal, check_seat
from callbreak_lab.errors import UsageError
from callbreak_lab.game import Position
from callbreak_lab.rules import PRESETS, Ruleset
from callbreak_lab.service import Settings, create_app
from callbreak_lab.service.pool import JobTimeout, WorkerPool

HAND = "AKQ2.T98.765.432"
DEAL = Deal.random(seed=11)


def _late_record(deal: Deal, rules: Ruleset, cards: int) -> str:
    """The first ``cards`` cards of a legal play of ``deal`` (lowest legal card each time)."""
    pos = Position(deal, rules)
    while len(pos.history) < cards:
        pos.play(pos.legal_cards().lowest())
    return pos.record()


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(workers=2))) as c:
        yield c


def _error(resp, field: str) -> str:  # type: ignore[no-untyped-def]
    """The message of the 422 error about ``field``."""
    assert resp.status_code == 422, resp.text
    for err in resp.json()["detail"]:
        if err["loc"][-1] == field or field in err["loc"]:
            return str(err["msg"])
    raise AssertionError(f"no error about {field}: {resp.json()}")


# --- service endpoints ------------------------------------------------------------------------


def test_rules_lists_presets_and_switches(client: TestClient) -> None:
    data = client.get("/v1/rules").json()
    assert set(data["presets"]) == set(PRESETS)
    for name, preset in PRESETS.items():
        assert data["presets"][name] == preset.to_dict()
    assert data["presets"]["online"]["void_rule"] == "win_only"
    assert "must_beat" in data["switches"]


def test_healthz_reports_version_models_and_workers(client: TestClient) -> None:
    data = client.get("/healthz").json()
    assert data["status"] == "ok"
    assert data["version"] == __version__
    assert set(data["models"]) == {"modern", "strict", "online", "home_pagat"}
    for card in data["models"].values():
        assert card == "absent" or isinstance(card, dict)
    if data["models"]["online"] == "absent":
        assert data["bid_source"].startswith("fallback:")
    assert data["workers"]["size"] == 2


def test_docs_and_openapi(client: TestClient) -> None:
    assert "swagger" in client.get("/docs").text.lower()
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/v1/evaluate", "/v1/solve", "/v1/line", "/v1/analyse", "/v1/rules", "/play"):
        assert p in paths


# --- evaluate ---------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["modern", "home", {"name": "pagat", "must_beat": True}])
def test_evaluate_matches_the_call_decision(client: TestClient, rules: object) -> None:
    resp = client.post("/v1/evaluate", json={"hand": HAND, "seat": 1, "rules": rules})
    assert resp.status_code == 200, resp.text
    data = resp.json()
    ruleset = Ruleset.preset(rules) if isinstance(rules, str) else Ruleset.from_dict(rules)
    assert data["rules"] == ruleset.name
    dist = np.array(data["distribution"])
    assert dist.shape == (14,) and abs(dist.sum() - 1) < 1e-6
    assert ruleset.min_call <= data["call"] <= ruleset.max_call
    expected = calls.expected_scores(dist, ruleset)
    made = calls.make_probabilities(dist, ruleset)
    rows = data["calls"]
    assert [r["call"] for r in rows] == list(range(ruleset.min_call, ruleset.max_call + 1))
    np.testing.assert_allclose([r["expected_tenths"] for r in rows], expected, atol=1e-6)
    np.testing.assert_allclose([r["make_probability"] for r in rows], made, atol=1e-9)
    assert data["call"] == calls.best_call(dist, ruleset).call
    assert data["expected_tenths"] == pytest.approx(max(expected))
    if data["floor_distribution"] is not None:
        assert abs(sum(data["floor_distribution"]) - 1) < 1e-6


def test_evaluate_accepts_every_hand_notation(client: TestClient) -> None:
    a = client.post("/v1/evaluate", json={"hand": HAND, "seat": 0}).json()
    b = client.post("/v1/evaluate", json={"hand": "♠AKQ2 ♥T98 ♦765 ♣432", "seat": 0}).json()
    assert a == b and a["hand"] == HAND


def test_evaluate_monte_carlo_check(client: TestClient) -> None:
    resp = client.post("/v1/evaluate", json={"hand": HAND, "seat": 0, "layouts": 4})
    assert resp.status_code == 200, resp.text
    mc = resp.json()["monte_carlo"]
    assert mc["layouts"] == 4
    assert abs(sum(mc["distribution"]) - 1) < 1e-9 and abs(sum(mc["floor_distribution"]) - 1) < 1e-9
    assert 1 <= mc["call"] <= 13
    assert mc["mean_floor"] <= mc["mean_tricks"] + 13


def test_evaluate_after_earlier_calls(client: TestClient) -> None:
    body = {"hand": HAND, "seat": 2, "rules": "strict", "earlier_calls": [3, 4]}
    data = client.post("/v1/evaluate", json=body).json()
    assert data["earlier_calls"] == [3, 4]
    plain = client.post("/v1/evaluate", json={"hand": HAND, "seat": 2, "rules": "strict"}).json()
    assert plain["earlier_calls"] is None and not plain["calls_used"]
    if data["source"].startswith("model:"):  # the shipped strict model is call-conditioned
        from callbreak_lab.bidding.model import load_model, recommend_call

        conditioned = load_model("strict").conditioned_ is not None
        assert data["calls_used"] == conditioned
        rec = recommend_call(HAND, 2, "strict", earlier_calls=[3, 4])
        np.testing.assert_allclose(data["distribution"], rec.distribution, atol=1e-12)
        if conditioned:
            assert data["distribution"] != plain["distribution"]
    # the modern model does not condition on calls: they are accepted, checked and unused
    modern = {"hand": HAND, "seat": 1, "earlier_calls": [5]}
    got = client.post("/v1/evaluate", json=modern).json()
    assert got["earlier_calls"] == [5] and not got["calls_used"]


@pytest.mark.slow
def test_monte_carlo_cap(client: TestClient) -> None:
    resp = client.post("/v1/evaluate", json={"hand": HAND, "seat": 0, "layouts": 501})
    assert "500" in _error(resp, "layouts")
    with TestClient(create_app(Settings(workers=1, max_monte_carlo=10))) as small:
        resp = small.post("/v1/evaluate", json={"hand": HAND, "seat": 0, "layouts": 11})
        assert _error(resp, "layouts") == "at most 10 layouts, got 11"


@pytest.mark.slow
def test_monte_carlo_admission_by_time_bound() -> None:
    """A Monte Carlo check that cannot finish inside the time bound is refused at once with the
    limit and the reason, not run until its worker is killed (20 s lost, a worker held)."""
    cfg = Settings(workers=1, time_limit=30.0, monte_carlo_sample_ms=1500.0)
    assert cfg.monte_carlo_cap == 10  # half of 30 s at 1.5 s a sample (two run well inside it)
    with TestClient(create_app(cfg)) as small:
        before = small.get("/healthz").json()["workers"]
        resp = small.post("/v1/evaluate", json={"hand": HAND, "seat": 0, "layouts": 11})
        # refused before any worker ran it: no job completed or killed meanwhile
        assert small.get("/healthz").json()["workers"] == before
        message = _error(resp, "layouts")
        assert message.startswith("at most 10 layouts, got 11: a layout takes about 1500 ms")
        assert "30 s time bound" in message
        ok = small.post("/v1/evaluate", json={"hand": HAND, "seat": 0, "layouts": 2})
        assert ok.status_code == 200 and ok.json()["monte_carlo"]["layouts"] == 2
    # the defaults: what fits in half of 20 s
    default = Settings()
    assert default.monte_carlo_cap == int(20_000 * 0.5 // default.monte_carlo_sample_ms)


@pytest.mark.slow
def test_monte_carlo_stops_starting_samples_at_its_time_share() -> None:
    """A sample's solve ranges from milliseconds to seconds, so an admitted count can still
    take too long: no sample is started past the time share, and the answer says how many of
    the samples asked for were solved, inside the time bound (no 503, no killed worker)."""
    # share: 2 s of a 20 s bound (the rest is room for a loaded machine); 500 full-deal
    # samples take longer than 2 s
    cfg = Settings(workers=1, time_limit=20.0, monte_carlo_share=0.1, monte_carlo_sample_ms=1.0)
    with TestClient(create_app(cfg)) as small:
        resp = small.post("/v1/evaluate", json={"hand": HAND, "seat": 0, "layouts": 500})
        assert resp.status_code == 200, resp.text  # inside the time bound: no 503
        mc = resp.json()["monte_carlo"]
        assert mc["requested"] == 500 and mc["stopped_early"] and 1 <= mc["layouts"] < 500
        assert small.get("/healthz").json()["workers"]["killed"] == 0
        assert abs(sum(mc["distribution"]) - 1) < 1e-9
        ok = small.post(
            "/v1/evaluate", json={"hand": HAND, "seat": 0, "monte_carlo": 1}
        ).json()  # its former name
        assert ok["monte_carlo"]["layouts"] == 1 and not ok["monte_carlo"]["stopped_early"]


LEAN_BODIES = [
    {"hand": HAND, "seat": 0},
    {"hand": "♠AKQ2 ♥T98 ♦765 ♣432", "seat": 2, "rules": "online"},
    {"hand": HAND, "seat": 3, "rules": "pagat+must_beat"},
    {"hand": HAND, "seat": 1, "rules": {"scoring": "exact_or_one_bonus", "min_call": 2}},
    {"hand": HAND, "seat": "1", "rules": "home"},
    {"hand": HAND, "seat": 1.0},
    {"hand": HAND, "seat": True},
    {"hand": HAND, "seat": 0, "monte_carlo": 0},
    {"hand": "AKQ2.T98.765.43", "seat": 0},
    {"hand": HAND, "seat": 4},
    {"hand": HAND, "seat": 0, "rules": "nope"},
    {"hand": HAND, "seat": 0, "extra": 1},
    {"hand": HAND, "seat": 2, "rules": "strict", "earlier_calls": [3, 4]},
    {"hand": HAND, "seat": 2, "rules": "strict", "earlier_calls": [1, 4]},
    {"hand": HAND, "seat": 1, "earlier_calls": [3, 4]},
    [HAND, 0],
    None,
]


@pytest.fixture(scope="module")
def routed() -> Iterator[TestClient]:
    """A service answering every evaluate request through FastAPI's router."""
    with TestClient(create_app(Settings(workers=1, lean_evaluate=False))) as c:
        yield c


@pytest.mark.parametrize("body", LEAN_BODIES)
def test_lean_evaluate_answers_exactly_like_the_route(
    client: TestClient, routed: TestClient, body: object
) -> None:
    lean, full = client.post("/v1/evaluate", json=body), routed.post("/v1/evaluate", json=body)
    assert (lean.status_code, lean.json()) == (full.status_code, full.json())
    assert lean.headers["content-type"] == full.headers["content-type"]


@pytest.mark.parametrize(
    ("content", "ctype"),
    [
        (b'{"hand": "AKQ2.T98.765.432", "seat": 0}', "text/plain"),
        (b'{"hand": "AKQ2.T98.765.432", "seat": 0}', "application/json; charset=utf-8"),
        (b'{"hand": "AKQ2.T98.765.432", "seat": 0}', "Application/JSON;charset=UTF-8"),
        (b'{"hand": "AKQ2.T98.765.432", "seat": 0}', "application/vnd.api+json"),
        ('{"hand": "AKQ2.T98.765.432", "seat": 0}'.encode("utf-16"), "application/json"),
        (b"{not json", "application/json"),
        (b"[" * 1000 + b"]" * 1000, "application/json"),  # too deep for json.loads: was a 500
        (b'{"hand": ' + b"[" * 5000 + b"]" * 5000 + b', "seat": 0}', "application/json"),
        (b'{"hand": "\xff", "seat": 0}', "application/json"),
    ],
)
def test_lean_evaluate_same_answer_for_odd_bodies(
    client: TestClient, routed: TestClient, content: bytes, ctype: str
) -> None:
    headers = {"content-type": ctype}
    lean = client.post("/v1/evaluate", content=content, headers=headers)
    full = routed.post("/v1/evaluate", content=content, headers=headers)
    assert (lean.status_code, lean.json()) == (full.status_code, full.json())


def test_lean_evaluate_takes_only_plain_valid_requests(client: TestClient) -> None:
    from callbreak_lab.service.fastpath import lean_evaluate

    svc = client.app.state.service  # type: ignore[attr-defined]
    answer = lean_evaluate(svc, b'{"hand": "AKQ2.T98.765.432", "seat": 0, "rules": "strict"}')
    assert answer is not None and b'"rules":"strict"' in answer
    for body in (
        b'{"hand": "AKQ2", "seat": 0}',
        b'{"hand": "AKQ2.T98.765.432", "seat": 0, "monte_carlo": 5}',
        b"[]",
        b"\xff",
        b"[" * 1000 + b"]" * 1000,  # too deep for json.loads (a RecursionError)
    ):
        assert lean_evaluate(svc, body) is None
    deep = client.post(
        "/v1/evaluate",
        content=b"[" * 1000 + b"]" * 1000,
        headers={"content-type": "application/json"},
    )
    assert deep.status_code == 422 and "cannot be read as JSON" in deep.text


# --- validation -------------------------------------------------------------------------------

BAD = [
    ("/v1/evaluate", {"hand": "AKQ2.T98.765.43", "seat": 0}, "hand", "13 cards, got 12"),
    ("/v1/evaluate", {"hand": "AKQA.T98.765.432", "seat": 0}, "hand", "A"),
    ("/v1/evaluate", {"hand": HAND, "seat": 4}, "seat", "less than or equal to 3"),
    ("/v1/evaluate", {"hand": HAND, "seat": -1}, "seat", "greater than or equal to 0"),
    # no coercion (true was evaluated as seat 1, "1" and 1.0 as 1): the library refuses them too
    ("/v1/evaluate", {"hand": HAND, "seat": True}, "seat", "valid integer"),
    ("/v1/evaluate", {"hand": HAND, "seat": "1"}, "seat", "valid integer"),
    ("/v1/evaluate", {"hand": HAND, "seat": 1.0}, "seat", "valid integer"),
    ("/v1/line", {"deal": str(DEAL), "seat": True}, "seat", "valid integer"),
    ("/v1/line", {"deal": str(DEAL), "calls": [True, 3, 3, 3]}, "calls", ""),
    ("/v1/solve", {"deal": str(DEAL), "playout": "yes"}, "playout", "valid boolean"),
    ("/v1/evaluate", {"hand": HAND, "seat": 0, "rules": "nope"}, "rules", "unknown ruleset"),
    ("/v1/evaluate", {"hand": HAND, "seat": 0, "rules": {"colour": 1}}, "colour", "Extra"),
    ("/v1/evaluate", {"hand": HAND, "seat": 0, "rules": {"min_call": 9, "max_call": 3}}, "rules",
     "above max_call"),
    ("/v1/evaluate", {"seat": 0}, "hand", "Field required"),
    ("/v1/evaluate", {"hand": HAND, "seat": 1, "earlier_calls": [3, 4]}, "earlier_calls",
     "takes 1 earlier call(s), got 2"),
    ("/v1/evaluate", {"hand": HAND, "seat": 1, "rules": "strict", "earlier_calls": [1]},
     "earlier_calls", "whole number 2..13, got 1"),
    ("/v1/evaluate", {"hand": HAND, "seat": 1, "earlier_calls": [3.0]}, "earlier_calls",
     "valid integer"),
    ("/v1/solve", {"deal": "AKQ2.T98.765.432 " * 4}, "deal", "in both seat"),
    ("/v1/solve", {"deal": str(DEAL), "plays": "AS 2S |"}, "plays", "'|' must separate"),
    ("/v1/solve", {"deal": str(DEAL), "plays": "ZZ"}, "plays", "ZZ"),
    ("/v1/solve", {"deal": str(DEAL), "plays": "2C", "rules": "online"}, "plays", "does not hold"),
    ("/v1/line", {"deal": str(DEAL), "seat": 7}, "seat", "less than or equal to 3"),
    ("/v1/line", {"deal": str(DEAL), "calls": "3,4,2,14"}, "calls", "14"),
    ("/v1/line", {"deal": str(DEAL), "calls": "3,4"}, "calls", ""),
    ("/v1/analyse", {"deal": str(DEAL)}, "plays", "Field required"),
    ("/v1/analyse", {"deal": str(DEAL), "plays": " "}, "plays", "no card is played"),
    ("/v1/analyse", {"deal": str(DEAL), "plays": "AS", "rules": "strict+min_call=0"}, "rules",
     "min_call"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "field", "text"), BAD)
def test_validation_errors_name_the_field(
    client: TestClient, path: str, body: dict, field: str, text: str
) -> None:
    message = _error(client.post(path, json=body), field)
    assert text in message


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/evaluate", b'{"hand": "\\ud800", "seat": 0}', "hand"),
        ("/v1/solve", b'{"deal": "\\ud800"}', "deal"),
    ],
)
def test_lone_surrogate_names_the_field(
    client: TestClient, path: str, body: bytes, field: str
) -> None:
    """Such input was answered "'utf-8' codec can't encode character '\\ud800' in position
    152" about the whole body: pydantic's error echoes the input, which JSON cannot encode."""
    resp = client.post(path, content=body, headers={"content-type": "application/json"})
    assert "valid string" in _error(resp, field)


def test_duplicate_card_message(client: TestClient) -> None:
    resp = client.post("/v1/evaluate", json={"hand": "AS AS KS", "seat": 0})
    assert "AS" in _error(resp, "hand")


def test_not_json_is_422(client: TestClient) -> None:
    resp = client.post(
        "/v1/solve", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert resp.status_code == 422


# --- body cap ---------------------------------------------------------------------------------


def test_body_cap_with_content_length(client: TestClient) -> None:
    body = b'{"hand": "' + b"x" * 70_000 + b'", "seat": 0}'
    resp = client.post("/v1/evaluate", content=body, headers={"content-type": "application/json"})
    assert resp.status_code == 413
    assert "limit is 65536 bytes" in resp.json()["detail"]


def test_body_cap_when_chunked(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"hand": "'
        for _ in range(20):
            yield b"x" * 5000
        yield b'", "seat": 0}'

    resp = client.post(
        "/v1/evaluate", content=chunks(), headers={"content-type": "application/json"}
    )
    assert resp.status_code == 413
    assert "limit" in resp.json()["detail"]


# --- solve, line, analyse ---------------------------------------------------------------------


def test_solve_matches_the_solver(client: TestClient) -> None:
    from callbreak_lab import solver

    rules = Ruleset.preset("online")
    record = _late_record(DEAL, rules, 22)
    resp = client.post(
        "/v1/solve",
        json={"deal": str(DEAL), "plays": record, "rules": "online", "playout": True,
              "card_values": True},
    )  # fmt: skip
    assert resp.status_code == 200, resp.text
    data = resp.json()
    pos = Position.replay(DEAL, record, rules)
    assert data["dd_table"] == [int(v) for v in solver.dd_table(pos, rules)]
    assert data["totals"] == [pos.tricks_won[t] + data["dd_table"][t] for t in range(4)]
    assert data["position"]["to_move"] == pos.to_move
    assert sum(data["playout"]["tricks"]) == 13
    assert len(data["playout"]["cards"]) == 52 - 22
    values = solver.card_values(pos, pos.to_move, rules)
    assert data["card_values"] == {str(c): int(v) for c, v in values.items()}
    assert set(data["card_values"]) == set(data["position"]["legal"])


def test_solve_whole_deal(client: TestClient) -> None:
    from callbreak_lab import solver

    deal = Deal.random(seed=5)  # about 1 s to solve (full deals range from ms to tens of s)
    resp = client.post("/v1/solve", json={"deal": str(deal), "rules": "modern"})
    assert resp.status_code == 200, resp.text
    expected = solver.dd_table(Position(deal, "modern"), Ruleset.preset("modern"))
    assert resp.json()["dd_table"] == [int(v) for v in expected]


def test_solve_finished_deal(client: TestClient) -> None:
    record = _late_record(DEAL, Ruleset.preset("modern"), 52)
    data = client.post("/v1/solve", json={"deal": str(DEAL), "plays": record}).json()
    assert data["dd_table"] == [0, 0, 0, 0] and sum(data["totals"]) == 13


def test_line_of_a_finished_deal_is_422(client: TestClient) -> None:
    record = _late_record(DEAL, Ruleset.preset("modern"), 52)
    for playout in (False, True):
        body = {"deal": str(DEAL), "plays": record, "seat": 1, "playout": playout}
        assert "no card is left to play" in _error(client.post("/v1/line", json=body), "plays")


def test_line_and_playout_line(client: TestClient) -> None:
    from callbreak_lab.analysis import lines

    rules = Ruleset.preset("online")  # the default rules
    record = _late_record(DEAL, rules, 32)
    pos = Position.replay(DEAL, record, rules)
    body = {"deal": str(DEAL), "plays": record, "seat": 2, "calls": "3,4,2,3"}
    resp = client.post("/v1/line", json=body)
    assert resp.status_code == 200, resp.text
    assert resp.json() == lines.play_line(pos.copy(), 2, rules, calls="3,4,2,3").to_dict()
    resp = client.post("/v1/line", json={**body, "playout": True})
    assert resp.status_code == 200, resp.text
    assert resp.json() == lines.playout_line(pos.copy(), rules, calls="3,4,2,3").to_dict()


def test_analyse(client: TestClient) -> None:
    from callbreak_lab.analysis import review

    rules = Ruleset.preset("online")  # the default rules
    plays = _late_record(DEAL, rules, 6)
    resp = client.post("/v1/analyse", json={"deal": str(DEAL), "plays": plays})
    assert resp.status_code == 200, resp.text
    assert resp.json() == review.analyse_play(DEAL, plays, rules).to_dict()


# --- time bound -------------------------------------------------------------------------------


def test_time_bound_returns_503_and_the_server_goes_on() -> None:
    with TestClient(create_app(Settings(workers=1, time_limit=0.002))) as c:
        resp = c.post("/v1/solve", json={"deal": str(DEAL), "playout": True, "card_values": True})
        assert resp.status_code == 503
        assert "time bound" in resp.json()["detail"]
        health = c.get("/healthz").json()
        assert health["status"] == "ok" and health["workers"]["killed"] == 1
        assert c.post("/v1/evaluate", json={"hand": HAND, "seat": 0}).status_code == 200
        assert c.get("/healthz").json()["workers"]["alive"] == 1  # replaced


@pytest.mark.slow
def test_pool_kills_a_runaway_job_and_replaces_the_worker() -> None:
    async def scenario() -> tuple[float, str, int]:
        pool = WorkerPool(1)
        await pool.start(60)
        try:
            t0 = time.monotonic()
            with pytest.raises(JobTimeout, match="time bound"):
                await pool.run("ping", {"delay": 30.0}, 0.3)
            elapsed = time.monotonic() - t0
            answer = await pool.run("ping", {"delay": 0.0}, 60)
            return elapsed, answer, pool.killed
        finally:
            await pool.close()

    elapsed, answer, killed = asyncio.run(scenario())
    print(f"stopped after {elapsed:.2f} s (bound 0.3 s, the job's own delay 30 s)")
    assert answer == "pong" and killed == 1


def test_serve_command_rejects_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    from callbreak_lab.cli import main

    assert main(["serve", "--port", "0"]) == 2
    assert "--port must be 1..65535" in capsys.readouterr().err
    assert main(["serve", "--workers", "0"]) == 2


def test_settings_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALLBREAK_SERVICE_WORKERS", "3")
    monkeypatch.setenv("CALLBREAK_SERVICE_TIME_LIMIT", "2.5")
    s = Settings.from_env()
    assert s.workers == 3 and s.time_limit == 2.5
    assert s.lean_evaluate is True
    monkeypatch.setenv("CALLBREAK_SERVICE_LEAN_EVALUATE", "false")
    assert Settings.from_env().lean_evaluate is False
    monkeypatch.setenv("CALLBREAK_SERVICE_LEAN_EVALUATE", "maybe")
    with pytest.raises(UsageError, match="CALLBREAK_SERVICE_LEAN_EVALUATE"):
        Settings.from_env()
    monkeypatch.delenv("CALLBREAK_SERVICE_LEAN_EVALUATE")
    monkeypatch.setenv("CALLBREAK_SERVICE_WORKERS", "many")
    with pytest.raises(UsageError, match="CALLBREAK_SERVICE_WORKERS"):
        Settings.from_env()
    # well-typed but unusable values are refused too (0 workers was silently run as 1; a
    # negative time_limit killed every solve with a 503)
    monkeypatch.setenv("CALLBREAK_SERVICE_WORKERS", "0")
    with pytest.raises(
        UsageError, match=r"workers must be a whole number 1\.\.256, got 0 \(set by"
    ):
        Settings.from_env()


@pytest.mark.parametrize(
    "changes",
    [
        {"workers": 0},
        {"workers": -2},
        {"time_limit": -1.0},
        {"time_limit": float("nan")},
        {"time_limit": 0},
        {"warmup_timeout": float("nan")},
        {"bot_budget_fraction": 1.5},
        {"max_body_bytes": 0},
        {"default_time_budget_ms": 0},
        {"bot_search_max_cards": 53},
        {"max_monte_carlo": -1},
        {"seed": -1},
        {"workers": True},
        {"workers": 10**6},  # a million solver processes
    ],
)
def test_settings_refuse_unusable_bounds(changes: dict[str, object]) -> None:
    (name,) = changes
    with pytest.raises(UsageError, match=f"Settings.{name} must be"):
        Settings(**changes)  # type: ignore[arg-type]


def _bug() -> None:
    int("x")  # a ValueError that is a bug of ours, not the client's input


def test_library_errors_are_422_and_other_exceptions_500() -> None:
    app = create_app(Settings(workers=1))
    app.add_api_route("/test/seat", lambda: check_seat(7))
    app.add_api_route("/test/bug", _bug)
    c = TestClient(app, raise_server_exceptions=False)  # no `with`: no worker pool started
    resp = c.get("/test/seat")
    assert resp.status_code == 422
    assert resp.json()["detail"][0]["msg"] == "seat must be 0..3, got 7"
    assert c.get("/test/bug").status_code == 500


def test_a_worker_tells_library_errors_from_bugs(monkeypatch: pytest.MonkeyPatch) -> None:
    from callbreak_lab.service import jobs, pool

    monkeypatch.setattr(jobs, "warm_up", lambda: None)
    monkeypatch.setattr(jobs, "bad_seat", lambda: check_seat(7), raising=False)
    monkeypatch.setattr(jobs, "bug", _bug, raising=False)
    parent, child = multiprocessing.Pipe()
    worker = threading.Thread(target=pool._worker_main, args=(child,))
    worker.start()
    try:
        assert parent.recv() == ("ready", None)
        parent.send(("bad_seat", {}))
        assert parent.recv() == ("value_error", "seat must be 0..3, got 7")  # a 422
        parent.send(("bug", {}))
        status, message = parent.recv()
        assert status == "error" and message.startswith("ValueError")  # a 500
    finally:
        parent.send(None)
        worker.join(10)


@pytest.mark.slow
def test_serve_command_with_two_http_workers_answers_over_tcp(tmp_path: Path) -> None:
    """`callbreak-lab serve --http-workers 2` really serves: every process gets the solver
    settings given on the command line (handed over by environment) and answers on 127.0.0.1."""
    import json
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "callbreak_lab.cli", "serve", "--port", str(port)]
    cmd += ["--http-workers", "2", "--workers", "1", "--time-limit", "7"]
    cmd += ["--no-access-log"]  # info level, but no line per request
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:  # the server process keeps its own copy of the handle
        server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as r:
                    health = json.load(r)
                break
            except OSError:
                assert server.poll() is None, "the server exited"
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.3)
        assert health["status"] == "ok" and health["workers"]["size"] == 1
        body = json.dumps({"hand": HAND, "seat": 2, "rules": "online"}).encode()
        req = urllib.request.Request(
            f"{base}/v1/evaluate", data=body, headers={"Content-Type": "application/json"}
        )
        for _ in range(4):  # connections spread over both processes
            with urllib.request.urlopen(req, timeout=10) as r:
                answer = json.load(r)
            assert answer["seat"] == 2 and 1 <= answer["call"] <= 13
    finally:
        stop_server(server)
    text = log_path.read_text(errors="replace")
    assert "Uvicorn running" in text or "Started server process" in text, text
    assert "/v1/evaluate" not in text and "/healthz" not in text, text
