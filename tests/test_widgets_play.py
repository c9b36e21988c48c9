"""Calling trainer and play-line viewer: controllers and views."""

from __future__ import annotations

import pytest
from test_widgets import random_play_forecast

from callbreak_lab import Card, Deal, Position, Ruleset, UsageError
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


def test_play_line_viewer_computes_given_calls_when_first_needed() -> None:
    """``calls`` as a function: not called when the viewer opens; the view draws the table,
    then fetches the calls on a thread and redraws with them; a viewer without a view resolves
    them when the single-dummy judgement needs them; a failing function says why."""
    import time

    from callbreak_lab.errors import ModelError
    from callbreak_lab.widgets.play_views import PlayLineView

    rules = Ruleset.preset("modern")
    record = _ending_record(ENDING_DEAL, rules)
    asked: list[int] = []

    def calls() -> list[int]:
        asked.append(1)
        return [3, 2, 4, 3]

    c = PlayLineViewer(ENDING_DEAL, 2, rules, calls=calls, record=record)
    assert asked == [] and c.calls_pending and c.main.calls is None
    c.next()
    c.branch(next(card for card, _v, played in c.legal_values() if not played))
    c.resolve_calls()
    assert asked == [1] and not c.calls_pending
    assert c.main.calls == c.line.calls == (3, 2, 4, 3) and c.line is not c.main
    c.resolve_calls()
    assert asked == [1]  # once

    v = PlayLineView(PlayLineViewer(ENDING_DEAL, 2, rules, calls=calls, record=record))
    deadline = time.monotonic() + 60
    while "being worked out" in v.table.value and time.monotonic() < deadline:
        time.sleep(0.01)  # the view's thread fetches the calls and redraws with them
    assert v.controller.main.calls == (3, 2, 4, 3) and asked == [1, 1]
    assert "no calls given" not in v.table.value

    def broken() -> list[int]:
        raise ModelError("no model here")

    b = PlayLineViewer(ENDING_DEAL, 2, rules, calls=broken, record=record)
    b.resolve_calls()
    assert not b.calls_pending and b.main.calls is None and "no model here" in b.message


# --- the match against the bots (table_controller.PlayTable) and after a deal (after_deal) ------


def _first_legal(t: object) -> str:
    return str(next(iter(t.position.legal_cards())))  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_whole_match_against_the_bots_to_the_final_totals() -> None:
    """A scripted person (the call advice's call, then its first legal card) plays the five
    deals; the dealer and the first leader move one table seat on each deal; the totals are the
    sum of each deal's scores, and the match's result is said."""
    from callbreak_lab.widgets.table_controller import PlayTable

    rules = Ruleset.preset("online")
    t = PlayTable(rules, seat=2, seed=11, opponents="simple")
    assert t.table_names == ["bot 2", "bot 3", "you", "bot 1"]
    expect = [0, 0, 0, 0]
    for k in range(5):
        assert t.deal_index == k and t.phase == "call" and not t.match_over
        assert t.deal == Deal.seeded(11, k)
        assert t.dealer == (3 + k) % 4 and t.first_leader == k % 4  # RULES.md: one seat on
        assert t.seat == (2 - k) % 4 and t.names[t.seat] == "you"
        assert [t.table_of(s) for s in range(4)] == [(s + k) % 4 for s in range(4)]
        assert t.names[0] == t.table_names[k % 4]  # deal seat 0 calls first and leads
        assert f"Deal {k + 1} of 5" in t.deal_heading()
        assert f"dealer: {t.table_names[(3 + k) % 4]}" in t.deal_heading()
        assert len(t.calls) == t.seat  # the bots before the person have called
        if t.seat:
            assert t.log[0].startswith(f"{t.table_names[k % 4]} calls")
        advice = t.call_advice()
        assert advice is not None and 1 <= advice.call <= 13 and 0 <= advice.make <= 1
        assert t.call(advice.call) and t.call_advice() is None
        while t.phase == "play":
            assert t.position.to_move == t.seat
            assert t.play(_first_legal(t))
        assert t.phase == "over" and t.deals == k + 1
        assert t.position.tricks[0].leader == 0  # deal seat 0 (the first caller) led trick 1
        won = t.position.tricks_won
        for s in range(4):
            expect[t.table_of(s)] += rules.score(t.calls[s], won[s])
        assert t.totals == tuple(expect)
        assert f"Totals after {k + 1} deal(s)" in t.standing()
        if k < 4:
            assert "Match over" not in t.standing()
            t.new_deal()
    assert t.match_over and len(t.finished) == 5
    places = t.match.places()
    assert "Match over" in t.standing() and "Match over" in t.status()
    mine = places[2]
    if t.match.winners() == [2]:
        assert "you win the match" in t.standing()
    elif 2 not in t.match.winners():
        assert f"you finish {mine}" in t.standing()
    t.new_deal()  # after the last deal: a new match, a fresh seed
    assert t.deals == 0 and t.deal_index == 0 and t.totals == (0, 0, 0, 0)


