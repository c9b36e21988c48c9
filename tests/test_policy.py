"""The seat layer's card choice (``seat.policy``): layouts drawn by the calls never contradict
the table, each card's outcome counts the call, the ``strong`` player's variants, values placed
against the call early, and the table's card on hand-made positions."""

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
from callbreak_lab.seat.policy import RIVALS


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
    report = run(["strong", "simple", "simple", "simple"], "modern", 1, seed=3, progress=False)
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

    budget = 1500
    player = make_player("strong", "online", budget)
    player.prepare(PRESETS["online"])
    for seed in range(3):
        player.new_deal(seed)
        pos = Position(Deal.random(100 + seed), "online")
        view = seat_view(pos, 0, [3, 3, 3, 3], budget_ms=budget)
        card = player.play(view)
        assert card in pos.legal_cards()
        last = player.last  # type: ignore[attr-defined]
        assert last.how == "search" and 1 <= last.distinct < 64
        assert last.elapsed_ms < 10 * budget  # stopped by the budget, well within ten times it


def test_tricks_count_for_the_rivals_still_short_of_their_calls() -> None:
    """``rivals``: a trick the seat takes is worth ``rivals / 3`` points for each other seat
    still short of its call, so a card that takes more tricks at a small risk to the call can
    beat the safe one; without rivals short, or with ``rivals=0``, the safe card stays best."""
    rules = PRESETS["online"]
    # called 2, none won: card 10 makes exactly 2 on all eight layouts (2.0 points, 2 tricks);
    # card 20 takes 5 on seven and 1 on one (7/8 * 2.3 - 1/8 * 2 = 1.7625 points, 4.5 tricks)
    values = [{10: 2, 20: 5}] * 7 + [{10: 2, 20: 1}]
    out = card_outcomes(values, np.ones(8), rules, call=2, won=0)
    assert out.cards[Card(20)].expected == pytest.approx(1.7625)
    assert out.best("score") == 10
    assert out.best("score", trick_points=0.05) == 10  # 2.10 against 1.9875
    assert out.best("score", trick_points=0.2) == 20  # 2.40 against 2.6625

    hand = Deal.random(3).hands[0].mask
    k = Knowledge.from_history(rules, 0, hand, [], [3, 4, 2, 5])
    policy = STRONG.replace(rivals=1.5)
    assert policy.trick_points(k) == pytest.approx(1.5)  # all three others short
    k.tricks_won = [0, 4, 1, 5]  # seat 1 and seat 3 have made their calls
    assert policy.trick_points(k) == pytest.approx(0.5)
    k.tricks_won = [0, 4, 2, 5]
    assert policy.trick_points(k) == 0.0
    assert STRONG.trick_points(Knowledge.from_history(rules, 0, hand, [], [3, 4, 2, 5])) == 0.0
    assert policy.trick_points(Knowledge.from_history(rules, 0, hand, [])) == 0.0  # no calls
    # under home's scoring a call overshot by two fails: a trick is worth its own score alone
    home = Knowledge.from_history(PRESETS["home"], 0, hand, [], [3, 4, 2, 5])
    assert policy.trick_points(home) == 0.0
    with pytest.raises(ValueError, match="rivals"):
        STRONG.replace(rivals=-1)
    rivals = make_player("strong:rivals", "online", 500)
    assert rivals.policy == STRONG.replace(rivals=RIVALS)  # type: ignore[attr-defined]


