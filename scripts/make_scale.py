"""Solve the positions the play-out scale learns from, and fit and ship the scale.

    nice -n 10 python scripts/make_scale.py generate --deals 400 --chunk 25   # per profile
    python scripts/make_scale.py fit                                          # writes the table

``generate``: for each profile (``--profiles``), deals ``0 .. --deals - 1`` of
``Deal.seeded(--seed, i)`` under the profile's rules. Each deal is played out (the self-interested
play-out of docs/rules.md); on that line two positions are taken: the first lead, and one at a card
drawn uniformly from the rest (``numpy.random.default_rng([seed, i, 1])``; a position with one legal
card is skipped). At each position, for each distinct legal card of the player to move: its
double-dummy value after the card (the floor, ``solver.values_of``) and the mover's tricks from the
position on in the self-interested play-out after the card (``solver.playout_of``). Rows go to
``--work/<profile>/chunk-<start>-<stop>.npz`` (atomic; a rerun reuses the chunks there).

``fit``: the rows fit the table of ``seat.scale`` (every profile's rows together first, then each
profile's leaning on that pooled table; per profile: the distribution of the tricks the play-out
adds to the floor, for each count of tricks left, floor and gap below the best card's floor); the
card records how well tables fitted without a fifth of the deals predict that fifth, fold by fold
(``seat.scale.cross_check``). Then each profile's hand model (``seat.scale.fit_hand_gain``) is
fitted on the training split of the solved deals under ``--data`` (``bidding.datasets``: every
hand of a deal, its floor at the deal's start and its play-out tricks), and the card records how
the scale with and without the hand predicts the deals of the test split (``hands_check``: the
play-out tricks after the best card at the first trick, the chance of making the bid model's
call in tenths) and on the first leads of the positions (every card, the gap's rows tilted).
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
from callbreak_lab.bidding.datasets import PROFILES, profile_rules
from callbreak_lab.cards import Deal
from callbreak_lab.solver.api import (
    SOLVER_VERSION,
    child,
    engine,
    legal_mask,
    make_root,
    playout_of,
    representative,
    values_of,
)
from callbreak_lab.util.fileio import atomic_open

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "benchmarks" / "one_scale" / "positions"
OUT = ROOT / "callbreak_lab" / "models"
FIELDS = ("index", "k", "left", "place", "value", "best", "playout", "won", "card")


def _position_rows(deal: Deal, rules: Any, k: int, played: Sequence[int]) -> list[tuple[int, ...]]:
    """One row per distinct legal card of the mover after the first ``k`` cards of ``played``."""
    root = make_root(deal, rules)
    for c in played[:k]:
        root, _ = child(root, int(c))
    legal = legal_mask(root)
    cards = [c for c in range(52) if (legal >> c) & 1]
    reps = sorted({representative(root, c) for c in cards})
    if len(reps) < 2:
        return []
    me = root.mover
    eng = engine()
    values = values_of(root, me, eng)
    best = max(values.values())
    rows = []
    for c in reps:
        nxt, w = child(root, c)
        v = values[c]
        known = [0, 0, 0, 0]
        known[me] = max(0, v - (1 if w == me else 0))
        if nxt.left == 0:
            tricks = nxt.won[me]
        else:
            tricks = playout_of(nxt, eng, known=tuple(known)).tricks[me]
        rows.append(
            (k, root.left, len(root.trick), v, best, tricks - root.won[me], root.won[me], c)
        )
    return rows


def generate(profile: str, start: int, stop: int, seed: int) -> dict[str, np.ndarray]:
    rules = profile_rules(profile)
    out: list[tuple[int, ...]] = []
    for i in range(start, stop):
        deal = Deal.seeded(seed, i)
        line = [int(c) for c in playout_of(make_root(deal, rules)).cards]
        rng = np.random.default_rng([seed, i, 1])
        for k in (0, int(rng.integers(1, 48))):
            out.extend((i, *r) for r in _position_rows(deal, rules, k, line))
    arr = np.array(out, dtype=np.int64).reshape(-1, len(FIELDS))
    return {f: arr[:, j] for j, f in enumerate(FIELDS)}


def cmd_generate(a: argparse.Namespace) -> None:
    # the profiles chunk by chunk in turn, so a run stopped early leaves each some rows
    for start in range(0, a.deals, a.chunk):
        for profile in a.profiles:
            stop = min(a.deals, start + a.chunk)
            path = a.work / profile / f"chunk-{start:06d}-{stop:06d}.npz"
            if path.exists():
                continue
            t0 = time.perf_counter()
            data = generate(profile, start, stop, a.seed)
            with atomic_open(path, ".npz") as fh:
                np.savez_compressed(fh, seed=a.seed, solver_version=SOLVER_VERSION, **data)
            print(
                f"{profile} {start}-{stop}: {len(data['index'])} rows, "
                f"{time.perf_counter() - t0:.1f} s",
                flush=True,
            )


def chunks_of(work: Path, profile: str) -> list[Path]:
    """A profile's chunk files, in order."""
    return sorted((work / profile).glob("chunk-*.npz"))


def load_rows(work: Path, profile: str) -> dict[str, np.ndarray]:
    """Every chunk's rows of a profile, concatenated (fields ``FIELDS``)."""
    parts = [np.load(p) for p in chunks_of(work, profile)]
    if not parts:
        raise SystemExit(f"no positions for {profile} under {work}")
    return {f: np.concatenate([p[f] for p in parts]) for f in FIELDS}


