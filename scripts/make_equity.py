"""Record arena deals per preset and ship them as the match equity's model of a deal.

    python scripts/make_equity.py --deals 8000 --players model --chunk 1000
    python scripts/make_equity.py --rules online --deals 400 --out /tmp/equity   # a small one

For each preset (``--rules``): play tournament deals ``0 .. --deals - 1`` (seed ``--seed``)
with four copies of the arena player ``--players`` and record every seat's call and tricks
(``callbreak_lab.arena.matchcall.record_deals``), in chunks of ``--chunk`` deals written
atomically to ``--work/<preset>-<players>-s<seed>/``; a rerun reuses the chunks already there
(resumable). Then it writes ``equity_<preset>.npz`` (the recorded deals, package data read by
``callbreak_lab.bidding.equity``) and ``equity_<preset>.json`` (its card: how it was made, the
deals' figures, the equity's standard errors over a grid of standings and a check of the estimate
against a direct simulation of whole matches) to ``--out``, atomically.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from callbreak_lab import __version__
from callbreak_lab.bidding.equity import (
    FORMAT,
    DealScores,
    EquityModel,
    win_shares,
)
from callbreak_lab.rules import PRESETS, Ruleset
from callbreak_lab.util.fileio import atomic_open, sha256_file
from callbreak_lab.util.stats import mean_se, standard_errors

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "callbreak_lab" / "models"
WORK = ROOT / "build" / "equity"
#: the standings the card checks against a direct simulation: (totals in tenths, deals left)
CHECKS: tuple[tuple[tuple[int, int, int, int], int], ...] = (
    ((20, 0, 0, 0), 1),
    ((0, -30, 0, 0), 1),
    ((50, 20, 0, -40), 2),
    ((0, 0, 0, 0), 3),
    ((-60, 31, 0, 12), 4),
)


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rules", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    p.add_argument("--deals", type=int, default=8000, help="deals per preset (default 8000)")
    p.add_argument("--players", default="model", help="the arena player at all four seats")
    p.add_argument("--seed", type=int, default=0, help="the tournament seed of the deals")
    p.add_argument("--chunk", type=int, default=200, help="deals a chunk file (default 200)")
    p.add_argument("--work", type=Path, default=WORK, help="chunk directory (build/equity)")
    p.add_argument("--out", type=Path, default=MODELS, help="output (callbreak_lab/models)")
    p.add_argument(
        "--check-matches", type=int, default=200_000, help="matches of the direct simulation"
    )
    return p.parse_args(argv)


def _chunk(directory: Path, rules: Ruleset, players: str, seed: int, first: int,
           count: int) -> tuple[DealScores, float]:  # fmt: skip
    """The chunk of deals ``first ..``: read when a file of the same recording is there, else
    played and written. Returns it and the seconds spent playing (0 when read)."""
    path = directory / f"chunk-{first:07d}-{first + count:07d}.npz"
    if path.is_file():
        try:
            found = DealScores.load(path)
        except Exception as e:  # a damaged chunk is played again
            print(f"  {path.name}: unreadable ({e}); playing it again", file=sys.stderr)
        else:
            same = (found.rules, found.players, found.seed, found.first, len(found))
            if same == (rules, players, seed, first, count):
                return found, 0.0
            print(f"  {path.name}: another recording; playing it again", file=sys.stderr)
    from callbreak_lab.arena.matchcall import record_deals

    t0 = time.perf_counter()
    part = record_deals(rules, players, count, seed=seed, first=first)
    spent = time.perf_counter() - t0
    part.save(path)
    return part, spent


def record(rules: Ruleset, args: argparse.Namespace) -> tuple[DealScores, float, int]:
    """Every chunk of ``rules``' recording (reused or played); the seconds spent playing and
    the deals played in this run."""
    directory = args.work / f"{rules.name}-{args.players}-s{args.seed}"
    parts, seconds, played = [], 0.0, 0
    for first in range(0, args.deals, args.chunk):
        count = min(args.chunk, args.deals - first)
        part, spent = _chunk(directory, rules, args.players, args.seed, first, count)
        parts.append(part)
        if spent:
            seconds += spent
            played += count
            done = first + count
            print(f"  {rules.name}: {done}/{args.deals} deals ({spent / count:.3f} s a deal)",
                  file=sys.stderr, flush=True)  # fmt: skip
    return DealScores.concat(parts), seconds, played


def deal_figures(scores: DealScores) -> dict[str, Any]:
    """The recorded deals' figures: per deal seat the mean score (points, standard error),
    its spread, make rate and mean call; the correlation of two seats' scores in a deal."""
    s = scores.scores.astype(np.float64) / 10
    made = s > 0
    per_seat = []
    for seat in range(4):
        mean, se = mean_se(s[:, seat])
        per_seat.append(
            {
                "seat": seat,
                "mean_points": round(mean, 3),
                "se": round(se, 3),
                "sd": round(float(s[:, seat].std(ddof=1)), 3),
                "made": round(float(made[:, seat].mean()), 4),
                "mean_call": round(float(scores.calls[:, seat].mean()), 3),
            }
        )
    corr = np.asarray(np.corrcoef(s.T))
    next_seat = float(np.mean([corr[i, (i + 1) % 4] for i in range(4)]))
    across = float(np.mean([corr[0, 2], corr[1, 3]]))
    return {
        "per_seat": per_seat,
        "correlation_next_seat": round(next_seat, 4),
        "correlation_across": round(across, 4),
        "calls_above_8": round(float((scores.calls > 8).mean()), 5),
    }


