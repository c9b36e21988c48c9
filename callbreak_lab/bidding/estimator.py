"""The bid model's estimator: :class:`BidModel` and what it needs (profiles, call features).

Split from :mod:`callbreak_lab.bidding.model`, which re-exports everything public here and adds
persistence (model files and cards) and recommendations; import from there. The class keeps
``callbreak_lab.bidding.model.BidModel`` as its public name (its pickles record this module).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from sklearn.base import BaseEstimator

from callbreak_lab.bidding.calls import best_calls
from callbreak_lab.bidding.features import (
    FEATURE_NAMES,
    SIDE_SUIT_ORDERS,
    hand_features,
    rename_side_suits,
    validate_hands,
)
from callbreak_lab.bidding.learners import LEARNERS, N_TRICKS, Head, fit_head, oof_proba
from callbreak_lab.errors import ModelError
from callbreak_lab.rules import Ruleset

PROFILES = ("modern", "strict", "online", "home_pagat")
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
            table = deal_calls(oof, didx, seat_arr, self.call_rules_)
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
