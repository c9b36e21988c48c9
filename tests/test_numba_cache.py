"""numba's on-disk cache of the solver kernels (``solver._consts.kernel``).

The kernels are cached in a directory named by a digest of their sources (``KERNEL_KEY``), so a
changed kernel or constant means a new directory: importing the solver deletes nothing, a stale
kernel is never loaded, and processes importing a changed solver at once (and one still running
the old kernels) all get the right values.

The tests that compile run the solver from a copy of the package in a fresh ``NUMBA_CACHE_DIR``
and change the copy's constants the way an edit would: ``ST_NODES`` and ``ST_TT_HITS`` swap
places in ``_consts.py``. The search in ``_search.py`` counts nodes at ``stats[ST_NODES]`` and
``_stats.Counters`` reads them from there, so node and table-hit counts come out right only if
``_search.py``'s kernels were compiled with the changed constants: numba itself checks a cached
kernel against its own file only (``_search.py``, unchanged), and would load the old code.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from numba.core import config as numba_config
from numba.core.dispatcher import Dispatcher

from callbreak_lab.cards import Deal
from callbreak_lab.solver import _consts, api
from callbreak_lab.solver._engine import Engine

ROOT = Path(__file__).resolve().parent.parent
SOLVER = ROOT / "callbreak_lab" / "solver"
SEEDS = [0, 1]
#: the constants' change the compiling tests make (the two counters swap places)
SWAP = ("ST_NODES = 0\nST_TT_HITS = 1\n", "ST_NODES = 1\nST_TT_HITS = 0\n")

jit_only = pytest.mark.skipif(
    bool(getattr(numba_config, "DISABLE_JIT", 0)), reason="numba's JIT is off: nothing is cached"
)


# --- the key and the directory ----------------------------------------------------------------


def test_every_module_with_a_kernel_is_in_the_key() -> None:
    users = {p.name for p in SOLVER.glob("*.py") if re.search(r"^@kernel\b", p.read_text(), re.M)}
    assert users, "no kernel found: the pattern no longer matches the sources"
    assert users <= set(_consts.KERNEL_FILES)
    assert "_consts.py" in _consts.KERNEL_FILES  # the constants the kernels read as globals


def test_the_key_changes_with_any_kernel_source(tmp_path: Path) -> None:
    for name in _consts.KERNEL_FILES:
        shutil.copy(SOLVER / name, tmp_path / name)
    assert _consts.kernel_key(tmp_path) == _consts.KERNEL_KEY
    seen = {_consts.KERNEL_KEY}
    for name in _consts.KERNEL_FILES:
        with open(tmp_path / name, "a") as f:
            f.write("\n# an edit\n")
        seen.add(_consts.kernel_key(tmp_path))
    assert len(seen) == len(_consts.KERNEL_FILES) + 1


@jit_only
def test_the_kernels_are_cached_in_the_keyed_directory() -> None:
    """Every kernel's cache is the keyed directory, inside ``NUMBA_CACHE_DIR`` when it is set,
    and numba's own setting is left as it was. Fails if numba stops reading
    ``config.CACHE_DIR`` when a function is decorated (the kernels are then not cached)."""
    cache = _consts.KERNEL_CACHE
    assert cache is not None and cache.name == f"callbreak_lab-kernels-{_consts.KERNEL_KEY}"
    user = os.environ.get("NUMBA_CACHE_DIR", "")
    assert getattr(numba_config, "CACHE_DIR", None) == user
    if user:
        assert cache.parent == Path(user)
    import callbreak_lab.solver._bounds
    import callbreak_lab.solver._marks
    import callbreak_lab.solver._moves
    import callbreak_lab.solver._search
    import callbreak_lab.solver._table

    modules = [
        callbreak_lab.solver._bounds,
        callbreak_lab.solver._marks,
        callbreak_lab.solver._moves,
        callbreak_lab.solver._search,
        callbreak_lab.solver._table,
    ]
    kernels = [f for m in modules for f in vars(m).values() if isinstance(f, Dispatcher)]
    assert len(kernels) >= 20
    assert all(_consts.cached_in(f, cache) for f in kernels)


def test_the_directory_honours_numba_cache_dir_and_skips_unwritable_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(numba_config, "DISABLE_JIT", 0, raising=False)
    monkeypatch.setattr(_consts, "_HERE", tmp_path / "solver")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    monkeypatch.setattr(numba_config, "CACHE_DIR", str(tmp_path / "user"), raising=False)
    got = _consts.kernel_cache_dir("k1")
    assert got == tmp_path / "user" / "callbreak_lab-kernels-k1" and got.is_dir()
    assert _consts.kernel_cache_dir("k2") != got  # another key, another directory
    # a NUMBA_CACHE_DIR that cannot hold directories (a file): beside the sources instead
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(numba_config, "CACHE_DIR", str(tmp_path / "file"), raising=False)
    got = _consts.kernel_cache_dir("k1")
    assert got == tmp_path / "solver" / "__pycache__" / "callbreak_lab-kernels-k1"
    # no NUMBA_CACHE_DIR and no writable source directory: the per-user cache directory
    monkeypatch.setattr(numba_config, "CACHE_DIR", "", raising=False)
    monkeypatch.setattr(_consts, "_HERE", tmp_path / "file" / "solver")
    got = _consts.kernel_cache_dir("k1")
    assert got == tmp_path / "home-cache" / "callbreak_lab" / "callbreak_lab-kernels-k1"
    # nowhere: no cache at all (compiled in each process)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file" / "home"))
    assert _consts.kernel_cache_dir("k1") is None


# --- compiling: a changed key, several processes at once --------------------------------------

#: one process's solver results: each seed's table with one thread, the named node and
#: table-hit counters, the kernels' cache directory and the search kernel's cache hits/misses
PROBE = """
import os, sys, time
from pathlib import Path


