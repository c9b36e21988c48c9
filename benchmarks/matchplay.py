"""Playing the match's last deal for the match: ``strong:match`` against ``strong`` on the same
last deals, with standings drawn from recorded play.

Each deal (``tournament_deal(seed, i)``) is played as a match's fifth and last deal, with the
four totals before it drawn as the sums of four deals' scores of the shipped equity recording
(``callbreak_lab.bidding.equity``: deals played by four ``model`` players). It is played once by
four ``strong`` players (the points baseline) and once for each seat with ``strong:match`` in that
seat and ``strong`` in the others (duplicate: the seat holds every hand). No time limit: the
players are deterministic, so the two plays of a seat differ only where the match objective
changed a card. Reports, for the match player against the baseline in the same seat: the share
of boards where its play changed, its share of matches won (ties shared) in each, the
difference with its standard error clustered by deal, and the points a board it gives up.

    .venv/bin/python benchmarks/matchplay.py --deals 200 --rules online
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import time

import numpy as np

from callbreak_lab import arena
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.arena.tournament import tournament_deal
from callbreak_lab.rules import Ruleset


def _standings(scores: np.ndarray, rng: np.random.Generator, deals: int) -> tuple[int, ...]:
    """Four totals after ``deals`` deals: each seat's sum of as many recorded seats' scores."""
    rows = rng.integers(len(scores), size=(4, deals))
    cols = rng.integers(4, size=(4, deals))
    return tuple(int(scores[rows[s], cols[s]].sum()) for s in range(4))


def _share(finals: list[int], seat: int) -> float:
    top = max(finals)
    return 1.0 / finals.count(top) if finals[seat] == top else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--rules", default="online")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from callbreak_lab.bidding.equity import equity_model

    rules = Ruleset.preset(args.rules)
    scores = np.asarray(equity_model(rules).scores.scores, dtype=np.int64)
    rng = np.random.default_rng(args.seed)
    points = [arena.make_player("strong", rules) for _ in range(4)]
    match = arena.make_player("strong:match", rules)
    diffs: list[float] = []  # per deal: the mean over seats of (match share - baseline share)
    changed = boards = 0
    cost: list[float] = []
    wins_m: list[float] = []
    wins_p: list[float] = []
    t0 = time.perf_counter()
    for i in range(args.deals):
        deal = tournament_deal(args.seed, i)
        totals = _standings(scores, rng, (rules.match_deals or 5) - 1)
        base = play_deal(deal, rules, points, totals=totals, deal_number=rules.match_deals or 5,
                         seed=args.seed, deal_index=i)  # fmt: skip
        per_deal = []
        for seat in range(4):
            players = list(points)
            players[seat] = match
            b = play_deal(deal, rules, players, totals=totals, deal_number=rules.match_deals or 5,
                          seed=args.seed, deal_index=i)  # fmt: skip
            boards += 1
            changed += b.plays != base.plays
            fm = [totals[s] + b.scores[s] for s in range(4)]
            fp = [totals[s] + base.scores[s] for s in range(4)]
            wins_m.append(_share(fm, seat))
            wins_p.append(_share(fp, seat))
            per_deal.append(wins_m[-1] - wins_p[-1])
            cost.append((base.scores[seat] - b.scores[seat]) / 10)
        diffs.append(float(np.mean(per_deal)))
        if (i + 1) % 10 == 0:
            print(f"  {i + 1} deals, {time.perf_counter() - t0:.0f} s", flush=True)
    d = np.array(diffs)
    se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else float("nan")
    c = np.array(cost).reshape(-1, 4).mean(axis=1)
    c_se = float(c.std(ddof=1) / math.sqrt(len(c))) if len(c) > 1 else float("nan")
    print(
        f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
        f"{os.cpu_count()} cores, {time.perf_counter() - t0:.0f} s"
    )
    print(f"{args.rules}: {args.deals} last deals, {boards} boards of strong:match, "
          f"play changed on {changed} ({changed / boards:.1%})")  # fmt: skip
    print(f"matches won: strong:match {np.mean(wins_m):.4f}, strong {np.mean(wins_p):.4f}, "
          f"difference {d.mean() * 100:+.2f} ± {se * 100:.2f} points of percentage "
          f"(s.e. by deal)")  # fmt: skip
    print(f"points a board given up: {c.mean():+.3f} ± {c_se:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
