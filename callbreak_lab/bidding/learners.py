"""Learners behind :class:`callbreak_lab.bidding.model.BidModel` (private to the bid model).

A *head* maps feature rows to a 14-column distribution over tricks 0..13. It wraps a fitted
scikit-learn-style estimator, a temperature (calibration) and a *compiled* copy of the estimator
in plain numpy arrays, used for small batches: scikit-learn's gradient boosting predicts tree by
tree in a Python loop (a 200-iteration, 14-class model costs tens of milliseconds per call even for
one row), while the compiled copy walks all trees at once.

Learners: ``hgb`` (``HistGradientBoostingClassifier``, multinomial), ``logistic`` (multinomial
logistic regression on standardised features) and ``ordinal`` (:class:`OrdinalLogit`,
proportional-odds cumulative logit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from callbreak_lab.bidding.calls import TRICK_COUNTS
from callbreak_lab.errors import ModelError

LEARNERS = ("hgb", "logistic", "ordinal")
#: batches up to this many rows use the compiled predictor
FAST_ROWS = 64


def _sigmoid(z: np.ndarray) -> np.ndarray:
    out: np.ndarray = 0.5 * (1.0 + np.tanh(0.5 * z))
    return out


def _softmax(raw: np.ndarray) -> np.ndarray:
    raw = raw - raw.max(axis=1, keepdims=True)
    e = np.exp(raw)
    out: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return out


class OrdinalLogit(BaseEstimator):  # type: ignore[misc]  # scikit-learn is untyped: its classes are Any
    """Proportional-odds model ``P(y <= k | x) = sigmoid(theta_k - x @ beta)`` for ``y`` in 0..13.

    Features are standardised; ``alpha`` is the L2 penalty on ``beta`` (per sample). Thresholds
    are kept ordered by fitting their log increments.
    """

    def __init__(self, alpha: float = 1e-3, max_iter: int = 500) -> None:
        self.alpha = alpha
        self.max_iter = max_iter

    def fit(self, x: np.ndarray, y: np.ndarray) -> OrdinalLogit:
        from scipy.optimize import minimize

        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        self.mean_ = x.mean(axis=0)
        self.scale_ = np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
        z = (x - self.mean_) / self.scale_
        n, d = z.shape
        k = TRICK_COUNTS - 1  # thresholds theta_0..theta_12

        def unpack(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            steps = np.exp(w[d + 1 :])
            return w[:d], w[d] + np.concatenate([[0.0], np.cumsum(steps)]), steps

        def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
            beta, theta, steps = unpack(w)
            eta = z @ beta
            ext = np.concatenate([[-np.inf], theta, [np.inf]])  # index y + 1 is theta_y
            up = _sigmoid(ext[y + 1] - eta)
            lo = _sigmoid(ext[y] - eta)
            p = np.maximum(up - lo, 1e-12)
            f_up, f_lo = up * (1 - up), lo * (1 - lo)
            nll = -np.log(p).sum() / n + 0.5 * self.alpha * beta @ beta
            g_theta = np.zeros(k)
            has_up, has_lo = y < k, y > 0
            np.add.at(g_theta, y[has_up], -f_up[has_up] / p[has_up])
            np.add.at(g_theta, y[has_lo] - 1, f_lo[has_lo] / p[has_lo])
            g_beta = z.T @ ((f_up - f_lo) / p) / n + self.alpha * beta
            g_theta /= n
            tail = np.cumsum(g_theta[::-1])[::-1]  # sum over thresholds >= j
            return float(nll), np.concatenate([g_beta, [g_theta.sum()], steps * tail[1:]])

        w0 = np.concatenate([np.zeros(d), [-6.0], np.zeros(k - 1)])
        res = minimize(loss, w0, jac=True, method="L-BFGS-B", options={"maxiter": self.max_iter})
        self.coef_, self.thresholds_, _ = unpack(res.x)
        self.classes_ = np.arange(TRICK_COUNTS)
        return self

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        eta = ((np.asarray(x, dtype=np.float64) - self.mean_) / self.scale_) @ self.coef_
        cum = _sigmoid(self.thresholds_[None, :] - eta[:, None])
        ones = np.ones((len(eta), 1))
        return np.diff(np.concatenate([0 * ones, cum, ones], axis=1), axis=1)


def make_learner(learner: str, params: dict[str, Any]) -> Any:
    """A fresh estimator of kind ``learner`` configured from the bid model's ``params``."""
    if learner == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(
            learning_rate=params["learning_rate"],
            max_iter=params["max_iter"],
            max_leaf_nodes=params["max_leaf_nodes"],
            min_samples_leaf=params["min_samples_leaf"],
            l2_regularization=params["l2_regularization"],
            early_stopping=False,
            random_state=params["random_state"],
        )
    if learner == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(C=params["C"], max_iter=3000))
    if learner == "ordinal":
        return OrdinalLogit(alpha=1.0 / (params["C"] * 1000.0))
    raise ModelError(f"unknown learner {learner!r} (one of {', '.join(LEARNERS)})")


