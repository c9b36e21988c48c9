"""The statistics of samples that every report shares: a weighted mean, its standard error,
the standard error clustered by deal, and the effective sample size of weights.

Equally weighted samples (``weights=None``) use the textbook formulas, the sample standard
deviation (``ddof=1``) over ``sqrt(n)``. Weighted samples (layouts drawn with importance
weights) use the weights' effective sample size ``n_eff = (sum w)^2 / sum w^2`` in place of
``n``: the error is ``sqrt(var_w / (n_eff - 1))`` with ``var_w`` the weighted population
variance, which is the textbook error again when the weights are equal.

Samples that share a deal are not independent (the four hands of a deal, the boards of one
deal in the arena, the deals of one group of a match model): :func:`clustered_mean_se` gives
the cluster-robust error, the spread of the clusters' weighted sums about the mean. With one
sample a cluster it is the ordinary standard error; with weights ``1 / size`` of its cluster a
sample, it is the standard error of the cluster means (each deal counts once, as the arena's
margins count it).

Where fewer than two (effective) samples leave an error undefined it is NaN (an empty sample's
mean too), unless the caller names another value with ``single``.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from callbreak_lab.errors import UsageError

__all__ = [
    "clustered_mean_se",
    "effective_sample_size",
    "mean_se",
    "standard_errors",
    "weighted_mean",
]

_ONE = 1 + 1e-9  # an effective sample size up to this is one sample


def _vector(values: npt.ArrayLike, what: str) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1:
        raise UsageError(f"{what} must be one-dimensional, got shape {x.shape}")
    return x


def _weights(weights: npt.ArrayLike, n: int) -> np.ndarray:
    w = _vector(weights, "weights")
    if len(w) != n:
        raise UsageError(f"weights must be one per value ({n}), got {len(w)}")
    if n and (not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0):
        raise UsageError("weights must be finite, non-negative and not all zero")
    return w


def effective_sample_size(weights: npt.ArrayLike) -> float:
    """Kish's effective sample size ``(sum w)^2 / sum w^2`` of non-negative ``weights``: ``n``
    for ``n`` equal weights, 1 when one weight holds everything, 0 when none is positive."""
    w = _vector(weights, "weights")
    if not len(w) or (np.all(np.isfinite(w)) and not np.any(w < 0) and not w.sum() > 0):
        return 0.0
    p = _weights(w, len(w))
    p = p / p.sum()
    return 1.0 / float(np.sum(p * p))


def weighted_mean(values: npt.ArrayLike, weights: npt.ArrayLike | None = None) -> float:
    """The mean of ``values`` weighted by ``weights`` (None: equally); NaN for no values."""
    return mean_se(values, weights)[0]


def mean_se(
    values: npt.ArrayLike, weights: npt.ArrayLike | None = None, *, single: float = math.nan
) -> tuple[float, float]:
    """``(mean, standard error)`` of ``values``, weighted by ``weights`` (None: equally; the
    error from the weights' effective sample size). ``single``: the error where fewer than two
    effective samples leave it undefined (NaN by default)."""
    x = _vector(values, "values")
    n = len(x)
    if weights is None:
        if n == 0:
            return math.nan, math.nan
        mean = float(x.mean())
        return mean, (float(np.std(x, ddof=1) / math.sqrt(n)) if n > 1 else float(single))
    w = _weights(weights, n)
    if n == 0:
        return math.nan, math.nan
    p = w / w.sum()
    mean = float(p @ x)
    var = float(p @ (x - mean) ** 2)
    n_eff = 1.0 / float(np.sum(p * p))
    return mean, (math.sqrt(var / (n_eff - 1)) if n_eff > _ONE else float(single))


def standard_errors(values: npt.ArrayLike, *, axis: int = 0) -> np.ndarray:
    """The standard error of the mean of equally weighted samples along ``axis``, for each
    position of the other axes (e.g. one error a call over groups of deals); NaN with fewer
    than two samples."""
    x = np.asarray(values, dtype=np.float64)
    n = x.shape[axis]
    if n < 2:
        out: np.ndarray = np.full(np.delete(x.shape, axis), math.nan)
        return out
    se: np.ndarray = np.std(x, axis=axis, ddof=1) / math.sqrt(n)
    return se


def clustered_mean_se(
    values: npt.ArrayLike, clusters: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> tuple[float, float]:
    """``(mean, standard error clustered by cluster)`` of ``values``: the weighted mean, and
    ``sqrt(k / (k - 1) * sum_g (S_g - W_g * mean)^2) / W`` over the ``k`` clusters (``S_g`` and
    ``W_g`` a cluster's weighted sum and weight, ``W`` all the weight). ``clusters``: one label
    a value (e.g. its deal); NaN error with fewer than two clusters, NaN mean with no values."""
    x = _vector(values, "values")
    labels = np.asarray(clusters)
    if labels.shape != x.shape:
        raise UsageError(f"clusters must be one label per value ({len(x)}), got {labels.shape}")
    n = len(x)
    if n == 0:
        return math.nan, math.nan
    _, group = np.unique(labels, return_inverse=True)
    if weights is None:
        mean = float(x.mean())
        sums = np.bincount(group, weights=x)
        sizes = np.bincount(group)
        total = float(n)
    else:
        w = _weights(weights, n)
        total = float(w.sum())
        mean = float(w @ x) / total
        sums = np.bincount(group, weights=w * x)
        sizes = np.bincount(group, weights=w)
    k = len(sums)
    if k < 2:
        return mean, math.nan
    return mean, float(np.sqrt(k / (k - 1) * np.sum((sums - sizes * mean) ** 2)) / total)
