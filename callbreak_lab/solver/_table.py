"""Numba kernels: the transposition table (bounds at trick boundaries, keyed on relative ranks).

A key describes, for each suit, which seat holds each remaining card in rank order (2 bits per
card) and how many remain, so positions equal up to relative ranks share an entry. The key also
holds the leader, the target seat and the rule switches, so an entry is a fact about an abstract
position that stays true across deals: the table never needs clearing, only a generation counter
to prefer replacing entries of earlier solves.

Layout: ``keys[i, 0..1]`` the two key words; ``info[i]`` = (lower, upper, best lead, tricks left);
``gens[i]`` generation (0 = empty). Slots are grouped in buckets of ``WAYS``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._consts import LO

WAYS = 4


def new_table(log2_slots: int = 21) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Allocate an empty table of ``2**log2_slots`` slots (keys, info, generations)."""
    n = 1 << log2_slots
    keys = np.zeros((n, 2), dtype=np.int64)
    info = np.zeros((n, 4), dtype=np.int8)
    gens = np.zeros(n, dtype=np.int32)
    return keys, info, gens


@njit(cache=True)
def make_key(hands, leader, target, mb, vr):  # type: ignore[no-untyped-def]
    """The two key words of the trick-boundary position (relative ranks)."""
    k1 = 0
    k2 = 0
    for s in range(4):
        live = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
        code = 0
        n = 0
        while live != 0:
            r = LO[live]
            live &= live - 1
            o = 0
            if (hands[1, s] >> r) & 1:
                o = 1
            elif (hands[2, s] >> r) & 1:
                o = 2
            elif (hands[3, s] >> r) & 1:
                o = 3
            code |= o << (2 * n)
            n += 1
        v = code | (n << 26)
        if s < 2:
            k1 |= v << (30 * s)
        else:
            k2 |= v << (30 * (s - 2))
    k1 |= (leader << 60) | (vr << 62)
    k2 |= (target << 60) | (mb << 62)
    return k1, k2


@njit(cache=True)
def bucket_of(k1, k2, nslots):  # type: ignore[no-untyped-def]
    """First slot of the bucket for a key."""
    h = k1 ^ (k2 * 0x9E3779B97F4A7C1)
    h ^= h >> 29
    h = (h & 0xFFFFFFFFFFFFFFF) * 0xBF58476D1CE4E5B
    h ^= h >> 31
    nb = nslots // WAYS
    return ((h >> 5) & (nb - 1)) * WAYS


@njit(cache=True)
def tt_find(keys, k1, k2, base):  # type: ignore[no-untyped-def]
    """Slot holding the key in the bucket starting at ``base``, or -1."""
    for i in range(base, base + WAYS):
        if keys[i, 0] == k1 and keys[i, 1] == k2:
            return i
    return -1


@njit(cache=True)
def tt_store(keys, info, gens, gen, k1, k2, base, left, lower, upper, best):  # type: ignore[no-untyped-def]
    """Merge bounds (tricks the target takes from here) and a best lead into the table."""
    slot = tt_find(keys, k1, k2, base)
    if slot >= 0:
        if lower > info[slot, 0]:
            info[slot, 0] = lower
        if upper < info[slot, 1]:
            info[slot, 1] = upper
        if best >= 0:
            info[slot, 2] = best
        gens[slot] = gen
        return slot
    # choose a victim: empty, else stale generation with least depth, else least depth
    victim = base
    vscore = 1 << 30
    for i in range(base, base + WAYS):
        g = gens[i]
        if g == 0:
            victim = i
            break
        sc = info[i, 3]
        if g != gen:
            sc -= 64
        if sc < vscore:
            vscore = sc
            victim = i
    keys[victim, 0] = k1
    keys[victim, 1] = k2
    info[victim, 0] = lower
    info[victim, 1] = upper
    info[victim, 2] = best
    info[victim, 3] = left
    gens[victim] = gen
    return victim


@njit(cache=True)
def rel_of(card, live_s):  # type: ignore[no-untyped-def]
    """Relative code of a card: suit * 16 + number of live cards of its suit below it."""
    r = card % 13
    below = live_s & ((1 << r) - 1)
    n = 0
    while below != 0:
        below &= below - 1
        n += 1
    return (card // 13) * 16 + n


@njit(cache=True)
def card_of_rel(rel, hands):  # type: ignore[no-untyped-def]
    """Absolute card for a relative code in the current position (-1 if none)."""
    s = rel // 16
    idx = rel % 16
    live = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
    n = 0
    while live != 0:
        r = LO[live]
        live &= live - 1
        if n == idx:
            return s * 13 + r
        n += 1
    return -1
