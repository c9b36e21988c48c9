"""The Monte Carlo reference of a hand: deal the unseen cards around it and solve every layout.

``monte_carlo`` deals layouts with ``seat.dealing.deal_around`` (uniform among the layouts
consistent with the known cards and voids), solves each with the double-dummy solver's batch
functions and summarises, for one seat, the distribution of its play-out tricks (the forecast the
bid model learns) and of its guaranteed tricks (the double-dummy floor), plus the expected score of
every legal call. It is the slow, exact-in-the-limit reference the bid model approximates
(``mc_distribution`` gives the bid model's evaluation its column).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from callbreak_lab.bidding import calls as _calls
from callbreak_lab.cards import Hand, HandLike
from callbreak_lab.errors import SolverInputError, check_int, check_time_limit
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.dealing import VoidSuits, deal_around, deals_from_masks
from callbreak_lab.seat.outcomes import solve_rows
from callbreak_lab.util.progress import Progress
from callbreak_lab.util.stats import mean_se, standard_errors

__all__ = ["MonteCarloResult", "mc_distribution", "monte_carlo"]


@dataclass(frozen=True)
class MonteCarloResult:
    """Single-dummy summary for one seat over ``n`` sampled layouts.

    ``playout``/``dd``: per-layout play-out tricks and guaranteed tricks (double-dummy value) of
    the seat; ``playout_dist``/``dd_dist``: their distributions over 0..13 (14 probabilities);
    ``calls``: the legal calls; ``expected``: expected score in tenths of each call when the
    seat takes its play-out tricks, with standard errors ``expected_se``; ``advice``: the best
    call (``calls.best_call`` on ``playout_dist``); ``masks``: the layouts (n, 4) uint64.
    """

    hand: Hand
    seat: int
    rules: Ruleset
    masks: np.ndarray
    playout: np.ndarray
    dd: np.ndarray
    playout_dist: np.ndarray
    dd_dist: np.ndarray
    calls: np.ndarray
    expected: np.ndarray
    expected_se: np.ndarray
    advice: _calls.CallAdvice

    @property
    def n(self) -> int:
        """Number of layouts solved."""
        return int(self.playout.shape[0])

    @property
    def best_call(self) -> int:
        """The call with the best expected score (ties to the lower call)."""
        return self.advice.call

    @property
    def mean_playout(self) -> tuple[float, float]:
        """Mean play-out tricks and its standard error."""
        return mean_se(self.playout)

    @property
    def mean_dd(self) -> tuple[float, float]:
        """Mean guaranteed tricks and its standard error."""
        return mean_se(self.dd)

    def table(self) -> list[tuple[int, float, float]]:
        """Rows ``(call, expected score in tenths, standard error)``."""
        return [
            (int(c), float(e), float(s))
            for c, e, s in zip(self.calls, self.expected, self.expected_se, strict=True)
        ]

    def to_dict(self) -> dict[str, Any]:
        """Plain data: the hand, seat, rules' name, layouts solved, best call, both
        distributions (14 probabilities each), the mean play-out and guaranteed tricks with
        their standard errors, and each call's expected score in tenths with its standard
        error (None where undefined)."""

        def num(x: float) -> float | None:
            return None if math.isnan(x) else round(float(x), 6)

        po, po_se = self.mean_playout
        dd, dd_se = self.mean_dd
        return {
            "hand": str(self.hand),
            "seat": self.seat,
            "rules": self.rules.name,
            "layouts": self.n,
            "best_call": self.best_call,
            "playout_dist": [round(float(p), 6) for p in self.playout_dist],
            "dd_dist": [round(float(p), 6) for p in self.dd_dist],
            "mean_playout": num(po),
            "mean_playout_se": num(po_se),
            "mean_dd": num(dd),
            "mean_dd_se": num(dd_se),
            "calls": [{"call": c, "expected": num(e), "se": num(s)} for c, e, s in self.table()],
        }

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{c}{' (best)' if c == self.best_call else ''}</td>"
            f"<td>{e / 10:+.2f}</td><td>{s / 10:.2f}</td></tr>"
            for c, e, s in self.table()
        )
        po, po_se = self.mean_playout
        dd, dd_se = self.mean_dd
        head = html.escape(
            f"{self.hand}, seat {self.seat} ({self.rules.name}), {self.n} layouts: best call "
            f"{self.best_call}; play-out tricks {po:.2f} ± {po_se:.2f}, guaranteed {dd:.2f} ± "
            f"{dd_se:.2f}"
        )
        return (
            f"<div><p>{head}</p><table><tr><th>call</th><th>expected points</th><th>se</th>"
            f"</tr>{rows}</table></div>"
        )


def _distribution(tricks: np.ndarray) -> np.ndarray:
    return np.bincount(tricks.astype(np.int64), minlength=14)[:14] / max(len(tricks), 1)


def _solve_layouts(
    masks: np.ndarray, seat: int, rules: Ruleset, n_jobs: int | None, progress: Progress | None
) -> tuple[np.ndarray, np.ndarray]:
    """The seat's guaranteed and play-out tricks in every layout, via the solver's batch call
    (one pass per layout: the seat's value, then the play-out from it and the same table; the
    other seats' values are never solved at the root, which would cost about 3x more)."""
    from callbreak_lab import solver

    deals = deals_from_masks(masks)
    dd, results = solver.values_and_playouts(deals, seat, rules, n_jobs=n_jobs, progress=progress)
    po = np.array([r.tricks[seat] for r in results], dtype=np.int64)
    return dd.reshape(len(deals)), po


def monte_carlo(  # noqa: PLR0913  (the hand and its seat, then keyword-only options)
    hand: HandLike,
    seat: int,
    rules: Ruleset | str | None = None,
    *,
    layouts: int = 200,
    seed: int | np.random.Generator | None = 0,
    n_jobs: int | None = None,
    progress: Progress | None = None,
    known: Mapping[int, HandLike] | None = None,
    voids: Mapping[int, VoidSuits] | None = None,
    time_limit: float | None = None,
) -> MonteCarloResult:
    """Single-dummy reference for ``hand`` at ``seat``: deal ``layouts`` layouts with
    ``deal_around``, solve each (play-out and double-dummy value, seat 0 on lead) and summarise.

    Expected scores are exact for the sampled layouts; their standard errors shrink like
    ``1/sqrt(layouts)``. ``rules``: a ``Ruleset`` or a preset name (None:
    ``rules.DEFAULT_RULES``); ``known``/``voids`` as in ``deal_around``. ``n_jobs``: worker
    processes (joblib's meaning: None or 1 this process, -1 every core). ``progress(done,
    total)`` as layouts are solved. ``time_limit`` (seconds, with one worker): the layouts are
    solved in order (``seat.outcomes.solve_rows``) and none is started after that much time,
    the one still being solved then is stopped and left out, the first always finishes; the
    result then summarises the layouts solved (``MonteCarloResult.n`` says how many, at least
    one). A layout's solve ranges from milliseconds to seconds, so a bound on the count alone
    does not bound the time.
    """
    r = Ruleset.coerce(rules)
    check_int(layouts, "layouts", low=1, error=SolverInputError)
    if check_time_limit(time_limit, error=SolverInputError) is not None and n_jobs not in (None, 1):
        raise SolverInputError(f"time_limit needs n_jobs=1, got n_jobs={n_jobs!r}")
    masks = deal_around(hand, seat, int(layouts), seed, known=known, voids=voids)
    own = Hand(int(masks[0, seat]))
    if time_limit is None:
        dd, po = _solve_layouts(masks, int(seat), r, n_jobs, progress)
    else:

        def one(row: np.ndarray) -> tuple[int, int]:
            d, p = _solve_layouts(row[None, :], int(seat), r, 1, None)
            return int(d[0]), int(p[0])

        index, got, _stopped, _slowest = solve_rows(
            masks, one, time_limit=float(time_limit), keep_first=True, progress=progress
        )
        masks = masks[index]
        dd = np.array([d for d, _ in got], dtype=np.int64)
        po = np.array([p for _, p in got], dtype=np.int64)
    po_dist = _distribution(po)
    scores = _calls.score_matrix(r)[:, po]  # (n_calls, n) tenths per layout
    expected = _calls.expected_scores(po_dist, r)
    se = standard_errors(scores, axis=1)
    return MonteCarloResult(
        hand=own,
        seat=int(seat),
        rules=r,
        masks=masks,
        playout=po,
        dd=dd,
        playout_dist=po_dist,
        dd_dist=_distribution(dd),
        calls=_calls.legal_calls(r),
        expected=expected,
        expected_se=se,
        advice=_calls.best_call(po_dist, r),
    )


def mc_distribution(
    mask: int, seat: int, rules: Ruleset, layouts: int, seed: int, n_jobs: int = 1
) -> np.ndarray:
    """The Monte Carlo play-out distribution (14 numbers) of one hand in its seat (the column
    ``bidding.evaluation.evaluate`` compares the bid model with)."""
    result = monte_carlo(
        Hand(int(mask)), int(seat), rules, layouts=layouts, seed=seed, n_jobs=n_jobs
    )
    return np.asarray(result.playout_dist, dtype=np.float64)
