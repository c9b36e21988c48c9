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

The table ignores the hand, yet the play-out's gain over the floor follows it (a hand of kings and
queens gains more over its floor than one of aces and long spades). With the whole deal ahead
(``left`` 13) the scale sees the seat's 13 cards: a :class:`HandGain` per profile, an ordinal
logit of the tricks the play-out adds to the floor given the bid model's hand features
(``bidding.features``) and the floor, learned from the solved deals the bid model learned from
(their training split: each hand's floor at the deal's start and its play-out tricks), gives the
best card's distribution; a card below the best keeps the table's row for its gap, tilted
(``p(extra) exp(theta extra)``) so that it gains what the hand adds at the layout's best floor:
the card's cost over the best stays the table's. Later in the deal the table stands as it is.

``PlayoutScale.spread(left, values, best, hand=..., seat=...)`` gives each layout's
distribution of tricks from now; ``seat.outcomes.card_outcomes`` averages them into each card's
expected tricks, score and make chance, the numbers every answer shows (advice, lines, reviews).
The table and the hand models ship in ``callbreak_lab/models/scale.json`` with their card
(``scale_card.json``: how they were made and how well they predicted positions and deals held
out).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from callbreak_lab.errors import ModelError
from callbreak_lab.rules import Ruleset

__all__ = [
    "FORMAT",
    "GAIN_FEATURES",
    "GAPS",
    "HandGain",
    "N",
    "PlayoutScale",
    "cross_check",
    "fit_hand_gain",
    "fit_profiles",
    "fit_table",
    "from_rows",
    "gain_features",
    "hands_check",
    "probs_check",
    "scale_for",
    "table_check",
    "tenths",
    "tilt",
]

#: format of ``scale.json`` (bump when its layout changes): 2 adds the hand models
FORMAT = 2
#: tricks of a deal: the table's axes run 0..N
N = 13
#: the gaps below the best card's floor the table tells apart (0, 1, ..., GAPS - 1 or more)
GAPS = 3

Rows = list[list[list[list[float]]]]

#: floors the hand model tells apart by a column each (0 .. FLOORS - 1); it also sees the floor
#: as a number and the hand features times the floor
FLOORS = 10
#: the hand features the floor multiplies (every one but the seat's one-hot columns)
_SEATLESS = 40
#: the tilt's bounds (a row's log-odds per trick added)
_THETA = 6.0


def _gain_names() -> tuple[str, ...]:
    from callbreak_lab.bidding.features import FEATURE_NAMES

    return (
        *FEATURE_NAMES,
        *(f"floor_{v}" for v in range(FLOORS)),
        "floor",
        *(f"{name}_x_floor" for name in FEATURE_NAMES[:_SEATLESS]),
    )


#: the hand model's columns, in order (``gain_features``)
GAIN_FEATURES: tuple[str, ...] = _gain_names()


def gain_features(masks: np.ndarray, seats: np.ndarray, floors: np.ndarray) -> np.ndarray:
    """The hand model's rows (``GAIN_FEATURES``): the bid model's features of each 13-card hand
    (``bidding.features.hand_features``, which raises ``ModelError`` for another card count) at
    its seat, its floor's column, the floor, and the seat-free features times the floor."""
    from callbreak_lab.bidding.features import hand_features

    x = hand_features(masks, seats).astype(np.float64)
    f = np.asarray(floors, dtype=np.int64)
    if f.shape != (len(x),) or np.any(f < 0) or np.any(f > N):
        raise ModelError(f"floors must be one of 0..{N} per hand, got shape {f.shape}")
    onehot = np.eye(N + 1)[f][:, :FLOORS]
    ff = f[:, None].astype(np.float64)
    return np.hstack([x, onehot, ff, x[:, :_SEATLESS] * ff])


