"""Why this call on the standalone page (`make app`, page 01) in headless Chromium: after
"Suggest a call" the hand appears shaded by each card's chance under the call, with the suits'
tricks and where the counting rule is wrong; a screenshot is saved under ``test-artifacts/``."""

from __future__ import annotations

import json

import pytest
from test_browser import CDP, CHROMIUM, _choose, app_url, browser

from callbreak_lab.bidding.explain import explain_call

__all__ = ["app_url", "browser"]  # the fixtures, imported to be used here

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: run make browser-deps"),
]

HAND = "Q9.KQ2.K85.AQ862"


def test_the_page_shows_why_this_call(app_url: str, browser: CDP) -> None:
    browser.call("Page.enable")
    browser.call("Page.navigate", url=app_url)
    browser.wait("document.querySelectorAll('button.cb-card').length === 52", seconds=120)
    browser.type_into(".cb-hand-text input", HAND)
    browser.wait("document.querySelector('.cb-hand-status').innerText.includes('13 of 13')")
    _choose(browser, ".cb-preset select", "online")
    browser.click("button.cb-advise")
    call = browser.wait("document.querySelector('.cb-call').innerText.trim()", seconds=120)
    if not call.startswith("Call "):
        pytest.skip(f"no forecast source: {call}")
    browser.wait("document.querySelectorAll('.cb-why-call g.chance').length === 13", seconds=60)
    shown = browser.js(
        "[...document.querySelectorAll('.cb-why-call g.chance')]"
        ".map((g) => [g.dataset.card, parseFloat(g.dataset.chance)])"
    )
    want = explain_call(HAND, 0, "online")
    assert {c: round(p, 4) for c, p in shown} == {
        str(c.card): round(c.chance, 4) for c in want.cards
    }
    text = browser.js("document.querySelector('.cb-why-call').innerText")
    assert "count_with_support" in text and "♠" in text
    for d in want.disagreements:
        assert d in text
    # the shaded hand fits the page: no horizontal scroll bar for it
    width = browser.js(
        "document.querySelector('.cb-why-call svg.cb-chances-svg').getBoundingClientRect().width"
    )
    assert 300 < width <= browser.js("document.documentElement.clientWidth")
    browser.js("document.querySelector('.cb-why-call').scrollIntoView({block: 'center'})")
    path = browser.screenshot("browser_why_call.png")
    assert path.stat().st_size > 10_000
    json.dumps(shown)
