"""How well the card reading places the hidden cards: Brier scores and reliability.

    .venv/bin/python benchmarks/reading.py [--deals 200] [--rules online]
        [--players strong,model,simple,model] [--layouts 512] [--seed 0]
        [--boards FILE] [--plot docs/card-reading-reliability.png] [--json FILE]

Plays ``--deals`` seeded tournament deals (``tournament_deal(seed, j)``, the first rotation)
with the ``--players`` line-up turned one seat a deal (so each seat meets each player), without
a time limit (so every board is seeded), or reads them from ``--boards`` (JSON lines of
``Board.to_dict()``; the boards missing from it are played and added, so a long run can be
continued). Then for every seat at two moments (after 4 tricks and after 8) it reads the hidden
cards three ways: the calls and the plays (``read_cards(k)``: the learned play policy's
reading), the calls only (``read_cards(k, plays=False)``) and the rules only
(``rules_reading(k)``: every consistent layout equally likely, counted exactly; the uniform
reading) and reports for each:

* the Brier score: the mean over hidden cards of the squared distance between the card's four
  chances and the true seat (0 perfect; a uniform guess among three seats 2/3), ± its standard
  error by deal, and the paired difference to the calls-only reading;
* the share of the hidden cards whose likeliest seat is the true one;
* the milliseconds per reading;
* a reliability table: the chances (every hidden card, every other seat that may hold it) in
  tenths, each tenth's mean predicted chance against the observed share of the cards there.

``--plot`` draws the reliability of the three readings (matplotlib, Agg) into a PNG.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from callbreak_lab.arena.players import make_player
from callbreak_lab.arena.records import Board
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.arena.tournament import tournament_deal
from callbreak_lab.game import parse_record
from callbreak_lab.seat import Knowledge
from callbreak_lab.seat.reading import Reading, read_cards, rules_reading

MOMENTS = (16, 32)  # cards played: after 4 tricks and after 8
READINGS = ("calls and plays", "calls only", "rules only")
BINS = 10


def boards_of(args: argparse.Namespace) -> list[Board]:
    """The ``--deals`` boards: from ``--boards`` where there, else played (and added)."""
    lineup = args.players.split(",")
    have: dict[int, Board] = {}
    path = Path(args.boards) if args.boards else None
    if path is not None and path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                b = Board.from_dict(json.loads(line))
                have[b.deal_index] = b
    out = []
    for j in range(args.deals):
        if j not in have:
            names = [lineup[(s + j) % len(lineup)] for s in range(4)]
            players = [make_player(n, args.rules) for n in names]
            b = play_deal(
                tournament_deal(args.seed, j), args.rules, players, names,
                seed=args.seed, deal_index=j,
            )  # fmt: skip
            have[j] = b
            if path is not None:
                with path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(b.to_dict()) + "\n")
        out.append(have[j])
    return out


def knowledge_at(board: Board, seat: int, cards: int) -> tuple[Knowledge, np.ndarray]:
    """What ``seat`` knows after the first ``cards`` cards of ``board``, and the true seat of
    every card."""
    pos = board.position(0)
    history = []
    for c in parse_record(board.plays)[:cards]:
        history.append((pos.to_move, int(c)))
        pos.play(c)
    dealt = [board.deal[s].mask for s in range(4)]
    owner = np.zeros(52, dtype=np.int64)
    for s in range(4):
        for c in range(52):
            if dealt[s] >> c & 1:
                owner[c] = s
    hand = dealt[seat] & ~sum(1 << c for s, c in history if s == seat)
    return Knowledge.from_history(board.rules, seat, hand, history, list(board.calls)), owner


def pairs(reading: Reading, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(predicted chance, held) for every hidden card and every other seat."""
    cards = [int(c) for c in reading.hidden_cards]
    others = [s for s in range(4) if s != reading.seat]
    p = reading.chances[np.ix_(cards, others)].ravel()
    y = (owner[cards][:, None] == np.array(others)[None, :]).astype(np.float64).ravel()
    return p, y