@dataclass(frozen=True)
class HandGain:
    """One profile's hand model: P(the play-out adds at most ``k`` tricks to the floor) =
    sigmoid(``thresholds[k]`` - z @ ``coef``), z the ``gain_features`` row standardised by
    ``mean`` and ``scale`` (the proportional-odds model of ``bidding.learners``)."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    thresholds: np.ndarray

    def proba(self, x: np.ndarray) -> np.ndarray:
        """P(extra = 0..N) for ``gain_features`` rows ``x``."""
        eta = ((np.asarray(x, dtype=np.float64) - self.mean) / self.scale) @ self.coef
        cum = 0.5 * (1.0 + np.tanh(0.5 * (self.thresholds[None, :] - eta[:, None])))
        ones = np.ones((len(eta), 1))
        out: np.ndarray = np.diff(np.concatenate([0 * ones, cum, ones], axis=1), axis=1)
        return out

    def extra(self, masks: np.ndarray, seats: np.ndarray, floors: np.ndarray) -> np.ndarray:
        """The expected tricks the play-out adds to each hand's ``floors`` at the deal's start
        (the distribution cut at the tricks above the floor)."""
        f = np.asarray(floors, dtype=np.int64)
        p = self.proba(gain_features(masks, seats, f))
        e = np.arange(N + 1)
        p = p * (e[None, :] <= (N - f)[:, None])
        out: np.ndarray = (p @ e) / p.sum(axis=1)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(GAIN_FEATURES),
            **{k: [float(x) for x in getattr(self, k)] for k in _GAIN_KEYS},
        }

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> HandGain:
        if list(body.get("features", ())) != list(GAIN_FEATURES):
            raise ModelError("the hand model's features are not this version's (GAIN_FEATURES)")
        arrays = {k: np.asarray(body[k], dtype=np.float64) for k in _GAIN_KEYS}
        return cls(**arrays)


_GAIN_KEYS = ("mean", "scale", "coef", "thresholds")


def fit_hand_gain(
    masks: np.ndarray,
    seats: np.ndarray,
    floors: np.ndarray,
    playout: np.ndarray,
    *,
    alpha: float = 1e-3,
) -> HandGain:
    """The hand model fitted on hands (13-card ``masks`` at ``seats``) with their ``floors`` at
    the deal's start and ``playout`` tricks (the solved deals' ``dd`` and ``playout``): the
    ordinal logit of ``bidding.learners`` with L2 penalty ``alpha``."""
    from callbreak_lab.bidding.learners import OrdinalLogit

    f, po = np.asarray(floors, dtype=np.int64), np.asarray(playout, dtype=np.int64)
    if f.shape != po.shape or np.any(po < f) or np.any(po > N):
        raise ModelError("a play-out below the floor or above 13 tricks, or unequal lengths")
    m = OrdinalLogit(alpha=alpha).fit(gain_features(masks, seats, f), po - f)
    return HandGain(
        np.asarray(m.mean_, dtype=np.float64),
        np.asarray(m.scale_, dtype=np.float64),
        np.asarray(m.coef_, dtype=np.float64),
        np.asarray(m.thresholds_, dtype=np.float64),
    )


def tilt(rows: np.ndarray, floors: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Rows of P(t tricks from now) tilted by ``exp(theta (t - floor))`` and renormalised."""
    t = np.arange(rows.shape[-1])
    e = np.clip(t[None, :] - np.asarray(floors)[:, None], 0, N)
    w = rows * np.exp(np.asarray(theta)[:, None] * e)
    out: np.ndarray = w / w.sum(axis=1, keepdims=True)
    return out


