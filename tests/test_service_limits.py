"""The service's limits against a real server (``callbreak-lab serve`` on 127.0.0.1, started and
stopped here): slow clients and oversized headers are cut off, one kind of work or one client
cannot take every solver worker, ``/play`` keeps its ``timeBudget`` counted from the request's
arrival, and the two small input checks (repeated ``playerIds``, a JSON body sent as text)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from testdata import BHOOS_DIR, stop_server

from callbreak_lab.arena import bhoos
from callbreak_lab.rules import PRESETS
from callbreak_lab.service.pool import WorkerPool

REPO = Path(__file__).resolve().parents[1]
ONLINE = PRESETS["online"]
#: a position near the end of a deal: its solve takes milliseconds
ENDGAME = {
    "deal": "J2.AJT874.K76.J8 T76.Q6532.QJ.A94 AK54.9.AT982.KT5 Q983.K.543.Q7632",
    "plays": "8C 9C TC QC | 2C JC AC 5C | 4C KC 3C 2S | 6D JD AD 3D | 2D 4D 7D QD | 2H 9H KH AH "
    "| KD 6S 8D 5D | 3H 4S 8S 4H | 6C JS 5H KS | 9D 3S 7H 7S",
    "rules": "online",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _plays() -> list[dict[str, Any]]:
    return list(bhoos.read_requests((BHOOS_DIR / "play_requests.json").read_text()))


def _searched_plays() -> list[dict[str, Any]]:
    """Recorded ``/play`` requests the bot searches (at most 40 cards left in play), the
    earliest in the deal (the slowest to search) first."""
    out = []
    for req in _plays():
        left = 52 - 4 * len(req.get("history") or []) - len(req.get("played") or [])
        if left <= 40 and len(req["cards"]) > 1:
            out.append((-left, len(out), req))
    return [req for _, _, req in sorted(out)]


def _legal(req: dict[str, Any], answer: str) -> bool:
    hand = [bhoos.parse_bhoos_card(c) for c in req["cards"]]
    trick = [bhoos.parse_bhoos_card(c) for c in req.get("played", [])]
    from callbreak_lab.cards import Hand

    legal = ONLINE.legal_cards(Hand.from_cards(hand), trick, first_trick=not req.get("history"))
    return answer in req["cards"] and bhoos.parse_bhoos_card(answer) in legal


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """``callbreak-lab serve`` with two solver workers and short client deadlines."""
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "CALLBREAK_SERVICE_HEADER_TIMEOUT": "1",
        "CALLBREAK_SERVICE_BODY_TIMEOUT": "1",
        "CALLBREAK_SERVICE_TIME_LIMIT": "20",
    }
    argv = [sys.executable, "-m", "callbreak_lab.cli", "serve", "--port", str(port)]
    argv += ["--workers", "2", "--log-level", "warning", "--no-access-log"]
    proc = subprocess.Popen(argv, env=env, cwd=REPO)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=5) as r:
                    workers = json.loads(r.read())["workers"]
                if workers["idle"] == 2:
                    break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.3)
        yield base
    finally:
        stop_server(proc)


def _raw(base: str, chunks: list[tuple[bytes, float]], wait: float = 60.0) -> tuple[bytes, bool]:
    """Send ``chunks`` (bytes, then a pause in seconds) on a new connection; the bytes the server
    sent back until it closed the connection or ``wait`` seconds (the client's patience, far
    beyond the server's deadlines) passed, and whether the server closed it."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as sock:
        for data, pause in chunks:
            try:
                sock.sendall(data)
            except OSError:  # closed on us already
                break
            time.sleep(pause)
        got = b""
        try:
            while True:
                part = sock.recv(65536)
                if not part:
                    return got, True
                got += part
        except TimeoutError:
            return got, False
        except ConnectionResetError:
            return got, True


# --- slow clients and big headers -------------------------------------------------------------


def test_headers_that_never_finish_get_a_408_and_a_close(server: str) -> None:
    got, closed = _raw(server, [(b"POST /v1/solve HTTP/1.1\r\nHost: x\r\nX-Slow: ", 0.0)])
    assert got.startswith(b"HTTP/1.1 408"), got[:100]
    assert b"did not arrive within 1 s" in got
    assert closed  # by the server at its 1 s deadline, not by the client's patience


def test_a_silent_connection_is_closed(server: str) -> None:
    got, closed = _raw(server, [(b"", 0.0)])
    assert got.startswith(b"HTTP/1.1 408") and closed


def test_a_body_that_never_finishes_gets_a_408(server: str) -> None:
    head = b"POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: 100\r\n\r\n"
    got, closed = _raw(server, [(head + b'{"deal": "', 0.0)])
    assert got.startswith(b"HTTP/1.1 408"), got[:100]
    assert b"body did not arrive within 1 s" in got and closed


def test_oversized_headers_get_a_431(server: str) -> None:
    head = b"GET /hi HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n"
    got, _ = _raw(server, [(head, 0.0)], wait=5.0)
    assert got.startswith(b"HTTP/1.1 431"), got[:100]
    assert b"exceed 16384 bytes" in got
    # headers under the cap are fine
    ok = httpx.get(f"{server}/hi", headers={"X-Big": "a" * 8000})
    assert ok.status_code == 200


# --- input checks -------------------------------------------------------------------------------


def test_repeated_player_ids_are_refused(server: str) -> None:
    req = dict(_plays()[-1])
    ids = list(req["playerIds"])
    req["playerIds"] = [ids[0], ids[0], ids[2], ids[3]]
    resp = httpx.post(f"{server}/play", json=req)
    assert resp.status_code == 422
    (err,) = resp.json()["detail"]
    assert err["loc"][-1] == "playerIds" and "appears twice" in err["msg"]


@pytest.mark.parametrize("path", ["/v1/evaluate", "/play", "/v1/solve"])
def test_json_sent_as_text_names_the_content_type(server: str, path: str) -> None:
    body = json.dumps({"hand": "AKQ2.T98.765.432", "seat": 0}).encode()
    resp = httpx.post(f"{server}{path}", content=body, headers={"Content-Type": "text/plain"})
    assert resp.status_code == 415
    assert "Content-Type is 'text/plain'" in resp.json()["detail"]
    assert "application/json" in resp.json()["detail"]


# --- shares of the solver workers --------------------------------------------------------------


@pytest.mark.slow  # a pool of real worker processes: make test
def test_pool_shares_workers_between_kinds_and_clients() -> None:
    """Three long bot jobs of one client and a quick solve of another: the solve runs at once
    on the worker the bot kind may not take, so it is answered while the first bot job still
    runs (without the shares it would wait for one to end)."""

    async def scenario() -> tuple[int, list[float]]:
        pool = WorkerPool(2)
        await pool.start(60)
        try:
            t0 = time.monotonic()
            bots = [
                asyncio.create_task(pool.run("ping", {"delay": 1.0}, 30, kind="bot", client="a"))
                for _ in range(3)
            ]
            await asyncio.sleep(0.05)
            assert await pool.run("ping", {}, 30, kind="solve", client="b") == "pong"
            bots_done = sum(b.done() for b in bots)
            ends = []
            for b in bots:
                await b
                ends.append(time.monotonic() - t0)
            return bots_done, ends
        finally:
            await pool.close()

    bots_done, ends = asyncio.run(scenario())
    assert bots_done == 0
    # the bot kind holds one of the two workers: its jobs run one after another (a lower bound:
    # each sleeps its full second)
    assert ends[-1] > 3 * 1.0 - 0.2


@pytest.mark.slow  # a pool of real worker processes: make test
def test_one_client_cannot_take_every_worker() -> None:
    """Three long jobs of one client and a quick one of another: the other client's job is
    answered while the first long job still runs."""

    async def scenario() -> int:
        pool = WorkerPool(2)
        await pool.start(60)
        try:
            longs = [
                asyncio.create_task(pool.run("ping", {"delay": 1.0}, 30, kind="long", client="a"))
                for _ in range(3)
            ]
            await asyncio.sleep(0.05)
            await pool.run("ping", {}, 30, kind="solve", client="b")
            done = sum(t.done() for t in longs)
            await asyncio.gather(*longs)
            return done
        finally:
            await pool.close()

    assert asyncio.run(scenario()) == 0


def _early_plays() -> list[dict[str, Any]]:
    """Recorded ``/play`` requests in the first trick or two (more than 44 cards left in play)
    with a choice of cards: each of their searches has 200 layouts of a nearly full deal to
    solve, far more than fits in the bot's longest search (``bot_max_search_ms``), so each runs
    until its budget ends."""
    out = []
    for req in _plays():
        left = 52 - 4 * len(req.get("history") or []) - len(req.get("played") or [])
        if left > 44 and sum(_legal(req, c) for c in req["cards"]) > 1:
            out.append(req)
    return out


@pytest.mark.timeout(120)
@pytest.mark.slow
def test_long_bot_budgets_do_not_hold_up_a_quick_solve(server: str) -> None:
    """Eight ``/play`` requests with a ten-minute ``timeBudget`` in flight, then an endgame
    ``/v1/solve`` from another client: the solve (milliseconds of search) is answered while
    plays are still in flight (one searching until its budget ends on the worker the bot
    kind may take, the others queued behind it); without the pool's shares it waited for a
    play's search to end. Every play is legal."""
    plays = _early_plays()[:8]
    assert len(plays) == 8

    # the solve comes from another address (127.0.0.2 is loopback too): another client
    other = httpx.AsyncHTTPTransport(local_address="127.0.0.2")

    async def scenario() -> tuple[list[bool], list[httpx.Response]]:
        async with (
            httpx.AsyncClient(base_url=server, timeout=60) as c,
            httpx.AsyncClient(base_url=server, timeout=60, transport=other) as d,
        ):
            tasks = [
                asyncio.create_task(c.post("/play", json={**p, "timeBudget": 600_000}))
                for p in plays
            ]
            await asyncio.sleep(0.3)
            r = await d.post("/v1/solve", json=ENDGAME)
            assert r.status_code == 200, r.text
            done = [t.done() for t in tasks]
            return done, list(await asyncio.gather(*tasks))

    done, answers = asyncio.run(scenario())
    # the eight plays run one after another on the bot's worker, each searching up to the
    # bot's longest search: answered after a solve that waited its turn, all would be done
    assert not all(done), done
    assert any(a.headers["x-callbreak-choice"].startswith("search") for a in answers)
    for p, a in zip(plays, answers, strict=True):
        assert a.status_code == 200 and _legal(p, a.json()["value"])


# --- the bot's time budget ------------------------------------------------------------------------


def test_play_budget_counts_from_the_first_byte(server: str) -> None:
    """A ``/play`` whose body comes 0.45 s after its headers, with a 0.5 s budget: the server
    counts the budget from the first byte, so the 0.45 s spent receiving leaves less than its
    margin and it answers with the cheap card at once, no search (counted from the body, 0.35 s
    would remain and it would search)."""
    choices = (p for p in _searched_plays() if sum(_legal(p, c) for c in p["cards"]) > 1)
    req = {**next(choices), "timeBudget": 500}  # a choice to make: not a forced card
    body = json.dumps(req).encode()
    head = (
        "POST /play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    got, _ = _raw(server, [(head, 0.45), (body, 0.0)])
    assert got.startswith(b"HTTP/1.1 200"), got[:200]
    head_part, _, body_part = got.partition(b"\r\n\r\n")
    headers = dict(line.decode().lower().split(": ", 1) for line in head_part.split(b"\r\n")[1:])
    assert _legal(req, json.loads(body_part)["value"])
    assert headers["x-callbreak-choice"] == "heuristic", headers
    # the clock started at the headers: counted from the body it would read a few ms (the
    # server may read the headers a little after they were sent, so not the full 450)
    assert float(headers["x-callbreak-elapsed-ms"]) >= 300


@pytest.mark.slow
@pytest.mark.parametrize("budget_ms", [1000, 300])
def test_a_burst_of_plays_is_answered_legally(server: str, budget_ms: int) -> None:
    """The 61 recorded requests at once: every answer legal, each with the time the server
    took from the request's arrival (``x-callbreak-elapsed-ms``), printed for the record beside
    the client's own clock. Whether every answer is ready inside its budget is a matter of the
    machine's speed and load: ``benchmarks/service.py --endpoints burst`` measures it."""
    plays = _plays()

    async def one(c: httpx.AsyncClient, req: dict[str, Any]) -> tuple[float, float, str]:
        t0 = time.monotonic()
        r = await c.post("/play", json={**req, "timeBudget": budget_ms})
        assert r.status_code == 200, r.text
        served = float(r.headers["x-callbreak-elapsed-ms"])
        return served, (time.monotonic() - t0) * 1000, r.json()["value"]

    async def burst() -> list[tuple[float, float, str]]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(base_url=server, timeout=30, limits=limits) as c:
            return list(await asyncio.gather(*(one(c, p) for p in plays)))

    results = asyncio.run(burst())
    assert all(_legal(p, card) for p, (_, _, card) in zip(plays, results, strict=True))
    served = max(r[0] for r in results)
    seen = max(r[1] for r in results)
    print(f"budget {budget_ms} ms: slowest answer {served:.0f} ms served, {seen:.0f} ms seen")
