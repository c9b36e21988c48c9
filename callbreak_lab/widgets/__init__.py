"""Interactive views for Jupyter and Voilà: thin ipywidgets views over pure controllers.

``controllers`` (and ``backend``, ``charts``) import no ipywidgets, so they are importable and
testable without a notebook; the views live in ``views`` and are loaded lazily from here, e.g.
``from callbreak_lab.widgets import call_advisor``.
"""

from __future__ import annotations

from typing import Any

_VIEWS = (
    "CallAdvisorView",
    "CallingTrainerView",
    "DealExplorerView",
    "HandPickerView",
    "PlayLineView",
    "call_advisor",
    "calling_trainer",
    "deal_explorer",
    "hand_picker",
    "play_line_viewer",
)

__all__ = list(_VIEWS)


def __getattr__(name: str) -> Any:
    if name in _VIEWS:
        from callbreak_lab.widgets import views

        return getattr(views, name)
    raise AttributeError(f"module 'callbreak_lab.widgets' has no attribute {name!r}")
