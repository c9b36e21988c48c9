"""The play-out scale: what a card's double-dummy floor says about the tricks the seat can expect.

A layout's solver value after a card is a floor: the tricks the seat keeps when the other three
play together against it. The call advisor speaks another measure, the self-interested play-out
(docs/rules.md: every seat plays for itself), in which the seat takes its floor and usually more.
Solving a play-out after every card of every layout is too slow for advice (a play-out from the
first trick costs tens of milliseconds to a third of a second), so the lab maps the floor to the
play-out through a table learned from solved positions (``scripts/make_scale.py``): for each
profile, each count of tricks left (the trick in progress included), each floor after the card and
how far that floor is below the layout's best card's (0, 1, 2 or more: a card that gives up a
trick of the floor often gives up less in play, where the other three do not gang up), the
distribution of the seat's play-out tricks from the position on after that card. The play-out
never takes fewer tricks than the floor, so the table spreads the tricks from the floor up.

``PlayoutScale.spread(left, values, best)`` gives each layout's distribution of tricks from now;
``seat.outcomes.card_outcomes`` averages them into each card's expected tricks, score and make
chance, the numbers every answer shows (advice, lines, reviews). The table ships in
``callbreak_lab/models/scale.json`` with its card (``scale_card.json``: how it was made and how
well it predicted the positions held out).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from callbreak_lab.errors import ModelError
from callbreak_lab.rules import Ruleset

__all__ = [
    "FORMAT",
    "GAPS",
    "N",
    "PlayoutScale",
    "cross_check",
    "fit_profiles",
    "fit_table",
    "from_rows",
    "probs_check",
    "scale_for",
    "table_check",
]

#: format of ``scale.json`` (bump when its layout changes)
FORMAT = 1
#: tricks of a deal: the table's axes run 0..N
N = 13
#: the gaps below the best card's floor the table tells apart (0, 1, ..., GAPS - 1 or more)
GAPS = 3

Rows = list[list[list[list[float]]]]


@dataclass(frozen=True)
class PlayoutScale:
    """One profile's table: ``dist[left, gap, value, t]`` = P(the seat's play-out takes ``t``
    tricks from now | ``left`` tricks left, floor ``value`` after the card, ``gap`` below the
    best card's floor, capped at ``GAPS - 1``), zero for ``t < value`` and ``t > left``; each
    row (``value <= left``) sums to 1."""

    profile: str
    dist: np.ndarray

    def spread(self, left: int, values: np.ndarray, best: np.ndarray) -> np.ndarray:
        """The distribution of play-out tricks from now (one row of 0..N per value) for a seat
        with ``left`` tricks left whose floors after a card are ``values`` (0..left) where the
        best card's are ``best`` (layout by layout)."""
        n = int(left)
        v = np.clip(np.asarray(values, dtype=np.int64), 0, n)
        gap = np.clip(np.asarray(best, dtype=np.int64) - v, 0, GAPS - 1)
        out: np.ndarray = self.dist[n, gap, v]
        return out

    def expected(self, left: int, value: int, gap: int = 0) -> float:
        """Expected play-out tricks from now after a card with floor ``value``, ``gap`` below
        the best card's."""
        row = self.dist[int(left), min(int(gap), GAPS - 1), int(value)]
        return float(row @ np.arange(N + 1))


def _resource(name: str) -> Any:
    return resources.files("callbreak_lab").joinpath("models", name)


@functools.cache
def _tables() -> dict[str, Any]:
    try:
        body = json.loads(_resource("scale.json").read_text())
    except (OSError, ValueError) as e:  # a broken install: say which file
        raise ModelError(f"the play-out scale (models/scale.json) does not load: {e}") from e
    if body.get("format") != FORMAT:
        raise ModelError(f"models/scale.json has format {body.get('format')!r}, not {FORMAT}")
    tables: dict[str, Any] = body["tables"]
    return tables


def from_rows(profile: str, rows: Rows) -> PlayoutScale:
    """A :class:`PlayoutScale` from the JSON rows of ``fit_table``."""
    dist = np.zeros((N + 1, GAPS, N + 1, N + 1))
    dist[0, :, 0, 0] = 1.0
    for left in range(1, N + 1):
        for gap in range(GAPS):
            for value in range(left + 1):
                extra = np.asarray(rows[left - 1][gap][value], dtype=np.float64)
                dist[left, gap, value, value : value + len(extra)] = extra / extra.sum()
    return PlayoutScale(profile, dist)


@functools.cache
def _scale(profile: str) -> PlayoutScale:
    tables = _tables()
    if profile not in tables:
        raise ModelError(f"models/scale.json holds no table for profile {profile!r}")
    return from_rows(profile, tables[profile])


def scale_for(rules: Ruleset) -> PlayoutScale:
    """The shipped table of the profile of ``rules`` (its legal-card switches)."""
    from callbreak_lab.bidding.datasets import profile_of

    return _scale(profile_of(rules))


def _cells(
    extra: np.ndarray,
    at: np.ndarray,
    values: np.ndarray,
    n: int,
    prior: float,
    bases: list[np.ndarray],
) -> list[list[float]]:
    """One (left, gap) slice of the table: for each value 0..n, its counts of the extra plus
    ``prior`` positions' worth of its base (cut to the value's range)."""
    cells: list[list[float]] = []
    for v in range(n + 1):
        width = n - v + 1
        counts = np.bincount(extra[at & (values == v)], minlength=width)[:width].astype(float)
        b = bases[v][:width]
        if b.sum() > 0:
            p = (counts + prior * b / b.sum()) / (counts.sum() + prior)
        elif counts.sum() > 0:
            p = counts / counts.sum()
        else:
            p = np.eye(width)[0]
        cells.append([round(float(x), 5) for x in p])
    return cells


