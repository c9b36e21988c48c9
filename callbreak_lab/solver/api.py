"""The solver facade: exact double-dummy values, card values and the self-interested play-out.

Positions come from ``callbreak_lab.game.Position`` (any point of a deal) or a ``Deal`` (its
start: seat 0 on lead, first trick). Values are tricks of the remaining ones, the trick in
progress included, that the target seat can guarantee against the other three together.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from callbreak_lab.cards import Card, Deal, Hand, check_seat, play_order_key
from callbreak_lab.errors import SolverInputError, UsageError, check_int
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset

from ._bounds import N_GUESS_FEATURES, first_guess, quick_bounds
from ._engine import Engine, held_cards, join_suits, split_masks, trick_winner_cards
from ._moves import legal_suits, rep_of, trick_info
from ._threads import Job

#: bump when a change could alter any solver output (datasets record it)
SOLVER_VERSION = "1.0"


@dataclass(frozen=True)
class PlayoutResult:
    """The self-interested play-out: ``cards`` played from the position on, in play order, and
    ``tricks`` won by each seat over the whole deal (tricks already won included; sums to 13 for
    a deal started from its beginning)."""

    cards: tuple[Card, ...]
    tricks: tuple[int, int, int, int]

    def to_dict(self) -> dict[str, Any]:
        """``{"cards": [...], "tricks": [t0, t1, t2, t3]}`` (cards as text)."""
        return {"cards": [str(c) for c in self.cards], "tricks": list(self.tricks)}


@dataclass
class Root:
    """A position in kernel terms (what is shipped to worker processes)."""

    masks: tuple[int, int, int, int]
    trick: tuple[int, ...]
    leader: int
    first_trick: bool
    won: tuple[int, int, int, int]
    flags: tuple[int, int, int]  # must_beat, void_rule, first_trick_spade_ban

    @property
    def ban(self) -> int:
        """1 when the spade-lead ban applies to the card to play now."""
        return int(self.flags[2] and self.first_trick and not self.trick)

    @property
    def mover(self) -> int:
        return (self.leader + len(self.trick)) % 4

    @property
    def left(self) -> int:
        """Cards the seat to move still holds (= tricks left, the current one included)."""
        return int(self.masks[self.mover]).bit_count()


_LOCAL = threading.local()


def default_threads() -> int:
    """Threads a search may use (``Engine(threads=...)``): ``CALLBREAK_LAB_SOLVER_THREADS``
    if set, else 2 on a machine with two cores or more, except in a worker process (a parallel
    batch or dataset generation already keeps every core busy with one search each)."""
    import multiprocessing
    import os

    env = os.environ.get("CALLBREAK_LAB_SOLVER_THREADS", "").strip()
    if env:
        if env not in ("1", "2"):
            raise UsageError(f"CALLBREAK_LAB_SOLVER_THREADS must be 1 or 2, got {env!r}")
        return int(env)
    if multiprocessing.parent_process() is not None:
        return 1
    return 2 if (os.cpu_count() or 1) >= 2 else 1


def engine(threads: int | None = None) -> Engine:
    """This thread's engine (created on the thread's first solve; its table is shared by every
    solve of the thread). One per thread because an engine's search state (stack, trick cards,
    table) is not safe to share: two threads solving on one engine, even with the GIL handing
    over only between kernel calls, gave wrong values (overwritten trick cards). The engine
    brings its own helper thread (``default_threads``); ``threads`` sets that for an engine
    created by this call (1: no helper, for threads that each solve their own positions side
    by side).

    Once the thread has an engine, ``threads`` must be what it was created with (None: any):
    another count is a UsageError, not a new engine, because replacing it would drop the
    thread's table (about 90 MB of entries) and the settings callers made on it (e.g.
    ``helper_gate``), while callers still holding it would go on searching on the old one."""
    if threads is not None:
        check_int(threads, "engine: threads (or None)", low=1, high=2)
    eng: Engine | None = getattr(_LOCAL, "engine", None)
    if eng is None:
        n = default_threads() if threads is None else int(threads)
        eng = _LOCAL.engine = Engine(threads=n)
        _LOCAL.threads = n  # as asked: ``Engine.threads`` is 1 whatever was asked without the JIT
    elif threads is not None and threads != _LOCAL.threads:
        raise UsageError(
            f"engine(threads={threads}): this thread already has its engine, with "
            f"threads={_LOCAL.threads} (made by its first solve or engine call); ask for the "
            "threads before the thread's first solve, or solve on another thread"
        )
    return eng


@contextmanager
def time_limit(seconds: float, eng: Engine | None = None) -> Iterator[Engine]:
    """Searches of this thread's engine (or ``eng``) inside the block stop ``seconds`` after it
    starts: the one running then, and any started later in the block, raise
    ``SearchTimeout``. Values found before stay exact, and so does the engine's table. The
    clock is a timer thread started for the block (its cost per block: benchmarks/HISTORY.md,
    "Arena")."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float | np.integer | np.floating):
        raise UsageError(f"time_limit: seconds must be a number, got {seconds!r}")
    eng = eng or engine()
    eng.resume()
    timer = threading.Timer(max(0.0, float(seconds)), eng.interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield eng
    finally:
        timer.cancel()
        timer.join()  # an interrupt already firing ends before searches are let run again
        eng.resume()


def make_root(position: Position | Deal | str, rules: Ruleset | str | None = None) -> Root:
    """Validate a Position or Deal (or deal text) and convert it to kernel terms (``rules``
    default to a Position's own; a Deal needs them)."""
    r = Ruleset.coerce(rules, default=getattr(position, "rules", None))
    flags = tuple(int(x) for x in r.kernel_flags())
    if isinstance(position, str):
        position = Deal.parse(position)
    if isinstance(position, Deal):
        masks = tuple(int(h.mask) for h in position.hands)
        root = Root(masks, (), 0, True, (0, 0, 0, 0), flags)  # type: ignore[arg-type]
    elif hasattr(position, "hands") and hasattr(position, "trick"):
        if rules is not None and isinstance(position, Position):
            _check_played(position, r)
        masks = tuple(int(h.mask) for h in position.hands)
        root = Root(
            masks,  # type: ignore[arg-type]
            tuple(int(c) for c in position.trick),
            int(position.leader),
            bool(position.is_first_trick),
            tuple(int(w) for w in position.tricks_won),  # type: ignore[arg-type]
            flags,  # type: ignore[arg-type]
        )
    else:
        raise SolverInputError(f"expected a Position or a Deal, got {type(position).__name__}")
    check_root(root)
    return root


def _check_played(position: Position, rules: Ruleset) -> None:
    """Raise IllegalPlayError unless the cards played in ``position`` are legal under ``rules``
    (free when they have the position's own legal-card switches: nothing to re-check)."""
    if rules is position.rules or rules.kernel_flags() == position.rules.kernel_flags():
        return
    position.under(rules)


def check_root(root: Root) -> None:
    """Raise SolverInputError (SeatError for the leader) unless the hands and trick form a
    position."""
    if len(root.masks) != 4:
        raise SolverInputError(f"four hands are needed, got {len(root.masks)}")
    check_seat(root.leader, "leader")
    if len(root.trick) > 3:
        raise SolverInputError(f"a trick in progress holds 0..3 cards, got {len(root.trick)}")
    seen = 0
    for q, m in enumerate(root.masks):
        if m < 0 or m >> 52:
            raise SolverInputError(f"seat {q}: hand mask outside the 52 cards")
        if seen & m:
            raise SolverInputError(f"seat {q}: holds cards another seat holds too")
        seen |= m
    for c in root.trick:
        if not 0 <= c < 52 or (seen >> c) & 1:
            raise SolverInputError(f"trick card {c} is not a card or is also in a hand")
        seen |= 1 << c
    n = int(root.masks[root.mover]).bit_count()
    for j in range(4):
        q = (root.leader + j) % 4
        want = n - 1 if j < len(root.trick) else n
        got = int(root.masks[q]).bit_count()
        if got != want:
            raise SolverInputError(
                f"seat {q} holds {got} cards, expected {want} (hands of inconsistent sizes for "
                f"a trick of {len(root.trick)} card(s) led by seat {root.leader})"
            )
    if root.trick and n == 0:
        raise SolverInputError("a trick in progress needs cards left to finish it")


def job_of(root: Root, seat: int, eng: Engine, **bounds: Any) -> Job | None:
    """The search for ``seat``'s value of a validated root (``Engine.job``; None: no trick
    left, value 0)."""
    mb, vr, _ = root.flags
    if root.left == 0:
        return None
    return eng.job(
        split_masks(root.masks), root.trick, root.leader, seat, mb, vr, root.ban, **bounds
    )


def value_of(root: Root, seat: int, eng: Engine | None = None, **bounds: Any) -> int:
    """Value (remaining tricks) of a validated root for ``seat``."""
    eng = eng or engine()
    eng.new_generation()
    job = job_of(root, seat, eng, **bounds)
    return 0 if job is None else eng.value_of_job(job)


def solve(position: Position | Deal | str, seat: int, rules: Ruleset | str | None = None) -> int:
    """Tricks of the remaining ones (trick in progress included) ``seat`` can guarantee when all
    hands are visible and the other three seats play together against it."""
    seat = check_seat(seat)
    return value_of(make_root(position, rules), seat)


def dd_table(
    position: Position | Deal | str, rules: Ruleset | str | None = None
) -> tuple[int, int, int, int]:
    """The value for each of the four seats."""
    return table_of(make_root(position, rules))


def table_of(root: Root, eng: Engine | None = None) -> tuple[int, int, int, int]:
    """The four seats' values of a validated root, searched side by side when the engine has
    two threads."""
    eng = eng or engine()
    eng.new_generation()
    v = eng.values([job_of(root, t, eng) for t in range(4)])
    return (v[0], v[1], v[2], v[3])


def legal_mask(root: Root) -> int:
    """Legal cards of the seat to move, as a 52-bit mask."""
    hands = split_masks(root.masks)
    out = np.zeros(4, dtype=np.int64)
    pos = len(root.trick)
    led = best = 0
    if pos:
        tc = np.array(root.trick, dtype=np.int64)
        led, best, _ = trick_info(tc, 0, pos)
    legal_suits(hands[root.mover], pos, led, best, root.flags[0], root.flags[1], root.ban, out)
    return join_suits(out)


def child(root: Root, card: int) -> tuple[Root, int]:
    """The position after the mover plays ``card`` and the seat that won the trick if the card
    completed it (else -1)."""
    masks = list(root.masks)
    masks[root.mover] ^= 1 << card
    trick = (*root.trick, card)
    won = list(root.won)
    if len(trick) < 4:
        nxt = Root(tuple(masks), trick, root.leader, root.first_trick, root.won, root.flags)  # type: ignore[arg-type]
        return nxt, -1
    w = trick_winner_cards(trick, root.leader)
    won[w] += 1
    nxt = Root(tuple(masks), (), w, False, tuple(won), root.flags)  # type: ignore[arg-type]
    return nxt, w


def _rep(root: Root, card: int) -> int:
    """The representative (lowest) card of the run of equivalent cards holding ``card``."""
    s = card // 13
    live = 0
    for m in root.masks:
        live |= (m >> (13 * s)) & 0x1FFF
    for c in root.trick:
        if c // 13 == s:
            live |= 1 << (c % 13)
    mine = (root.masks[root.mover] >> (13 * s)) & 0x1FFF
    return int(rep_of(card, mine, live))


def representative(root: Root, card: int) -> int:
    """The card that stands for ``card`` of the mover's: the lowest of its run of equivalent
    cards (the same double-dummy value, the cards between them gone or the mover's own)."""
    return _rep(root, card)


def estimate_of(root: Root, seat: int) -> int:
    """A quick estimate of ``seat``'s value at a validated root (the first probe a solve from a
    trick boundary would make, ``_bounds.first_guess``); mid-trick, the estimate at the trick's
    start, with the trick's cards back in their hands. It only steers searches."""
    hands = split_masks(held_cards(root.masks, root.trick, root.leader))
    mb, vr, _ = root.flags
    lb, ub, _lm, _um = quick_bounds(hands, root.leader, seat, root.left, vr)
    buf = np.zeros(N_GUESS_FEATURES, dtype=np.int64)
    return int(first_guess(hands, root.leader, seat, root.left, lb, ub, mb * 2 + vr, buf))


def _child_job(
    root: Root, card: int, seat: int, eng: Engine, lo: int, hi: int, guess: int | None = None
) -> tuple[int, Job | None]:
    """(tricks ``seat`` wins by the trick ``card`` completes, the search for its value of the
    remaining ones after ``card``; None: none left). ``lo``..``hi``: bounds on the root's
    value; the mover's children are worth at most ``hi`` when it is ``seat`` (it maximises),
    at least ``lo`` otherwise. ``guess``: the root's estimate to start from; by default the
    child's bound (where a child of a known value usually is)."""
    nxt, w = child(root, card)
    bonus = 1 if w == seat else 0
    if nxt.left == 0:
        return bonus, None
    if root.mover == seat:
        clo, chi = 0, min(max(0, hi - bonus), nxt.left)
        first = chi if guess is None else guess - bonus
    else:
        clo, chi = min(max(0, lo - bonus), nxt.left), nxt.left
        first = clo + 1 if guess is None else guess - bonus
    return bonus, job_of(nxt, seat, eng, lo=clo, hi=chi, guess=min(max(first, clo), chi))


def _reps_of(root: Root, only: int | None) -> tuple[dict[int, int], bool]:
    """({legal card: its run's representative} for the mover's legal cards whose run holds a
    card of ``only`` (a mask; None: every legal card), whether some run was left out)."""
    legal = legal_mask(root)
    reps = {c: _rep(root, c) for c in range(52) if (legal >> c) & 1}
    if only is None:
        return reps, False
    kept = {r for c, r in reps.items() if (only >> c) & 1}
    return {c: r for c, r in reps.items() if r in kept}, len(kept) < len(set(reps.values()))


def values_of(
    root: Root,
    seat: int,
    eng: Engine | None = None,
    lo: int = 0,
    hi: int | None = None,
    only: int | None = None,
) -> dict[int, int]:
    """Value for ``seat`` after each legal card of the mover (``only``: those in the runs of
    equivalent cards of this mask, the root's value then not proved). ``lo`` / ``hi``:
    bounds on the root's value already known to hold (save proving them again; ``lo == hi``
    when the value is known, e.g. along a double-dummy line, where it never changes). One card
    per run of equivalent ones is searched; with two threads the children side by side.

    When the root's value is not known, one thread proves it first and the children are then
    searched within it. With two threads and at least ``Engine.children_first_left`` tricks
    left the children are searched at once instead, each from the root's estimate: the root's
    value is their best, so the children need the same probes, and the pool shares all of the
    work out where the helper only joined the root's proof (benchmarks/HISTORY.md, "Solver
    constants and layouts")."""
    eng = eng or engine()
    if root.left == 0:
        return {}
    lo = min(max(lo, 0), root.left)
    hi = root.left if hi is None else min(max(hi, lo), root.left)
    reps, some = _reps_of(root, only)
    distinct = sorted(set(reps.values()))
    if lo < hi and (
        some or (eng.parallel and len(distinct) > 1 and root.left >= eng.children_first_left)
    ):
        # the root's value comes out of its children's (their best): no proof of the root
        # first, and the pool shares out all of the work instead of the helper joining a proof
        eng.new_generation()
        # one above the root's estimate: a child's probe above its value is a "no" proof, where
        # the seat's every card is refuted by one reply each, many times cheaper than a "yes"
        # proof below it, where every reply is (the nodes: benchmarks/HISTORY.md, "Card values")
        guess = estimate_of(root, seat) + 1
        jobs = [_child_job(root, c, seat, eng, lo, hi, guess) for c in distinct]
    else:
        v = lo if lo == hi else value_of(root, seat, eng, lo=lo, hi=hi)
        eng.new_generation()
        jobs = [_child_job(root, c, seat, eng, v, v) for c in distinct]
    found = eng.values([j for _, j in jobs])
    memo = {c: bonus + x for c, (bonus, _), x in zip(distinct, jobs, found, strict=True)}
    return {c: memo[rc] for c, rc in reps.items()}


def _check_cards(root: Root, cards: object) -> int | None:
    """``cards`` as a mask that holds a legal card of the mover (None stays None)."""
    if cards is None:
        return None
    only = check_int(cards, "cards (a mask of cards)", error=SolverInputError)
    if not 0 < only < 1 << 52:
        raise SolverInputError(f"cards must be a non-empty mask of the 52 cards, got {cards!r}")
    if not only & legal_mask(root):
        raise SolverInputError(f"cards holds none of the mover's legal cards: {Hand(only)}")
    return only


def values_within(
    root: Root, seat: int, lo: int, hi: int, eng: Engine | None = None, only: int | None = None
) -> dict[int, int]:
    """Value for ``seat`` after each legal card of the mover (``only``: those in the runs of
    equivalent cards of this mask), clipped to ``lo``..``hi``
    (``max(lo, min(hi, value))``), by null-window probes upwards from ``lo``: at most
    ``hi - lo`` a run of equivalent cards, each one search's proof at a single count. A seat
    paid by whether it reaches a count needs nothing more, and a proof at a count away from
    the value is often far cheaper than finding the value (the value itself is proved from
    both sides)."""
    eng = eng or engine()
    reps, _ = _reps_of(root, only)
    memo: dict[int, int] = {}
    for c in sorted(set(reps.values())):
        nxt, w = child(root, c)
        bonus = 1 if w == seat else 0
        v = lo
        for t in range(lo + 1, hi + 1):
            need = t - bonus
            if need > nxt.left:
                break
            if need > 0 and not eng.at_least(nxt, seat, need):
                break
            v = t
        memo[c] = v
    return {c: memo[rc] for c, rc in reps.items()}


def card_values_within(
    position: Position | Deal | str,
    seat: int,
    rules: Ruleset | str | None = None,
    *,
    lo: int = 0,
    hi: int = 13,
    cards: int | None = None,
) -> dict[Card, int]:
    """For every legal card of the player to move: ``seat``'s value after it (as
    ``card_values``) clipped to ``lo``..``hi``; a value at or below ``lo`` shows as ``lo``, one
    at or above ``hi`` as ``hi``. Cheaper than ``card_values`` when the window is narrow:
    ``seat.policy`` asks whether each card still reaches the seat's call and one trick more.
    ``cards``: only the legal cards equivalent to one of this mask's (as ``card_values``)."""
    seat = check_seat(seat)
    root = make_root(position, rules)
    only = _check_cards(root, cards)
    check_int(lo, "lo", error=SolverInputError)
    check_int(hi, "hi", error=SolverInputError)
    if not 0 <= int(lo) <= int(hi):
        raise SolverInputError(f"the window needs 0 <= lo <= hi, got lo={lo}, hi={hi}")
    eng = engine()
    eng.new_generation()
    got = values_within(root, seat, int(lo), int(hi), eng, only=only)
    return {Card(c): v for c, v in got.items()}


def card_values(
    position: Position | Deal | str,
    seat: int,
    rules: Ruleset | str | None = None,
    *,
    at_least: int = 0,
    at_most: int | None = None,
    cards: int | None = None,
) -> dict[Card, int]:
    """For every legal card of the player to move: the value for ``seat`` (remaining tricks,
    trick in progress included) after that card. Equivalent cards get the same value.

    ``at_least`` / ``at_most``: bounds the position's value is already known to respect for
    ``seat`` (for example its value at an earlier point of the same double-dummy line, where
    both hold); wrong ones give wrong answers. ``cards``: a mask of the cards to value (None:
    every legal card): only the legal cards equivalent to one of them are searched and
    returned, which saves the others' searches (a policy that leaves out cards it will not
    play)."""
    seat = check_seat(seat)
    root = make_root(position, rules)
    only = _check_cards(root, cards)
    check_int(at_least, "at_least", error=SolverInputError)
    if at_most is not None:
        check_int(at_most, "at_most", error=SolverInputError)
    if at_most is not None and int(at_most) < int(at_least):
        raise SolverInputError(f"at_most ({at_most}) is below at_least ({at_least})")
    if int(at_least) > root.left:  # no value can reach it: a wrong bound, not a clamp
        raise SolverInputError(f"at_least ({at_least}) is above the {root.left} tricks left")
    hi = None if at_most is None else int(at_most)
    got = values_of(root, seat, lo=int(at_least), hi=hi, only=only)
    return {Card(c): v for c, v in got.items()}


def playout_of(
    root: Root, eng: Engine | None = None, known: tuple[int, ...] | None = None
) -> PlayoutResult:
    """The self-interested play-out of a validated root. ``known``: a lower bound on each seat's
    value at the root (its value when already solved, as in a ``dd_table``, 0 when unknown), so
    the play-out does not prove it again."""
    eng = eng or engine()
    cards: list[Card] = []
    won = list(root.won)
    # lower bounds on each seat's value (remaining tricks): another seat's card can only raise a
    # seat's value (its value is the minimum over the other seats' choices), and the mover's
    # own chosen card keeps it, so the value found at a seat's previous decision still holds
    lows = [0, 0, 0, 0] if known is None else [int(x) for x in known]
    if len(lows) != 4 or not all(0 <= x <= root.left for x in lows):
        raise SolverInputError(f"known values must be four ints in 0..{root.left}, got {known!r}")
    while root.left > 0:
        legal = legal_mask(root)
        cand = sorted((c for c in range(52) if (legal >> c) & 1), key=play_order_key)
        choice = cand[0]
        if len(cand) > 1:
            me = root.mover
            lo = min(lows[me], root.left)
            v = value_of(root, me, eng, lo=lo, guess=min(lo + 1, root.left))
            lows[me] = v
            memo: dict[int, bool] = {}
            for c in cand:
                rc = _rep(root, c)
                if rc not in memo:
                    nxt, w = child(root, rc)
                    need = v - (1 if w == me else 0)
                    if need <= 0 or nxt.left == 0:
                        memo[rc] = need <= 0
                    else:
                        memo[rc] = eng.at_least(nxt, me, need)
                if memo[rc]:
                    choice = c
                    break
            else:  # pragma: no cover - the maximum over the children is v by definition
                raise AssertionError("internal error: no card reaches the position's value")
        cards.append(Card(choice))
        root, w = child(root, choice)
        if w >= 0:
            won[w] += 1
            lows[w] = max(0, lows[w] - 1)
    return PlayoutResult(tuple(cards), (won[0], won[1], won[2], won[3]))


def playout(position: Position | Deal | str, rules: Ruleset | str | None = None) -> PlayoutResult:
    """From the position, each player to move plays a legal card maximising its own double-dummy
    value after the card (ties: lowest rank, then clubs < diamonds < hearts < spades), to the
    end. ``tricks`` counts the whole deal, tricks already won included."""
    return playout_of(make_root(position, rules))


#: a fixed deal whose last three tricks ``warm_up`` solves
_WARM_DEAL = "AKQ2.T98.765.432 JT98.AKQ.432.765 7654.765.AKQ.T98 3.J432.JT98.AKQJ"


def warm_up() -> None:
    """Load (or compile) the kernels on a small ending, so that the first real search is not
    charged for it (seconds, once per process): servers and timed players call it before
    their clocks start."""
    rules = Ruleset.preset("online")
    pos = Position(Deal.parse(_WARM_DEAL), rules)
    while len(pos.history) < 40:
        pos.play(pos.legal_cards().lowest())
    card_values(pos, pos.to_move, rules)
    dd_table(pos, rules)
    playout(pos, rules)
