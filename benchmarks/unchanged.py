"""Seeded results that a refactoring must leave unchanged, recorded and compared.

Issue 62 ("One product") changes names, defaults and homes but not what the shipped players
and analyses answer. This script computes a JSON record of seeded results with no time limit,
small enough to run in a few minutes on one core:

* ``deal/...``: the seeded deals and their double-dummy play-outs the other items start from;
* ``solver/...``: ``dd_table``, ``card_values`` and ``playout`` on a few positions;
* ``advice/...``: ``single_dummy_values`` (and ``advise`` at the table) on positions at
  tricks 1, 2, 5 and 9 of seeded deals under several presets, 16 layouts: the best card and
  each legal card's expected score, expected tricks and make chance;
* ``montecarlo/...`` and ``line/...``: one ``monte_carlo`` and one single-dummy ``play_line``;
* ``review/...``: ``review_play`` (single-dummy, 4 layouts a decision) and ``analyse_play``
  (double-dummy) of seeded deals played out: each card's cost and each seat's totals;
* ``arena/...``: small duplicate tournaments (``arena.run``, no time limit) of the built-in
  players, ``strong`` on a single deal (a first deal: no standing): each player's figures,
  each margin with its per-deal margins, and every board's calls, plays and scores.

The same script runs against the API before issue 62 (``adbd4f2``) and after it: the calls go
through small adapters that pass each option under the name the installed version takes
(``n_jobs``/``threads``/``jobs``, ...) and import each function from wherever it lives.

    python benchmarks/unchanged.py --out benchmarks/reference/unchanged_adbd4f2.json
    python benchmarks/unchanged.py --compare benchmarks/reference/unchanged_adbd4f2.json

``--compare`` prints every entry that differs (floats within 1e-9, everything else exactly)
and exits with status 1 when one does. The package imported is whatever ``callbreak_lab`` is
on the path: ``PYTHONPATH=/path/to/a/worktree`` runs another commit's code.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# one core: the values are exact whatever the solver's threads, and the machine is shared
os.environ.setdefault("CALLBREAK_LAB_SOLVER_THREADS", "1")

import callbreak_lab
from callbreak_lab import Deal, Position, Ruleset

TOLERANCE = 1.5e-9  # floats are recorded rounded to 1e-9: a last-digit flip is within it
LAYOUTS = 16  # single-dummy layouts a position

# --- adapters: one call for the API before and after issue 62 -------------------------------------

#: an option's names, the current one first
ALIASES: dict[str, tuple[str, ...]] = {
    "n_jobs": ("n_jobs", "threads", "jobs"),
    "layouts": ("layouts", "n_layouts", "samples", "n"),
    "deals": ("deals", "n_deals"),
}


def _first(*paths: str) -> Any:
    """The first of ``module:attr`` paths that imports."""
    errors = []
    for path in paths:
        mod, _, attr = path.partition(":")
        try:
            obj = importlib.import_module(mod)
            for part in attr.split("."):
                obj = getattr(obj, part)
            return obj
        except (ImportError, AttributeError) as e:
            errors.append(f"{path}: {e}")
    raise ImportError("; ".join(errors))


def call(fn: Callable[..., Any], *args: Any, **options: Any) -> Any:
    """``fn(*args, **options)`` with each option under the name ``fn`` takes (``ALIASES``).
    ``progress=False`` is passed only where the default draws a bar (a bool defaulting to
    True), else left out."""
    params = inspect.signature(fn).parameters
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key == "progress":
            p = params.get("progress")
            if p is not None and p.default is True:
                out["progress"] = False
            continue
        for name in ALIASES.get(key, (key,)):
            if name in params:
                out[name] = value
                break
        else:
            if not var_kw:
                raise TypeError(f"{fn.__qualname__} takes none of {ALIASES.get(key, (key,))}")
            out[key] = value
    return fn(*args, **out)


def r9(x: Any) -> Any:
    """A float rounded to 1e-9 (None and ints as they are; NaN as the string "nan")."""
    if x is None or isinstance(x, bool | int | str):
        return x
    x = float(x)
    if math.isnan(x):
        return "nan"
    return round(x, 9)


def solver() -> Any:
    return importlib.import_module("callbreak_lab.solver")


# --- the positions -------------------------------------------------------------------------------

#: (deal seed, preset) of the deals the advice, line and solver items start from
DEALS = [(11, "online"), (12, "modern"), (13, "strict"), (14, "home"), (15, "pagat")]
#: cards played before each advice position (tricks 1, 2, 5 and 9, at various seats)
CUTS = {11: (0, 5, 34, 41), 12: (4, 17, 33), 13: (6, 18, 30), 14: (2, 19, 35), 15: (1, 16, 45)}


def seeded_deal(seed: int) -> Deal:
    return Deal.random(seed=seed)


def dd_calls(deal: Deal, rules: Ruleset) -> list[int]:
    """Calls from the double-dummy table, clamped to the preset's range."""
    table = solver().dd_table(deal, rules)
    return [max(rules.min_call, min(8, int(v))) for v in table]