def direct(scores: np.ndarray, totals: Sequence[int], deals_left: int, matches: int,
           seed: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Whole matches simulated directly: ``deals_left`` recorded deals drawn with replacement,
    deal ``k`` passed ``k`` seats on (table seat ``t`` holds deal seat ``t - k``), no seat
    permutation; each seat's mean share of the win and its standard error."""
    rng = np.random.default_rng(seed)
    finals = np.tile(np.asarray(totals, dtype=np.int64), (matches, 1))
    for k in range(deals_left):
        finals += np.roll(scores[rng.integers(len(scores), size=matches)], k, axis=1)
    shares = win_shares(finals)
    return shares.mean(axis=0), standard_errors(shares)


def equity_checks(model: EquityModel, rules: Ruleset, matches: int) -> dict[str, Any]:
    """The equity's standard errors over a grid of standings, and the estimate against a
    direct simulation of ``matches`` whole matches at ``CHECKS``."""
    n = rules.match_length()
    grid: dict[str, Any] = {}
    for d in range(1, n):
        ses = []
        for gap in range(-200, 201, 10):  # seat 0 against three level seats, gap in tenths
            _, se = model.equity((gap, 0, 0, 0), d)
            ses.append(float(se.max()))
        lead = {str(g): round(float(model.equity((g, 0, 0, 0), d)[0][0]), 4) for g in (0, 20, 50)}
        grid[str(d)] = {"max_se": round(max(ses), 5), "mean_se": round(float(np.mean(ses)), 5),
                        "seat_0_wins_with_a_lead_of_tenths": lead}  # fmt: skip
    checks = []
    worst = 0.0
    for i, (totals, d) in enumerate(CHECKS):
        if d > n - 1:
            continue
        p, se = model.equity(totals, d)
        q, qse = direct(model.scores.scores, totals, d, matches, seed=1000 + i)
        z = (p - q) / np.sqrt(se**2 + qse**2)
        worst = max(worst, float(np.abs(z).max()))
        checks.append(
            {
                "totals": list(totals),
                "deals_left": d,
                "equity": [round(float(x), 4) for x in p],
                "se": [round(float(x), 4) for x in se],
                "direct": [round(float(x), 4) for x in q],
                "direct_se": [round(float(x), 4) for x in qse],
                "z": [round(float(x), 2) for x in z],
            }
        )
    return {"by_deals_left": grid, "direct_simulation": checks, "largest_abs_z": round(worst, 2)}


def make(preset: str, args: argparse.Namespace) -> dict[str, Any]:
    rules = Ruleset.preset(preset)
    print(f"{preset}: {args.deals} deals by four {args.players}", file=sys.stderr, flush=True)
    scores, seconds, played = record(rules, args)
    path = scores.save(args.out / f"equity_{preset}.npz")
    model = EquityModel(scores)
    t0 = time.perf_counter()
    checks = equity_checks(model, rules, args.check_matches)
    card = {
        "format": FORMAT,
        "preset": preset,
        "players": args.players,
        "seed": args.seed,
        "deals": len(scores),
        "package_version": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "made": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds_a_deal": None if not played else round(seconds / played, 4),
        "method": (
            "each seat's share of the win over futures of d deals: sums of d distinct recorded "
            "deals, deal k passed k seats on (totals by the seats of the next deal), "
            f"{model.per_group * model.groups} futures a count of deals left in "
            f"{model.groups} independent groups of the recorded deals; the standard error is "
            "the spread of the group estimates over the square root of their number"
        ),
        "deal_figures": deal_figures(scores),
        "equity": checks,
        "check_matches": args.check_matches,
        "checks_seconds": round(time.perf_counter() - t0, 1),
        "file": path.name,
        "sha256": sha256_file(path),
    }
    with atomic_open(args.out / f"equity_{preset}.json", ".json") as f:
        f.write((json.dumps(card, indent=2) + "\n").encode())
    print(
        f"{preset}: {path} ({path.stat().st_size} bytes); largest |z| against the direct "
        f"simulation {checks['largest_abs_z']}",
        file=sys.stderr,
    )
    return card


def main(argv: Sequence[str] | None = None) -> int:
    args = _args(argv)
    if args.deals < 100 or args.chunk < 1:
        print("make_equity: --deals must be >= 100 and --chunk >= 1", file=sys.stderr)
        return 2
    for preset in args.rules:
        make(preset, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
