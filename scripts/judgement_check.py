"""Value-identity checks for changes to the judgement of a seat (a developer tool).

A refactoring of the hidden-card layer (what a seat knows, the layouts of the cards it cannot
see, each card's outcome over them, the card choice) must not change one answer of a seeded run
without a time limit. This script records those answers on fixed positions and compares two
records:

    # before the change (e.g. from a git worktree of the old commit on PYTHONPATH):
    python scripts/judgement_check.py record old.json
    # after it:
    python scripts/judgement_check.py record new.json
    python scripts/judgement_check.py compare old.json new.json

What is recorded (every preset family, deals from ``Deal.random(seed)`` played by the
self-interested play-out to a fixed number of cards): single-dummy values of the seat to move
(sampled and exact), the same from the mover's own cards (``advise``), single-dummy and
double-dummy reviews of a played deal, a single-dummy play line, the ``strong`` and ``pimc``
players' cards on seat views without a budget, and a seeded arena run of ``strong`` against
three ``pimc`` (every board's score). Times are dropped. Exit code 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from callbreak_lab import Deal, Position, Ruleset
from callbreak_lab.analysis.advice import advise, single_dummy_values
from callbreak_lab.analysis.lines import play_line
from callbreak_lab.analysis.review import analyse_play, review_play
from callbreak_lab.arena import make_player, run
from callbreak_lab.arena.referee import seat_view
from callbreak_lab.solver import playout

#: the keyword of a count of layouts
LAYOUTS = "layouts"

PRESETS = ("online", "modern", "strict", "home")
DROP = {"elapsed_ms", "seconds", "ms_p50", "ms_p99", "ms_max", "ms_mean"}


def _clean(x: Any) -> Any:
    """``x`` without timing keys, floats rounded to 9 places."""
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items() if k not in DROP}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if isinstance(x, float):
        return round(x, 9)
    return x


def _position(seed: int, rules: Ruleset, cards: int) -> tuple[Position, list[int]]:
    """``Deal.random(seed)`` after ``cards`` cards of its play-out, and calls from its
    play-out tricks (clamped to the preset's range)."""
    deal = Deal.random(seed)
    out = playout(deal, rules)
    calls = [min(max(t, rules.min_call), rules.max_call) for t in out.tricks]
    return Position.replay(deal, out.cards[:cards], rules), calls


def _player(spec: str, rules: Ruleset) -> Any:
    """A built-in player, or one of the two policies the record keeps beside ``strong``: for
    the mean value (``strong:tricks``) and over uniform layouts (``strong:uniform``)."""
    from callbreak_lab.arena.players import PolicyPlayer
    from callbreak_lab.seat.policy import STRONG

    if spec == "strong:tricks":
        return PolicyPlayer(STRONG.replace(objective="tricks"))
    if spec == "strong:uniform":
        return PolicyPlayer(STRONG.replace(beta=0.0))
    return make_player(spec, rules)


def record(quick: bool) -> dict[str, Any]:
    """Every recorded answer, by name."""
    res: dict[str, Any] = {}
    depths = (13, 21, 30, 37) if not quick else (30,)
    for i, preset in enumerate(PRESETS):
        rules = Ruleset.preset(preset)
        for depth in depths:
            seed = 100 + 10 * i + depth
            pos, calls = _position(seed, rules, depth)
            seat = pos.to_move
            key = f"{preset}/{seed}/{depth}"
            sd = single_dummy_values(pos, seat, calls, layouts=12, seed=seed, n_jobs=1)
            res[f"sd/{key}"] = _clean(sd.to_dict())
            sd0 = single_dummy_values(pos, seat, None, layouts=12, seed=seed, n_jobs=1)
            res[f"sd-nocalls/{key}"] = _clean(sd0.to_dict())
            dealt = pos.deal.hands[seat]
            ad = advise(dealt, pos.record(), rules, calls, layouts=12, seed=seed, n_jobs=1)
            res[f"advise/{key}"] = _clean(ad.to_dict())
            sdx = single_dummy_values(
                pos, seat, calls, layouts=12, seed=seed, exact_limit=0, n_jobs=1
            )
            res[f"sd-sampled/{key}"] = _clean(sdx.to_dict())
            for spec in ("strong", "pimc", "strong:tricks", "strong:uniform"):
                player = _player(spec, rules)
                player.new_deal(seed)  # type: ignore[attr-defined]
                view = seat_view(pos, seat, calls)
                res[f"play/{spec}/{key}"] = str(player.play(view))
    rules = Ruleset.preset("online")
    deal = Deal.random(7)
    out = playout(deal, rules)
    calls = [min(max(t, 1), 8) for t in out.tricks]
    rv = review_play(deal, out.cards[:28], rules, calls=calls, layouts=6, seed=3)
    res["review/online/7"] = _clean(rv.to_dict())
    res["analyse/online/7"] = _clean(analyse_play(deal, out.cards, rules, calls=calls).to_dict())
    late = Position.replay(deal, out.cards[:32], rules)
    line = play_line(
        late, late.to_move, rules, calls=calls, advice="single", **{LAYOUTS: 6}, seed=2
    )
    res["line/online/7"] = _clean(line.to_dict())
    if not quick:
        for preset in ("online", "modern"):
            report = run(["strong", "pimc", "pimc", "pimc"], preset, deals=2, seed=5)
            res[f"arena/{preset}"] = _clean(report.to_dict())
            res[f"arena-boards/{preset}"] = [
                [list(b.calls), list(b.tricks), list(b.scores)] for b in report.boards
            ]
    return res


def compare(a: dict[str, Any], b: dict[str, Any]) -> int:
    """Print every key whose answers differ; the number of differences."""
    bad = 0
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            bad += 1
            print(
                f"DIFFERS {k}:\n  old {json.dumps(a.get(k))[:400]}\n"
                f"  new {json.dumps(b.get(k))[:400]}"
            )
    print(f"{len(set(a) | set(b))} answers, {bad} differ")
    return bad


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("--quick", action="store_true", help="one depth per preset, no arena")
    c = sub.add_parser("compare")
    c.add_argument("old")
    c.add_argument("new")
    args = p.parse_args(argv)
    if args.cmd == "record":
        res = record(args.quick)
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(res, f, indent=1, sort_keys=True)
        print(f"{len(res)} answers -> {args.out}")
        return 0
    with open(args.old, encoding="utf-8") as f:
        old = json.load(f)
    with open(args.new, encoding="utf-8") as f:
        new = json.load(f)
    return 1 if compare(old, new) else 0


if __name__ == "__main__":
    sys.exit(main())