def reliability(p: np.ndarray, y: np.ndarray) -> list[tuple[str, int, float, float]]:
    """Per tenth of the chances: (bin, count, mean predicted, observed share)."""
    idx = np.minimum((p * BINS).astype(int), BINS - 1)
    rows = []
    for b in range(BINS):
        sel = idx == b
        if sel.any():
            rows.append(
                (f"{b / BINS:.1f}-{(b + 1) / BINS:.1f}", int(sel.sum()),
                 float(p[sel].mean()), float(y[sel].mean()))
            )  # fmt: skip
    return rows


def plot(
    path: str,
    rel: dict[int, dict[str, list[tuple[str, int, float, float]]]],
    brier: dict[int, dict[str, float]],
) -> None:
    """The reliability diagram: one panel a moment (cards played), one line a reading, its
    Brier score in the legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(rel), figsize=(5.2 * len(rel), 4.8), sharey=True)
    for ax, (moment, by_reading) in zip(np.atleast_1d(axes), rel.items(), strict=True):
        ax.plot([0, 1], [0, 1], color="#999", lw=1, ls="--", label="perfectly calibrated")
        for (name, rows), color, marker in zip(
            by_reading.items(), ("#2f6e4a", "#1565c0", "#c0392b"), ("o", "s", "^"), strict=True
        ):
            xs = [r[2] for r in rows if r[1] >= 20]
            ys = [r[3] for r in rows if r[1] >= 20]
            ax.plot(xs, ys, marker=marker, color=color,
                    label=f"{name} (Brier {brier[moment][name]:.3f})")  # fmt: skip
        ax.set_title(f"after {moment // 4} tricks")
        ax.legend(loc="upper left", fontsize=9)
        ax.set_xlabel("predicted chance a seat holds the card")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[0].set_ylabel("observed share of those cards it held")
    fig.suptitle("Card reading: where the hidden cards are (bins with 20 chances or more)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _median(xs: list[float]) -> str:
    """The median of the sampled readings' values ("exact" when every reading was exact)."""
    a = np.asarray(xs, dtype=np.float64)
    a = a[~np.isnan(a)]
    return "exact" if not len(a) else f"{np.median(a):.0f}"


