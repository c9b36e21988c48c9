"""Benchmark of the double-dummy solver (and bridge DDS via ``endplay`` for scale).

    .venv/bin/python benchmarks/solver.py [--deals 200] [--playouts 10] [--presets modern,...]
        [--techniques 10] [--no-dds] [--no-cold]

For each preset's rule profile, the same seeded random deals (``Deal.random(seed)``): one
seat's value (each of the four seat-solves timed alone), a whole dd_table, and card_values at
the first lead (seat 0's cards, values for seat 0); nodes per second; whole-deal play-outs on a
subset (timed first on their deal). The table is emptied at the start of each preset (entries
are facts about abstract positions, so a preset would otherwise reuse the previous one's) and
then kept across deals, as in batch use. Then cold start (compile, empty numba cache in a
temporary NUMBA_CACHE_DIR) and warm start (second process, same cache dir), peak memory, bridge
DDS on random deals with spades trump, and the technique table (each search switch off in turn,
on positions 6 tricks from the end so even the slowest variant finishes).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from callbreak_lab.cards import Deal  # noqa: E402
from callbreak_lab.game import Position  # noqa: E402
from callbreak_lab.rules import Ruleset  # noqa: E402
from callbreak_lab.solver import api  # noqa: E402
from callbreak_lab.solver._consts import (  # noqa: E402
    OPT_DECIDED,
    OPT_EQUIV,
    OPT_GUESS,
    OPT_LAST,
    OPT_MOBILITY,
    OPT_MTD,
    OPT_ORDER,
    OPT_PART,
    OPT_QUICK,
    OPT_SIBLING,
    OPT_TT,
    ST_NODES,
    default_opts,
)
from callbreak_lab.solver._engine import Engine  # noqa: E402

PRESETS = ("modern", "strict", "online", "home", "pagat")


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.array(xs), q)) if xs else float("nan")


def row(name: str, xs: list[float]) -> str:
    ms = [1000 * x for x in xs]
    return (
        f"| {name:<22} | {pct(ms, 50):9.1f} | {pct(ms, 90):9.1f} | {pct(ms, 99):9.1f} "
        f"| {max(ms):9.1f} |"
    )


def _nodes(eng: Engine) -> int:
    """Nodes searched by the engine and its helper thread."""
    helper = eng._helper
    return int(eng.stats[ST_NODES]) + (0 if helper is None else int(helper.stats[ST_NODES]))


def bench_preset(name: str, n: int, n_playouts: int, threads: int) -> dict[str, object]:
    rules = Ruleset.preset(name)
    eng = Engine(threads=threads)
    seat_t: list[float] = []
    table_t: list[float] = []
    cv_t: list[float] = []
    po_t: list[float] = []
    nodes = 0
    search_time = 0.0
    eng.clear()  # presets share table entries below the first lead: start each one empty
    # the play-outs get an engine of their own: in the shared one they left the deal's positions
    # in the table, and the timed solves of those deals that followed were warm (a bias of the
    # medians recorded before session 11, when 5 of every 20 deals were played out)
    po_eng = Engine(threads=threads)
    for seed in range(n):
        deal = Deal.random(seed)
        root = api.make_root(deal, rules)
        if seed < n_playouts:  # a cold play-out: nothing of this deal is in its engine
            t0 = time.perf_counter()
            res = api.playout_of(root, po_eng)
            po_t.append(time.perf_counter() - t0)
            assert sum(res.tricks) == 13
        total = 0.0
        for t in range(4):
            n0 = _nodes(eng)
            t0 = time.perf_counter()
            api.value_of(root, t, eng)
            dt = time.perf_counter() - t0
            nodes += _nodes(eng) - n0
            search_time += dt
            seat_t.append(dt)
            total += dt
        table_t.append(total)
        t0 = time.perf_counter()
        api.values_of(root, 0, eng)
        cv_t.append(time.perf_counter() - t0)
        print(f"  {name} deal {seed}: table {1000 * total:.0f} ms", file=sys.stderr, flush=True)
    return {
        "seat": seat_t,
        "table": table_t,
        "cards": cv_t,
        "playout": po_t,
        "nps": nodes / max(search_time, 1e-9),
        "flags": rules.kernel_flags(),
    }


COLD = """
import time
t0 = time.perf_counter()
from callbreak_lab.cards import Deal
from callbreak_lab.game import Position
from callbreak_lab import solver
t1 = time.perf_counter()
p = Position(Deal.random(1), "modern")
while len(p.history) < 40:
    p.play(p.legal_cards().lowest())
solver.dd_table(p)
solver.card_values(p, p.to_move)
solver.playout(p)
t2 = time.perf_counter()
print(f"{t1 - t0:.2f} {t2 - t1:.2f}")
"""


def cold_start() -> tuple[float, float, float, float]:
    """(import, first solve) seconds with an empty cache, then with the cache just written."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d)
        out = []
        for _ in range(2):
            r = subprocess.run(
                [sys.executable, "-c", COLD], env=env, capture_output=True, text=True, check=True
            )
            out.extend(float(x) for x in r.stdout.split())
    return out[0], out[1], out[2], out[3]


