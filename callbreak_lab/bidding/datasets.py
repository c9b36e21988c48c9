"""Solved-deal datasets: seeded random deals with every seat's guaranteed and play-out tricks.

The bid model learns from these. A dataset belongs to a *legal-card profile*, the tuple of
switches that change play (``must_beat``, ``void_rule``, ``first_trick_spade_ban``); scoring and
call ranges do not change the tricks, so the five presets share four profiles (``home`` and
``pagat`` play alike: ``home_pagat``).

Layout under ``<data_dir>/<profile>/``:

* ``chunk-<start>-<stop>.npz`` (``np.savez_compressed``): ``masks`` (m, 4) uint64 hand masks,
  ``dd`` (m, 4) int8 guaranteed tricks (double-dummy value, seat 0 on lead, first-trick flag on),
  ``playout`` (m, 4) int8 self-interested play-out tricks, ``index`` (m,) int64 deal indices
  ``start..stop-1``, plus ``seed``, ``profile`` and ``solver_version`` to detect mixing.
* ``dataset.json``: the card (profile, switches, count, seed, chunk size, solver version, content
  hash, created date, chunk list).

Deal ``i`` is ``Deal.seeded(seed, i)``: it depends only on ``(seed, i)``,
never on chunking or worker count. Every file is written atomically (temporary file in the same
directory, fsync, ``os.replace``), so a killed run leaves whole chunks or none; a rerun validates
each chunk it finds (loadable, right keys, shapes, indices, seed, deals, solver version), reuses
the good ones and regenerates the rest (a torn or corrupt chunk is never used).

The held-out test split is hash-based on the deal index (``splitmix64(i) % 100 < 10``, about
10%): it does not depend on the seed, the count or the chunking, so a deal never changes split when
the dataset grows.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from callbreak_lab import __version__
from callbreak_lab.cards import Deal, Hand
from callbreak_lab.errors import DataError, check_int
from callbreak_lab.rules import PRESETS, Ruleset
from callbreak_lab.util.fileio import atomic_open
from callbreak_lab.util.parallel import check_backend, parallel_results
from callbreak_lab.util.progress import Progress

__all__ = [
    "CARD_NAME",
    "PRESET_PROFILE",
    "PROFILES",
    "TEST_PERCENT",
    "DataError",
    "DealData",
    "GenerateReport",
    "content_hash",
    "deal_masks",
    "generate",
    "is_test",
    "load",
    "profile_of",
    "profile_rules",
    "solver_version",
]

FORMAT_VERSION = 1
CARD_NAME = "dataset.json"
TEST_PERCENT = 10
DEFAULT_CHUNK = 250
#: the most deals a dataset holds: chunk file names carry 9-digit deal indices
MAX_DEALS = 999_999_999
_CHUNK_RE = re.compile(r"^chunk-(\d{9})-(\d{9})\.npz$")
_KEYS = ("masks", "dd", "playout", "index", "seed", "profile", "solver_version")

Switches = tuple[bool, str, bool]  # (must_beat, void_rule, first_trick_spade_ban)

PROFILES: Mapping[str, Switches] = MappingProxyType(
    {
        "modern": (True, "strict", False),
        "strict": (True, "strict", True),
        "online": (True, "win_only", False),
        "home_pagat": (False, "win_only", False),
    }
)


def _switches(rules: Ruleset) -> Switches:
    return (rules.must_beat, rules.void_rule, rules.first_trick_spade_ban)


PRESET_PROFILE: Mapping[str, str] = MappingProxyType(
    {
        name: next(p for p, sw in PROFILES.items() if sw == _switches(rules))
        for name, rules in PRESETS.items()
    }
)


def profile_of(name: str | Ruleset) -> str:
    """The profile of a profile name, a preset name (``home`` -> ``home_pagat``) or a ruleset."""
    if isinstance(name, Ruleset):
        sw = _switches(name)
        for p, s in PROFILES.items():
            if s == sw:
                return p
        raise DataError(f"ruleset {name.name!r} has switches {sw} matching no dataset profile")
    if name in PROFILES:
        return name
    if name in PRESET_PROFILE:
        return PRESET_PROFILE[name]
    raise DataError(
        f"unknown profile {name!r} (profiles: {', '.join(PROFILES)}; presets map to them: "
        + ", ".join(f"{k}->{v}" for k, v in PRESET_PROFILE.items())
        + ")"
    )


def profile_rules(profile: str) -> Ruleset:
    """A ruleset with the profile's legal-card switches (the first preset of that profile)."""
    p = profile_of(profile)
    return PRESETS[next(name for name, q in PRESET_PROFILE.items() if q == p)]


