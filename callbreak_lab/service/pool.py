"""Solver worker processes with a hard per-job deadline.

Why processes and not threads: a thread cannot be stopped from outside. A runaway solve in a
thread (the kernels release the GIL, but the search runs to its end) would keep its thread, its
core and its 64 MB engine until it finished on its own. A worker *process* can be killed the moment
its deadline passes; the pool then starts a fresh one in its place, so no request can tie up the
server for longer than its bound.

The pool is driven from the event loop without blocking it: a job is sent down a pipe and the
answer is awaited through ``loop.add_reader`` on the pipe's file descriptor. Workers are started
with the ``spawn`` method (never ``fork`` from a threaded server), import and warm the solver, then
report ready; only ready workers take jobs.

Shares. Every job has a *kind* (``KINDS``: the bot's ``/play`` searches, ``solve`` for
``/v1/solve``, ``long`` for lines, reviews and Monte Carlo checks) and a *client* (the peer's
address). With two workers or more, one kind holds at most ``size - 1`` of them except
``solve`` (so a worker is always left for the kinds that are not running) and one client at
most ``size - 1`` (so one client's burst never takes every worker). A freed worker goes to the
oldest waiting job of the next kind in turn that is within its shares, so no kind starves the
others while it has work queued.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import multiprocessing as mp
import time
from multiprocessing.connection import Connection
from typing import Any

from callbreak_lab.errors import CallbreakLabError, UsageError

__all__ = ["KINDS", "JobError", "JobTimeout", "PoolBusy", "WorkerPool"]

#: the classes of work, in the order a freed worker looks at them (then in turn)
KINDS = ("bot", "solve", "long")


class JobTimeout(Exception):
    """A job passed its deadline; its worker was killed and replaced."""


class PoolBusy(JobTimeout):
    """No worker became free before the job's deadline."""


class JobError(Exception):
    """A job raised inside its worker. ``value_error`` tells the library's ``CallbreakLabError``
    (bad input, a 422) apart from anything else (a bug, a 500)."""

    def __init__(self, message: str, value_error: bool) -> None:
        super().__init__(message)
        self.value_error = value_error


def _worker_main(conn: Connection) -> None:
    """Worker process: import and warm the jobs, then run jobs until the pipe closes."""
    from callbreak_lab.service import jobs

    # warming only saves the first job's start-up: whatever fails here fails again in the job
    # that needs it, and is reported to the parent there
    with contextlib.suppress(Exception):
        jobs.warm_up()
    conn.send(("ready", None))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        name, kwargs = msg
        try:
            reply: tuple[str, Any] = ("ok", getattr(jobs, name)(**kwargs))
        except CallbreakLabError as e:
            reply = ("value_error", str(e))
        except Exception as e:  # reported to the parent, which answers 500 for it
            reply = ("error", f"{type(e).__name__}: {e}")
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, ctx: Any) -> None:
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.conn: Connection = parent
        self.jobs = 0

    def kill(self) -> None:
        # best effort on a worker that may be gone already: the pool drops it either way
        with contextlib.suppress(Exception):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.conn.close()