def first_leads(scale: Any, rows: dict[str, np.ndarray], seed: int) -> dict[str, Any]:
    """The positions' first leads (every card of seat 0, ``Deal.seeded(seed, index)``) on the
    scale with the hand and with the table alone: the hand model never saw them; the table
    did (its own figures held out are ``held_out``)."""
    from callbreak_lab.seat.scale import N, probs_check

    at = rows["k"] == 0
    idx, value, best, po = (rows[c][at] for c in ("index", "value", "best", "playout"))
    masks = {int(i): Deal.seeded(seed, int(i))[0].mask for i in np.unique(idx)}
    out = {}
    for name, hands in (("hand", True), ("table", False)):
        probs = np.stack(
            [
                scale.spread(N, [v], [b], hand=masks[int(i)] if hands else None)[0]
                for i, v, b in zip(idx, value, best, strict=True)
            ]
        )
        check = probs_check(probs, np.full(len(idx), N), value, po)
        out[name] = {k: check[k] for k in ("rows", "predicted", "observed", "mae", "floor_mae")}
    return out


def fit_gains(
    a: argparse.Namespace, tables: dict[str, Any], card: dict[str, Any]
) -> dict[str, Any]:
    """Each profile's hand model on its dataset's training split, checked on its test split
    and on the positions' first leads (written into ``card``); returns their JSON."""
    from callbreak_lab.bidding.cardchances import bid_model_calls
    from callbreak_lab.bidding.datasets import load
    from callbreak_lab.seat.scale import fit_hand_gain, from_rows, hands_check

    gains = {}
    for profile in a.profiles:
        t0 = time.perf_counter()
        train = load(profile, a.data, "train")
        seats = np.tile(np.arange(4), len(train))
        gain = fit_hand_gain(
            train.masks.reshape(-1), seats, train.dd.reshape(-1), train.playout.reshape(-1),
            alpha=a.alpha,
        )  # fmt: skip
        gains[profile] = gain.to_json()
        scale = from_rows(profile, tables[profile], gain)
        test = load(profile, a.data, "test")
        calls = bid_model_calls(test.masks, profile).reshape(-1)
        check = hands_check(
            scale, test.masks.reshape(-1), np.tile(np.arange(4), len(test)),
            test.dd.reshape(-1), test.playout.reshape(-1), calls,
        )  # fmt: skip
        card["profiles"][profile]["hands"] = {
            "dataset": train.card.get("content_hash"),
            "train_hands": len(seats),
            "test_hands": 4 * len(test),
            "test": check,
            "first_leads": first_leads(scale, load_rows(a.work, profile), 63),
        }
        print(f"{profile}: hand model {time.perf_counter() - t0:.1f} s", flush=True)
    return gains


def cmd_fit(a: argparse.Namespace) -> None:
    from callbreak_lab.seat.scale import FORMAT, cross_check, fit_profiles

    card: dict[str, Any] = {
        "format": FORMAT,
        "made_by": "scripts/make_scale.py fit",
        "version": __version__,
        "python": platform.python_version(),
        "solver_version": SOLVER_VERSION,
        "prior": a.prior,
        "held_out": "5-fold by deal index: each position predicted by tables fitted without it",
        "hand_model": (
            "ordinal logit of the play-out's tricks above the floor from the bid model's hand "
            "features, the floor and their products (seat.scale.GAIN_FEATURES), fitted on the "
            "training split of the solved deals (every hand of a deal), L2 alpha "
            f"{a.alpha}; it tilts the table's first-trick rows; checked on the test split"
        ),
        "profiles": {},
    }
    every = {p: load_rows(a.work, p) for p in a.profiles}
    tables = fit_profiles(every, prior=a.prior)
    checks = cross_check(every, prior=a.prior)
    for profile, rows in every.items():
        card["profiles"][profile] = {
            "chunks": [p.name for p in chunks_of(a.work, profile)],
            "deals": len(np.unique(rows["index"])),
            "rows": len(rows["index"]),
            "held_out": checks[profile],
        }
    gains = fit_gains(a, tables, card)
    body = {"format": FORMAT, "prior": a.prior, "tables": tables, "gains": gains}
    with atomic_open(a.out / "scale.json") as fh:
        fh.write((json.dumps(body, separators=(",", ":")) + "\n").encode())
    with atomic_open(a.out / "scale_card.json") as fh:
        fh.write((json.dumps(card, indent=1) + "\n").encode())
    json.dump(card["profiles"], sys.stdout, indent=1)
    print()


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--profiles", nargs="+", default=list(PROFILES))
    g.add_argument("--deals", type=int, default=400)
    g.add_argument("--chunk", type=int, default=25)
    g.add_argument("--seed", type=int, default=63)
    g.add_argument("--work", type=Path, default=WORK)
    f = sub.add_parser("fit")
    f.add_argument("--profiles", nargs="+", default=list(PROFILES))
    f.add_argument("--prior", type=float, default=4.0)
    f.add_argument("--work", type=Path, default=WORK)
    f.add_argument("--out", type=Path, default=OUT)
    f.add_argument("--data", type=Path, default=ROOT / "data", help="the solved deals")
    f.add_argument("--alpha", type=float, default=1e-3, help="the hand model's L2 penalty")
    a = p.parse_args(argv)
    if a.cmd == "generate":
        cmd_generate(a)
    else:
        cmd_fit(a)


if __name__ == "__main__":
    main()