def _card_changes(old: Mapping[str, Any], n: int, chunk_size: int, version: str) -> list[str]:
    """How a request for ``n`` deals in chunks of ``chunk_size`` by solver ``version`` differs
    from the dataset an existing card describes, as phrases (empty: a resume or a growth)."""
    changes = []
    count = old.get("count")
    if isinstance(count, int) and n < count:
        changes.append(f"{count} deals, not {n}")
    if old.get("chunk_size") != chunk_size:
        changes.append(f"chunk size {old.get('chunk_size')}, not {chunk_size}")
    if old.get("solver_version") != version:
        changes.append(f"solver version {old.get('solver_version')}, not {version}")
    return changes


def solver_version() -> tuple[str, str]:
    """``(version, source)``: ``callbreak_lab.solver.SOLVER_VERSION`` when the solver defines
    it, else the package version."""
    from callbreak_lab import solver

    v = getattr(solver, "SOLVER_VERSION", None)
    if v is not None:
        return str(v), "callbreak_lab.solver.SOLVER_VERSION"
    return __version__, "callbreak_lab.__version__"


# ---------------------------------------------------------------------------------------------
# Deals, splits, hashing
# ---------------------------------------------------------------------------------------------


def deal_masks(seed: int, start: int, stop: int) -> np.ndarray:
    """``(stop - start, 4)`` uint64 masks of deals ``start..stop-1`` of a seeded dataset."""
    seed = check_int(seed, "seed", low=0, error=DataError)
    out = np.zeros((max(stop - start, 0), 4), dtype=np.uint64)
    for row, i in enumerate(range(start, stop)):
        out[row] = Deal.seeded(seed, i).masks()
    return out


def _splitmix64(x: np.ndarray) -> np.ndarray:
    z = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def is_test(index: np.ndarray | Sequence[int]) -> np.ndarray:
    """True for deal indices in the held-out test split (``splitmix64(i) % 100 < TEST_PERCENT``)."""
    idx = np.asarray(index, dtype=np.int64)
    with np.errstate(over="ignore"):
        return (_splitmix64(idx) % np.uint64(100)) < np.uint64(TEST_PERCENT)


def load_arrays(path: Path, keys: Sequence[str]) -> dict[str, np.ndarray]:
    """The arrays ``keys`` of the ``.npz`` file ``path`` (no pickles); a ``DataError`` naming
    the file when it is unreadable or lacks one of them."""
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in keys if k not in z.files]
            if missing:
                raise DataError(f"{path.name}: missing arrays {missing}")
            return {k: z[k] for k in keys}
    except DataError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as e:
        raise DataError(f"{path.name}: unreadable ({type(e).__name__}: {e})") from None


