"""Regenerate the solved datasets and train, evaluate and ship the bid models, from scratch.

    python scripts/make_models.py --n 20000 --jobs -1

For each legal-card profile: ``datasets.generate`` (resumable; reuses valid chunks), fit a
:class:`callbreak_lab.bidding.BidModel` on the train split, evaluate it on the held-out split
under every preset of the profile (tables, calibration and learning-curve PNGs, JSON report in
``--out``), then save ``models/bid_<profile>.joblib`` with its JSON card (dataset hash, sizes,
metrics). Paths default to the repository's ``data/`` and ``models/`` (not the CWD).

Pooling (``--pool``, the default): a profile's model may also learn from the other profiles'
training deals. The legal-card rules barely move a hand's trick distribution (each profile's
model scored within noise of the others' on its held-out hands, session 7), so the other
profiles' deals are more examples of nearly the same thing. It is kept only when it lowers the
validation log loss; the other profiles' copies of the validation deals (every profile's deal
``i`` is the same deal) are left out of that comparison so it cannot leak.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: learner settings compared on a validation split of each profile's training deals; the one
#: with the lowest validation log loss of the play-out distribution is shipped
CANDIDATES: dict[str, dict[str, Any]] = {
    "hgb": {"learner": "hgb", "max_iter": 200, "learning_rate": 0.05, "max_leaf_nodes": 15},
    "hgb_small": {
        "learner": "hgb",
        "max_iter": 100,
        "learning_rate": 0.08,
        "max_leaf_nodes": 7,
        "l2_regularization": 5.0,
    },
    "logistic": {"learner": "logistic", "C": 1.0},
    "ordinal": {"learner": "ordinal", "C": 1.0},
}
#: every candidate trains on the six namings of the side suits (session 6: ordinal's held-out
#: log loss 1.280 -> 1.261 modern, 1.362 -> 1.344 online, 1.278 -> 1.272 strict)
COMMON: dict[str, Any] = {
    "calibration": "temperature",
    "cv": 3,
    "random_state": 0,
    "augment_side_suits": True,
}
VALIDATION_FRACTION = 0.2


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    from callbreak_lab.bidding.datasets import PROFILES

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--n", type=int, default=20000, help="solved deals per profile (default 20000)")
    p.add_argument("--profiles", nargs="+", default=list(PROFILES), choices=list(PROFILES))
    p.add_argument("--seed", type=int, default=0, help="dataset seed (default 0)")
    p.add_argument("--jobs", type=int, default=-1, help="solver processes (default all cores)")
    p.add_argument("--data", type=Path, default=ROOT / "data", help="dataset directory")
    p.add_argument("--models", type=Path, default=ROOT / "models", help="model directory")
    p.add_argument("--out", type=Path, default=None, help="evaluation outputs (default models/)")
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


def pooled(own: Any, others: Sequence[Any], exclude: Any = None) -> Any:
    """``own`` hands plus ``others`` (other profiles' hands), each source's deal numbers
    shifted apart (every profile's deal ``i`` is the same deal, with its own outcomes) and the
    others' copies of the deals in ``exclude`` left out."""
    import numpy as np

    from callbreak_lab.bidding.evaluation import HandSet

    parts = [own]
    for i, o in enumerate(others, start=1):
        keep = np.ones(len(o), dtype=bool) if exclude is None else ~np.isin(o.deal, exclude)
        o = o.take(np.flatnonzero(keep))
        parts.append(HandSet(o.masks, o.seats, o.playout, o.dd, o.deal + i * POOL_DEAL_OFFSET))
    fields = ("masks", "seats", "playout", "dd", "deal")
    return HandSet(*(np.concatenate([getattr(x, f) for x in parts]) for f in fields))


#: deal numbers of the i-th pooled profile are shifted by i times this (datasets are far smaller)
POOL_DEAL_OFFSET = 10**9


def select_params(
    train: Any,
    profile: str,
    seed: int,
    candidates: Sequence[str] = tuple(CANDIDATES),
    others: Sequence[Any] = (),
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Compare :data:`CANDIDATES` (and call conditioning for the winner, and pooling with the
    ``others`` profiles' training hands) on held-out training deals; returns the chosen
    parameters (with ``"pool"``) and the measured table."""
    import numpy as np

    from callbreak_lab.bidding import datasets as data
    from callbreak_lab.bidding.calls import best_calls
    from callbreak_lab.bidding.estimator import deal_calls, encode_hands
    from callbreak_lab.bidding.evaluation import call_scores, fit_model, log_loss, paired_gap
    from callbreak_lab.rules import Ruleset

    deals = np.random.default_rng(seed).permutation(np.unique(train.deal))
    val_deals = deals[: max(1, int(VALIDATION_FRACTION * len(deals)))]
    is_val = np.isin(train.deal, val_deals)
    fit_part, val = train.take(~is_val), train.take(is_val)
    presets = [Ruleset.preset(n) for n, p in data.PRESET_PROFILE.items() if p == profile]
    table: dict[str, Any] = {"validation_hands": len(val), "fit_hands": len(fit_part)}
    fitted = {}
    for name in candidates:
        params = CANDIDATES[name]
        t0 = time.perf_counter()
        model = fit_model(fit_part, profile=profile, **COMMON, **params)
        seconds = time.perf_counter() - t0
        proba = model.predict_proba(encode_hands(val.masks, val.seats))
        scores = {
            r.name: call_scores(best_calls(proba, r).call, val.playout, r) / 10 for r in presets
        }
        fitted[name] = (model, proba, scores)
        table[name] = {
            "log_loss": round(log_loss(proba, val.playout), 5),
            "mean_score": {k: round(float(v.mean()), 4) for k, v in scores.items()},
            "fit_seconds": round(seconds, 1),
        }
        print(f"[{profile}] candidate {name}: {table[name]}")
    best = min(candidates, key=lambda n: table[n]["log_loss"])
    model, proba, scores = fitted[best]
    cond = fit_model(
        fit_part, profile=profile, condition_on_calls=True, **COMMON, **CANDIDATES[best]
    )
    calls_table = deal_calls(proba, val.deal, val.seats, cond.call_rules_)
    cproba = cond.predict_proba(encode_hands(val.masks, val.seats, earlier_calls=calls_table))
    gains = {}
    for r in presets:
        cs = call_scores(best_calls(cproba, r).call, val.playout, r) / 10
        gains[r.name] = paired_gap(cs, scores[r.name], val.deal)
    keep = all(mean > se for mean, se in gains.values())
    table["conditioning"] = {
        "gain_mean_se": {k: [round(m, 4), round(se, 4)] for k, (m, se) in gains.items()},
        "log_loss": round(log_loss(cproba, val.playout), 5),
        "kept": keep,
    }
    print(f"[{profile}] chosen {best}; call conditioning: {table['conditioning']}")
    table["chosen"] = best
    pool = False
    if others and not keep:
        pmodel = fit_model(
            pooled(fit_part, others, exclude=val_deals),
            profile=profile,
            **COMMON,
            **CANDIDATES[best],
        )
        pproba = pmodel.predict_proba(encode_hands(val.masks, val.seats))
        pll = log_loss(pproba, val.playout)
        pool = pll < table[best]["log_loss"]
        pgains = {}
        for r in presets:
            ps = call_scores(best_calls(pproba, r).call, val.playout, r) / 10
            pgains[r.name] = paired_gap(ps, scores[r.name], val.deal)
        table["pooling"] = {
            "fit_hands": pmodel.n_train_,
            "log_loss": round(pll, 5),
            "gain_mean_se": {k: [round(m, 4), round(se, 4)] for k, (m, se) in pgains.items()},
            "kept": pool,
        }
        print(f"[{profile}] pooling with the other profiles: {table['pooling']}")
    params = {**COMMON, **CANDIDATES[best], "condition_on_calls": keep}
    return {**params, "pool": pool}, table


def make_profile(profile: str, args: argparse.Namespace) -> dict[str, Any]:
    """Generate, train, evaluate and save one profile's model; returns its metrics."""
    from callbreak_lab.bidding import datasets as data
    from callbreak_lab.bidding.evaluation import evaluate_model, fit_model, flatten
    from callbreak_lab.bidding.model import save_model

    t0 = time.perf_counter()
    if not args.skip_generate:
        report = data.generate(profile, args.n, seed=args.seed, out_dir=args.data, n_jobs=args.jobs)
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
    out = args.out if args.out is not None else args.models / "evaluation"
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run every requested profile; prints the tables and a JSON summary at the end."""
    args = _args(argv)
    summary = {profile: make_profile(profile, args) for profile in args.profiles}
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
