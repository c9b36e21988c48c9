"""Fit the solver's first-probe estimate (``_bounds.first_guess``) on solved positions.

The estimate only steers the search (which null-window probe comes first), never a value, so
its coefficients are fitted once and pasted into ``_bounds.GUESS_COEF``. Training positions:
the start of the shipped datasets' training deals (every seat's double-dummy value is stored)
plus positions reached by random legal play 1..10 tricks into other training deals, solved
here (``collect``). One least-squares fit per legal-card rule pair (must-beat, void rule).

    .venv/bin/python scripts/fit_first_guess.py collect --out /tmp/guess.npz --mid 3000
    .venv/bin/python scripts/fit_first_guess.py fit /tmp/guess.npz
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np

from callbreak_lab.bidding import datasets as data
from callbreak_lab.cards import Deal, Hand
from callbreak_lab.game import Position, random_player
from callbreak_lab.rules import Ruleset
from callbreak_lab.solver import dd_tables
from callbreak_lab.solver._bounds import (
    GUESS_FEATURES,
    N_GUESS_FEATURES,
    guess_features,
    quick_bounds,
)
from callbreak_lab.solver._engine import split_masks
from callbreak_lab.util.progress import progress_bar

#: the repository's shipped datasets (not the working directory's data/)
DATA = Path(__file__).resolve().parent.parent / "data"
PROFILES = {"modern": "modern", "strict": "strict", "online": "online", "home_pagat": "home"}


def _features(masks: list[int], leader: int, target: int, vr: int) -> np.ndarray:
    hands = split_masks(masks)
    left = int(sum(int(m).bit_count() for m in masks) // 4)
    lb, ub, _, _ = quick_bounds(hands, leader, target, left, vr)
    out = np.zeros(N_GUESS_FEATURES, dtype=np.int64)
    guess_features(hands, leader, target, left, lb, ub, out)
    return out


def collect(out_path: str, mid: int, n_jobs: int, seed: int) -> None:
    """Features and values of start and mid-deal positions of every profile."""
    rows: list[np.ndarray] = []
    values: list[int] = []
    groups: list[int] = []
    rng = np.random.default_rng(seed)
    for profile, preset in PROFILES.items():
        rules = Ruleset.preset(preset)
        mb, vr, _ = rules.kernel_flags()
        fl = int(mb) * 2 + int(vr)
        d = data.load(profile, DATA, split="train")
        n = len(d.dd)
        for i in range(n):
            masks = [int(m) for m in d.masks[i]]
            for t in range(4):
                rows.append(_features(masks, 0, t, int(vr)))
                values.append(int(d.dd[i, t]))
                groups.append(fl)
        positions = []
        for i in rng.choice(n, size=mid, replace=False):
            deal = Deal([Hand(int(m)) for m in d.masks[i]])
            pos = Position(deal, rules)
            policy = random_player(int(rng.integers(2**31)))
            for _ in range(4 * int(rng.integers(1, 11))):
                pos.play(policy(pos))
            positions.append(pos)
        with progress_bar("positions") as progress:
            tables = dd_tables(positions, rules, n_jobs=n_jobs, progress=progress)
        for pos, table in zip(positions, tables, strict=True):
            masks = [int(h.mask) for h in pos.hands]
            for t in range(4):
                rows.append(_features(masks, int(pos.leader), t, int(vr)))
                values.append(int(table[t]))
                groups.append(fl)
        print(profile, n, "deals,", mid, "mid-deal positions", flush=True)
    fd, tmp = tempfile.mkstemp(suffix=".npz", dir=os.path.dirname(os.path.abspath(out_path)))
    os.close(fd)
    np.savez_compressed(tmp, x=np.array(rows), y=np.array(values), g=np.array(groups))
    os.replace(tmp, out_path)


def fit(path: str) -> None:
    """Least squares per rule pair; prints the coefficient table and the fit's errors."""
    z = np.load(path)
    x, y, g = z["x"], z["y"].astype(np.float64), z["g"]
    coef = np.zeros((4, N_GUESS_FEATURES))
    for fl in range(4):
        sel = g == fl
        if not sel.any():
            continue
        c, *_ = np.linalg.lstsq(x[sel], y[sel], rcond=None)
        coef[fl] = c
        err = x[sel] @ c - y[sel]
        start = x[sel, 9] == 13
        print(
            f"rules {fl}: {int(sel.sum())} rows, rms {np.sqrt(np.mean(err**2)):.3f} "
            f"(start {np.sqrt(np.mean(err[start] ** 2)):.3f}, "
            f"mid {np.sqrt(np.mean(err[~start] ** 2)):.3f})"
        )
    print("# features:", ", ".join(GUESS_FEATURES))
    print("GUESS_COEF = np.array([")
    for fl in range(4):
        print("    [" + ", ".join(f"{v:.4f}" for v in coef[fl]) + "],")
    print("])")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--out", required=True)
    c.add_argument("--mid", type=int, default=3000, help="mid-deal positions per profile")
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--seed", type=int, default=7)
    f = sub.add_parser("fit")
    f.add_argument("path")
    a = ap.parse_args()
    if a.cmd == "collect":
        collect(a.out, a.mid, a.jobs, a.seed)
    else:
        fit(a.path)


if __name__ == "__main__":
    main()
