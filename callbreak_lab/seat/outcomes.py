"""Each card's outcome over the layouts: the solver's values on every layout, and the weighted
expected score, tricks and make rate of each legal card with their standard errors.

``solve_layouts`` gives the seat's double-dummy value after each legal card (the tricks it can
still guarantee, ``solver.card_values``) on each layout, in the layouts' order, within a time
limit: on this thread (its engine brings a helper thread for long searches) or side by side on
a ``solver.team.SolverTeam``. ``card_outcomes`` turns the values into each card's
:class:`CardOutcome`, on two scales. The floor: the seat's deal total is the tricks won so far
plus the value, scored against its call with the preset's scoring; the players rank their cards
on it (``Outcomes.best``). The play-out scale, the numbers a player is shown: each value spread
into the distribution of the tricks the seat can expect when every seat plays for itself
(``seat.scale``, the call advisor's measure), scored the same way. Means are weighted by the
layouts' weights, and standard errors come from the weights' effective sample size (zero when
the layouts are every consistent one).

``judge`` is the one path from a seat's knowledge to its cards' outcomes: draw the layouts
(``seat.layouts.draw``), solve them, weigh the outcomes. The players' policy
(``seat.policy.SearchPolicy``) and single-dummy advice (``analysis.advice``) both take it;
``solve_rows`` is the in-turn solving under one clock that it and the Monte Carlo reference
(``analysis.montecarlo``) share.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from callbreak_lab.cards import Card, Deal, Hand, lowest_card
from callbreak_lab.errors import IllegalPlayError, UsageError
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.seat.layouts import BETA, OVERSAMPLE, Layouts, draw
from callbreak_lab.util.progress import Progress
from callbreak_lab.util.stats import mean_se

__all__ = [
    "CardOutcome",
    "Judgement",
    "Outcomes",
    "Progress",
    "Solved",
    "card_outcomes",
    "judge",
    "solve_layouts",
    "solve_rows",
    "threads_of",
]

T = TypeVar("T")


# --- solving the layouts ---------------------------------------------------------------------


@dataclass(frozen=True)
class Solved:
    """The layouts solved: ``index`` (row numbers of the layouts given, in order) and
    ``values`` ({card: value} on each), ``stopped`` when the time limit left some out,
    ``slowest`` the seconds of the slowest layout (those stopped included)."""

    index: tuple[int, ...]
    values: tuple[dict[int, int], ...]
    stopped: bool
    slowest: float

    def __len__(self) -> int:
        return len(self.index)


def _values(k: Knowledge, row: np.ndarray, window: tuple[int, int] | None) -> dict[int, int] | None:
    """The seat's card values on one layout (None: the record does not replay on it)."""
    from callbreak_lab import solver

    deal = Deal([Hand(int(m)) for m in row])  # checked: microseconds beside the solve
    try:
        pos = Position.replay(deal, k.record, k.rules)
    except IllegalPlayError:
        return None
    if window is None:
        values = solver.card_values(pos, k.seat, k.rules)
    else:
        values = solver.card_values_within(pos, k.seat, k.rules, lo=window[0], hi=window[1])
    return {int(c): int(v) for c, v in values.items()}


