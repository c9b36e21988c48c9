"""README.md's examples are real: its Python tour runs as a doctest, its command-line examples name
real commands and options, and its links point at files in the repository."""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import shlex
from pathlib import Path

import pytest

from callbreak_lab.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[str]:
    """The bodies of README.md's fenced code blocks in ``language``, in order."""
    return [body for lang, body in FENCE.findall(README.read_text()) if lang == language]


def test_every_python_block_is_a_doctest() -> None:
    python = blocks("python")
    assert len(python) >= 3
    for body in python:
        assert body.lstrip().startswith(">>> "), body[:80]


def test_python_tour_runs() -> None:
    """All python blocks, in order, as one doctest session (later blocks use earlier names)."""
    text = "\n".join(blocks("python"))
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, "README.md", str(README), 0)
    assert len(test.examples) >= 15
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = io.StringIO()
    runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, out.getvalue()
    assert result.attempted == len(test.examples)


def cli_examples() -> list[list[str]]:
    """README's ``callbreak-lab`` lines as argument lists, comments and ``[optional]`` parts
    removed, placeholders such as ``"<deal>"`` kept as plain arguments."""
    out = []
    for body in blocks("bash"):
        for line in body.splitlines():
            line = line.split("#", 1)[0].strip()
            if not line.startswith("callbreak-lab "):
                continue
            line = re.sub(r"\[([^\]]*)\]", r"\1", line)  # '[--seat N]' -> '--seat N'
            out.append(shlex.split(line)[1:])
    return out


def test_cli_examples_are_listed() -> None:
    commands = {argv[0] for argv in cli_examples()}
    assert {"score", "legal", "solve", "line", "evaluate", "generate", "serve"} <= commands


@pytest.mark.parametrize("argv", cli_examples(), ids=lambda a: " ".join(a)[:60])
def test_cli_example_options_exist(argv: list[str]) -> None:
    """Every option a README example uses is in its command's --help."""
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text):
        assert main([argv[0], "--help"]) == 0
    options = {a for a in argv[1:] if a.startswith("--")}
    for option in options:
        assert re.search(rf"{re.escape(option)}\b", help_text.getvalue()), (argv[0], option)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["score", "--rules", "modern", "--calls", "3,4,2,3", "--tricks", "5,3,2,3"], "3.2 -4 2 3"),
        (
            ["legal", "--rules", "strict", "--hand", "2S KD", "--trick", "AH 6H 4S"],
            "legal: 2S",
        ),
    ],
)
def test_cli_example_output(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The two examples whose output README.md states say what the command prints."""
    assert argv in cli_examples()
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[0] == expected


def test_links_point_at_files() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text())
    local = [link for link in links if "://" not in link]
    assert local
    missing = [link for link in local if not (README.parent / link).exists()]
    assert not missing
