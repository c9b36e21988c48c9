"""Where the project's shared material (../shared beside the work tree) lives.

CI clones the repository with a copy of ``shared/`` beside it; a developer's tree has it at
``/work/shared``. Tests that replay the recorded bot traffic must run, so a missing folder is an
error, never a skip.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_CANDIDATES = (REPO.parent / "shared", Path("/work/shared"))


def shared_dir() -> Path:
    """The shared folder: beside the repository, else /work/shared."""
    for path in _CANDIDATES:
        if (path / "clients" / "bhoos").is_dir():
            return path
    raise FileNotFoundError(
        "shared/ with clients/bhoos not found (looked in "
        + ", ".join(str(p) for p in _CANDIDATES)
        + ")"
    )


BHOOS_DIR = shared_dir() / "clients" / "bhoos"
