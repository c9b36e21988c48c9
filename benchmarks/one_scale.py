"""One scale: the hint at the first lead against the call advisor, hand for hand.

    nice -n 10 .venv/bin/python benchmarks/one_scale.py [--hands 200] [--rules online]
        [--layouts 32] [--seed 6300] [--start 0] [--own] [--cache hands.jsonl]
        [--out benchmarks/one_scale/bar_online.json]
    .venv/bin/python benchmarks/one_scale.py --merge part1.json part2.json --out all.json
    .venv/bin/python benchmarks/one_scale.py --from-cache hands*.jsonl --out bar.json

For ``--hands`` seeded deals (``Deal.seeded(--seed, i)``) every seat calls the shipped bid
model's call in turn (``bidding.recommend_call`` with the calls before it). The call advisor's
answer for seat 0 is its expected play-out tricks (the forecast's mean) and the chance of making
its call; the hint is ``analysis.advice.advise`` for seat 0's first lead with the four calls
(``--layouts`` layouts, seed 0, one solver thread): its best card's expected tricks and make
chance, on the play-out scale (``tricks``, ``make``) and on the floor (``floor_tricks``,
``floor_make`` of the floor's best card: what the hint showed before); with ``--own`` also the
hint that knows seat 0's call alone (the layouts not weighted by the others' calls, which the
advisor does not know either). Prints the mean absolute
difference of the tricks and of the make chance (points) on each scale, their mean signed
differences, and the median seconds of one hint and of its play-out scale's share
(``seat.outcomes.card_outcomes`` at the first trick: with the hand's scale, a hand seen for the
first time, and the table alone, on 32 made-up layouts of 8 cards).

``--cache FILE`` appends one JSON line a hand as it is solved: the calls, the advisor's answer
(call, expected tricks, make chance, distribution), seat 0's hand and its hint's layouts (each
one's weight and each legal card's floor, drawn and solved as ``advise`` does, seed 0, one
thread). ``--from-cache`` re-evaluates the shipped scale on those hands in seconds (no solving):
the rows are the same as the run's own (the hint's outcomes come from the cached floors through
the same ``card_outcomes`` and ranking).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("CALLBREAK_LAB_SOLVER_THREADS", "1")

import numpy as np

from callbreak_lab.analysis.advice import EXACT_LIMIT, SingleDummy, values_from_knowledge
from callbreak_lab.bidding import recommend_call
from callbreak_lab.cards import Deal
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.seat.outcomes import card_outcomes, judge


def model_calls(deal: Deal, rules: Ruleset) -> list[int]:
    """Each seat's model call in turn, given the calls before it."""
    calls: list[int] = []
    for seat in range(4):
        rec = recommend_call(deal[seat], seat, rules, earlier_calls=calls or None)
        calls.append(rec.call)
    return calls


def floor_best(sd: SingleDummy) -> Any:
    """The card the floor ranks best (its score, then its tricks): the hint's card before."""

    def key(c: Any) -> tuple[float, float]:
        o = sd.outcomes[c]
        return (o.floor_expected or 0.0, o.floor_tricks)

    return max(sd.ranked(), key=key)


def hint(
    values: list[dict[int, int]],
    weights: np.ndarray,
    exact: bool,
    calls: list[int],
    rules: Ruleset,
    hand: int,
) -> SingleDummy:
    """The hint at seat 0's first lead from its layouts' floors and weights (what
    ``analysis.advice.advise`` answers from them: the same outcomes and ranking)."""
    out = card_outcomes(values, weights, rules, calls[0], 0, exact, left=13, hand=hand)
    return SingleDummy(
        None, 0, tuple(calls), out.cards, len(values) if exact else round(float(weights.sum())),
        len(values), exact, float(1.0 / np.sum(out.weights * out.weights)), 0.0,
        out.weights, out.scaled,
    )  # fmt: skip


