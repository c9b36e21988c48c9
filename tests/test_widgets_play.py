"""Calling trainer and play-line viewer: controllers and views."""

from __future__ import annotations

import pytest
from test_widgets import random_play_forecast

from callbreak_lab import Deal, Position, Ruleset, UsageError
from callbreak_lab.game import play_out, random_player
from callbreak_lab.widgets.play_controllers import FOCUS, CallingTrainer, PlayLineViewer


def random_play_tricks(deal: Deal, rules: Ruleset) -> list[int]:
    """Tricks per seat when the deal is played out at random (seeded): a real play-out."""
    return list(play_out(Position(deal, rules), random_player(0)).tricks_won)


def _trainer(**kw: object) -> CallingTrainer:
    return CallingTrainer(
        forecaster=random_play_forecast,
        simulator=random_play_forecast,
        tricks_of=random_play_tricks,
        layouts=4,
        **kw,  # type: ignore[arg-type]
    )


def test_trainer_is_seeded_and_focus_rejection_samples() -> None:
    a, b = _trainer(seed=4), _trainer(seed=4)
    assert a.current is not None and b.current is not None
    assert a.current.deal == b.current.deal and a.current.seat == b.current.seat
    for focus, keep in FOCUS.items():
        t = _trainer(seed=1, focus=focus)
        for _ in range(5):
            assert t.current is not None and keep(t.current.hand)
            t.new_hand()
    assert _trainer(focus="long spades (5+)").current.hand.suit_count(3) >= 5  # type: ignore[union-attr]
    with pytest.raises(UsageError, match="unknown focus"):
        a.set_focus("nonsense")


def test_trainer_scores_calls_and_keeps_session_accuracy() -> None:
    t = _trainer(seed=2)
    assert t.accuracy is None and t.summary() == "no calls yet"
    r = t.answer(0)
    assert r is None and "outside" in t.message
    r = t.answer("x")
    assert r is None and "not a call" in t.message
    r = t.answer(3)
    assert r is not None and r.call == 3 and r.forecast is not None and r.tricks is not None
    rules = Ruleset.preset("modern")
    assert t.score_of(r, 3) == rules.score(3, r.tricks)
    assert "You called 3, the model calls" in t.verdict()
    assert t.answer(4) is None and "new hand" in t.message  # one answer per hand
    t.new_hand()
    model_call = random_play_forecast(t.current.hand, t.current.seat, rules).call  # type: ignore[union-attr]
    t.answer(model_call)
    you, model = t.totals
    assert len(t.history) == 2 and t.accuracy in (0.5, 1.0)
    expect_you = sum(rules.score(h.call, h.tricks) for h in t.history)  # type: ignore[arg-type]
    assert you == expect_you
    assert model == sum(rules.score(h.forecast.call, h.tricks) for h in t.history)  # type: ignore[union-attr, arg-type]
    assert "2 hand(s)" in t.summary()


def test_trainer_view_round_trip() -> None:
    from callbreak_lab.widgets.play_views import CallingTrainerView

    v = CallingTrainerView(_trainer(seed=3))
    hand = v.controller.current.hand  # type: ignore[union-attr]
    assert str(hand) in v.hand.value
    v.call.value = 2
    v.submit.click()
    assert "You called 2" in v.result.value
    assert v.chart.value[:4] == b"\x89PNG" and v.chart.layout.display == "block"
    assert 'data-hands="1"' in v.score.value and v.submit.disabled
    v.next.click()
    assert v.result.value == "" and not v.submit.disabled
    v.focus.value = "a side-suit void"
    assert 0 in v.controller.current.hand.suit_counts()[:3]  # type: ignore[union-attr]


# --- play-line viewer (needs the solver facade) --------------------------------------------------


# A short ending (2 tricks left) keeps solver calls cheap.
ENDING_DEAL = Deal.random(11)


def _ending_record(deal: Deal, rules: Ruleset, tricks: int = 11) -> str:
    pos = play_out(Position(deal, rules), random_player(5))
    return " | ".join(
        " ".join(str(c) for c in t.cards) for t in pos.tricks[:tricks]
    )  # fmt: skip


def test_play_line_viewer_steps_and_branches() -> None:
    rules = Ruleset.preset("modern")
    record = _ending_record(ENDING_DEAL, rules)
    v = PlayLineViewer(ENDING_DEAL, 0, rules, record=record)
    assert v.length == 8 and v.step == 0
    first = v.decision
    assert first is not None and v.legal_values()
    v.next()
    assert v.step == 1 and v.position.history[-1][1] == first.card
    v.go(99)
    assert v.step == 8 and v.decision is None and "deal over" in v.describe()
    v.go(0)
    # branch with every non-line legal card somewhere on the line; the cost is the value difference
    for step in range(v.length):
        v.go(step)
        d = v.decision
        others = [c for c, _val, played in v.legal_values() if not played]
        if others:
            card = others[0]
            assert v.branch(card)
            assert v.cost is not None
            if d.seat == 0:
                assert v.cost == d.values[card] - d.value
            v.back_to_main()
            break
    v.go(0)
    held = {c for c, _v, _p in v.legal_values()}
    bad = (
        next(c for c in v.position.hand(v.decision.seat) if c not in held)
        if len(held) < len(v.position.hand(v.decision.seat))
        else None
    )
    if bad is not None:
        assert not v.branch(bad) and "not legal" in v.message