def content_hash(masks: np.ndarray, dd: np.ndarray, playout: np.ndarray, index: np.ndarray) -> str:
    """``sha256:<hex>`` over the arrays in deal order, concatenated as little-endian bytes:
    index (int64), masks (uint64, row-major), dd (int8), playout (int8)."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(index, dtype="<i8").tobytes())
    h.update(np.ascontiguousarray(masks, dtype="<u8").tobytes())
    h.update(np.ascontiguousarray(dd, dtype="i1").tobytes())
    h.update(np.ascontiguousarray(playout, dtype="i1").tobytes())
    return "sha256:" + h.hexdigest()


# ---------------------------------------------------------------------------------------------
# Solving one chunk (runs in a worker)
# ---------------------------------------------------------------------------------------------


def _solve_chunk(profile: str, seed: int, start: int, stop: int) -> dict[str, np.ndarray]:
    """Deals ``start..stop-1`` with both solver outputs for every seat (worker task)."""
    from callbreak_lab import solver

    rules = profile_rules(profile)
    masks = deal_masks(seed, start, stop)
    deals = [Deal([Hand(int(m)) for m in row]) for row in masks]
    tables, results = solver.tables_and_playouts(deals, rules, n_jobs=1)
    dd = np.asarray(tables, dtype=np.int8)
    po = np.array([tuple(r.tricks) for r in results], dtype=np.int8).reshape(len(deals), 4)
    return {
        "masks": masks,
        "dd": dd.reshape(len(deals), 4),
        "playout": po,
        "index": np.arange(start, stop, dtype=np.int64),
    }


# ---------------------------------------------------------------------------------------------
# Atomic files and chunk validation
# ---------------------------------------------------------------------------------------------


def _chunk_name(start: int, stop: int) -> str:
    return f"chunk-{start:09d}-{stop:09d}.npz"


def _write_chunk(
    path: Path, arrays: Mapping[str, np.ndarray], seed: int, profile: str, version: str
) -> None:
    """Write one chunk file atomically."""
    with atomic_open(path, ".npz") as f:
        np.savez_compressed(
            f,
            masks=arrays["masks"],
            dd=arrays["dd"],
            playout=arrays["playout"],
            index=arrays["index"],
            seed=np.array(seed, dtype=np.int64),
            profile=np.array(profile),
            solver_version=np.array(version),
        )


def _write_card(path: Path, card: Mapping[str, Any]) -> None:
    with atomic_open(path, ".json") as f:
        f.write((json.dumps(card, indent=2, sort_keys=True) + "\n").encode())


def _read_chunk(
    path: Path,
    start: int,
    stop: int,
    seed: int,
    profile: str,
    version: str | None,
    check_deals: bool = True,
) -> dict[str, np.ndarray]:
    """Load and validate one chunk; raise DataError saying what is wrong."""
    arr = load_arrays(path, _KEYS)
    if int(arr["seed"]) != seed or str(arr["profile"]) != profile:
        raise _Foreign(
            f"{path.name} belongs to profile {str(arr['profile'])!r} seed {int(arr['seed'])}, "
            f"not {profile!r} seed {seed}; use another directory or delete it"
        )
    if version is not None and str(arr["solver_version"]) != version:
        raise DataError(f"{path.name}: solved by solver {arr['solver_version']}, not {version}")
    m = stop - start
    expect = {"masks": np.uint64, "dd": np.int8, "playout": np.int8}
    for k, dt in expect.items():
        if arr[k].shape != (m, 4) or arr[k].dtype != dt:
            raise DataError(f"{path.name}: {k} has shape {arr[k].shape} {arr[k].dtype}")
    idx = arr["index"]
    if idx.dtype != np.int64 or not np.array_equal(idx, np.arange(start, stop)):
        raise DataError(f"{path.name}: deal indices are not {start}..{stop - 1}")
    dd, po = arr["dd"], arr["playout"]
    if np.any(dd < 0) or np.any(dd > po) or np.any(po.sum(axis=1, dtype=np.int64) != 13):
        raise DataError(f"{path.name}: trick counts inconsistent (need 0 <= dd <= playout, sum 13)")
    if check_deals and not np.array_equal(arr["masks"], deal_masks(seed, start, stop)):
        raise DataError(f"{path.name}: deals differ from the seeded deals")
    return {k: arr[k] for k in ("masks", "dd", "playout", "index")}


class _Foreign(DataError):
    """A well-formed chunk of another dataset (never overwritten silently)."""


def _plan(n: int, chunk_size: int) -> list[tuple[int, int]]:
    return [(a, min(a + chunk_size, n)) for a in range(0, n, chunk_size)]


# ---------------------------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GenerateReport:
    """What a ``generate`` call did: where, how many chunks were reused, solved or replaced
    (corrupt or stale), wall time and seconds per newly solved deal."""

    directory: Path
    card: dict[str, Any]
    reused: int
    solved: int
    replaced: list[str] = field(default_factory=list)
    seconds: float = 0.0
    seconds_per_deal: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the folder, the chunks solved, reused and replaced, the times, the card."""
        return {
            "directory": str(self.directory),
            "solved_chunks": self.solved,
            "reused_chunks": self.reused,
            "replaced": list(self.replaced),
            "seconds": self.seconds,
            "seconds_per_deal": self.seconds_per_deal,
            "card": self.card,
        }


