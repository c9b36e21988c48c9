"""Helpers for the solver tests (no tests here): a deliberately plain exhaustive minimax (no
pruning, no table, no card equivalence) with its own legal-card rules written from docs/rules.md."""

from __future__ import annotations

import random
from collections.abc import Sequence

Hands = list[set[int]]


def legal(hand: set[int], trick: Sequence[int], mb: int, vr: int, ban: int) -> list[int]:  # noqa: PLR0911  (a literal reading of the rules, one return per case)
    """Legal cards; ``ban`` 1 when the first-trick spade-lead ban applies to this lead."""
    if not trick:
        if ban and any(c // 13 != 3 for c in hand):
            return sorted(c for c in hand if c // 13 != 3)
        return sorted(hand)
    led = trick[0] // 13
    follow = [c for c in hand if c // 13 == led]
    spades_in = [c for c in trick if c // 13 == 3]
    trumped = led != 3 and bool(spades_in)
    if follow:
        if mb and not trumped:
            top = max(c for c in trick if c // 13 == led)
            beat = [c for c in follow if c > top]
            if beat:
                return sorted(beat)
        return sorted(follow)
    my_spades = [c for c in hand if c // 13 == 3]
    if vr == 0:  # strict
        if my_spades:
            if spades_in:
                higher = [c for c in my_spades if c > max(spades_in)]
                return sorted(higher or my_spades)
            return sorted(my_spades)
        return sorted(hand)
    winning = [c for c in my_spades if not spades_in or c > max(spades_in)]
    return sorted(winning or hand)


def winner(trick: Sequence[int], leader: int) -> int:
    """Seat winning a complete trick."""
    spades = [c for c in trick if c // 13 == 3]
    led = [c for c in trick if c // 13 == trick[0] // 13]
    best = max(spades) if spades else max(led)
    return (leader + list(trick).index(best)) % 4


def value(
    hands: Hands, trick: list[int], leader: int, target: int, mb: int, vr: int, ban: int
) -> int:
    """Tricks of the remaining ones (trick in progress included) the target can guarantee."""
    pos = len(trick)
    mover = (leader + pos) % 4
    if pos == 0 and not hands[mover]:
        return 0
    results = []
    for c in legal(hands[mover], trick, mb, vr, ban if pos == 0 else 0):
        hands[mover].remove(c)
        t = [*trick, c]
        if len(t) == 4:
            w = winner(t, leader)
            results.append(int(w == target) + value(hands, [], w, target, mb, vr, 0))
        else:
            results.append(value(hands, t, leader, target, mb, vr, ban))
        hands[mover].add(c)
    return max(results) if mover == target else min(results)


def child_value(
    hands: Hands, trick: list[int], leader: int, target: int, mb: int, vr: int, card: int
) -> int:
    """Value for ``target`` after the mover plays ``card``."""
    mover = (leader + len(trick)) % 4
    hands = [set(h) for h in hands]
    hands[mover].remove(card)
    t = [*trick, card]
    if len(t) == 4:
        w = winner(t, leader)
        return int(w == target) + value(hands, [], w, target, mb, vr, 0)
    return value(hands, t, leader, target, mb, vr, 0)


def playout(
    hands: Hands, trick: list[int], leader: int, mb: int, vr: int, ban: int
) -> tuple[list[int], list[int]]:
    """Self-interested play-out: (cards, tricks won per seat from here)."""
    hands = [set(h) for h in hands]
    trick = list(trick)
    won = [0, 0, 0, 0]
    cards = []
    while trick or hands[leader]:
        mover = (leader + len(trick)) % 4
        options = legal(hands[mover], trick, mb, vr, ban if not trick else 0)
        vals = {c: child_value(hands, trick, leader, mover, mb, vr, c) for c in options}
        best = max(vals.values())
        card = min((c for c in options if vals[c] == best), key=lambda c: (c % 13) * 4 + c // 13)
        ban = 0
        cards.append(card)
        hands[mover].remove(card)
        trick.append(card)
        if len(trick) == 4:
            leader = winner(trick, leader)
            won[leader] += 1
            trick = []
    return cards, won


def random_ending(
    rng: random.Random, n: int, mb: int, vr: int, mid_trick: bool
) -> tuple[Hands, list[int], int]:
    """Hands of ``n`` cards from 2..4 suits (spades usually in), a random leader and, when
    ``mid_trick``, 1..3 cards already played legally."""
    while True:
        suits = rng.sample(range(4), rng.choice([2, 3, 3, 4]))
        if 3 not in suits and rng.random() < 0.7:
            suits[0] = 3
        pool = [s * 13 + r for s in suits for r in range(13)]
        if len(pool) >= 4 * n:
            break
    dealt = rng.sample(pool, 4 * n)
    hands = [set(dealt[i * n : (i + 1) * n]) for i in range(4)]
    leader = rng.randrange(4)
    trick: list[int] = []
    if mid_trick:
        for j in range(rng.randint(1, 3)):
            q = (leader + j) % 4
            c = rng.choice(legal(hands[q], trick, mb, vr, 0))
            hands[q].remove(c)
            trick.append(c)
    return hands, trick, leader
