"""Single-dummy simulation: deal the unseen cards around a known hand and solve every layout.

``deal_around`` samples layouts of the 39 unseen cards uniformly among all layouts consistent with
what a player knows (its own hand, cards known at other seats, suits other seats are known to be
void in). ``monte_carlo`` solves every sampled layout with the double-dummy solver's batch
functions and summarises, for one seat, the distribution of its play-out tricks (the forecast the
bid model learns) and of its guaranteed tricks (the double-dummy floor), plus the expected score of
every legal call. It is the slow, exact-in-the-limit reference the bid model approximates.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from math import comb
from typing import TypeAlias

import numpy as np

from callbreak_lab.bidding import calls as _calls
from callbreak_lab.cards import FULL_MASK, Deal, Hand, HandLike, as_rng, check_seat
from callbreak_lab.errors import HandError, NotationError, SolverInputError
from callbreak_lab.rules import Ruleset

__all__ = [
    "MonteCarloResult",
    "deal_around",
    "deals_from_masks",
    "monte_carlo",
]

#: the most layouts one call deals (``deal_around``, ``monte_carlo``): a million is already
#: hours to days of double-dummy solving
MAX_LAYOUTS = 1_000_000

_SUIT_ALIASES = {"c": 0, "d": 1, "h": 2, "s": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3}
_SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


VoidSuits: TypeAlias = Iterable[int | str] | int | str


# ---------------------------------------------------------------------------------------------
# Input checking
# ---------------------------------------------------------------------------------------------


def _hand(h: HandLike, what: str) -> Hand:
    """``h`` parsed, a HandError naming ``what`` (which cards of which seat) when it is not."""
    try:
        return Hand.parse(h)
    except NotationError as e:
        raise HandError(f"{what}: {e}") from None


def _suit(x: object) -> int:
    if isinstance(x, str):
        s = x.strip().lower()
        if s in _SUIT_ALIASES:
            return _SUIT_ALIASES[s]
        if s in _SUIT_NAMES:
            return _SUIT_NAMES.index(s)
    elif isinstance(x, int | np.integer) and not isinstance(x, bool) and 0 <= x <= 3:
        return int(x)
    raise NotationError(f"a void suit is 0..3 or a suit letter/name, got {x!r}")


def _fixed_masks(
    hand: HandLike, seat: int, known: Mapping[int, HandLike] | None
) -> tuple[list[int], Hand]:
    """Per-seat known masks (the own hand plus ``known``), checked for clashes and overflow."""
    seat = check_seat(seat)
    own = _hand(hand, "hand")
    if len(own) != 13:
        raise HandError(f"the known hand must hold 13 cards for a full deal, got {len(own)}")
    fixed = [0, 0, 0, 0]
    fixed[seat] = own.mask
    for s, cards in (known or {}).items():
        s = check_seat(s, "a seat in known")
        h = _hand(cards, f"known cards of seat {s}")
        if s == seat:
            if not h.issubset(own):
                extra = (h - own).card_list()
                raise SolverInputError(f"known cards {extra} of seat {s} are not in its own hand")
            continue
        for other in range(4):
            clash = h.mask & fixed[other]
            if clash:
                who = "the known hand" if other == seat else f"seat {other}"
                raise SolverInputError(
                    f"card(s) {Hand(clash).card_list()} placed at seat {s} are also at {who}"
                )
        fixed[s] |= h.mask
        if fixed[s].bit_count() > 13:
            raise SolverInputError(f"seat {s} has {fixed[s].bit_count()} known cards, at most 13")
    return fixed, own


def _void_table(voids: Mapping[int, VoidSuits] | None) -> list[set[int]]:
    """``voids[seat]`` -> set of suits that seat receives no unseen card of."""
    table: list[set[int]] = [set(), set(), set(), set()]
    for s, suits in (voids or {}).items():
        s = check_seat(s, "a seat in voids")
        items: list[object] = [suits] if isinstance(suits, str | int) else list(suits)
        table[s].update(_suit(x) for x in items)
    return table


# ---------------------------------------------------------------------------------------------
# Exact uniform dealing under void constraints
# ---------------------------------------------------------------------------------------------


def _splits(total: int, eligible: list[int], cap: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every way to split ``total`` cards of one suit among the eligible seats (a 4-tuple per
    split, zero at ineligible seats), respecting each seat's remaining capacity ``cap``."""
    out: list[tuple[int, ...]] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if i == len(eligible):
            if left == 0:
                out.append(tuple(acc))
            return
        s = eligible[i]
        for k in range(min(left, cap[s]) + 1):
            acc[s] = k
            rec(i + 1, left - k, acc)
        acc[s] = 0

    rec(0, total, [0, 0, 0, 0])
    return out


