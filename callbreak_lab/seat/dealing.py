"""Exact uniform dealing of the unseen cards around known cards and void suits.

``deal_around`` samples layouts of the unseen cards uniformly among all layouts consistent with
cards placed at seats (a seat's own hand, cards seen played) and suits seats are known to be void
in. It is the base of the one dealer of hidden cards (``seat.layouts``), which adds the other
limits the play shows and the calls' weights, and of the Monte Carlo reference of a hand
(``analysis.montecarlo``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from math import comb
from typing import TypeAlias

import numpy as np

from callbreak_lab.cards import FULL_MASK, Deal, Hand, HandLike, as_rng, check_seat
from callbreak_lab.errors import HandError, NotationError, SolverInputError, check_int

__all__ = [
    "MAX_LAYOUTS",
    "VoidSuits",
    "deal_around",
    "deals_from_masks",
]

#: the most layouts one call deals (``deal_around``, the Monte Carlo reference): a million is
#: already hours to days of double-dummy solving
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


def _plan(fixed: list[int], voids: list[set[int]]) -> _Plan:  # noqa: C901  (the counting plan's cases, each one exact)
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
    n = check_int(n, "n", low=0, error=SolverInputError)
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