def test_strong_variants_by_name() -> None:
    """The variants that measure each part, and a clear error for an unknown one."""
    from callbreak_lab.arena.players import StrongPlayer
    from callbreak_lab.errors import UsageError

    base = make_player("strong", "online", 500)
    assert isinstance(base, StrongPlayer) and base.policy == STRONG and base.budget_ms == 500
    assert (base.policy.layouts, base.policy.objective) == (64, "score")
    wide = make_player("strong:wide", "online", 500)
    assert isinstance(wide, StrongPlayer) and wide.policy.layouts == 256 and wide.budget_ms == 500
    early = make_player("strong:early", "online")
    plain = make_player("strong", "online")
    assert isinstance(early, StrongPlayer) and isinstance(plain, StrongPlayer)
    # with a budget every search stops in time, so strong searches the whole deal; without one
    # it plays the first three tricks by the cheap card unless it is strong:early
    first = Knowledge.from_history(PRESETS["online"], 0, Deal.random(3).hands[0].mask, [])
    assert base.policy.searches(first, 0.5) and early.policy.searches(first, None)
    assert not plain.policy.searches(first, None)
    both = make_player("strong:tricks:uniform", "online")
    assert isinstance(both, StrongPlayer) and both.policy.objective == "tricks"
    assert both.policy.beta == 0.0
    with pytest.raises(UsageError, match="unknown variant 'fast'"):
        make_player("strong:fast")
    exact = make_player("strong:exact", "online", 500)
    assert isinstance(exact, StrongPlayer) and exact.policy.window_above == 52
    assert base.policy.window_above == 40


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
    want = card_outcomes(clipped, drawn.weights[list(solved.index)], rules, 3, 0)
    assert early.outcomes == want.cards
    # and it loses only the tenths of overtricks beyond the first
    for card, o in exact.outcomes.items():
        assert o.expected is not None
        score = early.outcomes[card].expected
        assert score is not None and o.expected - 0.9 - 1e-9 <= score <= o.expected + 1e-9
    k.tricks_won[0] = 3  # as if its three tricks were won already: the call is made
    assert four.choose(k, None, 5).window is None
    pos, later = after_three_tricks(deal, [6, 6, 6, 6])  # exact values again
    assert later.won == pos.tricks_won[later.seat]  # calls of 6: still to make after 3 tricks
    assert four.choose(later, None, 5).window is None


def test_strong_prune_searches_only_the_cards_the_play_policy_finds_likely() -> None:
    """``strong:prune`` values in the first three tricks only the cards the learned policy
    gives at least ``PRUNE`` of its likeliest card's probability: those cards' outcomes are the
    unpruned search's on the same layouts, its card is among them, and from trick 4 on it
    searches every card."""
    from callbreak_lab.arena.players import StrongPlayer
    from callbreak_lab.seat.playmodel import card_proba, load_play_model
    from callbreak_lab.seat.policy import PRUNE

    rules = PRESETS["online"]
    player = make_player("strong:prune", "online", 500)
    assert isinstance(player, StrongPlayer) and player.policy.prune == PRUNE > 0
    assert (
        STRONG.prune == 0
        and STRONG.searched_cards(
            Knowledge.from_history(rules, 0, Deal.random(3).hands[0].mask, [])
        )
        is None
    )
    four = STRONG.replace(layouts=4, search_cards=52)
    pruned = four.replace(prune=PRUNE)
    left_out = 0
    for seed in range(6):
        deal = Deal.random(40 + seed)
        k = Knowledge.from_history(rules, 0, deal.hands[0].mask, [], [3, 3, 3, 3])
        proba = card_proba(load_play_model(rules), k)
        mask = pruned.searched_cards(k)
        assert mask is not None and mask & ~k.legal_mask() == 0
        kept = {c for c in proba if (mask >> c) & 1}
        assert kept == {c for c, p in proba.items() if p >= PRUNE * max(proba.values())}
        full = four.choose(k, None, seed)
        some = pruned.choose(k, None, seed)
        assert set(kept) <= set(some.outcomes) <= set(full.outcomes)
        assert some.outcomes == {c: full.outcomes[c] for c in some.outcomes}
        assert some.card in some.outcomes
        left_out += len(some.outcomes) < len(full.outcomes)
    assert left_out >= 3  # the policy finds some opening leads unlikely on most hands
    _, later = after_three_tricks(Deal.random(41), [3, 3, 3, 3])
    assert pruned.searched_cards(later) is None
    with pytest.raises(ValueError, match="prune must be a number in"):
        STRONG.replace(prune=1.5)
    with pytest.raises(ValueError, match="prune_above must be a whole number"):
        STRONG.replace(prune_above=60)


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