def results(seeds):
    import callbreak_lab
    from callbreak_lab.cards import Deal
    from callbreak_lab.solver import _consts, api
    from callbreak_lab.solver._engine import Engine
    from callbreak_lab.solver._search import solve_root

    out = []
    for s in seeds:
        eng = Engine(threads=1)
        table = api.table_of(api.make_root(Deal.random(s), "modern"), eng)
        c = eng.counters()
        out.append([list(table), c.nodes, c.tt_hits])
    st = solve_root.stats
    return {
        "pid": os.getpid(),
        "file": callbreak_lab.__file__,
        "cache": str(_consts.KERNEL_CACHE),
        "results": out,
        "hits": sum(st.cache_hits.values()),
        "misses": sum(st.cache_misses.values()),
    }


def together(barrier, n, seeds):
    # every worker imports the solver only once all n are here: they import it at once
    Path(barrier, str(os.getpid())).touch()
    deadline = time.monotonic() + 300
    while len(os.listdir(barrier)) < n and time.monotonic() < deadline:
        time.sleep(0.005)
    return {"met": len(os.listdir(barrier)), **results(seeds)}
"""

ONE = (
    PROBE
    + """
if __name__ == "__main__":
    import json
    print(json.dumps(results(json.loads(sys.argv[1]))))
"""
)

#: imports the solver, says so, and solves only once told to (it compiles or loads its kernels
#: then, while the others run)
OLD = (
    PROBE
    + """
if __name__ == "__main__":
    import json
    from callbreak_lab.solver import api
    from callbreak_lab.solver import _consts
    print(_consts.KERNEL_CACHE, flush=True)
    go = Path(sys.argv[1])
    while not go.exists():
        time.sleep(0.005)
    print(json.dumps(results(json.loads(sys.argv[2]))))
"""
)

MANY = (
    PROBE
    + """
if __name__ == "__main__":
    import json
    from joblib import Parallel, delayed
    n, barrier, seeds = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    jobs = (delayed(together)(barrier, n, seeds) for _ in range(n))
    print(json.dumps(Parallel(n_jobs=n, backend="loky")(jobs)))
"""
)


@pytest.fixture(scope="module")
def expected() -> list[list[Any]]:
    """Each seed's table, node and table-hit counts, from this process (one thread, a fresh
    engine: the counts are the same in every process)."""
    out = []
    for s in SEEDS:
        eng = Engine(threads=1)
        table = api.table_of(api.make_root(Deal.random(s), "modern"), eng)
        c = eng.counters()
        out.append([list(table), c.nodes, c.tt_hits])
    return out


def _copy(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The package copied under ``tmp_path`` and the environment that imports it, with a fresh
    ``NUMBA_CACHE_DIR`` and one solver thread."""
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "callbreak_lab", src / "callbreak_lab", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = dict(
        os.environ,
        PYTHONPATH=str(src),
        NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"),
        CALLBREAK_LAB_SOLVER_THREADS="1",
    )
    return src, env


