"""The bid model: a calibrated distribution of a seat's tricks, and the call it implies.

:class:`BidModel` is a scikit-learn classifier trained on solved deals. Its input ``X`` has one
row per hand: the 52-bit hand mask, the seat and, optionally, the calls of the seats before it
(:func:`encode_hands` builds it; :mod:`callbreak_lab.bidding.estimator` documents the columns).
From it the model forecasts two distributions over ``0..13`` tricks (always 14 columns; classes
missing from training get probability 0):

* :meth:`BidModel.predict_proba`: the seat's tricks in the **self-interested play-out** (the
  forecast; the main target), and
* :meth:`BidModel.predict_floor_proba`: its **double-dummy value** (tricks it can guarantee
  against three opponents playing together: the floor).

:func:`recommend_call` / :func:`recommend_calls` turn the forecast into the call with the best
expected score under a ruleset (via :func:`callbreak_lab.bidding.calls.best_call`). One model per
legal-card profile (``modern``, ``strict``, ``online``, ``home_pagat``) ships inside the package,
in ``callbreak_lab/models/`` (package data: :func:`shipped_models`); :func:`load_model` finds it
(``$CALLBREAK_LAB_MODELS`` when set, else the shipped folder), checks its JSON model card and
caches it. :func:`save_model` writes both files atomically.

Learners (``learner=``): ``"hgb"`` (histogram gradient boosting, multinomial), ``"logistic"``
(multinomial logistic regression on standardised features) and ``"ordinal"`` (proportional-odds
cumulative logit). ``calibration="temperature"`` rescales log-probabilities by one temperature
fitted on out-of-fold predictions (cheap at predict time; ``"none"`` skips it).
``condition_on_calls=True`` adds a second play-out head that also
sees the calls already made by earlier seats (at training time: the first head's out-of-fold
calls for the other hands of the same deal).

The estimator lives in :mod:`callbreak_lab.bidding.estimator`; this module re-exports it and adds
persistence and recommendations.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from callbreak_lab.bidding.calls import (
    TRICK_COUNTS,
    CallAdvice,
    CallAdviceBatch,
    best_call,
    best_calls,
    check_earlier_calls,
)
from callbreak_lab.bidding.datasets import PROFILES
from callbreak_lab.bidding.estimator import (
    CALL_FEATURE_NAMES,
    NO_CALL,
    X_COLUMNS,
    BidModel,
    ModelNotFittedError,
    call_features,
    encode_hands,
    profile_of,
)
from callbreak_lab.bidding.features import FEATURE_NAMES, mask_of
from callbreak_lab.cards import Hand, check_seat
from callbreak_lab.errors import HandError, ModelError
from callbreak_lab.rules import Ruleset
from callbreak_lab.util.fileio import atomic_open, sha256_file

__all__ = [
    "CALL_FEATURE_NAMES",
    "MODELS_ENV",
    "NO_CALL",
    "PROFILES",
    "TRICK_COUNTS",
    "X_COLUMNS",
    "BidModel",
    "ModelError",
    "ModelNotFittedError",
    "Recommendation",
    "call_features",
    "check_earlier_calls",
    "default_models_dir",
    "encode_hands",
    "load_model",
    "model_paths",
    "profile_of",
    "recommend_call",
    "recommend_calls",
    "save_model",
    "shipped_models",
]

MODELS_ENV = "CALLBREAK_LAB_MODELS"
CARD_FORMAT = 1


def shipped_models() -> Traversable:
    """The folder of the models shipped in the package, ``callbreak_lab/models/``, found through
    :mod:`importlib.resources`: a folder on disk for a checkout and for a wheel, sdist or editable
    install, a folder inside the archive for a zip import."""
    return resources.files("callbreak_lab").joinpath("models")


def default_models_dir() -> Traversable:
    """``$CALLBREAK_LAB_MODELS`` if set, else :func:`shipped_models` (never the CWD)."""
    return _models_dir(os.environ.get(MODELS_ENV) or None)


@functools.lru_cache(maxsize=16)
def _models_dir(env: str | None) -> Traversable:
    """The folder for a value of the environment variable (resolving a path costs more than a
    cached model's forecast, and every call asks)."""
    if env:
        return Path(env).expanduser().resolve()
    return shipped_models()


def _folder(models_dir: str | Path | None) -> Traversable:
    """The folder of the models: ``models_dir``, else :func:`default_models_dir`. An empty
    ``models_dir`` is an error (``Path("")`` would be the working directory)."""
    if models_dir is None:
        return default_models_dir()
    if not str(models_dir).strip():
        raise ModelError(
            f"models_dir is empty ({models_dir!r}): give a directory (None: the shipped models)"
        )
    return Path(models_dir)


def model_paths(
    profile: str, models_dir: str | Path | None = None
) -> tuple[Traversable, Traversable]:
    """``(model file, card file)`` of a profile's model: ``bid_<profile>.joblib`` / ``.json`` in
    ``models_dir`` (a :class:`~pathlib.Path` each), else in :func:`default_models_dir` (a
    :class:`~pathlib.Path` unless the package is imported from a zip archive)."""
    base = _folder(models_dir)
    return base.joinpath(f"bid_{profile}.joblib"), base.joinpath(f"bid_{profile}.json")


def _sklearn_minor() -> str:
    import sklearn

    return ".".join(sklearn.__version__.split(".")[:2])


def save_model(
    model: BidModel,
    models_dir: str | Path | None = None,
    *,
    dataset_hash: str | None = None,
    metrics: Mapping[str, Any] | None = None,
) -> tuple[Path, Path]:
    """Persist a fitted model and its JSON card; returns their paths.

    The card records library versions, feature names, profile, the dataset hash (from the data
    card), the training size, the metrics given and the model file's SHA-256.
    """
    import joblib
    import sklearn

    model.check_fitted()
    model_path, card_path = model_paths(model.profile, models_dir)
    if not isinstance(model_path, Path) or not isinstance(card_path, Path):
        raise ModelError(
            f"cannot write into {model_path}: the package is imported from an archive; give "
            "models_dir"
        )
    with atomic_open(model_path, ".joblib") as f:
        joblib.dump(model, f, compress=3)
    card = {
        "format": CARD_FORMAT,
        "kind": "callbreak_lab.BidModel",
        "profile": model.profile,
        "feature_names": list(model.feature_names_),
        "params": model.get_params(),
        "temperatures": {
            "playout": model.playout_.temperature,
            "floor": None if model.floor_ is None else model.floor_.temperature,
        },
        "sklearn": sklearn.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "dataset_hash": dataset_hash,
        "training_size": int(model.n_train_),
        "metrics": dict(metrics or {}),
        "model_file": model_path.name,
        "model_sha256": sha256_file(model_path),
    }
    text = json.dumps(card, indent=2, sort_keys=True, default=_json_default) + "\n"
    with atomic_open(card_path, ".json") as f:
        f.write(text.encode())
    return model_path, card_path


def _json_default(obj: object) -> object:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def read_card(profile: str, models_dir: str | Path | None = None) -> dict[str, Any]:
    """The parsed JSON model card of a profile's model (raises :class:`ModelError`)."""
    _, card_path = model_paths(profile, models_dir)
    if not card_path.is_file():
        raise ModelError(f"model card {card_path} is missing (run `make models` to rebuild)")
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"model card {card_path} is not valid JSON: {exc}") from None
    if not isinstance(card, dict):
        raise ModelError(f"model card {card_path} must hold a JSON object")
    return card


