"""Every lead's value at the start of a deal (the expensive job of issue 64), against bridge DDS.

    .venv/bin/python benchmarks/card_values.py [--deals 100] [--first 0] [--presets modern,online]
        [--threads 1] [--no-dds] [--seat] [--out nodes.json]

For each preset, the same seeded random deals (``Deal.random(seed)``): ``api.values_of`` at the
first lead (seat 0's cards, values for seat 0: what ``solver.card_values(deal, 0, rules)`` does)
in one engine whose table is emptied before each deal (so a deal's time does not depend on the
deals before it), and with ``--seat`` one seat's value (``api.value_of``, seat 0) in a table
emptied too. Node counts are exact with one thread (``--threads 1``); times are wall-clock.
Bridge DDS (endplay's ``solve_board`` with ``SolveMode.Default``, i.e. ``SolveBoard`` with
solutions=3: every card's score; spades trump, the seat holding Call Break's seat 0 hand on
lead) on the same deals, in the same run, deal by deal after ours, so the machine's load falls
on both alike; with ``--seat`` also DDS's own one-value solve (``SolveMode.OptimalOne``, i.e.
solutions=1: the value and one card reaching it), so the price of valuing every card over
valuing the position is read for both solvers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from callbreak_lab.cards import Deal  # noqa: E402
from callbreak_lab.rules import Ruleset  # noqa: E402
from callbreak_lab.solver import api  # noqa: E402
from callbreak_lab.solver._engine import Engine  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.array(xs), q)) if xs else float("nan")


def summary(name: str, xs: list[float]) -> str:
    ms = [1000 * x for x in xs]
    return (
        f"| {name:<28} | {pct(ms, 50):8.1f} | {pct(ms, 90):8.1f} | {pct(ms, 99):8.1f} "
        f"| {max(ms):8.1f} | {sum(xs):8.2f} |"
    )


def dds_deal(deal: Deal) -> object:
    """The deal for endplay: Call Break's seats 0..3 as North, East, South, West; North leads,
    spades trump."""
    from endplay.types import Deal as BDeal
    from endplay.types import Denom, Player

    ranks = "23456789TJQKA"
    hands = []
    for h in deal.hands:
        m = int(h.mask)
        suits = []
        for s in (3, 2, 1, 0):  # PBN: spades, hearts, diamonds, clubs
            suits.append("".join(ranks[r] for r in range(12, -1, -1) if (m >> (13 * s + r)) & 1))
        hands.append(".".join(suits))
    d = BDeal.from_pbn("N:" + " ".join(hands))
    d.trump = Denom.spades
    d.first = Player.north
    return d


def print_times(times: dict[str, list[float]]) -> None:
    """A table of each measure that has times: median, p90, p99, max (ms) and total (s)."""
    head = " | ".join(f"{x:>8}" for x in ("median", "p90", "p99", "max"))
    print(f"| {'measure':<28} | {head} | total s |")
    print("|---|---|---|---|---|---|")
    for name, xs in times.items():
        if xs:
            print(summary(name, xs))


def dds_one_value(seeds: range) -> list[float]:
    """Seconds of DDS's one-value solve (solutions=1) of each deal, in a pass of its own: DDS
    keeps its table for a deal solved again right after, which would read as no time."""
    from endplay.dds import solve_board
    from endplay.dds.solve import SolveMode

    out = []
    for seed in seeds:
        bd = dds_deal(Deal.random(seed))
        t0 = time.perf_counter()
        solve_board(bd, SolveMode.OptimalOne)
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:  # noqa: PLR0915  (a benchmark's steps in order)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--first", type=int, default=0, help="first seed")
    ap.add_argument("--presets", default="modern,online")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-dds", action="store_true")
    ap.add_argument("--seat", action="store_true", help="also one seat's value (seat 0)")
    ap.add_argument("--out", type=Path, default=None, help="per-deal values, nodes, times (JSON)")
    args = ap.parse_args()
    solve_board = None
    if not args.no_dds:
        from endplay.dds import solve_board
        from endplay.dds.solve import SolveMode
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    print(
        f"machine: {os.cpu_count()} cores, {cpu}; load average {os.getloadavg()[0]:.1f}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; deals {args.first}.."
        f"{args.first + args.deals - 1}; threads {args.threads}",
        flush=True,
    )
    api.value_of(api.make_root(Deal.random(0), "modern"), 0)  # compile / load before timing
    eng = Engine(threads=args.threads)
    rows: dict[str, object] = {}
    dds_t: list[float] = []
    dds1_t: list[float] = []
    dds_done = False
    for preset in args.presets.split(","):
        rules = Ruleset.preset(preset)
        cv_t: list[float] = []
        cv_n: list[int] = []
        seat_t: list[float] = []
        seat_n: list[int] = []
        cv_cpu = 0.0
        seat_cpu = 0.0
        for seed in range(args.first, args.first + args.deals):
            deal = Deal.random(seed)
            root = api.make_root(deal, rules)
            eng.clear()
            n0 = eng.counters().nodes
            c0 = time.process_time()
            t0 = time.perf_counter()
            vals = api.values_of(root, 0, eng)
            dt = time.perf_counter() - t0
            cv_cpu += time.process_time() - c0
            n = eng.counters().nodes - n0
            cv_t.append(dt)
            cv_n.append(n)
            row: dict[str, object] = {"cards": sorted(vals.items()), "nodes": n, "s": round(dt, 4)}
            if args.seat:
                eng.clear()
                n0 = eng.counters().nodes
                c0 = time.process_time()
                t0 = time.perf_counter()
                v = api.value_of(root, 0, eng)
                st = time.perf_counter() - t0
                seat_cpu += time.process_time() - c0
                seat_t.append(st)
                seat_n.append(eng.counters().nodes - n0)
                row["seat"] = [v, seat_n[-1], round(st, 4)]
            if solve_board is not None and not dds_done:
                bd = dds_deal(deal)
                t0 = time.perf_counter()
                solve_board(bd, SolveMode.Default)
                dds_t.append(time.perf_counter() - t0)
            rows[f"{preset}/{seed}"] = row
        if solve_board is not None and args.seat and not dds1_t:
            dds1_t = dds_one_value(range(args.first, args.first + args.deals))
        dds_done = dds_done or bool(dds_t)
        print(f"\n### {preset} {rules.kernel_flags()}")
        print_times(
            {
                "card_values, first lead": cv_t,
                "one seat's value": seat_t,
                "DDS SolveBoard solutions=3": dds_t,
                "DDS SolveBoard solutions=1": dds1_t,
            }
        )
        ns = sorted(cv_n)
        print(
            f"card_values nodes: total {sum(ns) / 1e6:.2f} M, median {ns[len(ns) // 2] / 1e3:.1f} "
            f"K, p90 {ns[int(0.9 * len(ns))] / 1e3:.0f} K, max {ns[-1] / 1e6:.2f} M; CPU "
            f"{cv_cpu:.2f} s (this process, all threads)",
            flush=True,
        )
        if seat_n:
            ss = sorted(seat_n)
            print(
                f"one seat nodes: total {sum(ss) / 1e6:.2f} M, median {ss[len(ss) // 2] / 1e3:.1f}"
                f" K, max {ss[-1] / 1e6:.2f} M; CPU {seat_cpu:.2f} s"
            )
    if args.out is not None:
        args.out.write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
