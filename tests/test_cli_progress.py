"""The long commands of ``callbreak-lab`` draw a progress bar on stderr for a person at a
terminal, and none for a program: with ``--quiet``, with ``--json`` or when stderr is not a
terminal (``cli.base.progress_of``).

Each command's library call is watched: the test sees whether the command passed a
``progress`` callback. The single-dummy review runs for real (one layout, the last two tricks) and
its bar is drawn into a stand-in terminal up to the whole; the others stop at the library call,
which their own tests run.
"""

from __future__ import annotations

import importlib
import io
import json
from collections.abc import Callable
from typing import Any

import pytest

from callbreak_lab.cli import main

# an online deal and its first ten tricks (seat 3 leads trick 11): tests/test_advice.py's SAFETY
DEAL = "J75.T42.JT52.QT3 QT98.5.9843.J642 K3.AKJ9763.AK.95 A642.Q8.Q76.AK87"
PLAYS = (
    "5D 9D KD QD | 6H QH TH 5H | 7C TC JC 9C | 2C 5C 8C QC | JS QS KS AS | 4S 7S 9S 3S | "
    "8D AD 6D 2D | 9H 8H 4H 8S | 4D JH 7D JD | 3C 4C 3H KC"
)
LAST_TRICKS = PLAYS + " | AC 5S 6C 7H | TD 3D KH 2S | 6S 2H TS AH"  # the whole deal

#: a command, the library function it calls with ``progress=`` and the bar's label
COMMANDS = {
    "analyse": (
        ["analyse", DEAL, "--plays", LAST_TRICKS, "--layouts", "1", "--from-trick", "12"],
        ("callbreak_lab.analysis.review", "review_play"),
        "single-dummy review",
    ),
    "advise": (
        ["advise", "A642.Q8.Q76.AK87", "--plays", PLAYS, "--layouts", "1"],
        ("callbreak_lab.analysis.advice", "advise"),
        "advise",
    ),
    "evaluate": (
        ["evaluate", "AKQ2.T98.765.432", "--layouts", "2"],
        ("callbreak_lab.analysis.montecarlo", "monte_carlo"),
        "monte carlo",
    ),
    "arena": (
        ["arena", "--players", "simple,simple,simple,simple", "--deals", "1"],
        ("callbreak_lab.arena", "run"),
        "arena online",
    ),
    "generate": (
        ["generate", "--profile", "online", "--deals", "8", "--out", "unused"],
        ("callbreak_lab.bidding.datasets", "generate"),
        "generate online",
    ),
    "evaluate-model": (
        ["evaluate-model", "--mc-hands", "2", "--no-learning-curve"],
        ("callbreak_lab.bidding.evaluation", "evaluate_model"),
        "monte carlo hands",
    ),
}


class Terminal(io.StringIO):
    """stderr as a terminal: what is written stays readable."""

    def isatty(self) -> bool:
        return True


class Stopped(Exception):
    """Raised by a watched library call told not to run."""


def _watch(monkeypatch: pytest.MonkeyPatch, where: tuple[str, str], *, run: bool) -> list[Any]:
    """Replace the library function ``where`` by one that notes the ``progress`` it is given
    (``seen[0]``: None or a callable) and every report passed through it, then runs the real
    function (``run``) or raises ``Stopped``."""
    module = importlib.import_module(where[0])
    real: Callable[..., Any] = getattr(module, where[1])
    seen: list[Any] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        given = kwargs.get("progress")
        seen.append(given)
        if not run:
            raise Stopped
        if given is not None:

            def report(done: int, total: int) -> None:
                seen.append((done, total))
                given(done, total)

            kwargs["progress"] = report
        return real(*args, **kwargs)

    monkeypatch.setattr(module, where[1], watched)
    return seen


def test_a_long_review_draws_its_bar_on_a_terminal_to_the_whole(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, where, label = COMMANDS["analyse"]
    seen = _watch(monkeypatch, where, run=True)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(argv) == 0
    assert callable(seen[0])
    # one report a card of the record (those before --from-trick replayed, not judged)
    assert seen[1:] == [(done, 52) for done in range(1, 53)]
    drawn = terminal.getvalue()
    assert label in drawn and "\r" in drawn  # a bar redrawn in place, then cleared
    assert "seat" in capsys.readouterr().out  # the review itself on stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_each_long_command_passes_a_bar_on_a_terminal(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv, where, label = COMMANDS[command]
    seen = _watch(monkeypatch, where, run=False)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with pytest.raises(Stopped):
        main(argv)
    assert callable(seen[0]), command
    assert label in terminal.getvalue()


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("how", ["--quiet", "--json", "a pipe"])
def test_no_bar_for_a_program(
    command: str, how: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, where, _ = COMMANDS[command]
    seen = _watch(monkeypatch, where, run=False)
    if how == "a pipe":  # capsys's stderr is not a terminal
        extra: list[str] = []
    else:
        extra = [how]
        monkeypatch.setattr("sys.stderr", Terminal())
    with pytest.raises(Stopped):
        main([*argv, *extra])
    assert seen == [None], (command, how)
    assert capsys.readouterr().err == ""


def test_evaluate_model_without_monte_carlo_draws_no_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv, where, _ = COMMANDS["evaluate-model"]
    seen = _watch(monkeypatch, where, run=False)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with pytest.raises(Stopped):
        main([a for a in argv if a not in ("--mc-hands", "2")])
    assert seen == [None] and terminal.getvalue() == ""


def test_the_review_s_json_is_the_same_with_or_without_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, _, _ = COMMANDS["analyse"]
    assert main([*argv, "--json"]) == 0
    piped = json.loads(capsys.readouterr().out)
    monkeypatch.setattr("sys.stderr", Terminal())
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == piped
