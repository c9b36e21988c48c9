"""Tests for callbreak_lab.bidding.datasets: solved-deal datasets (content, chunking, resume,
Dask, splits).

Every number checked here comes from the real solver; the datasets are tiny because solving is
the slow part. One dataset is generated once per module and copied where a test needs to damage
or extend it.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from callbreak_lab.bidding import datasets as data
from callbreak_lab.bidding.datasets import (
    CARD_NAME,
    PRESET_PROFILE,
    PROFILES,
    DataError,
    content_hash,
    generate,
    is_test,
    load,
)
from callbreak_lab.cards import Deal
from callbreak_lab.rules import PRESETS

# Tiny on purpose: full deals take the solver seconds each (and some take minutes); the first
# deals of seed 5 are among the quicker ones. The checks are about data handling, not speed.
N, CHUNK, SEED = 3, 1, 5
PROFILE = "modern"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small modern dataset in 3 chunks, generated once in this process (n_jobs=1)."""
    root = tmp_path_factory.mktemp("base")
    seen: list[tuple[int, int]] = []
    report = generate(
        PROFILE,
        N,
        seed=SEED,
        out_dir=root,
        chunk_size=CHUNK,
        progress=lambda d, t: seen.append((d, t)),
    )
    assert seen == [
        (0, N),
        (CHUNK, N),
        (2 * CHUNK, N),
        (N, N),
    ]  # the deals on disk, a chunk at a time
    assert (
        report.solved == N // CHUNK == 3
        and report.reused == 0
        and report.seconds_per_deal is not None
    )
    print(f"\nsolved {N} deals at {report.seconds_per_deal:.3f} s/deal (dd table + play-out)")
    d = report.to_dict()
    assert d == json.loads(json.dumps(d)) and d["solved_chunks"] == 3 and d["card"] == report.card
    return root


def copy_of(base: Path, tmp_path: Path) -> Path:
    shutil.copytree(base, tmp_path / "copy")
    return tmp_path / "copy"


def name(a: int, b: int) -> str:
    return f"chunk-{a:09d}-{b:09d}.npz"


def chunk_files(root: Path, profile: str = PROFILE) -> list[str]:
    return sorted(p.name for p in (root / profile).glob("chunk-*.npz"))


# --- profiles -------------------------------------------------------------------------------------


def test_profiles_cover_every_preset() -> None:
    assert set(PRESET_PROFILE) == set(PRESETS)
    assert PRESET_PROFILE == {
        "modern": "modern",
        "strict": "strict",
        "online": "online",
        "home": "home_pagat",
        "pagat": "home_pagat",
    }
    for preset, profile in PRESET_PROFILE.items():
        r = PRESETS[preset]
        assert PROFILES[profile] == (r.must_beat, r.void_rule, r.first_trick_spade_ban)
        assert data.profile_of(preset) == profile == data.profile_of(r)
        assert data.profile_rules(profile).kernel_flags() == r.kernel_flags()
    with pytest.raises(DataError, match="unknown profile"):
        data.profile_of("bridge")


# --- content --------------------------------------------------------------------------------------


