"""The repository stands on its own: a copy of its tracked files, with nothing beside it, collects
the same tests as the work tree, and no tracked file points at material outside the repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Built from parts, so that this file does not contain the strings it looks for.
OUTSIDE = ("../" + "shared", "/work/" + "shared")
# A record that names the checkout's absolute path is true on one machine only.
ABSOLUTE = tuple({str(REPO), "/work/" + "main"})


def tracked_files() -> list[str]:
    """The repository's tracked files (``git ls-files``) that exist in the work tree."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    return [p for p in out.split("\0") if p and (REPO / p).is_file()]


def collect(root: Path, log: Path) -> subprocess.Popen[bytes]:
    """Start ``pytest --collect-only -q`` in ``root``, importing ``root``'s package; its output
    goes to ``log``."""
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    with log.open("wb") as f:
        return subprocess.Popen(cmd, cwd=root, env=env, stdout=f, stderr=subprocess.STDOUT)


def collected(proc: subprocess.Popen[bytes], log: Path) -> tuple[int, int, str]:
    """Exit code, number of tests collected and the output of a ``collect`` run."""
    code = proc.wait(timeout=1800)  # a guard: collecting compiles the kernels afresh
    text = log.read_text(errors="replace")
    found = re.findall(r"(\d+) tests? collected", text)
    return code, int(found[-1]) if found else -1, text


@pytest.mark.slow
def test_a_copy_with_nothing_beside_it_collects_every_test(tmp_path: Path) -> None:
    files = tracked_files()
    solo = tmp_path / "solo"  # holds the copy and nothing else: no shared/ beside it
    copy = solo / "callbreak_lab"
    for rel in files:
        dest = copy / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, dest)
    assert sorted(p.name for p in solo.iterdir()) == ["callbreak_lab"]
    assert not (copy / ".venv").exists()

    env = dict(os.environ, PYTHONPATH=str(copy))
    where = subprocess.run(
        [sys.executable, "-c", "import callbreak_lab; print(callbreak_lab.__file__)"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(copy), where  # the copy's package, not the work tree's

    # both collections at once (collecting the suite takes tens of seconds)
    copy_log, ref_log = tmp_path / "copy.log", tmp_path / "work-tree.log"
    procs = collect(copy, copy_log), collect(REPO, ref_log)
    code, count, text = collected(procs[0], copy_log)
    ref_code, ref_count, ref_text = collected(procs[1], ref_log)
    assert ref_code == 0, ref_text[-3000:]
    assert code == 0, text[-3000:]
    assert count == ref_count > 0, (count, ref_count)


def test_no_tracked_file_points_outside_the_repository() -> None:
    offenders = []
    for rel in tracked_files():
        data = (REPO / rel).read_bytes()
        if b"\0" in data:  # binary
            continue
        text = data.decode("utf-8", errors="replace")
        offenders += [f"{rel}: {needle}" for needle in OUTSIDE + ABSOLUTE if needle in text]
    assert not offenders, offenders
