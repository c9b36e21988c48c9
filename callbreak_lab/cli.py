"""The ``callbreak-lab`` command line.

Structure (to extend it, e.g. with ``solve``): each command is a pair of functions,
``_add_<name>(subparsers, common)`` declaring its arguments (pass ``parents=[common]`` for the
shared ``--json``/``--rules`` options and ``set_defaults(run=cmd_<name>)``) and
``cmd_<name>(args) -> Output`` doing the work; append the ``_add_<name>`` function to
``COMMANDS``. The model's commands (``generate``, ``evaluate``, ``evaluate-model``) live in
``cli_model.py`` and the solver's arguments in ``solver/cli.py``. ``Output`` carries both the
human text and the JSON-able data; ``main`` prints one or the other. Any ``ValueError`` (all
library errors are ValueErrors) or usage error becomes exit code 2 with a single
``callbreak-lab: error: <message>`` line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from callbreak_lab import __version__
from callbreak_lab._cli_base import PROG, Output, UsageError, rules_of
from callbreak_lab._cli_base import Parser as _Parser
from callbreak_lab._cli_base import parse_ints as _ints
from callbreak_lab.cards import Deal, Hand
from callbreak_lab.cli_model import add_evaluate, add_evaluate_model, add_generate
from callbreak_lab.rules import PRESETS, format_tenths

# --- score ----------------------------------------------------------------------------------------


def _add_score(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "score",
        parents=[common],
        help="score calls against tricks won",
        description="Score each seat's call against its tricks (e.g. --calls 3,4,2,3 "
        "--tricks 5,3,2,3 prints 3.2 -4 2 3). With four seats the tricks must sum to 13.",
    )
    p.add_argument("--calls", required=True, help="calls, comma separated")
    p.add_argument("--tricks", required=True, help="tricks won, comma separated, same order")
    p.set_defaults(run=cmd_score)


def cmd_score(args: argparse.Namespace) -> Output:
    """Scores of calls against tricks in the ruleset's scoring."""
    rules = rules_of(args)
    calls = _ints(args.calls, "--calls")
    tricks = _ints(args.tricks, "--tricks")
    if not calls or len(calls) != len(tricks) or len(calls) > 4:
        raise ValueError(
            f"give 1..4 calls and as many tricks, got {len(calls)} calls and {len(tricks)} tricks"
        )
    if len(tricks) == 4 and sum(tricks) != 13:
        raise ValueError(f"the tricks of four seats must sum to 13, got {sum(tricks)}")
    scores = [rules.score(c, t) for c, t in zip(calls, tricks, strict=True)]
    texts = [format_tenths(s) for s in scores]
    data = {
        "rules": rules.name,
        "calls": calls,
        "tricks": tricks,
        "scores": texts,
        "scores_tenths": scores,
    }
    return Output(" ".join(texts), data)


# --- legal ----------------------------------------------------------------------------------------


def _add_legal(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "legal",
        parents=[common],
        help="legal cards for a hand and a trick, and why",
        description="Which cards of --hand may be played to --trick (its cards in play order) "
        "and why. The hand may be a fragment in any notation.",
    )
    p.add_argument("--hand", required=True, help="the hand, e.g. 'AKQ2.T98.765.432' or 'AS 2S KD'")
    p.add_argument("--trick", default="", help="cards already in the trick, e.g. 'AH 6H 4S'")
    p.add_argument(
        "--first-trick", action="store_true", help="this is the deal's first trick (lead only)"
    )
    p.set_defaults(run=cmd_legal)


def cmd_legal(args: argparse.Namespace) -> Output:
    """Legal cards with the reason and why each other card is excluded."""
    rules = rules_of(args)
    hand = Hand.parse(args.hand)
    result = rules.legal_cards_with_reasons(hand, args.trick, args.first_trick)
    trick = [str(c) for c in _trick_cards(args.trick)]
    lines = [
        f"legal: {result.legal.card_list()}",
        f"reason: {result.text} [{result.reason.value}]",
    ]
    lines += [f"not {card}: {why}" for card, why in result.excluded.items()]
    data = {
        "rules": rules.name,
        "hand": str(hand),
        "trick": trick,
        "first_trick": args.first_trick,
        "legal": [str(c) for c in result.legal],
        "reason": result.reason.value,
        "text": result.text,
        "excluded": {str(c): why for c, why in result.excluded.items()},
    }
    return Output("\n".join(lines), data)


