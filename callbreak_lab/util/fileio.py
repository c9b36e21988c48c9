"""Files: atomic writes (a temp file beside the target, fsync, ``os.replace``), a file's
SHA-256 and reading the line-per-item text files of the command line.

A killed process leaves either the old file or the whole new one, never a torn file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from collections.abc import Iterator
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import IO

from callbreak_lab.errors import UsageError


def _plain_mode() -> int:
    """0o666 less the process umask (read without changing it where the OS allows)."""
    with (
        contextlib.suppress(OSError, ValueError, IndexError),
        open("/proc/self/status", encoding="ascii") as f,
    ):
        for line in f:
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def atomic_open(path: Path, suffix: str = "") -> Iterator[IO[bytes]]:
    """Open a temporary file next to ``path``; on success fsync it and ``os.replace`` it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            # mkstemp makes the file private (0600); give it the mode a plain open() would
            os.fchmod(f.fileno(), _plain_mode())
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:  # any failure, an interrupt too: remove the temporary file, re-raise
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def sha256_file(path: Path | Traversable) -> str:
    """The SHA-256 of a file's bytes (a path or a package resource), as hex."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_lines(path: str, what: str = "--file") -> list[str]:
    """The lines of a ``--file`` (``-``: stdin). Bytes that are not UTF-8 become U+FFFD, so
    that only their lines are reported as malformed and the others still run; a leading
    byte-order mark (files saved by some Windows editors) is dropped."""
    try:
        if path == "-":
            stdin = getattr(sys.stdin, "buffer", None)
            raw = sys.stdin.read() if stdin is None else stdin.read().decode("utf-8", "replace")
            text = raw.removeprefix("\ufeff")
        else:
            with open(path, encoding="utf-8-sig", errors="replace") as f:
                text = f.read()
    except OSError as e:
        raise UsageError(f"cannot read {what} {path}: {e}") from None
    return text.splitlines()