def _solve_tilts(rows: np.ndarray, floors: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """The ``theta`` of each row that brings its mean tricks above its floor to ``target``
    (bisection, every row at once; within the row's reach, else its end)."""
    lo = np.full(len(rows), -_THETA)
    hi = np.full(len(rows), _THETA)
    t = np.arange(rows.shape[-1])
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        gain = tilt(rows, floors, mid) @ t - floors
        up = gain < targets
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    out: np.ndarray = 0.5 * (lo + hi)
    return out


@dataclass(frozen=True)
class PlayoutScale:
    """One profile's table: ``dist[left, gap, value, t]`` = P(the seat's play-out takes ``t``
    tricks from now | ``left`` tricks left, floor ``value`` after the card, ``gap`` below the
    best card's floor, capped at ``GAPS - 1``), zero for ``t < value`` and ``t > left``; each
    row (``value <= left``) sums to 1."""

    profile: str
    dist: np.ndarray
    #: the hand model (None: the table alone, whatever the hand)
    gain: HandGain | None = None
    _memo: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def spread(
        self,
        left: int,
        values: np.ndarray,
        best: np.ndarray,
        *,
        hand: int | None = None,
        seat: int = 0,
    ) -> np.ndarray:
        """The distribution of play-out tricks from now (one row of 0..N per value) for a seat
        with ``left`` tricks left whose floors after a card are ``values`` (0..left) where the
        best card's are ``best`` (layout by layout). With the seat's 13 cards as dealt
        (``hand``, a mask) and ``seat``, the first trick's rows see the hand (``for_hand``);
        later tricks and no hand: the table's rows."""
        n = int(left)
        v = np.clip(np.asarray(values, dtype=np.int64), 0, n)
        b = np.clip(np.asarray(best, dtype=np.int64), 0, n)
        gap = np.clip(b - v, 0, GAPS - 1)
        out: np.ndarray = self.dist[n, gap, v]
        if hand is None or self.gain is None or n != N:
            return out
        rows, theta = self.for_hand(hand, seat)
        below = tilt(out, v, theta[v, b])
        return np.where((gap == 0)[:, None], rows[v], below)

    def for_hand(self, hand: int, seat: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """What the first trick's rows are for the seat's 13 cards ``hand`` (a mask) at
        ``seat``: ``rows[b]``, the hand model's distribution of play-out tricks after the best
        card at floor ``b`` (``first_trick``); ``theta[v, b]``, the tilt of the table's row of
        a card at floor ``v`` below the best ``b`` that adds to its mean what the hand adds to
        the table's at the best floor (the card's cost over the best stays the table's). Kept
        per hand (the layouts and cards of one answer share it)."""
        key = (int(hand), int(seat))
        got = self._memo.get(key)
        if got is not None:
            return got
        floors = np.arange(N + 1)
        masks = np.full(N + 1, int(hand), dtype=np.uint64)
        rows = self.first_trick(masks, np.full(N + 1, int(seat)), floors)
        t = np.arange(N + 1)
        shift = rows @ t - self.dist[N, 0, floors] @ t  # the hand's gain over the table's
        v, b = np.nonzero(floors[:, None] < floors[None, :])  # a card below the best
        base = self.dist[N, np.minimum(b - v, GAPS - 1), v]
        target = np.clip(base @ t + shift[b], v, N) - v
        theta = np.zeros((N + 1, N + 1))
        theta[v, b] = _solve_tilts(base, v, target)
        if len(self._memo) >= 4096:  # an arena's many hands: keep the memo small
            self._memo.clear()
        self._memo[key] = (rows, theta)
        return rows, theta

    def first_trick(
        self, masks: np.ndarray, seats: np.ndarray, floors: np.ndarray, *, hands: bool = True
    ) -> np.ndarray:
        """Each hand's distribution of play-out tricks at the deal's start after its best card
        (floor ``floors``): ``spread(N, floor, floor, hand=mask, seat=seat)`` row by row, every
        hand at once: the hand model's P(extra) cut at the tricks left (``hands`` False or no
        hand model: the table's rows, whatever the hand)."""
        f = np.clip(np.asarray(floors, dtype=np.int64), 0, N)
        if not hands or self.gain is None:
            rows: np.ndarray = self.dist[N, 0, f]
            return rows
        q = self.gain.proba(gain_features(masks, seats, f))  # P(extra = 0..N)
        t = np.arange(N + 1)
        at = np.clip(t[None, :] - f[:, None], 0, N)
        out = np.where(t[None, :] >= f[:, None], np.take_along_axis(q, at, axis=1), 0.0)
        out /= out.sum(axis=1, keepdims=True)
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
        body: dict[str, Any] = json.loads(_resource("scale.json").read_text())
    except (OSError, ValueError) as e:  # a broken install: say which file
        raise ModelError(f"the play-out scale (models/scale.json) does not load: {e}") from e
    if body.get("format") != FORMAT:
        raise ModelError(f"models/scale.json has format {body.get('format')!r}, not {FORMAT}")
    return body


def from_rows(profile: str, rows: Rows, gain: HandGain | None = None) -> PlayoutScale:
    """A :class:`PlayoutScale` from the JSON rows of ``fit_table`` (and a hand model)."""
    dist = np.zeros((N + 1, GAPS, N + 1, N + 1))
    dist[0, :, 0, 0] = 1.0
    for left in range(1, N + 1):
        for gap in range(GAPS):
            for value in range(left + 1):
                extra = np.asarray(rows[left - 1][gap][value], dtype=np.float64)
                dist[left, gap, value, value : value + len(extra)] = extra / extra.sum()
    return PlayoutScale(profile, dist, gain)


@functools.cache
def _scale(profile: str) -> PlayoutScale:
    body = _tables()
    tables, gains = body["tables"], body.get("gains", {})
    if profile not in tables or profile not in gains:
        raise ModelError(f"models/scale.json holds no table or hand model for {profile!r}")
    return from_rows(profile, tables[profile], HandGain.from_json(gains[profile]))


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


def tenths(p: np.ndarray, hit: np.ndarray) -> list[dict[str, Any]]:
    """Predicted chances ``p`` against the events ``hit`` (0/1), in bins of tenths: each bin's
    count, mean predicted and observed rate."""
    bins = []
    for k in range(10):
        at = (p >= k / 10) & ((p < (k + 1) / 10) if k < 9 else (p <= 1.0))
        if at.sum():
            bins.append(
                {
                    "bin": k / 10,
                    "n": int(at.sum()),
                    "predicted": round(float(p[at].mean()), 4),
                    "observed": round(float(hit[at].mean()), 4),
                }
            )
    return bins


def probs_check(
    probs: np.ndarray,
    left: np.ndarray,
    value: np.ndarray,
    playout: np.ndarray,
    calls: np.ndarray | None = None,
) -> dict[str, Any]:
    """Predicted distributions ``probs`` (one row of P(t tricks from now) a position) against
    the ``playout`` observed: the mean predicted and observed tricks overall and by tricks
    left, the mean absolute error of the expected tricks (and of the floor ``value`` itself),
    and the predicted against the observed chance of more tricks than the floor (bins of
    tenths); with ``calls`` (tricks to take from now) also the chance of making them."""
    left, value, playout = _ints(left, value, playout)
    mean = probs @ np.arange(N + 1)
    p_more = (probs * (np.arange(N + 1)[None, :] > value[:, None])).sum(axis=1)
    bins = tenths(p_more, (playout > value).astype(float))
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
        **({} if calls is None else {"make": _make_bins(probs, playout, calls)}),
    }


def hands_check(
    scale: PlayoutScale,
    masks: np.ndarray,
    seats: np.ndarray,
    floors: np.ndarray,
    playout: np.ndarray,
    calls: np.ndarray,
) -> dict[str, Any]:
    """The first-trick scale on solved deals it was not fitted on (each hand's floor at the
    deal's start and its play-out tricks, the advised ``calls``): ``probs_check`` with the
    hand (``hand``) and the table alone (``table``), and the observed against the predicted
    tricks by the predicted tricks rounded (``by_predicted``, the hand's)."""
    f, po = _ints(floors, playout)
    left = np.full(len(f), N)
    out: dict[str, Any] = {}
    for name, hands in (("hand", True), ("table", False)):
        probs = scale.first_trick(masks, seats, f, hands=hands)
        out[name] = probs_check(probs, left, f, po, calls)
        if hands:
            mean = probs @ np.arange(N + 1)
            at = np.rint(mean).astype(np.int64)
            out["by_predicted"] = {
                str(int(k)): {
                    "n": int((at == k).sum()),
                    "predicted": round(float(mean[at == k].mean()), 4),
                    "observed": round(float(po[at == k].mean()), 4),
                }
                for k in np.unique(at)
            }
    return out


def _make_bins(probs: np.ndarray, playout: np.ndarray, calls: np.ndarray) -> list[dict[str, Any]]:
    """The predicted against the observed chance of taking ``calls`` tricks or more."""
    c = np.asarray(calls, dtype=np.int64)
    p = (probs * (np.arange(N + 1)[None, :] >= c[:, None])).sum(axis=1)
    return tenths(p, (np.asarray(playout) >= c).astype(float))