def _trick_cards(text: str) -> list[Any]:
    from callbreak_lab.game import parse_record

    return parse_record(text)


# --- rules ----------------------------------------------------------------------------------------


def _add_rules(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "rules",
        parents=[common],
        help="the ruleset presets table",
        description="Print the five presets, or only the ruleset given with --rules "
        "(variations like pagat+must_beat or modern+exact_or_one are accepted).",
    )
    p.set_defaults(run=cmd_rules)


def cmd_rules(args: argparse.Namespace) -> Output:
    """The presets table (or one ruleset)."""
    given = getattr(args, "rules", None) is not None
    chosen = [rules_of(args)] if given else list(PRESETS.values())
    header = ("name", "direction", "calls", "must_beat", "void_rule", "ban_t1", "scoring", "match")
    rows = [header]
    for r in chosen:
        match = []
        if r.match_deals is not None:
            match.append(f"{r.match_deals} deals")
        if r.target_score is not None:
            match.append(f"to {format_tenths(r.target_score)}")
        rows.append(
            (
                r.name,
                r.direction,
                f"{r.min_call}-{r.max_call}",
                "yes" if r.must_beat else "no",
                r.void_rule,
                "yes" if r.first_trick_spade_ban else "no",
                r.scoring,
                " or ".join(match),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    text = "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
    return Output(text, [r.to_dict() for r in chosen])


# --- deal -----------------------------------------------------------------------------------------


def _add_deal(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "deal",
        parents=[common],
        help="a random deal (deterministic for --seed)",
        description="Print a uniformly random deal as four dotted hands, seats 0..3.",
    )
    p.add_argument("--seed", type=int, default=None, help="random seed (int)")
    p.set_defaults(run=cmd_deal)


def cmd_deal(args: argparse.Namespace) -> Output:
    """A random deal."""
    deal = Deal.random(args.seed)
    return Output(str(deal), {"deal": str(deal), "hands": [str(h) for h in deal]})


# --- line / analyse -----------------------------------------------------------------------------


def _add_line(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
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
        raise ValueError("the plays finish the deal: no card is left to play")
    if args.playout:
        if args.seat is not None:
            raise UsageError("line: --seat and --playout exclude each other")
        line = playout_line(pos, rules, args.calls)
    else:
        if args.seat is None:
            raise UsageError("line: give --seat 0..3 (or --playout)")
        line = play_line(pos, args.seat, rules, args.calls)
    return Output(line.text(detail=not args.brief), line.to_dict())


def _add_analyse(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
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


# --- serve ----------------------------------------------------------------------------------------


def _add_serve(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "serve",
        parents=[common],
        help="run the HTTP service (uvicorn): analysis API and Bhoos bot endpoints",
        description="Serve /v1/evaluate, /v1/solve, /v1/line, /v1/analyse, /v1/rules, /healthz "
        "and the tournament bot's /hi, /bid, /play with uvicorn (docs at /docs). Other bounds "
        "come from CALLBREAK_SERVICE_* environment variables (see service/limits.py).",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=None, help="solver worker processes")
    p.add_argument(
        "--http-workers",
        type=int,
        default=1,
        help="HTTP server processes (default 1); each has its own solver workers. Two roughly "
        "double /v1/evaluate's throughput on two cores (benchmarks/RESULTS.md)",
    )
    p.add_argument("--solve-timeout", type=float, default=None, help="seconds per solver job")
    p.add_argument(
        "--log-level",
        default="info",
        type=str.lower,
        choices=["critical", "error", "warning", "info", "debug", "trace"],
        help="uvicorn log level (default info)",
    )
    p.add_argument(
        "--no-access-log",
        dest="access_log",
        action="store_false",
        help="no log line per request (saves CPU under heavy load; errors are still logged)",
    )
    p.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> Output:
    """Run the service until interrupted."""
    import dataclasses

    import uvicorn

    from callbreak_lab.service import Settings, create_app
    from callbreak_lab.service.limits import MAX_WORKERS

    if not 0 < args.port < 65536:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    changes: dict[str, Any] = {}
    if args.workers is not None:
        if not 1 <= args.workers <= MAX_WORKERS:
            raise ValueError(f"--workers must be 1..{MAX_WORKERS}, got {args.workers}")
        changes["workers"] = args.workers
    if args.solve_timeout is not None:
        if not args.solve_timeout > 0:
            raise ValueError(f"--solve-timeout must be positive, got {args.solve_timeout}")
        changes["solve_timeout"] = args.solve_timeout
    if not 1 <= args.http_workers <= MAX_WORKERS:
        raise ValueError(f"--http-workers must be 1..{MAX_WORKERS}, got {args.http_workers}")
    settings = dataclasses.replace(Settings.from_env(), **changes)
    if args.http_workers == 1:
        uvicorn.run(
            create_app(settings),
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            access_log=args.access_log,
        )
    else:
        # several processes import the app themselves: hand the settings over by environment
        for name, value in changes.items():
            os.environ[f"CALLBREAK_SERVICE_{name.upper()}"] = str(value)
        uvicorn.run(
            "callbreak_lab.service.app:app",
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            access_log=args.access_log,
            workers=args.http_workers,
        )
    return Output("server stopped", {"host": args.host, "port": args.port})


def _add_solve(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
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
    from callbreak_lab.solver.cli import add_arguments

    add_arguments(p)
    p.set_defaults(run=cmd_solve)


def cmd_solve(args: argparse.Namespace) -> Output:
    """Double-dummy values of one deal (or every line of --file)."""
    from callbreak_lab.solver.cli import solve_file, solve_one

    rules = rules_of(args)
    if (args.deal is None) == (args.file is None):
        raise UsageError("solve: give a deal or --file (one of them)")
    if args.file is not None:
        if args.plays or args.seat is not None or args.cards:
            raise UsageError("solve: --plays, --seat and --cards work with one deal, not --file")
        raise SystemExit(solve_file(args, rules, PROG))  # output already printed line by line
    text, data = solve_one(args.deal, args.plays, rules, args)
    return Output(text, data)


# --- main -----------------------------------------------------------------------------------------

Adder = Callable[[argparse._SubParsersAction, argparse.ArgumentParser], None]
COMMANDS: list[Adder] = [
    _add_score,
    _add_legal,
    _add_rules,
    _add_deal,
    _add_line,
    _add_analyse,
    add_generate,
    _add_serve,
    add_evaluate,
    add_evaluate_model,
    _add_solve,
]


def build_parser() -> argparse.ArgumentParser:
    """The full parser: global options plus one subparser per entry of ``COMMANDS``."""
    common = _Parser(add_help=False)
    # SUPPRESS so that a subcommand does not overwrite a value given before it
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output"
    )
    common.add_argument(
        "--rules",
        default=argparse.SUPPRESS,
        help=f"ruleset: {', '.join(PRESETS)}, optionally +variations (default modern)",
    )
    parser = _Parser(prog=PROG, description="Call Break analysis lab.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "--json", action="store_true", default=False, help="machine-readable output"
    )
    parser.add_argument("--rules", default=None, help="ruleset (see the rules command)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input, 1 when the reader of the output
    went away, e.g. ``| head``, 130 when interrupted with Ctrl-C)."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, so a closed pipe is caught below and not at exit
        return code
    except KeyboardInterrupt:  # e.g. a long solve stopped by hand: no traceback
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the rest of the output has nowhere to go: point stdout at devnull so that the
        # interpreter's final flush does not fail again, and stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        out: Output = args.run(args)
    except SystemExit as e:  # --help / --version
        return e.code if isinstance(e.code, int) else 0
    except ValueError as e:
        message = " ".join(str(e).split())
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out.data, ensure_ascii=False, indent=2))
    else:
        print(out.text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
