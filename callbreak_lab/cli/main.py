"""The ``callbreak-lab`` command line: the parser and ``main``.

Each command group is one module (``game``, ``solve``, ``bidding``, ``serve``, ``arena``); a
command is a pair of functions, ``add_<name>(subparsers, common)`` declaring its arguments
(``parents=[common]`` for the shared ``--json``/``--rules`` options and
``set_defaults(run=cmd_<name>)``) and ``cmd_<name>(args) -> Output`` doing the work, listed in
its module's ``COMMANDS``. ``Output``
carries both the human text and the JSON-able data; ``main`` prints one or the other. Any
``CallbreakLabError`` (the library's errors for bad input, usage errors included) becomes exit
code 2 with a single ``callbreak-lab: error: <message>`` line on stderr, never a traceback;
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence

from callbreak_lab import __version__
from callbreak_lab.cli import arena, bidding, game, serve, solve
from callbreak_lab.cli.base import PROG, Output, Subparsers
from callbreak_lab.cli.base import Parser as _Parser
from callbreak_lab.errors import CallbreakLabError
from callbreak_lab.rules import PRESETS

Adder = Callable[[Subparsers, _Parser], None]
COMMANDS: list[Adder] = [
    *game.COMMANDS,
    *solve.COMMANDS,
    *bidding.COMMANDS,
    *serve.COMMANDS,
    *arena.COMMANDS,
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
        help=f"ruleset: {', '.join(PRESETS)}, optionally +variations (default online)",
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
    except CallbreakLabError as e:
        message = " ".join(str(e).split())
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out.data, ensure_ascii=False, indent=2))
    else:
        print(out.text)
    return 0
