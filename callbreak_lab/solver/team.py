"""A team of solver threads with an engine each: the solver resources that outlive one call.

Judging a decision over many layouts of the hidden cards (single-dummy advice, reviews) solves
the layouts side by side, one engine per thread (the kernels release the GIL), which uses the
cores better than one search and its helper. An engine's table (about 90 MB) is worth keeping
between calls, so the threads and their engines live in a :class:`SolverTeam`: a context
manager with a lifetime of its own. ``team(threads)`` gives the process's shared team of that
size, created under a lock and closed at interpreter exit; a caller who wants its own lifetime
makes one (``with SolverTeam(2) as t: ...``).

Each engine brings a helper thread (``Engine(threads=2)``), kept out by a gate: a call hands
its own gate to the engine running each of its tasks (``run(fn, gate)``), shuts it while it has
more tasks than threads, and opens it once no task is left to start, so the layouts still
running take the idle cores. Gates are per call, so two calls sharing a team never open or shut
each other's helpers.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from callbreak_lab.errors import UsageError, check_int
from callbreak_lab.solver._engine import Engine
from callbreak_lab.solver.api import engine

__all__ = ["SolverTeam", "team"]

T = TypeVar("T")

#: the most threads a team may have
MAX_THREADS = 4


class SolverTeam:
    """``threads`` solver threads, each with its own engine (with a gated helper thread).
    ``run(fn, gate)`` calls ``fn(engine)`` on a free thread with ``gate`` as the engine's helper
    gate; ``close()`` (or leaving the ``with`` block) waits for the running tasks and ends the
    threads."""

    def __init__(self, threads: int) -> None:
        self.threads = check_int(threads, "a solver team's threads", low=1, high=MAX_THREADS)
        self._closed = False
        self._pool = ThreadPoolExecutor(
            max_workers=threads, thread_name_prefix="callbreak-team", initializer=self._init
        )

    @staticmethod
    def _init() -> None:
        engine(threads=2).helper_gate = threading.Event()  # shut until a call opens it

    @property
    def closed(self) -> bool:
        """Whether the team was closed (it runs nothing more)."""
        return self._closed

    def run(self, fn: Callable[[Engine], T], gate: threading.Event) -> Future[T]:
        """``fn(engine)`` on one of the team's threads, whose engine's helper waits on ``gate``
        (the calling judgement's own)."""
        if self._closed:
            raise UsageError("this solver team is closed")

        def task() -> T:
            eng = engine()
            eng.helper_gate = gate
            return fn(eng)

        return self._pool.submit(task)

    def close(self) -> None:
        """Wait for the tasks running and end the threads (their engines go with them)."""
        self._closed = True
        self._pool.shutdown(wait=True)

    def __enter__(self) -> SolverTeam:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<SolverTeam {self.threads} threads, {state}>"


_LOCK = threading.Lock()
_TEAMS: dict[int, SolverTeam] = {}


def team(threads: int) -> SolverTeam:
    """The process's shared team of ``threads`` threads (made on first use, under a lock;
    closed at interpreter exit)."""
    with _LOCK:
        t = _TEAMS.get(threads)
        if t is None or t.closed:
            t = _TEAMS[threads] = SolverTeam(threads)
        return t


@atexit.register
def _close_all() -> None:
    with _LOCK:
        teams = list(_TEAMS.values())
        _TEAMS.clear()
    for t in teams:
        t.close()
