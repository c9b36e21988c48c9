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


@pytest.mark.slow
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


VARIABLE = re.compile(r'^([A-Z_]+)="([^"$]*)"$')
#: README's lines that take minutes or keep running (a server): their options are checked, the
#: run test leaves them out
LONG = (
    ("evaluate", "--layouts"),
    ("generate",),
    ("serve",),
    ("arena", "--players", "pimc,simple,simple,simple"),
)
#: options whose value names a file a README line reads, and those naming a folder one writes
READS, WRITES = ("--record", "--bhoos", "--file"), ("--records", "--out")


def cli_examples() -> list[list[str]]:
    """README's ``callbreak-lab`` lines as argument lists, comments and ``[optional]`` parts
    removed, the shell variables its block sets (``DEAL="..."``) put in, placeholders such as
    ``"<deal>"`` kept as plain arguments."""
    out = []
    for body in blocks("bash"):
        variables: dict[str, str] = {}
        for line in body.splitlines():
            line = line.split("#", 1)[0].strip()
            if found := VARIABLE.match(line):
                variables[found[1]] = found[2]
                continue
            if not line.startswith("callbreak-lab "):
                continue
            line = re.sub(r"\[([^\]]*)\]", r"\1", line)  # '[--seat N]' -> '--seat N'
            argv = shlex.split(line)[1:]
            for name, value in variables.items():
                argv = [a.replace(f"${name}", value) for a in argv]
            out.append(argv)
    return out


def _is_long(argv: list[str]) -> bool:
    return any(argv[0] == k[0] and all(a in argv for a in k[1:]) for k in LONG)


def _value(argv: list[str], option: str) -> str | None:
    return argv[argv.index(option) + 1] if option in argv else None


def test_cli_examples_name_files_that_exist() -> None:
    """Every file a README line reads is in the repository or in a folder an earlier line
    writes; no shell variable is left unset."""
    made: list[str] = []
    for argv in cli_examples():
        assert not [a for a in argv if "$" in a], argv
        for option in READS:
            path = _value(argv, option)
            if path is not None:
                assert (README.parent / path).is_file() or any(
                    Path(path).is_relative_to(d) for d in made
                ), (argv[0], option, path)
        made += [v for v in (_value(argv, o) for o in WRITES) if v is not None]
    assert sum(_is_long(argv) for argv in cli_examples()) == len(LONG)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_cli_examples_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every README line but the long ones runs, in order, with exit status 0: in a folder of
    its own (what the lines write goes there), a file of the repository named by its path from
    the repository's root."""
    monkeypatch.chdir(tmp_path)
    ran = 0
    for argv in cli_examples():
        if _is_long(argv):
            continue
        argv = [str(README.parent / a) if (README.parent / a).is_file() else a for a in argv]
        assert main(argv) == 0, (argv, capsys.readouterr().err)
        ran += 1
    out = capsys.readouterr().out
    assert ran >= 15 and "Traceback" not in out
    assert sorted(p.name for p in (tmp_path / "boards").iterdir())[0] == "board-00000-r0.json"


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
