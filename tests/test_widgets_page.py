"""``widgets.page.on_voila_page``: a notebook's demo cells stay silent on the Voilà page."""

from __future__ import annotations

import pytest

from callbreak_lab.widgets import on_voila_page
from callbreak_lab.widgets.page import VOILA_ENV


def test_voila_page_is_told_by_the_kernel_environment() -> None:
    assert not on_voila_page({"JPY_PARENT_PID": "1", "PATH": "/usr/bin"})  # Jupyter
    for name in VOILA_ENV:
        assert on_voila_page({name: "/"})
    # what voila.handler puts in a kernel started for a request
    assert on_voila_page({"SCRIPT_NAME": "/", "VOILA_BASE_URL": "/", "VOILA_PREHEAT": "False"})


def test_voila_page_reads_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in VOILA_ENV:
        monkeypatch.delenv(name, raising=False)
    assert not on_voila_page()
    monkeypatch.setenv("VOILA_SERVER_URL", "/")
    assert on_voila_page()
