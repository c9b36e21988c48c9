"""Train, check and ship the card-chance model ("why this call") from data/winners/.

    python scripts/make_why_model.py

Fits :func:`callbreak_lab.bidding.cardchances.fit_card_model` on the training deals of every
profile in ``--winners`` (``scripts/make_winners.py`` makes them; every hand of a deal is a row
set, half of them carrying the bid model's calls of the seats before), checks it on each
profile's held-out deals (predicted against observed in every tenth of the chances, the mean
per-hand sum against the play-out's tricks) and writes ``why_cards.joblib`` and its JSON card
(data hashes, sizes, the held-out figures) into ``--models`` (default: the package's models).
Deterministic: the same data give the same model.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from callbreak_lab.bidding import cardchances as cc
from callbreak_lab.bidding import winners
from callbreak_lab.bidding.datasets import PROFILES
from callbreak_lab.errors import DataError

ROOT = Path(__file__).resolve().parent.parent
CALLS_SHARE = 0.5


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--winners", type=Path, default=ROOT / "data" / "winners")
    p.add_argument("--models", type=Path, default=ROOT / "callbreak_lab" / "models")
    p.add_argument("--profiles", nargs="+", default=list(PROFILES), choices=list(PROFILES))
    a = p.parse_args(argv)
    xs, ys, sources = [], [], {}
    for k, prof in enumerate(a.profiles):
        # the training chunks only (a generation may still be adding held-out ones)
        w = winners.load(prof, a.winners, "train", verify=False)
        _, x, y = cc.deal_rows(w.masks, w.won, prof, CALLS_SHARE, seed=k)
        xs.append(x)
        ys.append(y)
        sources[prof] = {
            "deals": len(w),
            "index_hash": cc.index_hash(w.index),
            "winners_hash": w.card.get("content_hash"),
        }
    t0 = time.perf_counter()
    model = cc.fit_card_model(np.concatenate(xs), np.concatenate(ys))
    fit_s = time.perf_counter() - t0
    held = {}
    for k, prof in enumerate(a.profiles):
        try:
            held[prof] = cc.held_out_check(model, a.winners, prof, seed=100 + k)
        except DataError as e:  # no complete held-out split yet: benchmarks/why_call.py later
            print(f"{prof}: no held-out figures ({e})", file=sys.stderr)
            continue
        print(f"{prof}: {json.dumps(cc.summary(held[prof]))}", file=sys.stderr)
    cc.save_card_model(
        model,
        a.models,
        {
            "training": sources,
            "calls_share": CALLS_SHARE,
            "fit_seconds": round(fit_s, 1),
            "held_out": {prof: cc.summary(h) for prof, h in held.items()},
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