def _multinomial(total: int, ks: tuple[int, ...]) -> int:
    out, left = 1, total
    for k in ks:
        out *= comb(left, k)
        left -= k
    return out


@dataclass(frozen=True)
class _Plan:
    """Per-suit sampling tables: ``rows[x]`` maps a remaining-need code to a row of ``cum[x]``,
    the cumulative probabilities over the candidate splits ``splits[x]`` of suit ``x``."""

    unseen: list[np.ndarray]  # per suit: the unseen cards of the suit (int64)
    splits: list[np.ndarray]  # per suit: (n_candidates, 4) int64
    rows: list[np.ndarray]  # per suit: need code -> row of cum (-1 when unreachable)
    cum: list[np.ndarray]  # per suit: (n_states, n_candidates) float64


def _code(need: tuple[int, ...]) -> int:
    return need[0] + 14 * (need[1] + 14 * (need[2] + 14 * need[3]))


def _plan(fixed: list[int], voids: list[set[int]]) -> _Plan:
    """Count the consistent layouts suit by suit (exactly, in Python ints) and turn the counts into
    sampling tables. Raises SolverInputError when no layout exists."""
    known_all = fixed[0] | fixed[1] | fixed[2] | fixed[3]
    rest = FULL_MASK & ~known_all
    need0 = tuple(13 - m.bit_count() for m in fixed)
    unseen = [
        np.array([c for c in range(13 * x, 13 * x + 13) if rest >> c & 1], dtype=np.int64)
        for x in range(4)
    ]
    sizes = [len(u) for u in unseen]
    eligible = [[s for s in range(4) if need0[s] > 0 and x not in voids[s]] for x in range(4)]
    for s in range(4):
        room = sum(sizes[x] for x in range(4) if x not in voids[s])
        if need0[s] > room:
            void_text = ", ".join(_SUIT_NAMES[x] for x in sorted(voids[s]))
            raise SolverInputError(
                f"seat {s} needs {need0[s]} more cards but only {room} unseen cards are outside "
                f"its void suits ({void_text})"
            )
    for x in range(4):
        if sizes[x] and not eligible[x]:
            raise SolverInputError(
                f"{sizes[x]} unseen {_SUIT_NAMES[x]} but every seat that still needs cards is "
                f"void in {_SUIT_NAMES[x]}"
            )
    # Backward pass: weight[x][need] = number of ways to deal suits x..3 into the remaining needs.
    weight: list[dict[tuple[int, ...], int]] = [{} for _ in range(5)]
    weight[4] = {(0, 0, 0, 0): 1}

    def w(x: int, need: tuple[int, ...]) -> int:
        if x == 4:
            return 1 if not any(need) else 0
        memo = weight[x]
        if need not in memo:
            total = 0
            for ks in _splits(sizes[x], eligible[x], need):
                nxt = tuple(n - k for n, k in zip(need, ks, strict=True))
                total += _multinomial(sizes[x], ks) * w(x + 1, nxt)
            memo[need] = total
        return memo[need]

    if w(0, need0) == 0:
        raise SolverInputError(
            "no layout of the unseen cards satisfies the known cards and voids "
            f"(cards still needed per seat {list(need0)}, unseen per suit {sizes})"
        )
    splits: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    cums: list[np.ndarray] = []
    for x in range(4):
        cand = _splits(sizes[x], eligible[x], (13, 13, 13, 13))
        states = [need for need, v in weight[x].items() if v > 0]
        cum = np.zeros((len(states), len(cand)), dtype=np.float64)
        for r, need in enumerate(states):
            for j, ks in enumerate(cand):
                nxt = tuple(n - k for n, k in zip(need, ks, strict=True))
                if min(nxt) >= 0:
                    cum[r, j] = _multinomial(sizes[x], ks) * w(x + 1, nxt) / weight[x][need]
        cum = np.cumsum(cum, axis=1)
        cum[:, -1] = 2.0  # exact top so floating-point sums never leave a draw unassigned
        splits.append(np.array(cand, dtype=np.int64).reshape(len(cand), 4))
        lookup = np.full(14**4, -1, dtype=np.int64)
        lookup[[_code(need) for need in states]] = np.arange(len(states))
        rows.append(lookup)
        cums.append(cum)
    return _Plan(unseen, splits, rows, cums)


