"""The bid model's estimator: :class:`BidModel`, its input encoding and the call features.

:class:`BidModel` is a scikit-learn classifier over the trick counts 0..13 of one seat.

**Input** ``X``: an integer array of shape ``(n, 6)``, one row per hand, columns
:data:`X_COLUMNS` (build it with :func:`encode_hands`):

* ``hand``: the 13-card hand as a 52-bit mask (bit ``13 * suit + rank``, suits clubs,
  diamonds, hearts, spades; ranks 2..A as 0..12), stored in an int64;
* ``seat``: 0..3 (seat 0 calls first);
* ``calls_known``: 1 when the row carries the calls of every seat before it (a seat-0 row: there
  are none), 0 when it carries none;
* ``call_seat_0``, ``call_seat_1``, ``call_seat_2``: the call of that seat when it sits before
  the hand's own and ``calls_known`` is 1, else :data:`NO_CALL` (-1).

Only a call-conditioned model (``condition_on_calls=True``) reads the calls; the others ignore
them. The calls make sense at prediction time only: ``fit`` takes rows with ``calls_known`` 0
and derives each earlier seat's call from its own out-of-fold forecasts (``deal_index``).

**Targets** ``y``: integer trick counts 0..13, either ``(n,)`` (the play-out tricks) or
``(n, 2)`` (columns: play-out tricks, then the double-dummy tricks, the floor). The play-out
head is the main one: ``predict_proba`` returns its ``(n, 14)`` class probabilities over
``classes_ = 0..13`` (always 14 columns: trick counts absent from training get 0). The floor
head (``predict_floor_proba``) exists when ``y`` has the second column.

:mod:`callbreak_lab.bidding.model` re-exports everything public here and adds persistence (model
files and cards) and recommendations.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted

from callbreak_lab.bidding.calls import TRICK_COUNTS, best_calls
from callbreak_lab.bidding.datasets import PROFILES
from callbreak_lab.bidding.features import (
    FEATURE_NAMES,
    SIDE_SUIT_ORDERS,
    hand_features,
    rename_side_suits,
    validate_hands,
)
from callbreak_lab.bidding.learners import LEARNERS, Head, fit_head, oof_proba
from callbreak_lab.errors import ModelError, check_int
from callbreak_lab.rules import Ruleset

#: columns of the estimator's input ``X`` (see the module docstring and :func:`encode_hands`)
X_COLUMNS = ("hand", "seat", "calls_known", "call_seat_0", "call_seat_1", "call_seat_2")
N_COLUMNS = len(X_COLUMNS)
#: the entry of a call ``X`` does not carry (a seat at or after the hand's own, or calls unknown)
NO_CALL = -1
_CALLS = slice(3, 6)
#: extra columns of the call-conditioned head (calls of the seats before this one)
CALL_FEATURE_NAMES = ("prev_calls_n", "prev_calls_sum", "prev_calls_max")
#: preset whose scoring and call range produce the conditioning calls of each profile
_CALL_PRESET = {"modern": "modern", "strict": "strict", "online": "online", "home_pagat": "pagat"}
_CALIBRATIONS = ("none", "temperature")


# ---------------------------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------------------------


def profile_of(profile_or_rules: str | Ruleset) -> str:
    """The legal-card profile of a profile name, preset name (with variations) or ruleset.

    Play (and so every solved number) depends only on the legal-card switches, so presets sharing
    them share a model: ``home`` and ``pagat`` map to ``home_pagat`` (see ``data.profile_of``).
    """
    from callbreak_lab.bidding import datasets as data

    try:
        if isinstance(profile_or_rules, str) and profile_or_rules.strip().lower() in PROFILES:
            return profile_or_rules.strip().lower()
        return data.profile_of(Ruleset.coerce(profile_or_rules))
    except ValueError as exc:
        name = getattr(profile_or_rules, "name", profile_or_rules)  # not a Ruleset's whole repr
        raise ModelError(f"no bid model for {name!r}: {exc}") from None


# ---------------------------------------------------------------------------------------------
# Call conditioning
# ---------------------------------------------------------------------------------------------


def encode_hands(
    masks: npt.ArrayLike,
    seats: npt.ArrayLike | None = None,
    earlier_calls: Sequence[Sequence[int]] | np.ndarray | None = None,
) -> np.ndarray:
    """The estimator's input ``X`` (``(n, 6)`` int64, columns :data:`X_COLUMNS`) for hands.

    ``masks``: 52-bit hand masks of 13 cards; ``seats``: 0..3 per hand, one seat for all, or
    ``None`` (seat 0). ``earlier_calls``: ``None`` (``calls_known`` 0 on every row), an ``(n, 4)``
    table with the calls of seats 0..3 of each hand's deal (entries at or after a hand's own seat
    are ignored), or per-hand sequences of the earlier seats' calls in seat order.
    """
    try:
        mask_arr, seat_arr = validate_hands(masks, seats)
    except ValueError as exc:
        raise ModelError(str(exc)) from None
    x = np.full((len(mask_arr), N_COLUMNS), NO_CALL, dtype=np.int64)
    x[:, 0] = mask_arr.astype(np.int64)
    x[:, 1] = seat_arr
    x[:, 2] = 0
    if earlier_calls is not None:
        table = _calls_table(seat_arr, earlier_calls)
        before = np.arange(3)[None, :] < seat_arr[:, None]
        x[:, _CALLS] = np.where(before, table[:, :3], NO_CALL)
        x[:, 2] = 1
    return x


def call_features(x: np.ndarray) -> np.ndarray:
    """``(n, 3)`` columns :data:`CALL_FEATURE_NAMES` (how many seats called before each hand,
    the sum and the largest of their calls) from checked ``X`` rows."""
    return _call_stats(x[:, 1], x[:, _CALLS])


def _call_stats(seats: np.ndarray, calls: np.ndarray) -> np.ndarray:
    """:func:`call_features` from seats and a table whose first three columns hold the calls of
    seats 0..2 (entries at or after a hand's own seat are not read)."""
    before = np.arange(3)[None, :] < seats[:, None]
    shown = np.where(before, calls[:, :3], 0)
    return np.stack([before.sum(axis=1), shown.sum(axis=1), shown.max(axis=1)], axis=1).astype(
        np.float64
    )


def _with_masks(x: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``X`` rows ``x`` with their hands replaced by ``masks``."""
    out = x.copy()
    out[:, 0] = masks.astype(np.int64)
    return out


def _calls_table(
    seats: np.ndarray, earlier_calls: Sequence[Sequence[int]] | np.ndarray
) -> np.ndarray:
    """``(n, 4)`` int64 calls of seats 0..3 from either form :func:`encode_hands` accepts (the
    entries at or after a hand's own seat are left as they come)."""
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
    return table


def deal_calls(
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


class ModelNotFittedError(ModelError, NotFittedError):  # type: ignore[misc]  # scikit-learn is untyped: its classes are Any
    """A :class:`BidModel` used before ``fit`` (scikit-learn's ``NotFittedError`` too)."""


class BidModel(ClassifierMixin, BaseEstimator):  # type: ignore[misc]  # scikit-learn is untyped: its classes are Any
    """Distribution of a seat's play-out tricks (and of its guaranteed tricks) from its hand.

    ``fit(X, y)`` and ``predict_proba(X) -> (n, 14)``, with ``X`` and ``y`` as the module
    docstring describes (``X = encode_hands(masks, seats)``, ``y = (play-out, floor)`` columns).
    Parameters are the learner's knobs plus ``profile`` (the legal-card profile the data came
    from), ``calibration``, ``cv`` (folds for calibration) and ``random_state`` (an int, a
    ``numpy.random.RandomState`` or ``None``; one seed drawn from it drives the folds and the
    learners of one fit). ``augment_side_suits`` trains on every hand under the six namings of
    its side suits (the rules treat clubs, diamonds and hearts alike), the copies of a hand kept
    in one calibration fold: the model then learns the symmetry instead of fitting noise per suit.
    """

    def __init__(  # noqa: PLR0913  (scikit-learn's estimator contract: every parameter is an __init__ argument)
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
        random_state: int | np.random.RandomState | None = 0,
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
        check_int(self.cv, "cv (calibration folds)", low=2, error=ModelError)
        if self.calibration not in _CALIBRATIONS:
            raise ModelError(
                f"unknown calibration {self.calibration!r} (one of {', '.join(_CALIBRATIONS)})"
            )

    def _seed(self) -> int:
        """The one seed of a fit: ``random_state`` itself when it is an int (so a given int
        always trains the same model), else an int drawn from the generator it names."""
        try:
            rng = check_random_state(self.random_state)
        except ValueError:
            raise ModelError(
                "random_state must be an int, a numpy RandomState or None, "
                f"got {self.random_state!r}"
            ) from None
        if isinstance(self.random_state, numbers.Integral):
            return int(self.random_state)
        return int(rng.randint(np.iinfo(np.int32).max))

    def fit(
        self, X: npt.ArrayLike, y: npt.ArrayLike, *, deal_index: npt.ArrayLike | None = None
    ) -> BidModel:
        """Train on hands ``X`` (:func:`encode_hands`, ``calls_known`` 0) and tricks ``y``.

        ``y`` is ``(n,)`` play-out tricks, or ``(n, 2)`` play-out and double-dummy (floor)
        tricks; only the second form trains the floor head. ``deal_index`` (length ``n``; equal
        values = same deal) is needed only with ``condition_on_calls=True``, to find the other
        hands of each deal.
        """
        self._check_params()
        if y is None:
            raise ModelError("BidModel requires y to be passed, but the target y is None")
        try:
            check_classification_targets(y)
        except ValueError as exc:
            raise ModelError(str(exc)) from None
        x_in = self._check_X(X, min_samples=2 * self.cv)
        if np.any(x_in[:, 2] != 0):
            raise ModelError(
                "fit takes hands without earlier calls (calls_known 0): a call-conditioned model "
                "learns from the calls its own out-of-fold forecasts give the earlier seats of "
                "each deal (deal_index)"
            )
        x = self._features(x_in)
        n = len(x)
        y_playout, y_floor = _targets(y, n)
        didx = None
        if self.condition_on_calls:
            if deal_index is None:
                raise ModelError("condition_on_calls=True needs deal_index to group hands by deal")
            didx = np.asarray(deal_index)
            if didx.shape != y_playout.shape:
                raise ModelError(f"deal_index shape {didx.shape} does not match {y_playout.shape}")
        params = {**self.get_params(), "random_state": self._seed()}
        seat_arr = x_in[:, 1]
        groups = None
        if self.augment_side_suits:
            m = x_in[:, 0].astype(np.uint64)
            x = np.vstack(
                [x]
                + [
                    self._features(_with_masks(x_in, rename_side_suits(m, o)))
                    for o in SIDE_SUIT_ORDERS[1:]
                ]
            )
            k = len(SIDE_SUIT_ORDERS)
            y_playout = np.tile(y_playout, k)
            y_floor = None if y_floor is None else np.tile(y_floor, k)
            seat_arr = np.tile(seat_arr, k)
            groups = np.tile(np.arange(n), k)
            if didx is not None:  # each renaming of a deal is a deal of its own
                _, dense = np.unique(didx, return_inverse=True)
                didx = np.repeat(np.arange(k), n) * (int(dense.max()) + 1) + np.tile(dense, k)
        self.playout_, oof = self._fit_head(params, x, y_playout, groups)
        self.floor_: Head | None = None
        if y_floor is not None:
            self.floor_, _ = self._fit_head(params, x, y_floor, groups)
        self.conditioned_: Head | None = None
        if didx is not None:
            if oof is None:
                oof = oof_proba(self.learner, params, x, y_playout, self.cv, groups)
            table = deal_calls(oof, didx, seat_arr, self.call_rules_)
            xc = np.hstack([x, _call_stats(seat_arr, table)])
            self.conditioned_, _ = self._fit_head(params, xc, y_playout, groups)
        self.n_train_ = n
        self.n_features_in_ = N_COLUMNS
        self.classes_ = np.arange(TRICK_COUNTS)
        return self

    def _fit_head(
        self,
        params: dict[str, Any],
        x: np.ndarray,
        y: np.ndarray,
        groups: np.ndarray | None = None,
    ) -> tuple[Head, np.ndarray | None]:
        return fit_head(self.learner, params, self.calibration, self.cv, x, y, groups)

    @property
    def call_rules_(self) -> Ruleset:
        """Ruleset whose calls the conditioned head sees (the profile's canonical preset)."""
        return Ruleset.preset(_CALL_PRESET[self.profile])

    @property
    def feature_names_(self) -> tuple[str, ...]:
        """Column names of the inputs the heads see (hand features, then call features)."""
        extra = CALL_FEATURE_NAMES if self.condition_on_calls else ()
        return (*FEATURE_NAMES, *extra)

    # --- input --------------------------------------------------------------------------------
    def _check_X(self, X: npt.ArrayLike, min_samples: int = 0) -> np.ndarray:
        """``X`` as int64 after checking its shape, seats, flags and calls (the hands are checked
        by :meth:`_features`)."""
        if (
            isinstance(X, np.ndarray)
            and X.ndim == 2
            and X.dtype.kind in "iu"
            and X.shape[0] >= max(1, min_samples)
        ):
            # what encode_hands builds: an integer array is dense, finite and real already, and
            # check_array's generic path costs more than the forecast of one hand
            arr = X
        else:
            try:  # scikit-learn's own checks: 2-D, dense, finite, real, big enough
                arr = check_array(
                    X,
                    dtype=None,
                    ensure_min_samples=min_samples,
                    estimator=self,
                )
            except (TypeError, ValueError) as exc:
                raise ModelError(str(exc)) from None
        if arr.shape[1] != N_COLUMNS:
            raise ModelError(
                f"X has {arr.shape[1]} feature(s), but BidModel is expecting {N_COLUMNS} features "
                f"as input: columns {', '.join(X_COLUMNS)} (build X with encode_hands)"
            )
        if arr.dtype.kind not in "iu":
            raise ModelError(
                "X must hold integers (hand masks, seats and calls; build it with encode_hands), "
                f"got dtype {arr.dtype}"
            )
        x = arr.astype(np.int64)
        seats, known, calls = x[:, 1], x[:, 2], x[:, _CALLS]
        if np.any((seats < 0) | (seats > 3)):
            raise ModelError(
                f"seat column: seats are 0..3, got {int(seats[(seats < 0) | (seats > 3)][0])}"
            )
        if np.any((known != 0) & (known != 1)):
            raise ModelError("calls_known column: 1 (the row carries its earlier calls) or 0")
        given = (np.arange(3)[None, :] < seats[:, None]) & (known[:, None] == 1)
        bad = np.where(given, (calls < 0) | (calls > 13), calls != NO_CALL)
        if np.any(bad):
            row, k = (int(v[0]) for v in np.nonzero(bad))
            need = "a call 0..13" if given[row, k] else f"{NO_CALL} (no call)"
            raise ModelError(
                f"row {row} (seat {int(seats[row])}, calls_known {int(known[row])}): "
                f"call_seat_{k} must be {need}, got {int(calls[row, k])}"
            )
        return x

    @staticmethod
    def _features(x: np.ndarray) -> np.ndarray:
        """The hand features of checked ``X`` rows (float64; bad hands raise ModelError)."""
        try:
            return hand_features(x[:, 0].astype(np.uint64), x[:, 1]).astype(np.float64)
        except ValueError as exc:
            raise ModelError(str(exc)) from None

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "playout_")

    def check_fitted(self) -> None:
        """Raise ``ModelNotFittedError`` (a ``ModelError`` and sklearn's ``NotFittedError``)
        unless the model is fitted."""
        try:
            check_is_fitted(self)
        except NotFittedError:
            raise ModelNotFittedError(
                "this BidModel is not fitted yet: call fit() or load_model()"
            ) from None

    # --- prediction -------------------------------------------------------------------------
    def predict_proba(self, X: npt.ArrayLike) -> np.ndarray:
        """``(n, 14)`` distribution of each hand's play-out tricks 0..13 (rows sum to 1).

        A call-conditioned model uses the earlier calls of the rows that carry them
        (``calls_known`` 1); the other rows, and every row of an unconditioned model, get the
        forecast from the hand alone.
        """
        self.check_fitted()
        x_in = self._check_X(X)
        return self._playout_proba(x_in, self._features(x_in))

    def _playout_proba(self, x_in: np.ndarray, x: np.ndarray) -> np.ndarray:
        conditioned = self.conditioned_
        known = x_in[:, 2] == 1
        if conditioned is None or not known.any():
            return self.playout_.proba(x)
        if known.all():
            return conditioned.proba(np.hstack([x, call_features(x_in)]))
        out = np.empty((len(x), TRICK_COUNTS))
        out[known] = conditioned.proba(np.hstack([x[known], call_features(x_in[known])]))
        out[~known] = self.playout_.proba(x[~known])
        return out

    def _floor_head(self) -> Head:
        if self.floor_ is None:
            raise ModelError(
                "this BidModel has no floor head: it was fitted on play-out tricks alone; "
                "fit it with y = (play-out, floor) columns"
            )
        return self.floor_

    def predict_both(self, X: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """``(predict_proba(X), predict_floor_proba(X))`` with the features computed once
        (what one interactive request needs)."""
        return self._predict_encoded(self._check_X(X))

    def _predict_encoded(self, x_in: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``predict_both`` for rows that ``encode_hands`` built from checked calls (the seats,
        flags and calls need no second check; the hands are checked with the features): one
        hand's forecast is the service's hot path, and ``_check_X`` costs a tenth of it."""
        self.check_fitted()
        floor = self._floor_head()
        x = self._features(x_in)
        return self._playout_proba(x_in, x), floor.proba(x)

    def predict_floor_proba(self, X: npt.ArrayLike) -> np.ndarray:
        """``(n, 14)`` distribution of each hand's guaranteed (double-dummy) tricks: the floor.
        Needs a model fitted with the floor column in ``y``; the earlier calls are not used."""
        self.check_fitted()
        floor = self._floor_head()
        return floor.proba(self._features(self._check_X(X)))

    def predict(self, X: npt.ArrayLike) -> np.ndarray:
        """Most likely play-out trick count of each hand."""
        labels: np.ndarray = self.predict_proba(X).argmax(axis=1)
        return labels

    def expected_tricks(self, X: npt.ArrayLike) -> np.ndarray:
        """Mean of the play-out distribution of each hand."""
        return self.predict_proba(X) @ np.arange(TRICK_COUNTS)

    def score(
        self, X: npt.ArrayLike, y: npt.ArrayLike, sample_weight: npt.ArrayLike | None = None
    ) -> float:
        """Accuracy of :meth:`predict` on the play-out tricks (``y``'s first column when it has
        two, as in ``fit``)."""
        arr = np.asarray(y)
        return float(super().score(X, arr[:, 0] if arr.ndim == 2 else arr, sample_weight))


def _targets(y: npt.ArrayLike, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    """``(play-out tricks, floor tricks or None)`` from ``fit``'s ``y`` of ``n`` rows."""
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape == (n, 2):
        return _tricks(arr[:, 0], "y[:, 0] (play-out tricks)", n), _tricks(
            arr[:, 1], "y[:, 1] (floor tricks)", n
        )
    if arr.ndim == 2:
        raise ModelError(f"y must have shape ({n},) or ({n}, 2) like the hands, got {arr.shape}")
    return _tricks(arr, "y (play-out tricks)", n), None


def _tricks(values: npt.ArrayLike, name: str, n: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.shape != (n,):
        raise ModelError(f"{name} must have shape ({n},) like the hands, got {arr.shape}")
    if arr.size and (arr.dtype.kind not in "iu" or arr.min() < 0 or arr.max() > 13):
        raise ModelError(f"{name} must be integer trick counts 0..13")
    if arr.size and arr.min() == arr.max():
        raise ModelError(
            f"{name} holds one trick count only ({int(arr[0])}): a forecast needs hands with at "
            "least two different counts (one class is not enough)"
        )
    return arr.astype(np.int64)
