"""`make app` serves the player's pages only: the first page lists them, the prelaunch hook
refuses any other notebook before a kernel starts, and each listed page is a notebook whose
demo cells stay silent on the page."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

pytest.importorskip("voila")
from tornado.web import HTTPError
from traitlets.config import Config

REPO = Path(__file__).resolve().parents[1]
TREE = REPO / "app" / "voila" / "templates" / "callbreak" / "tree-lab.html"


def _config() -> tuple[Config, dict[str, object]]:
    c = Config()
    namespace: dict[str, object] = {"c": c}
    exec(compile((REPO / "app" / "voila.py").read_text(), "app/voila.py", "exec"), namespace)
    return c, namespace


class _Handler:
    """What the hook reads of Voilà's page handler: the request's path and the xsrf token."""

    def __init__(self, path: str) -> None:
        self.request = SimpleNamespace(path=path)
        self.token_read = False

    @property
    def xsrf_token(self) -> bytes:
        self.token_read = True
        return b"token"


def _request(path: str) -> _Handler:
    return _Handler(path)


def test_the_first_page_lists_exactly_the_pages_the_app_serves() -> None:
    _, ns = _config()
    pages = ns["PLAYER_PAGES"]
    listed = re.findall(r'href="\{\{ base_url \}\}voila/render/([\w.]+)"', TREE.read_text())
    assert sorted(listed) == sorted(pages)  # type: ignore[arg-type]
    assert {"01_evaluate_a_hand.ipynb", "07_play_against_the_bots.ipynb"} <= set(listed)
    assert "09_analysis_board.ipynb" in listed
    assert "http" not in re.sub(r"\{#.*?#\}", "", TREE.read_text(), flags=re.S)
    for name in listed:
        nb = nbformat.read(REPO / "notebooks" / name, as_version=4)
        assert any("from callbreak_lab.widgets import" in cell.source for cell in nb.cells)


def test_the_prelaunch_hook_refuses_a_notebook_that_is_not_a_page() -> None:
    c, _ = _config()
    hook = c.VoilaConfiguration.prelaunch_hook
    page = _request("/voila/render/09_analysis_board.ipynb")
    assert hook(page, notebook=None, cwd="") is None
    assert page.token_read  # the page gets its _xsrf cookie: leaving it shuts its kernel down
    with pytest.raises(HTTPError) as err:
        hook(_request("/voila/render/05_train_your_own_model.ipynb"), notebook=None, cwd="")
    assert err.value.status_code == 404 and "05_train_your_own_model" in str(err.value)


@pytest.mark.parametrize(
    "name",
    ["01_evaluate_a_hand", "02_play_lines", "04_calling_trainer", "09_analysis_board"],
)
def test_a_pages_demo_cells_are_silent_on_the_page(name: str) -> None:
    """A code cell tagged "hide-in-app" (a demo) runs its body only off the page."""
    nb = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
    demos = [
        cell
        for cell in nb.cells
        if cell.cell_type == "code" and "hide-in-app" in cell.metadata.get("tags", [])
    ]
    assert demos, name
    for cell in demos:
        lines = [ln for ln in cell.source.splitlines() if ln.strip()]
        guard = next(i for i, ln in enumerate(lines) if ln.startswith("if not on_voila_page():"))
        assert all(ln.startswith(("from ", "import ")) for ln in lines[:guard]), cell.source
        assert all(ln.startswith((" ", "#")) for ln in lines[guard + 1 :]), cell.source
