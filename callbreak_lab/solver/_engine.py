"""The low-level engine: one reusable search workspace and transposition table.

Works on plain ints (52-bit hand masks, cards 0..51); the public facade in ``api.py`` builds on it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from callbreak_lab.errors import UsageError

from ._consts import N_STATS, OPT_REVERSE, POP, default_opts
from ._moves import beats
from ._search import Problem, Run, new_workspace, probe
from ._stats import Counters
from ._table import new_table
from ._threads import (
    CHILDREN_FIRST_LEFT,
    HELPER_DELAY,
    HELPER_MIN_LEFT,
    HELPER_REVERSE,
    Helper,
    Job,
    Pool,
    SearchTimeout,
    search,
)

_MAX_GEN = 2**31 - 2
#: a new deal empties the table once more than this share of its slots was stored since it
#: was last emptied (``Engine.note_deal``; emptying zeroes the fingerprints and generations
#: only, little beside a search)
NEW_DEAL_STORES = 1 / 64


def _jit_enabled() -> bool:
    """numba compiles the kernels (``NUMBA_DISABLE_JIT`` unset or 0, as numba itself reads it)."""
    from numba.core import config

    return not config.DISABLE_JIT  # type: ignore[attr-defined]  # set by numba at import


def split_masks(masks: Sequence[int]) -> np.ndarray:
    """52-bit hand masks -> int64[4, 4] rows of 13-bit suit masks."""
    hands = np.zeros((4, 4), dtype=np.int64)
    for q in range(4):
        m = int(masks[q])
        for s in range(4):
            hands[q, s] = (m >> (13 * s)) & 0x1FFF
    return hands


def join_suits(row: Sequence[int] | np.ndarray) -> int:
    """Four 13-bit suit masks (a row of ``split_masks``' result) -> one 52-bit mask."""
    return sum(int(row[s]) << (13 * s) for s in range(4))


def held_cards(masks: Sequence[int], trick: Sequence[int], leader: int) -> tuple[int, ...]:
    """Each seat's cards (52-bit masks) with those it played to the trick in progress back in
    its hand: the seats' hands at the trick's start."""
    held = [int(m) for m in masks]
    for i, c in enumerate(trick):
        held[(leader + i) % 4] |= 1 << int(c)
    return tuple(held)


class Engine:
    """A search workspace plus a transposition table shared by every target seat.

    Table entries are keyed on the abstract position (relative ranks, leader, target, rules), so
    they stay valid across deals; a generation counter only steers replacement.
    """

    def __init__(
        self,
        log2_slots: int = 21,
        opts: np.ndarray | None = None,
        max_fill: float | None = 0.25,
        threads: int = 1,
    ) -> None:
        """``max_fill``: empty the table before a search once more than this share of its
        slots is taken (``None``: never; entries are then only replaced, chain by chain).
        ``threads`` 2: a helper thread (``_threads.Helper``) joins any search still running
        after ``HELPER_DELAY`` and shares lists of searches (``values``); values are the same,
        hard solves end sooner (1 when numba's JIT is off: plain Python would only share one
        interpreter)."""
        if max_fill is not None and not 0.0 < max_fill <= 1.0:
            raise UsageError(f"max_fill must be in (0, 1] or None, got {max_fill!r}")
        if threads not in (1, 2):
            raise UsageError(f"threads must be 1 or 2, got {threads!r}")
        self.table = new_table(log2_slots)
        self.max_fill = max_fill
        self.clears = 0  # times the table was emptied to make room
        self.ws = new_workspace()  # the engine's own thread's stack
        self.opts = default_opts() if opts is None else np.asarray(opts, dtype=np.int64)
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.gen = 1
        self._stores_at_check = 0
        self.ctl = np.zeros(1, dtype=np.int64)  # the running search's job number
        self._job = 0
        # ``interrupt``: set by another thread (a time limit); every search raises
        # ``SearchTimeout`` until ``resume``. The lock orders it against a search's start.
        self.interrupted = False
        self._lock = threading.Lock()
        self._pool: Pool | None = None  # the pool ``values`` is working on
        self.threads = threads if _jit_enabled() else 1
        self._helper: Helper | None = None
        self._reverse = self.opts.copy()  # joining the helper's search in a pool
        self._reverse[OPT_REVERSE] = HELPER_REVERSE
        self.helper_delay = HELPER_DELAY
        self.helper_min_left = HELPER_MIN_LEFT
        self.children_first_left = CHILDREN_FIRST_LEFT
        #: None: the helper thread works whenever it is useful. An ``Event``: only while it is
        #: set (a caller running several single-search engines side by side lets an engine's
        #: helper work once a core is idle: ``advice``'s layouts at the end of a decision)
        self.helper_gate: threading.Event | None = None
        self.deal_clears = 0  # times the table was emptied for a new deal
        self.new_deal_share: float | None = NEW_DEAL_STORES  # None: a new deal keeps it
        self._seen = [0, 0, 0, 0]  # each seat's cards in the positions of the current deal
        self._stores_at_clear = 0

    def new_generation(self) -> None:
        """Mark the entries stored so far as older (preferred victims for replacement)."""
        self.gen += 1
        if self.gen > _MAX_GEN:
            self.table.gens[:] = np.minimum(self.table.gens, 1)
            self.gen = 2

    def clear(self) -> None:
        """Forget every table entry: a slot whose fingerprint byte is 0 is empty (lookups and
        stores read nothing else of it first), so zeroing the 2 MB of fingerprints empties the
        table (the keys and data, about 80 MB, are overwritten as slots fill again)."""
        self.table.gens[:] = 0
        self.table.fps[:] = 0
        self.gen = 1
        self._stores_at_check = self._stores_at_clear = self._stores()

    def note_deal(self, held: Sequence[int]) -> None:
        """Empty the table when a position of another deal comes in (``held``: each seat's
        cards, those it played to the trick in progress included) and the table took more than
        ``new_deal_share`` of its slots since it was last emptied (never with ``max_fill``
        or ``new_deal_share`` None).

        Entries of other deals rarely answer a new deal's positions, and a table emptied between
        deals need not be emptied in the middle of one, where the deal's own entries (of an
        earlier line, solve or card values of the same deal) are what the next search needs:
        a table emptied by the fill limit between a studied seat's line and the play-out line of
        the same deal makes a hard deal's play-out line prove again what the line stored
        (benchmarks/HISTORY.md, "Play lines").
        Positions of one deal are told apart by the seats' cards: no card seen in one seat's
        hand turns up in another's (two deals that agree so far count as one; no harm done)."""
        seen = self._seen
        union = seen[0] | seen[1] | seen[2] | seen[3]
        if all(held[q] & union & ~seen[q] == 0 for q in range(4)):
            for q in range(4):
                seen[q] |= held[q]
            return
        self._seen = [int(m) for m in held]
        if self.max_fill is None or self.new_deal_share is None:  # told not to empty it
            return
        stores = self._stores()
        if stores < self._stores_at_clear:  # the caller reset the statistics
            self._stores_at_clear = 0
        if stores - self._stores_at_clear > self.table.gens.shape[0] * self.new_deal_share:
            self.clear()
            self.deal_clears += 1

    def counters(self, helper: bool = True) -> Counters:
        """The statistics counters by name: the engine's own thread's and, with ``helper``,
        its helper thread's added (a copy then)."""
        own = Counters(self.stats)
        if not helper or self._helper is None:
            return own
        return own + Counters(self._helper.stats)

    def _stores(self) -> int:
        """Table stores so far, the helper thread's included (before every search: no sum of
        the whole arrays)."""
        n = Counters(self.stats).tt_stores
        if self._helper is not None:
            n += Counters(self._helper.stats).tt_stores
        return n

    def _make_room(self) -> None:
        """Empty the table before a search when more than ``max_fill`` of its slots are taken.

        A long run (many deals through one engine: batches, dataset generation, the service)
        would otherwise fill every bucket chain, and then every missing lookup scans its whole
        chain and every store replaces an entry. Entries of other deals rarely answer a new
        one's positions. Checked only after enough stores to reach the limit could have
        happened (a store may also update an entry, so the count is an upper bound). The check
        and the clear read and write only the fingerprints and generations (2 MB and 8 MB of the
        default table), never its keys and data.
        The limit is a quarter of the table: a hard proof stores up to a million entries, and
        one that starts in a table already half full ends in full chains (measurements:
        benchmarks/HISTORY.md, "Solver constants and layouts")."""
        if self.max_fill is None:
            return
        nslots = self.table.gens.shape[0]
        limit = int(nslots * self.max_fill)
        stores = self._stores()
        if stores < self._stores_at_check:  # the caller reset the statistics
            self._stores_at_check = 0
        if stores - self._stores_at_check < limit:
            return
        self._stores_at_check = stores
        if np.count_nonzero(self.table.fps.view(np.uint8)) > limit:
            self.clear()
            self.clears += 1

    def job(  # noqa: PLR0913  (a search's parameters, as the kernels take them)
        self,
        hands: np.ndarray,
        trick: Sequence[int],
        leader: int,
        target: int,
        mb: int,
        vr: int,
        ban: int,
        guess: int | None = None,
        lo: int | None = None,
        hi: int | None = None,
    ) -> Job | None:
        """One search (``value_of_job`` runs it): the tricks of the remaining ones (current
        trick included) the target can guarantee; None when no trick is left (value 0).

        ``hands`` int64[4, 4] suit masks *after* the trick cards were removed; ``ban`` 1 when the
        first-trick spade ban applies to the lead at this position. Optional ``lo``/``hi`` are
        bounds already known to hold; ``guess`` the first null-window probe (by default an
        estimate of the value at a trick boundary, the upper bound mid-trick)."""
        pos = len(trick)
        mover = (leader + pos) % 4
        left = int(sum(POP[hands[mover, s]] for s in range(4)))
        if left == 0:
            return None
        masks = [join_suits(hands[q]) for q in range(4)]
        self.note_deal(held_cards(masks, trick, leader))
        lo_ = 0 if lo is None else lo
        hi_ = left if hi is None else hi
        return Job(
            hands=np.array(hands, dtype=np.int64),
            trick=np.array(trick, dtype=np.int64),
            problem=_problem(pos, leader, target, mb, vr, ban),
            lo=lo_,
            hi=hi_,
            guess=-1 if guess is None else guess,  # -1: the search picks its first probe
        )

    def _helper_thread(self) -> Helper:
        if self._helper is None:
            self._helper = Helper(self)
        return self._helper

    def _wants_helper(self, args: Job) -> bool:
        """Two threads and a search big enough to share (``helper_min_left`` tricks left:
        smaller ones end before the helper could start)."""
        mover = (args.problem.leader + args.problem.pos) % 4
        left = int(sum(POP[args.hands[mover, s]] for s in range(4)))
        return self.threads > 1 and left >= self.helper_min_left

    @property
    def parallel(self) -> bool:
        """Whether the helper thread works now (two threads and no closed ``helper_gate``):
        lists of searches are then shared out, and ``api.values_of`` searches the children
        at once; otherwise one search at a time, the helper joining a long one if the gate
        opens while it runs."""
        gate = self.helper_gate
        return self.threads > 1 and (gate is None or gate.is_set())

    def interrupt(self) -> None:
        """Stop the search running on this engine, from another thread (a time limit): it, and
        every search started until ``resume``, raises ``SearchTimeout``. The table keeps only
        finished results (a stopped search stores nothing from where it stopped), so the engine
        stays sound."""
        with self._lock:
            self.interrupted = True
            if self._helper is None:
                self.ctl[0] = 0
            else:
                with self._helper.lock:
                    self.ctl[0] = 0
            pool = self._pool
        if pool is not None:
            pool.stop(SearchTimeout())

    def resume(self) -> None:
        """Searches run again after an ``interrupt``."""
        with self._lock:
            self.interrupted = False

    def _stopped(self, job: int) -> SearchTimeout:
        self._finish(job)
        return SearchTimeout()

    def value_of_job(self, args: Job) -> int:
        """The value of one search (``job``); with two threads the helper joins it when it runs
        long."""
        self._make_room()
        job = self._start()
        helper = None
        if self._wants_helper(args):
            helper = self._helper_thread()
            helper.offer(job, args)
        try:
            v = search(self, self.ctl, job, args, self.ws, self.opts, self.stats)
        except BaseException:  # (an interrupt) a helper on the same search stops too
            self._finish(job)
            raise
        if v >= 0:
            self._finish(job)  # a helper still searching stops at its next node
            return v
        if self.interrupted:
            raise self._stopped(job)
        assert helper is not None  # only a helper's result or an interrupt stops the search
        return helper.result_of(job)

    def values(self, jobs: Sequence[Job | None]) -> list[int]:
        """The values of several independent searches (``job``'s, None for 0). With two threads
        both take searches from the list (``Pool``); with one, a single search or small ones
        (under ``helper_min_left`` tricks), in turn."""
        todo = [j for j in jobs if j is not None]
        if len(todo) < 2 or not self.parallel or not all(self._wants_helper(j) for j in todo):
            return [0 if j is None else self.value_of_job(j) for j in jobs]
        self._make_room()
        pool = Pool(todo)
        with self._lock:
            if self.interrupted:
                raise SearchTimeout()
            self._pool = pool
        try:
            self._helper_thread().offer_pool(pool)
            pool.work(self, self.ws, self.opts, self._reverse, self.stats)  # raises on failure
            found = iter(pool.wait())
        finally:
            with self._lock:
                self._pool = None
        return [0 if j is None else next(found) for j in jobs]

    def _start(self) -> int:
        """Number a new search and mark it running (``ctl``); ``SearchTimeout`` after an
        ``interrupt``."""
        with self._lock:
            if self.interrupted:
                raise SearchTimeout()
            self._job += 1
            if self._helper is None:
                self.ctl[0] = self._job
            else:
                with self._helper.lock:
                    self.ctl[0] = self._job
        return self._job

    def _finish(self, job: int) -> None:
        """The engine's own search of ``job`` ended: stop a helper's."""
        if self._helper is None:
            self.ctl[0] = 0
        else:
            self._helper.withdraw(job)

    def at_least(self, root: Any, target: int, k: int) -> bool:
        """One null-window probe: can ``target`` take ``k`` of the remaining tricks of ``root``
        (an ``api.Root``)?"""
        self.note_deal(held_cards(root.masks, root.trick, root.leader))
        self._make_room()
        self.new_generation()
        for i, c in enumerate(root.trick):
            self.ws.tc[i] = c
        mb, vr, _ = root.flags
        problem = _problem(len(root.trick), root.leader, target, mb, vr, root.ban)
        job = self._start()
        run = Run(opts=self.opts, stats=self.stats, ctl=self.ctl, job=job, gen=self.gen)
        res = probe(split_masks(root.masks), problem, k, self.ws, self.table, run)
        if res < 0:  # only an interrupt stops a search without a helper
            raise self._stopped(job)
        self._finish(job)
        return res == 1


def _problem(pos: int, leader: int, target: int, mb: int, vr: int, ban: int) -> Problem:
    """A search's ``Problem``, every field a Python int (so numba always sees the one type)."""
    return Problem(
        pos=int(pos), leader=int(leader), target=int(target), mb=int(mb), vr=int(vr), ban=int(ban)
    )


def trick_winner_cards(cards: Sequence[int], leader: int) -> int:
    """Seat winning a complete trick of four cards led by ``leader``."""
    best = cards[0]
    w = 0
    for i in range(1, 4):
        if beats(cards[i], best):
            best = cards[i]
            w = i
    return (leader + w) % 4
