"""A time limit stops a running search (``solver.time_limit``) and leaves the engine exact."""

from __future__ import annotations

import time

import numpy as np
import pytest

from callbreak_lab import solver
from callbreak_lab.arena.pimc import Knowledge, layout_values
from callbreak_lab.cards import Deal
from callbreak_lab.errors import CallbreakLabError, UsageError
from callbreak_lab.rules import Ruleset
from callbreak_lab.solver import SearchTimeout, api
from callbreak_lab.solver._engine import Engine

# a full deal whose first-lead card values take tens of milliseconds or more on any engine
LONG = Deal.random(3)


def _root() -> api.Root:
    return api.make_root(LONG, "online")


@pytest.fixture(scope="module")
def expected() -> dict[int, int]:
    return api.values_of(_root(), 0, Engine(threads=1))


@pytest.mark.parametrize("threads", [1, 2])
def test_a_time_limit_stops_a_long_search_and_the_engine_stays_exact(
    threads: int, expected: dict[int, int]
) -> None:
    eng = Engine(threads=threads)  # two: the pool of children and the helper thread
    with pytest.raises(SearchTimeout), solver.time_limit(0.001, eng):
        api.values_of(_root(), 0, eng)
    with solver.time_limit(0.0, eng):  # every search started after the time is up stops too
        time.sleep(0.05)
        with pytest.raises(SearchTimeout):
            api.value_of(_root(), 0, eng)
        with pytest.raises(SearchTimeout):
            eng.at_least(_root(), 0, 1)
    # after the block the engine searches again, and what its table kept is sound
    assert api.values_of(_root(), 0, eng) == expected
    with solver.time_limit(600, eng):
        assert api.values_of(_root(), 0, eng) == expected


def test_the_public_time_limit_is_the_threads_engine(expected: dict[int, int]) -> None:
    with pytest.raises(TimeoutError), solver.time_limit(0.001):  # SearchTimeout is one
        solver.card_values(LONG, 0, "online")
    got = solver.card_values(LONG, 0, "online")
    assert {int(c): v for c, v in got.items()} == expected
    assert not issubclass(SearchTimeout, CallbreakLabError)  # not bad input
    for bad in ("1", None, True):
        with pytest.raises(UsageError, match="seconds"), solver.time_limit(bad):  # type: ignore[arg-type]
            pass


def test_a_players_budget_stops_the_layout_it_is_solving() -> None:
    """``pimc.layout_values`` leaves out the layout the budget ended in: four full-deal
    layouts cannot all be solved in 5 ms, and any that were are exact."""
    api.engine().clear()  # nothing of this deal in the thread's table
    k = Knowledge.from_history(Ruleset.preset("online"), 0, LONG.hands[0].mask, [])
    rows = np.array([[h.mask for h in LONG.hands]] * 4, dtype=np.uint64)
    out, worst = layout_values(k, rows, 0.005)
    assert len(out) < 4 and worst > 0
    for _, values in out:
        assert values == api.values_of(_root(), 0, Engine(threads=1))


def test_a_per_layout_limit_leaves_a_slow_layout_and_goes_on() -> None:
    """``per_layout`` stops one layout and goes on to the next, whose values are exact: the
    first lead of ``Deal.random(1416)`` takes seconds on any engine (2.7 s on two threads),
    the same hand of seat 0 with the other cards in blocks by suit a few milliseconds."""
    slow = Deal.random(1416)
    fast = Deal.parse("A6532.KQ8.K6.T64 .65432.AQJT9875. ..432.AKQJ987532 KQJT9874.AJT97..")
    assert fast.hands[0] == slow.hands[0]
    api.engine().clear()
    k = Knowledge.from_history(Ruleset.preset("online"), 0, slow.hands[0].mask, [])
    rows = np.array([[h.mask for h in d.hands] for d in (slow, fast)], dtype=np.uint64)
    out, worst = layout_values(k, rows, None, per_layout=0.1)
    assert [i for i, _ in out] == [1] and 0.1 <= worst < 1.0
    assert out[0][1] == api.values_of(api.make_root(fast, "online"), 0, Engine(threads=1))
