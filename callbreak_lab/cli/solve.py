"""The solver's commands of ``callbreak-lab``: ``solve`` (values, card values, play-out, for one
deal or a ``--file`` of them), ``line`` (an annotated line) and ``analyse`` (a review of played
cards)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from callbreak_lab.cards import Card, Deal
from callbreak_lab.cli.base import PROG, Output, UsageError, rules_of
from callbreak_lab.errors import CallbreakLabError, SolverInputError
from callbreak_lab.fileio import read_lines

# --- line / analyse -----------------------------------------------------------------------------


def add_line(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "line",
        parents=[common],
        help="the annotated double-dummy line (or play-out) of a deal",
        description="The double-dummy line for --seat from the start of DEAL (or after --plays) "
        "to the end: each card with every legal card's value for the seat, forced cards and "
        "why, trick winners and running trick counts. --playout prints the self-interested "
        "play-out instead (each player plays its best card for itself).",
    )
    p.add_argument("deal", help="four dotted hands, seats 0..3, e.g. 'AKQ2.T98.765.432 ...'")
    p.add_argument("--seat", type=int, default=None, help="the studied seat 0..3")
    p.add_argument(
        "--plays",
        default="",
        help="cards already played (a play record); omitted or empty: from the start of the deal",
    )
    p.add_argument("--calls", default=None, help="the four calls, e.g. 3,4,2,3")
    p.add_argument("--playout", action="store_true", help="the self-interested play-out")
    p.add_argument("--brief", action="store_true", help="one row per trick, no values")
    p.set_defaults(run=cmd_line)


def cmd_line(args: argparse.Namespace) -> Output:
    """An annotated line from a deal and optional plays."""
    from callbreak_lab.game import Position
    from callbreak_lab.lines import play_line, playout_line

    rules = rules_of(args)
    pos = Position.replay(Deal.parse(args.deal), args.plays, rules)
    if pos.is_over:
        raise SolverInputError("the plays finish the deal: no card is left to play")
    if args.playout:
        if args.seat is not None:
            raise UsageError("line: --seat and --playout exclude each other")
        line = playout_line(pos, rules, args.calls)
    else:
        if args.seat is None:
            raise UsageError("line: give --seat 0..3 (or --playout)")
        line = play_line(pos, args.seat, rules, args.calls)
    return Output(line.text(detail=not args.brief), line.to_dict())


def add_analyse(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "analyse",
        parents=[common],
        help="review the cards played in a deal against double-dummy defence",
        description="For each card of --plays: its player's double-dummy value before and "
        "after it; flags each card that lost a trick, with the better cards, and sums up per "
        "seat.",
    )
    p.add_argument("deal", help="four dotted hands, seats 0..3")
    p.add_argument("--plays", required=True, help="the cards played (a play record)")
    p.add_argument("--calls", default=None, help="the four calls, e.g. 3,4,2,3")
    p.add_argument("--detail", action="store_true", help="every card's values and reasons")
    p.set_defaults(run=cmd_analyse)


def cmd_analyse(args: argparse.Namespace) -> Output:
    """A review of played cards."""
    from callbreak_lab.lines import analyse_play

    if not args.plays.strip():  # an empty review: almost surely a mistake (an unset variable)
        raise UsageError(
            "analyse: --plays is empty: give the cards played, e.g. 'AS 2S 5S KS | QH'"
        )
    review = analyse_play(args.deal, args.plays, rules_of(args), args.calls)
    return Output(review.text(detail=args.detail), review.to_dict())


def add_solve(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "solve",
        parents=[common],
        help="exact double-dummy values of a deal or position",
        description="Exact double-dummy values: for each seat, the tricks of the remaining ones "
        "(trick in progress included) it can guarantee when all hands are visible and the other "
        "three play together against it. --file solves one deal per line ('<deal> @ <record>' "
        "allowed); a bad line is reported with its number, the others are still solved, and the "
        "exit code is 2.",
    )
    _solve_arguments(p)
    p.set_defaults(run=cmd_solve)


def cmd_solve(args: argparse.Namespace) -> Output:
    """Double-dummy values of one deal (or every line of --file)."""
    rules = rules_of(args)
    if (args.deal is None) == (args.file is None):
        raise UsageError("solve: give a deal or --file (one of them)")
    if args.file is not None:
        if args.plays or args.seat is not None or args.cards:
            raise UsageError("solve: --plays, --seat and --cards work with one deal, not --file")
        raise SystemExit(solve_file(args, rules, PROG))  # output already printed line by line
    text, data = solve_one(args.deal, args.plays, rules, args)
    return Output(text, data)


def _solve_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``solve``."""
    p.add_argument("deal", nargs="?", help="four dotted hands, seats 0..3 (or use --file)")
    p.add_argument(
        "--plays",
        default="",
        help="cards already played (a play record); omitted or empty: from the start of the deal",
    )
    p.add_argument("--seat", type=int, default=None, help="print only this seat's value")
    p.add_argument(
        "--cards",
        action="store_true",
        help="values of each legal card of the player to move (for --seat, else for the mover)",
    )
    p.add_argument("--playout", action="store_true", help="also the self-interested play-out")
    p.add_argument(
        "--file",
        help="solve one deal per line ('<deal>' or '<deal> @ <record>'; '#' comments; '-' stdin)",
    )


