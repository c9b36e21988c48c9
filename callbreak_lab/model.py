"""The bid model: a calibrated distribution of a seat's tricks, and the call it implies.

:class:`BidModel` is a scikit-learn estimator trained on solved deals. For a hand (52-bit mask)
and its seat it forecasts two distributions over ``0..13`` tricks (always 14 columns; classes
missing from training get probability 0):

* :meth:`BidModel.predict_proba`: the seat's tricks in the **self-interested play-out** (the
  forecast; the main target), and
* :meth:`BidModel.predict_floor_proba`: its **double-dummy value** (tricks it can guarantee
  against three opponents playing together: the floor).

:func:`recommend_call` / :func:`recommend_calls` turn the forecast into the call with the best
expected score under a ruleset (via :func:`callbreak_lab.calls.best_call`). One model per
legal-card profile (``modern``, ``strict``, ``online``, ``home_pagat``) ships under ``models/``;
:func:`load_model` finds it (``$CALLBREAK_LAB_MODELS`` or the repository's ``models/``), checks
its JSON model card and caches it. :func:`save_model` writes both files atomically.

Learners (``learner=``): ``"hgb"`` (histogram gradient boosting, multinomial), ``"logistic"``
(multinomial logistic regression on standardised features) and ``"ordinal"`` (proportional-odds
cumulative logit). ``calibration="temperature"`` rescales log-probabilities by one temperature
fitted on out-of-fold predictions (cheap at predict time); ``"sigmoid"``/``"isotonic"`` use
``CalibratedClassifierCV``. ``condition_on_calls=True`` adds a second play-out head that also
sees the calls already made by earlier seats (at training time: the first head's out-of-fold
calls for the other hands of the same deal).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.base import BaseEstimator

from callbreak_lab._atomic import atomic_open
from callbreak_lab.calls import CallAdvice, CallAdviceBatch, CallsError, best_call, best_calls
from callbreak_lab.calls import check_earlier_calls as calls_check_earlier
from callbreak_lab.cards import Hand, is_seat
from callbreak_lab.features import (
    FEATURE_NAMES,
    SIDE_SUIT_ORDERS,
    hand_features,
    mask_of,
    rename_side_suits,
    validate_hands,
)
from callbreak_lab.model_learners import LEARNERS, N_TRICKS, Head, fit_head, oof_proba
from callbreak_lab.rules import RulesError, Ruleset

__all__ = [
    "CALL_FEATURE_NAMES",
    "MODELS_ENV",
    "N_TRICKS",
    "PROFILES",
    "BidModel",
    "ModelError",
    "Recommendation",
    "call_features",
    "check_earlier_calls",
    "default_models_dir",
    "load_model",
    "model_paths",
    "profile_of",
    "recommend_call",
    "recommend_calls",
    "save_model",
]

PROFILES = ("modern", "strict", "online", "home_pagat")
MODELS_ENV = "CALLBREAK_LAB_MODELS"
CARD_FORMAT = 1
#: extra columns of the call-conditioned head (calls of the seats before this one)
CALL_FEATURE_NAMES = ("prev_calls_n", "prev_calls_sum", "prev_calls_max")
#: preset whose scoring and call range produce the conditioning calls of each profile
_CALL_PRESET = {"modern": "modern", "strict": "strict", "online": "online", "home_pagat": "pagat"}
_CALIBRATIONS = ("none", "temperature")


class ModelError(ValueError):
    """A model that cannot be trained, used or loaded (bad input, missing or mismatched files)."""


# ---------------------------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------------------------


def profile_of(profile_or_rules: str | Ruleset) -> str:
    """The legal-card profile of a profile name, preset name (with variations) or ruleset.

    Play (and so every solved number) depends only on the legal-card switches, so presets sharing
    them share a model: ``home`` and ``pagat`` map to ``home_pagat`` (see ``data.profile_of``).
    """
    from callbreak_lab import data

    try:
        if isinstance(profile_or_rules, str) and profile_or_rules.strip().lower() in PROFILES:
            return profile_or_rules.strip().lower()
        return data.profile_of(_rules_of(profile_or_rules))
    except ValueError as exc:
        name = getattr(profile_or_rules, "name", profile_or_rules)  # not a Ruleset's whole repr
        raise ModelError(f"no bid model for {name!r}: {exc}") from None


# ---------------------------------------------------------------------------------------------
# Call conditioning
# ---------------------------------------------------------------------------------------------


def call_features(
    seats: np.ndarray, earlier_calls: Sequence[Sequence[int]] | np.ndarray
) -> np.ndarray:
    """``(n, 3)`` columns :data:`CALL_FEATURE_NAMES` from the calls of the seats before each hand.

    ``earlier_calls`` is ``(n, 4)`` with the calls of seats 0..3 (entries at or after a hand's own
    seat are ignored), or a list of per-hand sequences of the earlier seats' calls in seat order.
    """
    seats = np.asarray(seats, dtype=np.int64)
    if isinstance(earlier_calls, np.ndarray):
        table = earlier_calls.astype(np.int64)
        if table.shape != (len(seats), 4):
            raise ModelError(f"earlier_calls must have shape ({len(seats)}, 4), got {table.shape}")
    else:
        if len(earlier_calls) != len(seats):
            raise ModelError(
                f"need earlier calls for {len(seats)} hand(s), got {len(earlier_calls)}"
            )
        table = np.zeros((len(seats), 4), dtype=np.int64)
        for i, (s, prev) in enumerate(zip(seats, earlier_calls, strict=True)):
            if len(prev) != s:
                raise ModelError(
                    f"hand {i} sits in seat {s}, so {s} earlier call(s) are needed, got {len(prev)}"
                )
            table[i, :s] = prev
    before = np.arange(4)[None, :] < seats[:, None]
    shown = np.where(before, table, 0)
    return np.stack([before.sum(axis=1), shown.sum(axis=1), shown.max(axis=1)], axis=1).astype(
        np.float64
    )


def _deal_calls(
    dists: np.ndarray, deal_index: np.ndarray, seats: np.ndarray, rules: Ruleset
) -> np.ndarray:
    """``(n, 4)``: for each hand, the calls (from ``dists``) of all four seats of its deal."""
    calls = best_calls(dists, rules).call
    _, inverse = np.unique(deal_index, return_inverse=True)
    table = np.zeros((inverse.max() + 1 if len(inverse) else 0, 4), dtype=np.int64)
    table[inverse, seats] = calls
    return table[inverse]


# ---------------------------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------------------------


class BidModel(BaseEstimator):
    """Distribution of a seat's play-out tricks (and of its guaranteed tricks) from its hand.

    ``fit(masks, seats, playout_tricks, dd_tricks)``; ``predict_proba(masks, seats)`` -> (n, 14).
    Parameters are the learner's knobs plus ``profile`` (the legal-card profile the data came
    from), ``calibration``, ``cv`` (folds for calibration) and ``random_state``.
    ``augment_side_suits`` trains on every hand under the six namings of its side suits (the
    rules treat clubs, diamonds and hearts alike), the copies of a hand kept in one calibration
    fold: the model then learns the symmetry instead of fitting noise per suit.
    """

    #: models pickled before the parameter existed were trained without it
    augment_side_suits: bool = False

    def __init__(
        self,
        profile: str = "modern",
        learner: str = "hgb",
        calibration: str = "temperature",
        condition_on_calls: bool = False,
        augment_side_suits: bool = False,
        learning_rate: float = 0.05,
        max_iter: int = 200,
        max_leaf_nodes: int = 15,
        min_samples_leaf: int = 40,
        l2_regularization: float = 1.0,
        C: float = 1.0,
        cv: int = 3,
        random_state: int = 0,
    ) -> None:
        self.profile = profile
        self.learner = learner
        self.calibration = calibration
        self.condition_on_calls = condition_on_calls
        self.augment_side_suits = augment_side_suits
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.C = C
        self.cv = cv
        self.random_state = random_state

    # --- fitting ----------------------------------------------------------------------------
    def _check_params(self) -> None:
        if self.profile not in PROFILES:
            raise ModelError(f"unknown profile {self.profile!r} (profiles: {', '.join(PROFILES)})")
        if self.learner not in LEARNERS:
            raise ModelError(f"unknown learner {self.learner!r} (one of {', '.join(LEARNERS)})")
        if not isinstance(self.augment_side_suits, bool | np.bool_):
            raise ModelError(
                f"augment_side_suits must be True or False, got {self.augment_side_suits!r}"
            )
        if self.calibration not in _CALIBRATIONS:
            raise ModelError(
                f"unknown calibration {self.calibration!r} (one of {', '.join(_CALIBRATIONS)})"
            )

    def fit(
        self,
        masks: npt.ArrayLike,
        seats: npt.ArrayLike,
        playout_tricks: npt.ArrayLike,
        dd_tricks: npt.ArrayLike,
        deal_index: npt.ArrayLike | None = None,
    ) -> BidModel:
        """Train on hands ``masks`` in ``seats`` with their play-out and double-dummy tricks.

        ``deal_index`` (same length; equal values = same deal) is needed only with
        ``condition_on_calls=True``, to find the other hands of each deal.
        """
        self._check_params()
        x = self._features(masks, seats)
        n = len(x)
        y = _tricks(playout_tricks, "playout_tricks", n)
        y_dd = _tricks(dd_tricks, "dd_tricks", n)
        if n < 2 * self.cv:
            raise ModelError(f"need at least {2 * self.cv} training hands, got {n}")
        didx = None
        if self.condition_on_calls:
            if deal_index is None:
                raise ModelError("condition_on_calls=True needs deal_index to group hands by deal")
            didx = np.asarray(deal_index)
            if didx.shape != y.shape:
                raise ModelError(f"deal_index shape {didx.shape} does not match {y.shape}")
        groups = None
        if self.augment_side_suits:
            m, seat_arr = validate_hands(masks, seats)
            x = np.vstack(
                [x]
                + [self._features(rename_side_suits(m, o), seat_arr) for o in SIDE_SUIT_ORDERS[1:]]
            )
            k = len(SIDE_SUIT_ORDERS)
            y, y_dd = np.tile(y, k), np.tile(y_dd, k)
            groups = np.tile(np.arange(n), k)
            if didx is not None:  # each renaming of a deal is a deal of its own
                _, dense = np.unique(didx, return_inverse=True)
                didx = np.repeat(np.arange(k), n) * (int(dense.max()) + 1) + np.tile(dense, k)
        self.playout_, oof = self._fit_head(x, y, groups)
        self.floor_, _ = self._fit_head(x, y_dd, groups)
        self.conditioned_: Head | None = None
        if didx is not None:
            if oof is None:
                oof = oof_proba(self.learner, self.get_params(), x, y, self.cv, groups)
            seat_arr = x[:, FEATURE_NAMES.index("seat_0") :][:, :4].argmax(axis=1)
            table = _deal_calls(oof, didx, seat_arr, self.call_rules_)
            xc = np.hstack([x, call_features(seat_arr, table)])
            self.conditioned_, _ = self._fit_head(xc, y, groups)
        self.n_train_ = n
        self.classes_ = np.arange(N_TRICKS)
        return self

    def _fit_head(
        self, x: np.ndarray, y: np.ndarray, groups: np.ndarray | None = None
    ) -> tuple[Head, np.ndarray | None]:
        return fit_head(self.learner, self.get_params(), self.calibration, self.cv, x, y, groups)

    @property
    def call_rules_(self) -> Ruleset:
        """Ruleset whose calls the conditioned head sees (the profile's canonical preset)."""
        return Ruleset.preset(_CALL_PRESET[self.profile])

    @property
    def feature_names_(self) -> tuple[str, ...]:
        """Column names of the inputs the heads see (hand features, then call features)."""
        extra = CALL_FEATURE_NAMES if self.condition_on_calls else ()
        return (*FEATURE_NAMES, *extra)

    # --- prediction -------------------------------------------------------------------------
    @staticmethod
    def _features(masks: npt.ArrayLike, seats: npt.ArrayLike | None) -> np.ndarray:
        try:
            return hand_features(masks, seats).astype(np.float64)
        except ValueError as exc:
            raise ModelError(str(exc)) from None

    def _check_fitted(self) -> None:
        if not hasattr(self, "playout_"):
            raise ModelError("this BidModel is not fitted yet: call fit() or load_model()")

    def predict_proba(
        self,
        masks: npt.ArrayLike,
        seats: npt.ArrayLike | None = None,
        earlier_calls: Sequence[Sequence[int]] | np.ndarray | None = None,
    ) -> np.ndarray:
        """``(n, 14)`` distribution of each hand's play-out tricks 0..13 (rows sum to 1).

        With ``earlier_calls`` (see :func:`call_features`) a call-conditioned model uses the calls
        of the seats before each hand; without them (or for an unconditioned model) it ignores them.
        """
        self._check_fitted()
        return self._playout_proba(self._features(masks, seats), masks, seats, earlier_calls)

    def _playout_proba(
        self,
        x: np.ndarray,
        masks: npt.ArrayLike,
        seats: npt.ArrayLike | None,
        earlier_calls: Sequence[Sequence[int]] | np.ndarray | None,
    ) -> np.ndarray:
        if earlier_calls is not None and self.conditioned_ is not None:
            seat_arr = validate_hands(masks, seats)[1]
            return self.conditioned_.proba(np.hstack([x, call_features(seat_arr, earlier_calls)]))
        return self.playout_.proba(x)

    def predict_both(
        self,
        masks: npt.ArrayLike,
        seats: npt.ArrayLike | None = None,
        earlier_calls: Sequence[Sequence[int]] | np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(predict_proba(...), predict_floor_proba(...))`` with the features computed once
        (what one interactive request needs)."""
        self._check_fitted()
        x = self._features(masks, seats)
        return self._playout_proba(x, masks, seats, earlier_calls), self.floor_.proba(x)

    def predict_floor_proba(
        self, masks: npt.ArrayLike, seats: npt.ArrayLike | None = None
    ) -> np.ndarray:
        """``(n, 14)`` distribution of each hand's guaranteed (double-dummy) tricks: the floor."""
        self._check_fitted()
        return self.floor_.proba(self._features(masks, seats))

    def predict(self, masks: npt.ArrayLike, seats: npt.ArrayLike | None = None) -> np.ndarray:
        """Most likely play-out trick count of each hand."""
        return self.predict_proba(masks, seats).argmax(axis=1)

    def expected_tricks(
        self, masks: npt.ArrayLike, seats: npt.ArrayLike | None = None
    ) -> np.ndarray:
        """Mean of the play-out distribution of each hand."""
        return self.predict_proba(masks, seats) @ np.arange(N_TRICKS)


def _tricks(values: npt.ArrayLike, name: str, n: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.shape != (n,):
        raise ModelError(f"{name} must have shape ({n},) like the hands, got {arr.shape}")
    if arr.size and (arr.dtype.kind not in "iu" or arr.min() < 0 or arr.max() > 13):
        raise ModelError(f"{name} must be integer trick counts 0..13")
    return arr.astype(np.int64)


# ---------------------------------------------------------------------------------------------
# Persistence: joblib file + JSON model card
# ---------------------------------------------------------------------------------------------


def default_models_dir() -> Path:
    """``$CALLBREAK_LAB_MODELS`` if set, else ``models/`` beside the package (never the CWD)."""
    env = os.environ.get(MODELS_ENV)
    if env:
        return Path(env).expanduser().resolve()
    return Path(__file__).resolve().parent.parent / "models"


def model_paths(profile: str, models_dir: str | Path | None = None) -> tuple[Path, Path]:
    """``(model file, card file)`` of a profile's model: ``bid_<profile>.joblib`` / ``.json``.
    An empty ``models_dir`` is an error (``Path("")`` would be the working directory)."""
    if models_dir is not None and not str(models_dir).strip():
        raise ModelError(
            f"models_dir is empty ({models_dir!r}): give a directory (None: the shipped models)"
        )
    base = Path(models_dir) if models_dir is not None else default_models_dir()
    return base / f"bid_{profile}.joblib", base / f"bid_{profile}.json"


def _sklearn_minor() -> str:
    import sklearn

    return ".".join(sklearn.__version__.split(".")[:2])


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


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

    model._check_fitted()
    model_path, card_path = model_paths(model.profile, models_dir)
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
            "floor": model.floor_.temperature,
        },
        "sklearn": sklearn.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "dataset_hash": dataset_hash,
        "training_size": int(model.n_train_),
        "metrics": dict(metrics or {}),
        "model_file": model_path.name,
        "model_sha256": _sha256(model_path),
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


def _check_card(card: dict[str, Any], profile: str, card_path: Path) -> None:
    problems = []
    if card.get("format") != CARD_FORMAT:
        problems.append(f"card format {card.get('format')!r} (expected {CARD_FORMAT})")
    if card.get("profile") != profile:
        problems.append(f"profile {card.get('profile')!r} (expected {profile!r})")
    names = card.get("feature_names")
    if not isinstance(names, list) or names[: len(FEATURE_NAMES)] != list(FEATURE_NAMES):
        problems.append("feature names differ from callbreak_lab.features.FEATURE_NAMES")
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
    profile_or_preset: str | Ruleset = "modern",
    models_dir: str | Path | None = None,
    *,
    cache: bool = True,
) -> BidModel:
    """The shipped model of a profile (or of a preset's profile), checked against its card.

    Cached in-process per (directory, profile). Missing files, a card that does not match (format,
    profile, feature names, scikit-learn major.minor) or a damaged file raise :class:`ModelError`.
    """
    import joblib

    profile = profile_of(profile_or_preset)
    model_path, card_path = model_paths(profile, models_dir)
    key = (str(model_path.parent.resolve()), profile)
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
        if card.get("model_sha256") != _sha256(model_path):
            raise ModelError(
                f"model file {model_path} does not match its card (truncated, damaged or "
                "replaced); retrain with `make models`"
            )
        try:
            model = joblib.load(model_path)
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


def _rules_of(rules: str | Ruleset) -> Ruleset:
    return rules if isinstance(rules, Ruleset) else Ruleset.preset(rules)


def _rules(rules: str | Ruleset) -> Ruleset:
    try:
        return _rules_of(rules)
    except RulesError as exc:
        raise ModelError(str(exc)) from None


def recommend_call(
    hand: Hand | str | int,
    seat: int = 0,
    rules: str | Ruleset = "modern",
    *,
    model: BidModel | None = None,
    earlier_calls: Sequence[int] | None = None,
) -> Recommendation:
    """The call maximising expected score for ``hand`` in ``seat`` under ``rules``.

    Uses the shipped model of the ruleset's profile unless ``model`` is given. ``earlier_calls``
    (the calls of seats ``0..seat-1``, each within the ruleset's call range) are used only by a
    call-conditioned model; ``Recommendation.calls_used`` says whether they were.
    """
    ruleset = _rules(rules)
    try:
        parsed = (
            hand
            if isinstance(hand, Hand)
            else Hand(hand)
            if isinstance(hand, int | np.integer)
            else Hand.parse(hand)
        )
    except ValueError as exc:
        raise ModelError(str(exc)) from None
    if len(parsed) != 13:
        raise ModelError(f"a hand has 13 cards, got {len(parsed)} in {str(parsed)!r}")
    if not is_seat(seat):
        raise ModelError(f"seat must be 0..3, got {seat!r}")
    prev = None if earlier_calls is None else check_earlier_calls(earlier_calls, seat, ruleset)
    bid_model = model if model is not None else load_model(ruleset)
    masks = np.array([mask_of(parsed)], dtype=np.uint64)
    seats = np.array([int(seat)])
    dist, floor = bid_model.predict_both(masks, seats, None if prev is None else [list(prev)])
    used = prev is not None and getattr(bid_model, "conditioned_", None) is not None
    advice = best_call(dist[0], ruleset)
    return Recommendation(parsed, int(seat), ruleset, advice, floor[0], prev, used)


def check_earlier_calls(
    earlier_calls: Sequence[int], seat: int, rules: str | Ruleset
) -> tuple[int, ...]:
    """:func:`callbreak_lab.calls.check_earlier_calls` for a ruleset or preset name, failing
    with a :class:`ModelError`."""
    try:
        return calls_check_earlier(earlier_calls, seat, _rules(rules))
    except CallsError as exc:
        raise ModelError(str(exc)) from None


def recommend_calls(
    masks: npt.ArrayLike,
    seats: npt.ArrayLike | None,
    rules: str | Ruleset = "modern",
    *,
    model: BidModel | None = None,
) -> CallAdviceBatch:
    """Best calls for many hands at once (``.call``, ``.expected``, ``.make_prob``, ``.dist``)."""
    ruleset = _rules(rules)
    bid_model = model if model is not None else load_model(ruleset)
    return best_calls(bid_model.predict_proba(masks, seats), ruleset)
