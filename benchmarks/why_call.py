"""How well "why this call" forecasts each card's trick: calibration on held-out solved deals.

    .venv/bin/python benchmarks/why_call.py [--winners data/winners] [--hands 200]
        [--plot docs/why-call-reliability.png] [--json FILE]

For each profile, the shipped card-chance model (``bidding.cardchances``) on the held-out
replays of ``data/winners/<profile>/`` (the dataset's test split, deals the bid model and the
card model never trained on): every hand of every deal, half of them carrying the bid model's
calls of the seats before. Prints

* the tenths table: the chances (every card of every hand) in tenths, each tenth's cards, mean
  chance, observed share that took a trick and the gap; the worst gap over the tenths with 100
  cards or more (the goal: within 3 points);
* the same for the scaled chances (moved in log-odds so each hand adds up to the bid model's
  expected tricks, what the call advisor shows beside them);
* the per-hand sum: mean of (sum of the chances - the play-out's tricks) (goal: within 0.1
  trick), the mean absolute error of the sum and of the bid model's expected tricks against the
  play-out, and the mean absolute difference between the two estimates;
* the time of ``explain_call`` per hand (``--hands`` random hands, warm, one process).

``--plot`` draws the reliability of each profile (matplotlib, Agg) into a PNG.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from callbreak_lab.bidding import cardchances as cc
from callbreak_lab.bidding.datasets import PROFILES
from callbreak_lab.bidding.explain import explain_call
from callbreak_lab.cards import Deal

ROOT = Path(__file__).resolve().parent.parent
PRESET = {"modern": "modern", "strict": "strict", "online": "online", "home_pagat": "pagat"}


def _table(rows: list[dict[str, float]]) -> str:
    out = ["  tenth      cards  predicted  observed     gap"]
    for r in rows:
        out.append(
            f"  {r['low']:.1f}-{r['high']:.1f}  {r['cards']:>8}  {r['predicted']:>9.3f}"
            f"  {r['observed']:>8.3f}  {r['gap']:>+6.3f}"
        )
    return "\n".join(out)


def _timing(hands: int) -> dict[str, float]:
    rng = np.random.default_rng(0)
    explain_call("AKQ2.T98.765.432", 0, "online")  # loads the models
    times = []
    for i in range(hands):
        deal = Deal.random(rng)
        seat = int(rng.integers(4))
        preset = list(PRESET.values())[i % 4]
        t0 = time.perf_counter()
        explain_call(deal[seat], seat, preset)
        times.append(time.perf_counter() - t0)
    return {
        "hands": hands,
        "median_ms": round(1000 * statistics.median(times), 2),
        "max_ms": round(1000 * max(times), 2),
    }


def _plot(checks: dict[str, dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 5))
    ax.plot([0, 1], [0, 1], color="#999", lw=1, ls="--", label="perfect")
    for prof, check in checks.items():
        rows = [r for r in check["tenths"] if r["cards"] >= 100]
        ax.plot(
            [r["predicted"] for r in rows],
            [r["observed"] for r in rows],
            marker="o",
            ms=4,
            label=f"{prof} ({check['deals']} deals)",
        )
    ax.set_xlabel("predicted chance the card takes a trick")
    ax.set_ylabel("observed share that took one (play-out)")
    ax.set_title("Why this call: card chances on held-out deals")
    ax.legend(fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--winners", type=Path, default=ROOT / "data" / "winners")
    p.add_argument("--hands", type=int, default=200, help="hands timed")
    p.add_argument("--plot", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args()
    model = cc.load_card_model()
    checks, out = {}, {}
    for k, prof in enumerate(PROFILES):
        check = cc.held_out_check(model, a.winners, prof, seed=100 + k)
        checks[prof] = check
        out[prof] = cc.summary(check)
        print(f"== {prof}: {check['deals']} held-out deals, {check['hands']} hands")
        print(_table(check["tenths"]))
        print("  scaled to the bid model's expected tricks:")
        print(_table(check["scaled_tenths"]))
        print(f"  {json.dumps(out[prof])}")
    timing = _timing(a.hands)
    print(f"explain_call: {json.dumps(timing)}")
    if a.plot is not None:
        _plot(checks, a.plot)
    if a.json is not None:
        a.json.write_text(json.dumps({"profiles": out, "timing": timing}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
