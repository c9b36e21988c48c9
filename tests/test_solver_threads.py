"""Solving from several threads at once gives the same values as solving in turn."""

from __future__ import annotations

import random
import sys
import threading

from callbreak_lab import solver
from callbreak_lab.cards import Deal
from callbreak_lab.game import Position


def _positions(n: int, seed: int) -> list[Position]:
    """Mid-trick endings (3 or 4 tricks left, 1..3 cards into a trick): fast solves whose
    trick cards are handed to the engine before every search."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pos = Position(Deal.random(rng.randrange(1 << 30)), "modern")
        cards = 52 - 4 * rng.choice([3, 4]) + rng.choice([1, 2, 3])
        while len(pos.history) < cards:
            pos.play(rng.choice(list(pos.legal_cards())))
        out.append(pos)
    return out


def test_threads_solving_at_once_agree_with_one_thread() -> None:
    positions = _positions(120, seed=5)
    expected = [tuple(solver.solve(p, s) for s in range(4)) for p in positions]
    wrong: list[int] = []

    def work(first: int) -> None:
        for _ in range(4):
            for i in range(first, len(positions), 4):
                if tuple(solver.solve(positions[i], s) for s in range(4)) != expected[i]:
                    wrong.append(i)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # hand the GIL over as often as possible
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert wrong == []


def test_each_thread_has_its_own_engine() -> None:
    from callbreak_lab.solver.api import engine

    seen: list[object] = []
    t = threading.Thread(target=lambda: seen.append(engine()))
    t.start()
    t.join()
    assert engine() is engine()
    assert seen[0] is not engine()
