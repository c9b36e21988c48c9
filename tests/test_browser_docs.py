"""``/docs`` and ``/redoc`` of ``callbreak-lab serve`` in headless Chromium that has no network
but the loopback: each page draws the API's title and its operations from the package's own
assets, and every request it makes goes to the service (the CDP client of ``test_browser``).
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser import CDP, CHROMIUM, REPO, _free_port, _stop, _wait_http, chromium, spawn

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: run make browser-deps"),
]

TITLE = "callbreak_lab service"


class RecordingCDP(CDP):
    """The CDP client, keeping the URL of every request the page starts and of those the
    browser refused to send (the Network domain's ``requestWillBeSent`` and ``loadingFailed``
    events, which arrive between the answers to its calls)."""

    def __init__(self, ws_url: str) -> None:
        super().__init__(ws_url)
        self.requested: dict[str, str] = {}  # request id: URL
        self.refused: dict[str, str] = {}  # request id: why (CSP, ...)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            event, info = msg.get("method"), msg.get("params", {})
            if event == "Network.requestWillBeSent":
                self.requested[info["requestId"]] = info["request"]["url"]
            elif event == "Network.loadingFailed" and info.get("blockedReason"):
                self.refused[info["requestId"]] = info["blockedReason"]
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg["result"])


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    """``callbreak-lab serve`` with one solver worker on a free port of 127.0.0.1."""
    port = _free_port()
    cmd = [sys.executable, "-m", "callbreak_lab", "serve", "--host", "127.0.0.1"]
    proc = spawn([*cmd, "--port", str(port), "--workers", "1", "--no-access-log"], cwd=REPO)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_http(f"{url}/healthz", proc, 120)
        yield url
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def offline_browser() -> Iterator[RecordingCDP]:
    """Headless Chromium that reaches nothing but the loopback: every host name but 127.0.0.1
    resolves to nothing, and any other address goes to a proxy that is not there."""
    offline = (
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        "--proxy-server=http://127.0.0.1:9",  # the loopback itself bypasses a proxy
    )
    with chromium(*offline, window="1280,900", cdp_class=RecordingCDP) as cdp:
        assert isinstance(cdp, RecordingCDP)
        cdp.call("Page.enable")
        cdp.call("Network.enable")
        yield cdp


def _open(browser: RecordingCDP, url: str) -> None:
    browser.requested.clear()
    browser.refused.clear()
    browser.call("Page.navigate", url=url)


def _screenshot(browser: RecordingCDP, path: Path) -> None:
    shot = browser.call("Page.captureScreenshot", format="png")
    path.write_bytes(base64.b64decode(shot["data"]))


def _only_local(browser: RecordingCDP, origin: str) -> list[str]:
    """Every request the page sent went to the service (or stayed in the page): one for
    another site is refused by the page's content security policy before it leaves the
    browser. The URLs refused."""
    sent = browser.requested
    outside = {i: u for i, u in sent.items() if not u.startswith((f"{origin}/", "data:", "blob:"))}
    assert {i: browser.refused.get(i) for i in outside} == dict.fromkeys(outside, "csp"), outside
    assert f"{origin}/openapi.json" in sent.values()
    return sorted(outside.values())


def test_swagger_ui_renders_the_operations_offline(
    service_url: str, offline_browser: RecordingCDP, tmp_path: Path
) -> None:
    browser = offline_browser
    _open(browser, f"{service_url}/docs")
    path = "/v1/evaluate"
    operation = f'.opblock-summary-path[data-path="{path}"]'
    browser.wait(f"document.querySelector({json.dumps(operation)}) !== null", seconds=60)
    title = browser.js("document.querySelector('.info .title').innerText")
    assert TITLE in title
    paths = browser.js(
        "[...document.querySelectorAll('.opblock-summary-path')].map(e => e.dataset.path)"
    )
    assert {"/v1/evaluate", "/v1/solve", "/v1/advise", "/healthz", "/play"} <= set(paths)
    browser.click(operation)  # opens the operation: its request body and responses
    # the body is drawn after the block opens: wait for its request body and its responses
    browser.wait(
        "(() => { const b = document.querySelector('.opblock.is-open');"
        " return b !== null && b.innerText.includes('Request body')"
        " && b.innerText.includes('422'); })()",
        seconds=30,
    )
    body = browser.js("document.querySelector('.opblock.is-open').innerText")
    assert "Request body" in body and "422" in body
    _screenshot(browser, tmp_path / "docs.png")
    assert _only_local(browser, service_url) == []


def test_redoc_renders_the_operations_offline(
    service_url: str, offline_browser: RecordingCDP, tmp_path: Path
) -> None:
    browser = offline_browser
    _open(browser, f"{service_url}/redoc")
    browser.wait("document.querySelector('.api-content h1') !== null", seconds=60)
    assert TITLE in browser.js("document.querySelector('.api-content h1').innerText")
    text = browser.wait(
        "(() => { const t = document.querySelector('.api-content').innerText;"
        " return t.includes('/v1/evaluate') && t; })()",
        seconds=30,
    )
    assert "request body schema" in text.lower()  # the first operation drawn in full
    menu = browser.js(
        "[...document.querySelectorAll('.menu-content li[data-item-id*=\"operation/\"]')]"
        ".map(e => e.dataset.itemId)"
    )
    assert len(menu) >= 8 and any("evaluate" in m for m in menu), menu
    _screenshot(browser, tmp_path / "redoc.png")
    assert _only_local(browser, service_url) == ["https://cdn.redoc.ly/redoc/logo-mini.svg"]
