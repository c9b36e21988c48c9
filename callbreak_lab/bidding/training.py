"""Model selection for the shipped bid models (used by ``scripts/make_models.py``).

:func:`select_params` compares the learner settings of :data:`CANDIDATES` on a validation split
of a profile's training deals, then measures call conditioning for the winner and, where that is
not kept, pooling with the other profiles' training deals (:func:`pooled`).

Pooling: the legal-card rules barely move a hand's trick distribution, so the other profiles'
deals are more examples of nearly the same thing. It is kept only when it lowers the validation
log loss; the other profiles' copies of the validation deals (every profile's deal ``i`` is the
same deal) are left out of that comparison so it cannot leak.

Each measured step is logged at INFO on the ``callbreak_lab.bidding.training`` logger (a
selection takes minutes to hours; ``scripts/make_models.py`` shows the log on stderr).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from callbreak_lab.bidding import datasets as data
from callbreak_lab.bidding.calls import best_calls
from callbreak_lab.bidding.estimator import deal_calls, encode_hands
from callbreak_lab.bidding.evaluation import (
    HandSet,
    call_scores,
    fit_model,
    log_loss,
    paired_gap,
)
from callbreak_lab.rules import Ruleset

__all__ = [
    "CANDIDATES",
    "COMMON",
    "POOL_DEAL_OFFSET",
    "VALIDATION_FRACTION",
    "pooled",
    "select_params",
]

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
#: every candidate trains on the six namings of the side suits (see docs/models.md)
COMMON: dict[str, Any] = {
    "calibration": "temperature",
    "cv": 3,
    "random_state": 0,
    "augment_side_suits": True,
}
VALIDATION_FRACTION = 0.2
LOG = logging.getLogger(__name__)
#: deal numbers of the i-th pooled profile are shifted by i times this (datasets are far smaller)
POOL_DEAL_OFFSET = 10**9


def pooled(own: HandSet, others: Sequence[HandSet], exclude: Any = None) -> HandSet:
    """``own`` hands plus ``others`` (other profiles' hands), each source's deal numbers
    shifted apart (every profile's deal ``i`` is the same deal, with its own outcomes) and the
    others' copies of the deals in ``exclude`` left out."""
    parts = [own]
    for i, o in enumerate(others, start=1):
        keep = np.ones(len(o), dtype=bool) if exclude is None else ~np.isin(o.deal, exclude)
        o = o.take(np.flatnonzero(keep))
        parts.append(HandSet(o.masks, o.seats, o.playout, o.dd, o.deal + i * POOL_DEAL_OFFSET))
    fields = ("masks", "seats", "playout", "dd", "deal")
    return HandSet(*(np.concatenate([getattr(x, f) for x in parts]) for f in fields))


def select_params(
    train: HandSet,
    profile: str,
    seed: int,
    candidates: Sequence[str] = tuple(CANDIDATES),
    others: Sequence[HandSet] = (),
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Compare :data:`CANDIDATES` (and call conditioning for the winner, and pooling with the
    ``others`` profiles' training hands) on held-out training deals; returns the chosen
    parameters (with ``"pool"``) and the measured table."""
    deals = np.random.default_rng(seed).permutation(np.unique(train.deal))
    val_deals = deals[: max(1, int(VALIDATION_FRACTION * len(deals)))]
    is_val = np.isin(train.deal, val_deals)
    fit_part, val = train.take(~is_val), train.take(is_val)
    val_x = encode_hands(val.masks, val.seats)
    presets = [Ruleset.preset(n) for n, p in data.PRESET_PROFILE.items() if p == profile]
    table: dict[str, Any] = {"validation_hands": len(val), "fit_hands": len(fit_part)}
    fitted = {}
    for name in candidates:
        params = CANDIDATES[name]
        t0 = time.perf_counter()
        model = fit_model(fit_part, profile=profile, **COMMON, **params)
        seconds = time.perf_counter() - t0
        proba = model.predict_proba(val_x)
        scores = {
            r.name: call_scores(best_calls(proba, r).call, val.playout, r) / 10 for r in presets
        }
        fitted[name] = (model, proba, scores)
        table[name] = {
            "log_loss": round(log_loss(proba, val.playout), 5),
            "mean_score": {k: round(float(v.mean()), 4) for k, v in scores.items()},
            "fit_seconds": round(seconds, 1),
        }
        LOG.info("[%s] candidate %s: %s", profile, name, table[name])
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
    LOG.info("[%s] chosen %s; call conditioning: %s", profile, best, table["conditioning"])
    table["chosen"] = best
    pool = False
    if others and not keep:
        pmodel = fit_model(
            pooled(fit_part, others, exclude=val_deals),
            profile=profile,
            **COMMON,
            **CANDIDATES[best],
        )
        pproba = pmodel.predict_proba(val_x)
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
        LOG.info("[%s] pooling with the other profiles: %s", profile, table["pooling"])
    params = {**COMMON, **CANDIDATES[best], "condition_on_calls": keep}
    return {**params, "pool": pool}, table
