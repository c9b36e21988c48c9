"""Single-dummy advice: what a seat should play knowing only what it can see.

A double-dummy value judges a card as if every hand were visible: it blames a player for missing
a card only someone who saw all hands would find, and praises "magic" plays. The fair judgement
is the one a player at the table could make: given its hand, the calls and the cards played,
which card has the best expected score, how much each other card costs, and how often each
makes the call.

``single_dummy_values(position, seat, calls)`` answers it for the seat to move in a deal whose
hands are all known (a review, a line); ``advise(hand, plays, rules, calls)`` answers it at the
table, from the mover's own cards and the cards played alone. Both use the ``strong`` player's
evaluation (``arena.strong``):

* the hidden cards are dealt in every way consistent with what the seat saw under the preset's
  rules (``arena.pimc.Knowledge``: voids, "no card above" from must-beat, the void rule's spade
  limits, the first-trick spade ban), weighted by the likelihood of the other seats' calls
  (``arena.sampling``); when the consistent layouts are few (``exact_limit``), every one of
  them is taken with its weight, and the answer is exact;
* on each layout the solver gives every legal card's value for the seat (the tricks it can
  still guarantee after the card, ``solver.card_values``); the seat's deal total is the tricks
  won so far plus that value, scored against its call with the preset's scoring;
* each card's expected score, expected tricks and probability of making the call are the
  weighted means over the layouts, with standard errors from the weights' effective sample size
  (zero when exact). ``cost`` of a card: the best card's expected score minus its own, with a
  paired standard error (both are measured on the same layouts).

The values on a layout are a floor (the other three play together against the seat), as in the
``strong`` player; the seed fixes the layouts, so an answer is reproducible.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from callbreak_lab.arena.pimc import Knowledge, layout_values
from callbreak_lab.arena.sampling import BETA, call_log_likelihood
from callbreak_lab.arena.strong import draw_layouts, layout_outcomes
from callbreak_lab.cards import Card, CardLike, Hand, check_seat, play_order_key
from callbreak_lab.errors import IllegalPlayError, RecordError, SolverInputError, UsageError
from callbreak_lab.game import Position, parse_record, record_seats
from callbreak_lab.rules import Ruleset, trick_winner

__all__ = [
    "EXACT_LIMIT",
    "CardOutcome",
    "SingleDummy",
    "advise",
    "consistent_layouts",
    "knowledge_of",
    "replay_seen",
    "seat_knowledge",
    "single_dummy_values",
    "values_from_knowledge",
]

#: consistent layouts at most for which ``single_dummy_values`` takes every one (exact answer)
EXACT_LIMIT = 256

Progress = Callable[[int, int], None]


def weighted_mean_se(values: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """Weighted mean of ``values`` and its standard error (from the weights' effective sample
    size; 0 with one effective layout)."""
    w = weights / weights.sum()
    mean = float(w @ values)
    var = float(w @ (values - mean) ** 2)
    n_eff = 1.0 / float(np.sum(w * w))
    return mean, (math.sqrt(var / (n_eff - 1)) if n_eff > 1 + 1e-9 else 0.0)


@dataclass(frozen=True)
class CardOutcome:
    """One card over the layouts: expected deal total of tricks, expected score in points and
    probability of making the call (None without the seat's call), with standard errors (0 when
    every consistent layout was taken)."""

    tricks: float
    tricks_se: float
    expected: float | None
    expected_se: float | None
    make: float | None

    def to_dict(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "expected": r(self.expected),
            "se": r(self.expected_se),
            "tricks": r(self.tricks),
            "tricks_se": r(self.tricks_se),
            "make": r(self.make),
        }


@dataclass(frozen=True)
class SingleDummy:
    """Single-dummy values of the legal cards of ``seat``, the seat to move in ``position``
    (None when the other hands were never known, e.g. a bot's request).

    ``outcomes``: {card: CardOutcome}. ``layouts``: layouts the values are over (draws, repeats
    included; every consistent one when ``exact``), ``distinct``: different layouts solved,
    ``ess``: the effective sample size of their weights. Without the seat's call (``calls`` None)
    the cards are judged by expected tricks (``unit`` "tricks"), else by expected score
    ("points"). ``weights`` and ``samples`` (each card's objective on each layout) give the
    paired standard error of a card's ``cost``."""

    position: Position | None = field(repr=False)
    seat: int
    calls: tuple[int, ...] | None
    outcomes: dict[Card, CardOutcome]
    layouts: int
    distinct: int
    exact: bool
    ess: float
    elapsed_ms: float = field(compare=False)
    weights: np.ndarray = field(repr=False, compare=False)
    samples: dict[Card, np.ndarray] = field(repr=False, compare=False)
    #: the time limit stopped it before every layout was solved
    stopped_early: bool = False

    @property
    def unit(self) -> str:
        """``"points"`` when judged by expected score, ``"tricks"`` without the seat's call."""
        return "tricks" if next(iter(self.outcomes.values())).expected is None else "points"

    def _key(self, card: Card) -> tuple[float, float]:
        o = self.outcomes[card]
        return (o.tricks if o.expected is None else o.expected, o.tricks)

    @property
    def best(self) -> Card:
        """The card with the best expected score, then the most expected tricks, then the lowest
        card (``cards.play_order_key``)."""
        return self.ranked()[0]

    def ranked(self) -> list[Card]:
        """The legal cards, best first (ties: the more expected tricks, then the lower card)."""

        def key(c: Card) -> tuple[float, float, int]:
            a, b = self._key(c)
            return (-round(a, 9), -round(b, 9), play_order_key(c))

        return sorted(self.outcomes, key=key)

    def _card(self, card: Card | str | int) -> Card:
        c = Card.parse(card)
        if c not in self.outcomes:
            legal = " ".join(str(x) for x in sorted(self.outcomes, key=play_order_key))
            raise SolverInputError(f"{c} is not a legal card of seat {self.seat} (legal: {legal})")
        return c

    def value(self, card: Card | str | int) -> float:
        """The card's expected score in points (expected tricks when ``unit`` is tricks)."""
        return self._key(self._card(card))[0]

    def cost(self, card: Card | str | int) -> float:
        """What the card gives up against the best card (``unit``), never negative."""
        return max(0.0, self.value(self.best) - self.value(card))

    def cost_se(self, card: Card | str | int) -> float:
        """Standard error of ``cost``, paired: both cards are measured on the same layouts."""
        c, b = self._card(card), self.best
        if c == b or self.exact:
            return 0.0
        return weighted_mean_se(self.samples[b] - self.samples[c], self.weights)[1]

    def to_dict(self) -> dict[str, Any]:
        """``{"seat", "calls", "unit", "best", "layouts", "distinct", "exact", "ess",
        "cards": [{"card", "expected", "se", "tricks", "tricks_se", "make", "cost",
        "cost_se"}]}``, cards best first."""
        return {
            "seat": self.seat,
            "calls": list(self.calls) if self.calls else None,
            "unit": self.unit,
            "best": str(self.best),
            "layouts": self.layouts,
            "distinct": self.distinct,
            "exact": self.exact,
            "stopped_early": self.stopped_early,
            "ess": round(self.ess, 1),
            "cards": [
                {
                    "card": str(c),
                    **self.outcomes[c].to_dict(),
                    "cost": round(self.cost(c), 4),
                    "cost_se": round(self.cost_se(c), 4),
                }
                for c in self.ranked()
            ],
        }

    def text(self) -> str:
        """One line per legal card, best first."""
        how = "every consistent layout" if self.exact else f"{self.layouts} layouts"
        if self.stopped_early:
            how += " (the time limit stopped it)"
        lines = [f"seat {self.seat}, single-dummy over {how} ({self.unit}):"]
        for c in self.ranked():
            o = self.outcomes[c]
            row = f"  {c!s:>3}  tricks {o.tricks:5.2f}"
            if o.expected is not None and o.make is not None:
                row += f"  score {o.expected:+6.2f} ± {o.expected_se or 0:.2f}  makes {o.make:4.0%}"
            row += "  best" if c == self.best else f"  costs {self.cost(c):.2f}"
            lines.append(row)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


def knowledge_of(position: Position, seat: int) -> Knowledge:
    """What ``seat`` knows in ``position``: its hand and every card played (and what the plays
    showed about the other hands)."""
    hand = int(position.hand_masks()[seat])
    return Knowledge.from_history(position.rules, seat, hand, position.history)


def replay_seen(
    k: Knowledge, record: Sequence[Card]
) -> Iterator[tuple[int, int, Card | None, int]]:
    """Replay a play record from the deal's start into ``k``, the knowledge of ``k.seat``
    holding the 13 cards it was dealt. Yields ``(index, seat, card, won)`` before each card is
    added (``won``: tricks ``k.seat`` has won so far) and last ``(len(record), seat to play,
    None, won)``. A card of ``k.seat`` that was not legal for it then is an
    ``IllegalPlayError``, and so is another seat's card that the earlier plays showed it could
    not hold (e.g. a heart after it showed out of hearts)."""
    seats = record_seats(record)
    won = 0
    for i, card in enumerate(record):
        mover = seats[i]
        where = f"card {i + 1} ({card}, trick {i // 4 + 1})"
        if mover == k.seat:
            if not (k.legal_mask() >> card) & 1:
                raise IllegalPlayError(f"{where}: seat {mover} cannot play it")
        elif (k.excluded[mover] >> card) & 1:
            raise IllegalPlayError(
                f"{where}: seat {mover} cannot hold it after the cards it played before"
            )
        yield i, mover, card, won
        if mover == k.seat:
            k.hand &= ~(1 << card)
        k.add(mover, card)
        if i % 4 == 3:
            won += int(seats[i - 3 + trick_winner(record[i - 3 : i + 1])] == k.seat)
    yield len(record), seats[-1], None, won


def seat_knowledge(
    hand: Hand | str | Iterable[CardLike], plays: str | Sequence[CardLike], rules: Ruleset
) -> tuple[Knowledge, int]:
    """The knowledge of the seat to play after ``plays`` (a play record from the deal's start)
    holding ``hand`` (the cards it holds now, or the 13 it was dealt), and the tricks it has
    won: what a bot or a player at the table knows. Every inconsistency between the two is an
    error naming the card: a ``RecordError`` or ``IllegalPlayError`` for the plays, a
    ``NotationError`` for the hand's text, a ``SolverInputError`` for a hand that does not fit
    the plays."""
    record = parse_record(plays) if isinstance(plays, str) else [Card.parse(c) for c in plays]
    seen: dict[Card, int] = {}
    for i, c in enumerate(record):
        if c in seen:
            raise RecordError(f"{c} is played twice (cards {seen[c] + 1} and {i + 1})")
        seen[c] = i
    if len(record) >= 52:
        raise SolverInputError("the deal is over: no card is left to judge")
    h = hand if isinstance(hand, Hand) else Hand.parse(hand)
    seats = record_seats(record)
    seat = seats[-1]
    own = 0
    for i, c in enumerate(record):
        if seats[i] == seat:
            own |= 1 << c
        elif (h.mask >> c) & 1:
            raise SolverInputError(
                f"{c} is in the hand of seat {seat} (to play), but seat {seats[i]} played it "
                f"(card {i + 1})"
            )
    n_own = own.bit_count()
    if len(h) == 13 and own & ~h.mask == 0:
        dealt = h.mask
    elif h.mask & own == 0 and len(h) + n_own == 13:
        dealt = h.mask | own
    elif n_own == 0:
        raise SolverInputError(f"seat {seat} is to play with 13 cards; the hand has {len(h)} ({h})")
    else:
        mine = " ".join(str(Card(c)) for c in range(52) if (own >> c) & 1)
        raise SolverInputError(
            f"seat {seat} is to play and has played {n_own} cards ({mine}): give the "
            f"{13 - n_own} cards it holds or the 13 it was dealt; the hand has {len(h)} ({h})"
        )
    k = Knowledge(rules, seat, dealt)
    *_, (_, _, _, won) = replay_seen(k, record)  # the last item: the state after every card
    return k, won


def advise(
    hand: Hand | str | Iterable[CardLike],
    plays: str | Sequence[CardLike] = "",
    rules: Ruleset | str | None = None,
    calls: Iterable[int] | str | None = None,
    n: int = 32,
    seed: int = 0,
    *,
    beta: float = BETA,
    exact_limit: int = EXACT_LIMIT,
    threads: int | None = None,
    time_limit: float | None = None,
    progress: Progress | None = None,
) -> SingleDummy:
    """At the table: which card to play, knowing only your own cards. ``plays``: the cards
    played so far from the deal's start (a play record; seat 0 led the first trick, each
    trick's winner the next, so the seat to play follows from the cards); ``hand``: that seat's
    cards, those it still holds or the 13 it was dealt; ``rules``: default modern. The rest as
    ``single_dummy_values``, whose answer this is for a deal no one has seen in full
    (``position`` None)."""
    from callbreak_lab.lines import parse_calls

    r = Ruleset.coerce(rules, default="modern")
    k, won = seat_knowledge(hand, plays, r)
    c = parse_calls(calls, r)
    return values_from_knowledge(
        k, won, c, n, seed, beta=beta, exact_limit=exact_limit, threads=threads,
        time_limit=time_limit, progress=progress,
    )  # fmt: skip


def consistent_layouts(k: Knowledge, limit: int) -> np.ndarray | None:
    """Every layout of the hidden cards consistent with ``k`` (rows of the four hand masks as
    dealt, like ``pimc.deal_layouts``), or None when there are more than ``limit``."""
    seat = k.seat
    seen = k.hand
    for m in k.played_by:
        seen |= m
    unseen = [c for c in range(52) if not (seen >> c) & 1]
    others = [s for s in range(4) if s != seat]
    need = {s: 13 - k.played_by[s].bit_count() for s in others}
    if sum(need.values()) != len(unseen):
        raise SolverInputError("the cards seen and the hand sizes do not add up to a deal")
    banned = {s: k.banned(s) for s in others}
    rows: list[list[int]] = []
    hands = {s: k.played_by[s] for s in others}

    def place(i: int) -> None:
        if len(rows) > limit:
            return
        if i == len(unseen):
            row = [0, 0, 0, 0]
            row[seat] = k.hand | k.played_by[seat]
            for s in others:
                row[s] = hands[s]
            rows.append(row)
            return
        card = unseen[i]
        for s in others:
            if need[s] and not (banned[s] >> card) & 1:
                need[s] -= 1
                hands[s] |= 1 << card
                place(i + 1)
                hands[s] &= ~(1 << card)
                need[s] += 1

    place(0)
    if len(rows) > limit:
        return None
    return np.array(rows, dtype=np.uint64).reshape(-1, 4)


_POOLS: dict[int, ThreadPoolExecutor] = {}
#: the helper gates of each pool's engines (``Engine.helper_gate``)
_GATES: dict[int, list[threading.Event]] = {}


def _pool(threads: int) -> ThreadPoolExecutor:
    """A lasting pool of ``threads`` solver threads, each with its own engine (kept between
    calls: an engine's table, about 90 MB, is reused, not reallocated). Each engine's helper
    thread is gated (``Engine.helper_gate``): shut while every pool thread has a layout, so
    each engine searches alone; opened by ``_solve`` once no layout is left to start, so the
    layouts still running take the idle cores. Worker processes (the service's, a batch's) get
    ``threads`` 1 by default and never start one."""
    pool = _POOLS.get(threads)
    if pool is None:
        from callbreak_lab.solver.api import engine

        gates = _GATES[threads] = []

        def init() -> None:
            eng = engine(threads=2)
            eng.helper_gate = threading.Event()
            gates.append(eng.helper_gate)

        pool = _POOLS[threads] = ThreadPoolExecutor(
            max_workers=threads, thread_name_prefix="advice", initializer=init
        )
    return pool


def _open_gates(threads: int, on: bool) -> None:
    """Let the helper threads of pool ``threads``' engines work (``on``) or not."""
    for gate in _GATES.get(threads, []):
        if on:
            gate.set()
        else:
            gate.clear()


def _solve(
    k: Knowledge,
    rows: np.ndarray,
    threads: int,
    progress: Progress | None,
    deadline: float | None = None,
) -> tuple[list[tuple[int, dict[int, int]]], bool]:
    """``pimc.layout_values`` of the rows, in row order, and whether the ``deadline``
    (``time.perf_counter()`` seconds) stopped it early: no layout is started after it (the first
    ``threads`` always are), and one still running then is stopped and left out, except the
    first row's, which always finishes (so there is an answer). A row the record cannot replay
    on is left out. ``threads`` 1: one layout at a time on this thread's engine (which brings a
    helper thread for long searches); more: layouts side by side on a pool of threads, one
    engine each (the kernels release the GIL), which uses two cores better than one search and
    its helper; once no layout is left to start, the engines' helpers join the layouts still
    running (``_pool``) (benchmarks/RESULTS.md, "Single-dummy advice")."""
    total = len(rows)
    results: dict[int, dict[int, int]] = {}
    done = 0

    def late() -> bool:
        return deadline is not None and time.perf_counter() > deadline

    def solve_row(i: int) -> tuple[dict[int, int] | None, bool]:
        """Row ``i``'s values (None: left out) and whether the deadline stopped it."""
        if deadline is None or i == 0:
            got, _ = layout_values(k, rows[i : i + 1], None)
            return (got[0][1] if got else None), False
        got, _ = layout_values(k, rows[i : i + 1], max(0.0, deadline - time.perf_counter()))
        return (got[0][1] if got else None), not got and late()

    if threads <= 1 or total < 2:
        for i in range(total):
            if i and late():
                return sorted(results.items()), True
            values, cut = solve_row(i)
            if cut:
                return sorted(results.items()), True
            if values is not None:
                results[i] = values
            done += 1
            if progress is not None:
                progress(done, total)
        return sorted(results.items()), False
    pool = _pool(threads)
    pending: dict[Future[Any], int] = {}
    queue = iter(range(total))
    _open_gates(threads, False)
    for i in itertools.islice(queue, threads):  # at most ``threads`` layouts in flight
        pending[pool.submit(solve_row, i)] = i
    stopped = False
    try:
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                i = pending.pop(fut)
                values, cut = fut.result()
                stopped = stopped or cut
                if values is not None:
                    results[i] = values
                done += 1
                if progress is not None:
                    progress(done, total)
                nxt = next(queue, None)
                if nxt is None or late():
                    stopped = stopped or nxt is not None
                    _open_gates(threads, True)  # a core is idle: the running layouts share it
                    continue
                pending[pool.submit(solve_row, nxt)] = nxt
    finally:
        _open_gates(threads, False)
    return sorted(results.items()), stopped


def _check_int(name: str, x: object, low: int) -> int:
    if isinstance(x, bool) or not isinstance(x, int | np.integer) or x < low:
        raise UsageError(f"{name} must be an int >= {low}, got {x!r}")
    return int(x)


def single_dummy_values(
    position: Position,
    seat: int,
    calls: Iterable[int] | str | None = None,
    n: int = 32,
    seed: int = 0,
    *,
    beta: float = BETA,
    exact_limit: int = EXACT_LIMIT,
    threads: int | None = None,
    time_limit: float | None = None,
    progress: Progress | None = None,
) -> SingleDummy:
    """Every legal card's single-dummy value for ``seat``, the seat to move in ``position``:
    expected score (points), expected tricks and probability of making its call over ``n``
    layouts drawn by the calls' likelihood, or over every consistent layout with its weight
    when at most ``exact_limit`` are consistent (see the module docstring). ``calls``: the four
    calls (the other seats' weigh the layouts, the seat's own is scored; None: uniform layouts,
    judged by tricks). ``threads``: layouts solved side by side (default
    ``solver.default_threads()``: two on a machine with two cores). ``time_limit``: seconds
    after which no further layout is started and those still being solved are stopped, except
    the first, which always finishes (the answer then covers the layouts solved, the likeliest
    first, and says ``stopped_early``; it is no longer reproducible). ``progress(done,
    total)`` is called after each layout."""
    from callbreak_lab.lines import parse_calls

    if not isinstance(position, Position):
        raise UsageError(
            "single_dummy_values takes a Position (e.g. Position.replay(deal, plays, rules)), "
            f"got {type(position).__name__}"
        )
    seat = check_seat(seat)
    if position.is_over:
        raise SolverInputError("the deal is over: no card is left to judge")
    if seat != position.to_move:
        raise SolverInputError(f"seat {seat} is not to move (seat {position.to_move} is)")
    c = parse_calls(calls, position.rules)
    sd = values_from_knowledge(
        knowledge_of(position, seat), position.tricks_won[seat], c, n, seed,
        beta=beta, exact_limit=exact_limit, threads=threads, time_limit=time_limit,
        progress=progress,
    )  # fmt: skip
    return replace(sd, position=position.copy())


def values_from_knowledge(
    k: Knowledge,
    won: int,
    calls: Sequence[int] | None,
    n: int = 32,
    seed: int = 0,
    *,
    beta: float = BETA,
    exact_limit: int = EXACT_LIMIT,
    threads: int | None = None,
    time_limit: float | None = None,
    progress: Progress | None = None,
) -> SingleDummy:
    """``single_dummy_values`` from what the seat knows (``k``, to move; ``won`` tricks won;
    ``calls`` the four calls, checked, or None), for a table whose other hands are not known
    (a bot's request). ``position`` of the answer is None."""
    t0 = time.perf_counter()
    n = _check_int("n", n, 1)
    exact_limit = _check_int("exact_limit", exact_limit, 0)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise UsageError(f"seed must be an int, got {seed!r}")
    if not (isinstance(beta, int | float) and not isinstance(beta, bool) and beta >= 0):
        raise UsageError(f"beta must be a number >= 0, got {beta!r}")
    if threads is None:
        from callbreak_lab.solver import default_threads

        threads = default_threads()
    if isinstance(threads, bool) or threads not in (1, 2, 3, 4):
        raise UsageError(f"threads must be 1..4, got {threads!r}")
    seat, r = k.seat, k.rules
    known: list[int | None] = list(calls) if calls else [None, None, None, None]
    every = consistent_layouts(k, exact_limit) if exact_limit else None
    if every is not None and len(every):
        others = [s for s in range(4) if s != seat and known[s] is not None]
        made = [int(x) for x in (known[s] for s in others) if x is not None]
        loglik = call_log_likelihood(every, others, made, r, float(beta))
        rows, weights, exact = every, np.exp(loglik - loglik.max()), True
        enumerated = True
    else:
        drawn = draw_layouts(k, known, n, int(seed), float(beta))
        rows, weights, exact = drawn.rows, drawn.counts.astype(np.float64), False
        enumerated = False
    if len(rows) == 0:
        raise SolverInputError("no layout of the hidden cards fits what the table showed")
    if time_limit is not None and not (
        isinstance(time_limit, int | float) and not isinstance(time_limit, bool) and time_limit > 0
    ):
        raise UsageError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    deadline = None if time_limit is None else t0 + float(time_limit)
    solved, stopped = _solve(k, rows, threads, progress, deadline)
    exact = exact and not stopped
    if not solved:
        raise SolverInputError("no layout of the hidden cards replays the cards played")
    w = np.array([weights[i] for i, _ in solved], dtype=np.float64)
    own = known[seat]
    per_card = layout_outcomes([v for _, v in solved], r, own, won)
    outcomes: dict[Card, CardOutcome] = {}
    samples: dict[Card, np.ndarray] = {}
    wn = w / w.sum()
    for x, (tricks, scores) in per_card.items():
        t_mean, t_se = weighted_mean_se(tricks.astype(np.float64), w)
        if scores is None or own is None:
            outcomes[Card(x)] = CardOutcome(t_mean, 0.0 if exact else t_se, None, None, None)
            samples[Card(x)] = tricks.astype(np.float64)
            continue
        s_mean, s_se = weighted_mean_se(scores, w)
        make = min(1.0, float(wn @ (tricks >= own)))  # the weights sum to 1 up to rounding
        outcomes[Card(x)] = CardOutcome(
            t_mean, 0.0 if exact else t_se, s_mean, 0.0 if exact else s_se, make
        )
        samples[Card(x)] = scores
    return SingleDummy(
        None, seat, None if calls is None else tuple(calls), outcomes,
        len(solved) if enumerated else round(float(w.sum())), len(solved), exact,
        float(1.0 / np.sum(wn * wn)), (time.perf_counter() - t0) * 1000, wn, samples, stopped,
    )  # fmt: skip
