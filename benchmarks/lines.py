"""Benchmark of annotated play lines: a full 13-trick ``play_line`` (every card's value for the
studied seat) and ``playout_line`` per deal, over N seeded random deals per preset.

Prints one table row per preset and kind: median, p90 and max seconds, how many lines took
over 2 s (issue #4's bar) and the median and largest search nodes of a line (both threads'),
then the five slowest lines, plus the machine and the load average (the machine may be shared).
The machine's speed drifts (the same code ran 1.4x slower one day than the day before, and the
same solve 1.3-2.0 s within minutes), so a fixed reference solve is timed before and after the
run, and nodes, which do not depend on the machine, count the work (with one search thread,
``CALLBREAK_LAB_SOLVER_THREADS=1``, they are the same on every run). One untimed warm-up line
first, so numba compilation is not counted. Each preset gets its own deals (seed + 100 * its
index in PRESETS + k, whichever presets run) so no preset reuses another's transposition-table
entries; on each deal ``play_line`` runs first and ``playout_line`` second with the solver's
table kept, as in interactive use.

    .venv/bin/python benchmarks/lines.py            # 5 deals per preset
    .venv/bin/python benchmarks/lines.py -n 10 --presets modern online
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import platform
import statistics
import time
from pathlib import Path

from callbreak_lab import PRESETS, Deal, Position
from callbreak_lab.analysis.lines import play_line, playout_line
from callbreak_lab.solver import api, default_threads
from callbreak_lab.solver._consts import ST_NODES

#: the reference solve, in an empty table: the root of the slowest line of sessions 19-24 (pagat
#: ``Deal.random(1416)`` seat 0, about 3 M nodes, 1.5 s on two threads on session 24's machine)
REFERENCE = (1416, 0, "pagat")


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or the platform's processor string)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def search_nodes() -> int:
    """Nodes searched so far by this thread's engine and its helper thread."""
    eng = api.engine()
    helper = eng._helper
    return int(eng.stats[ST_NODES]) + (0 if helper is None else int(helper.stats[ST_NODES]))


def reference_seconds() -> float:
    """Seconds of the reference solve in an empty table (the table is emptied again after)."""
    seed, seat, preset = REFERENCE
    eng = api.engine()
    eng.clear()
    t = time.perf_counter()
    api.solve(Deal.random(seed), seat, preset)
    dt = time.perf_counter() - t
    eng.clear()
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=5, help="deals per preset")
    ap.add_argument("--presets", nargs="*", default=list(PRESETS), help="presets to run")
    ap.add_argument("--seed", type=int, default=1000, help="first deal seed")
    args = ap.parse_args()

    warm = Position(Deal.random(args.seed - 1), "modern")
    play_line(warm, 0)
    playout_line(warm)

    ref_start = reference_seconds()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"machine: {os.cpu_count()} cpus, {cpu_model()}; date {datetime.date.today()}; "
        f"load average {load:.1f}; search threads {default_threads()} "
        "(CALLBREAK_LAB_SOLVER_THREADS)",
        flush=True,
    )
    print(
        f"{'preset':<8} {'kind':<12} {'deals':>5} {'median s':>9} {'p90 s':>6} {'max s':>7} "
        f"{'over 2 s':>8} {'cpu median s':>13} {'cpu max s':>10} {'M nodes med':>11} "
        f"{'M nodes max':>11}",
        flush=True,
    )
    slowest: list[tuple[float, str]] = []
    for name in args.presets:
        if name not in PRESETS:
            ap.error(f"unknown preset {name!r} (one of {', '.join(PRESETS)})")
        i = list(PRESETS).index(name)  # a preset's deals do not depend on which others run
        times: dict[str, list[float]] = {"play_line": [], "playout_line": []}
        cpu: dict[str, list[float]] = {"play_line": [], "playout_line": []}
        work: dict[str, list[int]] = {"play_line": [], "playout_line": []}
        for k in range(args.n):
            pos = Position(Deal.random(args.seed + 100 * i + k), name)
            for kind in ("play_line", "playout_line"):
                t, c, n = time.perf_counter(), time.process_time(), search_nodes()
                if kind == "play_line":
                    play_line(pos, k % 4)
                else:
                    playout_line(pos)
                times[kind].append(time.perf_counter() - t)
                cpu[kind].append(time.process_time() - c)
                work[kind].append(search_nodes() - n)
                seat = f" seat {k % 4}" if kind == "play_line" else ""
                label = f"{name} Deal.random({args.seed + 100 * i + k}){seat} {kind}"
                slowest.append((times[kind][-1], f"{label} ({work[kind][-1] / 1e6:.1f} M nodes)"))
        for kind, ts in times.items():
            cs = cpu[kind]
            ns = work[kind]
            p90 = statistics.quantiles(ts, n=10, method="inclusive")[-1] if len(ts) > 1 else ts[0]
            over = sum(t > 2.0 for t in ts)
            print(
                f"{name:<8} {kind:<12} {len(ts):>5} {statistics.median(ts):>9.3f} {p90:>6.3f} "
                f"{max(ts):>7.3f} {over:>8} {statistics.median(cs):>13.3f} {max(cs):>10.3f} "
                f"{statistics.median(ns) / 1e6:>11.2f} {max(ns) / 1e6:>11.2f}",
                flush=True,
            )
    slowest.sort(reverse=True)
    print("slowest lines: " + "; ".join(f"{label} {t:.2f} s" for t, label in slowest[:5]))
    seed, seat, preset = REFERENCE
    print(
        f"reference solve ({preset} Deal.random({seed}) seat {seat}, empty table): "
        f"{ref_start:.3f} s before the run, {reference_seconds():.3f} s after"
    )


if __name__ == "__main__":
    main()
