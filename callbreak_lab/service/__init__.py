"""The HTTP service: ``create_app(settings)`` builds the FastAPI app (see ``app.py``).

The pure library never imports this package; this package imports the library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from callbreak_lab.service.limits import Settings

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["Settings", "create_app"]


def create_app(settings: Settings | None = None) -> FastAPI:
    """The FastAPI app (imported lazily so ``Settings`` is importable without FastAPI)."""
    from callbreak_lab.service.app import create_app as _create

    return _create(settings)