def main(argv: list[str] | None = None) -> int:  # noqa: C901, PLR0912, PLR0915  (one measurement, printed)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--rules", default="online")
    ap.add_argument("--players", default="strong,model,simple,model")
    ap.add_argument("--layouts", type=int, default=512)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--boards", default=None, help="JSON lines of boards (read, then added to)")
    ap.add_argument("--plot", default=None, help="the reliability plot (PNG)")
    ap.add_argument("--json", default=None, help="the numbers as JSON")
    ap.add_argument("--boards-only", action="store_true", help="play the boards, read nothing")
    args = ap.parse_args(argv)
    t0 = time.time()
    print(f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores")
    boards = boards_of(args)
    print(f"{len(boards)} boards ({args.rules}, seed {args.seed}, line-up {args.players} turned a "
          f"seat a deal, no time limit): {time.time() - t0:.0f} s", flush=True)  # fmt: skip
    if args.boards_only:
        return 0
    brier: dict[tuple[int, str], list[float]] = {}
    right: dict[tuple[int, str], list[float]] = {}
    ms: dict[tuple[int, str], list[float]] = {}
    ess: dict[tuple[int, str], list[float]] = {}
    preds: dict[tuple[int, str], list[tuple[np.ndarray, np.ndarray]]] = {}
    for moment in MOMENTS:
        for name in READINGS:
            key = (moment, name)
            brier[key], right[key], ms[key], ess[key], preds[key] = [], [], [], [], []
        for i, b in enumerate(boards):
            per = {name: [] for name in READINGS}  # type: dict[str, list[float]]
            hits = {name: [] for name in READINGS}  # type: dict[str, list[float]]
            for seat in range(4):
                k, owner = knowledge_at(b, seat, moment)
                seed = 1000 * i + seat
                for name in READINGS:
                    t = time.perf_counter()
                    if name == "rules only":
                        r = rules_reading(k)
                    else:
                        r = read_cards(
                            k, layouts=args.layouts, seed=seed, plays=name == "calls and plays"
                        )
                    ms[(moment, name)].append((time.perf_counter() - t) * 1000)
                    ess[(moment, name)].append(np.nan if r.exact else r.ess)
                    per[name].append(r.brier(owner))
                    cards = [int(c) for c in r.hidden_cards]
                    best = np.argmax(r.chances[cards], axis=1)
                    hits[name].append(float(np.mean(best == owner[cards])))
                    preds[(moment, name)].append(pairs(r, owner))
            for name in READINGS:
                brier[(moment, name)].append(float(np.mean(per[name])))
                right[(moment, name)].append(float(np.mean(hits[name])))
        print(f"after {moment // 4} tricks: read ({time.time() - t0:.0f} s)", flush=True)

    def mse(xs: list[float]) -> str:
        a = np.asarray(xs)
        return f"{a.mean():.4f} ± {a.std(ddof=1) / np.sqrt(len(a)):.4f}"

    out: dict[str, Any] = {"deals": len(boards), "rules": args.rules, "players": args.players,
                           "layouts": args.layouts, "seed": args.seed, "moments": {}}  # fmt: skip
    print(f"\n{len(boards)} deals, {args.layouts} layouts a reading; Brier score (lower is "
          "better; uniform among three seats 0.667) ± its standard error by deal\n")  # fmt: skip
    print("| reading | tricks | Brier | vs calls only (paired) | likeliest seat right | "
          "ms a reading (median) | ESS (median) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    rel: dict[int, dict[str, list[tuple[str, int, float, float]]]] = {}
    for moment in MOMENTS:
        rel[moment] = {}
        out["moments"][moment // 4] = {}
        for name in READINGS:
            key = (moment, name)
            diff = np.asarray(brier[key]) - np.asarray(brier[(moment, "calls only")])
            paired = (
                "–" if name == "calls only"
                else f"{diff.mean():+.4f} ± {diff.std(ddof=1) / np.sqrt(len(diff)):.4f}"
            )  # fmt: skip
            print(f"| {name} | {moment // 4} | {mse(brier[key])} | {paired} | "
                  f"{np.mean(right[key]):.3f} | {np.median(ms[key]):.0f} | "
                  f"{_median(ess[key])} |")  # fmt: skip
            p = np.concatenate([x[0] for x in preds[key]])
            y = np.concatenate([x[1] for x in preds[key]])
            rel[moment][name] = reliability(p, y)
            out["moments"][moment // 4][name] = {
                "brier": float(np.mean(brier[key])),
                "brier_se": float(np.std(brier[key], ddof=1) / np.sqrt(len(brier[key]))),
                "vs_calls_only": float(diff.mean()),
                "vs_calls_only_se": float(diff.std(ddof=1) / np.sqrt(len(diff))),
                "likeliest_right": float(np.mean(right[key])),
                "ms_median": float(np.median(ms[key])),
                "ms_mean": float(np.mean(ms[key])),
                "reliability": rel[moment][name],
            }
    for moment in MOMENTS:
        print(f"\nreliability after {moment // 4} tricks (chance bin: count, mean predicted -> "
              "observed share)\n")  # fmt: skip
        print("| bin | " + " | ".join(READINGS) + " |")
        print("|---|" + "---|" * len(READINGS))
        bins = [f"{b / BINS:.1f}-{(b + 1) / BINS:.1f}" for b in range(BINS)]
        for label in bins:
            cells = []
            for name in READINGS:
                row = next((r for r in rel[moment][name] if r[0] == label), None)
                cells.append("–" if row is None else f"{row[1]}: {row[2]:.3f} -> {row[3]:.3f}")
            print(f"| {label} | " + " | ".join(cells) + " |")
    if args.plot:
        plot(args.plot, rel, {m: {n: float(np.mean(brier[(m, n)])) for n in READINGS}
                              for m in MOMENTS})  # fmt: skip
        print(f"\nplot: {args.plot}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(f"\n{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
