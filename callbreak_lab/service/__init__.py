"""The HTTP service: ``create_app(settings)`` builds the FastAPI app (see ``app.py``).

The pure library never imports this package; this package imports the library.
"""

from callbreak_lab.service.limits import Settings

__all__ = ["Settings", "create_app"]


def create_app(settings: Settings | None = None):  # type: ignore[no-untyped-def]
    """The FastAPI app (imported lazily so ``Settings`` is importable without FastAPI)."""
    from callbreak_lab.service.app import create_app as _create

    return _create(settings)
