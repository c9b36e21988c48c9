"""util.stats: the weighted mean, its standard error, the clustered error, the effective size."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callbreak_lab.errors import UsageError
from callbreak_lab.util.stats import (
    clustered_mean_se,
    effective_sample_size,
    mean_se,
    standard_errors,
    weighted_mean,
)

_VALUE = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
_VALUES = st.lists(_VALUE, min_size=2, max_size=40)
_WEIGHT = st.floats(min_value=0.01, max_value=100.0, allow_nan=False, allow_infinity=False)


def test_known_answers() -> None:
    mean, se = mean_se([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert se == pytest.approx(math.sqrt(5 / 3) / 2)  # sample sd sqrt(5/3), n = 4
    assert weighted_mean([0.0, 10.0], [3.0, 1.0]) == pytest.approx(2.5)
    assert effective_sample_size([1.0, 1.0, 1.0, 1.0]) == pytest.approx(4.0)
    assert effective_sample_size([3.0, 1.0]) == pytest.approx(16 / 10)
    assert effective_sample_size([0.0, 5.0, 0.0]) == pytest.approx(1.0)
    assert effective_sample_size([]) == 0.0 and effective_sample_size([0.0, 0.0]) == 0.0
    # weights 3:1 on (0, 10): var_w = 0.75*6.25 + 0.25*56.25 = 18.75, n_eff = 1.6
    assert mean_se([0.0, 10.0], [3.0, 1.0])[1] == pytest.approx(math.sqrt(18.75 / 0.6))


def test_undefined_errors() -> None:
    assert all(math.isnan(v) for v in mean_se([]))
    assert math.isnan(mean_se([], [])[0])
    assert mean_se([7.0])[0] == 7.0
    assert math.isnan(mean_se([7.0])[1])
    assert mean_se([7.0], single=0.0) == (7.0, 0.0)
    assert mean_se([1.0, 9.0], [0.0, 1.0], single=0.0) == (9.0, 0.0)  # one effective sample
    assert math.isnan(clustered_mean_se([1.0, 2.0], [5, 5])[1])  # one cluster
    assert np.isnan(standard_errors(np.zeros((1, 3)))).all()


def test_clustered_known_answer() -> None:
    # clusters a: (1, 3), b: (8,): mean 4, sums 4 and 8, sizes 2 and 1
    # se = sqrt(2 * ((4 - 8)^2 + (8 - 4)^2)) / 3 = sqrt(64) / 3
    mean, se = clustered_mean_se([1.0, 3.0, 8.0], ["a", "a", "b"])
    assert mean == pytest.approx(4.0)
    assert se == pytest.approx(8 / 3)


def test_standard_errors_along_an_axis() -> None:
    x = np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 60.0]])
    se = standard_errors(x)
    assert se == pytest.approx([mean_se(x[:, 0])[1], mean_se(x[:, 1])[1]])
    assert standard_errors(x.T, axis=1) == pytest.approx(se)


def test_bad_input() -> None:
    with pytest.raises(UsageError, match="one per value"):
        mean_se([1.0, 2.0], [1.0])
    with pytest.raises(UsageError, match="non-negative"):
        mean_se([1.0, 2.0], [1.0, -1.0])
    with pytest.raises(UsageError, match="not all zero"):
        mean_se([1.0, 2.0], [0.0, 0.0])
    with pytest.raises(UsageError, match="non-negative"):
        effective_sample_size([1.0, -1.0])
    with pytest.raises(UsageError, match="one-dimensional"):
        mean_se(np.zeros((2, 2)))
    with pytest.raises(UsageError, match="one label per value"):
        clustered_mean_se([1.0, 2.0], [1])


@settings(max_examples=60, deadline=None)
@given(_VALUES, _WEIGHT)
def test_equal_weights_are_the_plain_mean_and_error(values: list[float], w: float) -> None:
    plain = mean_se(values)
    weighted = mean_se(values, [w] * len(values))
    assert weighted[0] == pytest.approx(plain[0], rel=1e-9, abs=1e-9)
    assert weighted[1] == pytest.approx(plain[1], rel=1e-7, abs=1e-9)
    assert plain[0] == pytest.approx(float(np.mean(values)), rel=1e-12, abs=1e-12)
    assert effective_sample_size([w] * len(values)) == pytest.approx(len(values))


@settings(max_examples=60, deadline=None)
@given(_VALUES)
def test_one_row_a_cluster_is_the_plain_error(values: list[float]) -> None:
    plain = mean_se(values)
    clustered = clustered_mean_se(values, np.arange(len(values)))
    assert clustered[0] == pytest.approx(plain[0], rel=1e-12, abs=1e-12)
    assert clustered[1] == pytest.approx(plain[1], rel=1e-7, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_VALUE, min_size=1, max_size=4), min_size=2, max_size=12))
def test_inverse_size_weights_are_the_error_of_cluster_means(groups: list[list[float]]) -> None:
    values = [v for g in groups for v in g]
    labels = [i for i, g in enumerate(groups) for _ in g]
    weights = [1 / len(g) for g in groups for _ in g]
    means = [float(np.mean(g)) for g in groups]
    mean, se = clustered_mean_se(values, labels, weights)
    assert mean == pytest.approx(np.mean(means), rel=1e-9, abs=1e-9)
    assert se == pytest.approx(mean_se(means)[1], rel=1e-7, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(_WEIGHT, min_size=1, max_size=30))
def test_effective_size_is_between_one_and_n(weights: list[float]) -> None:
    n_eff = effective_sample_size(weights)
    assert 1 - 1e-9 <= n_eff <= len(weights) + 1e-9
    scaled = effective_sample_size([7 * w for w in weights])
    assert scaled == pytest.approx(n_eff)