def _change_constants(src: Path) -> None:
    consts = src / "callbreak_lab" / "solver" / "_consts.py"
    text = consts.read_text()
    assert SWAP[0] in text, "the counters' constants moved: update SWAP"
    consts.write_text(text.replace(SWAP[0], SWAP[1]))


def _run(script: str, args: list[str], env: dict[str, str], cwd: Path) -> Any:
    path = cwd / "script.py"
    path.write_text(script)
    r = subprocess.run(
        [sys.executable, str(path), *args], env=env, cwd=cwd, capture_output=True, text=True,
        timeout=900,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _files(directory: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(directory)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in directory.rglob("*")
        if p.is_file()
    }


@jit_only
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_changed_key_compiles_afresh_and_deletes_nothing(
    tmp_path: Path, expected: list[list[Any]]
) -> None:
    """After the constants change the kernels compile into a new directory (nothing loaded
    from the old one, whose files all stay as they were) and count right; a later process loads
    them from there."""
    src, env = _copy(tmp_path)
    cache = Path(env["NUMBA_CACHE_DIR"])
    first = _run(ONE, [json.dumps(SEEDS)], env, tmp_path)
    assert first["file"].startswith(str(src)) and first["results"] == expected
    assert first["misses"] > 0 and Path(first["cache"]).is_relative_to(cache)
    before = _files(cache)
    assert any(name.endswith(".nbc") for name in before)

    _change_constants(src)
    changed = _run(ONE, [json.dumps(SEEDS)], env, tmp_path)
    assert changed["results"] == expected  # counted at the swapped places
    assert changed["hits"] == 0 and changed["misses"] > 0  # compiled, not loaded
    assert changed["cache"] != first["cache"] and Path(changed["cache"]).is_relative_to(cache)
    after = _files(cache)
    assert {k: after.get(k) for k in before} == before  # nothing deleted or rewritten

    again = _run(ONE, [json.dumps(SEEDS)], env, tmp_path)
    assert again["cache"] == changed["cache"] and again["hits"] > 0 and again["misses"] == 0
    assert again["results"] == expected


@jit_only
@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    "workers",
    [pytest.param(2, marks=pytest.mark.stress), 4, pytest.param(8, marks=pytest.mark.stress)],
)
def test_workers_importing_a_changed_solver_at_once(
    tmp_path: Path, expected: list[list[Any]], workers: int
) -> None:
    """A process imports the solver, the constants change, ``workers`` loky workers import the
    changed solver at once (each compiles) while the first process compiles the old kernels:
    nothing crashes, every process gets the right values and counts, and a process started
    afterwards loads the changed kernels, not the old ones."""
    src, env = _copy(tmp_path)
    go = tmp_path / "go"
    (tmp_path / "old.py").write_text(OLD)
    old = subprocess.Popen(
        [sys.executable, str(tmp_path / "old.py"), str(go), json.dumps(SEEDS)],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert old.stdout is not None
        old_cache = old.stdout.readline().strip()  # it has imported the solver
        assert old_cache, old.stderr.read() if old.stderr else ""
        _change_constants(src)
        go.touch()
        barrier = tmp_path / "barrier"
        barrier.mkdir()
        many = _run(MANY, [str(workers), str(barrier), json.dumps(SEEDS)], env, tmp_path)
        out, err = old.communicate(timeout=900)
    finally:
        if old.poll() is None:
            old.kill()
            old.wait()
    assert old.returncode == 0, err[-3000:]
    first = json.loads(out.strip().splitlines()[-1])
    assert first["cache"] == old_cache and first["results"] == expected

    assert len({w["pid"] for w in many}) == workers and all(w["met"] == workers for w in many)
    for w in many:
        assert w["file"].startswith(str(src))
        assert w["cache"] != old_cache
        assert w["results"] == expected, w
    assert len({w["cache"] for w in many}) == 1

    later = _run(ONE, [json.dumps(SEEDS)], env, tmp_path)
    assert later["cache"] == many[0]["cache"] and later["hits"] > 0
    assert later["results"] == expected
