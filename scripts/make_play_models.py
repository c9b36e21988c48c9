"""Build the learned play policies (``callbreak_lab/models/play_<profile>.joblib`` + card).

    .venv/bin/python scripts/make_play_models.py generate [--profiles online,modern,strict,
        home_pagat] [--deals 150] [--chunk 10] [--out data/play]
    .venv/bin/python scripts/make_play_models.py train [--profiles ...] [--out data/play]
        [--models callbreak_lab/models] [--seed 0]

``generate`` plays deals with four ``strong`` players (the arena's player, no time limit: each
card depends only on the table and the deal's seed) under the profile's preset and stores each
deal's hands, calls and play record, ``--chunk`` deals to a compressed file
``<out>/<profile>/chunk-<first>-<end>.npz`` written atomically (temporary file, then rename).
A chunk already on disk is kept, so a stopped run resumes where it stopped. Every card of a
record is one decision of ``strong`` (forced cards are left out when training).

``train`` turns the records into decisions (``seat.playmodel.decisions_from_records``), holds
out every fifth deal (``deal index % 5 == 0``), fits a ``PlayModel`` on the rest, measures the
held-out top-1 agreement with ``strong`` and the log loss, refits on every deal and writes the
model with its card (``seat.playmodel.save_play_model``).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import numpy as np

from callbreak_lab.bidding.datasets import PROFILES
from callbreak_lab.cards import Deal
from callbreak_lab.game import parse_record
from callbreak_lab.seat.policy import decision_seed
from callbreak_lab.util.fileio import atomic_open

#: the preset each profile's deals are played under
PRESET_OF = {"online": "online", "modern": "modern", "strict": "strict", "home_pagat": "home"}

#: the base of the deals' seeds (apart from the benchmarks' tournament deals, seed 0)
SEED_BASE = 52_052


def deal_of(profile: str, index: int) -> Deal:
    """The ``index``-th training deal of ``profile``."""
    return Deal.random(decision_seed(SEED_BASE, list(PROFILES).index(profile), index))


def generate(profile: str, deals: int, chunk: int, out: Path) -> None:
    """Play the missing chunks of ``deals`` deals of ``profile`` (see the module docstring)."""
    from callbreak_lab.arena.players import make_player
    from callbreak_lab.arena.referee import play_deal

    preset = PRESET_OF[profile]
    players = [make_player("strong", preset) for _ in range(4)]
    folder = out / profile
    for first in range(0, deals, chunk):
        end = min(first + chunk, deals)
        path = folder / f"chunk-{first:06d}-{end:06d}.npz"
        if path.exists():
            continue
        t0 = time.time()
        hands, calls, plays = [], [], []
        for i in range(first, end):
            d = deal_of(profile, i)
            b = play_deal(d, preset, players, seed=SEED_BASE, deal_index=i)
            hands.append([d[s].mask for s in range(4)])
            calls.append(list(b.calls))
            plays.append([int(c) for c in parse_record(b.plays)])
        buf = io.BytesIO()
        np.savez_compressed(
            buf,
            index=np.arange(first, end, dtype=np.int64),
            hands=np.array(hands, dtype=np.uint64),
            calls=np.array(calls, dtype=np.int8),
            plays=np.array(plays, dtype=np.int8),
            preset=np.array(preset),
        )
        with atomic_open(path, ".npz") as f:
            f.write(buf.getvalue())
        rate = (end - first) / (time.time() - t0)
        print(f"{profile}: deals {first}-{end} in {time.time() - t0:.0f} s ({rate:.2f}/s)")
        sys.stdout.flush()


def load_records(profile: str, out: Path) -> dict[str, np.ndarray]:
    """Every stored deal of ``profile``: ``index``, ``hands``, ``calls``, ``plays``."""
    parts = [np.load(p) for p in sorted((out / profile).glob("chunk-*.npz"))]
    if not parts:
        raise SystemExit(f"no records of {profile} under {out}: run generate first")
    return {
        key: np.concatenate([p[key] for p in parts]) for key in ("index", "hands", "calls", "plays")
    }


def train(profile: str, out: Path, models: Path, seed: int) -> None:
    """Fit, measure and save the play model of ``profile`` (see the module docstring)."""
    from callbreak_lab.rules import Ruleset
    from callbreak_lab.seat.playmodel import (
        PlayModel,
        decisions_from_records,
        evaluate,
        save_play_model,
    )

    rules = Ruleset.coerce(PRESET_OF[profile])
    rec = load_records(profile, out)
    held = rec["index"] % 5 == 0
    t0 = time.time()
    train_set = decisions_from_records(rules, rec["hands"][~held], rec["calls"][~held],
                                       rec["plays"][~held])  # fmt: skip
    test_set = decisions_from_records(rules, rec["hands"][held], rec["calls"][held],
                                      rec["plays"][held])  # fmt: skip
    model = PlayModel(random_state=seed).fit(*train_set)
    metrics = evaluate(model, *test_set)
    print(f"{profile}: held-out {metrics}")
    every = decisions_from_records(rules, rec["hands"], rec["calls"], rec["plays"])
    final = PlayModel(random_state=seed).fit(*every)
    card = {
        "profile": profile,
        "preset": PRESET_OF[profile],
        "data": {
            "source": "four `strong` players (no time limit), scripts/make_play_models.py",
            "deals": len(rec["index"]),
            "held_out_deals": int(held.sum()),
            "decisions_train": int(train_set[2].max()) + 1,
            "decisions_held_out": int(test_set[2].max()) + 1,
            "decisions_final": int(every[2].max()) + 1,
            "seed_base": SEED_BASE,
        },
        "training": {"seed": seed, "params": final.get_params(), "fit_seconds": 0.0},
        "held_out": metrics,
    }
    card["training"]["fit_seconds"] = round(time.time() - t0, 1)
    paths = save_play_model(final, profile, models, card)
    print(f"{profile}: wrote {paths[0]} and {paths[1]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("generate", "train"))
    ap.add_argument("--profiles", default=",".join(PRESET_OF))
    ap.add_argument("--deals", type=int, default=150)
    ap.add_argument("--chunk", type=int, default=10)
    ap.add_argument("--out", type=Path, default=Path("data/play"))
    ap.add_argument("--models", type=Path, default=Path("callbreak_lab/models"))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    for profile in args.profiles.split(","):
        if args.command == "generate":
            generate(profile, args.deals, args.chunk, args.out)
        else:
            train(profile, args.out, args.models, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
