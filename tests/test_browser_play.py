"""The play-line viewer of notebook 02 in a real browser: the notebook served by Voilà, driven by
headless Chromium at 1280x800 (the CDP client and browser fixture of ``test_browser``).

The test checks that the viewer draws a card table (the studied seat at the bottom, every legal
card raised with the same value as its button), that the buttons' labels are whole and the
line's card button is readable (WCAG contrast), branches with another card, and saves
screenshots of the table under ``test-artifacts/`` for a person to look at.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_browser import (
    ARTIFACTS,
    CDP,
    CHROMIUM,
    REPO,
    _free_port,
    _stop,
    _wait_http,
    browser,
    spawn,
)

__all__ = ["browser"]  # the fixture, imported to be used here

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: run make browser-deps"),
]

NOTEBOOK = "notebooks/02_play_lines.ipynb"
WIDTH, HEIGHT = 1280, 800


def _warm_solver() -> None:
    """Solve a decision and play a bot's card here first, so the notebook's kernel loads the
    solver's compiled kernels from numba's cache instead of compiling them while the test's
    clicks wait (on a fresh machine the other test workers compile at the same time)."""
    from callbreak_lab.analysis.advice import single_dummy_values
    from callbreak_lab.arena.players import make_player
    from callbreak_lab.arena.referee import seat_view
    from callbreak_lab.cards import Deal
    from callbreak_lab.game import Position

    pos = Position(Deal.random(0), "online")
    single_dummy_values(pos, pos.to_move, [3, 3, 3, 3], layouts=2)
    bot = make_player("strong")
    bot.prepare(pos.rules)
    bot.play(seat_view(pos, pos.to_move, [3, 3, 3, 3]))


@contextlib.contextmanager
def _voila(notebook: str) -> Iterator[str]:
    """``notebook`` served by Voilà on a free port (its URL), stopped afterwards."""
    _warm_solver()
    port = _free_port()
    voila = Path(sys.executable).parent / "voila"
    proc = spawn(
        [str(voila), notebook, "--no-browser", "--Voila.ip=127.0.0.1", f"--port={port}",
         "--Voila.port_retries=0"],
        cwd=REPO,
        env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"},
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_http(url, proc, 120)
        yield url
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def viewer_url() -> Iterator[str]:
    """Notebook 02 served by Voilà."""
    with _voila(NOTEBOOK) as url:
        yield url


def _screenshot(cdp: CDP, name: str) -> Path:
    """The 1280x800 viewport with the viewer at its top, saved under test-artifacts/."""
    cdp.js("document.querySelector('.cb-play-line').scrollIntoView({block: 'start'})")
    shot = cdp.call("Page.captureScreenshot", format="png")
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


# The table's raised cards with their value badges, and the legal-card buttons with theirs.
BADGES = """[...document.querySelectorAll('.cb-table-layout svg g.card')]
  .filter(g => g.querySelector('g.value'))
  .map(g => [g.dataset.card, g.querySelector('g.value').dataset.value]).sort()"""
BUTTONS = """[...document.querySelectorAll('button.cb-legal')].map(b => {
  const card = [...b.classList].find(c => /^cb-legal-..$/.test(c)).slice(9);
  return [card, b.innerText.split('→')[1].trim()]; }).sort()"""
# WCAG contrast ratio of an element's text colour against its background colour.
CONTRAST = """(() => {
  const e = document.querySelector(%s);
  const s = getComputedStyle(e);
  const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(v => {
      v = v / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const a = lum(s.color), b = lum(s.backgroundColor);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); })()"""
READOUT = "document.querySelector('.cb-step .widget-readout')?.innerText"
CUT_OFF = """[...document.querySelectorAll('.cb-play-line button')]
  .filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.innerText)"""


def test_play_line_viewer_draws_a_card_table(viewer_url: str, browser: CDP) -> None:
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False,
    )  # fmt: skip
    browser.call("Page.enable")
    browser.call("Page.navigate", url=viewer_url)
    browser.wait("!!document.querySelector('.cb-table-layout svg.cb-table-svg')", seconds=240)
    browser.wait("document.querySelectorAll('button.cb-legal').length > 0", seconds=60)
    assert browser.js("[window.innerWidth, window.innerHeight]") == [WIDTH, HEIGHT]
    # the bid model's calls come after the first drawing (on the kernel's thread): the panel's
    # call column then shows them
    assert "being worked out" not in browser.wait(
        "(() => { const c = [...document.querySelectorAll("
        "'.cb-table-layout g.cell[data-col=\"call\"]')].map(g => g.textContent);"
        " return c.length === 4 && c.every(x => /^\\d+$/.test(x))"
        " && document.querySelector('.cb-table-layout svg').textContent; })()",
        seconds=120,
    )

    # four seats around the felt, the studied seat 0 at the bottom; the table fits the width
    sides = browser.js(
        "Object.fromEntries([...document.querySelectorAll('.cb-table-layout g.seat')]"
        ".map(g => [g.dataset.side, Number(g.dataset.seat)]))"
    )
    assert sides["s"] == 0 and sorted(sides) == ["e", "n", "s", "w"]
    box = browser.js(
        "(() => { const r = document.querySelector('.cb-table-layout svg').getBoundingClientRect();"
        " return [r.left, r.right, r.width]; })()"
    )
    assert box[0] >= 0 and box[1] <= WIDTH and box[2] > 900, box
    # every legal card is raised in the table with the value its button shows
    assert browser.js(BADGES) == browser.js(BUTTONS) != []
    # no button label is cut off; the line's card button reads well
    assert browser.js(CUT_OFF) == []
    assert browser.js(CONTRAST % "'button.cb-played'") >= 4.5
    assert browser.js("document.querySelector('button.cb-main-line').disabled")
    first = _screenshot(browser, "browser_play_table.png")
    assert first.stat().st_size > 20_000

    # step into the line until a decision with a choice, branch with another card
    for _ in range(40):
        if browser.js("document.querySelectorAll('button.cb-legal:not(.cb-played)').length"):
            break
        browser.click("button.cb-next")
        browser.wait("!!document.querySelector('.cb-table-layout svg')")
    else:
        pytest.fail("no decision with a choice on the line")
    browser.click("button.cb-legal:not(.cb-played)")
    note = browser.wait("document.querySelector('.cb-branch-cost')?.innerText", seconds=60)
    assert note.startswith("this branch"), note
    assert not browser.js("document.querySelector('button.cb-main-line').disabled")
    assert browser.js(BADGES) == browser.js(BUTTONS)
    assert browser.js(CUT_OFF) == []
    _screenshot(browser, "browser_play_branch.png")
    browser.click("button.cb-main-line")
    browser.wait("document.querySelector('button.cb-main-line').disabled")

    # the single-dummy judgement: a click on the toggle, the legal cards' expected scores
    browser.js("[...document.querySelectorAll('.cb-judgement button')][1].click()")
    browser.wait("document.querySelector('.cb-single-note')?.innerText.trim()", seconds=120)
    # on to a decision of seat 0 with a choice (forward, else back), where both judgements show
    # (the note carries the step it belongs to: wait for this step's note, not the last one's)
    this_step = f"document.querySelector('.cb-note-step')?.dataset.step === {READOUT}"
    for button in ("button.cb-next", "button.cb-prev"):
        for _ in range(52):
            if browser.js("!!document.querySelector('.cb-single-text')"):
                break
            if browser.js(f"document.querySelector('{button}').disabled"):
                break  # the end (or the start) of the line
            before = browser.js(READOUT)
            browser.click(button)
            browser.wait(f"{READOUT} !== {before!r} && {this_step}", seconds=120)
    note = browser.wait("document.querySelector('.cb-single-text')?.innerText", seconds=120)
    assert "at the table" in note.lower(), note
    stars = "[...document.querySelectorAll('button.cb-legal')].some(b => b.innerText.includes('★'))"
    assert browser.js(stars)
    # the judgement deepens on the kernel's side: it says how many layouts, then that it is final
    status = "document.querySelector('.cb-advice-status[data-final=\"true\"]')?.innerText"
    final = browser.wait(status, seconds=120)
    assert re.fullmatch(r"(\d+) of \1 distinct layouts · final", final), final
    assert browser.js(stars) and browser.js(CUT_OFF) == []
    _screenshot(browser, "browser_play_single.png")


def test_play_line_viewer_shows_where_the_hidden_cards_are(viewer_url: str, browser: CDP) -> None:
    """A click on the box draws the studied seat's card reading: the grid of seats by cards."""
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False,
    )  # fmt: skip
    browser.call("Page.enable")
    browser.call("Page.navigate", url=viewer_url)
    browser.wait("!!document.querySelector('.cb-table-layout svg.cb-table-svg')", seconds=240)
    browser.click(".cb-show-cards input[type=checkbox]")
    cells = browser.wait(
        "document.querySelectorAll('.cb-line-reading svg.cb-reading-svg g.cell').length",
        seconds=60,
    )
    assert cells > 0 and cells % 3 == 0  # each hidden card in each of the three other seats
    browser.js("document.querySelector('.cb-line-reading').scrollIntoView({block: 'start'})")
    shot = browser.call("Page.captureScreenshot", format="png")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "browser_play_cards.png").write_bytes(base64.b64decode(shot["data"]))


