"""The seat layer's card choice (``seat.policy``): layouts drawn by the calls never contradict
the table, each card's outcome counts the call, the built-in players by name (no variants),
values placed against the call early, and the table's card on hand-made positions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callbreak_lab.arena import make_player, run
from callbreak_lab.cards import Card, Deal, Hand
from callbreak_lab.game import Position
from callbreak_lab.rules import PRESETS
from callbreak_lab.seat import STRONG, Knowledge, card_outcomes, draw, solve_layouts


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    deal_seed=st.integers(0, 10_000),
    cards=st.integers(0, 44),
    seat=st.integers(0, 3),
    play_seed=st.integers(0, 1000),
    calls=st.lists(st.integers(1, 8), min_size=4, max_size=4),
)
def test_weighted_layouts_never_contradict_the_table(
    preset: str, deal_seed: int, cards: int, seat: int, play_seed: int, calls: list[int]
) -> None:
    rules = PRESETS[preset]
    calls = [max(rules.min_call, min(rules.max_call, c)) for c in calls]
    deal = Deal.random(deal_seed)
    pos = Position(deal, rules)
    rng = np.random.default_rng(play_seed)
    history = []
    for _ in range(cards):
        legal = list(pos.legal_cards())
        card = legal[int(rng.integers(len(legal)))]
        history.append((pos.to_move, int(card)))
        pos.play(card)
    hand_now = deal[seat].mask & ~sum(1 << c for s, c in history if s == seat)
    k = Knowledge.from_history(rules, seat, hand_now, history, calls)
    drawn = draw(k, 12, play_seed, beta=2.0)
    assert drawn.weights.sum() == 12 and 0 < drawn.ess <= drawn.candidates
    record = [c for _, c in history]
    for row in drawn.rows:
        layout = Deal([Hand(int(m)) for m in row])  # 13 cards each, disjoint: checked
        assert layout[seat] == deal[seat]  # the seat's own hand as dealt
        for s, c in history:
            assert int(row[s]) >> c & 1  # every card played belongs to its player
        Position.replay(layout, record, rules)  # every card was legal: no IllegalPlayError


def test_a_high_call_draws_the_top_cards_to_its_seat() -> None:
    """Seat 0 holds no spade honour; seat 1 called 7, seats 2 and 3 called 1. Uniform layouts
    give seat 1 a third of the hidden top spades; weighted ones give it far more."""
    rules = PRESETS["online"]
    hand = Hand.parse("5432.5432.5432.2")
    k = Knowledge.from_history(rules, 0, hand.mask, [], [2, 7, 1, 1])
    tops = [Card.parse(c) for c in ("AS", "KS", "QS", "JS", "AH", "AD", "AC")]

    def share(beta: float) -> float:
        drawn = draw(k, 400, 7, beta=beta)
        held = [np.mean([int(r[1]) >> c & 1 for c in tops]) for r in drawn.rows]
        return float(np.average(held, weights=drawn.weights))

    uniform, weighted = share(0.0), share(2.0)
    assert abs(uniform - 1 / 3) < 0.06
    assert weighted > uniform + 0.2


def test_card_outcomes_count_the_call() -> None:
    """Called 4 with 2 tricks won: card 10 gives 2 more tricks on every layout (the call made:
    4.0 points), card 20 gives 3 or 2 (a better mean, 2.5) on half the layouts each... and card
    30 gives 4 or 0 (mean 2, a failed call half the time)."""
    rules = PRESETS["online"]

    def table(values: list[dict[int, int]], weights: list[float]) -> dict[int, tuple[float, float]]:
        out = card_outcomes(values, np.array(weights), rules, call=4, won=2)
        return {int(c): (o.expected or 0.0, o.tricks) for c, o in out.cards.items()}

    def best(values: list[dict[int, int]], weights: list[float], objective: str) -> int:
        return int(card_outcomes(values, np.array(weights), rules, 4, 2).best(objective))

    values = [{10: 2, 20: 3, 30: 4}, {10: 2, 20: 2, 30: 0}]
    got = table(values, [1.0, 1.0])
    assert got[10] == pytest.approx((4.0, 4.0))  # tricks: the deal's total (2 won + 2)
    assert got[20] == pytest.approx(((4.1 + 4.0) / 2, 4.5))
    assert got[30] == pytest.approx(((4.2 - 4.0) / 2, 4.0))
    assert best(values, [1.0, 1.0], "score") == 20
    # one layout short by a trick: the safe card (makes the call for sure) beats the greedy one
    values = [{10: 2, 20: 3}, {10: 2, 20: 1}, {10: 2, 20: 3}]
    got = table(values, [1.0, 1.0, 1.0])
    assert got[20][1] > got[10][1]  # more tricks on average...
    assert best(values, [1.0, 1.0, 1.0], "tricks") == 20
    assert (
        best(values, [1.0, 1.0, 1.0], "score") == 10
    )  # ...but it fails the call a third of the time
    # weights count: the layout where the greedy card fails is unlikely
    assert best(values, [1.0, 0.01, 1.0], "score") == 20
    out = card_outcomes(values, np.array([1.0, 0.01, 1.0]), rules, 4, 2)
    assert out.cards[Card(10)].make == 1.0 and out.cards[Card(20)].make == pytest.approx(2 / 2.01)


@pytest.mark.slow
def test_strong_plays_a_deal() -> None:
    """Four players with strong at one seat: every card legal, no fault; the search ran."""
    report = run(["strong", "simple", "simple", "simple"], "modern", deals=1, seed=3)
    assert [f for b in report.boards for f in b.faults] == []
    assert report.player("strong").boards == 4
    player = make_player("strong", "modern")
    assert player.name == "strong"


def test_a_budgeted_strong_searches_the_first_trick_in_time() -> None:
    """With a budget strong searches the opening lead too: 64 full-deal layouts do not fit in
    1.5 s, so the search stops at the budget with the layouts solved by then, decision after
    decision (nothing learnt from a stopped search keeps the next one from searching). The
    budget leaves room for a layout or more on a loaded machine."""
    from callbreak_lab.arena.referee import seat_view

    budget = 1.5
    player = make_player("strong", "online", time_limit=budget)
    player.prepare(PRESETS["online"])
    for seed in range(3):
        player.new_deal(seed)
        pos = Position(Deal.random(100 + seed), "online")
        view = seat_view(pos, 0, [3, 3, 3, 3], time_limit=budget)
        card = player.play(view)
        assert card in pos.legal_cards()
        last = player.last  # type: ignore[attr-defined]
        assert last.how == "search" and 1 <= last.distinct < 64


def test_make_player_takes_the_built_ins_and_no_variant() -> None:
    """``strong`` is ``seat.policy.STRONG`` within its time limit; the measured variants of
    earlier versions (``strong:<flag>``, ``cheater:<call>``) are not players."""
    from callbreak_lab.arena.players import BUILTINS, StrongPlayer
    from callbreak_lab.errors import UsageError

    assert set(BUILTINS) == {
        "random", "simple", "honours", "model", "learned", "pimc", "strong", "cheater"
    }  # fmt: skip
    base = make_player("strong", "online", time_limit=0.5)
    assert isinstance(base, StrongPlayer) and base.policy == STRONG and base.time_limit == 0.5
    assert (base.policy.layouts, base.policy.objective) == (64, "score")
    plain = make_player("strong")
    assert isinstance(plain, StrongPlayer) and plain.time_limit is None
    # with a time limit every search stops in time, so strong searches the whole deal; without
    # one it plays the first three tricks without search
    first = Knowledge.from_history(PRESETS["online"], 0, Deal.random(3).hands[0].mask, [])
    assert base.policy.searches(first, 0.5) and not plain.policy.searches(first, None)
    assert base.policy.window_above == 40
    for gone in ("strong:wide", "strong:tricks:uniform", "strong:match", "cheater:model"):
        with pytest.raises(UsageError, match="unknown player"):
            make_player(gone)
    for bad in (0, -1.0, True, "1"):
        with pytest.raises(UsageError, match="time_limit"):
            make_player("strong", time_limit=bad)  # type: ignore[arg-type]


def after_three_tricks(deal: Deal, calls: list[int]) -> tuple[Position, Knowledge]:
    """``deal`` (online) after three tricks of everyone's lowest legal card, and what the seat
    to move knows then."""
    rules = PRESETS["online"]
    pos = Position(deal, rules)
    history = []
    for _ in range(12):
        card = min(pos.legal_cards())
        history.append((pos.to_move, int(card)))
        pos.play(card)
    seat = pos.to_move
    return pos, Knowledge.from_history(rules, seat, pos.hands[seat].mask, history, calls)


def test_strong_places_values_against_the_call_early_and_finds_them_later() -> None:
    """Before its call is made, in the first three tricks, strong asks of each card only
    whether it reaches the call and one trick more: the expected scores are those of the exact
    values clipped to that window, on the same layouts. Later, or once the call is made, it
    finds the exact values."""
    rules = PRESETS["online"]
    deal = Deal.random(11)
    calls = [3, 2, 3, 4]
    k = Knowledge.from_history(rules, 0, deal.hands[0].mask, [], calls)
    four = STRONG.replace(layouts=4, search_cards=52)  # searches from the first card
    early = four.choose(k, None, 5)
    exact = four.replace(window_above=52).choose(k, None, 5)
    assert early.window == (2, 4) and exact.window is None
    assert early.distinct == exact.distinct >= 1
    # the same as the exact values clipped to the window, layout by layout
    drawn = draw(k, 4, 5)
    solved = solve_layouts(k, drawn.rows)
    clipped = [{c: max(2, min(4, v)) for c, v in values.items()} for values in solved.values]
    want = card_outcomes(
        clipped, drawn.weights[list(solved.index)], rules, 3, 0, left=13, hand=k.hand
    )
    assert early.outcomes == want.cards
    # and it loses only the tenths of overtricks beyond the first
    for card, o in exact.outcomes.items():  # on the floor, the players' judgement
        assert o.floor_expected is not None
        score = early.outcomes[card].floor_expected
        assert score is not None
        assert o.floor_expected - 0.9 - 1e-9 <= score <= o.floor_expected + 1e-9
    k.tricks_won[0] = 3  # as if its three tricks were won already: the call is made
    assert four.choose(k, None, 5).window is None
    pos, later = after_three_tricks(deal, [6, 6, 6, 6])  # exact values again
    assert later.won == pos.tricks_won[later.seat]  # calls of 6: still to make after 3 tricks
    assert four.choose(later, None, 5).window is None


@pytest.mark.parametrize(
    ("name", "calls", "right", "dd_card"),
    [("SAFETY", [2, 2, 2, 4], "AC", "2S"), ("LONG_SHOT", [4, 2, 2, 2], "3S", None)],
)
def test_strong_finds_the_table_s_card_on_hand_made_positions(
    name: str, calls: list[int], right: str, dd_card: str | None
) -> None:
    """The single-dummy tests' hand-made positions (tests/test_advice.py): the seat to move
    needs a trick (SAFETY: the A♣ is the sure one, double-dummy leads a spade for an
    overtrick) or two (LONG_SHOT: the 3♠ is the best chance, double-dummy keeps a trick with
    the K♥). ``strong`` plays for its score and finds the table's card; in SAFETY the mean
    value alone would play the spade (the overtrick) instead."""
    from tests.test_advice import LONG_SHOT, SAFETY

    pos = {"SAFETY": SAFETY, "LONG_SHOT": LONG_SHOT}[name]
    seat = pos.to_move
    k = Knowledge.from_history(pos.rules, seat, pos.hand_masks()[seat], pos.history, calls)
    assert k.won == pos.tricks_won[seat]
    uniform = STRONG.replace(beta=0.0)
    score = uniform.choose(k, None, seed=5)
    assert score.card == Card.parse(right)
    if dd_card is not None:
        tricks = uniform.replace(objective="tricks").choose(k, None, seed=5)
        assert tricks.card != Card.parse(right)
        dd, safe = Card.parse(dd_card), Card.parse(right)
        assert tricks.outcomes[dd].tricks > tricks.outcomes[safe].tricks


def test_the_policy_and_the_advice_take_one_path() -> None:
    """``seat.outcomes.judge`` is the one draw -> solve -> outcomes path: the policy's outcomes
    and the single-dummy advice's are its outcomes on the same seed, and its plain data says
    what it weighed."""
    import json

    from callbreak_lab.analysis.advice import EXACT_LIMIT, values_from_knowledge
    from callbreak_lab.seat.outcomes import judge

    rules = PRESETS["online"]
    _, k = after_three_tricks(Deal.random(11), [3, 2, 3, 4])
    policy = STRONG.replace(layouts=6, window_above=52)
    found = judge(k, 6, 9, window=None)
    assert found.outcomes is not None
    assert policy.choose(k, None, 9).outcomes == found.outcomes.cards
    again = policy.judge(k, 9).outcomes
    assert again is not None and again.cards == found.outcomes.cards
    sd = values_from_knowledge(k, layouts=6, seed=9, n_jobs=1)
    exact = judge(k, 6, 9, exact_limit=EXACT_LIMIT, keep_first=True)
    assert exact.outcomes is not None and sd.outcomes == exact.outcomes.cards
    data = json.loads(json.dumps(found.to_dict()))
    assert data["distinct"] == len(found.solved) and set(data["outcomes"]) == {
        str(c) for c in found.outcomes.cards
    }
    assert rules == k.rules
