"""Constants and bit tables shared by the numba kernels.

Inside the kernels a hand is an ``int64[4]`` row of 13-bit suit masks (bit ``r`` = rank ``r``), so
every operation stays in plain int64 arithmetic; a card is ``suit * 13 + rank``.

Every kernel is decorated with :data:`kernel`, ``njit(cache=True, nogil=True, _nrt=False)``: the
kernels never allocate, and without numba's reference-counting runtime a call no longer increments
and decrements the reference count of each array argument and array view (atomic operations that
took about 40 % of the search's time); they release the GIL, so threads with their own engines
(``api.engine()`` is per thread) search at the same time, and an engine's helper thread searches
beside it over the same table (``_threads.Helper``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

#: The decorator of every solver kernel (``_nrt`` is a private numba option its type stubs do not
#: know; ``NUMBA_DISABLE_JIT=1`` ignores it with the rest).
kernel = njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]

_KERNEL_FILES = (
    "_consts.py",
    "_moves.py",
    "_table.py",
    "_bounds.py",
    "_marks.py",
    "_search.py",
)


def _numba_cache_dir(here: Path) -> Path:
    """The directory numba keeps these kernels' cache in, by numba's own rules: ``NUMBA_CACHE_DIR``
    when set, else ``__pycache__`` beside the sources when writable, else a per-user directory."""
    try:
        from numba.core.caching import CacheImpl

        source = str(here / "_consts.py")
        locator_classes: list[Any] = list(CacheImpl._locator_classes)
        for locator_class in locator_classes:
            locator = locator_class.from_function(_numba_cache_dir, source)
            if locator is not None:
                return Path(locator.get_cache_path())
    except Exception:  # numba's internals moved: fall back to its default location
        pass
    return here / "__pycache__"


def _invalidate_stale_cache() -> None:
    """Drop numba's on-disk cache of the kernels when any kernel source changed.

    numba keys a cached function on its own file only, so a caller compiled with an older callee
    from another module would be loaded stale. A digest of all kernel sources guards against it,
    in whichever directory numba caches them (``__pycache__``, ``NUMBA_CACHE_DIR``, or the
    user cache directory of a read-only install).
    """
    here = Path(__file__).parent
    try:
        digest = hashlib.sha256(b"".join((here / f).read_bytes() for f in _KERNEL_FILES))
        cache = _numba_cache_dir(here)
        stamp = cache / "kernels.sha256"
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        cache.mkdir(parents=True, exist_ok=True)
        modules = tuple(f.removesuffix(".py") + "." for f in _KERNEL_FILES)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            if f.name.startswith(modules):
                f.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # nowhere writable: numba cannot cache either, so it compiles
        pass


_invalidate_stale_cache()

SPADES = 3
MAXPLY = 53  # 52 cards + one sentinel level

#: population count of a 13-bit suit mask
POP = np.array([bin(i).count("1") for i in range(8192)], dtype=np.int64)
#: suit and rank of a card 0..51 (a table read instead of a floor division by 13)
SUIT = np.array([c // 13 for c in range(52)], dtype=np.int64)
RANK = np.array([c % 13 for c in range(52)], dtype=np.int64)
#: index of the highest set bit (-1 for 0)
HI = np.array([i.bit_length() - 1 for i in range(8192)], dtype=np.int64)
#: index of the lowest set bit (-1 for 0)
LO = np.array([((i & -i).bit_length() - 1) if i else -1 for i in range(8192)], dtype=np.int64)
#: ABOVE[r + 1] = ranks strictly above r (index 0 = every rank, i.e. "above -1")
ABOVE = np.array([(0x1FFF >> (r + 1)) << (r + 1) for r in range(-1, 13)], dtype=np.int64)

# Indices of the option switches (``opts`` array) so the benchmark can measure each technique.
OPT_TT = 0  # transposition table at trick boundaries
OPT_QUICK = 1  # sure-trick bounds at trick boundaries
OPT_EQUIV = 2  # one card per run of equivalent cards
OPT_ORDER = 3  # heuristic move ordering (table move first, then the ply's last cutting lead)
OPT_MTD = 4  # drive null-window probes from a guess (else bisection)
OPT_LAST = 5  # evaluate the last tricks directly
OPT_DECIDED = 6  # mid-trick: stop when the trick's fixed winner settles the question
OPT_PART = 7  # partition search: table entries cover every position agreeing on relevant ranks
OPT_SIBLING = 8  # skip a card whose sibling's result did not rely on either card's rank
OPT_GUESS = 9  # first probe from an estimate of the value (else from the upper bound)
OPT_MOBILITY = 10  # the target's leads: fewest replies for the other seats first
OPT_REVERSE = 11  # a helper thread: the other seats' moves reversed at plies below this
N_OPTS = 12

# Indices of the statistics counters (``stats`` array; ``_stats.Counters`` reads them by name).
ST_NODES = 0
ST_TT_HITS = 1
ST_TT_STORES = 2
ST_QUICK_CUTS = 3
ST_PROBES = 4
ST_SIBLING_SKIPS = 5
N_STATS = 8


def default_opts() -> np.ndarray:
    """Every technique switched on (``OPT_REVERSE`` is not a technique: 0)."""
    opts = np.ones(N_OPTS, dtype=np.int64)
    opts[OPT_REVERSE] = 0
    return opts
