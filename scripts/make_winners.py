"""Replay dataset deals' play-outs and record which card took each trick (data/winners/).

    CALLBREAK_LAB_SOLVER_THREADS=1 nice -n 10 python scripts/make_winners.py \
        --profiles modern strict --test 2000 --train 1000 --train-first 300

For each profile, ``callbreak_lab.bidding.winners.generate``: the first ``--test`` deals of the
dataset's held-out split, then the first ``--train`` of its training split (resumable: rerun the
same command after a stop; a larger ``--train`` adds blocks). Each replay is checked against the
dataset's stored play-out trick counts. All profiles' test blocks come before any training block.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from callbreak_lab.bidding import winners
from callbreak_lab.bidding.datasets import PROFILES

ROOT = Path(__file__).resolve().parent.parent


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--profiles", nargs="+", default=list(PROFILES), choices=list(PROFILES))
    p.add_argument("--test", type=int, default=2000, help="held-out deals per profile")
    p.add_argument("--train", type=int, default=0, help="training deals per profile")
    p.add_argument("--train-first", type=int, default=0, help="training deals before the test")
    p.add_argument("--chunk-size", type=int, default=50)
    p.add_argument("--data", type=Path, default=ROOT / "data", help="the solved datasets")
    p.add_argument("--out", type=Path, default=ROOT / "data" / "winners")
    a = p.parse_args(argv)
    # the first --train-first training deals of every profile (so a model can be fitted
    # early), then every profile's held-out deals, then the rest of the training deals, in
    # steps of one block
    blocks = range(a.chunk_size, a.train + a.chunk_size, a.chunk_size)
    first = min(a.train_first, a.train)
    steps = [
        (prof, 0, min(n, first)) for n in blocks if n - a.chunk_size < first for prof in a.profiles
    ]
    steps += [(prof, a.test, first) for prof in a.profiles]
    steps += [(prof, a.test, min(n, a.train)) for n in blocks if n > first for prof in a.profiles]
    for prof, test, train in steps:
        t0 = time.perf_counter()
        card = winners.generate(
            prof, data_dir=a.data, out_dir=a.out, test=test, train=train, chunk_size=a.chunk_size
        )
        print(
            f"{prof}: test {test} train {train}, {card['cpu_seconds']:.0f} CPU s in all, "
            f"{time.perf_counter() - t0:.0f} s for this step",
            file=sys.stderr,
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
