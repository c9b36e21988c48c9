"""What every ``callbreak-lab`` command module shares: the program name, the usage error, the
parser that raises it instead of exiting, a command's ``Output``, the ``--rules`` reader and the
progress bar of a long command."""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NoReturn, TypeAlias

from callbreak_lab.errors import UsageError
from callbreak_lab.rules import Ruleset
from callbreak_lab.util.progress import Progress, progress_bar

__all__ = [
    "PROG",
    "Output",
    "Parser",
    "Subparsers",
    "UsageError",
    "add_layouts",
    "add_time_limit",
    "hidden_alias",
    "parse_ints",
    "progress_of",
    "rules_of",
]

PROG = "callbreak-lab"

#: what ``add_subparsers`` of a :class:`Parser` returns, which each ``add_<name>`` adds its
#: command to (a string: argparse's class is generic only in its type stubs)
Subparsers: TypeAlias = "argparse._SubParsersAction[Parser]"


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are :class:`UsageError`s (exit code 2 from ``main``)."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix(PROG).strip()
        raise UsageError(f"{command}: {message}" if command else message)


@dataclass(frozen=True)
class Output:
    """What a command produced: ``text`` for people, ``data`` for ``--json``."""

    text: str
    data: Any


def rules_of(args: argparse.Namespace) -> Ruleset:
    """The ruleset named by ``--rules`` (a preset, optionally ``+variations``; default
    ``rules.DEFAULT_RULES``, online)."""
    return Ruleset.coerce(getattr(args, "rules", None))  # "": an error


@contextlib.contextmanager
def progress_of(args: argparse.Namespace, desc: str) -> Iterator[Progress | None]:
    """A progress bar on stderr for a person waiting at a terminal: none with ``--quiet`` or
    ``--json`` (output for a program), or when stderr is not a terminal (a pipe, a file)."""
    if getattr(args, "quiet", False) or getattr(args, "json", False) or not sys.stderr.isatty():
        yield None
        return
    with progress_bar(desc) as progress:
        yield progress


def add_layouts(p: argparse.ArgumentParser, default: int | None, help: str) -> None:
    """``--layouts N`` (``args.layouts``: layouts of the hidden cards), ``default`` when not
    given, meaning ``help``."""
    p.add_argument("--layouts", type=int, default=default, metavar="N", help=help)


def add_time_limit(p: argparse.ArgumentParser, help: str) -> None:
    """``--time-limit SECONDS`` (``args.time_limit``; None: no limit), meaning ``help``."""
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS", help=help)


def hidden_alias(p: argparse.ArgumentParser, old: str, dest: str, **kw: Any) -> None:
    """``old`` still sets ``dest`` (a flag's former name), left out of the help."""
    p.add_argument(old, dest=dest, help=argparse.SUPPRESS, default=argparse.SUPPRESS, **kw)


def parse_ints(text: str, what: str) -> list[int]:
    """Whole numbers separated by commas and/or spaces ('3,4', '3 4'); ``what`` names the
    option in the error."""
    if re.search(r",\s*,", text):
        raise UsageError(f"{what} has an empty value between two commas: {text!r}")
    parts = [p for p in re.split(r"[,\s]+", text.strip()) if p]
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise UsageError(
            f"{what} must be whole numbers separated by commas, got {text!r}"
        ) from None