def _position(deal_text: str, plays: str, rules: Any) -> Any:
    from callbreak_lab.game import Position

    return Position.replay(Deal.parse(deal_text), plays, rules)


def _table(values: tuple[int, ...], label: str) -> str:
    head = f"{'seat':<11}" + " ".join(f"{s:>3}" for s in range(4))
    return head + "\n" + _row(label, values)


def _row(label: str, values: Sequence[int]) -> str:
    return f"{label:<11}" + " ".join(f"{v:>3}" for v in values)


def solve_one(deal_text: str, plays: str, rules: Any, args: argparse.Namespace) -> tuple[str, Any]:
    """Text and JSON data for one deal (``solve DEAL`` without ``--file``)."""
    from callbreak_lab.solver import card_values, dd_table, playout, solve

    pos = _position(deal_text, plays, rules)
    data: dict[str, Any] = {"deal": str(pos.deal), "plays": pos.record(), "rules": rules.name}
    lines: list[str] = []
    if args.seat is not None:
        v = solve(pos, args.seat, rules)
        data["seat"] = args.seat
        data["value"] = v
        lines.append(f"seat {args.seat}: {v} of the remaining tricks")
    else:
        t = dd_table(pos, rules)
        data["tricks"] = list(t)
        lines.append(_table(t, "guaranteed"))
        if pos.history:
            lines.append(_row("won", pos.tricks_won))
        left = 13 - pos.trick_index
        lines.append(
            f"guaranteed: of the {left} tricks left, what each seat takes against the best "
            f"defence of the other three (double-dummy); these need not sum to {left}"
        )
    if args.cards and not pos.is_over:
        who = pos.to_move if args.seat is None else args.seat
        vals = card_values(pos, who, rules)
        data["card_values"] = {str(c): v for c, v in vals.items()}
        data["card_values_seat"] = who
        lines.append(
            f"seat {pos.to_move} to play, values for seat {who}: "
            + " ".join(f"{Card(c)}={v}" for c, v in sorted(vals.items(), key=lambda cv: -cv[0]))
        )
    if args.playout:
        res = playout(pos, rules)
        data["playout"] = list(res.tricks)
        data["cards"] = [str(c) for c in res.cards]
        lines.append(_table(res.tricks, "playout"))
        lines.append("playout: tricks when every seat plays for its own double-dummy value")
        cards = [str(c) for c in res.cards]
        lines.append(" | ".join(" ".join(cards[i : i + 4]) for i in range(0, len(cards), 4)))
    return "\n".join(lines), data


def solve_file(args: argparse.Namespace, rules: Any, prog: str) -> int:
    """``solve --file F``: one line of output per deal, errors on stderr; exit code 2 if any
    line was bad, else 0."""
    from callbreak_lab.solver import dd_table, playout

    bad = 0
    for number, raw in enumerate(read_lines(args.file), start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        deal_text, _, plays = text.partition("@")
        try:
            pos = _position(deal_text.strip(), plays.strip(), rules)
            tricks = list(dd_table(pos, rules))
            record: dict[str, Any] = {"deal": str(pos.deal)}
            if pos.history:
                record["plays"] = pos.record()
            record["tricks"] = tricks
            if args.playout:
                res = playout(pos, rules)
                record["playout"] = list(res.tricks)
                record["cards"] = [str(c) for c in res.cards]
        except CallbreakLabError as e:
            bad += 1
            message = " ".join(str(e).split())
            print(f"{prog}: error: line {number}: {message}", file=sys.stderr)
            continue
        if args.json:
            print(json.dumps(record), flush=True)
        else:
            extra = f"  playout {' '.join(map(str, record['playout']))}" if args.playout else ""
            print(f"{record['deal']}: {' '.join(map(str, tricks))}{extra}", flush=True)
    return 2 if bad else 0


COMMANDS = [add_line, add_analyse, add_solve]