def generate(  # noqa: PLR0913  (the public keyword API: folder, chunking, parallelism, progress, overwrite)
    profile: str,
    deals: int,
    *,
    seed: int = 0,
    out_dir: str | os.PathLike[str],
    chunk_size: int = DEFAULT_CHUNK,
    n_jobs: int | None = 1,
    backend: Literal["loky", "dask"] = "loky",
    progress: Progress | None = None,
    client: Any = None,
    address: str | None = None,
    force: bool = False,
) -> GenerateReport:
    """Solve ``deals`` seeded deals for ``profile`` into ``<out_dir>/<profile>/`` (resumable).

    ``out_dir`` has no default: a library call names its folder (the CLI's default is
    ``./datasets``), so nothing writes into a shipped dataset by accident.

    Chunks already on disk and valid are reused; missing, torn or corrupt ones are (re)solved in
    parallel with joblib: local processes (``backend="loky"``, ``n_jobs``) or a Dask cluster
    (``backend="dask"`` with a ``distributed.Client`` as ``client`` or a scheduler ``address``).
    Results come back to this process, which writes every file, so workers need no shared disk.

    An existing dataset is never changed silently: another profile or seed is refused; growing
    ``deals`` keeps the existing ones and adds more; fewer deals, another chunk size or another
    solver version is refused unless ``force=True``. Only chunk files that the folder's card
    lists as its own are ever deleted. ``progress(done, total)`` is called with the deals on disk
    as chunks are written. Returns a :class:`GenerateReport`.
    """
    t0 = time.perf_counter()
    profile = profile_of(profile)
    n = check_int(deals, "deals", low=1, error=DataError)
    if n > MAX_DEALS:
        raise DataError(
            f"deals must be at most {MAX_DEALS:,} (chunk file names hold 9 digits), got {n:,}"
        )
    seed = check_int(seed, "seed", low=0, error=DataError)
    chunk_size = check_int(chunk_size, "chunk_size", low=1, error=DataError)
    n_jobs = 1 if n_jobs is None else int(n_jobs)
    if n_jobs == 0:
        raise DataError("n_jobs must not be 0 (None or 1 for no parallelism, -1 for all cores)")
    check_backend(backend, client, address, DataError)
    version, version_source = solver_version()
    if not str(out_dir).strip():  # Path("") is the working directory
        raise DataError("out_dir is empty (give a directory, e.g. datasets)")
    directory = Path(out_dir) / profile
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DataError(f"cannot create the dataset directory {directory}: {e}") from None
    for tmp in directory.glob(".tmp-*"):  # leftovers of a killed write
        tmp.unlink(missing_ok=True)
    card_path = directory / CARD_NAME
    old = _existing_card(card_path, profile, seed, n, chunk_size, version, force)
    own_chunks = set() if old is None else {str(c) for c in old.get("chunks", [])}
    plan = _plan(n, chunk_size)
    todo, replaced = _chunks_to_solve(directory, plan, seed, profile, version)
    done = n - sum(b - a for a, b in todo)
    if progress is not None:
        progress(done, n)
    t_solve = time.perf_counter()
    if todo:
        from joblib import delayed

        with parallel_results(backend, n_jobs, client, address) as par:
            tasks = (delayed(_solve_chunk)(profile, seed, a, b) for a, b in todo)
            for arrays in par(tasks):
                a, b = int(arrays["index"][0]), int(arrays["index"][-1]) + 1
                _write_chunk(directory / _chunk_name(a, b), arrays, seed, profile, version)
                done += b - a
                if progress is not None:
                    progress(done, n)
    solve_seconds = time.perf_counter() - t_solve
    # Chunks of the dataset this one replaces (its card listed them) that the new plan does not
    # list: removed, so that the folder holds what its card says. No other file is touched.
    planned = {_chunk_name(a, b) for a, b in plan}
    for name in sorted(own_chunks - planned):
        if _CHUNK_RE.match(name) and name == Path(name).name:
            (directory / name).unlink(missing_ok=True)
    data = _concat(
        [
            _read_chunk(directory / _chunk_name(a, b), a, b, seed, profile, version, False)
            for a, b in plan
        ]
    )
    card = _dataset_card(profile, seed, n, chunk_size, plan, (version, version_source), data)
    _write_card(card_path, card)
    solved = sum(b - a for a, b in todo)
    return GenerateReport(
        directory=directory,
        card=card,
        reused=len(plan) - len(todo),
        solved=len(todo),
        replaced=replaced,
        seconds=time.perf_counter() - t0,
        seconds_per_deal=solve_seconds / solved if solved else None,
    )


