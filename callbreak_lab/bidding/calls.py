"""The call decision: from a distribution over tricks to the call with the best expected score.

The bid model forecasts ``P(tricks = t)`` for ``t = 0..13``; this module turns such a forecast
into a call under a ruleset, with no knowledge of where the forecast came from. It works for every
scoring kind because it never re-implements scoring: it asks the ruleset's own
``score(call, tricks)`` (integer tenths) for every legal call and every trick count once, caches
the resulting ``(n_calls, 14)`` score matrix per ruleset, and then

* expected score per call = ``dist @ S.T`` (tenths, float),
* P(call is made) = ``dist @ M.T`` where ``M[c, t] = 1`` when call ``c`` taking ``t`` tricks is
  made: ``t >= c`` for ``tenths``/``flat``, ``t in {c, c + 1}`` for ``exact_or_one`` and
  ``exact_or_one_bonus``. ``M`` is read off the same matrix: a made call scores positive and a
  missed one ``-c`` (calls are at least 1), so there is one source of truth for scoring.

All functions take one distribution (14 numbers) or many (an ``(n, 14)`` array) and validate
them: finite, non-negative, summing to 1 within ``SUM_TOLERANCE``; otherwise a
:class:`~callbreak_lab.errors.ModelError`. A ruleset whose call range or scoring the decision
cannot use is a ``RulesError``; earlier calls the ruleset does not allow are a ``CallError``.

The best call maximises expected score; **ties go to the lower call** (a lower call risks less
and, under the bonus scoring, is the conservative choice). Expected scores within
``TIE_TOLERANCE`` tenths of the maximum count as tied, so floating-point noise cannot flip a
tie. Under ``exact_or_one_bonus`` the best call is not monotone in hand strength (a call of 8
pays 13 while 7 pays 7), and nothing here assumes it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from callbreak_lab.cards import N_TRICKS
from callbreak_lab.errors import CallError, ModelError, RulesError, check_int

__all__ = [
    "SUM_TOLERANCE",
    "TIE_TOLERANCE",
    "TRICK_COUNTS",
    "CallAdvice",
    "CallAdviceBatch",
    "Forecast",
    "ScoringRules",
    "best_call",
    "best_calls",
    "check_earlier_calls",
    "expected_scores",
    "legal_calls",
    "made_matrix",
    "make_probabilities",
    "point_mass",
    "score_matrix",
]

TRICK_COUNTS = N_TRICKS + 1  # a hand takes 0..13 tricks: the columns of a trick distribution
SUM_TOLERANCE = 1e-6
TIE_TOLERANCE = 1e-9


class ScoringRules(Protocol):
    """What the call decision needs from a ruleset (``callbreak_lab.rules.Ruleset`` fits)."""

    @property
    def min_call(self) -> int: ...

    @property
    def max_call(self) -> int: ...

    def score(self, call: int, tricks: int) -> int: ...


# ---------------------------------------------------------------------------------------------
# Score matrix per ruleset
# ---------------------------------------------------------------------------------------------


def legal_calls(rules: ScoringRules) -> np.ndarray:
    """The legal calls ``min_call..max_call`` as an int64 array (rows of the score matrix)."""
    lo, hi = int(rules.min_call), int(rules.max_call)
    if not 1 <= lo <= hi <= 13:
        raise RulesError(f"ruleset call range {lo}..{hi} must lie within 1..13")
    return np.arange(lo, hi + 1, dtype=np.int64)


def _build_scores(rules: ScoringRules) -> np.ndarray:
    calls = legal_calls(rules)
    rows = [[int(rules.score(int(c), t)) for t in range(TRICK_COUNTS)] for c in calls]
    mat = np.array(rows, dtype=np.float64)
    made = mat > 0
    missed_ok = mat[~made] == -10 * np.broadcast_to(calls[:, None], mat.shape)[~made]
    if not np.all(missed_ok):
        raise RulesError("ruleset scoring must give -call (in tenths) for every missed call")
    mat.setflags(write=False)
    return mat


_CACHE: dict[object, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _tables(rules: ScoringRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Read-only ``(legal calls, score matrix, made matrix)`` of ``rules``, cached per
    (hashable) ruleset: one interactive call decision should not rebuild them."""
    try:
        cached = _CACHE.get(rules)
    except TypeError:  # unhashable ruleset-like object: no caching
        return _build_tables(rules)
    if cached is None:
        cached = _build_tables(rules)
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[rules] = cached
    return cached