def _check_card(card: dict[str, Any], profile: str, card_path: Traversable) -> None:
    problems = []
    if card.get("format") != CARD_FORMAT:
        problems.append(f"card format {card.get('format')!r} (expected {CARD_FORMAT})")
    if card.get("profile") != profile:
        problems.append(f"profile {card.get('profile')!r} (expected {profile!r})")
    names = card.get("feature_names")
    if not isinstance(names, list) or names[: len(FEATURE_NAMES)] != list(FEATURE_NAMES):
        problems.append("feature names differ from callbreak_lab.bidding.features.FEATURE_NAMES")
    elif names[len(FEATURE_NAMES) :] not in ([], list(CALL_FEATURE_NAMES)):
        problems.append(f"unknown extra features {names[len(FEATURE_NAMES) :]}")
    sk = str(card.get("sklearn", ""))
    if ".".join(sk.split(".")[:2]) != _sklearn_minor():
        problems.append(f"trained with scikit-learn {sk or '?'}, running {_sklearn_minor()}")
    if problems:
        raise ModelError(
            f"model card {card_path} does not match: "
            + "; ".join(problems)
            + " (retrain with `make models`)"
        )


_LOADED: dict[tuple[str, str], BidModel] = {}
_LOCK = threading.Lock()


def load_model(
    profile_or_preset: str | Ruleset | None = None,
    models_dir: str | Path | None = None,
    *,
    cache: bool = True,
) -> BidModel:
    """The shipped model of a profile (or of a preset's profile; None: ``rules.DEFAULT_RULES``'s),
    checked against its card.

    Cached in-process per (directory, profile). Missing files, a card that does not match (format,
    profile, feature names, scikit-learn major.minor) or a damaged file raise :class:`ModelError`.
    """
    import joblib

    profile = profile_of(Ruleset.coerce(None) if profile_or_preset is None else profile_or_preset)
    model_path, card_path = model_paths(profile, models_dir)
    folder = default_models_dir() if models_dir is None else Path(models_dir).resolve()
    key = (str(folder), profile)
    if cache and key in _LOADED:
        return _LOADED[key]
    with _LOCK:
        if cache and key in _LOADED:
            return _LOADED[key]
        if not model_path.is_file():
            raise ModelError(f"no model for profile {profile!r}: {model_path} is missing "
                             f"(set ${MODELS_ENV} or run `make models`)")  # fmt: skip
        card = read_card(profile, models_dir)
        _check_card(card, profile, card_path)
        if card.get("model_sha256") != sha256_file(model_path):
            raise ModelError(
                f"model file {model_path} does not match its card (truncated, damaged or "
                "replaced); retrain with `make models`"
            )
        try:
            # a file inside a zip archive is copied to a temporary file while it loads
            with resources.as_file(model_path) as path:
                model = joblib.load(path)
        except Exception as exc:  # unpickling a damaged file can raise almost anything
            raise ModelError(f"model file {model_path} cannot be loaded: {exc!r}") from None
        if not isinstance(model, BidModel) or not hasattr(model, "playout_"):
            raise ModelError(f"model file {model_path} does not hold a fitted BidModel")
        if model.profile != profile or list(model.feature_names_) != card["feature_names"]:
            raise ModelError(f"model file {model_path} does not match its card {card_path}")
        if cache:
            _LOADED[key] = model
        return model