def full_proba(est: Any, x: np.ndarray) -> np.ndarray:
    """``est.predict_proba`` spread into 14 columns (classes never seen get 0)."""
    p: np.ndarray = est.predict_proba(x)
    classes = np.asarray(est.classes_, dtype=np.int64)
    if p.shape[1] == TRICK_COUNTS and np.array_equal(classes, np.arange(TRICK_COUNTS)):
        return p
    out = np.zeros((p.shape[0], TRICK_COUNTS), dtype=np.float64)
    out[:, classes] = p
    return out


# ---------------------------------------------------------------------------------------------
# Compiled predictors (numpy only, fast for a few rows)
# ---------------------------------------------------------------------------------------------


class _Trees:
    """All trees of a multiclass ``HistGradientBoostingClassifier`` in flat arrays, walked
    together: leaves point to themselves with an infinite threshold, so ``depth`` steps reach
    every leaf."""

    def __init__(self, est: Any) -> None:
        parts: dict[str, list[np.ndarray]] = {k: [] for k in ("f", "t", "l", "r", "v")}
        roots, cls, offset, depth = [], [], 0, 0
        for iteration in est._predictors:
            for k, pred in enumerate(iteration):
                nodes = pred.nodes
                own = np.arange(len(nodes)) + offset
                leaf = nodes["is_leaf"].astype(bool)
                parts["f"].append(np.where(leaf, 0, nodes["feature_idx"]).astype(np.int64))
                parts["t"].append(np.where(leaf, np.inf, nodes["num_threshold"]))
                parts["l"].append(np.where(leaf, own, nodes["left"] + offset).astype(np.int64))
                parts["r"].append(np.where(leaf, own, nodes["right"] + offset).astype(np.int64))
                parts["v"].append(np.where(leaf, nodes["value"], 0.0))
                roots.append(offset)
                cls.append(k)
                offset += len(nodes)
                depth = max(depth, int(nodes["depth"].max()))
        self.feat, self.thr, self.left, self.right, self.value = (
            np.concatenate(parts[k]) for k in ("f", "t", "l", "r", "v")
        )
        self.roots = np.array(roots, dtype=np.int64)
        self.depth = depth
        n_cls = est.n_trees_per_iteration_
        self.onehot = np.eye(n_cls)[np.array(cls, dtype=np.int64)]  # (n_trees, n_classes)
        self.baseline = np.asarray(est._baseline_prediction, dtype=np.float64).reshape(1, -1)

    def proba(self, x: np.ndarray) -> np.ndarray:
        node = np.broadcast_to(self.roots, (len(x), len(self.roots))).copy()
        rows = np.arange(len(x))[:, None]
        for _ in range(self.depth):
            left = x[rows, self.feat[node]] <= self.thr[node]
            node = np.where(left, self.left[node], self.right[node])
        return _softmax(self.baseline + self.value[node] @ self.onehot)


class _Linear:
    """Multinomial logistic regression after standardisation, as plain arrays."""

    def __init__(self, pipeline: Any) -> None:
        scaler, lr = pipeline[0], pipeline[-1]
        self.mean = np.asarray(scaler.mean_, dtype=np.float64)
        self.scale = np.asarray(scaler.scale_, dtype=np.float64)
        self.coef = np.asarray(lr.coef_, dtype=np.float64).T
        self.intercept = np.asarray(lr.intercept_, dtype=np.float64)

    def proba(self, x: np.ndarray) -> np.ndarray:
        return _softmax(((x - self.mean) / self.scale) @ self.coef + self.intercept)


def compile_predictor(est: Any) -> Any | None:
    """A fast numpy predictor (``.proba(x)``) equivalent to ``est.predict_proba`` for a few
    rows (None when ``est`` is of no supported kind); the card-chance model uses it too."""
    return _compile(est)


