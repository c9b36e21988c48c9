"""How much strategy fusion costs ``strong``: the αμ search against the layouts' double-dummy
values on the same layouts, decision by decision.

    .venv/bin/python benchmarks/fusion.py [--rules online] [--deals 25] [--players pimc]
        [--cards 1-16] [--depth 2] [--layouts 64] [--random] [--seed 0] [--limit 10]

Plays ``--deals`` seeded tournament deals (the first rotation) with four ``--players`` (or,
with ``--random``, every card a uniformly random legal one); at every decision with more than
one legal card and a number of cards in the hands within ``--cards``, it draws ``strong``'s
layouts (``seat.layouts.draw``, the decision's seed) and values each legal card over them twice
(``seat.alphamu.alphamu_values``): at depth 1 (each layout solved alone, what ``strong``
plays by) and at ``--depth`` (the seat's next decisions without strategy fusion). Reported:
the decisions, those where some card's value falls under αμ, those where αμ's best card is
another (strictly better under αμ), the mean fall of the plain best card's value, and αμ's time
(median, p90, max; stopped at ``--limit`` seconds and counted apart).
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import time

import numpy as np

from callbreak_lab.arena.players import make_player
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.arena.tournament import tournament_deal
from callbreak_lab.cards import Card, Deal
from callbreak_lab.game import Position, parse_record
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat import STRONG, Knowledge, draw
from callbreak_lab.seat.alphamu import alphamu_values
from callbreak_lab.seat.policy import decision_seed
from callbreak_lab.solver import SearchTimeout


def games(
    args: argparse.Namespace, rules: Ruleset
) -> list[tuple[Deal, list[int | None], list[int]]]:
    """Each deal, its calls and its cards in play order."""
    out: list[tuple[Deal, list[int | None], list[int]]] = []
    if args.random:
        rng = random.Random(args.seed)
        for _ in range(args.deals):
            deal = Deal.random(rng.randrange(2**31))
            pos = Position(deal, rules)
            cards = []
            while len(cards) < 52:
                c = rng.choice(list(pos.legal_cards()))
                cards.append(int(c))
                pos.play(c)
            out.append((deal, [None] * 4, cards))
        return out
    players = [make_player(args.players, rules) for _ in range(4)]
    for j in range(args.deals):
        b = play_deal(tournament_deal(args.seed, j), rules, players, seed=args.seed, deal_index=j)
        out.append((b.deal, list(b.calls), [int(c) for c in parse_record(b.plays)]))
    return out


def best(values: dict[Card, float]) -> Card:
    return min(values, key=lambda c: (-round(values[c], 9), int(c)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="online")
    ap.add_argument("--deals", type=int, default=25)
    ap.add_argument("--players", default="pimc")
    ap.add_argument("--cards", default="1-16", help="cards in the hands, lo-hi")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--layouts", type=int, default=64)
    ap.add_argument("--random", action="store_true", help="random legal play, no calls")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds an αμ search may take")
    args = ap.parse_args()
    lo, _, hi = args.cards.partition("-")
    low, high = int(lo), int(hi or lo)
    rules = Ruleset.coerce(args.rules)
    t0 = time.time()
    print(f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores")
    n = fell = changed = stopped = 0
    falls: list[float] = []
    times: list[float] = []
    for j, (deal, calls, cards) in enumerate(games(args, rules)):
        pos = Position(deal, rules)
        history: list[tuple[int, int]] = []
        for i, card in enumerate(cards):
            seat = pos.to_move
            if low <= 52 - i <= high and len(pos.legal_cards()) > 1:
                k = Knowledge.from_history(rules, seat, int(pos.hands[seat].mask), history, calls)
                seed = decision_seed(7919 * j, seat, i)
                drawn = draw(k, args.layouts, seed, beta=STRONG.beta, oversample=STRONG.oversample)
                plain = alphamu_values(k, drawn.rows, drawn.weights, depth=1)
                start = time.perf_counter()
                try:
                    deep = alphamu_values(
                        k, drawn.rows, drawn.weights, args.depth, start + args.limit
                    )
                except SearchTimeout:
                    stopped += 1
                    deep = {}
                times.append(time.perf_counter() - start)
                if deep:
                    n += 1
                    fell += any(deep[c] < plain[c] - 1e-9 for c in plain)
                    b1, b2 = best(plain), best(deep)
                    changed += deep[b2] > deep[b1] + 1e-9
                    falls.append(plain[b1] - deep[b1])
            history.append((seat, card))
            pos.play(Card(card))
    t = np.array(times) * 1000 if times else np.zeros(1)
    who = "random play" if args.random else f"players {args.players}"
    print(
        f"\n{args.rules}, {args.deals} deals (seed {args.seed}), {who}, {low}-{high} cards in "
        f"the hands, depth {args.depth}, {args.layouts} layouts drawn"
    )
    print(
        f"decisions {n}; a card's value falls under αμ in {fell}; αμ's best card another in "
        f"{changed}; the plain best card's mean fall {np.mean(falls) if falls else 0:.4f}; "
        f"stopped at {args.limit:g} s: {stopped}"
    )
    print(f"αμ ms: median {np.median(t):.1f}, p90 {np.percentile(t, 90):.1f}, max {t.max():.1f}")
    print(f"\n{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