def playout_cards(deal: Deal, rules: Ruleset) -> list[str]:
    return [str(c) for c in solver().playout(deal, rules).cards]


def position(seed: int, preset: str, cut: int, choice: bool = False) -> Position:
    """The position after ``cut`` cards of the deal's double-dummy play-out; ``choice``: the
    first from there on where the seat to move has two legal cards or more."""
    r = Ruleset.coerce(preset)
    d = seeded_deal(seed)
    cards = playout_cards(d, r)
    pos = Position.replay(d, cards[:cut], r)
    while choice and len(pos.legal_cards()) < 2:
        pos.play(cards[len(pos.history)])
    return pos


# --- the items -----------------------------------------------------------------------------------


def item_deals() -> Iterator[tuple[str, Any]]:
    for seed, preset in DEALS:
        r = Ruleset.coerce(preset)
        d = seeded_deal(seed)
        yield (
            f"deal/{seed}/{preset}",
            {
                "deal": str(d),
                "dd_table": list(solver().dd_table(d, r)),
                "calls": dd_calls(d, r),
                "playout": playout_cards(d, r),
                "playout_tricks": list(solver().playout(d, r).tricks),
            },
        )


def item_solver() -> Iterator[tuple[str, Any]]:
    for seed, preset in DEALS[:3]:
        r = Ruleset.coerce(preset)
        for cut in (9, 22):
            pos = position(seed, preset, cut)
            out = {}
            for seat in range(4):
                vals = solver().card_values(pos, seat, r)
                out[str(seat)] = {str(c): int(v) for c, v in sorted(vals.items(), key=str)}
            yield f"solver/card_values/{seed}/{preset}/{cut}", out
            yield f"solver/dd_table/{seed}/{preset}/{cut}", list(solver().dd_table(pos, r))
            p = solver().playout(pos, r)
            yield (
                f"solver/playout/{seed}/{preset}/{cut}",
                {"cards": [str(c) for c in p.cards], "tricks": list(p.tricks)},
            )


def single_dummy(sd: Any) -> dict[str, Any]:
    cards = {}
    for c, o in sd.outcomes.items():
        cards[str(c)] = {
            "expected": r9(o.expected),
            "tricks": r9(o.tricks),
            "make": r9(o.make),
            "cost": r9(sd.cost(c)),
        }
    return {
        "best": str(sd.best),
        "ranked": [str(c) for c in sd.ranked()],
        "layouts": int(sd.layouts),
        "distinct": int(sd.distinct),
        "exact": bool(sd.exact),
        "ess": r9(sd.ess),
        "cards": dict(sorted(cards.items())),
    }