# ---------------------------------------------------------------------------------------------
# Recommendations
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recommendation:
    """The suggested call for one hand: ``advice`` (call, expected scores in tenths and make
    probabilities of every legal call, the play-out distribution) plus the floor distribution."""

    hand: Hand
    seat: int
    rules: Ruleset
    advice: CallAdvice
    floor: np.ndarray
    #: the calls of seats ``0..seat-1`` that were given, in seat order (``None``: not given)
    earlier_calls: tuple[int, ...] | None = None
    #: whether the model conditioned its forecast on ``earlier_calls`` (only a call-conditioned
    #: model does; the others ignore them)
    calls_used: bool = False

    @property
    def call(self) -> int:
        """The call with the best expected score (ties -> lower call)."""
        return self.advice.call

    @property
    def distribution(self) -> np.ndarray:
        """P(play-out tricks = t) for t = 0..13."""
        return self.advice.dist

    @property
    def expected(self) -> dict[int, float]:
        """``{call: expected score in points}`` for every legal call."""
        return {
            int(c): float(e) / 10
            for c, e in zip(self.advice.calls, self.advice.expected, strict=True)
        }

    @property
    def make_probability(self) -> dict[int, float]:
        """``{call: P(the call is made)}`` for every legal call."""
        return {
            int(c): float(p) for c, p in zip(self.advice.calls, self.advice.make_prob, strict=True)
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary (scores in points)."""
        return {
            "hand": str(self.hand),
            "seat": self.seat,
            "rules": self.rules.name,
            "call": self.call,
            "expected": {str(c): round(v, 4) for c, v in self.expected.items()},
            "make_probability": {str(c): round(v, 4) for c, v in self.make_probability.items()},
            "distribution": [round(float(p), 6) for p in self.distribution],
            "floor": [round(float(p), 6) for p in self.floor],
            "earlier_calls": None if self.earlier_calls is None else list(self.earlier_calls),
            "calls_used": self.calls_used,
        }


def recommend_call(
    hand: Hand | str | int,
    seat: int = 0,
    rules: str | Ruleset | None = None,
    *,
    model: BidModel | None = None,
    earlier_calls: Sequence[int] | None = None,
) -> Recommendation:
    """The call maximising expected score for ``hand`` in ``seat`` under ``rules`` (None:
    ``rules.DEFAULT_RULES``).

    Uses the shipped model of the ruleset's profile unless ``model`` is given. ``earlier_calls``
    (the calls of seats ``0..seat-1``, each within the ruleset's call range) are used only by a
    call-conditioned model; ``Recommendation.calls_used`` says whether they were. A model fitted
    on play-out tricks alone (no floor head) raises :class:`ModelError`: the recommendation
    carries the floor distribution.
    """
    ruleset = Ruleset.coerce(rules)
    parsed = (
        hand
        if isinstance(hand, Hand)
        else Hand(hand)
        if isinstance(hand, int | np.integer)
        else Hand.parse(hand)
    )
    if len(parsed) != 13:
        raise HandError(f"a hand has 13 cards, got {len(parsed)} in {str(parsed)!r}")
    check_seat(seat)
    prev = None if earlier_calls is None else check_earlier_calls(earlier_calls, seat, ruleset)
    bid_model = model if model is not None else load_model(ruleset)
    x = encode_hands(
        np.array([mask_of(parsed)], dtype=np.uint64),
        np.array([int(seat)]),
        None if prev is None else [list(prev)],
    )
    dist, floor = bid_model._predict_encoded(x)  # x: encode_hands' rows, calls checked
    used = prev is not None and getattr(bid_model, "conditioned_", None) is not None
    advice = best_call(dist[0], ruleset)
    return Recommendation(parsed, int(seat), ruleset, advice, floor[0], prev, used)


def recommend_calls(
    masks: npt.ArrayLike,
    seats: npt.ArrayLike | None,
    rules: str | Ruleset | None = None,
    *,
    model: BidModel | None = None,
) -> CallAdviceBatch:
    """Best calls for many hands at once (``.call``, ``.expected``, ``.make_prob``, ``.dist``)."""
    ruleset = Ruleset.coerce(rules)
    bid_model = model if model is not None else load_model(ruleset)
    return best_calls(bid_model.predict_proba(encode_hands(masks, seats)), ruleset)
