"""Playing for the match: the equity's errors and speed, and what calling for the match gains.

Part 1, the equity (``callbreak_lab.bidding.equity``) of every shipped preset: the recorded deals
(how many, by which players, each deal seat's mean score), the standard error of a seat's equity
over a grid of standings (seat 0 from 20 points behind to 20 ahead of three level seats) for 1
to 4 deals left, the estimate against a direct simulation of whole matches (from the card made
by ``scripts/make_equity.py``), how much a seat's place at the table moves the equity of level
totals, and the time of one ``match_equity`` and one ``match_call``.

Part 2, the arena: a duplicate tournament ``[model:match, model, model, model]`` of ``--deals``
deals under each of ``--rules`` (``arena.matchcall.MatchModelPlayer``: the bid model's
distribution, the match-aware call, ``simple``'s cards; against it three ``model`` players
calling for points with the same cards). Prints the match player's share of the matches won
against the field's, the difference with its 95 % interval (clustered by group of deals), and
the points a board the match calls cost. ``--scores FILE`` gives the match player an equity
over other recorded deals (e.g. ``model`` players', ``scripts/make_equity.py --players model
--out DIR``) instead of the shipped ones.

    .venv/bin/python benchmarks/match.py --deals 10000 --rules online
    .venv/bin/python benchmarks/match.py --skip-arena
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import platform
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from callbreak_lab import PRESETS, arena
from callbreak_lab.arena.matchcall import MatchModelPlayer
from callbreak_lab.bidding.equity import EquityModel, equity_model, match_equity
from callbreak_lab.bidding.match import match_call
from callbreak_lab.util.fileio import atomic_open

MODELS = Path(__file__).resolve().parent.parent / "callbreak_lab" / "models"


def cpu_model() -> str:
    """The CPU model from /proc/cpuinfo (the platform's name elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def equity_part(preset: str) -> dict[str, Any]:
    """The equity of one preset: recording, errors, seat effect, direct check, timings."""
    model = equity_model(preset)
    scores = model.scores
    card = json.loads((MODELS / f"equity_{preset}.json").read_text())
    means = (scores.scores.mean(axis=0) / 10).round(3).tolist()
    errors: dict[int, dict[str, float]] = {}
    for d in range(1, 5):
        ses = [max(match_equity((g, 0, 0, 0), d, preset).se) for g in range(-200, 201, 10)]
        errors[d] = {"mean_se": float(np.mean(ses)), "max_se": float(np.max(ses))}
    alike = EquityModel(scores, exchangeable=True)
    seat_effect = {
        d: float(
            np.ptp(model.equity((0, 0, 0, 0), d)[0]) - np.ptp(alike.equity((0, 0, 0, 0), d)[0])
        )
        for d in (1, 4)
    }
    t = []
    for i in range(50):
        t0 = time.perf_counter()
        match_equity((i * 3, -i, 10, 0), 1 + i % 4, preset)
        t.append(time.perf_counter() - t0)
    hand = "KQJ5.A98.AQ5.K32"
    # the bid model loaded, the futures drawn
    match_call(hand, 0, preset, totals=(0, 30, 0, 0), deal_of_match=5)
    c = []
    for i in range(30):
        t0 = time.perf_counter()
        match_call(hand, i % 4, preset, totals=(0, 10 * i, 0, -5), deal_of_match=2 + i % 4)
        c.append(time.perf_counter() - t0)
    return {
        "preset": preset,
        "deals": len(scores),
        "players": scores.players,
        "seat_means": means,
        "errors": errors,
        "direct_largest_abs_z": card["equity"]["largest_abs_z"],
        "direct_checks": len(card["equity"]["direct_simulation"]),
        "seat_effect_level": seat_effect,
        "lead_2_before_last": match_equity((20, 0, 0, 0), 1, preset).p[0],
        "equity_ms": 1000 * statistics.median(t),
        "match_call_ms": 1000 * statistics.median(c),
    }


def equity_table(rows: Sequence[dict[str, Any]]) -> str:
    out = [
        "preset  deals  players  seat means (points)       s.e. mean/max by deals left 1..4"
        "                 |z| direct  place effect d=1/4  2-pt lead, 1 left  ms equity/call"
    ]
    for r in rows:
        se = "  ".join(
            f"{100 * r['errors'][d]['mean_se']:.2f}/{100 * r['errors'][d]['max_se']:.2f}"
            for d in range(1, 5)
        )
        eff = r["seat_effect_level"]
        out.append(
            f"{r['preset']:<7} {r['deals']:>5}  {r['players']:<7}  "
            f"{' '.join(f'{m:.2f}' for m in r['seat_means']):<24}  {se}  "
            f"{r['direct_largest_abs_z']:>10.2f}  {100 * eff[1]:5.2f}/{100 * eff[4]:.2f} pp  "
            f"{100 * r['lead_2_before_last']:6.1f} %  "
            f"{r['equity_ms']:6.1f}/{r['match_call_ms']:.1f}"
        )
    return "\n".join(out)


def arena_part(rules: str, deals: int, seed: int, scores: str | None, jobs: int) -> dict[str, Any]:
    """The match player against three ``model`` players."""
    player: Any = functools.partial(MatchModelPlayer, scores=scores)
    player.label = "model:match"
    t0 = time.perf_counter()
    report = arena.run(
        [player, "model", "model", "model"], rules, deals=deals, seed=seed, n_jobs=jobs
    )
    seconds = time.perf_counter() - t0
    mine, field = report.match("model:match"), report.match("model")
    margin = report.match_margin("model:match", "model")
    points = report.margin("model:match", "model")
    me = report.player("model:match")
    return {
        "rules": rules,
        "deals": deals,
        "seed": seed,
        "scores": scores or "shipped",
        "matches": report.match_count,
        "groups": margin.groups,
        "share": mine.share,
        "share_se": mine.se,
        "field_share": field.share,
        "margin": margin.margin,
        "margin_se": margin.se,
        "ci95": [margin.margin - 1.96 * margin.se, margin.margin + 1.96 * margin.se],
        "points_margin": points.margin,
        "points_se": points.se,
        "made": me.made,
        "mean_call": me.mean_call,
        "field_made": report.player("model").made,
        "field_call": report.player("model").mean_call,
        "call_ms_p50": me.ms_p50,
        "call_ms_p99": me.ms_p99,
        "seconds": seconds,
    }


def arena_line(r: dict[str, Any]) -> str:
    lo, hi = r["ci95"]
    return (
        f"{r['rules']}, {r['deals']} deals ({r['matches']} matches, {r['groups']} groups), "
        f"equity {r['scores']}: model:match wins {100 * r['share']:.1f} % ± "
        f"{100 * r['share_se']:.1f}, each model {100 * r['field_share']:.1f} %; difference "
        f"{100 * r['margin']:+.2f} ± {100 * r['margin_se']:.2f} pp (95 %: {100 * lo:+.2f} .. "
        f"{100 * hi:+.2f}); points a board {r['points_margin']:+.3f} ± {r['points_se']:.3f}; "
        f"made {r['made']:.3f} vs {r['field_made']:.3f}, mean call {r['mean_call']:.2f} vs "
        f"{r['field_call']:.2f}; decision ms p50 {r['call_ms_p50']:.1f} p99 "
        f"{r['call_ms_p99']:.0f}; {r['seconds']:.0f} s"
    )


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rules", nargs="+", default=["online"], choices=list(PRESETS))
    p.add_argument("--deals", type=int, default=2000, help="arena deals a preset (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1, help="arena worker processes")
    p.add_argument("--scores", default=None, help="recorded deals for the match player's equity")
    p.add_argument("--skip-equity", action="store_true", help="only the arena")
    p.add_argument("--skip-arena", action="store_true", help="only the equity")
    p.add_argument("--json", type=Path, default=None, help="write every figure to this file")
    args = p.parse_args(argv)
    out: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
    }
    print(f"{out['date']}, {out['cpu']} x {out['cores']}")
    if not args.skip_equity:
        rows = [equity_part(preset) for preset in PRESETS]
        out["equity"] = rows
        print(equity_table(rows))
    if not args.skip_arena:
        out["arena"] = []
        for rules in args.rules:
            r = arena_part(rules, args.deals, args.seed, args.scores, args.jobs)
            out["arena"].append(r)
            print(arena_line(r), flush=True)
    if args.json is not None:
        with atomic_open(args.json) as f:
            f.write((json.dumps(out, indent=2) + "\n").encode())
    return 0 if all(math.isfinite(r["margin"]) for r in out.get("arena", [])) else 1


if __name__ == "__main__":
    raise SystemExit(main())
