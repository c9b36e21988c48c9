"""Where the tests' data files live (``tests/data`` inside the repository, nothing outside it),
and stopping the servers tests start."""

from __future__ import annotations

import subprocess
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"

#: Recorded requests of a real Bhoos-protocol bot client (see ``tests/data/bhoos/README.md``).
BHOOS_DIR = DATA_DIR / "bhoos"


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server process a test started: terminate, then kill after 30 s."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
