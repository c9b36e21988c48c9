"""Where the tests' data files live: ``tests/data`` inside the repository, nothing outside it."""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"

#: Recorded requests of a real Bhoos-protocol bot client (see ``tests/data/bhoos/README.md``).
BHOOS_DIR = DATA_DIR / "bhoos"