def test_play_line_view_click_to_branch() -> None:
    from callbreak_lab.widgets.play_views import PlayLineView

    rules = Ruleset.preset("modern")
    v = PlayLineView(
        PlayLineViewer(ENDING_DEAL, 0, rules, record=_ending_record(ENDING_DEAL, rules))
    )
    assert "seat 0" in v.table.value
    v.widget.children[0].children[2].click()  # next
    assert v.slider.value == 1
    v.slider.value = 0
    assert v.controller.step == 0
    for step in range(v.controller.length):
        v.slider.value = step
        alternatives = [b for b in v.cards.children if "cb-played" not in b._dom_classes]
        if alternatives:
            alternatives[0].click()
            assert "this branch" in v.branch_note.value
            break


@pytest.mark.timeout(120)
def test_deal_explorer_solves_the_four_seats() -> None:
    from callbreak_lab import solver
    from callbreak_lab.widgets.controllers import DealExplorer
    from callbreak_lab.widgets.views import DealExplorerView

    v = DealExplorerView(DealExplorer())
    v.controller.deal_random(2)  # a deal the solver finishes in about a second
    v.widget.children[0].children[3].click()  # "solve"
    rules = Ruleset.preset("modern")
    assert v.controller.table == list(solver.dd_table(Deal.random(2), rules))
    assert sum(v.controller.playout or []) == 13
    assert "guaranteed (double dummy)" in v.result.value


def test_play_line_view_draws_the_table_with_values_and_readable_buttons() -> None:
    import xml.etree.ElementTree as ET

    from callbreak_lab.render.style import PLAYED
    from callbreak_lab.widgets.play_views import PlayLineView

    svg_ns = "{http://www.w3.org/2000/svg}"
    rules = Ruleset.preset("modern")
    record = _ending_record(ENDING_DEAL, rules)
    v = PlayLineView(PlayLineViewer(ENDING_DEAL, 2, rules, calls=[3, 2, 4, 3], record=record))

    def table() -> ET.Element:
        return ET.fromstring(v.table.value)

    def badges() -> dict[str, int]:
        return {
            g.get("data-card"): int(b.get("data-value"))
            for g in table().iter(f"{svg_ns}g")
            if g.get("class") == "card"
            for b in g.iter(f"{svg_ns}g")
            if b.get("class") == "value"
        }

    main = v.main_button
    assert main.disabled and main.layout.width == "auto"  # nothing to go back to; whole label
    for step in range(v.controller.length):
        v.slider.value = step
        root = table()
        bottom = next(g for g in root.iter(f"{svg_ns}g") if g.get("data-side") == "s")
        assert bottom.get("data-seat") == "2"  # the studied seat
        d = v.controller.decision
        assert badges() == {str(c): val for c, val in d.values.items()}
        cells = {
            (c.get("data-col"), c.get("data-seat")): c.findtext(f"{svg_ns}text")
            for c in root.iter(f"{svg_ns}g")
            if c.get("class") == "cell"
        }
        assert [cells["call", str(s)] for s in range(4)] == ["3", "2", "4", "3"]
        assert [cells["line", str(s)] for s in range(4)] == [
            str(t) for t in v.controller.line.tricks
        ]
        played = [b for b in v.cards.children if "cb-played" in b._dom_classes]
        assert len(played) == 1 and played[0].description.startswith(d.card.symbol())
        assert played[0].style.button_color == "#fff3b0" and played[0].style.font_weight == "bold"
        assert PLAYED in played[0].layout.border
        others = [b for b in v.cards.children if b not in played]
        assert all(b.style.button_color == "#ffffff" for b in others)
        assert ("click one to branch" in v.cards_label.value) == bool(v.cards.children)
    v.slider.value = v.controller.length
    assert v.cards.children == () and v.cards_label.value == ""
    assert "deal over" in v.info.value and table().find(f".//{svg_ns}g[@data-turn='1']") is None
    for step in range(v.controller.length):
        v.slider.value = step
        others = [b for b in v.cards.children if "cb-played" not in b._dom_classes]
        if others:
            others[0].click()
            assert not main.disabled and "this branch" in v.branch_note.value
            assert badges() == {str(c): val for c, val in v.controller.decision.values.items()}
            main.click()
            assert main.disabled and v.controller.line is v.controller.main
            break
    else:
        pytest.fail("no decision with a choice on the line")
    playout = PlayLineView(PlayLineViewer(ENDING_DEAL, None, rules, record=record))
    assert "Self-interested play-out" in playout.table.value
    assert "no calls given" in playout.table.value