def item_advice() -> Iterator[tuple[str, Any]]:
    values = _first("callbreak_lab.analysis.advice:single_dummy_values")
    for seed, preset in DEALS:
        r = Ruleset.coerce(preset)
        calls = dd_calls(seeded_deal(seed), r)
        for k, cut in enumerate(CUTS[seed]):
            pos = position(seed, preset, cut, choice=True)
            seat = pos.to_move
            # one position of three judged by tricks (no calls), the others by points
            judged = None if (seed + k) % 3 == 0 else calls
            sd = call(values, pos, seat, calls=judged, layouts=LAYOUTS, seed=seed * 100 + cut,
                      n_jobs=1)  # fmt: skip
            yield (
                f"advice/sdv/{seed}/{preset}/{cut}",
                {
                    "played": len(pos.history),
                    "seat": seat,
                    "calls": judged,
                    **single_dummy(sd),
                },
            )
    for seed, preset, cut in ((11, "online", 3), (12, "modern", 9), (14, "home", 20)):
        pos = position(seed, preset, cut, choice=True)
        calls = dd_calls(seeded_deal(seed), Ruleset.coerce(preset))
        sd = call(values, pos, pos.to_move, calls=calls, layouts=64, seed=seed, n_jobs=1)
        yield (
            f"advice/sdv64/{seed}/{preset}/{cut}",
            {
                "played": len(pos.history),
                "seat": pos.to_move,
                **single_dummy(sd),
            },
        )
    # two workers: the same answer as one (the layouts and their order are seeded)
    pos = position(13, "strict", 10, choice=True)
    calls = dd_calls(seeded_deal(13), Ruleset.coerce("strict"))
    sd = call(values, pos, pos.to_move, calls=calls, layouts=32, seed=5, n_jobs=2)
    yield "advice/sdv-2jobs/13/strict/10", single_dummy(sd)
    advise = _first("callbreak_lab.analysis.advice:advise")
    for seed, preset, cut in ((11, "online", 13), (13, "strict", 26)):
        r = Ruleset.coerce(preset)
        d = seeded_deal(seed)
        plays = playout_cards(d, r)[:cut]
        pos = Position.replay(d, plays, r)
        hand = str(d[pos.to_move])  # the 13 cards dealt
        sd = call(advise, hand, plays=" ".join(plays), rules=r, calls=dd_calls(d, r),
                  layouts=LAYOUTS, seed=seed, n_jobs=1)  # fmt: skip
        yield f"advice/advise/{seed}/{preset}/{cut}", single_dummy(sd)


def item_montecarlo() -> Iterator[tuple[str, Any]]:
    mc = _first("callbreak_lab.analysis.montecarlo:monte_carlo")
    for seed, preset, seat in ((21, "online", 0), (22, "home", 2)):
        d = seeded_deal(seed)
        res = call(mc, str(d[seat]), seat, rules=preset, layouts=24, seed=seed, n_jobs=1)
        yield (
            f"montecarlo/{seed}/{preset}/{seat}",
            {
                "playout": [int(x) for x in res.playout],
                "dd": [int(x) for x in res.dd],
                "calls": [int(x) for x in res.calls],
                "expected": [r9(x) for x in res.expected],
                "expected_se": [r9(x) for x in res.expected_se],
                "best_call": int(res.best_call),
            },
        )


def item_line() -> Iterator[tuple[str, Any]]:
    play_line = _first("callbreak_lab.analysis.lines:play_line", "callbreak_lab.analysis:play_line")
    seed, preset, cut = 12, "modern", 24
    pos = position(seed, preset, cut, choice=True)
    r = Ruleset.coerce(preset)
    calls = dd_calls(seeded_deal(seed), r)
    line = call(play_line, pos, pos.to_move, rules=r, calls=calls, advice="single", layouts=4,
                seed=seed)  # fmt: skip
    steps = []
    for st in line.steps:
        sd = getattr(st, "single", None)
        steps.append(
            {
                "seat": int(st.seat),
                "card": str(st.card),
                "values": {str(c): int(v) for c, v in sorted(st.values.items(), key=str)},
                "single": None if sd is None else single_dummy(sd),
            }
        )
    yield f"line/{seed}/{preset}/{cut}", steps


#: (deal seed, preset, how the deal is played out, play seed)
REVIEWS = [
    (31, "online", "random", 1),
    (32, "modern", "random", 2),
    (33, "strict", "playout", 0),
    (34, "home", "random", 3),
]


def reviewed_deal(seed: int, preset: str, how: str, play_seed: int) -> tuple[Deal, list[str]]:
    from callbreak_lab.game import play_out, random_player

    d = seeded_deal(seed)
    r = Ruleset.coerce(preset)
    if how == "playout":
        return d, playout_cards(d, r)
    pos = play_out(Position(d, r), random_player(play_seed))
    return d, [str(c) for _, c in pos.history]


