"""Would another call have paid? Each seat's call moved by one, scored with the tricks it took.

    .venv/bin/python benchmarks/calls.py [--rules online] [--deals 200] [--seed 0]
        [--players strong,pimc,pimc,pimc] [--budget 1000] [--records DIR]

Plays a duplicate tournament (``arena.tournament.run``, ``--jobs`` processes) of the four
``--players``, or reads the board records a tournament wrote (``--records`` of an existing
folder holding ``board-*.json``; a folder that does not exist receives the new run's records),
and for each player name reports its mean call, tricks and make rate, then the points a board
it would have gained by calling one less, one more or two more with the same tricks (the
preset's own scoring; ± s.e. clustered by deal), and per call the make rate and the gain of one
more. A player's play answers its call, so these are first-order figures: a better-calibrated
call shows up as losses both ways.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from callbreak_lab.arena.records import Board, load_record
from callbreak_lab.arena.tournament import run
from callbreak_lab.util.fileio import atomic_open

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arena import cpu_model  # benchmarks/arena.py, beside this script


def boards_of(args: argparse.Namespace) -> list[Board]:
    """The boards of ``--records`` when it holds records, else of a new tournament."""
    folder = None if args.records is None else Path(args.records)
    if folder is not None and folder.is_dir() and any(folder.glob("board-*.json")):
        return [load_record(p) for p in sorted(folder.glob("board-*.json"))]
    players = [p.strip() for p in args.players.split(",")]
    report = run(
        players, args.rules, deals=args.deals, seed=args.seed, n_jobs=args.jobs,
        time_limit=args.budget / 1000 if args.budget else None, records=folder,
    )  # fmt: skip
    print(report.text())
    if folder is None:
        raise SystemExit("--records is needed to read the boards back")
    return [load_record(p) for p in sorted(folder.glob("board-*.json"))]


def clustered(gain: list[tuple[int, float]]) -> tuple[float, float]:
    """Mean of the gains and its standard error clustered by deal."""
    by_deal: dict[int, list[float]] = defaultdict(list)
    for deal, g in gain:
        by_deal[deal].append(g)
    means = np.array([np.mean(v) for v in by_deal.values()])
    se = float(np.std(means, ddof=1) / np.sqrt(len(means))) if len(means) > 1 else float("nan")
    return float(np.mean([g for _, g in gain])), se


def report(boards: list[Board]) -> dict[str, dict[str, object]]:
    """Per player: call, tricks, made, the gains of calling -1/+1/+2, and per call."""
    rows: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for b in boards:
        for seat in range(4):
            rows[b.players[seat]].append((b.deal_index, b.calls[seat], b.tricks[seat]))
    rules = boards[0].rules
    out: dict[str, dict[str, object]] = {}
    for name, seats in rows.items():
        calls = np.array([c for _, c, _ in seats])
        tricks = np.array([t for _, _, t in seats])
        entry: dict[str, object] = {
            "boards": len(seats),
            "call": round(float(calls.mean()), 3),
            "tricks": round(float(tricks.mean()), 3),
            "made": round(float(np.mean(tricks >= calls)), 3),
        }
        for step in (-1, 1, 2):
            gain = []
            for deal, c, t in seats:
                moved = min(max(c + step, rules.min_call), rules.max_call)
                gain.append((deal, (rules.score(moved, t) - rules.score(c, t)) / 10))
            mean, se = clustered(gain)
            entry[f"{step:+d}"] = [round(mean, 3), round(se, 3)]
        per_call = {}
        for c in sorted(set(calls.tolist())):
            ts = tricks[calls == c]
            up = c + 1 if c < rules.max_call else c
            gain_up = np.mean([(rules.score(up, int(t)) - rules.score(c, int(t))) / 10 for t in ts])
            per_call[str(c)] = {
                "n": len(ts),
                "tricks": round(float(ts.mean()), 2),
                "made": round(float(np.mean(ts >= c)), 3),
                "one more": round(float(gain_up), 3),
            }
        entry["by call"] = per_call
        out[name] = entry
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="online")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--players", default="strong,pimc,pimc,pimc")
    ap.add_argument("--budget", type=int, default=1000, help="ms a decision (0: none)")
    ap.add_argument("--records", help="a folder of board records (read, or written by the run)")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    boards = boards_of(args)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    cpus = f"{cpu_model()} x {os.cpu_count()}"
    print(f"benchmarks/calls.py: {len(boards)} boards, {cpus}, {when}")
    figures = report(boards)
    for name, e in figures.items():
        print(
            f"{name}: {e['boards']} boards, call {e['call']}, tricks {e['tricks']}, made "
            f"{e['made']}; a call one less {e['-1']}, one more {e['+1']}, two more {e['+2']}"
        )
        for c, row in e["by call"].items():  # type: ignore[attr-defined]
            print(f"   call {c}: {row}")
    if args.json:
        with atomic_open(Path(args.json)) as f:
            f.write(json.dumps(figures, indent=1).encode())


if __name__ == "__main__":
    main()
