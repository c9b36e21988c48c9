"""The arena against bots speaking the Bhoos protocol over HTTP on 127.0.0.1: a small server of
the test's own that plays ``simple`` through the protocol (it must play exactly like the
in-process ``simple``), servers that answer badly or late (faults, and the game goes on), and
the project's own service bot started as a separate process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from testdata import stop_server

from callbreak_lab import arena
from callbreak_lab.arena import bhoos
from callbreak_lab.arena.players import simple_call, simple_card
from callbreak_lab.cards import Hand
from callbreak_lab.rules import PRESETS

REPO = Path(__file__).resolve().parents[1]
ONLINE = PRESETS["online"]


class ProtocolBot(BaseHTTPRequestHandler):
    """``/hi``, ``/bid`` and ``/play`` of the starter bot's strategy (``simple``), or a faulty
    variant chosen by the server's ``mode``."""

    server: BotServer

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _answer(self, payload: Any, raw: str | None = None) -> None:
        body = (raw if raw is not None else json.dumps(payload)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer({"value": "hello"})

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, request))
        hand = Hand.from_cards(bhoos.parse_bhoos_card(c) for c in request["cards"])
        mode = self.server.mode
        if mode == "slow" and self.path == "/bid":
            time.sleep(2.1 if len(self.server.requests) == 1 else 0.65)
        if self.path == "/bid":
            if mode == "garbage":
                self._answer(None, raw="three tricks please")
            else:
                self._answer({"value": simple_call(hand, ONLINE)})
            return
        trick = [bhoos.parse_bhoos_card(c) for c in request["played"]]
        card = simple_card(hand, trick, ONLINE, not request["history"])
        if mode == "garbage":
            self._answer({"card": "QS"})
        elif mode == "illegal":
            self._answer({"value": bhoos.card_to_bhoos(max(hand))})  # its highest card
        else:
            self._answer({"value": bhoos.card_to_bhoos(card, suffix=False)})


class BotServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, mode: str) -> None:
        super().__init__(("127.0.0.1", 0), ProtocolBot)
        self.mode = mode
        self.requests: list[tuple[str, dict[str, Any]]] = []


def _serve(mode: str) -> Iterator[BotServer]:
    server = BotServer(mode)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture()
def simple_bot() -> Iterator[BotServer]:
    yield from _serve("simple")


def _url(server: BotServer) -> str:
    return f"http:127.0.0.1:{server.server_address[1]}"


def _plain(report: arena.Report) -> list[tuple[Any, ...]]:
    return [(b.deal, b.players, b.calls, b.plays, b.scores) for b in report.boards]


def test_a_protocol_bot_playing_simple_plays_exactly_like_simple(simple_bot: BotServer) -> None:
    over_http = arena.run(
        [f"x={_url(simple_bot)}", "b=random", "c=honours", "d=random"],
        "online",
        deals=2,
        seed=3,
    )
    in_process = arena.run(
        ["x=simple", "b=random", "c=honours", "d=random"], "online", deals=2, seed=3
    )
    assert _plain(over_http) == _plain(in_process)
    assert sum(len(b.faults) for b in over_http.boards) == 0
    # what the bot was sent: a bid at every deal's start, a play for every card, as documented
    paths = [p for p, _ in simple_bot.requests]
    assert paths.count("/bid") == 8 and paths.count("/play") == 8 * 13
    last = simple_bot.requests[-1][1]
    fields = {"playerId", "playerIds", "cards", "played", "history", "context", "timeBudget"}
    assert set(last) == fields
    assert last["playerIds"] == ["P0", "P1", "P2", "P3"] and last["timeBudget"] == 1000
    assert len(last["history"]) == 12 and len(last["cards"]) == 1
    assert {"round", "players"} <= set(last["context"])
    bids = [r for p, r in simple_bot.requests if p == "/bid"]
    assert [b["context"]["round"] for b in bids] == [1, 2] * 4
    # the service's own reader accepts every request as a consistent game
    from callbreak_lab.service.bot import read_play

    for path, body in simple_bot.requests:
        if path == "/play":
            read_play(body)


@pytest.mark.parametrize("mode", ["garbage", "illegal"])
def test_a_bot_answering_badly_is_faulted_and_the_game_goes_on(mode: str) -> None:
    for server in _serve(mode):
        report = arena.run(
            [f"bad={_url(server)}", "simple", "simple", "simple"],
            "online",
            deals=1,
        )
    bad = report.player("bad")
    kinds = {f.kind for b in report.boards for f in b.faults}
    if mode == "garbage":  # every answer: 1 call and 13 cards a board
        assert bad.faults == 4 * 14 and kinds == {"unparsable"}
        assert bad.mean_call == 1.0  # the minimum call replaced its calls
    else:
        assert kinds == {"illegal"} and 0 < bad.faults <= 4 * 13
    for board in report.boards:
        assert board.position().is_over
        for fault in board.faults:
            assert fault.request["path"] in ("/bid", "/play") and fault.answer is not None


@pytest.mark.slow
def test_a_late_or_silent_bot_is_faulted() -> None:
    """The bot's first call comes after the client gave up (budget and grace: 1.5 s), its
    other calls late (over the 0.5 s budget); its plays come at once, far within it."""
    for server in _serve("slow"):
        report = arena.run(
            [f"slow={_url(server)}", "simple", "simple", "simple"],
            "online",
            deals=1,
            time_limit=0.5,
        )
    faults = [f for b in report.boards for f in b.faults]
    assert [f.kind for f in faults] == ["timeout"] * 4  # its four calls
    assert "no answer within 1.5 s" in faults[0].message  # the first: given up
    assert all("answered after" in f.message for f in faults[1:])  # the others: late
    assert report.player("slow").faults == 4


def test_a_bot_that_is_not_there_is_faulted_quickly() -> None:
    from callbreak_lab.arena.protocol import HttpPlayer

    def absent() -> HttpPlayer:
        return HttpPlayer(f"http:127.0.0.1:{_free_port()}", "online", 100, wait_s=0.3)

    report = arena.run([absent, "simple", "simple", "simple"], "online", deals=1)
    faults = [f for b in report.boards for f in b.faults]
    assert len(faults) == 4 * 14 and {f.kind for f in faults} == {"exception"}
    assert "ConnectionError" in faults[0].message
    assert all(b.position().is_over for b in report.boards)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_the_project_service_bot_plays_in_the_arena() -> None:
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "CALLBREAK_SERVICE_BOT_SEARCH_MAX_CARDS": "12",  # searches the last three tricks
    }
    argv = [sys.executable, "-m", "callbreak_lab.cli", "serve", "--port", str(port)]
    argv += ["--workers", "1", "--log-level", "warning", "--no-access-log"]
    proc = subprocess.Popen(argv, env=env, cwd=REPO)
    try:
        deadline = time.monotonic() + 180  # start-up: worker warm-up and the models
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/hi", timeout=5) as r:
                    assert json.loads(r.read()) == {"value": "hello"}
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.5)
        report = arena.run(
            [f"bot=http:127.0.0.1:{port}", "simple", "simple", "simple"],
            "online",
            deals=1,
            seed=1,
            time_limit=1.0,
        )
    finally:
        stop_server(proc)
    assert [f.text() for b in report.boards for f in b.faults] == []
    bot = report.player("bot")
    assert bot.boards == 4 and 1 <= bot.mean_call <= 8
    assert bot.ms_max < 1000
