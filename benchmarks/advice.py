"""Single-dummy advice at work: the time of one decision's values by trick, and of a review.

    .venv/bin/python benchmarks/advice.py decisions [--deals 24] [--layouts 32] [--rules online]
        [--tricks 1,2,4,7,10] [--time-limit S]
    .venv/bin/python benchmarks/advice.py reviews [--deals 6] [--layouts 32] [--rules online]
    .venv/bin/python benchmarks/advice.py work [--deals 40] [--layouts 32] [--rules online]
    .venv/bin/python benchmarks/advice.py first [--deals 24] [--layouts 32] [--tricks 1,2]
        [--time-limit 0.15]

``decisions`` plays ``--deals`` seeded deals with four ``simple`` players and, at trick 1, 2,
4, 7 and 10 (``--tricks``; the card of seat ``deal % 4`` in the trick), times
``advice.single_dummy_values`` with ``--layouts`` layouts (the solver's default threads: two
on a machine with two cores) and reports the median, p90 and max seconds, and how often the
answer was exact (every consistent layout taken), how often ``--time-limit`` stopped it and
how many distinct layouts it solved. ``reviews`` times ``review.review_play`` of
whole deals played by ``simple`` and ``pimc`` players (every seat judged). ``work`` counts
where the search nodes of the trick-1 decisions go, one thread and one engine: by the seat's
place in the trick, the proof of the position's value and the cards' values after it (as
``solver.card_values``), and for the cards the nodes of the two probes any exact value needs
(yes at the value, no one above) against the others (the probes walk down from the
position's value, as the search does); last, the nodes of those needed probes alone in an
empty table, as if every value were known beforehand: the least any order of probes can do.
``first`` times the answers that come at once and deepen (``advice.deepen``), on the
``decisions`` positions at ``--tricks`` (1 and 2): the first answer (the learned card, none
solved), the first answer with a value (one layout solved) and the final one; then
``/v1/advise`` with a ``--time-limit`` (0.15 s) through the service (one worker, in process):
the answer's round trip and how many layouts it covered.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time
from typing import Any

import numpy as np

from callbreak_lab import solver
from callbreak_lab.analysis.advice import single_dummy_values
from callbreak_lab.analysis.review import review_play
from callbreak_lab.arena import make_player
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.cards import Deal
from callbreak_lab.game import Position

TRICKS = (1, 2, 4, 7, 10)


def _header(args: argparse.Namespace) -> None:
    cpu = platform.processor() or platform.machine()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"benchmarks/advice.py {args.mode}: {vars(args)}; {cpu} x {os.cpu_count()}; {now}")


def decisions(args: argparse.Namespace) -> None:
    players = [make_player("simple") for _ in range(4)]
    boards = [play_deal(Deal.random(700 + i), args.rules, players) for i in range(args.deals)]
    print("trick  decisions  median s  p90 s  max s  exact  stopped  layouts median  min")
    for trick in args.tricks:
        times, exact, stopped, solved = [], 0, 0, []
        for i, b in enumerate(boards):
            k = 4 * (trick - 1) + i % 4
            pos = Position.replay(b.deal, " ".join(b.plays.replace("|", " ").split()[:k]), b.rules)
            if len(pos.legal_cards()) < 2:
                continue
            t0 = time.perf_counter()
            sd = single_dummy_values(
                pos, pos.to_move, b.calls, layouts=args.layouts, seed=i, time_limit=args.time_limit
            )
            times.append(time.perf_counter() - t0)
            exact += sd.exact
            stopped += sd.stopped_early
            solved.append(sd.distinct)
        t = np.array(times)
        print(f"{trick:>5}  {len(t):>9}  {np.median(t):8.3f}  {np.quantile(t, 0.9):5.2f}  "
              f"{t.max():5.2f}  {exact:>5}  {stopped:>7}  {np.median(solved):>14.0f}  "
              f"{min(solved):>3}")  # fmt: skip


def reviews(args: argparse.Namespace) -> None:
    players = [make_player(p) for p in ("simple", "pimc", "simple", "pimc")]
    times = []
    for i in range(args.deals):
        b = play_deal(Deal.random(800 + i), args.rules, players)
        t0 = time.perf_counter()
        rv = review_play(b.deal, b.plays, b.rules, calls=b.calls, layouts=args.layouts, seed=i)
        times.append(time.perf_counter() - t0)
        judged = sum(c.sd is not None for c in rv.cards)
        print(f"deal {i}: {times[-1]:.1f} s, {judged} cards judged, "
              f"{len(rv.mistakes(100))} costing more than {rv.threshold} points")  # fmt: skip
    t = np.array(times)
    print(f"review of a whole deal: median {np.median(t):.1f} s, max {t.max():.1f} s")


def work(args: argparse.Namespace) -> None:
    from callbreak_lab.cards import Hand
    from callbreak_lab.seat import Knowledge, draw
    from callbreak_lab.solver import api
    from callbreak_lab.solver._consts import ST_NODES
    from callbreak_lab.solver._engine import Engine

    eng = Engine(threads=1)  # no helper thread: node counts that repeat run to run
    players = [make_player("simple") for _ in range(4)]
    rows: dict[int, np.ndarray] = {}  # place -> layouts, value proof, cards: needed, other
    for i in range(args.deals):
        b = play_deal(Deal.random(700 + i), args.rules, players)
        pos = Position.replay(b.deal, " ".join(b.plays.split()[: i % 4]), b.rules)
        if len(pos.legal_cards()) < 2:
            continue
        k = Knowledge.of_position(pos, pos.to_move, b.calls)
        row = rows.setdefault(i % 4, np.zeros(5, dtype=np.int64))
        for layout in draw(k, args.layouts, i).rows:
            deal = Deal([Hand(int(m)) for m in layout])
            root = api.make_root(Position.replay(deal, k.record, k.rules), k.rules)
            eng.clear()  # each layout from an empty table, as a new deal gets (``note_deal``)
            n0 = eng.stats[ST_NODES]
            v = api.value_of(root, k.seat, eng)
            row[0] += 1
            row[1] += eng.stats[ST_NODES] - n0
            legal = api.legal_mask(root)
            values: dict[int, tuple[api.Root, int]] = {}  # card -> (position after it, value)
            for c in sorted({api._rep(root, c) for c in range(52) if (legal >> c) & 1}):
                nxt, w = api.child(root, c)
                bonus = int(w == k.seat)
                probes, t = [], v
                while t - bonus > 0:
                    n0 = eng.stats[ST_NODES]
                    yes = eng.at_least(nxt, k.seat, t - bonus)
                    probes.append((t, eng.stats[ST_NODES] - n0))
                    if yes:
                        break
                    t -= 1
                for at, nodes in probes:  # the value is t: yes at t, no at t + 1
                    row[2 if at in (t, t + 1) else 3] += nodes
                values[c] = (nxt, t - bonus)
            # the least any order of probes could do: each card's two needed probes alone, in
            # an empty table, as if its value were known beforehand
            eng.clear()
            n0 = eng.stats[ST_NODES]
            for nxt, need in values.values():
                if need > 0:
                    eng.at_least(nxt, k.seat, need)
                if need < nxt.left:
                    eng.at_least(nxt, k.seat, need + 1)
            row[4] += eng.stats[ST_NODES] - n0
    print("seat's place  layouts  value proof M  cards M  cards' needed probes  other M  "
          "all M  needed probes alone M")  # fmt: skip
    for place in sorted(rows):
        n, proof, need, other, least = (int(x) for x in rows[place])
        print(f"{place:>12}  {n:>7}  {proof / 1e6:13.1f}  {(need + other) / 1e6:7.1f}  "
              f"{need / max(1, need + other):20.1%}  {other / 1e6:7.2f}  "
              f"{(proof + need + other) / 1e6:5.1f}  {least / 1e6:22.1f}")  # fmt: skip


def _stats(label: str, t: list[float]) -> None:
    a = np.array(t)
    print(f"  {label:<34} median {np.median(a):6.3f}  p90 {np.quantile(a, 0.9):6.3f}  "
          f"max {a.max():6.3f}  s")  # fmt: skip


def _decision_positions(args: argparse.Namespace, trick: int) -> list[tuple[Position, list[int]]]:
    players = [make_player("simple") for _ in range(4)]
    out = []
    for i in range(args.deals):
        b = play_deal(Deal.random(700 + i), args.rules, players)
        k = 4 * (trick - 1) + i % 4
        pos = Position.replay(b.deal, " ".join(b.plays.replace("|", " ").split()[:k]), b.rules)
        if len(pos.legal_cards()) >= 2:
            out.append((pos, list(b.calls)))
    return out


def _widget_times(pos: Position, calls: list[int], layouts: int) -> tuple[float, float]:
    """Seconds from a click on the line viewer's single-dummy toggle at ``pos`` to the first
    answer drawn in its note and to the final one (the view without a kernel: it redraws on
    the advice's thread)."""
    from callbreak_lab.widgets.play_controllers import PlayLineViewer
    from callbreak_lab.widgets.play_views import PlayLineView

    record = pos.record()
    c = PlayLineViewer(pos.deal, pos.to_move, pos.rules, calls=calls, record=record,
                       layouts=layouts, time_limit=None)  # fmt: skip
    view = PlayLineView(c)
    drawn: list[float] = []
    c.observe(lambda: drawn.append(time.perf_counter()) if "cb-advice-status" in
              view.single_note.value else None)  # fmt: skip
    t0 = time.perf_counter()
    view.judgement.value = "single"  # as a click on the toggle does
    c.wait_single()
    end = time.perf_counter()
    return (drawn[0] if drawn else end) - t0, end - t0


def first(args: argparse.Namespace) -> None:
    from fastapi.testclient import TestClient

    from callbreak_lab.analysis.advice import AdviceUpdate, deepen
    from callbreak_lab.seat import Knowledge
    from callbreak_lab.seat.policy import learned_card
    from callbreak_lab.service import Settings, create_app

    limit = 0.15 if args.time_limit is None else args.time_limit
    tricks = [t for t in args.tricks if t in (1, 2)] or [1, 2]
    positions = {t: _decision_positions(args, t) for t in tricks}
    pos, calls = positions[tricks[0]][0]
    learned_card(Knowledge.of_position(pos, pos.to_move, calls))  # the play model loaded
    for trick in tricks:
        at_once, valued, final, solved = [], [], [], []
        for i, (pos, calls) in enumerate(positions[trick]):
            k = Knowledge.of_position(pos, pos.to_move, calls)
            t0 = time.perf_counter()
            seen: list[tuple[float, AdviceUpdate]] = []

            def note(u: AdviceUpdate, seen: list[Any] = seen, t0: float = t0) -> None:
                seen.append((time.perf_counter() - t0, u))

            deepen(k, layouts=args.layouts, seed=i, on_update=note)
            at_once.append(seen[0][0])
            valued.append(next(t for t, u in seen if u.answer is not None))
            final.append(seen[-1][0])
            solved.append(seen[-1][1].solved)
        print(f"trick {trick}: {len(final)} decisions, library (advice.deepen), "
              f"{args.layouts} layouts (median {np.median(solved):.0f} distinct)")  # fmt: skip
        _stats("first answer (learned card)", at_once)
        _stats("first answer with a value", valued)
        _stats("final answer", final)
    _widget_times(*positions[tricks[0]][0], args.layouts)  # the view's first drawing, untimed
    for trick in tricks:
        shown, final = [], []
        for pos, calls in positions[trick]:
            t_first, t_final = _widget_times(pos, calls, args.layouts)
            shown.append(t_first)
            final.append(t_final)
        print(f"trick {trick}: the line viewer's single-dummy judgement (widgets), "
              f"{args.layouts} layouts, from the toggle's click")  # fmt: skip
        _stats("first answer drawn", shown)
        _stats("final answer drawn", final)
    with TestClient(create_app(Settings(workers=1, advise_layouts_max=args.layouts))) as client:
        for trick in tricks:
            times, covered, learned = [], [], 0
            for i, (pos, calls) in enumerate(positions[trick]):
                body = {"hand": str(pos.deal[pos.to_move]), "plays": pos.record(),
                        "rules": args.rules, "calls": calls, "layouts": args.layouts, "seed": i,
                        "time_limit": limit}  # fmt: skip
                t0 = time.perf_counter()
                r = client.post("/v1/advise", json=body)
                times.append(time.perf_counter() - t0)
                d = r.json()
                assert r.status_code == 200, r.text
                covered.append(d["solved"] / max(1, d["total"]))
                learned += d["source"] == "learned"
            print(f"trick {trick}: /v1/advise with time_limit {limit:g} s: {learned} of "
                  f"{len(times)} answered the learned card; layouts covered median "
                  f"{np.median(covered):.0%}")  # fmt: skip
            _stats("answer (round trip)", times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=("decisions", "reviews", "work", "first"))
    p.add_argument("--deals", type=int, default=None)
    p.add_argument("--layouts", type=int, default=32)
    p.add_argument("--rules", default="online")
    p.add_argument(
        "--tricks",
        type=lambda t: [int(x) for x in t.split(",")],
        default=list(TRICKS),
        help="tricks at which to time a decision, e.g. 1 or 1,2,4 (decisions)",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="seconds a decision may take (advice's time_limit, as the widgets' hint uses)",
    )
    args = p.parse_args()
    if args.deals is None:
        args.deals = {"decisions": 24, "reviews": 6, "work": 40, "first": 24}[args.mode]
    _header(args)
    solver.warm_up()
    modes = {"decisions": decisions, "reviews": reviews, "work": work, "first": first}
    modes[args.mode](args)


if __name__ == "__main__":
    main()
