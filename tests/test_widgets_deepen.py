"""The play-line viewer's single-dummy judgement answers at once and deepens: a click on the
toggle shows the learned card or the first values, the note redraws as layouts are solved with
how many, and says when it is final; moving on stops the old decision's advice."""

from __future__ import annotations

import re

from callbreak_lab.widgets.play_controllers import PlayLineViewer
from callbreak_lab.widgets.play_views import PlayLineView

DEAL = "J75.T42.JT52.QT3 QT98.5.9843.J642 K3.AKJ9763.AK.95 A642.Q8.Q76.AK87"
CALLS = [2, 2, 2, 4]


def _status(view: PlayLineView) -> tuple[str, str] | None:
    """The note's advice status: (data-final, text), None when there is none."""
    m = re.search(r'data-final="(\w+)"[^>]*>([^<]*)<', view.single_note.value)
    return None if m is None else (m.group(1), m.group(2))


def test_the_line_viewer_s_advice_deepens_to_a_final_answer_by_clicks() -> None:
    # seat 0 at trick 8 of the line or later, 12 layouts drawn
    c = PlayLineViewer(DEAL, 0, "online", calls=CALLS, layouts=12, time_limit=None)
    view = PlayLineView(c)
    seen: list[tuple[str, str] | None] = []
    c.observe(lambda: seen.append(_status(view)))
    while not (c.decision.seat == 0 and len(c.decision.values) > 1 and c.decision.trick >= 7):
        view.next_button.click()
    view.judgement.value = "single"  # as a click on the toggle does
    final = c.wait_single()
    assert final is not None and final.final and final.complete
    # the view redrew as the advice deepened, and its last state is the final answer
    shown = [s for s in seen if s is not None]
    assert shown[-1] == ("true", f"{final.total} of {final.total} distinct layouts · final")
    assert all(f == "false" and t.endswith("…") for f, t in shown[:-1])
    counts = [
        int(t.split()[-5]) if t.startswith("learned") else int(t.split()[0]) for _, t in shown
    ]
    assert counts == sorted(counts) and counts[-1] == final.solved
    assert "cb-single-text" in view.single_note.value
    assert any("★" in b.description for b in view.cards.children)
    assert final.answer is not None and final.answer.best.symbol() in view.single_note.value
    # the next decision of seat 0 starts its own advice; the one before stays as it was
    before = c.step
    view.trick_button.click()
    while c.decision is not None and (c.decision.seat != 0 or len(c.decision.values) < 2):
        view.next_button.click()
    if c.decision is not None:
        assert c.wait_single() is not None and _status(view)[0] == "true"  # type: ignore[index]
    view.slider.value = before
    assert _status(view) == ("true", f"{final.total} of {final.total} distinct layouts · final")


def test_the_viewer_without_its_view_answers_at_once_in_full() -> None:
    c = PlayLineViewer(DEAL, 0, "online", calls=CALLS, layouts=6, time_limit=None)
    c.set_judgement("single")
    while c.single() is None:
        c.next()
    u = c.single_update()
    assert u.final and u.complete and c.single_status().endswith("· final")
    assert c.wait_single() is u  # nothing to wait for: computed here


def test_the_table_hint_answers_at_once_and_deepens_to_final_by_clicks() -> None:
    from callbreak_lab.widgets.table_controller import PlayTable
    from callbreak_lab.widgets.table_view import PlayTableView

    t = PlayTable("modern", seat=0, seed=4, hint_layouts=6, review_layouts=2)
    view = PlayTableView(t)
    view.call.value = 2
    view.call_button.click()
    while t.phase == "play" and len(t.position.legal_cards()) < 2:
        assert view.clicked(str(next(iter(t.position.legal_cards()))))
    assert t.phase == "play"
    view.hint_button.click()
    # the first answer is there when the click returns: the learned card or the first values
    first = t.hint_update
    assert (
        first is not None
        and "Hint:" in view.hint.value
        and 'class="cb-advice-status"' in (view.hint.value)
    )
    final = t.wait_hint()
    assert final is not None and final.final and final.complete and t.last_hint is final.answer
    assert f'data-final="true" data-solved="{final.solved}"' in view.hint.value
    assert f"{final.solved} of {final.total} distinct layouts · final" in view.hint.value
    assert f"<b>Hint:</b> {final.card.symbol()}" in view.hint.value
    # a card played ends the turn: its hint is gone, the next turn has none until asked
    assert view.clicked(str(final.card))
    assert t.hint_update is None and t.last_hint is None
    if t.phase == "play":
        assert "Hint:" not in view.hint.value