def item_reviews() -> Iterator[tuple[str, Any]]:
    review_play = _first("callbreak_lab.analysis.review:review_play")
    analyse_play = _first("callbreak_lab.analysis.review:analyse_play")
    for seed, preset, how, play_seed in REVIEWS:
        d, plays = reviewed_deal(seed, preset, how, play_seed)
        r = Ruleset.coerce(preset)
        calls = None if preset == "home" else dd_calls(d, r)  # home: judged by tricks
        key = f"{seed}/{preset}/{how}"
        yield f"review/plays/{key}", plays
        rev = call(review_play, d, plays=" ".join(plays), rules=r, calls=calls, layouts=8,
                   seed=seed)  # fmt: skip
        yield (
            f"review/sd/{key}",
            {
                "cards": [
                    {
                        "index": int(c.index),
                        "seat": int(c.seat),
                        "card": str(c.card),
                        "forced": bool(c.forced),
                        "dd_value": c.dd_value,
                        "best": None if c.sd_best_card is None else str(c.sd_best_card),
                        "expected": r9(c.sd_expected),
                        "cost": r9(c.cost),
                    }
                    for c in rev.cards
                ],
                "players": [
                    {
                        "seat": int(p.seat),
                        "call": p.call,
                        "best_call": p.best_call,
                        "call_cost": r9(p.call_cost),
                        "play_cost": r9(p.play_cost),
                        "judged": int(p.judged),
                        "mistakes": int(p.mistakes),
                    }
                    for p in rev.players
                ],
            },
        )
        dd = call(analyse_play, d, plays=" ".join(plays), rules=r, calls=calls)
        yield (
            f"review/dd/{key}",
            {
                "cards": [
                    [int(e.step.seat), str(e.step.card), int(e.before), int(e.after)]
                    for e in dd.entries
                ],
                "summary": dd.summary(),
            },
        )


#: (label, players, preset, deals, seed)
TOURNAMENTS = [
    ("basic", ["random", "simple", "honours", "model"], "online", 10, 7),
    ("basic-modern", ["model", "honours", "simple", "random"], "modern", 5, 8),
    ("basic-home", ["honours", "random", "model", "simple"], "home", 5, 13),
    ("learned", ["learned", "model", "simple", "honours"], "online", 5, 9),
    ("learned-strict", ["learned", "simple", "random", "model"], "strict", 5, 14),
    ("cheater", ["cheater", "simple", "learned", "random"], "online", 5, 10),
    ("cheater-pagat", ["cheater", "model", "honours", "learned"], "pagat", 5, 15),
    ("pimc", ["pimc", "model", "simple", "honours"], "online", 10, 11),
    ("pimc-modern", ["pimc", "learned", "cheater", "simple"], "modern", 5, 16),
    # strong on first deals (a tournament of one deal: no standing yet)
    ("strong", ["strong", "pimc", "model", "simple"], "online", 1, 12),
    ("strong-pimc", ["strong", "pimc", "pimc", "pimc"], "online", 1, 17),
    ("strong-pimc-2", ["strong", "pimc", "pimc", "pimc"], "online", 1, 18),
    ("strong-modern", ["strong", "learned", "honours", "pimc"], "modern", 1, 19),
    ("strong-home", ["strong", "model", "pimc", "learned"], "home", 1, 20),
    ("strong-strict", ["strong", "pimc", "cheater", "simple"], "strict", 1, 21),
    *[
        (f"strong-pimc-{s}", ["strong", "pimc", "pimc", "pimc"], "online", 1, s)
        for s in range(22, 26)
    ],
]


