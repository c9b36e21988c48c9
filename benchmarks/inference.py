"""How well the hidden cards are placed: uniform layouts against layouts weighted by the calls.

    .venv/bin/python benchmarks/inference.py [--deals 100] [--rules online,modern]
        [--players model] [--betas 0,1,2,4] [--layouts 32]

Plays ``--deals`` seeded tournament deals with four ``--players`` (``model``: the bid model's
calls and simple card play; ``simple``: aces-and-kings calls), then for every seat at three
moments (the start of play, after 4 tricks and after 8) samples ``--layouts`` layouts of the
cards that seat has not seen, with the call weighting's ``beta`` of each of ``--betas`` (0 is
the uniform sampler), and reports the share of the hidden cards a layout puts in the seat that
really holds them (averaged over cards, layouts, seats and deals), ± its standard error by
deal. A random guess among the other three seats scores 1/3 at the start.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time

import numpy as np

from callbreak_lab.arena import run
from callbreak_lab.game import parse_record
from callbreak_lab.seat import Knowledge, draw

MOMENTS = (0, 16, 32)  # cards played: the start of play, after 4 tricks, after 8


def placed_right(board: object, seat: int, cards: int, beta: float, n: int, seed: int) -> float:
    """Share of the hidden cards that ``seat`` sees in the right seat, over ``n`` layouts."""
    deal = board.deal  # type: ignore[attr-defined]
    played = parse_record(board.plays)  # type: ignore[attr-defined]
    # who played each card: replay the record
    pos = board.position(0)  # type: ignore[attr-defined]
    history = []
    for c in played[:cards]:
        history.append((pos.to_move, int(c)))
        pos.play(c)
    dealt = [deal[s].mask for s in range(4)]
    hand_now = dealt[seat] & ~sum(1 << c for s, c in history if s == seat)
    calls = list(board.calls)  # type: ignore[attr-defined]
    k = Knowledge.from_history(board.rules, seat, hand_now, history, calls)  # type: ignore[attr-defined]
    w = draw(k, n, seed, beta=beta)
    seen = hand_now
    for _, c in history:
        seen |= 1 << c
    hidden = [c for c in range(52) if not seen >> c & 1]
    owner = {c: s for s in range(4) for c in range(52) if dealt[s] >> c & 1}
    right = 0.0
    for row, weight in zip(w.rows, w.weights, strict=True):  # repeats merged: weighted
        for c in hidden:
            right += weight * (int(row[owner[c]]) >> c & 1)
    return right / (len(hidden) * float(w.weights.sum()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--rules", default="online,modern")
    ap.add_argument("--players", default="model")
    ap.add_argument("--betas", default="0,1,2,4")
    ap.add_argument("--layouts", type=int, default=32)
    args = ap.parse_args(argv)
    betas = [float(b) for b in args.betas.split(",")]
    t0 = time.time()
    print(f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores")
    for rules in args.rules.split(","):
        players = [f"p{i}={args.players}" for i in range(4)]
        report = run(players, rules, args.deals, seed=0, progress=False)
        boards = [b for b in report.boards if b.rotation == 0]
        print(f"\n{rules}, {len(boards)} deals, players {args.players}, {args.layouts} layouts")
        print("| beta | start of play | after 4 tricks | after 8 tricks |")
        print("|---|---|---|---|")
        for beta in betas:
            cells = []
            for moment in MOMENTS:
                per_deal = [
                    np.mean(
                        [
                            placed_right(b, s, moment, beta, args.layouts, 1000 * i + s)
                            for s in range(4)
                        ]
                    )
                    for i, b in enumerate(boards)
                ]
                se = np.std(per_deal, ddof=1) / np.sqrt(len(per_deal))
                cells.append(f"{np.mean(per_deal):.3f} ± {se:.3f}")
            label = "uniform (0)" if beta == 0 else f"{beta:g}"
            print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
