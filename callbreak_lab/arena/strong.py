"""The ``strong`` player's card: the best expected score over layouts weighted by the calls.

``pimc`` averages each card's double-dummy value (the tricks the seat can guarantee) over
layouts dealt uniformly. Two things are wrong with that at a Call Break table:

* the calls are evidence about the hidden hands (``sampling.weighted_layouts`` draws the
  layouts by their likelihood);
* the seat is paid for its score, not its tricks: before its call is made one more trick can
  be worth the whole call, after it a tenth of a point. ``choose_card`` takes, for each legal
  card, the mean over the layouts of the preset's score of (tricks won so far + the card's
  value on the layout) against the seat's call, and plays the best; ties go to the higher mean
  value, then to the lowest card. ``objective="tricks"`` is ``pimc``'s average value (on the
  weighted layouts), for comparison.

The values come from ``pimc.layout_values`` within a time budget: as many layouts as fit (a
layout still being solved when the budget ends is stopped and left out), identical layouts
(resampling repeats the likely ones) solved once. While more than ``WINDOW_ABOVE`` cards are in
the hands and the call is still to make, each card's value is only placed against the call
(``solver.card_values_within``: short of it, exactly it, or at least one trick over), which is
all the score needs but the tenths of further overtricks, and takes far less time on a full
deal than the exact values, so more layouts fit the budget (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from callbreak_lab.arena.pimc import Knowledge, layout_values
from callbreak_lab.arena.sampling import BETA, weighted_layouts
from callbreak_lab.cards import Card, lowest_card
from callbreak_lab.errors import SolverInputError, UsageError

__all__ = [
    "Drawn",
    "Objective",
    "best_card",
    "choose_card",
    "draw_layouts",
    "expected_scores",
    "layout_outcomes",
]

Objective = Literal["score", "tricks"]

#: cards in the hands above which a seat that has not made its call yet places each card's
#: value against its call instead of finding it (the first three tricks)
WINDOW_ABOVE = 40

#: the share of a decision's budget one layout may take before it is left for the next under
#: ``strong:cap``: a full deal's solve time has a heavy tail, and one slow layout can take the
#: whole budget; but the slow layouts are those where the cards' outcomes are close, so
#: leaving them out biases the choice
LAYOUT_SHARE = 0.125

#: uniform candidates dealt per layout drawn: the calls' weights are uneven (a few candidates
#: fit them far better than the rest), and more candidates keep more distinct layouts
OVERSAMPLE = 8


def layout_outcomes(
    values: Sequence[dict[int, int]], rules: Any, call: int | None, won: int
) -> dict[int, tuple[np.ndarray, np.ndarray | None]]:
    """For each card legal on every layout: the seat's deal total of tricks on each layout
    (``won`` + the card's value there) and, with its ``call``, the preset's score of it in
    points (None without a call)."""
    cards = set(values[0])
    for v in values[1:]:
        cards &= set(v)
    out: dict[int, tuple[np.ndarray, np.ndarray | None]] = {}
    for c in cards:
        tricks = np.array([v[c] for v in values], dtype=np.int64) + won
        scores = (
            None
            if call is None
            else np.array([rules.score(call, int(t)) for t in tricks], dtype=np.float64) / 10
        )
        out[c] = (tricks, scores)
    return out


def expected_scores(
    values: Sequence[dict[int, int]],
    weights: Sequence[float],
    rules: Any,
    call: int,
    won: int,
) -> dict[int, tuple[float, float]]:
    """For each card: (expected score in points, mean value) over layouts with card values
    ``values`` (the seat's guaranteed tricks from now after the card) and ``weights``, for a
    seat that called ``call`` and has won ``won`` tricks."""
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    out: dict[int, tuple[float, float]] = {}
    for c, (tricks, scores) in layout_outcomes(values, rules, call, won).items():
        assert scores is not None
        out[c] = (float(w @ scores), float(w @ tricks) - won)
    return out


@dataclass(frozen=True)
class Drawn:
    """Layouts for a search: ``rows`` the distinct layouts (hand masks as dealt), the likeliest
    first; ``counts`` how often each was drawn (its weight); ``ess`` the effective sample size
    of the calls' weights over the candidates."""

    rows: np.ndarray
    counts: np.ndarray
    ess: float


def draw_layouts(
    k: Knowledge, calls: Sequence[int | None], n: int, seed: int, beta: float = BETA
) -> Drawn:
    """``n`` layouts drawn by the calls' likelihood (``sampling.weighted_layouts``, ``OVERSAMPLE``
    candidates a layout), repeats merged into counts, the most drawn first (a budget that runs
    out keeps the likeliest layouts). No layout fitting the table: empty rows."""
    try:
        drawn = weighted_layouts(k, calls, n, seed, beta=beta, oversample=OVERSAMPLE)
        rows, ess = drawn.layouts, drawn.ess
    except SolverInputError:
        rows, ess = np.zeros((0, 4), dtype=np.uint64), 0.0
    if not len(rows):
        return Drawn(rows, np.zeros(0, dtype=np.int64), ess)
    distinct, raw_counts = np.unique(rows, axis=0, return_counts=True)
    order = np.argsort(-raw_counts, kind="stable")
    return Drawn(distinct[order], raw_counts[order], ess)


def best_card(table: dict[int, tuple[float, float]], objective: Objective = "score") -> int:
    """The card of ``table`` ({card: (expected score, mean value)}) with the best expected
    score, then the best mean value (``objective="tricks"``: the best mean value alone), then
    the lowest card."""
    choices = list(table)
    if objective == "score":
        top_score = max(table[c][0] for c in choices)
        choices = [c for c in choices if table[c][0] >= top_score - 1e-9]
    top_value = max(table[c][1] for c in choices)
    choices = [c for c in choices if table[c][1] >= top_value - 1e-9]
    return int(lowest_card(choices))


def choose_card(
    k: Knowledge,
    calls: Sequence[int | None],
    won: int,
    budget: float | None,
    seed: int,
    *,
    max_layouts: int = 64,
    objective: Objective = "score",
    beta: float = BETA,
    window_above: int = WINDOW_ABOVE,
    layout_share: float | None = None,
) -> dict[str, Any]:
    """The card for ``k.seat`` (see the module docstring) after ``calls`` (of seats 0..3, None
    where not known; without the seat's own, it plays for the mean value) with ``won`` tricks
    won so far, within ``budget`` seconds (None: every one of ``max_layouts`` layouts); above
    ``window_above`` cards in the hands the values are placed against the call only (see the
    module docstring; 52: never); one layout may take ``layout_share`` of the budget at most
    (None: all of it). Returns ``card`` (None when no layout was solved),
    ``layouts`` solved, ``distinct`` layouts among them, ``window`` (the values' window, None
    when exact), ``ess`` (the call weights' effective sample size),
    ``expected`` {card text: (expected score, mean value; the mean of the clipped values under
    a window)}, ``per_solve`` and ``elapsed_ms``."""
    if objective not in ("score", "tricks"):
        raise UsageError(f"objective must be 'score' or 'tricks', got {objective!r}")
    t0 = time.perf_counter()
    drawn = draw_layouts(k, calls, max_layouts, seed, beta)
    distinct, counts, ess = drawn.rows, drawn.counts, drawn.ess
    own = calls[k.seat] if k.seat < len(calls) else None
    if own is None:
        objective = "tricks"
    call = 0 if own is None else int(own)
    need = call - won
    window = None
    if objective == "score" and need >= 1 and 52 - len(k.record) > window_above:
        window = (need - 1, need + 1)
    remaining = None if budget is None else budget - (time.perf_counter() - t0)
    per_layout = None if budget is None or layout_share is None else layout_share * budget
    solved, worst = layout_values(k, distinct, remaining, window, per_layout)
    info: dict[str, Any] = {
        "layouts": int(sum(counts[i] for i, _ in solved)),
        "distinct": len(solved),
        "ess": ess,
        "per_solve": worst,
        "window": window,
    }
    if not solved:
        info.update(card=None, expected={}, elapsed_ms=(time.perf_counter() - t0) * 1000)
        return info
    table = expected_scores(
        [v for _, v in solved], [float(counts[i]) for i, _ in solved], k.rules, call, won
    )
    info.update(
        card=best_card(table, objective),
        expected={str(Card(c)): v for c, v in table.items()},
        elapsed_ms=(time.perf_counter() - t0) * 1000,
    )
    return info