@pytest.fixture(scope="module")
def bots_url() -> Iterator[str]:
    """Notebook 07 (play a deal against the bots) served by Voilà."""
    with _voila("notebooks/07_play_against_the_bots.ipynb") as url:
        yield url


def _shot(cdp: CDP, selector: str, name: str) -> Path:
    cdp.js(f"document.querySelector('{selector}').scrollIntoView({{block: 'start'}})")
    shot = cdp.call("Page.captureScreenshot", format="png")
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


# --- the match against the bots (notebook 07) ----------------------------------------------------

TABLE = ".cb-play-table"
HAND = f"{TABLE} g.seat[data-side='s'] g.card"
# the person's cards in the picture: [card letters, playable (not dimmed)]
HAND_CARDS = f"""[...document.querySelectorAll("{HAND}")].map(g =>
  [g.dataset.card, !g.querySelector('rect[fill="#54605a"]')])"""
STATUS = "document.querySelector('.cb-play-status').innerText"


def _click_card(cdp: CDP, card: str) -> None:
    """A real mouse click on ``card`` in the pictured hand, on its top-left corner (the part a
    neighbour to its right never covers)."""
    x, y = cdp.js(
        f"""(() => {{ const g = document.querySelector("{HAND}[data-card='{card}']");
        g.scrollIntoView({{block: 'center'}}); const r = g.getBoundingClientRect();
        return [r.left + 9, r.top + 24]; }})()"""
    )
    for kind in ("mousePressed", "mouseReleased"):
        cdp.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


