"""What a trick taken from the others is worth: ``strong`` with ``SearchPolicy.rivals`` swept.

    .venv/bin/python benchmarks/rivals.py [--rules online] [--deals 200] [--seed 0]
        [--weights 0,1.5,4,10,25,100] [--field pimc] [--budget 1000] [--jobs 2]

Each weight w plays a duplicate tournament of ``strong`` with ``rivals=w`` (a trick the seat
takes is worth w/3 points for each other seat still short of its call, on top of the seat's own
expected score; ``seat.policy.SearchPolicy.trick_points``) against three ``--field`` players,
on the same seeded deals, and prints its margin over the field and its margin minus the first
weight's, paired by deal (``arena.tournament.Margin.minus``): with ``0`` first, the change over
``strong`` itself.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import sys
import time
from pathlib import Path

from callbreak_lab.arena.players import StrongPlayer
from callbreak_lab.arena.tournament import Margin, run
from callbreak_lab.util.fileio import atomic_open

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arena import cpu_model  # benchmarks/arena.py, beside this script


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="online")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--weights", default="0,1.5,4,10,25,100")
    ap.add_argument("--field", default="pimc")
    ap.add_argument("--budget", type=int, default=1000, help="ms a decision")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write the margins to this file")
    args = ap.parse_args()
    try:
        weights = [float(w) for w in args.weights.split(",")]
    except ValueError:
        msg = f"--weights is a comma-separated list of numbers, got {args.weights!r}"
        raise SystemExit(msg) from None
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"benchmarks/rivals.py: {args.rules}, {args.deals} deals (x4 boards), seed {args.seed}, "
        f"field {args.field}, budget {args.budget} ms; {cpu_model()} x {os.cpu_count()}; {when}",
        flush=True,
    )
    margins: dict[float, Margin] = {}
    saved: dict[str, dict[str, object]] = {}
    for w in weights:
        label = f"rivals={w:g}"
        factory = functools.partial(StrongPlayer, budget_ms=args.budget, rivals=w)
        factory.label = label  # type: ignore[attr-defined]  (the tournament's name for it)
        t0 = time.perf_counter()
        field = [args.field] * 3
        report = run(
            [factory, *field], args.rules, args.deals, args.seed, jobs=args.jobs,
            budget_ms=args.budget, progress=False,
        )  # fmt: skip
        m = report.margin(label, args.field)
        p = report.player(label)
        margins[w] = m
        line = (
            f"  {label}: {m.margin:+.3f} ± {m.se:.3f} over three {args.field}; tricks "
            f"{p.mean_tricks:.2f}, made {p.made:.3f}, ms p99 {p.ms_p99:.0f} "
            f"({time.perf_counter() - t0:.0f} s)"
        )
        saved[label] = m.to_dict()
        if w != weights[0]:
            d = m.minus(margins[weights[0]])
            line += f"; minus rivals={weights[0]:g}, paired by deal: {d.margin:+.3f} ± {d.se:.3f}"
            saved[f"{label} minus rivals={weights[0]:g}"] = d.to_dict()
        print(line, flush=True)
        if args.json:
            with atomic_open(Path(args.json)) as f:
                f.write((json.dumps(saved, indent=1) + "\n").encode())


if __name__ == "__main__":
    main()
