"""The hint at the table of notebook 07 in a real browser (Voilà, headless Chromium): a click on
the hint shows an answer at once (the learned card or the first values), which deepens on the
kernel's side and says when it is final, with how many layouts it covers."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from test_browser import CDP, CHROMIUM
from test_browser_play import _shot, _voila, browser

__all__ = ["browser"]  # the fixture, imported to be used here

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: run make browser-deps"),
]

STATUS = "(document.querySelector('.cb-play-status')?.innerText || '')"
HINT = "document.querySelector('.cb-hint-table')?.innerText"
FINAL = "document.querySelector('.cb-hint-table .cb-advice-status[data-final=\"true\"]')?.innerText"


@pytest.fixture(scope="module")
def table_url() -> Iterator[str]:
    """Notebook 07 (play against the bots) served by Voilà."""
    with _voila("notebooks/07_play_against_the_bots.ipynb") as url:
        yield url


def test_the_hint_answers_at_once_and_deepens_to_final(table_url: str, browser: CDP) -> None:
    browser.call(
        "Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1,
        mobile=False,
    )  # fmt: skip
    browser.call("Page.enable")
    browser.call("Page.navigate", url=table_url)
    browser.wait(f"{STATUS}.startsWith('Calling: your call')", seconds=240)
    browser.type_into(".cb-play-call input", "3")
    browser.click("button.cb-play-call-button")
    browser.wait(f"{STATUS}.startsWith('Trick ')", seconds=120)
    browser.wait("document.querySelector('button.cb-hint')?.disabled === false", seconds=60)
    browser.click("button.cb-hint")
    first = browser.wait(HINT, seconds=60)
    assert first.startswith("Hint:"), first
    final = browser.wait(FINAL, seconds=240)
    # every layout, or those solved in the hint's time (none: the learned card stays)
    m = re.fullmatch(r"(learned card · )?(\d+) of (\d+) distinct layouts · final( \(.*\))?", final)
    assert m is not None and (m.group(2) == m.group(3)) == (m.group(4) is None), final
    text = browser.js(HINT)
    if m.group(1):
        assert "learned play policy's card" in text, text
    else:
        assert "expected" in text and "cost" in text, text
    _shot(browser, ".cb-hint-text", "browser_hint_final.png")  # the hint and its status