def test_a_match_seed_replays_the_same_deals_and_a_fresh_seed_is_shown() -> None:
    from callbreak_lab.widgets.table_controller import SEED_LIMIT, PlayTable

    a = PlayTable("online", 0, seed=42, opponents="simple")
    b = PlayTable("online", 0, opponents="simple")
    assert 0 <= b.seed < SEED_LIMIT and f"match seed {b.seed}" in b.deal_heading()
    b.new_match("42")  # typed back
    assert b.seed == 42 and b.deal == a.deal == Deal.seeded(42, 0)
    for t in (a, b):
        t.call(3)
        while t.phase == "play":
            t.play(_first_legal(t))
    assert a.position.record() == b.position.record() and a.calls == b.calls  # seeded bots too
    a.new_deal()
    assert a.deal == Deal.seeded(42, 1)
    with pytest.raises(UsageError, match="seed"):
        a.new_match("abc")
    with pytest.raises(UsageError, match="seed"):
        a.new_match(-3)
    with pytest.raises(UsageError, match="opponents"):
        a.new_match(1, opponents="cheater")
    a.new_match(7, opponents="model")
    assert a.opponents == "model" and all(
        type(p).__name__ == "ModelPlayer" for p in a.bots.values()
    )


def test_illegal_clicks_are_refused_with_a_clear_message() -> None:
    from callbreak_lab.widgets.table_controller import PlayTable

    t = PlayTable("online", 1, seed=3, opponents="simple")
    assert not t.play("AS") and "the calls come first" in t.message and t.phase == "call"
    assert not t.call(0) and "1..13" in t.message
    assert not t.call("x") and "not a call" in t.message
    assert t.call(2)
    other = next(iter(t.position.hand((t.seat + 1) % 4)))
    assert not t.play(str(other)) and f"you do not hold {other.symbol()}" in t.message
    assert not t.play("ZZ") and t.message
    refused = 0
    while t.phase == "play":
        hand, legal = t.position.hand(t.seat), t.position.legal_cards()
        bad = [c for c in hand if c not in legal]
        if bad:
            before = len(t.position.history)
            assert not t.play(str(bad[0]))
            assert t.message.startswith(f"{bad[0].symbol()} cannot be played: ")
            assert len(t.position.history) == before
            refused += 1
        assert t.play(_first_legal(t)) and t.message == ""
    assert refused  # some turn had a card the rules forbid
    assert not t.play("AS") and "the deal is over" in t.message
    assert not t.call(3) and "no call is due" in t.message


