"""Batches over many deals or positions, in parallel with joblib (results in input order).

Each takes ``n_jobs`` (joblib's meaning: None or 1 solves in this process, -1 on every core) and
``progress`` (``progress(done, total)`` after each chunk of deals solved)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from callbreak_lab.cards import check_seat
from callbreak_lab.errors import SolverInputError
from callbreak_lab.util.progress import Progress

from .api import PlayoutResult, Root, make_root, playout_of, table_of, value_of

if TYPE_CHECKING:
    from callbreak_lab.cards import Deal
    from callbreak_lab.game import Position
    from callbreak_lab.rules import Ruleset


def _solve_chunk(jobs: list[tuple[Root, int]]) -> list[int]:
    return [value_of(root, seat) for root, seat in jobs]


def _table_chunk(roots: list[Root]) -> list[tuple[int, ...]]:
    return [table_of(root) for root in roots]


def _playout_chunk(roots: list[Root]) -> list[PlayoutResult]:
    return [playout_of(root) for root in roots]


def _both_chunk(roots: list[Root]) -> list[tuple[tuple[int, int, int, int], PlayoutResult]]:
    out = []
    for root in roots:
        table = table_of(root)
        out.append((table, playout_of(root, known=table)))
    return out


def _seat_chunk(jobs: list[tuple[Root, int]]) -> list[tuple[int, PlayoutResult]]:
    out = []
    for root, seat in jobs:
        v = value_of(root, seat)
        lows = tuple(v if q == seat else 0 for q in range(4))
        out.append((v, playout_of(root, known=lows)))
    return out


def _roots(deals: Any, rules: Ruleset | str | None) -> list[Root]:
    """Validated roots of a sequence of deals or positions (one deal alone is refused: a deal's
    text would otherwise be read character by character)."""
    from callbreak_lab.cards import Deal
    from callbreak_lab.game import Position

    if isinstance(deals, str | Deal | Position) or not isinstance(deals, Iterable):
        raise SolverInputError(
            f"expected a list of deals or positions, got {type(deals).__name__} "
            "(for one deal use dd_table / playout / solve)"
        )
    return [make_root(d, rules) for d in deals]


def _run(
    fn: Callable[[list[Any]], list[Any]],
    items: list[Any],
    n_jobs: int | None,
    progress: Progress | None,
) -> list[Any]:
    """Apply ``fn`` to chunks of ``items`` (in worker processes when ``n_jobs`` != 1)."""
    n = len(items)
    if n == 0:
        return []
    if n_jobs is None:
        n_jobs = 1
    if n_jobs < 0:
        import os

        n_jobs = max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    workers = max(1, min(n_jobs, n))
    size = max(1, min(16, -(-n // (workers * 4))))
    chunks = [items[i : i + size] for i in range(0, n, size)]
    results: list[Any] = []
    it: Iterator[list[Any]]
    if workers == 1:
        it = (fn(c) for c in chunks)
    else:
        from joblib import Parallel, delayed

        it = Parallel(n_jobs=workers, return_as="generator")(delayed(fn)(c) for c in chunks)
    for out in it:
        results.extend(out)
        if progress is not None:
            progress(len(results), n)
    return results


def solve_many(
    positions: Sequence[Position | Deal | str],
    seats: int | Sequence[int],
    rules: Ruleset | str | None = None,
    *,
    n_jobs: int | None = 1,
    progress: Progress | None = None,
) -> list[int]:
    """``solve`` for each position (one seat for all, or one seat per position)."""
    roots = _roots(positions, rules)
    if isinstance(seats, int | np.integer):
        seat_list: list[Any] = [seats] * len(roots)
    elif isinstance(seats, Sequence) and not isinstance(seats, str):
        seat_list = list(seats)
    else:
        raise SolverInputError(f"seats must be one seat or one per position, got {seats!r}")
    if len(seat_list) != len(roots):
        raise SolverInputError(f"{len(seat_list)} seats for {len(roots)} positions")
    jobs = [(root, check_seat(s)) for root, s in zip(roots, seat_list, strict=True)]
    return _run(_solve_chunk, jobs, n_jobs, progress)


def dd_tables(
    deals: Sequence[Position | Deal | str],
    rules: Ruleset | str | None = None,
    *,
    n_jobs: int | None = 1,
    progress: Progress | None = None,
) -> np.ndarray:
    """``dd_table`` for each deal or position: an int array of shape (n, 4)."""
    roots = _roots(deals, rules)
    out = _run(_table_chunk, roots, n_jobs, progress)
    return np.array(out, dtype=np.int64).reshape(len(roots), 4)


def playouts(
    deals: Sequence[Position | Deal | str],
    rules: Ruleset | str | None = None,
    *,
    n_jobs: int | None = 1,
    progress: Progress | None = None,
) -> list[PlayoutResult]:
    """``playout`` for each deal or position."""
    roots = _roots(deals, rules)
    return _run(_playout_chunk, roots, n_jobs, progress)


def tables_and_playouts(
    deals: Sequence[Position | Deal | str],
    rules: Ruleset | str | None = None,
    *,
    n_jobs: int | None = 1,
    progress: Progress | None = None,
) -> tuple[np.ndarray, list[PlayoutResult]]:
    """``dd_tables`` and ``playouts`` together, deal by deal: the play-out starts from the
    table's values and the table's search state, so it costs little beyond the table."""
    roots = _roots(deals, rules)
    out = _run(_both_chunk, roots, n_jobs, progress)
    tables = np.array([t for t, _ in out], dtype=np.int64).reshape(len(roots), 4)
    return tables, [p for _, p in out]


def values_and_playouts(
    deals: Sequence[Position | Deal | str],
    seat: int,
    rules: Ruleset | str | None = None,
    *,
    n_jobs: int | None = 1,
    progress: Progress | None = None,
) -> tuple[np.ndarray, list[PlayoutResult]]:
    """One seat's value and the play-out of each deal: what single-dummy Monte Carlo needs.

    Much cheaper than ``tables_and_playouts`` when the other seats' values are not wanted: the
    play-out never needs the other seats' values at the root, and those root solves hold most
    of a table's cost (benchmarks/HISTORY.md, "The Monte Carlo reference")."""
    seat = check_seat(seat)
    roots = _roots(deals, rules)
    out = _run(_seat_chunk, [(r, seat) for r in roots], n_jobs, progress)
    return np.array([v for v, _ in out], dtype=np.int64), [p for _, p in out]