def test_content_matches_the_solver(base: Path) -> None:
    from callbreak_lab import solver

    d = load(PROFILE, base, split="all")
    assert len(d) == N and np.array_equal(d.index, np.arange(N))
    assert d.masks.dtype == np.uint64 and d.dd.dtype == np.int8 and d.playout.dtype == np.int8
    rules = PRESETS["modern"]
    for i in (0, N // 2, N - 1):
        deal = Deal.random(np.random.default_rng([SEED, i]))
        assert np.array_equal(d.masks[i], deal.masks())
        assert tuple(d.dd[i]) == tuple(solver.dd_table(deal, rules))
        assert tuple(d.playout[i]) == tuple(solver.playout(deal, rules).tricks)
    assert np.all(d.playout.sum(axis=1) == 13)
    assert np.all(d.dd <= d.playout)  # the play-out never takes a seat below its guarantee


def test_card_describes_the_data(base: Path) -> None:
    card = json.loads((base / PROFILE / CARD_NAME).read_text())
    d = load(PROFILE, base, split="all")
    assert card["profile"] == PROFILE and card["count"] == N and card["seed"] == SEED
    assert card["chunk_size"] == CHUNK and card["presets"] == ["modern"]
    assert card["switches"] == {
        "must_beat": True,
        "void_rule": "strict",
        "first_trick_spade_ban": False,
    }
    assert card["solver_version"] == data.solver_version()[0]
    assert card["created"]
    # The documented hash, recomputed independently of content_hash.
    raw = (
        d.index.astype("<i8").tobytes()
        + d.masks.astype("<u8").tobytes()
        + d.dd.astype("i1").tobytes()
        + d.playout.astype("i1").tobytes()
    )
    assert card["content_hash"] == "sha256:" + hashlib.sha256(raw).hexdigest()
    assert card["content_hash"] == content_hash(d.masks, d.dd, d.playout, d.index)


@pytest.mark.slow
def test_other_chunking_and_workers_give_identical_data(base: Path, tmp_path: Path) -> None:
    ref = load(PROFILE, base, split="all")
    m = N
    report = generate(PROFILE, m, seed=SEED, out_dir=tmp_path, chunk_size=CHUNK + 1, n_jobs=2)
    assert chunk_files(tmp_path) == [name(0, CHUNK + 1), name(CHUNK + 1, m)]
    got = load(PROFILE, tmp_path, split="all")
    for k in ("masks", "dd", "playout", "index"):
        assert np.array_equal(getattr(got, k), getattr(ref, k)[:m])
    assert report.card["content_hash"] == content_hash(
        ref.masks[:m], ref.dd[:m], ref.playout[:m], ref.index[:m]
    )


# --- resume ---------------------------------------------------------------------------------------


class Killed(Exception):
    pass


def test_resume_after_kill_and_corrupt_chunk(
    base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run killed after one chunk, then a torn chunk and a temp file left behind: the rerun
    gives exactly the reference data, no duplicates."""
    ref_card = json.loads((base / PROFILE / CARD_NAME).read_text())
    real_write = data._write_chunk
    written: list[str] = []

    def write_then_die(path: Path, *args: object, **kw: object) -> None:
        if len(written) == 1:
            raise Killed("simulated kill")
        real_write(path, *args, **kw)  # type: ignore[arg-type]
        written.append(path.name)

    monkeypatch.setattr(data, "_write_chunk", write_then_die)
    with pytest.raises(Killed):
        generate(PROFILE, N, seed=SEED, out_dir=tmp_path, chunk_size=CHUNK)
    monkeypatch.undo()
    assert chunk_files(tmp_path) == written == [name(0, CHUNK)]
    assert not (tmp_path / PROFILE / CARD_NAME).exists()
    with pytest.raises(DataError, match="no complete dataset"):
        load(PROFILE, tmp_path)
    # Damage: the finished chunk torn in half, a stray temp file, a chunk of the wrong length.
    d = tmp_path / PROFILE
    good = (d / written[0]).read_bytes()
    (d / written[0]).write_bytes(good[: len(good) // 2])
    (d / ".tmp-abc.npz").write_bytes(b"partial")
    shutil.copy(base / PROFILE / name(0, CHUNK), d / name(CHUNK, 2 * CHUNK))
    report = generate(PROFILE, N, seed=SEED, out_dir=tmp_path, chunk_size=CHUNK)
    assert report.solved == 3 and len(report.replaced) == 2
    assert any("unreadable" in r for r in report.replaced)
    assert any("indices" in r or "deals differ" in r for r in report.replaced)
    assert report.card["content_hash"] == ref_card["content_hash"]
    assert chunk_files(tmp_path) == chunk_files(base)
    assert not list(d.glob(".tmp-*"))
    got = load(PROFILE, tmp_path, split="all")
    assert np.array_equal(got.index, np.arange(N))  # no duplicates, no gaps


def test_rerun_reuses_and_growth_keeps_old_deals(base: Path, tmp_path: Path) -> None:
    root = copy_of(base, tmp_path)
    again = generate(PROFILE, N, seed=SEED, out_dir=root, chunk_size=CHUNK)
    assert again.solved == 0 and again.reused == 3
    ref = load(PROFILE, base, split="all")
    grown = generate(PROFILE, N + CHUNK, seed=SEED, out_dir=root, chunk_size=CHUNK)
    assert grown.solved == 1 and grown.reused == 3
    big = load(PROFILE, root, split="all")
    assert len(big) == N + CHUNK
    for k in ("masks", "dd", "playout", "index"):
        assert np.array_equal(getattr(big, k)[:N], getattr(ref, k))
    # Splits are stable under growth: the old deals keep their split.
    old_test = load(PROFILE, base, split="test").index
    new_test = load(PROFILE, root, split="test").index
    assert np.array_equal(new_test[new_test < N], old_test)


def test_foreign_and_tampered_data_are_refused(base: Path, tmp_path: Path) -> None:
    root = copy_of(base, tmp_path)
    with pytest.raises(DataError, match="seed"):
        generate(PROFILE, N, seed=SEED + 1, out_dir=root, chunk_size=CHUNK)
    card_path = root / PROFILE / CARD_NAME
    card = json.loads(card_path.read_text())
    card["content_hash"] = "sha256:" + "0" * 64
    card_path.write_text(json.dumps(card))
    with pytest.raises(DataError, match="content hash"):
        load(PROFILE, root)
    assert len(load(PROFILE, root, split="all", verify=False)) == N
    with pytest.raises(DataError, match="split"):
        load(PROFILE, base, split="validation")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="deals must be"):
        generate(PROFILE, 0, out_dir=tmp_path)
    with pytest.raises(DataError, match="backend"):
        generate(PROFILE, 1, out_dir=tmp_path / "x", backend="spark")  # type: ignore[arg-type]


# --- splits ---------------------------------------------------------------------------------------


def test_splits_are_disjoint_complete_and_stable(base: Path) -> None:
    train, test, every = (load(PROFILE, base, split=s) for s in ("train", "test", "all"))
    assert not set(train.index) & set(test.index)
    assert np.array_equal(np.sort(np.concatenate([train.index, test.index])), every.index)
    for part in (train, test):
        assert np.array_equal(part.masks, every.masks[part.index])
        assert np.array_equal(part.playout, every.playout[part.index])
    idx = np.arange(100_000)
    flags = is_test(idx)
    assert 0.09 < flags.mean() < 0.11
    assert np.array_equal(is_test(idx[:5000]), flags[:5000])  # depends on the index alone
    assert np.array_equal(is_test(idx[::-1]), flags[::-1])


# --- command line ---------------------------------------------------------------------------------


def test_python_m_generate_resumes(base: Path, tmp_path: Path) -> None:
    """``python -m callbreak_lab generate`` (the ``callbreak-lab`` command) reuses every chunk
    of a dataset already on disk."""
    root = copy_of(base, tmp_path)
    argv = ["generate", "--profile", "modern", "--deals", str(N), "--seed", str(SEED)]
    opts = ["--out", str(root), "--chunk-size", str(CHUNK), "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "callbreak_lab", *argv, *opts],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "0 chunks solved, 3 reused" in done.stdout and "sha256:" in done.stdout


def test_the_library_names_no_default_folder() -> None:
    """``generate`` and ``load`` take their folder from the caller: a default such as ``data``
    would point at the repository's shipped datasets (only the CLI has one, ``./datasets``)."""
    for function, folder in ((generate, "out_dir"), (load, "data_dir")):
        parameter = inspect.signature(function).parameters[folder]
        assert parameter.default is inspect.Parameter.empty, function.__name__
    with pytest.raises(TypeError, match="out_dir"):
        generate(PROFILE, 1)  # type: ignore[call-arg]


# --- Dask -----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_dask_cluster_gives_identical_results(base: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    ref = load(PROFILE, base, split="all")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        report = generate(
            PROFILE,
            2,
            seed=SEED,
            out_dir=tmp_path,
            chunk_size=1,  # one deal per worker
            backend="dask",
            client=client,
        )
    assert report.solved == 2
    got = load(PROFILE, tmp_path, split="all")
    for k in ("masks", "dd", "playout", "index"):
        assert np.array_equal(getattr(got, k), getattr(ref, k)[:2])


def test_cli_generate_command(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from callbreak_lab import cli

    root = copy_of(base, tmp_path)
    argv = ["generate", "--profile", "modern", "--deals", str(N), "--seed", str(SEED)]
    opts = ["--out", str(root), "--chunk-size", str(CHUNK), "--quiet", "--json"]
    assert cli.main([*argv, *opts]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["reused_chunks"] == 3 and out["solved_chunks"] == 0
    assert (
        out["card"]["content_hash"]
        == json.loads((base / PROFILE / CARD_NAME).read_text())["content_hash"]
    )
    assert cli.main(["generate", "--profile", "bridge", "--deals", "1", "--out", str(root)]) == 2
    assert "unknown profile" in capsys.readouterr().err


def test_generate_into_a_file_is_a_data_error(tmp_path: Path) -> None:
    a_file = tmp_path / "not-a-directory"
    a_file.write_text("keep me\n")
    with pytest.raises(DataError, match="cannot create the dataset directory"):
        generate(PROFILE, 1, out_dir=a_file)
    assert a_file.read_text() == "keep me\n"


def test_generate_refuses_more_deals_than_chunk_names_can_hold(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="at most 999,999,999"):
        generate(PROFILE, 10**9, out_dir=tmp_path)
    with pytest.raises(DataError, match="at most 999,999,999"):
        generate(PROFILE, 10**15, out_dir=tmp_path)  # was a hang planning chunks
    assert list(tmp_path.iterdir()) == []


def test_atomic_writes_get_the_umask_mode_not_0600(tmp_path: Path) -> None:
    """Datasets, models and reports are shared files: mkstemp's private 0600 made them
    unreadable to everyone but their writer whatever the umask."""
    import os
    import stat

    from callbreak_lab.util.fileio import atomic_open

    old = os.umask(0o022)
    try:
        with atomic_open(tmp_path / "a.json") as f:
            f.write(b"{}")
        os.umask(0o027)
        with atomic_open(tmp_path / "b.json") as f:
            f.write(b"{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "b.json").stat().st_mode) == 0o640
    assert (tmp_path / "a.json").read_bytes() == b"{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


def test_generate_refuses_an_empty_out_dir_or_dask_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """out_dir="" silently wrote ./modern/ in the working directory (Path("") is "."), and
    --dask "" silently ran locally."""
    monkeypatch.chdir(tmp_path)
    for empty in ("", "  "):
        with pytest.raises(DataError, match="out_dir is empty"):
            generate(PROFILE, 1, out_dir=empty)
    pytest.importorskip("distributed")
    with pytest.raises(DataError, match="needs a client"):
        generate(PROFILE, 1, out_dir=tmp_path / "d", backend="dask", address="")
    assert list(tmp_path.iterdir()) == []


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_readme_generate_leaves_the_shipped_data_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's ``generate --profile modern --n 1000 --seed 0`` once rewrote the shipped
    ``data/modern`` (deleted chunks, a card of 1000 deals). In a copy of the repository's data it
    now writes a new folder by default, and naming the shipped folder is refused untouched."""
    from callbreak_lab.cli import main

    shipped = Path(__file__).resolve().parents[1] / "data" / "modern"
    work = tmp_path / "repo"
    shutil.copytree(shipped, work / "data" / "modern")
    before = _tree_digest(work / "data")
    monkeypatch.chdir(work)
    readme = ["generate", "--profile", "modern", "--deals", "1000", "--seed", "0", "--quiet"]
    assert main([*readme, "--out", "data"]) == 2
    err = capsys.readouterr().err
    assert "deals, not 1000" in err and "--force" in err and err.count("\n") == 1
    assert _tree_digest(work / "data") == before
    # the default folder is a new one (a small n here: solving 1000 deals takes minutes)
    small = ["generate", "--profile", "modern", "--deals", "2", "--seed", "0", "--quiet"]
    assert main(small) == 0
    assert (work / "datasets" / "modern" / CARD_NAME).is_file()
    assert _tree_digest(work / "data") == before


def test_changing_a_dataset_needs_force_and_deletes_only_its_own_chunks(
    base: Path, tmp_path: Path
) -> None:
    root = copy_of(base, tmp_path)
    d = root / PROFILE
    foreign = d / name(7, 8)  # a chunk file the card does not list
    foreign.write_bytes(b"not ours")
    before = _tree_digest(root)
    for n, chunk in ((N - 1, CHUNK), (N, CHUNK + 1)):
        with pytest.raises(DataError, match="force"):
            generate(PROFILE, n, seed=SEED, out_dir=root, chunk_size=chunk)
        assert _tree_digest(root) == before
    card = json.loads((d / CARD_NAME).read_text())
    card["solver_version"] = "an older solver"
    (d / CARD_NAME).write_text(json.dumps(card))
    with pytest.raises(DataError, match="solver version"):
        generate(PROFILE, N, seed=SEED, out_dir=root, chunk_size=CHUNK)
    shrunk = generate(PROFILE, N - 1, seed=SEED, out_dir=root, chunk_size=CHUNK, force=True)
    assert shrunk.card["count"] == N - 1
    assert sorted(p.name for p in d.glob("chunk-*.npz")) == [name(0, 1), name(1, 2), name(7, 8)]
    assert foreign.read_bytes() == b"not ours"
    assert len(load(PROFILE, root, split="all")) == N - 1