def item_arena() -> Iterator[tuple[str, Any]]:
    run = _first("callbreak_lab.arena.tournament:run", "callbreak_lab.arena:run")
    for label, players, preset, deals, seed in TOURNAMENTS:
        t0 = time.perf_counter()
        rep = call(run, players, rules=preset, deals=deals, seed=seed, n_jobs=1, progress=False)
        yield (
            f"arena/{label}",
            {
                "players": [
                    {
                        "name": p.name,
                        "boards": int(p.boards),
                        "mean_score": r9(p.mean_score),
                        "score_se": r9(p.score_se),
                        "mean_call": r9(p.mean_call),
                        "mean_tricks": r9(p.mean_tricks),
                        "made": r9(p.made),
                        "faults": int(p.faults),
                    }
                    for p in rep.players
                ],
                "margins": [
                    {
                        "a": m.a,
                        "b": m.b,
                        "margin": r9(m.margin),
                        "se": r9(m.se),
                        "by_deal": [[int(i), r9(v)] for i, v in m.by_deal],
                    }
                    for m in rep.margins
                ],
                "boards": [
                    {
                        "deal": str(b.deal),
                        "deal_index": int(b.deal_index),
                        "rotation": int(b.rotation),
                        "players": list(b.players),
                        "calls": [int(c) for c in b.calls],
                        "plays": b.plays,
                        "scores": [int(s) for s in b.scores],
                    }
                    for b in rep.boards
                ],
            },
        )
        print(f"  arena/{label}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)


ITEMS: dict[str, Callable[[], Iterator[tuple[str, Any]]]] = {
    "deal": item_deals,
    "solver": item_solver,
    "advice": item_advice,
    "montecarlo": item_montecarlo,
    "line": item_line,
    "review": item_reviews,
    "arena": item_arena,
}


def record(only: list[str] | None) -> dict[str, Any]:
    entries: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    for name, fn in ITEMS.items():
        if only and name not in only:
            continue
        t0 = time.perf_counter()
        try:
            for key, value in fn():
                entries[key] = value
        except Exception as e:  # a failing item is recorded, and compared as such
            entries[f"{name}/error"] = f"{type(e).__name__}: {e}"
        seconds[name] = round(time.perf_counter() - t0, 1)
        print(f"{name}: {seconds[name]} s", file=sys.stderr, flush=True)
    package = Path(callbreak_lab.__file__).parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(package), "rev-parse", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        commit = None
    return {
        "meta": {
            "package": str(package),
            "commit": commit,
            "version": getattr(callbreak_lab, "__version__", None),
            "seconds": seconds,
        },
        "entries": entries,
    }


# --- comparison ----------------------------------------------------------------------------------


def _diff(path: str, a: Any, b: Any, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a.keys() | b.keys():
            if k not in b:
                out.append(f"{path}/{k}: missing now (was {json.dumps(a[k])[:200]})")
            elif k not in a:
                out.append(f"{path}/{k}: new (now {json.dumps(b[k])[:200]})")
            else:
                _diff(f"{path}/{k}", a[k], b[k], out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} -> {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _diff(f"{path}[{i}]", x, y, out)
        return
    if not _same(a, b):
        out.append(f"{path}: {json.dumps(a)[:200]} -> {json.dumps(b)[:200]}")


def _same(a: Any, b: Any) -> bool:
    """Equal, floats within ``TOLERANCE`` (bools and ints exactly)."""
    numbers = all(isinstance(x, float | int) and not isinstance(x, bool) for x in (a, b))
    if numbers and (isinstance(a, float) or isinstance(b, float)):
        return bool(abs(a - b) <= TOLERANCE)
    return bool(type(a) is type(b) and a == b) or (numbers and a == b)


def compare(ref: dict[str, Any], now: dict[str, Any]) -> list[str]:
    out: list[str] = []
    a, b = ref["entries"], now["entries"]
    for key in sorted(a.keys() | b.keys()):
        if key not in b:
            out.append(f"{key}: missing now")
        elif key not in a:
            out.append(f"{key}: new (now {json.dumps(b[key])[:200]})")
        else:
            _diff(key, a[key], b[key], out)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, help="write the record here")
    ap.add_argument(
        "--compare", type=Path, help="compare with this record; status 1 on a difference"
    )
    ap.add_argument("--only", nargs="*", choices=list(ITEMS), help="these items only")
    args = ap.parse_args()
    if args.out is None and args.compare is None:
        ap.error("give --out FILE and/or --compare FILE")
    print(f"callbreak_lab from {Path(callbreak_lab.__file__).parent}", file=sys.stderr)
    ref = json.loads(args.compare.read_text()) if args.compare else None
    only = args.only
    if ref is not None and only:
        ref["entries"] = {k: v for k, v in ref["entries"].items() if k.split("/", 1)[0] in only}
    now = record(only)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    if ref is None:
        return 0
    diffs = compare(ref, now)
    for line in diffs:
        print(line)
    n = len(ref["entries"])
    changed = len({d.split("/")[0] + "/" + d.split("/")[1] for d in diffs}) if diffs else 0
    print(
        f"{len(diffs)} differences ({changed} item groups) over {n} recorded entries; "
        f"seconds {now['meta']['seconds']}",
        file=sys.stderr,
    )
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
