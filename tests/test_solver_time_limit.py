"""A time limit stops a running search (``solver.time_limit``) and leaves the engine exact.

Every search these tests stop is slow by construction, not by a measurement on one machine:
first-lead card values of a full deal whose proof takes hundreds of thousands of nodes
(``LONG_NODES``) under a limit of milliseconds, or tens of millions (``SLOW_NODES``) under a
limit of tenths of a second. The node counts are exact (one thread, a fresh engine) and are
checked here; no engine searches anywhere near the tens of millions of nodes a second that
would be needed to finish in time.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from callbreak_lab import solver
from callbreak_lab.cards import Deal
from callbreak_lab.errors import CallbreakLabError, UsageError
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat import Knowledge, solve_layouts
from callbreak_lab.solver import SearchTimeout, api
from callbreak_lab.solver._engine import Engine

#: a full deal whose first-lead card values for seat 0 (online) take at least ``LONG_NODES``
#: nodes (checked by ``expected``)
LONG = Deal.random(3)
LONG_NODES = 400_000
#: seat 0's first-lead card values of ``Deal.random(1416)`` (online) take at least this many
#: nodes (``test_the_slow_layout_is_slow_by_its_node_count``)
SLOW_NODES = 10_000_000


def _root() -> api.Root:
    return api.make_root(LONG, "online")


def _nodes(deal: Deal) -> tuple[dict[int, int], int]:
    """Seat 0's first-lead card values (online) on one thread and a fresh engine, and the
    nodes they took (the same count on every run)."""
    eng = Engine(threads=1)
    values = api.values_of(api.make_root(deal, "online"), 0, eng)
    return values, eng.counters().nodes


@pytest.fixture(scope="module")
def expected() -> dict[int, int]:
    values, nodes = _nodes(LONG)
    assert nodes >= LONG_NODES, "LONG is no longer a long search: pick another deal"
    return values


@pytest.mark.parametrize("threads", [1, 2])
def test_a_time_limit_stops_a_long_search_and_the_engine_stays_exact(
    threads: int, expected: dict[int, int]
) -> None:
    eng = Engine(threads=threads)  # two: the pool of children and the helper thread
    with pytest.raises(SearchTimeout), solver.time_limit(0.001, eng):
        api.values_of(_root(), 0, eng)
    with solver.time_limit(0.0, eng):  # every search started after the time is up stops too
        while not eng.interrupted:  # the limit's timer thread has fired
            time.sleep(0.001)
        with pytest.raises(SearchTimeout):
            api.value_of(_root(), 0, eng)
        with pytest.raises(SearchTimeout):
            eng.at_least(_root(), 0, 1)
    # after the block the engine searches again, and what its table kept is sound
    assert api.values_of(_root(), 0, eng) == expected
    with solver.time_limit(600, eng):
        assert api.values_of(_root(), 0, eng) == expected


def test_the_public_time_limit_is_the_threads_engine(expected: dict[int, int]) -> None:
    api.engine().clear()  # nothing of this deal in the thread's table: the whole search
    with pytest.raises(TimeoutError), solver.time_limit(0.001):  # SearchTimeout is one
        solver.card_values(LONG, 0, "online")
    got = solver.card_values(LONG, 0, "online")
    assert {int(c): v for c, v in got.items()} == expected
    assert not issubclass(SearchTimeout, CallbreakLabError)  # not bad input
    for bad in ("1", None, True):
        with pytest.raises(UsageError, match="seconds"), solver.time_limit(bad):  # type: ignore[arg-type]
            pass


class _Clock:
    """A stand-in for ``seat.outcomes``' ``time``: a microsecond passes per reading, so its own
    deadline checks never find the budget spent before a layout starts, however busy the
    machine; the solver's time limit keeps its real clock (a timer thread)."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1e-6
        return self.now


def test_a_players_budget_stops_the_layout_it_is_solving(
    monkeypatch: pytest.MonkeyPatch, expected: dict[int, int]
) -> None:
    """``seat.solve_layouts`` leaves out the layout the budget ended in: the first full-deal
    layout (``Deal.random(1416)``, ``SLOW_NODES`` nodes or more) is still being solved when
    the 0.2 s budget ends, so no layout comes back; the thread's engine answers exactly
    afterwards."""
    from callbreak_lab.seat import outcomes

    slow = Deal.random(1416)
    api.engine().clear()  # nothing of this deal in the thread's table
    before = api.engine().counters().nodes
    k = Knowledge.from_history(Ruleset.preset("online"), 0, slow.hands[0].mask, [])
    rows = np.array([[h.mask for h in slow.hands]] * 4, dtype=np.uint64)
    monkeypatch.setattr(outcomes, "time", _Clock())
    out = solve_layouts(k, rows, time_limit=0.2)
    assert len(out) == 0 and out.stopped and out.slowest > 0
    assert api.engine().counters().nodes > before  # it searched the layout it left out
    got = solver.card_values(LONG, 0, "online")
    assert {int(c): v for c, v in got.items()} == expected


@pytest.mark.slow
def test_the_slow_layout_is_slow_by_its_node_count() -> None:
    """What ``test_a_players_budget_stops_the_layout_it_is_solving`` relies on: the slow
    layout's proof takes at least ``SLOW_NODES`` nodes (a full solve: seconds)."""
    assert _nodes(Deal.random(1416))[1] >= SLOW_NODES