def solve_rows(
    rows: np.ndarray,
    solve_row: Callable[[np.ndarray], T | None],
    *,
    time_limit: float | None = None,
    keep_first: bool = False,
    progress: Progress | None = None,
    on_result: Callable[[int, T], None] | None = None,
    stop: threading.Event | None = None,
) -> tuple[list[int], list[T], bool, float]:
    """``solve_row`` on each row in order, on this thread, within ``time_limit`` seconds
    (None: every row): no row is started after it, and the search still running then is
    stopped (``solver.time_limit``, one clock for all the rows) and its row left out, except
    the first row with ``keep_first`` (solved free of the clock, so there is an answer). A row
    whose ``solve_row`` is None is left out too. Returns the rows kept (their numbers), their
    results, whether the time limit left rows out, and the slowest row's seconds (those stopped
    included). ``progress(done, total)`` after each row; ``on_result(i, result)`` after each row
    kept; once ``stop`` is set no further row is started (as at the time limit)."""
    from callbreak_lab import solver

    index: list[int] = []
    values: list[T] = []
    slowest = 0.0
    stopped = False
    deadline = None if time_limit is None else time.perf_counter() + time_limit

    def one(i: int) -> bool:
        """Solve row ``i``; False when the clock stopped it."""
        nonlocal slowest
        t0 = time.perf_counter()
        try:
            got = solve_row(rows[i])
        except solver.SearchTimeout:  # the time limit ended in it
            slowest = max(slowest, time.perf_counter() - t0)
            return False
        slowest = max(slowest, time.perf_counter() - t0)
        if got is not None:
            index.append(i)
            values.append(got)
            if on_result is not None:
                on_result(i, got)
        if progress is not None:
            progress(i + 1, len(rows))
        return True

    start = 0
    if keep_first and len(rows):
        one(0)
        start = 1
    with contextlib.ExitStack() as stack:
        if deadline is not None and start < len(rows):
            stack.enter_context(solver.time_limit(max(0.0, deadline - time.perf_counter())))
        for i in range(start, len(rows)):
            late = deadline is not None and time.perf_counter() >= deadline
            if late or (stop is not None and stop.is_set()):
                stopped = True
                break
            if not one(i):
                stopped = True
                break
    return index, values, stopped, slowest


def _side_by_side(  # noqa: C901, PLR0913, PLR0915  (the team's loop: start, collect, stop)
    k: Knowledge,
    rows: np.ndarray,
    deadline: float | None,
    window: tuple[int, int] | None,
    threads: int,
    keep_first: bool,
    progress: Progress | None,
    on_result: Callable[[int, dict[int, int]], None] | None = None,
    stop: threading.Event | None = None,
) -> Solved:
    """``solve_layouts`` on a team of ``threads`` solver threads: at most ``threads`` layouts
    in flight, helpers kept out until no layout is left to start; ``on_result`` and
    ``progress`` are called on this thread as layouts finish."""
    from callbreak_lab import solver
    from callbreak_lab.solver.team import team

    total = len(rows)
    results: dict[int, dict[int, int]] = {}
    times: list[float] = []
    gate = threading.Event()  # this call's helpers: shut while a layout waits to start

    def solve_row(i: int) -> tuple[dict[int, int] | None, bool]:
        t0 = time.perf_counter()
        try:
            if deadline is None or (keep_first and i == 0):
                return _values(k, rows[i], window), False
            left = deadline - time.perf_counter()
            if left <= 0:
                return None, True
            with solver.time_limit(left):
                return _values(k, rows[i], window), False
        except solver.SearchTimeout:
            return None, True
        finally:
            times.append(time.perf_counter() - t0)

    crew = team(threads)
    pending: dict[Future[tuple[dict[int, int] | None, bool]], int] = {}

    def start(i: int) -> None:
        def task(_eng: object) -> tuple[dict[int, int] | None, bool]:
            return solve_row(i)

        pending[crew.run(task, gate)] = i

    queue = iter(range(total))
    for i in itertools.islice(queue, threads):
        start(i)
    stopped = False
    done = 0
    try:
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                i = pending.pop(fut)
                values, cut = fut.result()
                stopped = stopped or cut
                if values is not None:
                    results[i] = values
                    if on_result is not None:
                        on_result(i, values)
                done += 1
                if progress is not None:
                    progress(done, total)
                nxt = next(queue, None)
                late = deadline is not None and time.perf_counter() > deadline
                late = late or (stop is not None and stop.is_set())
                if nxt is None or late:
                    stopped = stopped or nxt is not None
                    gate.set()  # a core is idle: the running layouts share it
                    continue
                start(nxt)
    finally:
        gate.set()  # no helper waits on a call that has ended
    ordered = sorted(results.items())
    return Solved(
        tuple(i for i, _ in ordered), tuple(v for _, v in ordered), stopped, max(times, default=0.0)
    )


