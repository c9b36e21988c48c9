"""Interactive views for Jupyter and Voilà: thin ipywidgets views over pure controllers.

``controllers`` (and ``backend``, ``charts``) import no ipywidgets, so they are importable and
testable without a notebook; the views live in ``views`` and are loaded lazily from here, e.g.
``from callbreak_lab.widgets import call_advisor``. ``on_voila_page()`` (``page``) tells a
notebook's demo cells to stay silent on the player's Voilà page.
"""

from __future__ import annotations

import importlib
from typing import Any

_VIEWS = {
    "CallAdvisorView": "views",
    "DealExplorerView": "views",
    "HandPickerView": "views",
    "call_advisor": "views",
    "deal_explorer": "views",
    "hand_picker": "views",
    "CallingTrainerView": "play_views",
    "PlayLineView": "play_views",
    "calling_trainer": "play_views",
    "play_line_viewer": "play_views",
    "board_viewer": "play_views",
    "PlayTableView": "table_view",
    "play_against_bots": "table_view",
    "on_voila_page": "page",
    "AnalysisBoardView": "board_view",
    "analysis_board": "board_view",
}

__all__ = sorted(_VIEWS)


def __getattr__(name: str) -> Any:
    if name in _VIEWS:
        module = importlib.import_module(f"callbreak_lab.widgets.{_VIEWS[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'callbreak_lab.widgets' has no attribute {name!r}")
