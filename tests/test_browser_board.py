"""The player's pages on `make app` (Voilà): only what the player uses, and the analysis board
(notebook 09) driven by headless Chromium (the CDP client and helpers of ``test_browser``).

The first test reads each player's page as Voilà renders it: every output is a widget (no printed
demo, no example table) and the "hide-in-app" cells are left out. The second pastes a deal and a
record on the board, steps back with clicks, opens the board's "link to this position" in a fresh
page and sees the same step, reviews the play, clicks a mistake and replays it with the review's
best card, then opens the record replayed after the deal with its expected-score chart.
Screenshots go to ``test-artifacts/board_*.png``.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Iterator

import pytest
from test_browser import (
    CDP,
    CHROMIUM,
    REPO,
    _free_port,
    _stop,
    _wait_http,
    browser,
    spawn,
)

from callbreak_lab import Deal, Position, Ruleset, play_out, random_player

__all__ = ["browser"]  # the fixture, imported to be used here

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: run make browser-deps"),
]

BOARD = "voila/render/09_analysis_board.ipynb"
#: the player's pages (`make app` serves these and no other notebook)
PAGES = (
    "01_evaluate_a_hand",
    "02_play_lines",
    "04_calling_trainer",
    "07_play_against_the_bots",
    "09_analysis_board",
)
DEAL = Deal.seeded(3, 0)
RECORD = play_out(Position(DEAL, Ruleset.preset("online")), random_player(1)).record()


@pytest.fixture(scope="module")
def app_root() -> Iterator[str]:
    """`make app` on a free port: the root lists the player's pages."""
    port = _free_port()
    proc = spawn(
        ["make", "--no-print-directory", "app", f"APP_PORT={port}",
         "APP_ARGS=--Voila.port_retries=0"],
        cwd=REPO,
        env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"},
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_http(url, proc, 120)
        yield url
    finally:
        _stop(proc)


def _outputs(html: str) -> list[dict[str, object]]:
    """The cell outputs of a page Voilà rendered (each is a JSON script in the page)."""
    blobs = re.findall(
        r'<script type="application/vnd.voila.cell-output\+json">\s*(.*?)\s*</script>', html, re.S
    )
    return [json.loads(b) for b in blobs]


@pytest.mark.parametrize("page", PAGES)
def test_the_players_pages_show_no_demo_output(app_root: str, page: str) -> None:
    with urllib.request.urlopen(f"{app_root}voila/render/{page}.ipynb", timeout=300) as r:
        html = r.read().decode()
    outputs = _outputs(html)
    assert outputs, "no output at all: the page did not run"
    for out in outputs:
        data = out.get("data")
        assert out["output_type"] in ("execute_result", "display_data"), out
        assert isinstance(data, dict) and "application/vnd.jupyter.widget-view+json" in data, out
    assert "The same in code" not in html and "in code</h2>" not in html
    # the root lists the page
    with urllib.request.urlopen(app_root, timeout=30) as r:
        assert f"voila/render/{page}.ipynb" in r.read().decode()


def _step_shown(cdp: CDP, step: int, seconds: float = 120) -> str:
    return str(
        cdp.wait(
            f"(() => {{ const e = document.querySelector('.cb-board-at[data-step=\"{step}\"]');"
            " return e && e.innerText; })()",
            seconds=seconds,
        )
    )


def _set_text(cdp: CDP, selector: str, text: str) -> None:
    """Replace a box's text as typed (a textarea's Enter adds a line break, which is fine)."""
    cdp.type_into(selector, text)
    got = cdp.js(f"document.querySelector({json.dumps(selector)}).value")
    assert got.strip() == text.strip(), (selector, got)


def test_a_pasted_deal_a_link_and_a_mistake_replayed(app_root: str, browser: CDP) -> None:
    browser.call("Page.enable")
    browser.call("Page.navigate", url=app_root + BOARD)
    browser.wait("!!document.querySelector('.cb-board-deal textarea')", seconds=180)
    # paste the deal in symbols ('/' between hands) and the record, then open
    _set_text(browser, ".cb-board-deal textarea", DEAL.symbols())
    _set_text(browser, ".cb-board-record textarea", RECORD)
    _set_text(browser, ".cb-board-calls input", "3,4,2,3")
    browser.click("button.cb-board-open")
    assert "deal over" in _step_shown(browser, 52)
    # step back eight cards with clicks
    for step in range(51, 43, -1):
        browser.click("button.cb-board-prev")
        _step_shown(browser, step)
    text = _step_shown(browser, 44)
    assert "card 45 of 52" in text and "seat 2 to play" in text, text
    browser.wait("document.querySelectorAll('button.cb-board-card').length >= 2")
    browser.screenshot("board_pasted_step44.png")
    link = browser.js("document.querySelector('.cb-board-link-text').value")
    assert link.startswith(app_root + BOARD + "?deal=") and link.endswith("&step=44"), link

    # the link in a fresh page: the same deal, record and step
    browser.call("Page.navigate", url="about:blank")
    browser.wait("location.href === 'about:blank' && document.readyState === 'complete'")
    browser.call("Page.navigate", url=link)
    again = _step_shown(browser, 44, seconds=180)
    assert again == text
    deal_box = browser.js("document.querySelector('.cb-board-deal textarea').value")
    assert Deal.parse(deal_box) == DEAL
    assert browser.js("document.querySelector('.cb-board-calls input').value") == "3,4,2,3"
    browser.screenshot("board_link_opened.png")

    # review the last three tricks, click the costliest mistake, replay it with the best card
    browser.type_into(".cb-board-review-from input", "11")
    browser.click("button.cb-board-review")
    browser.wait(
        "document.querySelectorAll('button.cb-board-mistake').length > 0"
        " || !!document.querySelector('.cb-board-no-mistakes')",
        seconds=600,
    )
    classes = browser.js(
        "[...document.querySelector('button.cb-board-mistake').classList].join(' ')"
    )
    index = int(re.search(r"cb-board-mistake-(\d+)", classes).group(1))  # type: ignore[union-attr]
    best = re.search(r"cb-board-best-(\w\w)", classes).group(1)  # type: ignore[union-attr]
    assert index >= 40
    browser.screenshot("board_review_mistakes.png")
    browser.click("button.cb-board-mistake")
    _step_shown(browser, index)
    browser.wait("!!document.querySelector('.cb-board-trying')")
    browser.click(f"button.cb-board-card-{best}")
    note = browser.wait(
        "(() => { const e = document.querySelector('.cb-board-note-text');"
        " return e && e.innerText; })()"
    )
    assert "is the best card at the table" in note, note
    assert "on a branch from card" in _step_shown(browser, index + 1)
    browser.screenshot("board_mistake_replayed.png")

    # after the deal: the record replayed with the four hands and seat 0's expected score
    browser.click("button.cb-board-after-open")
    browser.wait("!!document.querySelector('.cb-board-after .cb-after-deal .cb-after-table svg')")
    browser.wait(
        "(() => { const i = document.querySelector('.cb-board-after img.cb-deal-chart');"
        " return i && i.complete && i.naturalWidth > 100; })()",
        seconds=120,
    )
    browser.js("document.querySelector('.cb-board-after img.cb-deal-chart').scrollIntoView()")
    browser.screenshot("board_after_the_deal.png")
