"""What a policy's card loses on the true layout: the decision-level measure behind the arena.

    .venv/bin/python benchmarks/regret.py [--deals 40] [--rules online] [--players strong]
        [--tricks 5-10] [--policies strong,infer,uniform] [--seed 0]
        [--judge dd|playout]

Plays ``--deals`` seeded tournament deals (seed ``--seed``, the first rotation only) with four
``--players``; then at every decision with more than one legal card in ``--tricks`` it asks each
of ``--policies`` (``POLICIES``: the shipped ``strong``, ``pimc`` and ``learned`` policies and
the experiments built here, ``infer`` (``strong`` over layouts weighed by the other seats' plays
too: ``ReadingPolicy``), ``uniform`` (uniform layouts) and ``tricks`` (the mean value); no time
limit, the decision's seed) for the card, and judges it on the deal itself: each legal card's
expected score of the seat's call over the one true layout (``seat.outcomes.card_outcomes``, the
double-dummy value after the card), the best of them minus the chosen card's. Reported per
policy: the mean regret in points a decision ± s.e. by deal, its difference from the first
policy's (paired by deal), the share of decisions where the chosen card is one of the true
layout's best, and the share where it differs from the first policy's card. ``--judge
playout`` judges each card instead by the seat's tricks in the self-interested play-out after
it (``solver.api.playout_of``: every seat then plays for its own double-dummy value, not the
three others against the seat), scored with the call the same way. A player that
saw every hand (``peek``, ``benchmarks/peek.py``) has regret 0 here; in the arena it also
meets the others' later cards, so the regret is a decision-level measure, not the board's
margin.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from callbreak_lab import solver
from callbreak_lab.arena.players import make_player
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.arena.tournament import tournament_deal
from callbreak_lab.game import parse_record
from callbreak_lab.seat import LEARNED, PIMC, STRONG, Knowledge, SearchPolicy, card_outcomes
from callbreak_lab.seat.layouts import PLAY_OVERSAMPLE, PLAY_WEIGHT
from callbreak_lab.seat.outcomes import Judgement, judge
from callbreak_lab.seat.policy import decision_seed
from callbreak_lab.solver.api import child, make_root, playout_of


@dataclass(frozen=True)
class ReadingPolicy(SearchPolicy):
    """``strong``'s policy over layouts weighed by the other seats' plays under the learned
    play policy as well as by their calls (``seat.layouts.draw(play_weight=...)``, from
    ``PLAY_OVERSAMPLE`` candidates a layout)."""

    play_weight: float = PLAY_WEIGHT

    def judge(
        self,
        k: Knowledge,
        seed: int,
        *,
        window: tuple[int, int] | None = None,
        time_limit: float | None = None,
    ) -> Judgement:
        return judge(
            k,
            self.layouts,
            seed,
            beta=self.beta,
            oversample=self.oversample,
            play_weight=self.play_weight,
            window=window,
            time_limit=time_limit,
        )


#: the policies ``--policies`` names
POLICIES: dict[str, SearchPolicy] = {
    "strong": STRONG,
    "pimc": PIMC,
    "learned": LEARNED,
    "infer": ReadingPolicy(fallback="learned", oversample=PLAY_OVERSAMPLE),
    "uniform": STRONG.replace(beta=0.0),
    "tricks": STRONG.replace(objective="tricks"),
}


def se_of(x: np.ndarray) -> float:
    """The standard error of the mean of ``x`` (0 for fewer than two)."""
    return float(np.std(x, ddof=1) / np.sqrt(len(x))) if len(x) > 1 else 0.0


def parse_tricks(text: str) -> range:
    """``"5-10"`` -> tricks 5..10 (1-based), ``"7"`` -> trick 7 only."""
    lo, _, hi = text.partition("-")
    first, last = int(lo), int(hi or lo)
    if not 1 <= first <= last <= 13:
        raise SystemExit(f"--tricks must be within 1-13, got {text!r}")
    return range(first, last + 1)


def playout_values(pos: object, seat: int) -> dict[int, int]:
    """The tricks ``seat`` still takes after each legal card when every seat then plays for its
    own double-dummy value (the self-interested play-out), the trick in progress included."""
    root = make_root(pos)  # type: ignore[arg-type]
    out = {}
    for c in pos.legal_cards():  # type: ignore[attr-defined]
        nxt, _ = child(root, int(c))
        total = playout_of(nxt).tricks[seat] if nxt.left > 0 else nxt.won[seat]
        out[int(c)] = total - root.won[seat]
    return out


def judge_board(
    board: object, tricks: range, policies: dict[str, object], base: int, judge: str = "dd"
) -> list:
    """One row per decision in ``tricks``: (regret, best?, card) for each policy."""
    rules = board.rules  # type: ignore[attr-defined]
    deal = board.deal  # type: ignore[attr-defined]
    calls = list(board.calls)  # type: ignore[attr-defined]
    played = parse_record(board.plays)  # type: ignore[attr-defined]
    pos = board.position(0)  # type: ignore[attr-defined]
    history: list[tuple[int, int]] = []
    dealt = [deal[s].mask for s in range(4)]
    rows = []
    for i, card in enumerate(played):
        seat = pos.to_move
        if i // 4 + 1 in tricks and len(pos.legal_cards()) > 1:
            hand_now = dealt[seat] & ~sum(1 << c for s, c in history if s == seat)
            k = Knowledge.from_history(rules, seat, hand_now, history, calls)
            if judge == "playout":
                true = playout_values(pos, seat)
            else:
                true = {int(c): v for c, v in solver.card_values(pos, seat, rules).items()}
            out = card_outcomes([true], np.array([1.0]), rules, k.own_call, k.won).cards
            top = max(o.expected or 0.0 for o in out.values())
            row = []
            for policy in policies.values():
                got = policy.choose(k, None, decision_seed(base, seat, i))  # type: ignore[attr-defined]
                score = out[got.card].expected or 0.0
                row.append((top - score, score >= top - 1e-9, int(got.card)))
            rows.append(row)
        history.append((seat, int(card)))
        pos.play(card)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--rules", default="online")
    ap.add_argument("--players", default="strong")
    ap.add_argument("--tricks", default="5-10")
    ap.add_argument("--policies", default="strong,infer,uniform", help=", ".join(POLICIES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--judge", choices=("dd", "playout"), default="dd")
    args = ap.parse_args(argv)
    tricks = parse_tricks(args.tricks)
    names = [p for p in args.policies.split(",") if p]
    unknown = [n for n in names if n not in POLICIES]
    if unknown:
        raise SystemExit(f"--policies: unknown {unknown} (one of {', '.join(POLICIES)})")
    t0 = time.time()
    print(f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores")
    for rules in args.rules.split(","):
        players = [make_player(args.players, rules) for _ in range(4)]
        policies = {n: POLICIES[n] for n in names}
        boards = [
            play_deal(tournament_deal(args.seed, j), rules, players, seed=args.seed, deal_index=j)
            for j in range(args.deals)
        ]
        per_deal = [
            judge_board(b, tricks, policies, 7919 * j, args.judge) for j, b in enumerate(boards)
        ]
        n = sum(len(r) for r in per_deal)
        print(
            f"\n{rules}, {len(boards)} deals (seed {args.seed}), players {args.players}, "
            f"tricks {tricks.start}-{tricks.stop - 1}, {n} decisions, judged by {args.judge}"
        )
        print(f"| policy | regret a decision | minus `{names[0]}`'s | best card on the true "
              f"layout | card differs from `{names[0]}`'s |")  # fmt: skip
        print("|---|---|---|---|---|")
        flat = [r for rows in per_deal for r in rows]
        for p, name in enumerate(names):
            means = np.array([np.mean([r[p][0] for r in rows]) for rows in per_deal if rows])
            first = np.array([np.mean([r[0][0] for r in rows]) for rows in per_deal if rows])
            best = np.mean([r[p][1] for r in flat])
            differs = np.mean([r[p][2] != r[0][2] for r in flat])
            print(
                f"| `{name}` | {means.mean():.3f} ± {se_of(means):.3f} | "
                f"{(means - first).mean():+.3f} ± {se_of(means - first):.3f} | {best:.3f} | "
                f"{differs:.3f} |"
            )
    print(f"\n{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
