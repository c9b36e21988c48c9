"""Load benchmark of the HTTP service: ``/v1/evaluate`` and the bot's ``/play``.

Starts uvicorn on 127.0.0.1 on a free port in a subprocess, waits until ``/hi`` answers (the
solver workers are warm by then), then drives each endpoint with ``--concurrency`` concurrent
keep-alive clients (a minimal asyncio HTTP/1.1 client, cheap beside the server) for
``--duration`` seconds (hard stop), and prints requests per second, p50/p99 latency and errors.
Traffic goes to 127.0.0.1 only.

    .venv/bin/python benchmarks/service.py                 # 50 clients, closed loop, 20 s each
    .venv/bin/python benchmarks/service.py --rate 10       # 50 clients x 10 req/s, paced
    .venv/bin/python benchmarks/service.py --duration 5    # quicker
    .venv/bin/python benchmarks/service.py --endpoints burst --serve "--http-workers 2 --workers 1"

``burst`` sends the 61 recorded ``/play`` requests at once, each on its own connection, with a
``timeBudget`` of each of ``--burst-budgets`` (``--burst-rounds`` times), and reports how long
the answers took after each request's arrival (the server's ``x-callbreak-elapsed-ms``) and as
the client saw them, how many came after the budget, and whether every card was legal.

``montecarlo`` sends ``--mc-hands`` random hands one after another with ``monte_carlo`` =
``--mc-samples`` and reports the solver time a sample takes in a worker (the answer's
``elapsed_ms`` over its samples): what ``Settings.monte_carlo_sample_ms`` should be.

``/play`` replays the recorded Bhoos client requests of ``tests/data/bhoos`` (``--play-log``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import random
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from callbreak_lab.cards import Deal

#: Recorded requests of a real Bhoos-protocol bot client, kept in the repository's test data.
PLAY_LOG = Path(__file__).resolve().parents[1] / "tests" / "data" / "bhoos" / "play_requests.json"


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or the platform's processor string)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def start_server(port: int, extra: list[str]) -> subprocess.Popen[bytes]:
    """``callbreak-lab serve`` on 127.0.0.1:port (its solver pool inside, the guarded HTTP
    protocol), ``extra`` options appended (e.g. ``--http-workers 2 --workers 1``)."""
    cmd = [sys.executable, "-m", "callbreak_lab.cli", "serve", "--port", str(port)]
    cmd += ["--log-level", "warning", "--no-access-log"]
    return subprocess.Popen(cmd + extra)


def wait_ready(base: str, timeout: float = 180.0) -> None:
    """Poll ``/hi`` until it answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base}/hi", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError("the server did not become ready")


