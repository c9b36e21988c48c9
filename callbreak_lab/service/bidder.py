"""Trick distributions for a hand: the shipped bid model, or a stated fallback without one.

The bid model (``callbreak_lab.bidding.model``) forecasts the play-out tricks and the floor. When
the model file of the ruleset's profile is absent (or does not load), the service still answers with
a reasoned call, never a constant: the ``fractional_honours`` rule-of-thumb count of
``callbreak_lab.bidding.baselines`` spread into a discretised normal distribution (standard
deviation ``FALLBACK_SD`` tricks), from which ``calls.best_call`` picks the call with the best
expected score under the ruleset's scoring. ``/healthz`` reports which source is in use.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from callbreak_lab.bidding import baselines
from callbreak_lab.bidding.calls import Forecast, best_call
from callbreak_lab.cards import Hand
from callbreak_lab.errors import ModelError
from callbreak_lab.rules import Ruleset

__all__ = ["FALLBACK_SD", "Bidder"]

#: spread of the fallback distribution around the rule-of-thumb count, in tricks
FALLBACK_SD = 1.3
_FALLBACK = "fallback:fractional_honours"


def _normal_dist(mean: float, sd: float) -> np.ndarray:
    """A normal(mean, sd) discretised to 0..13 (cells at half-integers, tails folded in)."""
    edges = [-math.inf, *[t + 0.5 for t in range(13)], math.inf]
    cdf = [0.5 * (1 + math.erf((e - mean) / (sd * math.sqrt(2)))) for e in edges]
    p = np.diff(np.array(cdf, dtype=np.float64))
    p = np.clip(p, 0.0, None)
    dist: np.ndarray = p / p.sum()
    return dist


def _profile(rules: Ruleset) -> str | None:
    """The bid-model profile of ``rules``; None (the forecast falls back to the public rule)
    without the `model` extra or for legal-card rules no model is trained on."""
    try:
        from callbreak_lab.bidding import model

        return model.profile_of(rules)
    except (ImportError, ModelError):
        return None


class Bidder:
    """Forecasts from the shipped model of each profile, remembering which ones are absent."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[str, Any] = {}
        self._absent: dict[str, str] = {}

    def _model(self, rules: Ruleset) -> tuple[Any, str] | None:
        profile = _profile(rules)
        if profile is None:
            return None
        if profile in self._models:
            return self._models[profile], profile
        if profile in self._absent:
            return None
        with self._lock:
            try:
                from callbreak_lab.bidding import model

                loaded = model.load_model(profile)
            except (ImportError, ModelError) as e:  # no extra; absent, mismatched or damaged
                # file: the forecast falls back to the public rule and says why
                self._absent[profile] = f"{type(e).__name__}: {e}"
                return None
            self._models[profile] = loaded
            return loaded, profile

    def preload(self) -> None:
        """Load every profile's shipped model now (at start-up) rather than on its first request."""
        from callbreak_lab.bidding.datasets import PROFILES, profile_rules

        for profile in PROFILES:
            self._model(profile_rules(profile))

    def source(self, rules: Ruleset) -> str:
        """What ``forecast`` would use for ``rules`` (loads the model if needed)."""
        found = self._model(rules)
        if found is None:
            return _FALLBACK
        return f"model:{found[1]}"

    def forecast(
        self,
        hand: Hand,
        seat: int,
        rules: Ruleset,
        earlier_calls: Sequence[int] | None = None,
    ) -> Forecast:
        """The :class:`~callbreak_lab.bidding.calls.Forecast` of the hand: the play-out
        distribution, its call table and the floor distribution when the model gives one.

        ``earlier_calls`` (seats ``0..seat-1``, already checked) reach a call-conditioned model;
        the other models and the fallback do not use them."""
        found = self._model(rules)
        if found is not None:
            from callbreak_lab.bidding import model

            rec = model.recommend_call(
                hand, seat, rules, model=found[0], earlier_calls=earlier_calls
            )
            dist = np.asarray(rec.distribution, dtype=np.float64)
            floor = np.asarray(rec.floor, dtype=np.float64)
            return Forecast(dist, rec.advice, f"model:{found[1]}", floor, calls_used=rec.calls_used)
        masks = np.array([hand.mask], dtype=np.uint64)
        count = float(baselines.baseline_counts("fractional_honours", masks)[0])
        dist = _normal_dist(count, FALLBACK_SD)
        return Forecast(dist, best_call(dist, rules), _FALLBACK)

    def absent(self) -> dict[str, str]:
        """Profiles whose model could not be loaded, with the reason."""
        return dict(self._absent)
