"""Bid-model answer times: ``recommend_call`` for one hand (warm) and ``recommend_calls`` batched.

Issue #5 asks for one hand in under 5 ms warm and 10,000 hands in under 1 s batched. For each
preset this loads the shipped model of its profile (``callbreak_lab/models/``, or
``CALLBREAK_LAB_MODELS``), answers one untimed hand (loading, first-call caches), then times
``--hands`` single calls on random hands in random seats and ``--repeat`` batched calls of
``--batch`` hands, and prints a table (milliseconds per single call: median, p99, max; seconds
per batch: best and median).

    .venv/bin/python benchmarks/model.py
    .venv/bin/python benchmarks/model.py --presets modern home --hands 2000 --batch 10000
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from callbreak_lab.bidding.model import load_model, recommend_call, recommend_calls
from callbreak_lab.cards import Deal, Hand
from callbreak_lab.rules import PRESETS, Ruleset


def random_hands(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` hands (52-bit masks) and seats, each the hand of a random seat of a random deal."""
    rng = np.random.default_rng(seed)
    seats = rng.integers(0, 4, size=n)
    masks = np.empty(n, dtype=np.uint64)
    for i in range(n):
        deal = Deal.random(int(rng.integers(1 << 62)))
        masks[i] = deal.hands[int(seats[i])].mask
    return masks, seats


def bench_preset(
    rules: Ruleset, hands: int, batch: int, repeat: int, seed: int
) -> dict[str, float]:
    model = load_model(rules)
    masks, seats = random_hands(max(hands, 1), seed)
    recommend_call(Hand(int(masks[0])), int(seats[0]), rules, model=model)  # untimed
    single = []
    for m, s in zip(masks[:hands], seats[:hands], strict=True):
        t0 = time.perf_counter()
        recommend_call(Hand(int(m)), int(s), rules, model=model)
        single.append(time.perf_counter() - t0)
    bmasks, bseats = random_hands(batch, seed + 1)
    batched = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = recommend_calls(bmasks, bseats, rules, model=model)
        batched.append(time.perf_counter() - t0)
        assert len(out.call) == batch
    ms = 1000 * np.array(single)
    return {
        "median": float(np.median(ms)),
        "p99": float(np.percentile(ms, 99)),
        "max": float(ms.max()),
        "batch_best": min(batched),
        "batch_median": float(np.median(batched)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--presets", nargs="+", default=list(PRESETS))
    ap.add_argument("--hands", type=int, default=1000, help="single calls timed per preset")
    ap.add_argument("--batch", type=int, default=10_000, help="hands per batched call")
    ap.add_argument("--repeat", type=int, default=5, help="batched calls timed per preset")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {load:.1f}")
    head = f"| preset | one hand median / p99 / max ms | {args.batch:,} hands best / median s |"
    print(head)
    print("|---|---|---|")
    for name in args.presets:
        r = bench_preset(Ruleset.preset(name), args.hands, args.batch, args.repeat, args.seed)
        print(
            f"| {name} | {r['median']:.2f} / {r['p99']:.2f} / {r['max']:.2f} "
            f"| {r['batch_best']:.3f} / {r['batch_median']:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
