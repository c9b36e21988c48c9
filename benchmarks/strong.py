"""The ``strong`` player at work: its time and layouts per decision, and how its calls fit play.

    .venv/bin/python benchmarks/strong.py timing [--deals 25] [--budget 1000] [--rules online]
    .venv/bin/python benchmarks/strong.py calibration [--deals 200] [--players strong]
        [--rules online] [--jobs 2]

``timing`` plays ``--deals`` seeded tournament deals with ``--players`` (one player, ``strong``
by default) at seat 0 (a ``--budget`` ms clock a decision, one search thread:
``CALLBREAK_LAB_SOLVER_THREADS=1``, one core) against three ``pimc`` and reports, by trick
number, its decisions, how many searched (the others are forced cards or, without a budget, the
cheap card of the first three tricks), the time a decision took (median, p99, max) and the
layouts a search solved (median, min) and how many of them were distinct.

``calibration`` plays ``--deals`` seeded deals with four ``--players`` (each deal once: four
copies of one player need no rotation) and compares, seat by seat, what the bid model forecast
for the hand (the play-out distribution it calls from, given the calls before it) with the
tricks the players actually took, and with the tricks of the deal's double-dummy play-out (the
model's training target). Grouped by the call made: hands, mean forecast tricks, mean tricks
at the table, mean play-out tricks, the forecast chance of making the call and how often it was
made at the table; then the same over every hand, with the mean score the call would have had
at the table for calls one lower and one higher (what a call fitted to real play would gain).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from typing import Any

os.environ.setdefault("CALLBREAK_LAB_SOLVER_THREADS", "1")  # timing: one core

import numpy as np

from callbreak_lab.arena import make_player
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.arena.tournament import tournament_deal
from callbreak_lab.rules import Ruleset


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} x {cpu}"


class Recorder:
    """Wraps a ``strong`` player and keeps (trick number, ms, search summary) per card."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.name = player.name
        self.rows: list[tuple[int, float, dict[str, Any]]] = []

    def prepare(self, rules: Ruleset) -> None:
        self.player.prepare(rules)

    def new_deal(self, seed: int) -> None:
        self.player.new_deal(seed)

    def call(self, view: Any) -> int:
        return int(self.player.call(view))

    def play(self, view: Any) -> Any:
        t0 = time.perf_counter()
        card = self.player.play(view)
        ms = (time.perf_counter() - t0) * 1000
        self.rows.append((len(view.history) // 4 + 1, ms, self.player.last.to_dict()))
        return card


def timing(args: argparse.Namespace) -> None:
    rules = Ruleset.preset(args.rules)
    limit = args.budget / 1000
    rec = Recorder(make_player(args.players, rules, time_limit=limit))
    others = [make_player("pimc", rules, time_limit=limit) for _ in range(3)]
    faults = 0
    t0 = time.perf_counter()
    for i in range(args.deals):
        board = play_deal(
            tournament_deal(0, i), rules, [rec, *others], time_limit=limit, deal_index=i
        )
        faults += sum(f.seat == 0 for f in board.faults)
    wall = time.perf_counter() - t0
    print(
        f"strong at seat 0 against three pimc, {args.rules}, {args.deals} deals, budget "
        f"{args.budget} ms, one search thread; {_machine()}; "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {wall:.0f} s, "
        f"faults {faults}"
    )
    print("\n| trick | decisions | searched | ms median | p99 | max | layouts median | min "
          "| distinct median |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for trick in range(1, 14):
        rows = [r for r in rec.rows if r[0] == trick]
        ms = np.array([r[1] for r in rows])
        searched = [r[2] for r in rows if r[2].get("how") == "search"]
        lay = [int(s["layouts"]) for s in searched]
        dis = [int(s["distinct"]) for s in searched]
        cells = [
            str(len(rows)),
            str(len(searched)),
            f"{np.median(ms):.1f}",
            f"{np.percentile(ms, 99):.0f}",
            f"{ms.max():.0f}",
            f"{np.median(lay):.0f}" if lay else "-",
            f"{min(lay)}" if lay else "-",
            f"{np.median(dis):.0f}" if dis else "-",
        ]
        print(f"| {trick} | " + " | ".join(cells) + " |")
    ms = np.array([r[1] for r in rec.rows])
    print(
        f"\nall cards: {len(ms)} decisions, {len(ms) / (ms.sum() / 1000):.1f} a second, "
        f"median {np.median(ms):.1f} ms, p99 {np.percentile(ms, 99):.0f}, max {ms.max():.0f}"
    )


def _deal_rows(spec: str, rules_name: str, index: int) -> list[dict[str, Any]]:
    """Play tournament deal ``index`` with four ``spec`` players; one row per seat."""
    from callbreak_lab import solver
    from callbreak_lab.bidding.model import recommend_call

    rules = Ruleset.preset(rules_name)
    players = [make_player(spec, rules) for _ in range(4)]
    deal = tournament_deal(0, index)
    board = play_deal(deal, rules, players, deal_index=index)
    po = solver.playout(deal, rules).tricks
    rows = []
    for s in range(4):
        rec = recommend_call(deal[s], s, rules, earlier_calls=board.calls[:s])
        dist = np.asarray(rec.distribution, dtype=np.float64)
        call = int(board.calls[s])
        rows.append(
            {
                "call": call,
                "forecast": float(dist @ np.arange(len(dist))),
                "forecast_make": float(dist[call:].sum()),
                "tricks": int(board.tricks[s]),
                "playout": int(po[s]),
                "scores": {
                    d: rules.score(call + d, int(board.tricks[s]))
                    for d in (-1, 0, 1)
                    if rules.min_call <= call + d <= rules.max_call
                },
            }
        )
    return rows


def calibration(args: argparse.Namespace) -> None:
    from joblib import Parallel, delayed

    t0 = time.perf_counter()
    per_deal = Parallel(n_jobs=args.jobs)(
        delayed(_deal_rows)(args.players, args.rules, i) for i in range(args.deals)
    )
    rows = [r for deal in per_deal for r in deal]
    wall = time.perf_counter() - t0
    print(
        f"four {args.players}, {args.rules}, {args.deals} deals ({len(rows)} hands); "
        f"{_machine()}; {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; {wall:.0f} s"
    )
    print("\n| call | hands | forecast tricks | at the table | play-out | forecast make | made |")
    print("|---|---|---|---|---|---|---|")
    groups = sorted({r["call"] for r in rows})
    for call in [*groups, None]:
        sel = [r for r in rows if call is None or r["call"] == call]
        if len(sel) < 5 and call is not None:
            continue
        f = np.mean([r["forecast"] for r in sel])
        t = np.mean([r["tricks"] for r in sel])
        p = np.mean([r["playout"] for r in sel])
        fm = np.mean([r["forecast_make"] for r in sel])
        made = np.mean([r["tricks"] >= r["call"] for r in sel])
        label = "all" if call is None else str(call)
        print(f"| {label} | {len(sel)} | {f:.2f} | {t:.2f} | {p:.2f} | {fm:.2f} | {made:.2f} |")
    both = [r for r in rows if len(r["scores"]) == 3]  # calls with a legal neighbour each side
    print(f"\nmean score a hand at the table had its call been d higher ({len(both)} hands):")
    for d in (-1, 0, 1):
        sel = np.array([r["scores"][d] for r in both]) / 10
        print(f"  d = {d:+d}: {sel.mean():+.3f} points")
    err = np.array([r["tricks"] - r["forecast"] for r in rows])
    se = err.std(ddof=1) / np.sqrt(len(err))
    print(f"tricks at the table minus forecast: {err.mean():+.3f} ± {se:.3f} a hand")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("timing", "calibration"))
    ap.add_argument("--deals", type=int, default=None)
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--rules", default="online")
    ap.add_argument("--players", default="strong")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    if args.mode == "timing":
        args.deals = args.deals or 25
        timing(args)
    else:
        args.deals = args.deals or 200
        calibration(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
