"""The standalone page in a real browser: `make app` (Voilà) driven by headless Chromium.

Chromium is driven over the Chrome DevTools Protocol with ``websocket-client``, which is already
installed as a dependency of jupyter_server: no selenium, no chromedriver version matching and no
browser download. The test clicks 13 card buttons, presses "Suggest a call", checks that the call
and the charts appear, saves a screenshot under ``test-artifacts/`` and measures, with the kernel
warm, the time from the click to the suggested call appearing in the page (in-page
``performance.now()`` around a MutationObserver).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

websocket = pytest.importorskip("websocket")

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
HAND = ["AS", "KS", "TS", "5S", "4S", "KH", "3H", "2H", "QD", "4D", "9C", "3C", "2C"]
WARM_RUNS = 7
TARGET_MS = 300

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: run make browser-deps"),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a process group this test started."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _wait_http(url: str, proc: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            pytest.fail(f"process exited early:\n{out[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"{url} did not answer in {seconds} s")


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    """`make app` on a free port."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            "make",
            "--no-print-directory",
            "app",
            f"APP_PORT={port}",
            "APP_ARGS=--Voila.port_retries=0",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"},
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_http(url, proc, 120)
        yield url
    finally:
        _stop(proc)


class CDP:
    """A minimal Chrome DevTools Protocol client over one page's websocket."""

    def __init__(self, ws_url: str) -> None:
        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def js(self, expression: str, await_promise: bool = False) -> Any:
        res = self.call(
            "Runtime.evaluate",
            expression=expression,
            returnByValue=True,
            awaitPromise=await_promise,
        )
        if "exceptionDetails" in res:
            raise RuntimeError(f"JS error: {res['exceptionDetails']}")
        return res["result"].get("value")

    def wait(self, expression: str, seconds: float = 60) -> Any:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for: {expression}")

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) at the centre of the element."""
        rect = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            "return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        x, y = rect
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def close(self) -> None:
        self.ws.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[CDP]:
    """Headless Chromium with a fresh profile, connected over CDP."""
    profile = tempfile.mkdtemp(prefix="cb-chromium-")
    proc = subprocess.Popen(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            "--window-size=1280,1700",
            "about:blank",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        port_file = Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
            pages = [t for t in json.load(r) if t["type"] == "page"]
        cdp = CDP(pages[0]["webSocketDebuggerUrl"])
        try:
            yield cdp
        finally:
            cdp.close()
    finally:
        _stop(proc)


MEASURE = """
new Promise((resolve) => {
  const run = %d;
  const find = () => document.querySelector('.cb-call .cb-call-value[data-run="' + run + '"]');
  const t0 = performance.now();
  const done = () => resolve({ms: performance.now() - t0, text: find().innerText});
  const obs = new MutationObserver(() => { if (find()) { obs.disconnect(); done(); } });
  obs.observe(document.body, {subtree: true, childList: true, characterData: true});
  document.querySelector('button.cb-advise').click();
})
"""


def test_app_suggests_a_call_in_the_browser(app_url: str, browser: CDP) -> None:
    browser.call("Page.enable")
    browser.call("Page.navigate", url=app_url)
    browser.wait("document.querySelectorAll('button.cb-card').length === 52", seconds=120)
    for card in HAND:
        browser.click(f"button.cb-card-{card}")
        browser.wait(
            f"document.querySelector('button.cb-card-{card}').classList.contains('cb-held')"
        )
    status = browser.wait(
        "(() => { const s = document.querySelector('.cb-hand-status').innerText;"
        " return s.includes('13 of 13') && s; })()"
    )
    assert "13 of 13" in status
    text = browser.js("document.querySelector('.cb-hand-text input').value")
    assert text == "AKT54.K32.Q4.932"

    # First press with a real mouse click: the kernel warms up (model load, first charts).
    browser.click("button.cb-advise")
    call_text = browser.wait("document.querySelector('.cb-call').innerText.trim()", seconds=120)
    if "not available" in call_text and not call_text.startswith("Call "):
        pytest.skip(f"no forecast source yet (model and solver pending): {call_text}")
    assert call_text.startswith("Call "), call_text
    browser.wait(
        "(() => { const i = document.querySelector('img.cb-chart-dist'); "
        "return i && i.complete && i.naturalWidth > 100; })()"
    )
    assert browser.js("document.querySelector('img.cb-chart-expected').naturalWidth") > 100
    assert "scores best on average" in browser.js("document.querySelector('.cb-explain').innerText")

    # Warm runs: in-page time from the click to the call with the new run number.
    first_run = int(browser.js("document.querySelector('.cb-call-value').dataset.run"))
    times = []
    for k in range(1, WARM_RUNS + 1):
        res = browser.js(MEASURE % (first_run + k), await_promise=True)
        assert res["text"].startswith("Call ")
        times.append(res["ms"])
        # let the kernel finish this run's charts before the next click
        browser.wait(f"!!document.querySelector('.cb-charts-run [data-run=\"{first_run + k}\"]')")
    source = call_text.split("(", 1)[1].split(",", 1)[0]

    ARTIFACTS.mkdir(exist_ok=True)
    browser.wait(
        "(() => { const i = document.querySelector('img.cb-chart-dist'); "
        "return i && i.complete && i.naturalWidth > 100; })()"
    )
    shot = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    (ARTIFACTS / "browser_call_advisor.png").write_bytes(base64.b64decode(shot["data"]))
    result = {
        "hand": " ".join(HAND),
        "call": call_text,
        "source": source,
        "warm_click_to_call_ms": [round(t, 1) for t in times],
        "median_ms": round(statistics.median(times), 1),
        "max_ms": round(max(times), 1),
    }
    (ARTIFACTS / "browser_latency.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result))
    if source.startswith("bid model"):
        assert statistics.median(times) < TARGET_MS, result

    # The calls of the seats before: typed into their box, they move the seat, and the next
    # call is made for that seat (the source says whether the model used them).
    browser.click(".cb-earlier input")
    browser.call("Input.insertText", text="3, 4")
    for kind in ("keyDown", "keyUp"):
        browser.call(
            "Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter",
            windowsVirtualKeyCode=13, nativeVirtualKeyCode=13,
        )  # fmt: skip
    browser.js("document.querySelector('.cb-earlier input').blur()")  # a change event too
    typed = browser.js("document.querySelector('.cb-earlier input').value")
    assert typed.replace(" ", "") == "3,4", typed
    seat = browser.wait(
        "(() => { const v = document.querySelector('.cb-seat select').value;"
        " return v.startsWith('seat 2') && v; })()"
    )
    assert seat.startswith("seat 2")
    assert browser.js("document.querySelector('.cb-earlier input').value") == "3,4"
    runs = int(browser.js("document.querySelector('.cb-call-value')?.dataset.run || 0"))
    browser.click("button.cb-advise")
    after = browser.wait(
        "(() => { const e = document.querySelector('.cb-call .cb-call-value');"
        f" return e && Number(e.dataset.run) > {runs} && e.innerText; }})()",
        seconds=60,
    )
    assert "seat 2" in after and "3, 4" in after, after