def test_the_calls_phase_is_said_as_such_with_the_call_advice() -> None:
    from callbreak_lab.bidding import recommend_call
    from callbreak_lab.widgets.table_controller import PlayTable
    from callbreak_lab.widgets.table_view import PlayTableView

    t = PlayTable("online", 0, seed=8, opponents="simple")
    v = PlayTableView(t)
    assert v.status.value.startswith("<div>Calling: your call (1..13)")
    assert "to call" in v.table.value and "to play" not in v.table.value
    assert "trick 1 of 13" not in v.table.value and "calling · you to call" in v.table.value
    assert 'class="slot"' not in v.table.value  # no card slot while calling
    assert v.calling_row.layout.display is None and v.playing_row.layout.display == "none"
    v.call_advice_button.click()
    rec = recommend_call(t.deal[0], 0, "online", earlier_calls=[])
    a = t.last_call_advice
    assert a is not None and a.call == rec.call
    assert a.expected == pytest.approx(rec.expected[rec.call]) and 0 <= a.make <= 1
    assert f"Suggested call: {a.call}" in v.call_advice.value and "made" in v.call_advice.value
    v.call.value = a.call
    v.call_button.click()
    assert t.phase == "play" and v.call_advice.value == "" and "to call" not in v.table.value
    assert v.status.value.startswith("<div>Trick 1 of 13: your card")


@pytest.mark.slow
def test_cards_are_clicked_in_the_pictured_hand_and_the_deal_is_replayed_after() -> None:
    """The picture carries the click handler and the hidden box; a card's letters in the box
    play it; every card in the page reads T♠ (no "10"); after the deal the after-deal view
    replays it and the review draws the chart."""
    import re

    from callbreak_lab.widgets.table_controller import PlayTable
    from callbreak_lab.widgets.table_view import PlayTableView

    t = PlayTable("online", 3, seed=21, opponents="simple", review_layouts=2)
    v = PlayTableView(t)
    assert "onclick=" in v.table.value and "cb-clickable-hand" in v.table.value
    assert v.click_box.layout.display == "none" and "cb-card-click" in v.click_box._dom_classes
    assert ">10<" not in v.table.value  # the faces read T, as the texts
    v.call.value = 2
    v.call_button.click()
    n = 0
    while t.phase == "play":
        bottom = re.search(r'data-side="s".*?</g></g>', v.table.value)
        assert bottom is not None
        card = _first_legal(t)
        assert f'data-card="{card}"' in v.table.value
        n += 1
        v.click_box.value = f"{card} {n}"  # what the picture's click handler writes
        assert f"you play {Card.parse(card).symbol()}" in t.log
    assert t.phase == "over" and n == 13 - 0 and "Deal 1 over" in v.status.value
    assert v.over_row.layout.display is None and "Totals after 1 deal(s)" in v.standing.value
    after = v._after_view
    assert after is not None and after.controller is t.after_deal()
    assert after.table.value.count('class="backs"') == 0
    assert after.controller.step == 0 and "as dealt" in after.where.value
    after.buttons[4].click()  # trick ▶▶
    assert after.controller.step == 4 and "wins the trick" in after.where.value
    after.slider.value = 52
    assert "Card 52 of 52" in after.where.value and after.chart.layout.display == "none"
    v.review_button.click()
    assert after.chart.layout.display == "block" and after.chart.value[:4] == b"\x89PNG"
    assert "Single-dummy review" in v.review.value and not re.search(
        r">\d?[2-9TJQKA][CDHS]<", v.review.value
    )
    assert v.after_pick.layout.display == "none"  # one deal over: nothing to choose yet
    v.next_button.click()
    assert t.deal_index == 1 and v.after.children == () and t.phase == "call"
    t.call(2)
    while t.phase == "play":
        v.clicked(_first_legal(t))
    assert v.after_pick.layout.display is None and v.after_pick.value == 2
    assert v._after_view is not None and v._after_view.controller is t.after_deal(2)
    assert "review my play" in v._after_view.chart_note.value  # no review of deal 2 yet
    v.after_pick.value = 1  # deal 1 again, its chart drawn from its review
    assert v._after_view.controller is t.after_deal(1)
    assert v._after_view.chart.layout.display == "block"