@functools.lru_cache(maxsize=32)
def _plan_for(fixed: tuple[int, ...], voids: tuple[frozenset[int], ...]) -> _Plan:
    """``_plan`` kept for repeated calls with the same constraints (a sampler that rejects
    layouts deals again around the same table; the tables are read only)."""
    return _plan(list(fixed), [set(v) for v in voids])


def deal_around(
    hand: HandLike,
    seat: int,
    n: int,
    seed: int | np.random.Generator | None = 0,
    known: Mapping[int, HandLike] | None = None,
    voids: Mapping[int, VoidSuits] | None = None,
) -> np.ndarray:
    """``n`` layouts of the unseen cards around ``hand`` held at ``seat``: an ``(n, 4)`` uint64
    array of hand masks in seat order (row ``i`` is one full deal; see ``deals_from_masks``).

    ``known`` places more cards at given seats (e.g. cards seen played); ``voids`` says seat ``s``
    receives no unseen card of the listed suits (ints 0..3 or ``"C" "D" "H" "S"``; cards placed
    by ``known`` are exempt). Every layout consistent with these constraints is equally likely.

    Why it is exactly uniform: a layout is fixed by (a) how many cards of each suit each seat
    gets, the count matrix ``k[x][s]``, and (b) which cards of each suit those are. Given the
    count matrix, the layouts number ``prod_x multinomial(u_x; k[x][.])`` and are equally likely
    exactly when each suit's unseen cards are randomly permuted and split by the counts, which is
    step (b). Step (a) draws the count matrix suit by suit with probability proportional to that
    product times the number of ways to deal the remaining suits into the remaining needs, a
    count computed exactly with integers by dynamic programming over the remaining needs (the
    multivariate-hypergeometric counts, restricted to the seats not void in the suit). With no
    voids this reduces to the ordinary random deal. Impossible constraints raise
    ``SolverInputError`` before any drawing. Deterministic for an int seed or a given Generator.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise SolverInputError(f"n must be a non-negative int, got {n!r}")
    if n > MAX_LAYOUTS:  # the arrays alone would not fit in memory long before solving ended
        raise SolverInputError(f"n must be at most {MAX_LAYOUTS:,} layouts, got {n:,}")
    fixed, _ = _fixed_masks(hand, seat, known)
    table = _void_table(voids)
    if not any(table):
        return _deal_plain(fixed, int(n), as_rng(seed))
    plan = _plan_for(tuple(fixed), tuple(frozenset(v) for v in table))
    rng = as_rng(seed)  # a bad seed is a DealError naming it
    n = int(n)
    masks = np.tile(np.array(fixed, dtype=np.uint64), (n, 1))
    need = np.tile(np.array([13 - m.bit_count() for m in fixed], dtype=np.int64), (n, 1))
    for x in range(4):
        cards = plan.unseen[x]
        if not len(cards):
            continue
        code = need[:, 0] + 14 * (need[:, 1] + 14 * (need[:, 2] + 14 * need[:, 3]))
        row = plan.rows[x][code]
        u = rng.random(n)
        choice = (plan.cum[x][row] <= u[:, None]).sum(axis=1)
        counts = plan.splits[x][choice]  # (n, 4)
        need -= counts
        perm = np.argsort(rng.random((n, len(cards))), axis=1)
        shuffled = cards[perm]  # (n, u_x)
        bounds = np.cumsum(counts, axis=1)  # seat s takes positions [bounds[s-1], bounds[s])
        pos = np.arange(len(cards))[None, :]
        owner = (pos[:, :, None] >= bounds[:, None, :]).sum(axis=2)  # (n, u_x) seat 0..3
        bits = np.left_shift(np.uint64(1), shuffled.astype(np.uint64))
        for s in range(4):
            masks[:, s] |= np.bitwise_or.reduce(np.where(owner == s, bits, np.uint64(0)), axis=1)
    if n and np.any(need):
        raise AssertionError("internal error: a seat was left short of cards")
    return masks


def _deal_plain(fixed: list[int], n: int, rng: np.random.Generator) -> np.ndarray:
    """``deal_around`` without voids: each row a uniform random permutation of the unseen cards
    split by the seats' remaining needs (the ordinary random deal; no counting tables)."""
    rest = FULL_MASK & ~(fixed[0] | fixed[1] | fixed[2] | fixed[3])
    cards = np.array([c for c in range(52) if rest >> c & 1], dtype=np.uint64)
    need = [13 - m.bit_count() for m in fixed]
    if sum(need) != len(cards) or min(need) < 0:  # _fixed_masks keeps hands at 13 at most
        raise SolverInputError(f"the known cards leave needs {need} for {len(cards)} unseen cards")
    masks = np.tile(np.array(fixed, dtype=np.uint64), (n, 1))
    if n == 0 or len(cards) == 0:
        return masks
    perm = np.argsort(rng.random((n, len(cards))), axis=1)
    bits = np.left_shift(np.uint64(1), cards[perm])  # (n, unseen) in dealing order
    start = 0
    for s in range(4):
        if need[s]:
            masks[:, s] |= np.bitwise_or.reduce(bits[:, start : start + need[s]], axis=1)
        start += need[s]
    return masks