def threads_of(n_jobs: int | None) -> int:
    """The solver threads ``n_jobs`` asks for: None or 1 one, -1 the solver's default
    (``solver.default_threads()``: two on a machine with two cores or more), else 2..4."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or n_jobs not in (-1, 1, 2, 3, 4):
        raise UsageError(f"n_jobs must be None, -1 or 1..4, got {n_jobs!r}")
    if n_jobs == -1:
        from callbreak_lab.solver import default_threads

        return default_threads()
    return int(n_jobs)


def solve_layouts(  # noqa: PLR0913  (keyword-only options)
    k: Knowledge,
    rows: np.ndarray,
    *,
    time_limit: float | None = None,
    window: tuple[int, int] | None = None,
    n_jobs: int | None = None,
    keep_first: bool = False,
    progress: Progress | None = None,
    on_result: Callable[[int, dict[int, int]], None] | None = None,
    stop: threading.Event | None = None,
) -> Solved:
    """``solver.card_values`` for ``k.seat`` on each layout (rows of hand masks as dealt) in
    order (``window`` (lo, hi): ``solver.card_values_within``, the values clipped to it), within
    ``time_limit`` seconds (None: every layout): no layout is started after it, and the one
    still being solved then is stopped and left out (``solver.time_limit``), except the first
    row's with ``keep_first`` (so there is an answer). A layout the record cannot replay on is
    left out. ``n_jobs`` (``threads_of``) > 1: layouts side by side on the process's solver team
    (``solver.team``). ``progress(done, total)`` after each layout; ``on_result(i, values)``
    after each layout solved (row ``i``), on this thread, as they finish (not in order); once
    ``stop`` (a ``threading.Event``) is set no further layout is started and the answer says
    ``stopped`` (the layouts in flight finish)."""
    threads = threads_of(n_jobs)
    if threads <= 1 or len(rows) < 2:
        index, values, stopped, slowest = solve_rows(
            rows,
            lambda row: _values(k, row, window),
            time_limit=time_limit,
            keep_first=keep_first,
            progress=progress,
            on_result=on_result,
            stop=stop,
        )
        return Solved(tuple(index), tuple(values), stopped, slowest)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    return _side_by_side(k, rows, deadline, window, threads, keep_first, progress, on_result, stop)


# --- each card's outcome ----------------------------------------------------------------------


@dataclass(frozen=True)
class CardOutcome:
    """One card over the layouts, on the play-out scale (``seat.scale``: what the seat can
    expect when every seat plays for itself, the call advisor's measure): expected deal total of
    tricks, expected score in points and probability of making the call (None without the
    seat's call), with standard errors (0 when every consistent layout was taken); and the same
    three on the double-dummy floor (the tricks the seat keeps against the other three
    together): ``floor_tricks``, ``floor_expected``, ``floor_make``."""

    tricks: float
    tricks_se: float
    expected: float | None
    expected_se: float | None
    make: float | None
    floor_tricks: float
    floor_expected: float | None
    floor_make: float | None

    def to_dict(self) -> dict[str, float | None]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "expected": r(self.expected),
            "se": r(self.expected_se),
            "tricks": r(self.tricks),
            "tricks_se": r(self.tricks_se),
            "make": r(self.make),
            "floor_expected": r(self.floor_expected),
            "floor_tricks": r(self.floor_tricks),
            "floor_make": r(self.floor_make),
        }


@dataclass(frozen=True)
class Outcomes:
    """Each card's :class:`CardOutcome` over the layouts solved, with what a paired comparison
    needs: ``weights`` (normalised, one per layout) and ``samples`` (each card's objective on
    each layout on the floor: its score in points with the seat's call, else its deal total of
    tricks; the players' judgement) and ``scaled`` (the same on the play-out scale: the
    expected score, or tricks, on each layout; the advice's)."""

    cards: dict[Card, CardOutcome]
    weights: np.ndarray
    samples: dict[Card, np.ndarray]
    won: int
    scaled: dict[Card, np.ndarray] = field(default_factory=dict)

    def best(self, objective: str = "score") -> Card:
        """The card with the best expected score on the floor, then the best mean floor
        (``objective="tricks"``, or without the seat's call: the best mean floor alone), then
        the lowest card: the players' choice (``seat.policy``)."""
        choices = list(self.cards)
        scored = objective == "score" and all(
            o.floor_expected is not None for o in self.cards.values()
        )
        if scored:

            def key(c: Card) -> float:
                return float(self.cards[c].floor_expected or 0.0)

            top = max(key(c) for c in choices)
            choices = [c for c in choices if key(c) >= top - 1e-9]
        top_value = max(self.cards[c].floor_tricks for c in choices)
        choices = [c for c in choices if self.cards[c].floor_tricks >= top_value - 1e-9]
        return lowest_card(choices)


def card_outcomes(  # noqa: PLR0913  (the layouts' figures, then the seat's keyword-only facts)
    values: Sequence[dict[int, int]],
    weights: np.ndarray,
    rules: Ruleset,
    call: int | None,
    won: int,
    exact: bool = False,
    *,
    left: int | None = None,
    hand: int | None = None,
    seat: int = 0,
) -> Outcomes:
    """Each card legal on every layout, over layouts with card ``values`` (the seat's
    guaranteed tricks from now after the card) and ``weights``, for a seat that has won ``won``
    tricks, holds ``left`` cards and called ``call`` (None: judged by tricks). ``exact``: the
    layouts are every consistent one (standard errors 0). The floor figures are the values'
    own; the shown ones spread each value by the play-out scale (``seat.scale.scale_for``) for
    a seat holding ``left`` cards (None: the values are shown as they are, e.g. the true
    layout's own play-out values), the 13 cards ``hand`` (a mask, as dealt) of ``seat`` tilting
    the first trick's spread to the hand (``PlayoutScale.spread``; None: the table alone)."""
    from callbreak_lab.seat.scale import N, scale_for

    scale = None if left is None else scale_for(rules)
    cards = set(values[0])
    for v in values[1:]:
        cards &= set(v)
    w = np.asarray(weights, dtype=np.float64)
    wn = w / w.sum()
    totals = np.arange(N + 1) + won  # deal totals of 0..N tricks from now
    score_of = None
    if call is not None:
        score_of = np.array([rules.score(call, int(t)) if t <= N else 0 for t in totals]) / 10
    outcomes: dict[Card, CardOutcome] = {}
    samples: dict[Card, np.ndarray] = {}
    scaled: dict[Card, np.ndarray] = {}
    best = np.array([max(v.values()) for v in values], dtype=np.int64)  # each layout's best floor
    for c in sorted(cards):
        floor = np.array([v[c] for v in values], dtype=np.int64)
        tricks = floor + won
        t_mean, _ = mean_se(tricks, w, single=0.0)
        if scale is None or left is None:  # the values as they are: one trick count each
            spread = np.eye(N + 1)[np.clip(floor, 0, N)]
        else:  # one row of P(t tricks from now) per layout
            spread = scale.spread(left, floor, best, hand=hand, seat=seat)
        p_tricks = spread @ totals
        p_mean, p_se = mean_se(p_tricks, w, single=0.0)
        if call is None or score_of is None:
            outcomes[Card(c)] = CardOutcome(
                p_mean, 0.0 if exact else p_se, None, None, None, t_mean, None, None
            )
            samples[Card(c)] = tricks.astype(np.float64)
            scaled[Card(c)] = p_tricks
            continue
        scores = np.array([rules.score(call, int(t)) for t in tricks], dtype=np.float64) / 10
        s_mean, _ = mean_se(scores, w, single=0.0)
        # made: a positive score (bidding.calls.made_matrix's rule), so a window scoring such as
        # home's (the call or one more) misses above it too; the weights sum to 1 up to rounding
        make = min(1.0, float(wn @ (scores > 0)))
        p_scores = spread @ score_of
        ps_mean, ps_se = mean_se(p_scores, w, single=0.0)
        p_make = min(1.0, float(wn @ (spread @ (score_of > 0))))
        outcomes[Card(c)] = CardOutcome(
            p_mean, 0.0 if exact else p_se, ps_mean, 0.0 if exact else ps_se, p_make,
            t_mean, s_mean, make,
        )  # fmt: skip
        samples[Card(c)] = scores
        scaled[Card(c)] = p_scores
    return Outcomes(outcomes, wn, samples, won, scaled)


# --- the one path: draw, solve, each card's outcome -------------------------------------------


@dataclass(frozen=True)
class Judgement:
    """A seat's layouts and what they say: ``drawn`` (the dealer's ``Layouts``), ``solved``
    (the layouts solved in time), ``weights`` (the solved layouts' weights, as drawn) and
    ``outcomes`` (each card's outcome over them; None when no layout was solved)."""

    drawn: Layouts
    solved: Solved
    weights: np.ndarray
    outcomes: Outcomes | None

    @property
    def exact(self) -> bool:
        """The layouts are every consistent one and each was solved (standard errors 0)."""
        return self.drawn.exact and not self.solved.stopped

    @property
    def rows(self) -> np.ndarray:
        """The solved layouts' rows (hand masks as dealt)."""
        return self.drawn.rows[list(self.solved.index)]

    def to_dict(self) -> dict[str, Any]:
        """Plain data: layouts drawn (repeats counted) and solved, candidates weighed, their
        effective sample size, whether exact or stopped by the time limit, and each card's
        outcome (cards as text)."""
        return {
            "layouts": round(float(self.weights.sum()), 6),
            "distinct": len(self.solved),
            "candidates": self.drawn.candidates,
            "ess": round(self.drawn.ess, 1),
            "exact": self.exact,
            "stopped": self.solved.stopped,
            "outcomes": {}
            if self.outcomes is None
            else {str(c): o.to_dict() for c, o in self.outcomes.cards.items()},
        }


def judge(  # noqa: PLR0913  (keyword-only options of the one judgement path)
    k: Knowledge,
    layouts: int,
    seed: int | np.random.Generator,
    *,
    beta: float = BETA,
    oversample: int = OVERSAMPLE,
    exact_limit: int = 0,
    play_weight: float = 0.0,
    window: tuple[int, int] | None = None,
    objective_call: bool = True,
    time_limit: float | None = None,
    n_jobs: int | None = None,
    keep_first: bool = False,
    progress: Progress | None = None,
    on_update: Callable[[Judgement], None] | None = None,
    stop: threading.Event | None = None,
) -> Judgement:
    """Draw -> solve -> outcomes, the path every judgement of a seat's card takes (the
    players' policy, single-dummy advice and reviews): ``layouts`` layouts of the hidden cards
    drawn for ``k`` (``seat.layouts.draw`` with ``beta``, ``oversample``, ``exact_limit``,
    ``play_weight``; every consistent layout with its weight when there are at most
    ``exact_limit``; the other seats' plays weigh them too with ``play_weight`` > 0), solved within
    ``time_limit`` seconds counted from this call (``solve_layouts`` with ``window``,
    ``n_jobs``, ``keep_first``, ``progress``), and each card's :class:`CardOutcome` over the
    layouts solved, scored against the seat's own call (``objective_call`` False: judged by
    tricks alone). No layout fitting the table gives no rows and no outcomes.

    ``on_update(judgement)``: the judgement over the layouts solved so far, on this thread,
    first when the layouts are drawn (none solved, ``outcomes`` None), then after each layout
    solved (``solved.stopped`` False, standard errors from the weights: never exact); the
    returned judgement is the last word. ``stop``: see ``solve_layouts``."""
    t0 = time.perf_counter()
    drawn = draw(
        k,
        layouts,
        seed,
        beta=beta,
        oversample=oversample,
        exact_limit=exact_limit,
        play_weight=play_weight,
    )
    left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - t0))
    call = k.own_call if objective_call else None
    partial = None
    if on_update is not None:
        results: dict[int, dict[int, int]] = {}

        def partial(i: int, values: dict[int, int]) -> None:
            results[i] = values
            ordered = sorted(results.items())
            index, rows = tuple(j for j, _ in ordered), tuple(v for _, v in ordered)
            on_update(_judgement(drawn, Solved(index, rows, False, 0.0), k, call, exact=False))

        on_update(Judgement(drawn, Solved((), (), False, 0.0), np.zeros(0), None))
    solved = solve_layouts(
        k,
        drawn.rows,
        time_limit=left,
        window=window,
        n_jobs=n_jobs,
        keep_first=keep_first,
        progress=progress,
        on_result=partial,
        stop=stop,
    )
    return _judgement(drawn, solved, k, call, exact=drawn.exact and not solved.stopped)


def _judgement(
    drawn: Layouts, solved: Solved, k: Knowledge, call: int | None, *, exact: bool
) -> Judgement:
    """The judgement over the layouts ``solved`` of ``drawn``."""
    weights = drawn.weights[list(solved.index)]
    outcomes = None
    if len(solved):
        outcomes = card_outcomes(
            solved.values, weights, k.rules, call, k.won, exact,
            left=int(k.hand).bit_count(), hand=k.hand | k.played_by[k.seat], seat=k.seat,
        )  # fmt: skip
    return Judgement(drawn, solved, weights, outcomes)
