"""Reading the line-per-item text files of the command line (``--file``)."""

from __future__ import annotations

import sys


def read_lines(path: str) -> list[str]:
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
        raise ValueError(f"cannot read --file {path}: {e}") from None
    return text.splitlines()
