"""The solver's commands of ``callbreak-lab``: ``solve`` (values, card values, play-out, for one
deal or a ``--file`` of them), ``line`` (an annotated line), ``analyse`` (a review of played
cards) and ``advise`` (which card to play, from the mover's own hand: single-dummy)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from callbreak_lab.cards import Card, Deal
from callbreak_lab.cli.base import (
    PROG,
    Output,
    Parser,
    Subparsers,
    add_layouts,
    add_time_limit,
    hidden_alias,
    parse_ints,
    progress_of,
    rules_of,
)
from callbreak_lab.errors import CallbreakLabError, SolverInputError, UsageError, check_time_limit
from callbreak_lab.util.fileio import read_lines

# --- line / analyse -----------------------------------------------------------------------------


def add_line(sub: Subparsers, common: Parser) -> None:
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
    from callbreak_lab.analysis.lines import play_line, playout_line
    from callbreak_lab.game import Position

    rules = rules_of(args)
    pos = Position.replay(Deal.parse(args.deal), args.plays, rules)
    if pos.is_over:
        raise SolverInputError("the plays finish the deal: no card is left to play")
    if args.playout:
        if args.seat is not None:
            raise UsageError("line: --seat and --playout exclude each other")
        line = playout_line(pos, rules, calls=args.calls)
    else:
        if args.seat is None:
            raise UsageError("line: give --seat 0..3 (or --playout)")
        line = play_line(pos, args.seat, rules, calls=args.calls)
    return Output(line.text(detail=not args.brief), line.to_dict())


def add_analyse(sub: Subparsers, common: Parser) -> None:
    p = sub.add_parser(
        "analyse",
        parents=[common],
        help="review the cards played (double-dummy, or single-dummy: as seen at the table)",
        description="For each card of --plays: its player's double-dummy value before and "
        "after it; flags each card that lost a trick, with the better cards, and sums up per "
        "seat. --layouts N judges every card by what its player could see instead (single-"
        "dummy: N layouts of the hidden cards a decision, weighted by the calls): its expected "
        "score, the best card and the cost in points, each player's points lost by calling and by "
        "play, and the three biggest mistakes. --record reads an arena board record and "
        "--bhoos a file of Bhoos /play requests (the requesting bot's cards are judged).",
    )
    p.add_argument("deal", nargs="?", help="four dotted hands, seats 0..3")
    p.add_argument("--plays", default=None, help="the cards played (a play record)")
    p.add_argument(
        "--calls", default=None, help="the four calls, e.g. 3,4,2,3 (over a record's own)"
    )
    p.add_argument("--detail", action="store_true", help="every card's values and reasons")
    add_layouts(p, None, "judge single-dummy with N layouts a decision (32 is a good start)")
    hidden_alias(p, "--single-dummy", "layouts", type=int)
    add_time_limit(
        p, "single-dummy: judge no further card after SECONDS (the review says where it stopped)"
    )
    p.add_argument("--seed", type=int, default=0, help="the layouts' seed (single-dummy)")
    p.add_argument(
        "--seats", default=None, help="judge only these seats, e.g. 0 or 0,2 (single-dummy)"
    )
    p.add_argument(
        "--from-trick",
        type=int,
        default=1,
        metavar="T",
        help="judge the cards from trick T on (single-dummy; the earlier ones are replayed)",
    )
    p.add_argument("--record", default=None, help="an arena board record (JSON) to review")
    p.add_argument(
        "--bhoos", default=None, help="a file of Bhoos /play requests (JSON objects) to review"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar (single-dummy)")
    p.set_defaults(run=cmd_analyse)


def cmd_analyse(args: argparse.Namespace) -> Output:
    """A review of played cards (double-dummy, or single-dummy with --single-dummy)."""
    from callbreak_lab.analysis.review import analyse_play
    from callbreak_lab.game import parse_record

    sources = [x for x in (args.deal, args.record, args.bhoos) if x is not None]
    if len(sources) != 1:
        raise UsageError("analyse: give one of DEAL (with --plays), --record FILE, --bhoos FILE")
    sd = args.layouts
    if sd is not None and not 1 <= sd <= 4096:
        raise UsageError(f"analyse: --layouts must be 1..4096, got {sd}")
    if sd is None and (args.seats is not None or args.bhoos is not None):
        raise UsageError("analyse: --seats and --bhoos need --layouts N (single-dummy)")
    if sd is None and args.time_limit is not None:
        raise UsageError("analyse: --time-limit limits a single-dummy review: give --layouts N")
    _check_time_limit(args.time_limit, "analyse")
    seats = None if args.seats is None else parse_ints(args.seats, "--seats")
    if args.bhoos is not None:
        return _analyse_bhoos(args, sd or 0)
    if args.record is not None:
        from callbreak_lab.arena.records import load_record

        if args.plays is not None:
            raise UsageError("analyse: --record holds the plays; --plays is not used with it")
        board = load_record(args.record)
        deal, plays, rules = board.deal, board.plays, board.rules
        calls: Any = board.calls if args.calls is None else args.calls
    else:
        if args.plays is None or not args.plays.strip():  # an empty review: an unset variable?
            raise UsageError(
                "analyse: --plays is empty: give the cards played, e.g. 'AS 2S 5S KS | QH'"
            )
        deal, plays, rules, calls = args.deal, args.plays, rules_of(args), args.calls
    if sd is None:
        review = analyse_play(deal, plays, rules, calls=calls)
        return Output(review.text(detail=args.detail), review.to_dict())
    from callbreak_lab.analysis.review import review_play

    if not 1 <= args.from_trick <= 13:
        raise UsageError(f"analyse: --from-trick must be 1..13, got {args.from_trick}")
    first = min(4 * (args.from_trick - 1), len(parse_record(plays)))
    with progress_of(args, "single-dummy review") as progress:
        sdr = review_play(
            deal, plays, rules, calls=calls, layouts=sd, seed=args.seed, seats=seats,
            first=first, time_limit=args.time_limit, progress=progress,
        )  # fmt: skip
    return Output(sdr.text(), sdr.to_dict())


def _check_time_limit(seconds: float | None, command: str) -> None:
    check_time_limit(seconds, f"{command}: --time-limit")


def _analyse_bhoos(args: argparse.Namespace, n: int) -> Output:
    from callbreak_lab.arena.bhoos import read_requests, review_bhoos

    if args.plays is not None or args.seats is not None:
        raise UsageError("analyse: --bhoos reviews the requesting bot's cards; no --plays/--seats")
    requests = list(read_requests("\n".join(read_lines(args.bhoos, "--bhoos"))))
    with progress_of(args, "single-dummy review") as progress:
        reviews = review_bhoos(
            requests, calls=args.calls, layouts=n, seed=args.seed, progress=progress
        )
    if not reviews:
        raise UsageError(f"analyse: {args.bhoos} holds no /play request")
    text = "\n\n".join(f"game {i}: " + r.text() for i, r in enumerate(reviews, 1))
    return Output(text, {"games": [r.to_dict() for r in reviews]})


def add_advise(sub: Subparsers, common: Parser) -> None:
    p = sub.add_parser(
        "advise",
        parents=[common],
        help="which card to play, knowing only your own cards (single-dummy)",
        description="At the table: the seat to play after --plays (seat 0 led the first trick, "
        "each trick's winner the next) holds HAND. Every legal card is judged over layouts of "
        "the cards it cannot see that fit the play so far, weighted by the other seats' calls: "
        "expected score (with the seat's own call), expected tricks and the chance of making "
        "the call, best first, with what each other card costs.",
    )
    p.add_argument("hand", help="your cards now, or the 13 you were dealt (e.g. AKQ2.T98.765.432)")
    p.add_argument("--plays", default="", help="the cards played so far (a play record)")
    p.add_argument(
        "--seat",
        type=int,
        default=None,
        metavar="N",
        help="your seat (0-3): refused unless it is the seat to play after --plays (without "
        "it, HAND is taken as the seat to play's and refused when it cannot be)",
    )
    p.add_argument("--calls", default=None, help="the four calls, e.g. 3,4,2,3")
    add_layouts(p, 32, "layouts of the hidden cards (32)")
    p.add_argument("--seed", type=int, default=0, help="the layouts' seed")
    add_time_limit(p, "answer after SECONDS with the layouts solved by then")
    p.add_argument(
        "--cards",
        action="store_true",
        help="also where the hidden cards are: each card's chance in each other seat, read from "
        "the calls and the cards played (the learned play policy's reading)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_advise)


def cmd_advise(args: argparse.Namespace) -> Output:
    """Single-dummy values of the legal cards of the seat to play, from its own hand."""
    from callbreak_lab.analysis.advice import advise
    from callbreak_lab.seat import Knowledge
    from callbreak_lab.seat.reading import ASSUMED_TEXT, advice_assumes, read_cards

    if not 1 <= args.layouts <= 4096:
        raise UsageError(f"advise: --layouts must be 1..4096, got {args.layouts}")
    _check_time_limit(args.time_limit, "advise")
    # the hand, the plays and the seat are checked (and the header read) before the layouts
    k = Knowledge.at_table(args.hand, args.plays, rules_of(args), args.calls, seat=args.seat)
    with progress_of(args, "advise") as progress:
        sd = advise(
            args.hand, args.plays, rules_of(args), calls=args.calls, seat=args.seat,
            layouts=args.layouts, seed=args.seed, time_limit=args.time_limit, progress=progress,
        )  # fmt: skip
    trick = " ".join(str(c) for c in k.trick) or "to lead"
    where = f"trick {len(k.record) // 4 + 1} ({trick}), {k.won} trick(s) won so far"
    assumed = advice_assumes(k)
    data = {**sd.to_dict(), "assumed": assumed}
    text = f"seat {k.seat} to play at {where}\n{sd.text()}\njudged with {ASSUMED_TEXT[assumed]}"
    if args.cards:
        reading = read_cards(k, seed=args.seed)
        data["reading"] = reading.to_dict()
        text += f"\n\n{reading.text()}"
    return Output(text, data)


def add_solve(sub: Subparsers, common: Parser) -> None:
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


COMMANDS = [add_line, add_analyse, add_advise, add_solve]
