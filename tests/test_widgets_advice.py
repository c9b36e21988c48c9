"""Single-dummy advice in the widgets: the play-line viewer's judgement toggle, the "play a deal
against the bots" table, the calling trainer at a table of strong players."""

from __future__ import annotations

import re

import pytest
from test_widgets_play import _trainer

from callbreak_lab import Card, Deal, Ruleset
from callbreak_lab.errors import UsageError
from callbreak_lab.widgets.play_controllers import PlayLineViewer
from callbreak_lab.widgets.table_controller import PlayTable

SAFETY_DEAL = "J75.T42.JT52.QT3 QT98.5.9843.J642 K3.AKJ9763.AK.95 A642.Q8.Q76.AK87"
SAFETY_RECORD = (
    "5D 9D KD QD | 6H QH TH 5H | 7C TC JC 9C | 2C 5C 8C QC | JS QS KS AS | 4S 7S 9S 3S | "
    "8D AD 6D 2D | 9H 8H 4H 8S | 4D JH 7D JD | 3C 4C 3H KC"
)


def _viewer() -> PlayLineViewer:
    return PlayLineViewer(
        SAFETY_DEAL, 3, "online", calls=[2, 2, 2, 4], record=SAFETY_RECORD, time_limit=None
    )


def test_the_viewer_judges_single_dummy_when_toggled() -> None:
    c = _viewer()
    assert c.single() is None and c.single_note() == ""  # double-dummy by default
    c.set_judgement("single")
    sd = c.single()
    assert sd is not None and sd.best == Card.parse("AC")
    note = c.single_note()
    assert "Double-dummy plays 2♠" in note and "A♣ is better by 2.33 points" in note
    assert c.single() is sd  # computed once a decision
    c.next()  # seat 0's forced card: no advice
    assert c.single() is None
    with pytest.raises(UsageError, match="judgement"):
        c.set_judgement("both")


def test_the_viewer_s_toggle_and_buttons() -> None:
    from callbreak_lab.widgets.play_views import PlayLineView

    view = PlayLineView(_viewer())
    buttons = lambda: [b.description for b in view.cards.children]  # noqa: E731
    assert all("★" not in d for d in buttons())
    view.judgement.value = "single"  # as a click on the toggle does
    view.controller.wait_single()  # the view's advice deepens on its own thread
    assert any(d.startswith("A♣") and "★" in d and "+4.02" in d for d in buttons())
    assert "better by 2.33" in view.single_note.value
    view.judgement.value = "double"
    note = re.sub(r"<[^>]*>", "", view.single_note.value)  # the text, not the step's marker
    assert note == "" and all("★" not in d for d in buttons())
    assert f'data-step="{view.controller.step}"' in view.single_note.value


def test_a_deal_against_the_bots_from_call_to_review() -> None:
    t = PlayTable("online", seat=1, seed=3, hint_layouts=8, review_layouts=4)
    assert t.phase == "call" and len(t.calls) == 1  # seat 0 called before the person
    assert not t.call(0) and "1..13" in t.message  # below the range: refused with it
    assert not t.call("x") and "not a call" in t.message and t.phase == "call"
    assert not t.play("AS") and "no card is due" in t.message
    assert t.call(3) and t.phase == "play" and len(t.calls) == 4 and t.calls[1] == 3
    assert t.position.to_move == 1
    hand = t.position.hand(1)
    wrong = next(iter(t.deal[0]), None)  # seat 0's card: not the person's
    assert wrong is not None and not t.play(wrong) and t.position.to_move == 1
    while t.phase == "play":
        hint = t.hint()
        assert hint is not None and set(hint.outcomes) == set(t.position.legal_cards())
        assert t.play(hint.best)
    assert t.phase == "over" and t.deals == 1 and t.hint() is None
    assert all(c in hand for s, c in t.position.history if s == 1)
    rv = t.review()
    assert rv.seats == (1,) and rv.players[0].call == 3 and rv.players[0].play_cost >= 0
    assert "you: called 3" in t.result()
    t.new_deal()
    assert t.deal != rv.deal and t.phase in ("call", "play")


@pytest.mark.slow
def test_the_table_view_hides_the_bots_cards_until_the_end() -> None:
    from callbreak_lab.widgets.table_view import PlayTableView

    t = PlayTable("modern", seat=0, seed=4, hint_layouts=4, review_layouts=2)
    view = PlayTableView(t)

    def shown() -> set[str]:
        return set(re.findall(r'data-card="(\w+)"', view.table.value))

    def hidden_cards() -> set[str]:
        out = set()
        for s in (1, 2, 3):
            out |= {str(c) for c in t.position.hand(s)}
        return out

    assert not shown() & hidden_cards() and view.table.value.count('class="backs"') == 3
    view.call.value = 2
    view.call_button.click()
    assert t.calls[0] == 2 and t.phase == "play"
    while t.phase == "play":
        assert not shown() & hidden_cards()
        view.hint_button.click()
        assert "Hint:" in view.hint.value
        assert view.clicked(str(next(iter(t.position.legal_cards()))))  # a click in the hand
    assert view.review_button.disabled is False and "backs" not in view.table.value
    view.review_button.click()
    assert "Single-dummy review" in view.review.value
    view.next_button.click()
    assert t.deals == 1 and view.review.value == ""


def test_the_trainer_scores_calls_at_a_table_too() -> None:
    seen: list[tuple[int, int]] = []

    def table_tricks(deal: Deal, rules: Ruleset, seat: int, call: int) -> int:
        seen.append((seat, call))
        return call  # a stand-in table where every call is made exactly

    t = _trainer(seed=3, table=True, table_tricks_of=table_tricks)
    r = t.answer(t.rules.min_call + 1)
    assert r is not None and r.table is not None and r.forecast is not None
    assert r.table[0] == r.call and seen[0] == (r.seat, r.call)
    assert "At a table of four strong players" in t.verdict()
    n, you, model = t.table_totals
    assert n == 1 and you == t.rules.score(r.call, r.call)
    assert model == t.rules.score(r.forecast.call, r.forecast.call)
    assert "at the table of strong players (1 hand(s))" in t.summary()
    plain = _trainer(seed=3)
    plain.answer(plain.rules.min_call)
    assert plain.current is not None and plain.current.table is None
    assert "At a table" not in plain.verdict()
