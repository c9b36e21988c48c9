"""Single-dummy advice at work: the time of one decision's values by trick, and of a review.

    .venv/bin/python benchmarks/advice.py decisions [--deals 24] [--layouts 32] [--rules online]
        [--tricks 1,2,4,7,10] [--time-limit S]
    .venv/bin/python benchmarks/advice.py reviews [--deals 6] [--layouts 32] [--rules online]

``decisions`` plays ``--deals`` seeded deals with four ``simple`` players and, at trick 1, 2,
4, 7 and 10 (``--tricks``; the card of seat ``deal % 4`` in the trick), times
``advice.single_dummy_values`` with ``--layouts`` layouts (the solver's default threads: two
on a machine with two cores) and reports the median, p90 and max seconds, and how often the
answer was exact (every consistent layout taken), how often ``--time-limit`` stopped it and
how many distinct layouts it solved. ``reviews`` times ``review.review_play`` of
whole deals played by ``simple`` and ``pimc`` players (every seat judged).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time

import numpy as np

from callbreak_lab import solver
from callbreak_lab.advice import single_dummy_values
from callbreak_lab.arena import make_player
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.cards import Deal
from callbreak_lab.game import Position
from callbreak_lab.review import review_play

TRICKS = (1, 2, 4, 7, 10)


def _header(args: argparse.Namespace) -> None:
    cpu = platform.processor() or platform.machine()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"benchmarks/advice.py {args.mode}: {vars(args)}; {cpu} x {os.cpu_count()}; {now}")


def decisions(args: argparse.Namespace) -> None:
    players = [make_player("simple") for _ in range(4)]
    boards = [play_deal(Deal.random(700 + i), args.rules, players) for i in range(args.deals)]
    print("trick  decisions  median s  p90 s  max s  exact  stopped  layouts median  min")
    for trick in args.tricks:
        times, exact, stopped, solved = [], 0, 0, []
        for i, b in enumerate(boards):
            k = 4 * (trick - 1) + i % 4
            pos = Position.replay(b.deal, " ".join(b.plays.replace("|", " ").split()[:k]), b.rules)
            if len(pos.legal_cards()) < 2:
                continue
            t0 = time.perf_counter()
            sd = single_dummy_values(
                pos, pos.to_move, b.calls, args.layouts, seed=i, time_limit=args.time_limit
            )
            times.append(time.perf_counter() - t0)
            exact += sd.exact
            stopped += sd.stopped_early
            solved.append(sd.distinct)
        t = np.array(times)
        print(f"{trick:>5}  {len(t):>9}  {np.median(t):8.3f}  {np.quantile(t, 0.9):5.2f}  "
              f"{t.max():5.2f}  {exact:>5}  {stopped:>7}  {np.median(solved):>14.0f}  "
              f"{min(solved):>3}")  # fmt: skip


def reviews(args: argparse.Namespace) -> None:
    players = [make_player(p) for p in ("simple", "pimc", "simple", "pimc")]
    times = []
    for i in range(args.deals):
        b = play_deal(Deal.random(800 + i), args.rules, players)
        t0 = time.perf_counter()
        rv = review_play(b.deal, b.plays, b.rules, b.calls, args.layouts, seed=i)
        times.append(time.perf_counter() - t0)
        judged = sum(c.sd is not None for c in rv.cards)
        print(f"deal {i}: {times[-1]:.1f} s, {judged} cards judged, "
              f"{len(rv.mistakes(100))} costing more than {rv.threshold} points")  # fmt: skip
    t = np.array(times)
    print(f"review of a whole deal: median {np.median(t):.1f} s, max {t.max():.1f} s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=("decisions", "reviews"))
    p.add_argument("--deals", type=int, default=None)
    p.add_argument("--layouts", type=int, default=32)
    p.add_argument("--rules", default="online")
    p.add_argument(
        "--tricks",
        type=lambda t: [int(x) for x in t.split(",")],
        default=list(TRICKS),
        help="tricks at which to time a decision, e.g. 1 or 1,2,4 (decisions)",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="seconds a decision may take (advice's time_limit, as the widgets' hint uses)",
    )
    args = p.parse_args()
    if args.deals is None:
        args.deals = 24 if args.mode == "decisions" else 6
    _header(args)
    solver.warm_up()
    (decisions if args.mode == "decisions" else reviews)(args)


if __name__ == "__main__":
    main()