@pytest.mark.slow
def test_after_deal_steps_through_a_deal_and_charts_the_seat_s_values() -> None:
    from callbreak_lab.analysis.review import review_play
    from callbreak_lab.widgets.after_deal import AfterDeal
    from callbreak_lab.widgets.charts import deal_values_png
    from callbreak_lab.widgets.table_controller import PlayTable

    rules = Ruleset.preset("online")
    t = PlayTable(rules, 1, seed=4, opponents="simple")
    t.call(3)
    while t.phase == "play":
        t.play(_first_legal(t))
    deal, pos, record, calls = t.deal, t.position, t.position.record(), t.calls
    assert t.seat == 1 and calls[1] == 3
    a = AfterDeal(deal, record, rules, calls=calls, seat=1, title="test deal")
    assert a.length == 52 and a.step == 0 and a.position == Position(deal, rules)
    lines = a.trick_lines()
    assert len(lines) == 13 and lines[0].startswith("Trick 1: seat 0 ")
    assert lines[0].endswith(f"→ seat {pos.tricks[0].winner}")
    a.next_trick()
    a.next()
    assert a.step == 5 and len(a.position.history) == 5
    from callbreak_lab.widgets.after_deal_view import AfterDealView

    names = ["bot 1", "you", "bot 2", "bot 3"]
    shown = AfterDealView(AfterDeal(deal, record, rules, calls=calls, seat=1, names=names))
    shown.controller.go(5)  # a replay of a finished deal: the next card is no one's turn
    mover = names[shown.controller.position.to_move]
    assert "to play" not in shown.table.value and f"{mover} next<" in shown.table.value
    a.prev_trick()
    assert a.step == 4
    a.prev_trick()
    assert a.step == 0
    a.go(99)
    assert a.step == 52 and a.position.is_over
    assert a.values() == [] and a.final_score() == rules.score(3, pos.tricks_won[1]) / 10
    rv = review_play(deal, record, rules, calls=calls, layouts=2, seats=[1])
    a.set_review(rv)
    vals = a.values()
    assert [x.index for x in vals] == [i for i, (s, _c) in enumerate(pos.history) if s == 1]
    for x in vals:
        j = rv.cards[x.index]
        assert x.played == j.sd_expected and x.dd == rules.score(3, j.dd_value) / 10
    assert deal_values_png(vals, final=a.final_score(), at_trick=3)[:4] == b"\x89PNG"
    assert a.to_dict()["values"][0]["card"] == str(vals[0].card)
    with pytest.raises(UsageError, match="does not judge"):
        a.set_review(review_play(deal, record, rules, calls=calls, layouts=2, seats=[0]))
    with pytest.raises(UsageError, match="names"):
        AfterDeal(deal, record, rules, names=["a", "b"])


def test_the_bots_are_prepared_on_a_thread_and_ready_before_they_act() -> None:
    """The first deal's table shows before the bots are prepared; they are ready (and a
    failure to prepare is said) before any of them calls or plays."""
    from callbreak_lab.widgets.table_controller import PlayTable

    prepared: list[str] = []

    class Slow:
        def __init__(self, fail: bool = False) -> None:
            self.fail = fail

        def prepare(self, rules: Ruleset) -> None:
            if self.fail:
                raise UsageError("this bot cannot prepare")
            prepared.append(rules.name)

        def call(self, view: object) -> int:
            assert len(prepared) == 3  # every bot ready before the first acts
            return 1

        def play(self, view: object) -> Card:
            return next(iter(view.legal_cards()))  # type: ignore[attr-defined]

    t = PlayTable("online", 0, seed=1, opponents="simple")
    t.bots = {s: Slow() for s in (1, 2, 3)}
    t._start_deal()
    assert t.phase == "call" and t.call(2) and prepared == ["online"] * 3
    t.bots = {s: Slow(fail=s == 2) for s in (1, 2, 3)}
    t.new_match(3)  # new bots of the chosen kind replace these
    t.bots = {s: Slow(fail=s == 2) for s in (1, 2, 3)}
    t._start_deal()
    with pytest.raises(UsageError, match="cannot prepare"):
        t.call(2)
