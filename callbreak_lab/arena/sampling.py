"""Layouts of the hidden cards weighted by what the calls say.

``pimc.deal_layouts`` deals the unseen cards uniformly among the layouts consistent with the
cards seen. But each other seat's call is evidence about its hand: a seat that called 6 holds
more high cards and spades than one that called 1. Here each candidate layout gets the
likelihood of the calls the other seats made, if they had held the layout's hands, and the
layouts a search solves are drawn by that weight.

The likelihood of a call. A seat chooses its call from what its hand is worth: the bid model's
trick distribution for the hand gives the expected score of every legal call
(``bidding.calls.expected_scores``), and a player calls one of the best of them, not always the
very best. So ``P(call c | hand) = softmax(beta * E[score of c | hand])`` over the legal calls,
with ``beta`` in 1/points (``BETA``; ``benchmarks/inference.py`` measures the share of hidden
cards placed in the right seat for several values). ``beta = 0`` is the uniform sampler. The
layouts' hands are those *as dealt* (cards played included), which is what the calls were made
from.

Drawing. ``weighted_layouts`` deals ``oversample * n`` uniform candidates, weighs them, and
draws ``n`` of them with probability proportional to the weight (systematic resampling: the
same candidate may come more than once, which a caller that caches solves pays nothing for).
The effective sample size of the weights is returned so a caller can see how much the calls
narrowed the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from callbreak_lab.arena.pimc import Knowledge, deal_layouts
from callbreak_lab.bidding import calls as call_rules
from callbreak_lab.errors import SolverInputError, UsageError
from callbreak_lab.rules import Ruleset

__all__ = ["BETA", "Weighted", "call_log_likelihood", "weighted_layouts"]

#: sharpness of the call likelihood, in 1/points (see the module docstring)
BETA = 2.0


@dataclass(frozen=True)
class Weighted:
    """Layouts drawn by the calls' weight: ``layouts`` ``(n, 4)`` uint64 hand masks as dealt;
    ``candidates`` dealt uniformly before weighing; ``ess`` the weights' effective sample size
    (``candidates`` when the calls tell nothing)."""

    layouts: np.ndarray
    candidates: int
    ess: float


def call_log_likelihood(
    masks: np.ndarray, seats: Sequence[int], made: Sequence[int], rules: Ruleset, beta: float
) -> np.ndarray:
    """``log P(calls | hands)`` of each layout (row of ``masks``, hands as dealt) for the seats
    ``seats`` that called ``made[i]`` (up to an additive constant)."""
    from callbreak_lab.bidding.estimator import encode_hands
    from callbreak_lab.bidding.model import load_model

    m = len(masks)
    if m == 0 or not seats:
        return np.zeros(m)
    legal = call_rules.legal_calls(rules)
    model = load_model(rules)
    hands = np.concatenate([masks[:, s] for s in seats]).astype(np.uint64)
    seat_col = np.repeat(np.asarray(seats, dtype=np.int64), m)
    proba = model.predict_proba(encode_hands(hands.astype(np.int64), seat_col))
    # expected score of every legal call, in points: (rows, n_calls)
    expected = proba @ call_rules.score_matrix(rules).T.astype(np.float64) / 10.0
    logits = beta * expected
    logits -= logits.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(logits).sum(axis=1))
    total = np.zeros(m)
    for i, call in enumerate(made):
        idx = np.flatnonzero(legal == call)
        if idx.size == 0:  # a call outside the preset's range tells nothing here
            continue
        rows = slice(i * m, (i + 1) * m)
        total += logits[rows, idx[0]] - log_norm[rows]
    return total


def weighted_layouts(
    k: Knowledge,
    calls: Sequence[int | None],
    n: int,
    seed: int | np.random.Generator,
    beta: float = BETA,
    oversample: int = 4,
) -> Weighted:
    """``n`` layouts consistent with ``k`` drawn by the likelihood of ``calls`` (the calls of
    seats ``0..len(calls)-1``, None for a call not known; the seat's own call is ignored), see
    the module docstring."""
    if n < 1 or oversample < 1:
        raise UsageError(f"weighted_layouts: n and oversample must be >= 1, got {n}, {oversample}")
    rng = np.random.default_rng(seed)
    others = [s for s in range(len(calls)) if s != k.seat and calls[s] is not None]
    if beta == 0 or not others:
        plain = deal_layouts(k, n, rng)
        return Weighted(plain, len(plain), float(len(plain)))
    cand = deal_layouts(k, n * oversample, rng)
    if len(cand) == 0:
        raise SolverInputError("no layout of the hidden cards fits what the table showed")
    made = [int(c) for c in (calls[s] for s in others) if c is not None]
    loglik = call_log_likelihood(cand, others, made, k.rules, beta)
    w = np.exp(loglik - loglik.max())
    w /= w.sum()
    ess = float(1.0 / np.sum(w * w))
    # systematic resampling: n evenly spaced points through the weights' cumulative sum
    points = (rng.random() + np.arange(n)) / n
    idx = np.minimum(np.searchsorted(np.cumsum(w), points), len(cand) - 1)
    return Weighted(cand[idx], len(cand), ess)