def compare(cached: dict[str, Any], rules: Ruleset) -> dict[str, Any]:
    """One hand's row from its cached layouts (``solve``): the hint on the shipped scale
    against the advisor's answer."""
    values = [{int(c): int(v) for c, v in lay.items()} for lay in cached["values"]]
    w = np.asarray(cached["weights"], dtype=np.float64)
    calls = [int(c) for c in cached["calls"]]
    sd = hint(values, w, bool(cached["exact"]), calls, rules, int(cached["hand"]))
    best = sd.outcomes[sd.best]
    fb = sd.outcomes[floor_best(sd)]
    row = {
        "deal": cached["deal"],
        "calls": calls,
        "advisor_call": cached["advisor_call"],
        "advisor_tricks": cached["advisor_tricks"],
        "advisor_make": cached["advisor_make"],
        "hint_card": str(sd.best),
        "hint_tricks": best.tricks,
        "hint_make": best.make,
        "floor_card": str(floor_best(sd)),
        "floor_tricks": fb.floor_tricks,
        "floor_make": fb.floor_make,
        "seconds": cached["seconds"],
    }
    return row


def solve(i: int, args: argparse.Namespace, rules: Ruleset) -> dict[str, Any]:
    """What the scale needs of hand ``i`` (the cache's row): the calls, the advisor's answer,
    seat 0's hand, and its hint's layouts (each one's weight and each legal card's floor),
    drawn and solved as ``advise`` does."""
    deal = Deal.seeded(args.seed, i)
    calls = model_calls(deal, rules)
    rec = recommend_call(deal[0], 0, rules)
    dist = np.asarray(rec.distribution, dtype=np.float64)
    t0 = time.perf_counter()
    k = Knowledge.at_table(deal[0], "", rules, calls, seat=0)
    found = judge(k, args.layouts, 0, exact_limit=EXACT_LIMIT, n_jobs=1, keep_first=True)
    seconds = time.perf_counter() - t0
    return {
        "deal": i,
        "calls": calls,
        "hand": int(deal[0].mask),
        "advisor_call": rec.call,
        "advisor_tricks": float(dist @ np.arange(len(dist))),
        "advisor_make": float(rec.make_probability[calls[0]]),
        "advisor_distribution": [round(float(x), 6) for x in dist],
        "weights": [float(x) for x in found.weights],
        "exact": found.exact,
        "values": [{str(c): v for c, v in lay.items()} for lay in found.solved.values],
        "seconds": seconds,
    }


def one(i: int, args: argparse.Namespace, rules: Ruleset) -> dict[str, Any]:
    cached = solve(i, args, rules)
    if args.cache is not None:  # one JSON line a hand, appended as it is solved
        with args.cache.open("a") as f:
            f.write(json.dumps(cached) + "\n")
    row = compare(cached, rules)
    deal = Deal.seeded(args.seed, i)
    calls = row["calls"]
    if args.own:  # the hint knowing its own call alone, as the advisor does
        k = Knowledge.from_history(rules, 0, deal[0].mask, [], [calls[0]])
        own = values_from_knowledge(k, layouts=args.layouts, n_jobs=1)
        o = own.outcomes[own.best]
        row.update(own_tricks=o.tricks, own_make=o.make)
    return row


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def col(name: str) -> np.ndarray:
        return np.array([float(r[name]) for r in rows])

    at, am = col("advisor_tricks"), col("advisor_make")
    out: dict[str, Any] = {"hands": len(rows)}
    scales = [
        ("playout", col("hint_tricks"), col("hint_make")),
        ("floor", col("floor_tricks"), col("floor_make")),
    ]
    if all("own_tricks" in r for r in rows):
        scales.append(("playout_own_call_only", col("own_tricks"), col("own_make")))
    for scale, t, m in scales:
        out[scale] = {
            "tricks_mae": round(float(np.abs(t - at).mean()), 3),
            "tricks_bias": round(float((t - at).mean()), 3),
            "make_mad_points": round(100 * float(np.abs(m - am).mean()), 1),
            "make_bias_points": round(100 * float((m - am).mean()), 1),
        }
    out["same_card"] = round(float(np.mean([r["hint_card"] == r["floor_card"] for r in rows])), 3)
    out["hint_seconds_median"] = round(float(np.median(col("seconds"))), 3)
    return out


