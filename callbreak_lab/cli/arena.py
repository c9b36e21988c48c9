"""The ``arena`` command of ``callbreak-lab``: a duplicate tournament between four players."""

from __future__ import annotations

import argparse
import sys

from callbreak_lab.cli.base import Output, Parser, Subparsers
from callbreak_lab.errors import UsageError
from callbreak_lab.rules import Ruleset


def add_arena(sub: Subparsers, common: Parser) -> None:
    from callbreak_lab.arena.players import BUILTINS, CHEATER_CALLS, STRONG_VARIANTS

    p = sub.add_parser(
        "arena",
        parents=[common],
        help="a duplicate tournament between four players (built-in or Bhoos protocol bots)",
        description="Play --deals seeded deals four times each, the hands rotated over the four "
        "--players (each holds every hand once), in matches of five deals, and report per "
        "player the mean score per board, calls, tricks, make rate, faults, decision times, "
        "its share of the matches won (ties shared; a quarter is par), and its "
        "margin over the others in points and in matches with standard errors "
        "clustered by deal. A "
        f"player is a built-in ({', '.join(BUILTINS)}; the variants "
        f"{', '.join('strong:' + v for v in STRONG_VARIANTS)} and "
        f"{', '.join('cheater:' + v for v in CHEATER_CALLS)} measure parts of them), "
        "http:HOST:PORT "
        "for a bot speaking the Bhoos protocol (online rules only), or LABEL=PLAYER to tell "
        "copies apart. --rules defaults to online.",
    )
    p.add_argument(
        "--players", required=True, help="four players, comma separated: pimc,simple,simple,simple"
    )
    p.add_argument("--deals", type=int, default=10, help="deals (boards: four times as many)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and players (default 0)")
    p.add_argument(
        "--budget",
        type=int,
        default=None,
        metavar="MS",
        help="milliseconds per decision: a later answer is a fault; pimc and strong stop their "
        "searches within it (strong then searches from the first trick), a protocol bot gets "
        "it as timeBudget (default: no limit; 1000 ms for protocol bots)",
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")
    p.add_argument("--dask", metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://h:8786")
    p.add_argument("--records", metavar="DIR", help="write one JSON record per board into DIR")
    p.set_defaults(run=cmd_arena)


def cmd_arena(args: argparse.Namespace) -> Output:
    """Run the tournament; the table, or the report's JSON object."""
    from callbreak_lab.arena import run

    rules = Ruleset.coerce(getattr(args, "rules", None), default="online")
    players = [p.strip() for p in args.players.split(",")]
    if len(players) != 4 or not all(players):
        raise UsageError(f"arena: --players needs four players, got {args.players!r}")
    if args.records is not None and not args.records.strip():
        raise UsageError("arena: --records is empty (give a directory)")
    report = run(
        players,
        rules,
        args.deals,
        args.seed,
        jobs=args.jobs,
        backend="loky" if args.dask is None else "dask",
        address=args.dask,
        budget_ms=args.budget,
        records=args.records,
        progress=sys.stderr.isatty(),
    )
    return Output(report.text(), report.to_dict())


COMMANDS = [add_arena]
