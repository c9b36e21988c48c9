"""Constants and bit tables shared by the numba kernels, and the kernels' decorator and cache.

Inside the kernels a hand is an ``int64[4]`` row of 13-bit suit masks (bit ``r`` = rank ``r``), so
every operation stays in plain int64 arithmetic; a card is ``suit * 13 + rank``.

Every kernel is decorated with :func:`kernel`, ``njit(cache=True, nogil=True, _nrt=False)``: the
kernels never allocate, and without numba's reference-counting runtime a call no longer increments
and decrements the reference count of each array argument and array view (atomic operations that
took a large share of the search's time in perf profiles: benchmarks/HISTORY.md); they release
the GIL, so threads with their own engines (``api.engine()`` is per thread) search at the same
time, and an engine's helper thread searches beside it over the same table (``_threads.Helper``).

numba's on-disk cache checks a cached function against its own source file only: a caller
compiled with an older callee from another module, or with older global constants, would be
loaded stale. So the kernels are cached in a directory of their own named by ``KERNEL_KEY``, a
digest of every kernel source (``kernel_cache_dir``): a change of any of them means a new, empty
directory, never a deletion. Importing the solver deletes nothing, so processes that import it at
the same time, or that still run older kernels, never lose a file they read; inside one directory
numba writes each file to a temporary name and renames it into place.
Directories of older kernels stay until removed by hand: safe to delete once no process runs
those kernels any more.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
from numba import njit
from numba.core import config as numba_config

_F = TypeVar("_F", bound=Callable[..., Any])

#: the kernels' arrays, int64 throughout: hands ``[4, 4]`` of suit masks, the search's rows and
#: scratch (the kernels read their scalars out of them as plain ints)
Ints = npt.NDArray[np.int64]


class _Jit(Protocol):
    """numba's ``njit(...)`` as the kernels' callers see it: the dispatcher it returns is
    called like the function it compiles."""

    def __call__(self, func: _F, /) -> _F: ...


#: The sources the compiled kernels depend on: this file (constants and tables the kernels read
#: as globals) and every module that defines a kernel (``tests/test_numba_cache.py`` checks that
#: each module using ``@kernel`` is listed).
KERNEL_FILES = (
    "_consts.py",
    "_moves.py",
    "_table.py",
    "_bounds.py",
    "_marks.py",
    "_search.py",
)

_HERE = Path(__file__).resolve().parent


def kernel_key(here: Path = _HERE) -> str:
    """A digest of the kernel sources (``KERNEL_FILES`` in ``here``): it names the directory the
    kernels are cached in, so it changes whenever a compiled kernel could."""
    h = hashlib.sha256()
    for name in KERNEL_FILES:
        data = (here / name).read_bytes()
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:20]


KERNEL_KEY = kernel_key()


def _user_cache_root() -> Path | None:
    """The per-user cache directory (``XDG_CACHE_HOME``, else ``~/.cache``), for an install whose
    own directory is read-only."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg)
    try:
        return Path.home() / ".cache"
    except RuntimeError:  # no home directory known
        return None


def _writable(directory: Path) -> bool:
    """Whether ``directory`` exists (created if need be) and takes new files."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


def kernel_cache_dir(key: str = KERNEL_KEY) -> Path | None:
    """The directory numba caches the kernels in: ``callbreak_lab-kernels-<key>`` inside the
    user's ``NUMBA_CACHE_DIR`` when it is set (numba's view of it, ``numba.config.CACHE_DIR``),
    else inside ``__pycache__`` beside these sources, else inside the per-user cache directory;
    the first that takes files. None when none does (or numba's JIT is off): the kernels are then
    compiled in each process and never cached."""
    if getattr(numba_config, "DISABLE_JIT", 0):
        return None
    bases: list[Path] = []
    user = getattr(numba_config, "CACHE_DIR", "")
    if user:
        bases.append(Path(user))
    bases.append(_HERE / "__pycache__")
    home = _user_cache_root()
    if home is not None:
        bases.append(home / "callbreak_lab")
    for base in bases:
        directory = base / f"callbreak_lab-kernels-{key}"
        if _writable(directory):
            return directory
    return None


#: where this process caches the kernels (None: not cached)
KERNEL_CACHE = kernel_cache_dir()

# ``_nrt`` is a private numba option its type stubs do not know; ``NUMBA_DISABLE_JIT=1`` ignores
# it with the rest.
_jit_cached: _Jit = njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]
_jit_uncached: _Jit = njit(cache=False, nogil=True, _nrt=False)  # type: ignore[call-overload]
# numba reads ``config.CACHE_DIR`` when a cached function is decorated; the lock keeps two
# threads importing at once from restoring each other's value.
_CONFIG_LOCK = threading.Lock()


def cached_in(dispatcher: Any, directory: Path) -> bool:
    """Whether numba caches ``dispatcher``'s compiled code inside ``directory`` (its
    ``stats.cache_path``)."""
    stats = getattr(dispatcher, "stats", None)
    path = getattr(stats, "cache_path", None)
    return path is not None and Path(path).resolve().is_relative_to(directory.resolve())


def kernel(func: _F) -> _F:
    """The decorator of every solver kernel: ``njit(cache=True, nogil=True, _nrt=False)`` with
    numba's cache pointed at ``KERNEL_CACHE``.

    numba picks a function's cache directory when the function is decorated, from
    ``numba.config.CACHE_DIR`` (``NUMBA_CACHE_DIR``) when it is set; the value is set to
    ``KERNEL_CACHE`` for that moment and then restored, so other numba functions of the process
    cache where they would have. Should numba put the cache anywhere else (a numba that no
    longer reads the setting then, a directory that stopped taking files), the kernel is
    compiled without a cache rather than risk loading a stale one."""
    if KERNEL_CACHE is None:
        return _jit_uncached(func)
    with _CONFIG_LOCK:
        saved = numba_config.CACHE_DIR  # type: ignore[attr-defined]  # set by numba at import
        numba_config.CACHE_DIR = str(KERNEL_CACHE)  # type: ignore[attr-defined]
        try:
            dispatcher = _jit_cached(func)
        finally:
            numba_config.CACHE_DIR = saved  # type: ignore[attr-defined]
    if dispatcher is func or cached_in(dispatcher, KERNEL_CACHE):
        return dispatcher
    return _jit_uncached(func)


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
