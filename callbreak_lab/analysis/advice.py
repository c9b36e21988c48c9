"""Single-dummy advice: what a seat should play knowing only what it can see.

A double-dummy value judges a card as if every hand were visible: it blames a player for missing
a card only someone who saw all hands would find, and praises "magic" plays. The fair judgement
is the one a player at the table could make: given its hand, the calls and the cards played,
which card has the best expected score, how much each other card costs, and how often each
makes the call.

``single_dummy_values(position, seat, calls)`` answers it for the seat to move in a deal whose
hands are all known (a review, a line); ``advise(hand, plays, rules, calls)`` answers it at the
table, from the mover's own cards and the cards played alone. Both judge as the ``strong``
player does, with the seat layer's parts (``callbreak_lab.seat``):

* the hidden cards are dealt in every way consistent with what the seat saw under the preset's
  rules (``seat.knowledge.Knowledge``: voids, "no card above" from must-beat, the void rule's
  spade limits, the first-trick spade ban), weighted by the likelihood of the other seats'
  calls (``seat.layouts.draw``); when the consistent layouts are few (``exact_limit``), every
  one of them is taken with its weight, and the answer is exact;
* on each layout the solver gives every legal card's value for the seat (the tricks it can
  still guarantee after the card, ``solver.card_values``); the seat's deal total is the tricks
  won so far plus that value, scored against its call with the preset's scoring;
* each value is a floor (the other three play together against the seat, as the ``strong``
  player judges); the numbers shown spread it by the play-out scale (``seat.scale``) into the
  tricks the seat can expect when every seat plays for itself, the call advisor's measure;
* each card's expected score, expected tricks and probability of making the call are the
  weighted means over the layouts, with standard errors from the weights' effective sample size
  (zero when exact; ``seat.outcomes``), on that scale, with the floor's figures beside them
  (``floor_*``). ``cost`` of a card: the best card's expected score minus its own, with a
  paired standard error (both are measured on the same layouts).

The seed fixes the layouts, so an answer is reproducible.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict, Unpack

import numpy as np

from callbreak_lab.cards import Card, CardLike, Hand, check_seat, play_order_key
from callbreak_lab.errors import SolverInputError, UsageError, check_int, check_time_limit
from callbreak_lab.game import Position, parse_calls
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.seat.layouts import BETA, NO_LAYOUT
from callbreak_lab.seat.outcomes import CardOutcome, Judgement, judge, threads_of
from callbreak_lab.seat.policy import learned_card
from callbreak_lab.util.progress import Progress
from callbreak_lab.util.shown import Shown
from callbreak_lab.util.stats import mean_se

__all__ = [
    "EXACT_LIMIT",
    "AdviceUpdate",
    "CardOutcome",
    "DeepenOptions",
    "SingleDummy",
    "SingleDummyOptions",
    "advise",
    "deepen",
    "iter_advice",
    "single_dummy_values",
    "values_from_knowledge",
]

#: consistent layouts at most for which ``single_dummy_values`` takes every one (exact answer)
EXACT_LIMIT = 256


@dataclass(frozen=True)
class SingleDummy(Shown):
    """Single-dummy values of the legal cards of ``seat``, the seat to move in ``position``
    (None when the other hands were never known, e.g. a bot's request).

    ``outcomes``: {card: CardOutcome}, on the play-out scale with the floor beside it.
    ``layouts``: layouts the values are over (draws, repeats included; every consistent one when
    ``exact``), ``distinct``: different layouts solved, ``ess``: the effective sample size of
    their weights. Without the seat's call (``calls`` None) the cards are judged by expected
    tricks (``unit`` "tricks"), else by expected score ("points"). ``weights`` and ``samples``
    (each card's objective on each layout, on the play-out scale) give the paired standard
    error of a card's ``cost``."""

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

    def _key(self, card: Card) -> tuple[float, float, float]:
        o = self.outcomes[card]
        floor = o.floor_tricks if o.floor_expected is None else o.floor_expected
        return (o.tricks if o.expected is None else o.expected, o.tricks, floor)

    @property
    def best(self) -> Card:
        """The card with the best expected score, then the most expected tricks, then the best
        floor, then the lowest card (``cards.play_order_key``)."""
        return self.ranked()[0]

    def ranked(self) -> list[Card]:
        """The legal cards, best first (ties: the more expected tricks, the better floor, then
        the lower card)."""

        def key(c: Card) -> tuple[float, float, float, int]:
            a, b, f = self._key(c)
            return (-round(a, 9), -round(b, 9), -round(f, 9), play_order_key(c))

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
        return mean_se(self.samples[b] - self.samples[c], self.weights, single=0.0)[1]

    def to_dict(self) -> dict[str, Any]:
        """``{"seat", "calls", "unit", "best", "layouts", "distinct", "exact", "ess",
        "scale", "cards": [{"card", "expected", "se", "tricks", "tricks_se", "make",
        "floor_expected", "floor_tricks", "floor_make", "cost", "cost_se"}]}``, cards best
        first; ``scale`` names the measure of the numbers ("playout"; the floor's are
        ``floor_*``)."""
        return {
            "seat": self.seat,
            "calls": list(self.calls) if self.calls else None,
            "unit": self.unit,
            "scale": "playout",
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
        """One line per legal card, best first: the play-out scale's tricks, score and make
        chance (the floor's figures are in ``to_dict``)."""
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


class SingleDummyOptions(TypedDict, total=False):
    """The keyword-only options of ``advise`` and ``single_dummy_values``, passed on to
    ``values_from_knowledge`` (whose signature holds their defaults)."""

    layouts: int
    seed: int
    beta: float
    exact_limit: int
    n_jobs: int | None
    time_limit: float | None
    progress: Progress | None
    on_update: Callable[[AdviceUpdate], None] | None


class DeepenOptions(TypedDict, total=False):
    """The keyword-only options of ``iter_advice``, passed on to ``deepen``."""

    layouts: int
    seed: int
    beta: float
    exact_limit: int
    n_jobs: int | None
    time_limit: float | None
    progress: Progress | None
    keep_first: bool


def advise(
    hand: Hand | str | Iterable[CardLike],
    plays: str | Sequence[CardLike] = "",
    rules: Ruleset | str | None = None,
    calls: Iterable[int] | str | None = None,
    *,
    seat: int | None = None,
    **options: Unpack[SingleDummyOptions],
) -> SingleDummy:
    """At the table: which card to play, knowing only your own cards. ``plays``: the cards
    played so far from the deal's start (a play record; seat 0 led the first trick, each
    trick's winner the next, so the seat to play follows from the cards); ``hand``: that seat's
    cards, those it still holds or the 13 it was dealt (any other hand is refused, naming the
    seat to play); ``seat``: whose hand it is, when known: a seat that is not the one to play is
    a ``SeatError`` naming the seat to play; ``rules``: None for ``rules.DEFAULT_RULES``. The
    rest as ``single_dummy_values``, whose answer this is for a deal no one has seen in full
    (``position`` None). The errors are ``Knowledge.at_table``'s."""
    r = Ruleset.coerce(rules)
    k = Knowledge.at_table(hand, plays, r, calls, seat=seat)
    return values_from_knowledge(k, **options)


def single_dummy_values(
    position: Position,
    seat: int,
    calls: Iterable[int] | str | None = None,
    **options: Unpack[SingleDummyOptions],
) -> SingleDummy:
    """Every legal card's single-dummy value for ``seat``, the seat to move in ``position``:
    expected score (points), expected tricks and probability of making its call over
    ``layouts`` layouts drawn by the calls' likelihood, or over every consistent layout with its
    weight when at most ``exact_limit`` are consistent (see the module docstring). ``calls``:
    the four calls (the other seats' weigh the layouts, the seat's own is scored; None: uniform
    layouts, judged by tricks). ``n_jobs``: layouts solved side by side (None or 1: one at a
    time; -1, the default: ``solver.default_threads()``, two on a machine with two cores; up
    to 4). ``time_limit``: seconds after which no further layout is started and those still
    being solved are stopped, except the first, which always finishes (the answer then covers
    the layouts solved, the likeliest first, and says ``stopped_early``; it is no longer
    reproducible). ``progress(done, total)`` is called after each layout. The options'
    defaults (``values_from_knowledge``'s): 32 layouts, seed 0, ``beta`` ``BETA``,
    ``exact_limit`` ``EXACT_LIMIT``, ``n_jobs`` -1, no time limit, no progress."""
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
    sd = values_from_knowledge(Knowledge.of_position(position, seat, c), **options)
    return replace(sd, position=position.copy())


def values_from_knowledge(  # noqa: PLR0913  (the options and the update hook)
    k: Knowledge,
    *,
    layouts: int = 32,
    seed: int = 0,
    beta: float = BETA,
    exact_limit: int = EXACT_LIMIT,
    n_jobs: int | None = -1,
    time_limit: float | None = None,
    progress: Progress | None = None,
    on_update: Callable[[AdviceUpdate], None] | None = None,
) -> SingleDummy:
    """``single_dummy_values`` from what the seat knows (``k``, to move, with its calls and
    tricks won), for a table whose other hands are not known (a bot's request). ``position``
    of the answer is None. ``on_update``: each answer as it deepens (``deepen``); the first
    layout is solved whatever the time limit, so there is always a value."""
    final = deepen(
        k, layouts=layouts, seed=seed, beta=beta, exact_limit=exact_limit, n_jobs=n_jobs,
        time_limit=time_limit, progress=progress, on_update=on_update, keep_first=True,
    )  # fmt: skip
    if final.answer is None:  # the first layout is kept: only a record no layout replays
        raise SolverInputError("no layout of the hidden cards replays the cards played")
    return final.answer


# --- answers that come at once and deepen -----------------------------------------------------


@dataclass(frozen=True)
class AdviceUpdate(Shown):
    """One answer of a deepening advice (``deepen``, ``iter_advice``): ``answer``, the
    single-dummy values over the ``solved`` layouts solved so far, likeliest first when the
    time ends them (None before the first is solved: ``card`` is then the learned play
    policy's card, ``seat.policy.learned_card``, and no value is claimed); ``total``: the
    distinct layouts drawn; ``final``: no further answer follows (every layout solved, or the
    time limit or a stop ended the run: ``complete`` tells which)."""

    seat: int
    card: Card
    answer: SingleDummy | None
    solved: int
    total: int
    final: bool
    elapsed_ms: float = field(compare=False)

    @property
    def source(self) -> str:
        """``"layouts"`` (the card is the best over the layouts solved) or ``"learned"``."""
        return "learned" if self.answer is None else "layouts"

    @property
    def complete(self) -> bool:
        """The last answer, over every layout drawn (as without a time limit)."""
        return self.final and self.answer is not None and not self.answer.stopped_early

    def status(self) -> str:
        """A short line: how many layouts the answer covers and whether it is final."""
        head = f"{self.solved} of {self.total} distinct layouts"
        if self.answer is None:
            head = f"learned card · {head}"
        if not self.final:
            return head + "…"
        return head + (" · final" if self.complete else " · final (stopped before the rest)")

    def text(self) -> str:
        """The status line, then the values (or the learned card)."""
        if self.answer is None:
            return (
                f"{self.status()}\nseat {self.seat}: {self.card} (the learned play policy's "
                "card: no layout solved yet)"
            )
        return f"{self.status()}\n{self.answer.text()}"

    def to_dict(self) -> dict[str, Any]:
        """``{"seat", "best", "source", "solved", "total", "final", "complete",
        "elapsed_ms", "advice"}``: ``advice`` is ``SingleDummy.to_dict()``, None with the
        learned card."""
        return {
            "seat": self.seat,
            "best": str(self.card),
            "source": self.source,
            "solved": self.solved,
            "total": self.total,
            "final": self.final,
            "complete": self.complete,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "advice": None if self.answer is None else self.answer.to_dict(),
        }


def deepen(  # noqa: PLR0913  (the advice's keyword-only options and its two hooks)
    k: Knowledge,
    *,
    layouts: int = 32,
    seed: int = 0,
    beta: float = BETA,
    exact_limit: int = EXACT_LIMIT,
    n_jobs: int | None = -1,
    time_limit: float | None = None,
    progress: Progress | None = None,
    on_update: Callable[[AdviceUpdate], None] | None = None,
    stop: threading.Event | None = None,
    keep_first: bool = False,
) -> AdviceUpdate:
    """The advice for ``k.seat`` (to move) that answers at once and deepens: ``on_update`` is
    called on this thread with an :class:`AdviceUpdate` as soon as the layouts are drawn (the
    learned card, none solved), after each layout solved (the values over those solved so far)
    and last with the final answer, which is also returned. Within ``time_limit`` the layouts in
    flight are stopped and the answer covers those solved (the likeliest first); none solved
    leaves the learned card (``keep_first``: the first layout is solved whatever the time, as
    ``values_from_knowledge`` does). Once ``stop`` (a ``threading.Event``) is set no further
    layout is started. The options as ``values_from_knowledge``; the errors too (no layout
    fits the table: ``SolverInputError``)."""
    t0 = time.perf_counter()
    n = check_int(layouts, "layouts", low=1)
    exact_limit = check_int(exact_limit, "exact_limit", low=0)
    check_int(seed, "seed")
    if not (isinstance(beta, int | float) and not isinstance(beta, bool) and beta >= 0):
        raise UsageError(f"beta must be a number >= 0, got {beta!r}")
    threads_of(n_jobs)  # checked before any work
    check_time_limit(time_limit)
    calls = None if any(c is None for c in k.calls) else tuple(int(c) for c in k.calls)  # type: ignore[arg-type]
    learned: list[Card] = []

    def instant() -> Card:
        """The learned play policy's card, found once (about a millisecond once loaded)."""
        if not learned:
            learned.append(learned_card(k))
        return learned[0]

    def update(found: Judgement, final: bool) -> AdviceUpdate:
        elapsed = (time.perf_counter() - t0) * 1000
        sd = None
        if found.outcomes is not None:
            sd = _single_dummy(k, calls, found, final, elapsed)
        card = instant() if sd is None else sd.best
        total = len(found.drawn.rows)
        return AdviceUpdate(k.seat, card, sd, len(found.solved), total, final, elapsed)

    def partial(found: Judgement) -> None:
        if on_update is not None:
            on_update(update(found, final=False))

    left = None if time_limit is None else max(0.0, float(time_limit) - (time.perf_counter() - t0))
    found = judge(
        k, n, int(seed), beta=float(beta), exact_limit=exact_limit, time_limit=left,
        n_jobs=n_jobs, keep_first=keep_first, progress=progress,
        on_update=None if on_update is None else partial, stop=stop,
    )  # fmt: skip
    if len(found.drawn) == 0:
        raise SolverInputError(NO_LAYOUT)
    last = update(found, final=True)
    if on_update is not None:
        on_update(last)
    return last


def _single_dummy(
    k: Knowledge, calls: tuple[int, ...] | None, found: Judgement, final: bool, elapsed: float
) -> SingleDummy:
    """The values over the layouts ``found`` has solved (``final``: all it will solve)."""
    out = found.outcomes
    assert out is not None
    w = found.weights.astype(np.float64)
    exact = found.exact and final
    return SingleDummy(
        None, k.seat, calls, out.cards,
        len(found.solved) if found.drawn.exact else round(float(w.sum())), len(found.solved),
        exact, float(1.0 / np.sum(out.weights * out.weights)),
        elapsed, out.weights, out.scaled, found.solved.stopped,
    )  # fmt: skip


def iter_advice(k: Knowledge, **options: Unpack[DeepenOptions]) -> Iterator[AdviceUpdate]:
    """``deepen``'s answers as a generator: the advice runs on a thread of its own and each
    answer is yielded as it comes, the first at once, the last ``final``; closing the generator
    early stops the advice (no further layout is started). The options as ``deepen``'s; its
    errors are raised here.

    ::

        for update in iter_advice(Knowledge.at_table(hand, plays, rules, calls)):
            print(update.status(), update.card)
    """
    answers: queue.SimpleQueue[AdviceUpdate | BaseException | None] = queue.SimpleQueue()
    stop = threading.Event()

    def run() -> None:
        try:
            deepen(k, on_update=answers.put, stop=stop, **options)
        except BaseException as exc:  # handed to the generator's caller
            answers.put(exc)
        answers.put(None)

    worker = threading.Thread(target=run, name="callbreak-advice", daemon=True)
    worker.start()
    try:
        while (got := answers.get()) is not None:
            if isinstance(got, BaseException):
                raise got
            yield got
    finally:
        stop.set()
        worker.join()