def _compile(est: Any) -> Any | None:
    """A fast numpy predictor equivalent to ``est.predict_proba`` (None when not supported)."""
    if isinstance(est, OrdinalLogit):
        return est
    if getattr(est, "n_trees_per_iteration_", 1) > 1 and hasattr(est, "_predictors"):
        return _Trees(est)
    steps = getattr(est, "steps", None)
    if steps is not None and len(np.atleast_1d(steps[-1][1].classes_)) > 2:
        return _Linear(est)
    return None


# ---------------------------------------------------------------------------------------------
# Heads and calibration
# ---------------------------------------------------------------------------------------------


def temper(p: np.ndarray, temperature: float) -> np.ndarray:
    """Rescale log-probabilities by ``1 / temperature`` and renormalise (zeros stay zero)."""
    if temperature == 1.0:
        return p
    with np.errstate(divide="ignore"):
        logp = np.log(p) / temperature
    return _softmax(logp)


def fit_temperature(p: np.ndarray, y: np.ndarray) -> float:
    """The temperature minimising the log loss of out-of-fold probabilities ``p``."""
    from scipy.optimize import minimize_scalar

    rows = np.arange(len(y))

    def nll(log_t: float) -> float:
        q = temper(p, float(np.exp(log_t)))
        return float(-np.log(np.maximum(q[rows, y], 1e-12)).mean())

    res = minimize_scalar(nll, bounds=(-1.5, 1.5), method="bounded")
    return float(np.exp(res.x))


@dataclass
class Head:
    """One fitted distribution: an estimator, its compiled copy and its temperature."""

    estimator: Any
    temperature: float = 1.0

    def __post_init__(self) -> None:
        self.fast = _compile(self.estimator)
        classes = np.asarray(self.estimator.classes_, dtype=np.int64)
        self.classes = classes

    def proba(self, x: np.ndarray) -> np.ndarray:
        """``(n, 14)`` calibrated distribution for feature rows ``x`` (float64)."""
        if self.fast is not None and len(x) <= FAST_ROWS:
            p = self.fast.predict_proba(x) if self.fast is self.estimator else self.fast.proba(x)
            if p.shape[1] != TRICK_COUNTS:
                out = np.zeros((len(x), TRICK_COUNTS))
                out[:, self.classes] = p
                p = out
        else:
            p = full_proba(self.estimator, x)
        return temper(p, self.temperature)


def oof_proba(
    learner: str,
    params: dict[str, Any],
    x: np.ndarray,
    y: np.ndarray,
    folds: int,
    groups: np.ndarray | None = None,
) -> np.ndarray:
    """Out-of-fold 14-column probabilities of fresh learners (shuffled K-fold). Rows with equal
    ``groups`` (copies of one hand) always fall in the same fold."""
    out = np.zeros((len(y), TRICK_COUNTS))
    for train, test in fold_splits(len(y), folds, params["random_state"], groups):
        out[test] = full_proba(make_learner(learner, params).fit(x[train], y[train]), x[test])
    return out


def fold_splits(
    n: int, folds: int, random_state: int, groups: np.ndarray | None = None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train rows, test rows) of a shuffled K-fold over ``n`` rows; with ``groups``, over the
    distinct group values, so rows of one group always share a fold."""
    from sklearn.model_selection import KFold

    kf = KFold(n_splits=folds, shuffle=True, random_state=random_state)
    if groups is None:
        return list(kf.split(np.zeros(n)))
    _, row_group = np.unique(groups, return_inverse=True)
    out = []
    for _, test_groups in kf.split(np.zeros(int(row_group.max()) + 1)):
        in_test = np.isin(row_group, test_groups)
        out.append((np.flatnonzero(~in_test), np.flatnonzero(in_test)))
    return out


def fit_head(
    learner: str,
    params: dict[str, Any],
    calibration: str,
    folds: int,
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray | None = None,
) -> tuple[Head, np.ndarray | None]:
    """Fit one head; returns it and (with temperature calibration) its calibrated out-of-fold
    probabilities (``groups`` as in :func:`oof_proba`)."""
    oof = oof_proba(learner, params, x, y, folds, groups) if calibration == "temperature" else None
    head = Head(make_learner(learner, params).fit(x, y))
    if oof is not None:
        head.temperature = fit_temperature(oof, y)
        oof = temper(oof, head.temperature)
    return head, oof