async def _recv(conn: Connection, timeout: float | None) -> tuple[bool, Any]:
    """Wait for one message on ``conn`` without blocking the loop: (arrived, message)."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[None] = loop.create_future()
    fd = conn.fileno()

    def ready() -> None:
        if not fut.done():
            fut.set_result(None)

    loop.add_reader(fd, ready)
    try:
        done, _ = await asyncio.wait({fut}, timeout=timeout)
    finally:
        loop.remove_reader(fd)
    if not done:
        return False, None
    return True, conn.recv()


class _Waiter:
    """A job waiting for a worker."""

    __slots__ = ("client", "fut", "kind")

    def __init__(self, fut: asyncio.Future[_Worker], kind: str, client: str) -> None:
        self.fut = fut
        self.kind = kind
        self.client = client


class WorkerPool:
    """``size`` solver worker processes; ``await run(job, kwargs, timeout)`` runs one job."""

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self._ctx = mp.get_context("spawn")
        self._idle: collections.deque[_Worker] = collections.deque()
        self._waiters: list[_Waiter] = []
        self._held_kind: dict[str, int] = collections.Counter()
        self._held_client: dict[str, int] = collections.Counter()
        self._turn = 0  # the kind a freed worker looks at first
        self._all: set[_Worker] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._started = False
        self.killed = 0
        self.completed = 0

    # --- life cycle ---------------------------------------------------------------------------
    async def start(self, warmup_timeout: float) -> None:
        """Start the workers and wait (at most ``warmup_timeout``) until they are ready."""
        self._ensure_started()
        deadline = time.monotonic() + warmup_timeout
        while len(self._idle) < self.size and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    def _ensure_started(self) -> None:
        """Start the workers unless started (``run`` starts them lazily without a lifespan)."""
        if self._started:
            return
        self._started = True
        self._closed = False
        for _ in range(self.size):
            self._spawn()

    def _spawn(self) -> None:
        if self._closed:
            return
        worker = _Worker(self._ctx)
        self._all.add(worker)
        task = asyncio.get_running_loop().create_task(self._await_ready(worker))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _await_ready(self, worker: _Worker) -> None:
        try:
            arrived, msg = await _recv(worker.conn, None)
        except (EOFError, OSError):
            arrived, msg = False, None
        if arrived and msg == ("ready", None) and not self._closed:
            self._release(worker)
        else:
            self._discard(worker)

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        self._all.discard(worker)
        with contextlib.suppress(Exception):  # reap it if it has ended; a killed worker is gone
            worker.proc.join(timeout=0)

    async def close(self) -> None:
        """Stop every worker."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        for worker in list(self._all):
            # shutting down: a worker that cannot be told to stop, or joined, is killed anyway
            with contextlib.suppress(Exception):
                worker.conn.send(None)
            worker.kill()
            with contextlib.suppress(Exception):
                await asyncio.to_thread(worker.proc.join, 2)
        self._all.clear()
        self._idle.clear()
        self._waiters.clear()
        self._started = False

    @property
    def ready(self) -> int:
        """Workers idle right now."""
        return len(self._idle)

    @property
    def alive(self) -> int:
        """Workers started and not killed (busy, idle or warming up)."""
        return len(self._all)

    # --- scheduling ---------------------------------------------------------------------------
    def kind_cap(self, kind: str) -> int:
        """The most workers jobs of ``kind`` hold at once."""
        return self.size if kind == "solve" or self.size == 1 else self.size - 1

    @property
    def client_cap(self) -> int:
        """The most workers one client's jobs hold at once."""
        return max(1, self.size - 1)

    def _fits(self, kind: str, client: str) -> bool:
        return (
            self._held_kind[kind] < self.kind_cap(kind)
            and self._held_client[client] < self.client_cap
        )

    def _take(self, kind: str, client: str) -> None:
        self._held_kind[kind] += 1
        self._held_client[client] += 1

    def _give_back(self, kind: str, client: str) -> None:
        self._held_kind[kind] -= 1
        self._held_client[client] -= 1

    def _release(self, worker: _Worker) -> None:
        """A worker is free (a job ended or a new worker is ready): hand it on."""
        self._idle.append(worker)
        self._dispatch()

    def _dispatch(self) -> None:
        """Give idle workers to waiting jobs within their shares, kinds in turn."""
        self._waiters = [w for w in self._waiters if not w.fut.done()]
        while self._idle and self._waiters:
            chosen = None
            for i in range(len(KINDS)):
                kind = KINDS[(self._turn + i) % len(KINDS)]
                chosen = next(
                    (w for w in self._waiters if w.kind == kind and self._fits(kind, w.client)),
                    None,
                )
                if chosen is not None:
                    self._turn = (KINDS.index(kind) + 1) % len(KINDS)
                    break
            if chosen is None:
                return
            self._waiters.remove(chosen)
            self._take(chosen.kind, chosen.client)
            chosen.fut.set_result(self._idle.popleft())

    async def _acquire(self, timeout: float, kind: str, client: str) -> _Worker | None:
        if self._idle and self._fits(kind, client) and not self._waiters:
            self._take(kind, client)
            return self._idle.popleft()
        fut: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
        self._waiters.append(_Waiter(fut, kind, client))
        self._dispatch()
        try:
            await asyncio.wait({fut}, timeout=max(0.0, timeout))
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self._give_back(kind, client)
                self._release(fut.result())
            fut.cancel()
            raise
        if fut.done():
            return fut.result()
        fut.cancel()
        self._dispatch()  # its place may have blocked nobody, but keep the queue clean
        return None

    async def run(
        self,
        job: str,
        kwargs: dict[str, Any],
        timeout: float,
        budget_key: str | None = None,
        budget_fraction: float = 1.0,
        min_budget: float = 0.0,
        kind: str = "solve",
        client: str | None = None,
    ) -> Any:
        """Run ``jobs.<job>(**kwargs)`` in a worker within ``timeout`` seconds (queueing
        included), as work of ``kind`` for ``client`` (the shares in the module docstring).
        Raises PoolBusy, JobTimeout (the worker is killed and replaced) or JobError.

        With ``budget_key``, the job gets ``kwargs[budget_key]`` = ``budget_fraction`` of the
        time left once a worker is free (its own soft deadline), and is not started at all
        (PoolBusy) when that is under ``min_budget`` seconds."""
        if kind not in KINDS:
            raise UsageError(f"unknown kind of job {kind!r} (one of {', '.join(KINDS)})")
        who = "" if client is None else client
        self._ensure_started()
        deadline = time.monotonic() + timeout
        worker = await self._acquire(timeout - min_budget, kind, who)
        if worker is None:
            raise PoolBusy(
                f"all {self.size} solver workers stayed busy for the whole time bound "
                f"({timeout:.3g} s); try again later"
            )
        if budget_key is not None:
            left = deadline - time.monotonic()
            if left < min_budget:
                self._give_back(kind, who)
                self._release(worker)
                raise PoolBusy("no solver worker became free in time")
            kwargs = {**kwargs, budget_key: left * budget_fraction}
        finished = False
        try:
            worker.conn.send((job, kwargs))
            arrived, msg = await _recv(worker.conn, max(0.0, deadline - time.monotonic()))
            finished = arrived
        except (EOFError, OSError, BrokenPipeError) as e:
            raise JobError(f"solver worker died: {e}", value_error=False) from None
        finally:
            self._give_back(kind, who)
            if finished:
                worker.jobs += 1
                self.completed += 1
                self._release(worker)
            else:
                self.killed += 1
                self._discard(worker)
                self._spawn()
                self._dispatch()
        if not arrived:
            raise JobTimeout(
                f"the computation passed its time bound of {timeout:.3g} s and was stopped"
            )
        status, value = msg
        if status == "ok":
            return value
        raise JobError(str(value), value_error=status == "value_error")
