"""Calling: hand features, the public rules of thumb, the call decision, the bid model, its
solved-deal datasets and its evaluation.

- ``features``: hand features (``mask_of``, ``FEATURE_NAMES``, ...).
- ``baselines``: rule-of-thumb callers (``BASELINES``, ``baseline_calls``).
- ``calls``: the call that maximises the expected score given a trick distribution, under any
  scoring kind (``best_call``, ``best_calls``, ``legal_calls``).
- ``estimator`` and ``learners``: ``BidModel``, a scikit-learn estimator of the trick
  distribution of a hand.
- ``model``: the shipped models, package data in ``callbreak_lab/models/`` (``load_model``,
  ``recommend_call``, model cards, ``shipped_models``).
- ``datasets``: solved-deal datasets per legal-card profile (``PROFILES``).
- ``evaluation``: held-out tables and plots.
- ``training``: model selection used by ``scripts/make_models.py``.

The names below load lazily, so that importing ``callbreak_lab.bidding.calls`` (used by the
Monte Carlo code) does not import scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from callbreak_lab.bidding.calls import CallAdvice, best_call, best_calls, legal_calls
    from callbreak_lab.bidding.estimator import BidModel, encode_hands
    from callbreak_lab.bidding.model import Recommendation, load_model, recommend_call

_LAZY = {
    "CallAdvice": "calls",
    "best_call": "calls",
    "best_calls": "calls",
    "legal_calls": "calls",
    "BidModel": "estimator",
    "encode_hands": "estimator",
    "Recommendation": "model",
    "load_model": "model",
    "recommend_call": "model",
}

__all__ = [
    "BidModel",
    "CallAdvice",
    "Recommendation",
    "best_call",
    "best_calls",
    "encode_hands",
    "legal_calls",
    "load_model",
    "recommend_call",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'callbreak_lab.bidding' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"callbreak_lab.bidding.{module}"), name)
    globals()[name] = value
    return value
