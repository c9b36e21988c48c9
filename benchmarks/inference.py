"""How well the hidden cards are placed: uniform layouts, layouts weighted by the calls, and by
the calls and the cards played under the learned play policy.

    .venv/bin/python benchmarks/inference.py [--deals 100] [--rules online,modern]
        [--players model] [--betas 0,1,2,4] [--layouts 32] [--play-weights 1]
        [--floor 0.02] [--seed 0] [--oversample 8]

Plays ``--deals`` seeded tournament deals (seed ``--seed``, the first rotation only) with four
``--players`` (``model``: the bid model's calls and simple card play; ``simple``:
aces-and-kings calls; ``strong``: the lab's player, whose choices the play policy learned),
then for every seat at three
moments (the start of play, after 4 tricks and after 8) samples ``--layouts`` layouts of the
cards that seat has not seen, with the call weighting's ``beta`` of each of ``--betas`` (0 is
the uniform sampler), and reports the share of the hidden cards a layout puts in the seat that
really holds them (averaged over cards, layouts, seats and deals), ± its standard error by
deal. A random guess among the other three seats scores 1/3 at the start. Each of
``--play-weights`` adds a row "calls + play policy": the calls' ``beta`` = ``seat.layouts.BETA``
and the plays' likelihood with that weight and ``--floor`` (``seat.layouts.draw(play_weight=...)``,
the dealer's weighing of the plays), with the mean effective sample size of the candidates'
weights.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time

import numpy as np

from callbreak_lab.arena.players import make_player
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.arena.tournament import tournament_deal
from callbreak_lab.game import parse_record
from callbreak_lab.seat import Knowledge, draw
from callbreak_lab.seat.layouts import BETA, OVERSAMPLE

MOMENTS = (0, 16, 32)  # cards played: the start of play, after 4 tricks, after 8


def placed_right(  # noqa: PLR0913  (one measurement's knobs)
    board: object,
    seat: int,
    cards: int,
    beta: float,
    n: int,
    seed: int,
    play_weight: float = 0.0,
    floor: float = 0.02,
    oversample: int = OVERSAMPLE,
) -> tuple[float, float]:
    """Share of the hidden cards that ``seat`` sees in the right seat, over ``n`` layouts, and
    the effective sample size of the candidates' weights."""
    deal = board.deal  # type: ignore[attr-defined]
    played = parse_record(board.plays)  # type: ignore[attr-defined]
    # who played each card: replay the record
    pos = board.position(0)  # type: ignore[attr-defined]
    history = []
    for c in played[:cards]:
        history.append((pos.to_move, int(c)))
        pos.play(c)
    dealt = [deal[s].mask for s in range(4)]
    hand_now = dealt[seat] & ~sum(1 << c for s, c in history if s == seat)
    calls = list(board.calls)  # type: ignore[attr-defined]
    k = Knowledge.from_history(board.rules, seat, hand_now, history, calls)  # type: ignore[attr-defined]
    w = draw(
        k,
        n,
        seed,
        beta=beta,
        play_weight=play_weight,
        play_floor=floor,
        oversample=oversample,
    )
    seen = hand_now
    for _, c in history:
        seen |= 1 << c
    hidden = [c for c in range(52) if not seen >> c & 1]
    owner = {c: s for s in range(4) for c in range(52) if dealt[s] >> c & 1}
    right = 0.0
    for row, weight in zip(w.rows, w.weights, strict=True):  # repeats merged: weighted
        for c in hidden:
            right += weight * (int(row[owner[c]]) >> c & 1)
    return right / (len(hidden) * float(w.weights.sum())), w.ess


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--rules", default="online,modern")
    ap.add_argument("--players", default="model")
    ap.add_argument("--betas", default="0,1,2,4")
    ap.add_argument("--layouts", type=int, default=32)
    ap.add_argument("--play-weights", default="")
    ap.add_argument("--floor", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--oversample", type=int, default=OVERSAMPLE)
    args = ap.parse_args(argv)
    rows = [(float(b), 0.0) for b in args.betas.split(",") if b]
    rows += [(BETA, float(w)) for w in args.play_weights.split(",") if w]
    t0 = time.time()
    print(f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores")
    for rules in args.rules.split(","):
        players = [make_player(args.players, rules) for _ in range(4)]
        boards = [
            play_deal(tournament_deal(args.seed, j), rules, players, seed=args.seed, deal_index=j)
            for j in range(args.deals)
        ]
        print(
            f"\n{rules}, {len(boards)} deals (seed {args.seed}), players {args.players}, "
            f"{args.layouts} layouts, floor {args.floor:g}, oversample {args.oversample}"
        )
        print("| layouts weighted by | start of play | after 4 tricks | after 8 tricks | ESS |")
        print("|---|---|---|---|---|")
        for beta, weight in rows:
            cells, ess = [], []
            for moment in MOMENTS:
                per_deal = []
                for i, b in enumerate(boards):
                    got = [
                        placed_right(
                            b,
                            s,
                            moment,
                            beta,
                            args.layouts,
                            1000 * i + s,
                            weight,
                            args.floor,
                            args.oversample,
                        )
                        for s in range(4)
                    ]
                    per_deal.append(np.mean([g[0] for g in got]))
                    ess += [g[1] for g in got]
                se = np.std(per_deal, ddof=1) / np.sqrt(len(per_deal))
                cells.append(f"{np.mean(per_deal):.3f} ± {se:.3f}")
            label = "uniform" if beta == 0 else f"calls (beta {beta:g})"
            if weight:
                label += f" + play policy (weight {weight:g})"
            print(f"| {label} | " + " | ".join(cells) + f" | {np.mean(ess):.0f} |", flush=True)
    print(f"\n{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
