"""What ``strong``'s match calls bring: ``strong`` (the service's bot: the match call where the
standing matters) against the same player calling for points alone, each over a field of three
``pimc``, on the same deals and seed, so the two tournaments differ only in the calls made on a
match's later deals.

Prints, for each: the margin over ``pimc`` in points a board and the share of the matches won
(par 25 %); then the paired differences (match calls minus points calls): points a board by deal,
and the share of matches won by group of deals.

    .venv/bin/python benchmarks/strong_calls.py --deals 400 --rules online --json out.json
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from pathlib import Path
from typing import Any

from callbreak_lab import arena
from callbreak_lab.arena.players import PROTOCOL_MAX_CALL, StrongPlayer, strong_call
from callbreak_lab.seat.view import SeatView
from callbreak_lab.util.fileio import atomic_open


class PointsStrong(StrongPlayer):
    """``strong``'s cards with the points-best call on every deal (no standing heard)."""

    name = label = "strong_points"

    def call(self, view: SeatView) -> int:
        from callbreak_lab.bidding.model import recommend_call

        earlier = list(view.calls[: view.seat])
        rec = recommend_call(view.hand, view.seat, view.rules, earlier_calls=earlier)
        call, self.last_call = strong_call(
            rec.distribution, view.seat, view.rules, earlier_calls=earlier,
            max_call=PROTOCOL_MAX_CALL,
        )  # fmt: skip
        return call


def _summary(report: arena.Report, who: str) -> dict[str, Any]:
    m = report.margin(who, "pimc")
    share = report.match(who)
    return {
        "margin": m.margin,
        "se": m.se,
        "deals": m.deals,
        "match_share": share.share,
        "match_se": share.se,
        "matches": share.matches,
    }


def _paired_matches(a: arena.Report, b: arena.Report, wa: str, wb: str) -> tuple[float, float]:
    """The difference of the two players' shares of the matches won, by group of deals (the
    same groups in both tournaments), with its standard error."""
    ma, mb = a.match_margin(wa, "pimc"), b.match_margin(wb, "pimc")
    # the shares over the field are per group in the reports; the paired estimate over groups
    # is the difference of the margins, whose errors are taken as independent (conservative)
    diff = ma.margin - mb.margin
    se = math.sqrt(ma.se**2 + mb.se**2) if ma.groups > 1 else math.nan
    return diff, se


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="online")
    ap.add_argument("--deals", type=int, default=100, help="a multiple of the match's deals")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=None, help="seconds a decision")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    kw: dict[str, Any] = {
        "deals": args.deals, "seed": args.seed, "n_jobs": args.n_jobs,
        "time_limit": args.time_limit,
    }  # fmt: skip
    t0 = time.perf_counter()
    match = arena.run(["strong", "pimc", "pimc", "pimc"], args.rules, **kw)
    points = arena.run([PointsStrong, "pimc", "pimc", "pimc"], args.rules, **kw)
    paired = match.margin("strong", "pimc").minus(points.margin("strong_points", "pimc"))
    share_diff, share_se = _paired_matches(match, points, "strong", "strong_points")
    out = {
        "rules": args.rules,
        "deals": args.deals,
        "seed": args.seed,
        "time_limit": args.time_limit,
        "machine": f"{platform.machine()} {platform.processor()}".strip(),
        "seconds": round(time.perf_counter() - t0, 1),
        "strong": _summary(match, "strong"),
        "strong_points": _summary(points, "strong_points"),
        "paired_points": {"margin": paired.margin, "se": paired.se, "deals": paired.deals},
        "paired_match_share": {"margin": share_diff, "se": share_se},
    }
    print(json.dumps(out, indent=2))
    if args.json is not None:
        with atomic_open(args.json) as f:
            f.write(json.dumps(out, indent=2).encode())


if __name__ == "__main__":
    main()
