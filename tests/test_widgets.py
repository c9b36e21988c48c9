"""Widget controllers (pure) and views (ipywidgets driven by clicks and values in pytest)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from callbreak_lab import Card, Deal, Hand, RulesError, Ruleset
from callbreak_lab.bidding.calls import best_call
from callbreak_lab.game import Position, play_out, random_player
from callbreak_lab.widgets.backend import Forecast, SourceUnavailable, forecast_from_dist
from callbreak_lab.widgets.controllers import (
    CallAdvisor,
    DealExplorer,
    HandPicker,
    explain,
    floor_range,
    format_expected,
)

HAND = "AKQ2.T98.765.432"


def random_play_forecast(hand: Hand, seat: int, rules: Ruleset, layouts: int = 24, seed: int = 0,
                         progress=None) -> Forecast:  # fmt: skip
    """A real (if weak) forecast for tests: tricks of ``seat`` when all four play at random,
    over ``layouts`` random layouts of the other 39 cards."""
    n = layouts
    counts = np.zeros(14)
    rng = np.random.default_rng(seed)
    for i in range(n):
        deal = Deal.random_with({seat: hand}, seed=rng)
        end = play_out(Position(deal, rules), random_player(rng))
        counts[end.tricks_won[seat]] += 1
        if progress is not None:
            progress(i + 1, n)
    return forecast_from_dist(counts / n, rules, f"random play ({n} layouts)", layouts=n)


# --- hand picker controller ----------------------------------------------------------------------


def test_picker_counts_toggles_and_refuses_a_14th_card() -> None:
    p = HandPicker()
    for card in Hand.parse(HAND):
        assert p.toggle(card)
    assert p.count == 13 and p.complete and p.text == HAND
    assert not p.toggle("AH")
    assert "13 cards" in p.message and "A♥" in p.message
    assert p.count == 13 and "AH" not in p.hand
    assert p.toggle("AS")  # removing is always allowed and clears the message
    assert p.count == 12 and p.message == "" and p.text == "KQ2.T98.765.432"
    assert p.status == "12 of 13 cards"


@pytest.mark.parametrize(
    "text",
    [
        HAND,
        "♠AKQ2 ♥T98 ♦765 ♣432",
        "S:AKQ2 H:T98 D:765 C:432",
        "AS KS QS 2S TH 9H 8H 7D 6D 5D 4C 3C 2C",
    ],
)
def test_picker_text_accepts_every_notation_and_canonicalises(text: str) -> None:
    p = HandPicker()
    assert p.set_text(text)
    assert p.hand == Hand.parse(HAND) and p.text == HAND and p.message == ""


def test_picker_bad_text_keeps_hand_and_explains() -> None:
    p = HandPicker(HAND)
    assert not p.set_text("AKQ2.T98.765.43X")
    assert p.hand == Hand.parse(HAND)
    assert "unknown rank 'X'" in p.message and p.text == "AKQ2.T98.765.43X"
    assert not p.set_text("AKQ2.T98.765.422")
    assert "given twice" in p.message
    assert not p.set_text("AKQ2.AT98.765.432")
    assert "14 cards" in p.message
    assert p.set_text("")
    assert p.count == 0


def test_picker_random_fill_is_seeded_and_keeps_picked_cards() -> None:
    a, b = HandPicker("AS KS"), HandPicker("AS KS")
    a.random_fill(seed=3)
    b.random_fill(seed=3)
    assert a.complete and a.hand == b.hand and "AS" in a.hand and "KS" in a.hand


def test_picker_notifies_listeners() -> None:
    p = HandPicker()
    seen: list[int] = []
    p.observe(lambda: seen.append(p.count))
    p.toggle("AS")
    p.set_text("AS KS")
    assert seen == [1, 2]


# --- call advisor controller ---------------------------------------------------------------------


def test_advisor_needs_a_full_hand() -> None:
    adv = CallAdvisor(HandPicker("AS KS"), forecaster=random_play_forecast)
    assert adv.advise() is None
    assert "13 cards" in adv.error and "2 so far" in adv.error


def test_advisor_uses_best_call_on_the_forecast() -> None:
    adv = CallAdvisor(HandPicker(HAND), preset="home", seat=2, forecaster=random_play_forecast)
    fc = adv.advise()
    assert fc is not None and adv.error == ""
    rules = Ruleset.preset("home")
    expected = best_call(fc.dist, rules)
    assert fc.call == expected.call
    assert [row[0] for row in adv.table()] == list(range(2, 14))
    top = adv.table(top=5)
    by_score = sorted(fc.advice.table(), key=lambda r: -r[1])
    assert [r[0] for r in top] == sorted(r[0] for r in by_score[:5])  # in call order
    assert fc.call in [r[0] for r in top]
    # this forecast has no floor distribution: no guaranteed tricks are claimed
    assert adv.explanation.startswith("4 spades with A K Q; call ")
    assert "guaranteed" not in adv.explanation
    assert f"call {fc.call} scores best on average" in adv.explanation


def test_explain_reads_the_guaranteed_tricks_from_the_floor_shown() -> None:
    rules = Ruleset.preset("modern")
    floor = np.zeros(14)
    floor[[2, 3, 4, 5]] = [0.05, 0.45, 0.40, 0.10]
    fc = forecast_from_dist(np.eye(14)[4], rules, "point", floor=floor)
    text = explain(Hand.parse(HAND), 0, fc)
    # the floor (double-dummy value) ranges over the layouts of the other cards: the range and
    # how often the floor lies in it, never "guaranteed" beside a chance
    assert text.startswith(
        "4 spades with A K Q: a floor of 3-4 tricks in 85% of the ways the other cards lie "
        "(the tricks it takes even when the others play against it, all cards seen); call 4 "
    ), text
    assert "guaranteed" not in text and "likely" not in text
    assert floor_range(floor) == (3, 4, pytest.approx(0.85))
    assert floor_range(np.eye(14)[1]) == (1, 1, 1.0)
    one = forecast_from_dist(np.eye(14)[4], rules, "point", floor=np.eye(14)[1])
    assert ": a floor of 1 trick in 100% of the ways" in explain(Hand.parse(HAND), 0, one)


def test_expected_scores_show_one_decimal_everywhere() -> None:
    assert format_expected(24.7) == "2.5"
    assert format_expected(20.2) == "2.0"  # a whole number keeps its ".0": not read as rounded
    assert format_expected(-5.0) == "-0.5"
    assert format_expected(-0.4) == "0.0"
    assert format_expected(-40) == "-4.0"


def test_advisor_resets_when_hand_preset_or_seat_change() -> None:
    adv = CallAdvisor(HandPicker(HAND), forecaster=random_play_forecast)
    adv.advise()
    adv.set_seat(3)
    assert adv.forecast is None
    adv.advise()
    adv.picker.toggle("AS")
    assert adv.forecast is None
    with pytest.raises(RulesError, match="unknown ruleset 'nonsense'"):
        adv.set_preset("nonsense")


def test_advisor_earlier_calls_set_the_seat_and_reach_the_forecaster() -> None:
    seen: list[dict[str, object]] = []

    def recording(hand: Hand, seat: int, rules: Ruleset, **kwargs: object) -> Forecast:
        seen.append({"seat": seat, **kwargs})
        return random_play_forecast(hand, seat, rules, layouts=4)

    adv = CallAdvisor(HandPicker(HAND), preset="strict", forecaster=recording)
    adv.advise()
    assert seen[-1] == {"seat": 0}  # none given: the keyword is not passed
    assert adv.set_earlier_calls("3, 4") and adv.seat == 2 and adv.earlier_calls == (3, 4)
    adv.advise()
    assert seen[-1] == {"seat": 2, "earlier_calls": (3, 4)}
    for bad, message in (("3,x", "whole numbers"), ("1", "whole number 2..13, got 1"),
                         ("3 3 3 3", "at most three")):  # fmt: skip
        assert adv.set_earlier_calls("3,4") and adv.advise() is not None
        assert not adv.set_earlier_calls(bad)
        assert message in adv.error and adv.error.startswith("calls before: ")
        assert adv.forecast is None and adv.explanation == ""  # no stale result
        assert adv.earlier_text == bad  # the refused entry stays as typed
        assert adv.earlier_calls == (3, 4) and adv.seat == 2  # the last good calls are kept
        # advising refuses until the entry is corrected, and still says why
        assert adv.advise() is None and adv.forecast is None and adv.table() == []
        assert message in adv.error and "correct or clear them" in adv.error
        assert adv.earlier_text == bad
        adv.picker.toggle("AS")  # another hand: the refusal is still reported
        adv.picker.toggle("AS")
        assert message in adv.error and adv.earlier_text == bad
    assert adv.set_earlier_calls("3,4") and adv.error == "" and adv.earlier_text == "3,4"
    assert adv.advise() is not None and adv.explanation and adv.table()
    assert not adv.set_earlier_calls("1")  # refused under strict, accepted once modern is chosen
    adv.set_preset("modern")
    assert adv.earlier_error == "" and adv.earlier_calls == (1,) and adv.seat == 1
    adv.set_preset("strict")
    assert adv.set_earlier_calls("3,4")
    assert not adv.set_earlier_calls("3,x")
    adv.set_seat(2)  # choosing a seat drops a refused entry; the calls kept are shown
    assert adv.earlier_text == "3,4" and adv.error == "" and adv.earlier_calls == (3, 4)
    adv.set_seat(1)  # two earlier calls do not fit seat 1: dropped
    assert adv.earlier_calls == () and adv.seat == 1 and adv.earlier_text == ""
    assert adv.set_earlier_calls("2") and adv.seat == 1
    adv.set_preset("modern")
    assert adv.set_earlier_calls("1")
    adv.set_preset("strict")  # 1 is not a strict call: said when advising, no forecast
    assert adv.advise() is None
    assert "strict: an earlier call must be a whole number 2..13" in adv.error
    assert adv.set_earlier_calls("") and adv.earlier_calls == () and adv.seat == 1


def test_model_forecast_says_whether_it_used_the_earlier_calls() -> None:
    from callbreak_lab.widgets.backend import model_forecast

    hand = Hand.parse(HAND)
    try:
        plain = model_forecast(hand, 2, Ruleset.preset("strict"))
    except SourceUnavailable:
        pytest.skip("no shipped strict model")
    after = model_forecast(hand, 2, Ruleset.preset("strict"), earlier_calls=(3, 4))
    from callbreak_lab.bidding.model import load_model

    if load_model("strict").conditioned_ is not None:
        assert after.source.endswith("after calls 3, 4")
        assert not np.allclose(after.dist, plain.dist)
    else:
        assert "does not use the earlier calls 3, 4" in after.source
    modern = model_forecast(hand, 1, Ruleset.preset("modern"), earlier_calls=(5,))
    if load_model("modern").conditioned_ is None:
        assert "does not use the earlier calls 5" in modern.source


def test_advisor_simulation_check_reports_progress() -> None:
    adv = CallAdvisor(
        HandPicker(HAND),
        forecaster=random_play_forecast,
        simulator=random_play_forecast,
        layouts=6,
    )
    ticks: list[tuple[int, int]] = []
    check = adv.check_with_simulation(progress=lambda d, t: ticks.append((d, t)))
    assert check is not None and ticks[-1] == (6, 6)
    assert check.agrees == (check.forecast.call == adv.forecast.call)


def test_advisor_reports_a_missing_source_instead_of_numbers() -> None:
    def missing(hand: Hand, seat: int, rules: Ruleset) -> Forecast:
        raise SourceUnavailable("the bid model is not available: no model file")

    adv = CallAdvisor(HandPicker(HAND), forecaster=missing)
    assert adv.advise() is None and adv.forecast is None
    assert "not available" in adv.error


def test_explain_mentions_voids_and_no_spades() -> None:
    rules = Ruleset.preset("modern")
    fc = forecast_from_dist(np.eye(14)[3], rules, "point")
    assert "a void in hearts" in explain(Hand.parse("AKQJ32..AKQ32.32"), 0, fc)
    assert explain(Hand.parse(".AKQJ2.AKQ32.432"), 0, fc).startswith("no spades")


# --- deal explorer controller --------------------------------------------------------------------


def test_deal_explorer_parses_deals_and_refuses_bad_ones() -> None:
    ex = DealExplorer()
    deal = ex.deal_random(seed=5)
    assert deal == Deal.random(5) and ex.text == str(deal)
    assert not ex.set_text("AKQ.T98.765.432")
    assert "four hands" in ex.message and ex.deal == deal
    assert ex.set_text(deal.symbols()) and ex.deal == deal


# --- views ---------------------------------------------------------------------------------------


def _views():  # imported lazily: the controllers must work without ipywidgets loaded
    from callbreak_lab.widgets import views

    return views


def test_picker_view_buttons_and_text_stay_in_sync() -> None:
    views = _views()
    v = views.HandPickerView()
    assert len(v.buttons) == 52
    for card in Hand.parse(HAND):
        v.buttons[card].click()
    assert v.text.value == HAND
    assert v.buttons[Card.parse("AS")].style.button_color == views.HELD
    assert "cb-held" in v.buttons[Card.parse("AS")]._dom_classes
    assert "13</b> of 13" in v.status.value
    v.buttons[Card.parse("AH")].click()
    assert "remove one before adding A♥" in v.status.value
    assert v.buttons[Card.parse("AH")].style.button_color is None
    v.text.value = "♠AKQJT98765432"
    _press_enter(v.text)
    assert v.controller.hand == Hand.parse("AKQJT98765432...")
    assert v.text.value == "AKQJT98765432..."
    assert "cb-held" not in v.buttons[Card.parse("TH")]._dom_classes
    v.text.value = "AK.QX"
    _press_enter(v.text)
    assert "cb-held" in v.buttons[Card.parse("2S")]._dom_classes  # last good hand kept
    assert "a dotted hand has four suits" in v.status.value


def _press_enter(box: Any) -> None:
    """What the browser sends when Enter is pressed in a text box."""
    box._handle_custom_msg({"event": "submit"}, [])


def test_picker_count_follows_the_typing_and_enter_takes_the_hand() -> None:
    views = _views()
    v = views.HandPickerView()
    typed = ""
    for ch in "AKQ2.T98.765.432":  # the box reports each key, as the browser does
        typed += ch
        v.text.value = typed
        if typed == "AKQ2.T98":  # a dotted hand still being typed counts its cards
            assert "<b>7</b> of 13 cards" in v.status.value
            assert "four suits" not in v.status.value
    assert v.status.value.startswith("<b>13</b> of 13 cards ✓")
    assert v.controller.hand == Hand() and v.text.value == typed  # not taken, not rewritten
    v.text.value = "AKQ32.T98.765.432"  # a 14th card: said while typing
    assert "<b>14</b> of 13 cards" in v.status.value and "at most 13" in v.status.value
    v.text.value = "AK.QX"  # a problem: said while typing, the entered hand's count kept
    assert "<b>0</b> of 13 cards" in v.status.value and "four suits" in v.status.value
    v.text.value = typed
    _press_enter(v.text)
    assert v.controller.hand == Hand.parse(typed)
    assert "cb-held" in v.buttons[Card.parse("AS")]._dom_classes
    v.text.value = "AKQ2.T98.765.43"  # typed, then a card clicked without Enter: both count
    v.buttons[Card.parse("2C")].click()
    assert v.controller.hand == Hand.parse(typed)
    assert HandPicker().preview("") == (0, "")


def _calls_forecaster(hand: Hand, seat: int, rules: Ruleset, **_calls: object) -> Forecast:
    return random_play_forecast(hand, seat, rules, layouts=4)


def _shows_a_result(v) -> bool:
    return bool(v.explain.value or v.table.value) or v.charts.layout.display != "none"


def test_advisor_view_earlier_calls_move_the_seat() -> None:
    views = _views()
    c = CallAdvisor(HandPicker(HAND), forecaster=_calls_forecaster)
    v = views.CallAdvisorView(c)
    v.advise.click()
    assert "Call <b>" in v.call.value and "seat 0" in v.call.value
    # calls of the seats before: the seat follows them, and a bad entry is refused in place
    v.earlier.value = "3, 4"
    assert c.earlier_calls == (3, 4) and v.seat.value == 2 and v.earlier.value == "3,4"
    assert v.call.value == ""  # the old call no longer applies
    v.advise.click()
    assert "seat 2" in v.call.value
    v.seat.value = 1
    assert v.earlier.value == "" and c.earlier_calls == ()


@pytest.mark.parametrize(
    ("preset", "bad", "message"),
    [
        ("modern", "3,x", "whole numbers"),
        ("strict", "1", "whole number 2..13, got 1"),
        ("modern", "3,4,5,6", "at most three"),
    ],
)
def test_advisor_view_keeps_a_refused_entry_and_its_error_through_suggest(
    preset: str, bad: str, message: str
) -> None:
    """Type a refused entry, then press "Suggest a call" (once, then again): the entry stays in
    its box with its red error, and no call, explanation, chart or table is shown."""
    views = _views()
    c = CallAdvisor(HandPicker(HAND), preset=preset, forecaster=_calls_forecaster)
    v = views.CallAdvisorView(c)
    v.earlier.value = "3,4"
    v.advise.click()
    assert "Call <b>" in v.call.value and _shows_a_result(v)
    v.earlier.value = bad
    for _press in range(2):
        assert v.earlier.value == bad  # never silently back to the last accepted calls
        assert message in v.call.value and views.RED in v.call.value
        assert "Call <b>" not in v.call.value and not _shows_a_result(v)
        assert v.all_calls.layout.display == "none" and v.sim_note.value == ""
        v.advise.click()
    assert "correct or clear them" in v.call.value
    v.simulate.click()  # the simulation refuses too (it advises first)
    assert v.earlier.value == bad and not _shows_a_result(v)
    assert v.progress.layout.visibility == "hidden"
    # corrected: the first press renders everything
    v.earlier.value = "3,4"
    assert v.call.value == "" and v.earlier.value == "3,4"
    v.advise.click()
    assert "Call <b>" in v.call.value and "seat 2" in v.call.value
    assert "scores best on average" in v.explain.value and "<td>" in v.table.value
    assert v.charts.layout.display == "flex"


def test_advisor_view_shows_call_charts_and_simulation() -> None:
    views = _views()
    c = CallAdvisor(forecaster=random_play_forecast, simulator=random_play_forecast, layouts=5)
    v = views.CallAdvisorView(c)
    v.advise.click()
    assert "pick 13 cards first" in v.call.value
    for word in ("bid model (modern)", "floor", "Monte Carlo"):  # each word explained
        assert f"<b>{word}</b>: " in v.help.value or f"<b>{word}</b> (" in v.help.value
    v.picker.text.value = HAND  # typed, Enter not pressed: counted, taken by the button
    assert "13</b> of 13" in v.picker.status.value and c.picker.count == 0
    v.seat.value = 1
    v.advise.click()
    fc = c.forecast
    assert fc is not None
    assert f"Call <b>{fc.call}</b>" in v.call.value and 'data-run="2"' in v.call.value
    assert "seat 1" in v.call.value
    assert v.expected_chart.value[:4] == b"\x89PNG" and v.dist_chart.value[:4] == b"\x89PNG"
    assert v.charts.layout.display == "flex"
    assert "scores best on average" in v.explain.value
    # the table: the five calls of highest expected score, the rest on demand
    assert v.table.value.count("<td>") == 3 * 5 and "of 13" in v.table.value
    assert f'<tr style="font-weight:bold"><td>{fc.call}</td>' in v.table.value
    assert v.all_calls.layout.display == "flex"
    v.all_calls.value = True
    assert v.table.value.count("<td>") == 3 * 13 and "all 13 calls" in v.table.value
    v.all_calls.value = False
    assert v.table.value.count("<td>") == 3 * 5
    before = v.dist_chart.value
    v.simulate.click()
    assert v.progress.value == v.progress.max == 5
    assert v.progress.layout.visibility == "hidden"  # shown only while the simulation runs
    assert "the simulation" in v.sim_note.value
    assert v.dist_chart.value != before  # the simulation is overlaid
    v.preset.value = "strict"
    assert v.call.value == "" and v.charts.layout.display == "none"
    assert v.all_calls.layout.display == "none"


def test_advisor_view_progress_is_visible_only_while_simulating() -> None:
    views = _views()
    seen: list[str] = []

    def simulator(*args: object, progress=None, **kwargs: object) -> Forecast:
        seen.append(v.progress.layout.visibility)
        return random_play_forecast(*args, progress=progress, **kwargs)  # type: ignore[arg-type]

    c = CallAdvisor(HandPicker(HAND), forecaster=random_play_forecast, simulator=simulator)
    v = views.CallAdvisorView(c)
    v.simulate.click()
    assert seen == ["visible"] and v.progress.layout.visibility == "hidden"


def test_advisor_view_buttons_size_to_their_labels_and_charts_keep_their_size() -> None:
    from callbreak_lab.widgets import charts

    views = _views()
    v = views.CallAdvisorView(CallAdvisor(forecaster=random_play_forecast))
    assert v.simulate.layout.width == "auto" and v.advise.layout.width == "auto"
    w, h = charts.css_size()
    for img in (v.expected_chart, v.dist_chart):
        assert (img.layout.width, img.layout.height) == (f"{w}px", f"{h}px")
        assert img.layout.align_self == "flex-start"  # a VBox must not stretch it


def test_expected_score_chart_marks_a_zero_expected_score() -> None:
    from callbreak_lab.bidding.calls import CallAdvice
    from callbreak_lab.widgets import charts

    rules = Ruleset.preset("modern")
    fc = forecast_from_dist(np.eye(14)[3], rules, "point")
    expected = np.array(fc.advice.expected, dtype=float)
    zero_call = int(fc.advice.calls[-1])
    expected[-1] = 0.0
    advice = CallAdvice(**{**fc.advice.__dict__, "expected": expected})
    fig = charts.expected_scores_figure(Forecast(fc.dist, advice, "point"))
    (ax,) = fig.axes
    marks = [tuple(xy) for coll in ax.collections for xy in coll.get_offsets()]
    assert marks == [(zero_call, 0.0)]
    plain = charts.expected_scores_figure(fc)
    assert [len(c.get_offsets()) for c in plain.axes[0].collections] == []


def test_trick_chart_legend_stays_clear_of_the_bars() -> None:
    from callbreak_lab.widgets import charts

    rules = Ruleset.preset("modern")
    dist = np.zeros(14)
    dist[[0, 1, 2, 11, 12, 13]] = [0.3, 0.3, 0.1, 0.1, 0.1, 0.1]  # tall bars in both corners
    fc = forecast_from_dist(dist, rules, "bid model (modern) after calls 3, 4", floor=dist)
    fig = charts.trick_distribution_figure(fc, fc, call=3)
    fig.canvas.draw()
    (ax,) = fig.axes
    legend = ax.get_legend().get_window_extent()
    bars = [p.get_window_extent() for p in ax.patches]
    assert bars and not any(legend.overlaps(b) for b in bars)
    assert legend.y0 >= ax.get_window_extent().y1 - 1  # above the plot
    assert fig.bbox.contains(legend.x1 - 1, legend.y1 - 1)  # and inside the picture


def test_trainer_verdict_names_each_expected_score_and_its_chart_is_not_stretched() -> None:
    from callbreak_lab.widgets import charts
    from callbreak_lab.widgets.play_controllers import CallingTrainer

    def tricks_of(deal: Deal, rules: Ruleset) -> list[int]:
        return list(play_out(Position(deal, rules), random_player(0)).tricks_won)

    t = CallingTrainer(seed=2, forecaster=random_play_forecast, tricks_of=tricks_of)
    assert t.current is not None
    best = random_play_forecast(t.current.hand, t.current.seat, t.rules).call
    mine = best + 1 if best < 13 else best - 1
    assert t.answer(mine) is not None
    verdict = t.verdict()
    r = t.current
    assert r is not None and r.forecast is not None
    # the same precision as the advisor's table (page 01) for the same forecast
    page01 = CallAdvisor(
        HandPicker(r.hand), preset=t.preset, seat=r.seat, forecaster=random_play_forecast
    )
    assert page01.advise() is not None
    shown = {c: e for c, _p, e in page01.table()}
    mine_e, best_e = shown[mine], shown[best]
    assert verdict.endswith(
        f"the expected scores are {mine_e} points for your call of {mine} and {best_e} points "
        f"for the model's call of {best}."
    ), verdict
    assert re.fullmatch(r"-?\d+\.\d", mine_e) and re.fullmatch(r"-?\d+\.\d", best_e)
    t.new_hand()
    same = random_play_forecast(t.current.hand, t.current.seat, t.rules).call  # type: ignore[union-attr]
    t.answer(same)
    assert re.search(rf"a call of {same} scores -?[\d.]+ points\.$", t.verdict()), t.verdict()
    from callbreak_lab.widgets.play_views import CallingTrainerView

    v = CallingTrainerView(t)
    w, h = charts.css_size()
    assert (v.chart.layout.width, v.chart.layout.height) == (f"{w}px", f"{h}px")
    assert v.chart.layout.align_self == "flex-start"  # the trainer's VBox must not stretch it


def test_notebook_01_says_how_many_layouts_the_simulation_deals() -> None:
    import nbformat

    path = Path(__file__).resolve().parents[1] / "notebooks" / "01_evaluate_a_hand.ipynb"
    nb = nbformat.read(path, as_version=4)
    text = " ".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    assert f"{CallAdvisor().layouts} times" in text and "many times" not in text


def test_deal_explorer_view_deals_from_a_seed() -> None:
    views = _views()
    v = views.DealExplorerView()
    v.seed.value = 9
    v.widget.children[0].children[1].click()  # the "deal" button
    assert v.text.value == str(Deal.random(9))
    assert "seat 0" in v.board.value
    v.text.value = "nonsense"
    assert "four hands" in v.result.value


def test_controllers_import_no_ipywidgets() -> None:
    code = (
        "import sys; import callbreak_lab.widgets.controllers, callbreak_lab.widgets.backend; "
        "import callbreak_lab.widgets.charts; assert 'ipywidgets' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- the match standing in the call advisor ---------------------------------------------------

MATCH_HAND = "KQJ5.A98.AQ5.K32"  # the README's example: 3 points behind before the last deal


def test_advisor_view_calls_for_the_match_from_the_standing() -> None:
    from callbreak_lab.bidding.match import match_call

    views = _views()
    c = CallAdvisor(HandPicker(MATCH_HAND), preset="online")
    v = views.CallAdvisorView(c)
    v.advise.click()
    points = c.forecast.call
    assert v.match.value == ""  # no standing: no match line
    v.deal_of_match.value = 5
    v.totals.value = "0, 3, 0, 0"
    assert c.totals == (0, 30, 0, 0) and c.deal_of_match == 5 and not c.standing_error
    assert v.call.value == ""  # the old advice no longer applies
    v.advise.click()
    want = match_call(MATCH_HAND, 0, "online", totals=(0, 30, 0, 0), deal_of_match=5)
    assert c.match is not None and c.match.call == want.call and c.match.reason == want.reason
    assert want.call != points  # behind before the last deal: not the points-best call
    assert f"For the match: call <b>{want.call}</b>" in v.match.value
    assert "behind" in v.match.value and "cb-match-table" in v.match.value
    assert f"Call <b>{points}</b>" in v.call.value  # the points call still shows beside it


def test_advisor_view_level_first_deal_standing_keeps_todays_call() -> None:
    views = _views()
    c = CallAdvisor(HandPicker(HAND), preset="online")
    v = views.CallAdvisorView(c)
    v.deal_of_match.value = 1
    v.advise.click()
    assert c.match is not None and c.match.call == c.forecast.call
    assert "first deal" in c.match.reason


@pytest.mark.parametrize(
    ("totals", "deal", "message"),
    [
        ("1,2,3", 4, "four totals"),
        ("1,2,x,4", 4, "seat 2"),
        ("1,2,3,4", None, "choose the deal of the match"),
        ("", 3, "needs the four totals"),
        ("1,0,0,0", 1, "every total is 0"),
    ],
)
def test_advisor_view_refuses_a_bad_standing_by_name(
    totals: str, deal: int | None, message: str
) -> None:
    views = _views()
    c = CallAdvisor(HandPicker(HAND), preset="online")
    v = views.CallAdvisorView(c)
    v.deal_of_match.value = deal or 0  # 0: "not in a match"
    v.totals.value = totals
    assert message in c.standing_error
    assert v.totals.value == totals  # kept as typed
    v.advise.click()
    assert c.forecast is not None and c.match is None  # the points advice still shows
    assert "match:" in v.match.value and message in v.match.value
    v.totals.value = "1,2,3,4" if deal not in (None, 1) else ""
    if deal is None:
        v.deal_of_match.value = 0
    assert not c.standing_error and "match:" not in v.match.value