def bench_dds(n: int) -> list[float]:
    """Seconds per bridge DDS solve (one seat on lead, spades trump) on random deals."""
    from endplay.dds import solve_board
    from endplay.dds.solve import SolveMode
    from endplay.types import Deal as BDeal
    from endplay.types import Denom, Player

    rng = np.random.default_rng(12345)
    ts = []
    names = "SHDC"
    ranks = "AKQJT98765432"
    for _ in range(n):
        perm = rng.permutation(52)
        hands = []
        for h in range(4):
            cards = perm[13 * h : 13 * h + 13]
            suits = [
                "".join(ranks[c % 13] for c in sorted(c for c in cards if c // 13 == s))
                for s in range(4)
            ]
            hands.append(".".join(suits))
        d = BDeal.from_pbn("N:" + " ".join(hands))
        d.trump = Denom.spades
        d.first = Player.west
        t0 = time.perf_counter()
        solve_board(d, SolveMode.OptimalOne)
        ts.append(time.perf_counter() - t0)
    del names
    return ts


def bench_techniques(n: int, tricks_left: int) -> list[tuple[str, int, float]]:
    """Nodes and seconds over n positions (``tricks_left`` tricks from the end, lowest-card
    play from random modern deals, all four seats) with each switch off in turn."""
    rules = Ruleset.preset("modern")
    roots = []
    for seed in range(n):
        p = Position(Deal.random(1000 + seed), rules)
        while len(p.history) < 52 - 4 * tricks_left:
            p.play(p.legal_cards().lowest())
        roots.append(api.make_root(p, rules))
    variants = [
        ("all on", None),
        ("no table", OPT_TT),
        ("no partition search", OPT_PART),
        ("no sibling skipping", OPT_SIBLING),
        ("no sure-trick bounds", OPT_QUICK),
        ("no equivalent cards", OPT_EQUIV),
        ("no move ordering", OPT_ORDER),
        ("bisection, not MTD(f)", OPT_MTD),
        ("first probe at the upper bound, not estimated", OPT_GUESS),
        ("no last-trick shortcut", OPT_LAST),
        ("no decided-trick stop", OPT_DECIDED),
        ("target's leads not ordered by the others' replies", OPT_MOBILITY),
    ]
    out = []
    ref = None
    for label, off in variants:
        opts = default_opts()
        if off is not None:
            opts[off] = 0
        eng = Engine(opts=opts)
        vals = []
        t0 = time.perf_counter()
        for root in roots:
            for t in range(4):
                vals.append(api.value_of(root, t, eng))
        dt = time.perf_counter() - t0
        if ref is None:
            ref = vals
        assert vals == ref, f"{label}: values differ"
        out.append((label, int(eng.stats[ST_NODES]), dt))
    return out


def main() -> None:  # noqa: PLR0915  (a benchmark run's steps, in order)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--playouts", type=int, default=10)
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--techniques", type=int, default=10, help="positions for the technique table")
    ap.add_argument("--technique-tricks", type=int, default=6, help="their tricks left")
    ap.add_argument("--no-dds", action="store_true")
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument(
        "--threads",
        type=int,
        default=api.default_threads(),
        help="search threads (Engine(threads=...)); default as the library picks",
    )
    args = ap.parse_args()

    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    print(f"machine: {os.cpu_count()} cores, {cpu}; load average {os.getloadavg()[0]:.1f}")
    print(
        f"date: {time.strftime('%Y-%m-%d %H:%M')}; deals per preset: {args.deals}; "
        f"search threads: {args.threads}"
    )
    if not args.no_cold:
        imp, first, imp2, first2 = cold_start()
        print(f"cold start (empty cache): import {imp:.2f} s, first solves {first:.2f} s")
        print(f"warm start (cache on disk): import {imp2:.2f} s, first solves {first2:.2f} s")
    api.value_of(api.make_root(Deal.random(0), "modern"), 0)  # compile / load before timing
    done: dict[tuple[int, ...], dict[str, object]] = {}
    medians = {}
    for name in args.presets.split(",") if args.deals > 0 else []:
        flags = Ruleset.preset(name).kernel_flags()
        if flags in done:
            res = done[flags]
            print(f"\n### {name}: same legal-card switches as an earlier preset, results reused")
        else:
            res = bench_preset(name, args.deals, args.playouts, args.threads)
            done[flags] = res
        print(f"\n### {name} (must_beat, void_rule, ban) = {flags}")
        print("| measure                |  median ms |    p90 ms |    p99 ms |    max ms |")
        print("|---|---|---|---|---|")
        print(row("one seat's value", res["seat"]))  # type: ignore[arg-type]
        print(row("dd_table (4 seats)", res["table"]))  # type: ignore[arg-type]
        print(row("card_values, lead", res["cards"]))  # type: ignore[arg-type]
        if res["playout"]:
            print(row("whole-deal playout", res["playout"]))  # type: ignore[arg-type]
        print(f"nodes per second (all threads): {res['nps'] / 1e6:.2f} M")
        medians[name] = pct(res["seat"], 50)  # type: ignore[arg-type]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory (this process): {peak:.0f} MB")
    if not args.no_dds and args.deals > 0:
        dds = bench_dds(args.deals)
        med = pct(dds, 50)
        print(
            f"\nbridge DDS (endplay solve_board, spades trump, {len(dds)} deals): median "
            f"{1000 * med:.1f} ms, p90 {1000 * pct(dds, 90):.1f}, max {1000 * max(dds):.1f}"
        )
        for name, m in medians.items():
            print(f"  {name}: median one-seat solve / DDS median = {m / med:.1f}x")
    if args.techniques:
        left = args.technique_tricks
        print(f"\n### techniques ({args.techniques} positions {left} tricks from the end, 4 seats)")
        print("| variant | nodes | seconds | nodes vs all on |")
        print("|---|---|---|---|")
        rows = bench_techniques(args.techniques, left)
        base = rows[0][1]
        for label, nodes, secs in rows:
            print(f"| {label} | {nodes} | {secs:.2f} | {nodes / base:.2f}x |")


if __name__ == "__main__":
    main()
