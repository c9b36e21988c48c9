"""What perfect inference would be worth, trick by trick: ``strong`` that sees every hand from
trick T on.

``peek<T>`` plays as ``strong`` (the same calls, the same search within the budget) until trick
T, and from trick T on judges its card over the true layout alone, by the same expected-score
rule (``seat.outcomes.card_outcomes`` of one layout): exactly what a dealer that placed every
hidden card right from trick T would give the player. Against a field (``--field``, three
``pimc`` by default), in a duplicate tournament of ``--deals`` deals, each ``--from`` trick in
turn. ``peek1`` is the whole ceiling of reading the table (``CheaterPlayer("model")`` plays for the
double-dummy value instead of the score); what is left of it at ``peek5`` and ``peek9`` is all
any inference from the cards played could add once they are on the table.

    .venv/bin/python benchmarks/peek.py --from 5,9 --deals 200 --jobs 2 --budget 1000

``--judges dd,playout`` plays each ``peek<T>`` twice: judging each card over the true layout by
the seat's double-dummy value after it (``dd``: the three others against the seat, what
``strong`` judges by) and by the seat's tricks in the self-interested play-out after it
(``playout``: every seat for itself; ``benchmarks/regret.py``'s ``playout_values``), and prints
each later judge's margin minus the first's, paired by deal: whether the model of the other
seats behind the values costs play once the cards are known.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from callbreak_lab import arena
from callbreak_lab.arena.players import StrongPlayer
from callbreak_lab.arena.tournament import Margin
from callbreak_lab.cards import Card, Deal
from callbreak_lab.game import Position
from callbreak_lab.seat import Knowledge, SeatView, card_outcomes, solve_layouts

#: this folder: ``regret.py``'s ``playout_values`` is imported from beside this script, in the
#: tournament's workers too (the player travels to them by value)
HERE = str(Path(__file__).resolve().parent)


class PeekPlayer(StrongPlayer):
    """``strong`` that sees the deal from trick ``from_trick`` on (see the module docstring)."""

    sees_deal = True

    def __init__(self, from_trick: int, budget_ms: int | None, judge: str = "dd") -> None:
        super().__init__(time_limit=None if budget_ms is None else budget_ms / 1000)
        self.from_trick = from_trick
        self.judge = judge
        self.name = f"peek{from_trick}" + ("" if judge == "dd" else f":{judge}")
        self._deal: Deal | None = None

    def reveal(self, deal: Deal) -> None:
        self._deal = deal

    def play(self, view: SeatView) -> Card:
        if self._deal is None or len(view.history) // 4 + 1 < self.from_trick:
            return super().play(view)
        k = Knowledge.of_view(view)
        legal = k.legal_mask()
        if legal.bit_count() == 1:
            return Card((legal & -legal).bit_length() - 1)
        if self.judge == "playout":
            if HERE not in sys.path:
                sys.path.insert(0, HERE)
            from regret import playout_values  # benchmarks/regret.py

            pos = Position.replay(self._deal, [c for _, c in view.history], view.rules)
            values = [playout_values(pos, view.seat)]
            outcomes = card_outcomes(values, np.ones(1), k.rules, k.own_call, k.won)
            return outcomes.best("score" if k.own_call is not None else "tricks")
        rows = np.array([[self._deal[s].mask for s in range(4)]], dtype=np.uint64)
        window = None  # as strong: early on, each card's value placed against the call only
        own = k.own_call
        if own is not None and own - k.won >= 1 and k.cards_left > self.policy.window_above:
            window = (own - k.won - 1, own - k.won + 1)
        solved = solve_layouts(k, rows, time_limit=None, window=window)
        outcomes = card_outcomes(solved.values, np.ones(1), k.rules, k.own_call, k.won)
        return outcomes.best("score" if k.own_call is not None else "tricks")


class Peek:
    """A picklable factory of ``PeekPlayer``s (the tournament's workers build their own)."""

    def __init__(self, from_trick: int, budget_ms: int | None, judge: str = "dd") -> None:
        self.from_trick = from_trick
        self.budget_ms = budget_ms
        self.judge = judge
        self.label = f"peek{from_trick}" + ("" if judge == "dd" else f":{judge}")

    def __call__(self) -> Any:
        return PeekPlayer(self.from_trick, self.budget_ms, self.judge)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="online")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--field", default="pimc")
    parser.add_argument("--from", dest="tricks", default="5,9")
    parser.add_argument("--budget", type=int, default=1000, help="ms per decision")
    parser.add_argument("--judges", default="dd", help="dd and/or playout, comma-separated")
    args = parser.parse_args()
    print(
        f"benchmarks/peek.py: {args.rules}, {args.deals} deals (x4 boards), seed {args.seed}, "
        f"jobs {args.jobs}, budget {args.budget}, field {args.field}; {os.cpu_count()} cores; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        flush=True,
    )
    margins: dict[int, Margin] = {}
    for t, judge in ((int(x), j) for x in args.tricks.split(",") for j in args.judges.split(",")):
        peek = Peek(t, args.budget, judge)
        report = arena.run(
            [peek, args.field, args.field, args.field],
            args.rules,
            deals=args.deals,
            seed=args.seed,
            n_jobs=args.jobs,
            time_limit=None if args.budget is None else args.budget / 1000,
        )
        m = report.margin(peek.label, args.field)
        p = report.player(peek.label)
        print(
            f"  {peek.label} vs 3 {args.field}: {m.margin:+.2f} ± {m.se:.2f}, score "
            f"{p.mean_score:+.2f}, faults {p.faults}, ms p50 {p.ms_p50:.1f} p99 {p.ms_p99:.0f} "
            f"max {p.ms_max:.0f} ({report.seconds:.0f} s)",
            flush=True,
        )
        first = margins.setdefault(t, m)
        if first is not m:
            d = m.minus(first)
            print(f"    minus {first.a}, paired by deal: {d.margin:+.3f} ± {d.se:.3f}", flush=True)


if __name__ == "__main__":
    main()
