"""Regenerate the solved datasets and train, evaluate and ship the bid models, from scratch.

    python scripts/make_models.py --n 20000 --jobs -1

For each legal-card profile: ``datasets.generate`` (resumable; reuses valid chunks), fit a
:class:`callbreak_lab.bidding.BidModel` on the train split, evaluate it on the held-out split
under every preset of the profile (tables, calibration and learning-curve PNGs, JSON report in
``--out``), then save ``bid_<profile>.joblib`` with its JSON card (dataset hash, sizes, metrics)
in ``--models``. Paths default to the repository's (not the CWD's): the datasets in ``data/``,
the models in ``callbreak_lab/models/``, where the package reads them
(:func:`callbreak_lab.bidding.model.shipped_models`), and the evaluation outputs in
``benchmarks/evaluation/``.

Model selection (candidate learners, call conditioning, pooling with the other profiles'
deals: ``--pool``, the default) is :func:`callbreak_lab.bidding.training.select_params`.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from callbreak_lab.analysis.montecarlo import mc_distribution
from callbreak_lab.bidding.training import CANDIDATES, pooled, select_params
from callbreak_lab.util.progress import progress_bar

ROOT = Path(__file__).resolve().parent.parent
#: the package's folder of shipped models (package data, found through importlib.resources)
MODELS = ROOT / "callbreak_lab" / "models"
EVALUATION = ROOT / "benchmarks" / "evaluation"


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    from callbreak_lab.bidding.datasets import PROFILES

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--n", type=int, default=20000, help="solved deals per profile (default 20000)")
    p.add_argument("--profiles", nargs="+", default=list(PROFILES), choices=list(PROFILES))
    p.add_argument("--seed", type=int, default=0, help="dataset seed (default 0)")
    p.add_argument("--jobs", type=int, default=-1, help="solver processes (default all cores)")
    p.add_argument("--data", type=Path, default=ROOT / "data", help="dataset directory")
    p.add_argument(
        "--models", type=Path, default=MODELS, help="model directory (callbreak_lab/models)"
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="evaluation outputs (default: benchmarks/evaluation for the shipped models, "
        "<models>/evaluation for another --models)",
    )
    p.add_argument("--mc-hands", type=int, default=0, help="Monte Carlo reference on N hands")
    p.add_argument("--mc-layouts", type=int, default=200, help="layouts per Monte Carlo hand")
    p.add_argument("--skip-generate", action="store_true", help="use the data already on disk")
    p.add_argument("--no-learning-curve", action="store_true", help="skip the learning curves")
    p.add_argument(
        "--no-pool",
        dest="pool",
        action="store_false",
        help="train on the profile's own deals only (default: try adding the other profiles')",
    )
    p.add_argument(
        "--candidates",
        nargs="+",
        default=list(CANDIDATES),
        choices=list(CANDIDATES),
        help="learner settings to compare (default all)",
    )
    return p.parse_args(argv)


def make_profile(profile: str, args: argparse.Namespace) -> dict[str, Any]:
    """Generate, train, evaluate and save one profile's model; returns its metrics."""
    from callbreak_lab.bidding import datasets as data
    from callbreak_lab.bidding.evaluation import evaluate_model, fit_model, flatten
    from callbreak_lab.bidding.model import save_model

    t0 = time.perf_counter()
    if not args.skip_generate:
        with progress_bar(f"generate {profile}") as progress:
            report = data.generate(
                profile, args.n, seed=args.seed, out_dir=args.data, n_jobs=args.jobs,
                progress=progress,
            )  # fmt: skip
        print(f"[{profile}] data: {report.card['count']} deals ({report.seconds:.0f} s)")
    train_data = data.load(profile, args.data, split="train")
    train = flatten(train_data)
    others: dict[str, Any] = {}
    if args.pool:
        for other in data.PROFILES:
            if other != profile and (args.data / other / data.CARD_NAME).exists():
                others[other] = data.load(other, args.data, split="train")
    params, selection = select_params(
        train, profile, args.seed, args.candidates, [flatten(d) for d in others.values()]
    )
    pool = params.pop("pool")
    training_data = {profile: train_data.card.get("content_hash")}
    if pool:
        train = pooled(train, [flatten(d) for d in others.values()])
        training_data.update({k: d.card.get("content_hash") for k, d in others.items()})
    t1 = time.perf_counter()
    model = fit_model(train, profile=profile, **params)
    fit_seconds = time.perf_counter() - t1
    print(f"[{profile}] fitted on {len(train)} hands in {fit_seconds:.1f} s")
    if args.out is not None:
        out = args.out
    else:  # another --models is an experiment: its reports stay beside it
        out = (
            EVALUATION if args.models.resolve() == MODELS.resolve() else args.models / "evaluation"
        )
    metrics: dict[str, Any] = {
        "fit_seconds": round(fit_seconds, 2),
        "selection": selection,
        "training_data": training_data,
    }
    presets = [name for name, prof in data.PRESET_PROFILE.items() if prof == profile]
    for i, preset in enumerate(presets):
        ev = evaluate_model(
            preset,
            args.data,
            model=model,
            out_dir=out,
            mc_hands=args.mc_hands,
            mc_layouts=args.mc_layouts,
            mc_distribution=mc_distribution,
            learning_fractions=None if args.no_learning_curve or i else (0.125, 0.25, 0.5, 1.0),
            seed=args.seed,
        )
        print(ev.format(), end="\n\n")
        metrics[preset] = {
            "test_hands": ev.test_hands,
            "log_loss": ev.log_loss,
            "mean_score": {r.name: round(r.mean_score, 4) for r in ev.playout_table},
            "mean_score_floor_outcome": {r.name: round(r.mean_score, 4) for r in ev.floor_table},
            "made_rate": {r.name: round(r.made_rate, 4) for r in ev.playout_table},
            "model_minus_baseline": {
                k: [round(m, 4), round(se, 4)] for k, (m, se) in ev.model_gaps.items()
            },
            "monte_carlo": ev.mc_gap,
        }
    paths = save_model(
        model,
        args.models,
        dataset_hash=train_data.card.get("content_hash"),
        metrics=metrics,
    )
    print(f"[{profile}] saved {paths[0]} and {paths[1]} ({time.perf_counter() - t0:.0f} s)")
    return metrics


def check_models_folder(models: Path) -> None:
    """Refuse to write the shipped models where the imported package does not read them (the
    package imported from another checkout or from an installed wheel)."""
    from callbreak_lab.bidding.model import shipped_models

    reads = Path(str(shipped_models()))
    if models.resolve() == MODELS.resolve() and reads.resolve() != MODELS.resolve():
        raise SystemExit(
            f"make_models: callbreak_lab is imported from {reads.parent}, which reads its models "
            f"from {reads}, not {MODELS}; run with this checkout's package (`make venv`, or "
            f"PYTHONPATH={ROOT}) or give --models"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run every requested profile; prints the tables and a JSON summary at the end."""
    args = _args(argv)
    # the model selection logs each candidate's validation figures as it measures them
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    check_models_folder(args.models)
    summary = {profile: make_profile(profile, args) for profile in args.profiles}
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