def scale_share(rules: Ruleset, layouts: int, repeats: int = 200) -> dict[str, float]:
    """Milliseconds of ``card_outcomes`` on 32 layouts of 8 cards at the first trick with the
    hand-aware play-out scale (the hand's rows kept, as within one answer), the same for a hand
    seen for the first time (its rows computed: the first answer's extra), and the table alone
    (no hand)."""
    from callbreak_lab.seat.scale import scale_for

    rng = np.random.default_rng(0)
    values = [{c: int(rng.integers(0, 6)) for c in range(8)} for _ in range(layouts)]
    w = np.ones(layouts)
    hands = [int(Deal.seeded(1, i)[0].mask) for i in range(repeats)]
    card_outcomes(values, w, rules, 3, 0, left=13, hand=hands[0])  # the model loaded

    def ms(run: Any) -> float:
        t0 = time.perf_counter()
        for i in range(repeats):
            run(i)
        return round(1000 * (time.perf_counter() - t0) / repeats, 3)

    scale_for(rules)._memo.clear()
    return {
        "card_outcomes_new_hand_ms": ms(
            lambda i: card_outcomes(values, w, rules, 3, 0, left=13, hand=hands[i])
        ),
        "card_outcomes_ms": ms(
            lambda i: card_outcomes(values, w, rules, 3, 0, left=13, hand=hands[0])
        ),
        "card_outcomes_table_ms": ms(lambda i: card_outcomes(values, w, rules, 3, 0, left=13)),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hands", type=int, default=200)
    p.add_argument("--rules", default="online")
    p.add_argument("--layouts", type=int, default=32)
    p.add_argument("--seed", type=int, default=6300)
    p.add_argument("--start", type=int, default=0, help="the first hand (deal index)")
    p.add_argument("--merge", nargs="+", help="summarise these runs' rows together instead")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--own", action="store_true", help="also the hint knowing its own call alone")
    p.add_argument("--cache", type=Path, default=None, help="append each hand's layouts here")
    p.add_argument(
        "--from-cache",
        nargs="+",
        type=Path,
        help="evaluate the shipped scale on these caches' hands (no solving)",
    )
    args = p.parse_args()
    rules = Ruleset.preset(args.rules)
    rows: list[dict[str, Any]] = []

    def write() -> dict[str, Any]:
        result = {
            "rules": args.rules,
            "layouts": args.layouts,
            "seed": args.seed,
            "summary": summary(rows),
            "cost": scale_share(rules, args.layouts),
            "rows": rows,
        }
        if args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(result, indent=1) + "\n")
        return result

    if args.from_cache:  # the hands' layouts as cached: the scale alone is evaluated
        by_hand: dict[int, dict[str, Any]] = {}
        for path in args.from_cache:
            for line in path.read_text().splitlines():
                cached = json.loads(line)
                by_hand.setdefault(int(cached["deal"]), cached)
        rows.extend(compare(by_hand[d], rules) for d in sorted(by_hand))
        args.merge = True
    elif args.merge:  # the rows of runs over parts of the hands, summarised together
        by_deal: dict[int, dict[str, Any]] = {}
        for path in args.merge:
            for r in json.loads(Path(path).read_text())["rows"]:
                by_deal.setdefault(int(r["deal"]), r)
        rows.extend(by_deal[d] for d in sorted(by_deal))
    for i in range(args.start, args.start + (0 if args.merge else args.hands)):
        rows.append(one(i, args, rules))
        if (i + 1) % 10 == 0:
            print(f"{i + 1} hands: {json.dumps(summary(rows))}", flush=True)
            write()
    result = write()
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))


if __name__ == "__main__":
    main()
