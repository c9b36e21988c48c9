"""The ``arena`` command of ``callbreak-lab``: a duplicate tournament between four players."""

from __future__ import annotations

import argparse

from callbreak_lab.cli.base import (
    Output,
    Parser,
    Subparsers,
    add_time_limit,
    hidden_alias,
    progress_of,
    rules_of,
)
from callbreak_lab.errors import UsageError


def add_arena(sub: Subparsers, common: Parser) -> None:
    from callbreak_lab.arena.players import BUILTINS

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
        f"player is a built-in ({', '.join(BUILTINS)}), "
        "http:HOST:PORT "
        "for a bot speaking the Bhoos protocol (online rules only), or LABEL=PLAYER to tell "
        "copies apart.",
    )
    p.add_argument(
        "--players", required=True, help="four players, comma separated: pimc,simple,simple,simple"
    )
    p.add_argument("--deals", type=int, default=10, help="deals (boards: four times as many)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and players (default 0)")
    add_time_limit(
        p,
        "seconds per decision: a later answer is a fault; pimc and strong stop their "
        "searches within it (strong then searches from the first trick), a protocol bot gets "
        "it as timeBudget (default: no limit; 1 s for protocol bots)",
    )
    hidden_alias(p, "--budget", "time_limit", type=lambda ms: int(ms) / 1000)
    p.add_argument("--n-jobs", type=int, default=1, help="worker processes (-1: all cores)")
    hidden_alias(p, "--jobs", "n_jobs", type=int)
    p.add_argument("--dask", metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://h:8786")
    p.add_argument("--records", metavar="DIR", help="write one JSON record per board into DIR")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_arena)


def cmd_arena(args: argparse.Namespace) -> Output:
    """Run the tournament; the table, or the report's JSON object."""
    from callbreak_lab.arena import run

    rules = rules_of(args)
    players = [p.strip() for p in args.players.split(",")]
    if len(players) != 4 or not all(players):
        raise UsageError(f"arena: --players needs four players, got {args.players!r}")
    if args.records is not None and not args.records.strip():
        raise UsageError("arena: --records is empty (give a directory)")
    if args.time_limit is not None and not args.time_limit > 0:
        raise UsageError(f"arena: --time-limit must be a positive number of seconds, "
                         f"got {args.time_limit}")  # fmt: skip
    with progress_of(args, f"arena {rules.name}") as progress:
        report = run(
            players,
            rules,
            deals=args.deals,
            seed=args.seed,
            n_jobs=args.n_jobs,
            backend="loky" if args.dask is None else "dask",
            address=args.dask,
            time_limit=args.time_limit,
            records=args.records,
            progress=progress,
        )
    return Output(report.text(), report.to_dict())


COMMANDS = [add_arena]
