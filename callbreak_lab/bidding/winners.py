"""Trick winners of solved deals: which card took each trick of a dataset deal's play-out.

The solved-deal datasets (:mod:`callbreak_lab.bidding.datasets`) hold each seat's play-out
trick count, not which card won each trick. This module replays the self-interested play-out of
chosen dataset deals (the same deal indices; the dataset's guaranteed values are passed to
``solver.playout_of`` as ``known`` so the play-out does not prove them again) and records, for
every card, whether it took a trick and how. Each replay is checked against the dataset: the
replayed trick counts must equal the stored play-out counts, else generation stops with a
DataError.

Layout under ``<out_dir>/<profile>/``:

* ``<split>-<k>.npz`` (``np.savez_compressed``): the ``k``-th block of ``chunk_size`` deals of
  the dataset's ``split`` (``test`` or ``train``, in deal-index order). Arrays: ``index`` (m,)
  int64 deal indices, ``masks`` (m, 4) uint64 hands, ``plays`` (m, 52) int8 the cards in play
  order, ``won`` (m, 52) int8 per card id (``suit * 13 + rank``): :data:`LOST`, :data:`LED_SUIT`
  (took a trick of its own suit's lead) or :data:`RUFF` (a spade taking a trick of another
  suit's lead), ``playout`` (m, 4) int8 the replayed counts, plus ``profile`` and
  ``solver_version``.
* ``winners.json``: the card (profile, dataset hash, chunks per split, counts, solver version,
  content hash, CPU seconds spent, created date).

Every file is written atomically (``util.fileio.atomic_open``); a rerun validates and reuses the
chunks it finds and solves only the missing or broken ones, so a killed run resumes.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np

from callbreak_lab.bidding import datasets as data
from callbreak_lab.errors import DataError, check_int
from callbreak_lab.util.fileio import atomic_open
from callbreak_lab.util.progress import Progress

__all__ = [
    "CARD_NAME",
    "LED_SUIT",
    "LOST",
    "RUFF",
    "WinnerData",
    "generate",
    "load",
    "replay",
    "trick_outcomes",
]

FORMAT_VERSION = 1
CARD_NAME = "winners.json"
#: ``won`` codes: the card took no trick, took one of its own suit's lead, took one by a ruff
LOST, LED_SUIT, RUFF = 0, 1, 2
_KEYS = ("index", "masks", "plays", "won", "playout", "profile", "solver_version")
Split = Literal["test", "train"]


def trick_outcomes(plays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(won, tricks)`` of a whole deal played from its start (seat 0 leads trick 1):
    ``plays`` the 52 card ids in play order; ``won`` (52,) int8 the :data:`LOST` /
    :data:`LED_SUIT` / :data:`RUFF` code of each card id, ``tricks`` (4,) int8 per seat."""
    p = np.asarray(plays, dtype=np.int64)
    if p.shape != (52,) or sorted(p.tolist()) != list(range(52)):
        raise DataError("a play-out holds the 52 cards once each")
    won = np.zeros(52, dtype=np.int8)
    tricks = np.zeros(4, dtype=np.int8)
    leader = 0
    for t in range(13):
        cards = p[4 * t : 4 * t + 4]
        led = int(cards[0]) // 13
        best = 0
        for i in range(1, 4):
            c, b = int(cards[i]), int(cards[best])
            if (c >= 39 and c > b) or (b < 39 and c // 13 == led and c > b):
                best = i
        card = int(cards[best])
        won[card] = RUFF if card // 13 == 3 and led != 3 else LED_SUIT
        leader = (leader + best) % 4
        tricks[leader] += 1
    return won, tricks


def replay(
    masks: np.ndarray, dd: np.ndarray, profile: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(plays, won, tricks)`` of one deal's play-out under ``profile`` (``masks`` (4,) its
    hands, ``dd`` (4,) its guaranteed values, passed to the solver as known lower bounds)."""
    from callbreak_lab.cards import Deal, Hand
    from callbreak_lab.solver.api import make_root, playout_of

    rules = data.profile_rules(profile)
    deal = Deal([Hand(int(m)) for m in masks])
    result = playout_of(make_root(deal, rules), known=tuple(int(x) for x in dd))
    plays = np.array([int(c) for c in result.cards], dtype=np.int8)
    won, tricks = trick_outcomes(plays)
    if tuple(int(x) for x in tricks) != tuple(result.tricks):
        raise DataError(f"replayed winners give {tricks.tolist()}, the solver {result.tricks}")
    return plays, won, tricks


def _chunk_name(split: str, k: int) -> str:
    return f"{split}-{k:04d}.npz"


def _split_index(source: data.DealData, split: Split, count: int) -> np.ndarray:
    """The first ``count`` deal indices of the dataset's ``split``, in index order."""
    keep = data.is_test(source.index) == (split == "test")
    idx: np.ndarray = source.index[keep]
    if count > len(idx):
        raise DataError(f"the dataset's {split} split holds {len(idx)} deals, not {count}")
    return idx[:count]


def _solve_block(
    profile: str, index: np.ndarray, masks: np.ndarray, dd: np.ndarray, playout: np.ndarray
) -> dict[str, np.ndarray]:
    """Replay deals of one block and check each against the dataset's play-out counts."""
    m = len(index)
    plays = np.zeros((m, 52), dtype=np.int8)
    won = np.zeros((m, 52), dtype=np.int8)
    tricks = np.zeros((m, 4), dtype=np.int8)
    for row in range(m):
        plays[row], won[row], tricks[row] = replay(masks[row], dd[row], profile)
        if not np.array_equal(tricks[row], playout[row]):
            raise DataError(
                f"deal {int(index[row])} ({profile}): the replayed play-out takes "
                f"{tricks[row].tolist()} tricks, the dataset stores {playout[row].tolist()}"
            )
    return {"index": index, "masks": masks, "plays": plays, "won": won, "playout": tricks}


def _write_chunk(path: Path, arrays: Mapping[str, np.ndarray], profile: str, version: str) -> None:
    with atomic_open(path, ".npz") as f:
        np.savez_compressed(
            f,
            index=arrays["index"],
            masks=arrays["masks"],
            plays=arrays["plays"],
            won=arrays["won"],
            playout=arrays["playout"],
            profile=np.array(profile),
            solver_version=np.array(version),
        )


def _read_chunk(
    path: Path, index: np.ndarray, masks: np.ndarray, playout: np.ndarray, profile: str
) -> dict[str, np.ndarray]:
    """Load one chunk and check it against the dataset rows it claims (DataError if not)."""
    arr = data.load_arrays(path, _KEYS)
    if str(arr["profile"]) != profile:
        raise DataError(f"{path.name}: profile {str(arr['profile'])!r}, not {profile!r}")
    if not np.array_equal(arr["index"], index) or not np.array_equal(arr["masks"], masks):
        raise DataError(f"{path.name}: deals differ from the dataset's")
    m = len(index)
    if arr["plays"].shape != (m, 52) or arr["won"].shape != (m, 52):
        raise DataError(f"{path.name}: plays/won have shapes {arr['plays'].shape}")
    if not np.array_equal(arr["playout"], playout):
        raise DataError(f"{path.name}: trick counts differ from the dataset's play-out")
    return {k: arr[k] for k in ("index", "masks", "plays", "won", "playout")}


def content_hash(parts: list[dict[str, np.ndarray]]) -> str:
    """``sha256:<hex>`` over index <i8, masks <u8, plays i1, won i1 of every chunk in order."""
    h = hashlib.sha256()
    for p in parts:
        h.update(np.ascontiguousarray(p["index"], dtype="<i8").tobytes())
        h.update(np.ascontiguousarray(p["masks"], dtype="<u8").tobytes())
        h.update(np.ascontiguousarray(p["plays"], dtype="i1").tobytes())
        h.update(np.ascontiguousarray(p["won"], dtype="i1").tobytes())
    return "sha256:" + h.hexdigest()


def generate(
    profile: str,
    *,
    data_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    test: int,
    train: int = 0,
    chunk_size: int = 50,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Replay the first ``test`` deals of the dataset's test split and the first ``train`` of
    its training split into ``<out_dir>/<profile>/`` (resumable; test blocks first). Returns
    the card written."""
    profile = data.profile_of(profile)
    test = check_int(test, "test", low=0, error=DataError)
    train = check_int(train, "train", low=0, error=DataError)
    chunk_size = check_int(chunk_size, "chunk_size", low=1, error=DataError)
    # the deals are not re-dealt from the seed here (seconds per call); the content hash
    # checks the arrays against the dataset's card, and every replay checks its trick counts
    source = data.load(profile, data_dir, split="all", verify=False)
    if data.content_hash(source.masks, source.dd, source.playout, source.index) != source.card.get(
        "content_hash"
    ):
        raise DataError(f"{Path(data_dir) / profile}: content hash does not match the card")
    version, _ = data.solver_version()
    if source.card.get("solver_version") != version:
        raise DataError(
            f"the dataset was solved by solver {source.card.get('solver_version')}, this "
            f"package has {version}: its play-outs may differ"
        )
    row_of = {int(i): r for r, i in enumerate(source.index)}
    directory = Path(out_dir) / profile
    directory.mkdir(parents=True, exist_ok=True)
    for tmp in directory.glob(".tmp-*"):
        tmp.unlink(missing_ok=True)
    card_path = directory / CARD_NAME
    spent = _spent(card_path)
    plan: list[tuple[str, np.ndarray]] = []
    for split, count in (("test", test), ("train", train)):
        idx = _split_index(source, split, count)  # type: ignore[arg-type]
        for k, a in enumerate(range(0, count, chunk_size)):
            plan.append((_chunk_name(split, k), idx[a : a + chunk_size]))
    total, done = sum(len(ix) for _, ix in plan), 0
    parts: list[dict[str, np.ndarray]] = []
    for name, ix in plan:
        rows = np.array([row_of[int(i)] for i in ix], dtype=np.int64)
        masks, dd, po = source.masks[rows], source.dd[rows], source.playout[rows]
        part = _valid_chunk(directory / name, ix, masks, po, profile)
        if part is None:
            t0 = time.process_time()
            part = _solve_block(profile, ix, masks, dd, po)
            spent += time.process_time() - t0
            _write_chunk(directory / name, part, profile, version)
            _write_card(card_path, profile, source, test, train, chunk_size, version, spent, None)
        parts.append(part)
        done += len(ix)
        if progress is not None:
            progress(done, total)
    return _write_card(card_path, profile, source, test, train, chunk_size, version, spent, parts)


def _spent(card_path: Path) -> float:
    """The CPU seconds an earlier run recorded in the card (0 without one)."""
    try:
        return float(json.loads(card_path.read_text()).get("cpu_seconds", 0.0))
    except (OSError, ValueError, AttributeError):
        return 0.0


def _valid_chunk(
    path: Path, index: np.ndarray, masks: np.ndarray, playout: np.ndarray, profile: str
) -> dict[str, np.ndarray] | None:
    """The chunk at ``path`` when it exists and holds these deals' replays, else None."""
    if not path.exists():
        return None
    try:
        return _read_chunk(path, index, masks, playout, profile)
    except DataError:
        return None


def _write_card(  # noqa: PLR0913
    path: Path,
    profile: str,
    source: data.DealData,
    test: int,
    train: int,
    chunk_size: int,
    version: str,
    spent: float,
    parts: list[dict[str, np.ndarray]] | None,
) -> dict[str, Any]:
    """Write the folder's card (``parts`` None: a run in progress, no content hash yet)."""
    card: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "profile": profile,
        "dataset_hash": source.card.get("content_hash"),
        "test": test,
        "train": train,
        "chunk_size": chunk_size,
        "chunks": {
            "test": [_chunk_name("test", k) for k in range(-(-test // chunk_size))],
            "train": [_chunk_name("train", k) for k in range(-(-train // chunk_size))],
        },
        "complete": parts is not None,
        "solver_version": version,
        "cpu_seconds": round(spent, 1),
        "won_codes": {"0": "no trick", "1": "took a trick of its suit's lead", "2": "ruffed"},
        "selection": "the first deals of each split of the dataset, in deal-index order",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if parts is not None:
        card["content_hash"] = content_hash(parts)
    with atomic_open(path, ".json") as f:
        f.write((json.dumps(card, indent=2, sort_keys=True) + "\n").encode())
    return card


@dataclass(frozen=True)
class WinnerData:
    """One split's replayed play-outs in deal order: ``index`` (n,), ``masks`` (n, 4),
    ``plays`` (n, 52), ``won`` (n, 52) codes per card id, ``playout`` (n, 4)."""

    index: np.ndarray
    masks: np.ndarray
    plays: np.ndarray
    won: np.ndarray
    playout: np.ndarray
    card: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.index.shape[0])


def load(
    profile: str, out_dir: str | os.PathLike[str], split: Split = "train", verify: bool = True
) -> WinnerData:
    """The chunks of ``split`` that the folder's card lists (``verify``: the card must be
    complete and the content hash over every chunk match it; without, the split's chunks are
    read while a generation may still be adding others)."""
    profile = data.profile_of(profile)
    if split not in ("test", "train"):
        raise DataError(f"split must be 'test' or 'train', got {split!r}")
    directory = Path(out_dir) / profile
    try:
        card = json.loads((directory / CARD_NAME).read_text())
        names = {s: list(card["chunks"][s]) for s in ("test", "train")}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise DataError(f"{directory}: no readable {CARD_NAME} ({e})") from None
    if verify and not card.get("complete"):
        raise DataError(f"{directory}: a generation is in progress (the card is not complete)")
    parts: dict[str, list[dict[str, np.ndarray]]] = {"test": [], "train": []}
    for s in ("test", "train") if verify else (split,):
        for name in names[s]:
            if not (directory / name).exists():
                raise DataError(f"{directory}: {name} is missing (a generation in progress?)")
            with np.load(directory / name, allow_pickle=False) as z:
                parts[s].append({k: z[k] for k in ("index", "masks", "plays", "won", "playout")})
    if verify and content_hash(parts["test"] + parts["train"]) != card.get("content_hash"):
        raise DataError(f"{directory}: content hash does not match the card")
    got = parts[split]
    if not got:
        raise DataError(f"{directory}: the {split} split is empty")
    joined = {k: np.concatenate([p[k] for p in got]) for k in got[0]}
    return WinnerData(
        joined["index"], joined["masks"], joined["plays"], joined["won"], joined["playout"], card
    )
