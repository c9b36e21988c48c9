"""The one kind of progress report of the public API: ``progress`` is a callable taking the
work done and the work in all (``Progress``), or None for none. ``progress_bar`` makes one that
draws a tqdm bar (a terminal or a notebook); the widgets pass their own."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

__all__ = ["Progress", "progress_bar"]

#: ``progress(done, total)``: called as work finishes, ``done`` rising to ``total``
Progress = Callable[[int, int], None]


@contextlib.contextmanager
def progress_bar(desc: str = "", *, leave: bool = False) -> Iterator[Progress]:
    """A ``Progress`` that draws a tqdm bar with ``desc``, closed when the block ends::

    with progress_bar("layouts") as progress:
        advise(..., progress=progress)
    """
    from tqdm.auto import tqdm

    bar = tqdm(total=0, desc=desc, leave=leave)

    def report(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    try:
        yield report
    finally:
        bar.close()