def _existing_card(
    card_path: Path, profile: str, seed: int, n: int, chunk_size: int, version: str, force: bool
) -> dict[str, Any] | None:
    """The card of the dataset already in the folder (None: none, or unreadable), refused when
    it holds another profile or seed, or (without ``force``) another count, chunking or solver
    version than this ``generate`` asks for."""
    if not card_path.exists():
        return None
    try:
        old = json.loads(card_path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(old, dict):
        return None
    directory = card_path.parent
    if (old.get("seed"), old.get("profile")) != (seed, profile):
        raise DataError(
            f"{directory} holds profile {old.get('profile')!r} seed {old.get('seed')}; "
            f"use another out_dir for seed {seed} or delete it"
        )
    changes = _card_changes(old, n, chunk_size, version)
    if changes and not force:
        raise DataError(
            f"{directory} holds another dataset ({'; '.join(changes)}); use another out_dir "
            "(--out), or force=True (--force) to rewrite it"
        )
    return old


def _chunks_to_solve(
    directory: Path, plan: list[tuple[int, int]], seed: int, profile: str, version: str
) -> tuple[list[tuple[int, int]], list[str]]:
    """``(the chunks of the plan to solve, why each invalid chunk file is replaced)``: missing
    chunks and those whose file does not read back as this dataset's."""
    todo: list[tuple[int, int]] = []
    replaced: list[str] = []
    for a, b in plan:
        path = directory / _chunk_name(a, b)
        if not path.exists():
            todo.append((a, b))
            continue
        try:
            _read_chunk(path, a, b, seed, profile, version)
        except _Foreign:
            raise
        except DataError as e:
            replaced.append(str(e))
            todo.append((a, b))
    return todo, replaced


def _dataset_card(
    profile: str,
    seed: int,
    n: int,
    chunk_size: int,
    plan: list[tuple[int, int]],
    solver: tuple[str, str],
    data: DealData,
) -> dict[str, Any]:
    """The JSON card of a generated dataset (``solver``: its version and where that came
    from)."""
    version, version_source = solver
    rules = profile_rules(profile)
    return {
        "format": FORMAT_VERSION,
        "profile": profile,
        "presets": [p for p, q in PRESET_PROFILE.items() if q == profile],
        "rules": rules.name,
        "switches": dict(
            zip(("must_beat", "void_rule", "first_trick_spade_ban"), PROFILES[profile], strict=True)
        ),
        "count": n,
        "seed": seed,
        "seed_scheme": "deal i = Deal.random(numpy.random.default_rng([seed, i]))",
        "chunk_size": chunk_size,
        "chunks": [_chunk_name(a, b) for a, b in plan],
        "solver_version": version,
        "solver_version_source": version_source,
        "package_version": __version__,
        "content_hash": content_hash(data.masks, data.dd, data.playout, data.index),
        "hash_scheme": "sha256 of index <i8, masks <u8 (n,4), dd i1 (n,4), playout i1 (n,4)",
        "dd": "guaranteed tricks per seat (double-dummy value), seat 0 on lead, first trick",
        "playout": "self-interested play-out tricks per seat from the start (sum 13)",
        "split": f"test when splitmix64(deal index) % 100 < {TEST_PERCENT}",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DealData:
    """Arrays of one dataset split in deal order: ``masks`` (n, 4) uint64, ``dd`` (n, 4) int8,
    ``playout`` (n, 4) int8, ``index`` (n,) int64; ``card`` is the dataset's JSON card."""

    masks: np.ndarray
    dd: np.ndarray
    playout: np.ndarray
    index: np.ndarray
    card: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.index.shape[0])

    def deals(self) -> list[Deal]:
        """The deals as ``Deal`` objects."""
        return [Deal([Hand(int(m)) for m in row]) for row in self.masks]


def _concat(parts: list[dict[str, np.ndarray]]) -> DealData:
    """Join validated chunks (in deal order) into one DealData."""
    return DealData(
        masks=np.concatenate([p["masks"] for p in parts]),
        dd=np.concatenate([p["dd"] for p in parts]),
        playout=np.concatenate([p["playout"] for p in parts]),
        index=np.concatenate([p["index"] for p in parts]),
    )


def load(
    profile: str,
    data_dir: str | os.PathLike[str],
    split: Literal["train", "test", "all"] = "train",
    verify: bool = True,
) -> DealData:
    """A dataset (or its ``train``/``test`` split) as arrays in deal order.

    Only the chunks listed in the card are read, so stray files never add duplicates; with
    ``verify`` the content hash is recomputed and must match the card.
    """
    profile = profile_of(profile)
    if split not in ("train", "test", "all"):
        raise DataError(f"split must be 'train', 'test' or 'all', got {split!r}")
    directory = Path(data_dir) / profile
    card_path = directory / CARD_NAME
    if not card_path.exists():
        raise DataError(
            f"no complete dataset in {directory} (no {CARD_NAME}); run generate to create or "
            "resume it"
        )
    try:
        card = json.loads(card_path.read_text())
        seed, n, chunk_size = int(card["seed"]), int(card["count"]), int(card["chunk_size"])
        names = list(card["chunks"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise DataError(f"{card_path}: unreadable card ({e})") from None
    plan = _plan(n, chunk_size)
    if names != [_chunk_name(a, b) for a, b in plan]:
        raise DataError(f"{card_path}: chunk list does not match count {n} and size {chunk_size}")
    data = _concat(
        [
            _read_chunk(directory / _chunk_name(a, b), a, b, seed, profile, None, verify)
            for a, b in plan
        ]
    )
    if verify:
        h = content_hash(data.masks, data.dd, data.playout, data.index)
        if h != card.get("content_hash"):
            raise DataError(f"{directory}: content hash {h} does not match the card")
    if split != "all":
        keep = is_test(data.index) == (split == "test")
        data = DealData(data.masks[keep], data.dd[keep], data.playout[keep], data.index[keep])
    return DealData(data.masks, data.dd, data.playout, data.index, card)