def _build_tables(rules: ScoringRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    scores = _build_scores(rules)
    made = (scores > 0).astype(np.float64)
    calls = legal_calls(rules)
    for arr in (made, calls):
        arr.setflags(write=False)
    return calls, scores, made


def score_matrix(rules: ScoringRules) -> np.ndarray:
    """Read-only ``(n_calls, 14)`` matrix: ``S[i, t]`` = score in tenths of call
    ``legal_calls(rules)[i]`` taking ``t`` tricks, from the ruleset's own ``score``.
    Cached per (hashable) ruleset."""
    return _tables(rules)[1]


def made_matrix(rules: ScoringRules) -> np.ndarray:
    """Read-only ``(n_calls, 14)`` 0/1 float matrix: 1 where the call is made (its score is
    positive). Cached per (hashable) ruleset."""
    return _tables(rules)[2]


# ---------------------------------------------------------------------------------------------
# Distributions
# ---------------------------------------------------------------------------------------------


def _validate(dist: npt.ArrayLike) -> np.ndarray:
    """Coerce to float64 of shape (14,) or (n, 14) and check it is a probability distribution."""
    try:
        arr = np.asarray(dist, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"trick distribution must be numeric: {exc}") from None
    if arr.ndim not in (1, 2) or arr.shape[-1] != TRICK_COUNTS:
        raise ModelError(
            f"trick distribution must have shape (14,) or (n, 14) for tricks 0..13, "
            f"got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ModelError("trick distribution contains NaN or infinite values")
    if np.any(arr < 0):
        where = np.argwhere(arr < 0)[0]
        raise ModelError(
            f"trick distribution has a negative probability {arr[tuple(where)]!r} at {tuple(where)}"
        )
    sums = arr.sum(axis=-1)
    bad = np.abs(sums - 1.0) > SUM_TOLERANCE
    if np.any(bad):
        first = float(np.atleast_1d(sums)[np.argmax(np.atleast_1d(bad))])
        raise ModelError(
            f"trick distribution must sum to 1 (within {SUM_TOLERANCE}), got sum {first!r}"
        )
    return arr


def point_mass(tricks: int) -> np.ndarray:
    """The distribution that is certain of ``tricks`` (0..13)."""
    if not 0 <= int(tricks) <= 13:
        raise ModelError(f"tricks must be in 0..13, got {tricks}")
    out = np.zeros(TRICK_COUNTS, dtype=np.float64)
    out[int(tricks)] = 1.0
    return out


def expected_scores(dist: npt.ArrayLike, rules: ScoringRules) -> np.ndarray:
    """Expected score in tenths of each legal call: shape ``(n_calls,)`` or ``(n, n_calls)``."""
    arr = _validate(dist)
    out: np.ndarray = arr @ score_matrix(rules).T
    return out


def make_probabilities(dist: npt.ArrayLike, rules: ScoringRules) -> np.ndarray:
    """P(the call is made) for each legal call: shape ``(n_calls,)`` or ``(n, n_calls)``."""
    arr = _validate(dist)
    out: np.ndarray = np.clip(arr @ made_matrix(rules).T, 0.0, 1.0)
    return out


def _argbest(expected: np.ndarray) -> np.ndarray:
    """Index of the best call along the last axis; ties (within TIE_TOLERANCE) -> lowest."""
    best = expected.max(axis=-1, keepdims=True)
    out: np.ndarray = np.argmax(expected >= best - TIE_TOLERANCE, axis=-1)
    return out


# ---------------------------------------------------------------------------------------------
# Advice
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CallAdvice:
    """The best call for one trick distribution, with the numbers behind it.

    ``calls`` are the legal calls; ``expected`` and ``make_prob`` are aligned with them
    (expected score in tenths, probability the call is made); ``dist`` is the distribution.
    """

    call: int
    calls: np.ndarray
    expected: np.ndarray
    make_prob: np.ndarray
    dist: np.ndarray

    @property
    def expected_score(self) -> float:
        """Expected score of the chosen call, in tenths."""
        return float(self.expected[self.call - int(self.calls[0])])

    @property
    def make_probability(self) -> float:
        """Probability that the chosen call is made."""
        return float(self.make_prob[self.call - int(self.calls[0])])

    def table(self) -> list[tuple[int, float, float]]:
        """Rows ``(call, expected score in tenths, make probability)`` for display."""
        return [
            (int(c), float(e), float(p))
            for c, e, p in zip(self.calls, self.expected, self.make_prob, strict=True)
        ]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the call, each legal call's expected score (tenths) and make probability,
        and the distribution."""
        return {
            "call": int(self.call),
            "calls": [int(c) for c in self.calls],
            "expected_tenths": [round(float(e), 4) for e in self.expected],
            "make_probability": [round(float(p), 6) for p in self.make_prob],
            "distribution": [round(float(p), 6) for p in self.dist],
        }


@dataclass(frozen=True)
class CallAdviceBatch:
    """Best calls for ``n`` distributions: ``call`` (n,), ``expected``/``make_prob`` (n, n_calls),
    ``dist`` (n, 14); ``batch[i]`` is the :class:`CallAdvice` of row ``i``."""

    call: np.ndarray
    calls: np.ndarray
    expected: np.ndarray
    make_prob: np.ndarray
    dist: np.ndarray

    def __len__(self) -> int:
        return int(self.call.shape[0])

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: one ``CallAdvice.to_dict()`` a row, under ``"rows"``."""
        return {"rows": [self[i].to_dict() for i in range(len(self))]}

    def __getitem__(self, i: int) -> CallAdvice:
        return CallAdvice(
            call=int(self.call[i]),
            calls=self.calls,
            expected=self.expected[i],
            make_prob=self.make_prob[i],
            dist=self.dist[i],
        )

    @property
    def expected_score(self) -> np.ndarray:
        """Expected score (tenths) of each chosen call, shape (n,)."""
        rows = np.arange(len(self))
        out: np.ndarray = self.expected[rows, self.call - self.calls[0]]
        return out


def best_calls(dists: npt.ArrayLike, rules: ScoringRules) -> CallAdviceBatch:
    """Best call for each row of an ``(n, 14)`` array of distributions (vectorised)."""
    arr = _validate(dists)
    if arr.ndim != 2:
        raise ModelError(f"best_calls needs an (n, 14) array, got shape {arr.shape}")
    return _best_calls(arr, rules)


def _best_calls(arr: np.ndarray, rules: ScoringRules) -> CallAdviceBatch:
    """:func:`best_calls` on an already validated ``(n, 14)`` float64 array."""
    calls, scores, made_mat = _tables(rules)
    expected = arr @ scores.T
    made = np.clip(arr @ made_mat.T, 0.0, 1.0)
    choice = calls[_argbest(expected)] if arr.shape[0] else np.zeros(0, dtype=np.int64)
    return CallAdviceBatch(call=choice, calls=calls, expected=expected, make_prob=made, dist=arr)


def best_call(dist: npt.ArrayLike, rules: ScoringRules) -> CallAdvice:
    """Best call (max expected score, ties -> lower call) for one 14-number distribution."""
    arr = _validate(dist)
    if arr.ndim != 1:
        raise ModelError(
            f"best_call needs one distribution of shape (14,), got {arr.shape}; "
            "use best_calls for many"
        )
    return _best_calls(arr[None, :], rules)[0]


@dataclass(frozen=True)
class Forecast:
    """A trick forecast for one hand and seat, with the best call on it: the one answer of the
    bid model, its fallback and the Monte Carlo reference, in the service and the widgets alike.

    ``dist[t]`` is P(play-out tricks = t); ``advice`` the call table of ``dist`` (expected score
    in tenths and make probability per call); ``source`` says where the forecast came from;
    ``floor`` (optional) the distribution of guaranteed (double-dummy) tricks; ``layouts`` the
    layouts behind a simulated forecast; ``calls_used`` whether it conditioned on the earlier
    seats' calls (a call-conditioned model)."""

    dist: np.ndarray
    advice: CallAdvice
    source: str
    floor: np.ndarray | None = None
    layouts: int | None = None
    calls_used: bool = False

    @classmethod
    def from_dist(
        cls,
        dist: npt.ArrayLike,
        rules: ScoringRules,
        source: str,
        *,
        floor: npt.ArrayLike | None = None,
        layouts: int | None = None,
        calls_used: bool = False,
    ) -> Forecast:
        """The forecast of a 14-number distribution (normalised to sum 1), the call chosen by
        :func:`best_call` under ``rules``."""
        d = np.asarray(dist, dtype=np.float64).reshape(TRICK_COUNTS)
        d = d / d.sum()
        f = None if floor is None else np.asarray(floor, dtype=np.float64).reshape(TRICK_COUNTS)
        return cls(d, best_call(d, rules), source, f, layouts, calls_used)

    @property
    def call(self) -> int:
        """The suggested call."""
        return self.advice.call

    @property
    def mean(self) -> float:
        """Expected number of tricks."""
        return float(np.arange(TRICK_COUNTS) @ self.dist)

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-able data: the call, the distributions and the call table."""
        return {
            "call": int(self.call),
            "mean": self.mean,
            "source": self.source,
            "distribution": [float(p) for p in self.dist],
            "floor_distribution": None if self.floor is None else [float(p) for p in self.floor],
            "layouts": self.layouts,
            "calls_used": self.calls_used,
            "calls": [
                {"call": c, "expected_tenths": e, "make_probability": p}
                for c, e, p in self.advice.table()
            ],
        }


def check_earlier_calls(
    earlier_calls: Sequence[int], seat: int, rules: ScoringRules
) -> tuple[int, ...]:
    """``earlier_calls`` (the calls of seats ``0..seat-1``) as a tuple, or a ``CallError``
    saying what is wrong: seat ``s`` has exactly ``s`` of them, each a whole number in the
    ruleset's call range. The one check behind the library, the service, the bot and the
    widgets."""
    if isinstance(earlier_calls, str | bytes):
        raise CallError(f"earlier calls must be a sequence of numbers, got {earlier_calls!r}")
    calls = list(earlier_calls)
    if len(calls) != seat:
        raise CallError(
            f"seat {seat} bids after {seat} other seat(s), so it takes {seat} earlier call(s), "
            f"got {len(calls)}"
        )
    lo, hi = rules.min_call, rules.max_call
    return tuple(check_int(c, "an earlier call", low=lo, high=hi, error=CallError) for c in calls)
