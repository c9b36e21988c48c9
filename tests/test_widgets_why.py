"""Why this call in the widgets: the call advisor (page 01) and the calling trainer (page 04)
show the hand shaded by each card's chance after a click, driven like a person would."""

from __future__ import annotations

import re

from test_widgets import random_play_forecast
from test_widgets_play import random_play_tricks

from callbreak_lab.bidding.explain import explain_call
from callbreak_lab.widgets.controllers import CallAdvisor
from callbreak_lab.widgets.play_controllers import CallingTrainer

HAND = "AKQ2.T98.765.432"
MATCH_HAND = "KQJ5.A98.AQ5.K32"


def _chances(html: str) -> dict[str, float]:
    return {c: float(p) for c, p in re.findall(r'data-card="(\w+)" data-chance="([\d.]+)"', html)}


def test_call_advisor_shows_why_this_call_after_a_click() -> None:
    from callbreak_lab.widgets import views

    c = CallAdvisor()
    v = views.CallAdvisorView(c)
    assert v.why.value == ""
    v.picker.text.value = HAND
    v.seat.value = 1
    v.preset.value = "online"
    v.advise.click()
    assert c.forecast is not None and c.why is not None
    html = v.why.value
    assert f'data-run="{c.runs}"' in html and f'data-call="{c.forecast.call}"' in html
    want = explain_call(HAND, 1, "online")
    got = _chances(html)
    assert len(got) == 13
    for card in want.cards:
        assert abs(got[str(card.card)] - card.chance) < 1e-4
    assert "cb-chances-svg" in html and "count_with_support" in html
    # the calls before reach the explanation; a changed preset clears it
    v.earlier.value = "3,4"
    v.advise.click()
    assert c.why is not None and c.why.earlier_calls == (3, 4) and c.seat == 2
    v.preset.value = "strict"
    assert v.why.value == ""


def test_call_advisor_explains_the_match_call() -> None:
    from callbreak_lab.widgets import views

    c = CallAdvisor()
    v = views.CallAdvisorView(c)
    v.picker.text.value = MATCH_HAND
    v.preset.value = "online"
    v.seat.value = 3
    v.totals.value = "0, 0, 3, 0"
    v.deal_of_match.value = 5
    v.advise.click()
    assert c.match is not None and c.why is not None
    assert c.why.call == c.match.call
    assert f'data-call="{c.match.call}"' in v.why.value


def test_calling_trainer_shows_why_after_each_hand() -> None:
    from callbreak_lab.widgets.play_views import CallingTrainerView

    t = CallingTrainer(seed=3, forecaster=random_play_forecast, tricks_of=random_play_tricks)
    v = CallingTrainerView(t)
    assert v.why.value == ""
    v.call.value = 3
    v.submit.click()
    r = t.current
    assert r is not None and r.forecast is not None and r.why is not None
    assert f'data-call="{r.forecast.call}"' in v.why.value
    assert f"gave the hand {r.tricks} tricks" in v.why.value
    assert len(_chances(v.why.value)) == 13
    assert r.why.hand == r.hand and r.why.seat == r.seat
    v.next.click()  # a new hand: no explanation until it is called
    assert v.why.value == ""
    v.call.value = 2
    v.submit.click()
    assert t.current is not None and t.current.why is not None and v.why.value
