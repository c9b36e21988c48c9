"""The engine's second search thread: it joins a long search ("lazy" parallel search) or shares
a list of independent searches (a position's children, a deal's four seats).

Both threads search with their own stack over the engine's one table; entries are checked on
read (``_table.check_of``), so an entry torn by the other thread's write is never believed.
Each search runs under a job number in a one-element control array: a search stops at its next
node once the array holds anything else (another thread finished it first).
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ._consts import N_STATS, OPT_REVERSE
from ._search import Problem, Run, Workspace, new_workspace, solve_root


class SearchTimeout(TimeoutError):
    """A search stopped by its time limit (``solver.time_limit``) before it found the value.
    Not bad input, so no ``CallbreakLabError``: the players and the advice catch it and answer
    with the layouts already solved."""

    def __init__(self, message: str = "the solver's time limit stopped the search") -> None:
        super().__init__(message)


if TYPE_CHECKING:
    from ._engine import Engine

#: A helper thread joins a search that is still running after this many seconds (most solves
#: end sooner, and then cost nothing but handing the job over)
HELPER_DELAY = 0.004
#: ... and only when at least this many tricks are left (smaller positions end in microseconds)
HELPER_MIN_LEFT = 6
#: ``values_of`` with the root's value unknown searches the children at once (no proof of the
#: root first) from this many tricks left, with two threads (``Engine.children_first_left``)
CHILDREN_FIRST_LEFT = 8
#: plies from the root at which the helper tries the other seats' replies in reverse order
HELPER_REVERSE = 8
#: seconds between a gated helper's checks that the search it waits to join still runs
GATE_POLL = 0.002


class Job(NamedTuple):
    """The arguments of one search (``Engine.job`` makes them, ``search`` runs them; a thread
    joining another's search runs the same ones). Each search copies ``hands``: a search
    changes them and leaves them changed when it is stopped."""

    hands: np.ndarray  # int64[4, 4] suit masks, the trick's cards removed
    trick: np.ndarray  # int64: the trick's cards, written into each thread's own stack
    problem: Problem
    lo: int  # bounds on the value known to hold
    hi: int
    guess: int  # the first null-window probe; -1: the search picks it


def search(
    eng: Engine,
    ctl: np.ndarray,
    job: int,
    args: Job,
    ws: Workspace,
    opts: np.ndarray,
    stats: np.ndarray,
) -> int:
    """One thread's search of ``args`` with its own stack ``ws``, over the engine's table: the
    value, or -1 when stopped (``ctl[0]`` no longer ``job``)."""
    ws.tc[: args.problem.pos] = args.trick
    run = Run(opts=opts, stats=stats, ctl=ctl, job=job, gen=eng.gen)
    hands = args.hands.copy()
    return int(solve_root(hands, args.problem, args.lo, args.hi, args.guess, ws, eng.table, run))


class Pool:
    """Independent searches shared by two threads: each takes the next search not yet started;
    once none is left, an idle thread joins the other's running search the way the lazy helper
    does (replies reversed), and whichever finishes it first answers.

    Why: the children of a position (``card_values``, each step of an annotated line) and the
    four seats of a ``dd_table`` are separate proofs; one thread each keeps both cores busy for
    the whole list, where the lazy helper only shortens each search in turn."""

    def __init__(self, jobs: Sequence[Job]) -> None:
        self.jobs = list(jobs)
        n = len(self.jobs)
        self.results = [-1] * n
        self.ctls = [np.zeros(1, dtype=np.int64) for _ in range(n)]
        self._next = 0
        self._joined = [False] * n
        self._error: BaseException | None = None
        self._cond = threading.Condition()

    def work(
        self, eng: Engine, ws: Workspace, opts: np.ndarray, reverse: np.ndarray, stats: np.ndarray
    ) -> None:
        """Search until every search has been started and none is left to join. A failing
        search stops the other thread's and raises here (and from ``wait``)."""
        n = len(self.jobs)
        while True:
            with self._cond:
                if self._error is not None:
                    return
                if self._next < n:
                    i = self._next
                    self._next += 1
                    self.ctls[i][0] = i + 1
                    o = opts
                else:
                    i = next(
                        (j for j in range(n) if self.results[j] < 0 and not self._joined[j]), -1
                    )
                    if i < 0:
                        return
                    self._joined[i] = True
                    o = reverse
            try:
                v = search(eng, self.ctls[i], i + 1, self.jobs[i], ws, o, stats)
            except BaseException as e:  # the other thread stops; the caller's ``wait`` raises
                with self._cond:
                    self._error = e
                    for ctl in self.ctls:
                        ctl[0] = 0
                    self._cond.notify_all()
                raise
            if v >= 0:
                with self._cond:
                    if self.results[i] < 0:
                        self.results[i] = v
                        self.ctls[i][0] = 0  # the other thread, if on it, stops
                        self._cond.notify_all()

    def stop(self, reason: BaseException) -> None:
        """Stop every search of the pool (a time limit): ``work`` returns, ``wait`` raises
        ``reason``."""
        with self._cond:
            if self._error is None:
                self._error = reason
            for ctl in self.ctls:
                ctl[0] = 0
            self._cond.notify_all()

    def wait(self) -> list[int]:
        """Every search's value, once all are known."""
        with self._cond:
            while self._error is None and min(self.results, default=0) < 0:
                self._cond.wait()
            if isinstance(self._error, SearchTimeout):
                raise self._error
            if self._error is not None:
                raise RuntimeError("a solver search thread failed") from self._error
            return list(self.results)


class Helper:
    """A second thread that joins an engine's search when it runs long ("lazy" parallel search
    over a shared table, as chess programs do it), or shares a ``Pool`` of searches.

    It searches the same position with its own stack and the same table, trying the other
    seats' replies in reverse order at the first plies (``OPT_REVERSE``): a proof that the target
    reaches its count must refute every reply, so the two threads prove different replies first
    and then find each other's results in the table. Whichever finishes first answers and stops
    the other (``Engine.ctl``). What it saves on hard solves: benchmarks/HISTORY.md, "A helper
    thread over a shared table"."""

    def __init__(self, eng: Engine) -> None:
        # the thread holds the engine weakly (else the engine and its table would live for
        # ever); the engine's finaliser ends the thread
        self._eng = weakref.ref(eng)
        self.ws = new_workspace()
        self.opts = eng.opts.copy()  # searching a pool's job first
        self.reverse = eng.opts.copy()  # joining another thread's search
        self.reverse[OPT_REVERSE] = HELPER_REVERSE
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.lock = threading.Lock()  # serialises writes of ``eng.ctl``
        self._cond = threading.Condition()
        self._offer: tuple[int, Job | None] | Pool | None = None
        self._result: tuple[int, int] = (-1, -1)
        self.joined = 0  # searches the helper joined
        self.answered = 0  # of them, searches it finished first
        self.pools = 0  # pools it worked on
        self._thread = threading.Thread(target=self._loop, name="callbreak-solver-helper")
        self._thread.daemon = True
        self._thread.start()
        weakref.finalize(eng, self.offer, -1, None)

    @property
    def eng(self) -> Engine:
        eng = self._eng()
        assert eng is not None  # only the engine itself calls these methods
        return eng

    def offer(self, job: int, args: Job | None) -> None:
        """Hand a search over (the helper starts on it after ``helper_delay`` if it still
        runs); ``args`` None (the engine's finaliser) ends the thread."""
        with self._cond:
            self._offer = (job, args)
            self._cond.notify()

    def offer_pool(self, pool: Pool) -> None:
        """Hand a pool of searches over (the helper works on it at once)."""
        with self._cond:
            self._offer = pool
            self._cond.notify()

    def withdraw(self, job: int) -> None:
        """The engine finished ``job`` itself: the helper drops it or stops searching it."""
        with self.lock:
            if self.eng.ctl[0] == job:
                self.eng.ctl[0] = 0
        with self._cond:
            if isinstance(self._offer, tuple) and self._offer[0] == job:
                self._offer = None

    def result_of(self, job: int) -> int:
        """The helper's value of ``job`` (it stopped the engine's search, so it has one)."""
        with self._cond:
            while self._result[0] != job:
                self._cond.wait()
            v = self._result[1]
        if v < 0:
            raise RuntimeError("the solver's helper thread failed (see the log)")
        return v

    def _loop(self) -> None:
        while True:
            with self._cond:
                while self._offer is None:
                    self._cond.wait()
                offer = self._offer
                self._offer = None
            if isinstance(offer, Pool):
                if not self._serve_pool(offer):
                    return
            elif offer[1] is None or not self._serve(offer[0], offer[1]):
                return  # the engine is gone

    def _serve_pool(self, pool: Pool) -> bool:
        eng = self._eng()
        if eng is None:
            return False
        self.pools += 1
        try:
            pool.work(eng, self.ws, self.opts, self.reverse, self.stats)
        except BaseException:  # recorded in the pool; the engine's caller raises it
            logging.getLogger(__name__).exception("solver helper thread")
        return True

    def _serve(self, job: int, args: Job) -> bool:
        """Join ``job`` if it still runs after the delay; False when the engine is gone (the
        engine is held only inside this call)."""
        eng = self._eng()
        if eng is None:
            return False
        deadline = time.perf_counter() + eng.helper_delay
        while eng.ctl[0] == job and time.perf_counter() < deadline:
            time.sleep(0.0005)
        gate = eng.helper_gate
        while gate is not None and eng.ctl[0] == job and not gate.wait(GATE_POLL):
            pass  # a closed gate: join only once it opens (a core fell idle)
        if eng.ctl[0] != job:
            return True
        self.joined += 1
        try:
            v = search(eng, eng.ctl, job, args, self.ws, self.reverse, self.stats)
        except BaseException:  # the thread lives on; ``result_of`` raises in the engine's caller
            logging.getLogger(__name__).exception("solver helper thread")
            v = -2
        if v == -1:
            return True  # the engine finished first
        with self._cond:
            self._result = (job, v)
            self._cond.notify_all()
        with self.lock:  # stop the engine's search unless it has moved on
            if eng.ctl[0] == job:
                eng.ctl[0] = -job
                self.answered += 1
        return True