def _ints(*xs: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(x, dtype=np.int64) for x in xs)


def fit_table(
    left: np.ndarray,
    value: np.ndarray,
    best: np.ndarray,
    playout: np.ndarray,
    *,
    prior: float,
    base: Rows | None = None,
) -> Rows:
    """The table's JSON rows from solved positions (each a card: tricks ``left``, its floor
    ``value``, the ``best`` card's floor, the ``playout`` tricks from now after it): for each
    left 1..N, gap 0..GAPS-1 and value 0..left, P(extra) for extra = 0..left - value tricks the
    play-out adds to the floor. Each cell is its own counts plus ``prior`` positions' worth of
    ``base``'s cell (a table fitted on more positions: every profile's), else of the
    distribution of the extra at that left and gap over every value (itself leaning on the
    left's over every gap the same way), so a cell seldom seen leans on its neighbours; a left
    never seen keeps the floor."""
    left, value, best, playout = _ints(left, value, best, playout)
    if np.any(playout < value) or np.any(playout > left) or np.any(best < value):
        raise ValueError("a play-out below the floor or above the tricks left, or a best below")
    extra = playout - value
    gaps = np.minimum(best - value, GAPS - 1)
    rows: Rows = []
    for n in range(1, N + 1):
        at = left == n
        pooled = np.bincount(extra[at], minlength=n + 1)[: n + 1].astype(float)
        slices = []
        for g in range(GAPS):
            here = at & (gaps == g)
            counts = np.bincount(extra[here], minlength=n + 1)[: n + 1].astype(float)
            mix = counts + (prior * pooled / pooled.sum() if pooled.sum() else 0.0)
            bases = (
                [mix] * (n + 1)
                if base is None
                else [np.asarray(b, dtype=float) for b in base[n - 1][g]]
            )
            slices.append(_cells(extra, here, value, n, prior, bases))
        rows.append(slices)
    return rows


Positions = dict[str, np.ndarray]  # columns "index" (the deal), "left", "value", "best", "playout"


def fit_profiles(every: dict[str, Positions], *, prior: float) -> dict[str, Rows]:
    """Each profile's table: every profile's positions together fit a pooled table first, then
    each profile's own positions fit its table leaning on the pooled one (``fit_table``)."""
    cols = ("left", "value", "best", "playout")
    pooled = [np.concatenate([rows[c] for rows in every.values()]) for c in cols]
    base = fit_table(*pooled, prior=prior)
    return {
        p: fit_table(*(rows[c] for c in cols), prior=prior, base=base) for p, rows in every.items()
    }


def cross_check(every: dict[str, Positions], *, prior: float, folds: int = 5) -> dict[str, Any]:
    """Each profile's ``probs_check`` with every position predicted by tables fitted without
    its deal (the deals split into ``folds`` by their index): held out, yet every position
    counts."""
    probs = {p: np.zeros((len(rows["index"]), N + 1)) for p, rows in every.items()}
    for fold in range(folds):
        train = {
            p: {c: v[rows["index"] % folds != fold] for c, v in rows.items()}
            for p, rows in every.items()
        }
        tables = fit_profiles(train, prior=prior)
        for p, rows in every.items():
            at = rows["index"] % folds == fold
            left, value, best = _ints(rows["left"][at], rows["value"][at], rows["best"][at])
            gaps = np.minimum(best - value, GAPS - 1)
            probs[p][at] = from_rows(p, tables[p]).dist[left, gaps, value]
    return {
        p: probs_check(probs[p], rows["left"], rows["value"], rows["playout"])
        for p, rows in every.items()
    }


def table_check(
    rows: Rows, left: np.ndarray, value: np.ndarray, best: np.ndarray, playout: np.ndarray
) -> dict[str, Any]:
    """How well the table predicts positions it was not fitted on (``probs_check`` of its
    distributions for them)."""
    left, value, best, playout = _ints(left, value, best, playout)
    gaps = np.minimum(best - value, GAPS - 1)
    return probs_check(from_rows("check", rows).dist[left, gaps, value], left, value, playout)


def probs_check(
    probs: np.ndarray, left: np.ndarray, value: np.ndarray, playout: np.ndarray
) -> dict[str, Any]:
    """Predicted distributions ``probs`` (one row of P(t tricks from now) a position) against
    the ``playout`` observed: the mean predicted and observed tricks overall and by tricks
    left, the mean absolute error of the expected tricks (and of the floor ``value`` itself),
    and the predicted against the observed chance of more tricks than the floor (bins of
    tenths)."""
    left, value, playout = _ints(left, value, playout)
    mean = probs @ np.arange(N + 1)
    p_more = (probs * (np.arange(N + 1)[None, :] > value[:, None])).sum(axis=1)
    hit = (playout > value).astype(float)
    bins = []
    for k in range(10):
        at = (p_more >= k / 10) & ((p_more < (k + 1) / 10) if k < 9 else (p_more <= 1.0))
        if at.sum():
            bins.append(
                {
                    "bin": k / 10,
                    "n": int(at.sum()),
                    "predicted": round(float(p_more[at].mean()), 4),
                    "observed": round(float(hit[at].mean()), 4),
                }
            )
    by_left = {
        str(int(n)): {
            "n": int((left == n).sum()),
            "predicted": round(float(mean[left == n].mean()), 4),
            "observed": round(float(playout[left == n].mean()), 4),
        }
        for n in np.unique(left)
    }
    return {
        "rows": len(left),
        "predicted": round(float(mean.mean()), 4),
        "observed": round(float(playout.mean()), 4),
        "mae": round(float(np.abs(mean - playout).mean()), 4),
        "floor_mae": round(float(np.abs(value - playout).mean()), 4),
        "more_than_floor": bins,
        "by_left": by_left,
    }
