"""The card without search: the learned play policy's likeliest card against the cheap card.

``learned`` (``seat.policy.LEARNED``) and ``cheap`` (``seat.policy.cheap_card`` at every
decision: ``PIMC`` with no search) call alike (the bid model) and differ only in the card they
play when there is no time to search, which is what ``strong`` and the service's bot fall back
on (``SearchPolicy.fallback``). A duplicate tournament ``[learned, cheap, cheap, cheap]`` of
``--deals`` deals under each of ``--rules``; the margin is what the learned card is worth over
the cheap one, a board.

    .venv/bin/python benchmarks/instant.py --deals 200 --rules online,modern --jobs 2
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from callbreak_lab import arena
from callbreak_lab.arena.players import PolicyPlayer
from callbreak_lab.seat import PIMC


class Cheap:
    """A picklable factory of the ``cheap`` player (the cheap card at every decision)."""

    label = "cheap"

    def __call__(self) -> Any:
        return PolicyPlayer(PIMC.replace(search_cards=0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="online,modern")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(
        f"benchmarks/instant.py: {args.deals} deals (x4 boards), seed {args.seed}, jobs "
        f"{args.jobs}; {os.cpu_count()} cores; {now}",
        flush=True,
    )
    for rules in args.rules.split(","):
        report = arena.run(
            ["learned", Cheap(), Cheap(), Cheap()],
            rules,
            deals=args.deals,
            seed=args.seed,
            n_jobs=args.jobs,
        )
        m = report.margin("learned", "cheap")
        p = report.player("learned")
        print(
            f"  {rules}: learned over three cheap {m.margin:+.2f} ± {m.se:.2f} a board, score "
            f"{p.mean_score:+.2f}, made {p.made:.2f}, ms p50 {p.ms_p50:.2f} p99 {p.ms_p99:.1f} "
            f"({report.seconds:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
