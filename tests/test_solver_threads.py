"""Solving from several threads at once gives the same values as solving in turn, with each
thread's engine running its helper thread beside it over the engine's one table."""

from __future__ import annotations

import logging
import random
import sys
import threading
from collections.abc import Callable

import pytest

from callbreak_lab import solver
from callbreak_lab.cards import Deal
from callbreak_lab.errors import UsageError
from callbreak_lab.game import Position
from callbreak_lab.solver import api
from callbreak_lab.solver._engine import Engine, _jit_enabled
from callbreak_lab.solver._stats import Counters
from callbreak_lab.solver.api import engine

THREADS = 4
ROUNDS = 3


def _positions(n: int, seed: int) -> list[Position]:
    """Mid-trick positions 7 or 8 tricks from the end (1..3 cards into a trick): big enough
    for the helper thread to join (``Engine.helper_min_left`` is set to 0 below, so any size
    would be offered; these take long enough that the helper finds them still running), small
    enough to solve many; their trick cards are handed to the engine before every search."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pos = Position(Deal.random(rng.randrange(1 << 30)), "modern")
        cards = 52 - 4 * rng.choice([7, 8]) + rng.choice([1, 2, 3])
        while len(pos.history) < cards:
            pos.play(rng.choice(list(pos.legal_cards())))
        out.append(pos)
    return out


def test_threads_solving_at_once_agree_with_one_thread(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Four threads, each with its own two-thread engine whose helper joins every search at
    once, solve the same positions (each seat, and each ``dd_table``, where the two threads
    share the four seats' searches): every value equals a one-thread engine's; no thread,
    helper threads included, raises or logs an error; each helper really searched, in searches
    it joined and in shared lists (its own counters)."""
    positions = _positions(40, seed=5)
    one = Engine(threads=1)
    expected = [tuple(api.value_of(api.make_root(p), s, one) for s in range(4)) for p in positions]
    wrong: list[tuple[int, str]] = []
    failures: list[BaseException] = []
    engines: dict[int, Engine] = {}

    def hook(args: threading.ExceptHookArgs) -> None:  # an exception no thread caught
        failures.append(args.exc_value or RuntimeError(f"{args.exc_type} in {args.thread}"))

    def work(first: int) -> None:
        try:
            eng = engines[first] = api.engine(threads=2)
            eng.helper_delay = 0.0  # the helper joins every search at once...
            eng.helper_min_left = 0  # ...of any size
            for _ in range(ROUNDS):
                for i in range(first, len(positions), THREADS):
                    if tuple(solver.solve(positions[i], s) for s in range(4)) != expected[i]:
                        wrong.append((i, "solve"))
                    if solver.dd_table(positions[i]) != expected[i]:
                        wrong.append((i, "dd_table"))
        except BaseException as e:  # recorded: the test fails on it below
            failures.append(e)

    monkeypatch.setattr(threading, "excepthook", hook)
    caplog.set_level(logging.ERROR, logger="callbreak_lab.solver")
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # hand the GIL over as often as possible
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert failures == []
    assert [r.getMessage() for r in caplog.records] == []  # a helper's failure is logged
    assert wrong == []
    assert sorted(engines) == list(range(THREADS))
    assert len({id(e) for e in engines.values()}) == THREADS
    for eng in engines.values():
        helper = eng._helper
        assert eng.threads == 2 and helper is not None
        assert helper.joined > 0 and helper.pools > 0
        assert Counters(helper.stats).nodes > 0  # the helper's own searching
        assert eng.counters().nodes > eng.counters(helper=False).nodes


def test_each_thread_has_its_own_engine() -> None:
    seen: list[object] = []
    t = threading.Thread(target=lambda: seen.append(engine()))
    t.start()
    t.join()
    assert engine() is engine()
    assert seen[0] is not engine()


def _in_a_thread(fn: Callable[[], object]) -> object:
    """``fn()`` on a new thread (with an engine of its own): its result or the error it raised."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(fn())
        except Exception as e:
            out.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    return out[0]


def test_engine_threads_make_the_engine_and_then_must_match_it() -> None:
    """``engine(threads=n)`` makes the thread's engine with ``n`` threads; once it exists, the
    same ``n`` (or None) returns it, and another ``n`` is a UsageError naming both counts
    rather than being ignored."""

    def asked_twice(first: int, second: int | None) -> object:
        eng = engine(threads=first)
        return engine(threads=second) is eng and eng.threads

    assert _in_a_thread(lambda: asked_twice(1, 1)) == 1
    assert _in_a_thread(lambda: asked_twice(1, None)) == 1
    assert _in_a_thread(lambda: asked_twice(2, 2)) == (2 if _jit_enabled() else 1)
    for first, second in [(1, 2), (2, 1)]:
        err = _in_a_thread(lambda f=first, s=second: asked_twice(f, s))
        assert isinstance(err, UsageError)
        assert f"engine(threads={second})" in str(err) and f"threads={first}" in str(err)


def test_engine_threads_after_the_threads_first_solve() -> None:
    """A thread's first solve makes its engine with ``default_threads``: asking for the other
    count afterwards is refused."""
    other = 3 - solver.default_threads()

    def solve_then_ask() -> object:
        solver.dd_table(_positions(1, seed=4)[0])
        return engine(threads=other)

    err = _in_a_thread(solve_then_ask)
    assert isinstance(err, UsageError) and "its first solve" in str(err), err


@pytest.mark.parametrize("bad", [0, 3, True, 1.0, "2"])
def test_engine_threads_are_checked(bad: object) -> None:
    with pytest.raises(UsageError, match=r"threads \(or None\) must be a whole number 1\.\.2"):
        engine(threads=bad)  # type: ignore[arg-type]
