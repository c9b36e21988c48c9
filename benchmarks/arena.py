"""Every built-in arena player against a field of three ``simple`` and of three ``pimc`` players.

For each field F (``--fields``) and each built-in player P other than F (``--players``), a
duplicate tournament ``[P, F, F, F]`` of ``--deals`` deals (four boards a deal: P holds every hand
once) under ``--rules``, with ``--jobs`` worker processes. Prints one table per field: P's margin
over F (points per board, standard error clustered by deal), mean score, calls, tricks, make rate,
faults, P's milliseconds per decision (median, p99, max) and the wall seconds per board. A player
against a field of its own copies scores exactly the field's (duplicate symmetry), so it is not
played. Each later player's margin is also given minus the first's, paired by deal (the same
deals against the same field, so each deal's luck cancels). ``--json FILE`` writes every
tournament's report, with each margin deal by deal.

    .venv/bin/python benchmarks/arena.py --deals 200 --jobs 2
    .venv/bin/python benchmarks/arena.py --deals 5 --fields simple --players pimc,cheater
    .venv/bin/python benchmarks/arena.py --fields pimc --players strong,cheater_model

Besides the built-ins, ``cheater_model`` (``CheaterPlayer(call="model")``: the bid model's
call, the cards of a player that sees every hand) is the ceiling of what play alone can gain
over ``strong`` and ``pimc``, which call the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

from callbreak_lab import arena
from callbreak_lab.arena.players import BUILTINS, CheaterPlayer
from callbreak_lab.util.fileio import atomic_open


def cpu_model() -> str:
    """The CPU model from /proc/cpuinfo (the platform's name elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def field_table(field: str, rows: list[tuple[str, arena.Report]]) -> str:
    out = [
        f"field: three {field}",
        "player   margin over field      score   call  tricks  made  faults   ms p50    p99"
        "     max   s/board",
    ]
    for name, report in rows:
        m = report.margin(name, field)
        p = report.player(name)
        per_board = report.seconds / len(report.boards)
        out.append(
            f"{name:<8} {m.margin:+6.2f} ± {m.se:4.2f}          {p.mean_score:+6.2f}  "
            f"{p.mean_call:5.2f}  {p.mean_tricks:6.2f}  {p.made:4.2f}  {p.faults:>6}  "
            f"{p.ms_p50:7.1f} {p.ms_p99:7.0f} {p.ms_max:7.0f}  {per_board:8.2f}"
        )
    ref = rows[0][1].player(field) if rows else None
    if ref is not None:
        out.append(
            f"({field} in the field: score {ref.mean_score:+.2f} against {rows[0][0]}, "
            f"ms p50 {ref.ms_p50:.1f}, p99 {ref.ms_p99:.0f}, max {ref.ms_max:.0f})"
        )
    return "\n".join(out)


def cheater_model() -> CheaterPlayer:
    """The ``cheater``'s cards with the bid model's calls."""
    return CheaterPlayer(call="model")


#: players this benchmark builds besides the built-ins, by the name ``--players`` takes
EXTRA = {"cheater_model": cheater_model}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="online")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--fields", default="simple,pimc")
    parser.add_argument("--players", default=",".join(BUILTINS))
    parser.add_argument("--budget", type=int, default=None, help="ms per decision")
    parser.add_argument("--json", default=None, help="write the reports to this file")
    args = parser.parse_args()
    print(
        f"benchmarks/arena.py: {args.rules}, {args.deals} deals (x4 boards), seed {args.seed}, "
        f"jobs {args.jobs}, budget {args.budget}; {cpu_model()} x {os.cpu_count()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        flush=True,
    )
    saved: dict[str, Any] = {}
    t_all = time.perf_counter()
    for field in args.fields.split(","):
        rows = []
        for name in args.players.split(","):
            if name == field:
                continue
            report = arena.run(
                [EXTRA.get(name, name), field, field, field],
                args.rules,
                deals=args.deals,
                seed=args.seed,
                n_jobs=args.jobs,
                time_limit=None if args.budget is None else args.budget / 1000,
            )
            rows.append((name, report))
            saved[f"{name} vs 3 {field}"] = report.to_dict()
            m = report.margin(name, field)
            print(
                f"  {name} vs 3 {field}: {m.margin:+.2f} ± {m.se:.2f} "
                f"({report.seconds:.0f} s, {report.seconds / len(report.boards):.2f} s a board)",
                flush=True,
            )
        print(field_table(field, rows), flush=True)
        for name, report in rows[1:]:  # paired by deal: each deal's luck cancels
            first, first_report = rows[0]
            d = report.margin(name, field).minus(first_report.margin(first, field))
            print(f"{name} minus {first}, paired by deal: {d.margin:+.2f} ± {d.se:.2f}")
            saved[f"{name} minus {first} vs 3 {field}"] = d.to_dict()
    print(f"total {time.perf_counter() - t_all:.0f} s")
    if args.json:
        with atomic_open(Path(args.json)) as f:
            f.write((json.dumps(saved, indent=1) + "\n").encode())


if __name__ == "__main__":
    main()