def deals_from_masks(masks: np.ndarray) -> list[Deal]:
    """``Deal`` objects (validated) from an ``(n, 4)`` array of hand masks."""
    arr = np.asarray(masks)
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise SolverInputError(f"masks must have shape (n, 4), got {arr.shape}")
    return [Deal([Hand(int(m)) for m in row]) for row in arr]


# ---------------------------------------------------------------------------------------------
# Single-dummy Monte Carlo
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MonteCarloResult:
    """Single-dummy summary for one seat over ``n`` sampled layouts.

    ``playout``/``dd``: per-layout play-out tricks and guaranteed tricks (double-dummy value) of
    the seat; ``playout_dist``/``dd_dist``: their distributions over 0..13 (14 probabilities);
    ``calls``: the legal calls; ``expected``: expected score in tenths of each call when the
    seat takes its play-out tricks, with standard errors ``expected_se``; ``advice``: the best
    call (``calls.best_call`` on ``playout_dist``); ``masks``: the layouts (n, 4) uint64.
    """

    hand: Hand
    seat: int
    rules: Ruleset
    masks: np.ndarray
    playout: np.ndarray
    dd: np.ndarray
    playout_dist: np.ndarray
    dd_dist: np.ndarray
    calls: np.ndarray
    expected: np.ndarray
    expected_se: np.ndarray
    advice: _calls.CallAdvice

    @property
    def n(self) -> int:
        """Number of layouts solved."""
        return int(self.playout.shape[0])

    @property
    def best_call(self) -> int:
        """The call with the best expected score (ties to the lower call)."""
        return self.advice.call

    @property
    def mean_playout(self) -> tuple[float, float]:
        """Mean play-out tricks and its standard error."""
        return _mean_se(self.playout)

    @property
    def mean_dd(self) -> tuple[float, float]:
        """Mean guaranteed tricks and its standard error."""
        return _mean_se(self.dd)

    def table(self) -> list[tuple[int, float, float]]:
        """Rows ``(call, expected score in tenths, standard error)``."""
        return [
            (int(c), float(e), float(s))
            for c, e, s in zip(self.calls, self.expected, self.expected_se, strict=True)
        ]


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    n = len(x)
    if n == 0:
        return float("nan"), float("nan")
    se = float(np.std(x, ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return float(np.mean(x)), se


def _distribution(tricks: np.ndarray) -> np.ndarray:
    return np.bincount(tricks.astype(np.int64), minlength=14)[:14] / max(len(tricks), 1)


def _solve_layouts(
    masks: np.ndarray, seat: int, rules: Ruleset, n_jobs: int, progress: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The seat's guaranteed and play-out tricks in every layout, via the solver's batch call
    (one pass per layout: the seat's value, then the play-out from it and the same table; the
    other seats' values are never solved at the root, which would cost about 3x more)."""
    from callbreak_lab import solver

    deals = deals_from_masks(masks)
    dd, results = solver.values_and_playouts(deals, seat, rules, n_jobs=n_jobs, progress=progress)
    po = np.array([r.tricks[seat] for r in results], dtype=np.int64)
    return dd.reshape(len(deals)), po


def _solve_until(
    masks: np.ndarray, seat: int, rules: Ruleset, seconds: float
) -> tuple[np.ndarray, np.ndarray]:
    """``_solve_layouts`` one layout at a time until ``seconds`` have passed (one at least)."""
    t0 = time.perf_counter()
    dd: list[int] = []
    po: list[int] = []
    for row in masks:
        if dd and time.perf_counter() - t0 >= seconds:
            break
        d, p = _solve_layouts(row[None, :], seat, rules, 1, False)
        dd.append(int(d[0]))
        po.append(int(p[0]))
    return np.array(dd, dtype=np.int64), np.array(po, dtype=np.int64)


def monte_carlo(
    hand: HandLike,
    seat: int,
    rules: Ruleset | str,
    n: int = 200,
    seed: int | np.random.Generator | None = 0,
    n_jobs: int = 1,
    progress: bool = False,
    known: Mapping[int, HandLike] | None = None,
    voids: Mapping[int, VoidSuits] | None = None,
    time_limit: float | None = None,
) -> MonteCarloResult:
    """Single-dummy reference for ``hand`` at ``seat``: deal ``n`` layouts with ``deal_around``,
    solve each (play-out and double-dummy value, seat 0 on lead) and summarise.

    Expected scores are exact for the sampled layouts; their standard errors shrink like
    ``1/sqrt(n)``. ``rules`` is a ``Ruleset`` or a preset name; ``known``/``voids`` as in
    ``deal_around``. ``time_limit`` (seconds, with ``n_jobs=1``): solve the layouts in order
    and start no new one once that much time has passed; the result then summarises the
    layouts solved (``n`` says how many, at least one). A layout's solve ranges from
    milliseconds to seconds, so a bound on the count alone does not bound the time.
    """
    r = Ruleset.coerce(rules)
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise SolverInputError(f"n must be a positive int, got {n!r}")
    if time_limit is not None and (not time_limit > 0 or n_jobs != 1):
        raise SolverInputError(
            f"time_limit must be a positive number of seconds, with n_jobs=1; got {time_limit!r}"
            f" with n_jobs={n_jobs!r}"
        )
    masks = deal_around(hand, seat, int(n), seed, known=known, voids=voids)
    own = Hand(int(masks[0, seat]))
    if time_limit is None:
        dd, po = _solve_layouts(masks, int(seat), r, n_jobs, progress)
    else:
        dd, po = _solve_until(masks, int(seat), r, float(time_limit))
        masks = masks[: len(po)]
    po_dist = _distribution(po)
    scores = _calls.score_matrix(r)[:, po]  # (n_calls, n) tenths per layout
    expected = _calls.expected_scores(po_dist, r)
    se = (
        scores.std(axis=1, ddof=1) / np.sqrt(len(po))
        if len(po) > 1
        else np.full(len(expected), np.nan)
    )
    return MonteCarloResult(
        hand=own,
        seat=int(seat),
        rules=r,
        masks=masks,
        playout=po,
        dd=dd,
        playout_dist=po_dist,
        dd_dist=_distribution(dd),
        calls=_calls.legal_calls(r),
        expected=expected,
        expected_se=se,
        advice=_calls.best_call(po_dist, r),
    )