def evaluate_bodies(n: int = 5000, seed: int = 1) -> list[dict[str, Any]]:
    """Distinct random hands and seats (no two requests need be alike)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        deal = Deal.random(rng)
        seat = int(rng.integers(4))
        out.append({"hand": str(deal[seat]), "seat": seat, "rules": ("online", "modern")[i % 2]})
    return out


def play_bodies(path: Path = PLAY_LOG) -> list[dict[str, Any]]:
    """The recorded tournament requests in ``path`` (no timeBudget: the 1000 ms default
    applies)."""
    from callbreak_lab.arena.bhoos import read_requests

    return list(read_requests(path.read_text()))


class _Connection:
    """One keep-alive HTTP/1.1 connection speaking just enough of the protocol for JSON POSTs.

    A load generator must cost far less CPU than the server it measures (both share this
    machine's two cores); httpx spends about a millisecond of CPU per request, this a tenth.
    """

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, payload: bytes) -> tuple[int, bytes]:
        status, _, body = await self.exchange(path, payload)
        return status, body

    async def exchange(self, path: str, payload: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
        """POST ``payload``; the status, the headers (lower-case names) and the body."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        )
        self.writer.write(head.encode() + payload)
        lines = (await self.reader.readuntil(b"\r\n\r\n")).split(b"\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        body = await self.reader.readexactly(int(headers.get(b"content-length", b"0")))
        return status, headers, body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def drive(
    base: str,
    path: str,
    bodies: list[dict[str, Any]],
    concurrency: int,
    duration: float,
    rate: float = 0.0,
) -> dict[str, Any]:
    """``concurrency`` clients posting ``bodies`` in turn for ``duration`` seconds, each waiting
    for its answer before sending the next request. ``rate`` 0: no think time (a closed loop, the
    server saturated); otherwise each client sends ``rate`` requests per second on a fixed
    schedule and latency counts from the scheduled send time (so a slow server cannot hide its
    queue by slowing the clients down)."""
    latencies: list[float] = []
    errors: dict[str, int] = {}
    stop = time.monotonic() + duration
    counter = iter(range(10**9))
    host, port = base.removeprefix("http://").split(":")
    payloads = [json.dumps(b).encode() for b in bodies]

    async def client() -> None:
        conn = _Connection(host, int(port))
        next_send = time.perf_counter() + (random.random() / rate if rate else 0.0)
        try:
            while time.monotonic() < stop:
                payload = payloads[next(counter) % len(payloads)]
                if rate:
                    delay = next_send - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    t0 = next_send
                    next_send += 1.0 / rate
                else:
                    t0 = time.perf_counter()
                try:
                    status, _ = await conn.post(path, payload)
                except (OSError, asyncio.IncompleteReadError, ValueError) as e:
                    errors[type(e).__name__] = errors.get(type(e).__name__, 0) + 1
                    conn.close()
                    continue
                if status != 200:
                    errors[str(status)] = errors.get(str(status), 0) + 1
                    continue
                latencies.append(time.perf_counter() - t0)
        finally:
            conn.close()

    t_start = time.monotonic()
    tasks = [asyncio.create_task(client()) for _ in range(concurrency)]
    _, pending = await asyncio.wait(tasks, timeout=duration + 15)  # hard stop
    for t in pending:
        t.cancel()
    wall = time.monotonic() - t_start
    lat = np.array(latencies) * 1000 if latencies else np.array([np.nan])
    return {
        "endpoint": path,
        "requests": len(latencies),
        "rps": len(latencies) / wall,
        "p50_ms": float(np.percentile(lat, 50)),
        "p99_ms": float(np.percentile(lat, 99)),
        "max_ms": float(np.max(lat)),
        "errors": errors,
        "seconds": wall,
    }


def _legal(req: dict[str, Any], answer: str) -> bool:
    """Whether ``answer`` is one of the request's cards and legal under the online rules."""
    from callbreak_lab.arena.bhoos import parse_bhoos_card
    from callbreak_lab.cards import Hand
    from callbreak_lab.rules import PRESETS

    hand = Hand.from_cards(parse_bhoos_card(c) for c in req["cards"])
    trick = [parse_bhoos_card(c) for c in req.get("played", [])]
    legal = PRESETS["online"].legal_cards(hand, trick, first_trick=not req.get("history"))
    return answer in req["cards"] and parse_bhoos_card(answer) in legal


async def burst(base: str, bodies: list[dict[str, Any]], budget_ms: int) -> dict[str, Any]:
    """Every body at once, each on a new connection, with ``timeBudget`` = ``budget_ms``."""
    host, port = base.removeprefix("http://").split(":")

    async def one(req: dict[str, Any]) -> tuple[float, float, bool, str]:
        conn = _Connection(host, int(port))
        payload = json.dumps({**req, "timeBudget": budget_ms}).encode()
        t0 = time.perf_counter()
        try:
            status, headers, body = await conn.exchange("/play", payload)
        finally:
            conn.close()
        seen = (time.perf_counter() - t0) * 1000
        if status != 200:
            return float("nan"), seen, False, str(status)
        served = float(headers.get(b"x-callbreak-elapsed-ms", b"nan"))
        answer = json.loads(body)["value"]
        return served, seen, _legal(req, answer), headers.get(b"x-callbreak-choice", b"").decode()

    results = await asyncio.gather(*(one(b) for b in bodies))
    served = np.array([r[0] for r in results])
    seen = np.array([r[1] for r in results])
    return {
        "budget_ms": budget_ms,
        "requests": len(results),
        "served_p50_ms": float(np.nanpercentile(served, 50)),
        "served_max_ms": float(np.nanmax(served)),
        "seen_p50_ms": float(np.percentile(seen, 50)),
        "seen_max_ms": float(np.max(seen)),
        "late_served": int(np.sum(~(served < budget_ms))),
        "late_seen": int(np.sum(seen >= budget_ms)),
        "illegal": sum(not r[2] for r in results),
        "searched": sum(r[3].startswith("search") for r in results),
    }


def montecarlo(base: str, hands: int, samples: int) -> dict[str, Any]:
    """Sequential ``/v1/evaluate`` requests with a Monte Carlo check: per-sample worker ms."""
    per_sample = []
    stopped = 0
    with httpx.Client(timeout=120) as client:
        for body in evaluate_bodies(hands, seed=7):
            r = client.post(f"{base}/v1/evaluate", json={**body, "monte_carlo": samples})
            if r.status_code != 200:
                raise SystemExit(f"montecarlo: {r.status_code} {r.text} for {body}")
            mc = r.json()["monte_carlo"]
            per_sample.append(mc["elapsed_ms"] / mc["samples"])
            stopped += bool(mc["stopped_early"])
    ms = np.array(per_sample)
    return {
        "endpoint": "montecarlo",
        "hands": hands,
        "samples": samples,
        "sample_ms_mean": float(ms.mean()),
        "sample_ms_median": float(np.median(ms)),
        "sample_ms_p90": float(np.percentile(ms, 90)),
        "sample_ms_max": float(ms.max()),
        "stopped_early": stopped,
    }


def main(argv: list[str] | None = None) -> int:  # noqa: PLR0915  (a benchmark run's steps, in order)
    """Run the benchmark and print one line per endpoint (and JSON with --json)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=20.0, help="seconds per endpoint")
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="requests per second per client (0: closed loop, no think time)",
    )
    ap.add_argument("--endpoints", default="evaluate,play")
    ap.add_argument(
        "--play-log",
        type=Path,
        default=PLAY_LOG,
        help="Bhoos /play request bodies written back to back (default: the recorded ones in "
        "tests/data/bhoos)",
    )
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--serve", default="", help='extra serve options, e.g. "--http-workers 2 --workers 1"'
    )
    ap.add_argument("--burst-budgets", default="1000,300", help="timeBudget values (ms)")
    ap.add_argument("--burst-rounds", type=int, default=5, help="bursts per budget")
    ap.add_argument("--mc-hands", type=int, default=12, help="hands of the montecarlo mode")
    ap.add_argument("--mc-samples", type=int, default=40, help="samples a montecarlo request")
    args = ap.parse_args(argv)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    server = start_server(port, args.serve.split())
    results = []
    try:
        wait_ready(base)
        plans: dict[str, tuple[str, Callable[[], list[dict[str, Any]]]]] = {
            "evaluate": ("/v1/evaluate", evaluate_bodies),
            "play": ("/play", lambda: play_bodies(args.play_log)),
        }
        for name in args.endpoints.split(","):
            if name == "montecarlo":
                res = montecarlo(base, args.mc_hands, args.mc_samples)
                results.append(res)
                print(
                    f"montecarlo {res['hands']} hands x {res['samples']} samples: a sample "
                    f"{res['sample_ms_mean']:.0f} ms mean, {res['sample_ms_median']:.0f} median, "
                    f"{res['sample_ms_p90']:.0f} p90, {res['sample_ms_max']:.0f} max (worker time);"
                    f" "
                    f"{res['stopped_early']} stopped early at the time share",
                    flush=True,
                )
                continue
            if name == "burst":
                bodies = play_bodies(args.play_log)
                asyncio.run(burst(base, bodies, 1000))  # warm-up
                for budget in (int(b) for b in args.burst_budgets.split(",")):
                    rounds = [
                        asyncio.run(burst(base, bodies, budget)) for _ in range(args.burst_rounds)
                    ]
                    res = {
                        "endpoint": "burst",
                        "budget_ms": budget,
                        "rounds": len(rounds),
                        "requests": sum(r["requests"] for r in rounds),
                        "served_p50_ms": float(np.median([r["served_p50_ms"] for r in rounds])),
                        "served_max_ms": max(r["served_max_ms"] for r in rounds),
                        "seen_p50_ms": float(np.median([r["seen_p50_ms"] for r in rounds])),
                        "seen_max_ms": max(r["seen_max_ms"] for r in rounds),
                        "late_served": sum(r["late_served"] for r in rounds),
                        "late_seen": sum(r["late_seen"] for r in rounds),
                        "illegal": sum(r["illegal"] for r in rounds),
                        "searched": sum(r["searched"] for r in rounds),
                    }
                    results.append(res)
                    print(
                        f"burst {res['requests']} x /play, budget {budget} ms: after arrival "
                        f"p50 {res['served_p50_ms']:.0f} max {res['served_max_ms']:.0f} ms, "
                        f"late {res['late_served']}; client-side p50 {res['seen_p50_ms']:.0f} "
                        f"max {res['seen_max_ms']:.0f} ms, late {res['late_seen']}; "
                        f"searched {res['searched']}, illegal {res['illegal']}",
                        flush=True,
                    )
                continue
            path, make = plans[name]
            bodies = make()
            asyncio.run(drive(base, path, bodies[:50], args.concurrency, 2.0))  # warm-up
            res = asyncio.run(drive(base, path, bodies, args.concurrency, args.duration, args.rate))
            results.append(res)
            print(
                f"{path:14s} {res['requests']:7d} req  {res['rps']:8.1f} req/s  "
                f"p50 {res['p50_ms']:7.1f} ms  p99 {res['p99_ms']:7.1f} ms  "
                f"max {res['max_ms']:7.1f} ms  errors {res['errors'] or 0}",
                flush=True,
            )
        health = httpx.get(f"{base}/healthz", timeout=5).json()
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=10)
        if server.poll() is None:
            server.kill()
    meta = {
        "date": datetime.date.today().isoformat(),
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "concurrency": args.concurrency,
        "duration_s": args.duration,
        "rate_per_client": args.rate,
        "serve": args.serve,
        "loadavg_after": os.getloadavg()[0],
        "bid_source": health.get("bid_source"),
        "workers": health.get("workers"),
    }
    print(
        f"machine: nproc {meta['nproc']}, {meta['cpu']}, {meta['date']}, load average "
        f"{meta['loadavg_after']:.1f} at the end; bid source {meta['bid_source']}"
    )
    if args.json:
        print(json.dumps({"meta": meta, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
