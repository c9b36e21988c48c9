"""The analysis board's ipywidgets view wired to its controller (no browser): the boxes open a
deal, the buttons step and branch, the link follows the step, a refused box is named in red and
the line viewer opens on the position shown."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from callbreak_lab import Deal, Position, Ruleset, play_out, random_player
from callbreak_lab.widgets.board_controller import AnalysisBoard, BoardSpec
from callbreak_lab.widgets.board_view import AnalysisBoardView, analysis_board

DEAL = Deal.seeded(3, 0)
RECORD = play_out(Position(DEAL, Ruleset.preset("online")), random_player(1)).record()
BASE = "http://127.0.0.1:8866/voila/render/09_analysis_board.ipynb"


def _view() -> AnalysisBoardView:
    view = AnalysisBoardView(AnalysisBoard(), base=BASE)
    view.deal.value = DEAL.letters()
    view.record.value = RECORD
    view.calls.value = "3, 4, 2, 3"
    view.open_button.click()
    return view


def test_the_boxes_open_a_deal_and_the_buttons_step_and_branch() -> None:
    view = _view()
    c = view.controller
    assert view.message.value == "" and c.step == 52 and 'data-step="52"' in view.info.value
    assert view.deal.value == str(DEAL)  # the boxes now say what was opened
    assert view.next_button.disabled and not view.prev_button.disabled
    for _ in range(8):
        view.prev_button.click()
    assert c.step == 44 and view.slider.value == 44 and 'data-step="44"' in view.info.value
    assert view.link.value.count("step=44") == 2  # the link and its copyable text
    assert f'href="{BASE}?deal=' in view.link.value
    buttons = view.cards.children
    shown = [b for b in buttons if "cb-played" in b._dom_classes]
    assert len(shown) == 1 and "9♦" in shown[0].description
    other = next(b for b in buttons if b is not shown[0])
    other.click()
    assert c.branch is not None and c.step == 45 and not view.record_button.disabled
    assert view.note.value and "on a branch" in view.info.value
    view.record_button.click()
    assert c.branch is None and view.record_button.disabled


def test_a_refused_box_is_named_and_the_board_keeps_its_deal() -> None:
    view = _view()
    view.calls.value = "3,4"
    view.open_button.click()
    assert "calls: calls need one value per seat" in view.message.value
    assert view.controller.spec is not None and view.controller.spec.calls == (3, 4, 2, 3)


def test_a_random_deal_builds_a_record_card_by_card() -> None:
    view = AnalysisBoardView(AnalysisBoard())
    view.seed.value = 9
    view.random_button.click()
    assert view.deal.value == str(Deal.seeded(9, 0)) and view.record.value == ""
    assert "Next card" in view.cards_label.value
    view.cards.children[0].click()
    assert len(view.record.value.split()) == 1 and view.controller.step == 1
    assert view.link.value.startswith("<div>link to this position: <a")  # a query alone


def test_the_line_viewer_opens_on_the_position_shown() -> None:
    view = _view()
    view.controller.go(44)
    view.line_button.click()
    assert len(view.line_box.children) == 2
    assert "seat 2 from card 45" in view.line_box.children[0].value


def test_the_page_opens_its_link_and_a_bad_link_says_why() -> None:
    spec = BoardSpec.parse(str(DEAL), RECORD, "3,4,2,3", "online", step=40)
    box = analysis_board(spec.to_query())
    assert 'data-step="40"' in box.children[7].value  # the step's readout
    bad = analysis_board("deal=nonsense&step=3")
    assert "deal: " in bad.children[4].value


def test_after_the_deal_replays_the_record_with_four_hands() -> None:
    view = _view()
    assert not view.after_button.disabled
    view.after_button.click()
    (box,) = view.after_box.children
    assert "cb-after-deal" in box._dom_classes
    assert "seat 0 at the bottom" in box.children[0].value
    view.seed.value = 2
    view.random_button.click()  # another deal: the replay of the last one goes
    assert view.after_box.children == () and view.after_button.disabled