def _choose_option(cdp: CDP, selector: str, value: str) -> None:
    cdp.js(
        f"(() => {{ const s = document.querySelector('{selector}'); s.value = '{value}';"
        " s.dispatchEvent(new Event('change', {bubbles: true})); })()"
    )


def _play_deal(cdp: CDP, deal: int, shots: bool) -> bool:
    """From the calls to the deal's end: the call the advice suggests, then a playable card of
    the pictured hand clicked at each turn (once a forbidden card first, refused: whether one
    was)."""
    cdp.wait(f"{STATUS}.startsWith('Calling: your call')", seconds=120)
    heading = cdp.js("document.querySelector('.cb-match-heading').innerText")
    assert heading.startswith(f"Deal {deal} of 5"), heading
    svg = cdp.js(f"document.querySelector('{TABLE}').innerHTML")
    assert "to call" in svg and "to play" not in svg and "trick 1 of 13" not in svg
    # the page settled: the last deal's replay gone, the calls' row shown (a click lands where
    # the button is drawn)
    cdp.wait(
        "!document.querySelector('.cb-after-deal')"
        " && document.querySelector('button.cb-call-advice').offsetParent !== null",
        seconds=60,
    )
    cdp.click("button.cb-call-advice")
    advice = cdp.wait("document.querySelector('.cb-call-advice-text')?.innerText", seconds=60)
    assert advice.startswith("Suggested call: ") and "expected score" in advice, advice
    suggested = advice.split(":")[1].split()[0]
    if shots:
        _shot(cdp, ".cb-play-against-bots", "browser_match_calling.png")
    cdp.type_into(".cb-play-call input", suggested)
    cdp.click("button.cb-play-call-button")
    refused = False
    for turn in range(14):
        cdp.wait(f"{STATUS}.startsWith('Trick ') || {STATUS}.startsWith('Deal {deal} over')", 120)
        if cdp.js(STATUS).startswith(f"Deal {deal} over"):
            break
        cards = cdp.js(HAND_CARDS)
        assert len(cards) == 13 - turn, (turn, cards)
        if shots and turn == 1:  # the hint and where the hidden cards are, at this turn
            cdp.click("button.cb-hint")
            hint = cdp.wait("document.querySelector('.cb-hint-table')?.innerText", seconds=240)
            assert "Hint:" in hint, hint
            cdp.click("button.cb-cards")
            cells = cdp.wait(
                "document.querySelectorAll('.cb-cards-out svg.cb-reading-svg g.cell').length",
                seconds=60,
            )
            assert cells > 0 and cells % 3 == 0  # each hidden card in each of the other seats
            _shot(cdp, ".cb-play-against-bots", "browser_match_hint.png")
        forbidden = [c for c, ok in cards if not ok]
        if forbidden and not refused:  # a dimmed card: refused, the rule said
            _click_card(cdp, forbidden[0])
            cdp.wait(f"{STATUS}.includes('cannot be played')", seconds=60)
            assert len(cdp.js(HAND_CARDS)) == 13 - turn
            refused = True
        _click_card(cdp, next(c for c, ok in cards if ok))
        cdp.wait(f'document.querySelectorAll("{HAND}").length === {12 - turn}', seconds=120)
        if shots and turn == 6:
            _shot(cdp, ".cb-play-against-bots", "browser_match_mid_deal.png")
    status = cdp.wait(f"{STATUS}.startsWith('Deal {deal} over') && {STATUS}", seconds=120)
    assert "you: called " + suggested in status, status
    # after the deal: the four hands face up, replayed trick by trick
    cdp.wait("!!document.querySelector('.cb-after-deal .cb-after-table svg')", seconds=60)
    assert cdp.js(f"document.querySelectorAll('{TABLE} g.backs').length") == 0
    assert cdp.js("document.querySelectorAll('.cb-after-table g.card').length") == 52
    cdp.click("button.cb-replay-next-trick")
    where = cdp.wait(
        "(t => t.startsWith('Card 4 of 52') && t)"
        "(document.querySelector('.cb-replay-where').innerText)",
        seconds=60,
    )
    assert "wins the trick" in where, where
    return refused


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_a_person_plays_a_match_against_three_bots(bots_url: str, browser: CDP) -> None:
    """Five deals against three bots by clicks in the pictured hand, to the match's result."""
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False,
    )  # fmt: skip
    browser.call("Page.enable")
    browser.call("Page.navigate", url=bots_url)
    browser.wait(f"!!document.querySelector('{TABLE} svg.cb-table-svg')", seconds=240)
    # the page shows only the table: the notebook's demo cells print nothing on it
    assert browser.js("document.querySelectorAll('.jp-RenderedText').length") == 0
    assert "Single-dummy review" not in browser.js("document.body.innerText")
    # the three bots' hands are face down; the person's 13 cards are in the picture
    assert browser.js(f"document.querySelectorAll('{TABLE} g.backs').length") == 3
    assert len(browser.js(HAND_CARDS)) == 13
    fresh = browser.js("document.querySelector('.cb-match-heading').innerText")
    assert "match seed " in fresh, fresh
    # choose the opponents and a seed, start the match
    _choose_option(browser, ".cb-opponents select", "simple")
    browser.type_into(".cb-seed input", "2024")
    browser.click("button.cb-new-match")
    browser.wait(
        "document.querySelector('.cb-match-heading').innerText.includes('match seed 2024')", 120
    )
    assert "three simple bots" in browser.js(f"document.querySelector('{TABLE}').innerText")
    dealers, refused = [], []
    for deal in range(1, 6):
        heading = browser.js("document.querySelector('.cb-match-heading').innerText")
        dealers.append(heading.split("dealer: ")[1].split(" · ")[0])
        refused.append(_play_deal(browser, deal, shots=deal == 1))
        standing = browser.js("document.querySelector('.cb-standing').innerText")
        assert f"Totals after {deal} deal(s)" in standing, standing
        if deal == 1:
            browser.click("button.cb-review")
            browser.wait(
                "getComputedStyle(document.querySelector('.cb-deal-chart')).display === 'block'",
                seconds=300,
            )
            review = browser.wait("document.querySelector('.cb-sd-review')?.innerText", 60)
            assert "Single-dummy review" in review
            _shot(browser, ".cb-after-deal", "browser_match_after_deal.png")
        if deal == 3:  # an earlier deal of the match replayed
            _choose_option(browser, ".cb-after-pick select", "deal 1")
            browser.wait(
                "document.querySelector('.cb-after-title').innerText.startsWith('Deal 1 of 5')", 60
            )
        if deal < 5:
            assert "Match over" not in standing
            browser.click("button.cb-next-deal")
            browser.wait(f"{STATUS}.startsWith('Calling')", seconds=120)
    assert any(refused)  # a click on a forbidden card was refused with the rule
    # the dealer moved one seat on each deal: four different players, then the first again
    assert len(set(dealers[:4])) == 4 and dealers[4] == dealers[0], dealers
    standing = browser.js("document.querySelector('.cb-standing').innerText")
    assert "Totals after 5 deal(s)" in standing and "Match over: " in standing, standing
    assert browser.js("document.querySelector('button.cb-next-deal').innerText") == "new match"
    _shot(browser, ".cb-standing", "browser_match_final.png")
