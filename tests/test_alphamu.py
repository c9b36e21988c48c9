"""The αμ search over the layouts (``seat.alphamu``): the seat's next decisions without strategy
fusion, against the layouts' double-dummy values (PIMC) on known positions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from callbreak_lab.arena import make_player
from callbreak_lab.cards import Card, Deal
from callbreak_lab.errors import UsageError
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat import STRONG, Knowledge, card_outcomes, draw, solve_layouts
from callbreak_lab.seat.alphamu import alphamu_values, pareto
from callbreak_lab.solver import SearchTimeout

ONLINE = Ruleset.coerce("online")

# Seat 3 leads the eleventh trick holding K♥ 9♦ 6♦; the hidden cards lie one of two ways,
# which differ only by where the 4♥ and the 3♦ are (seat 0 or seat 2, who holds the 3♠).
RECORD = [16, 24, 25, 13, 41, 50, 43, 39, 35, 33, 30, 36, 48, 51, 46, 44, 15, 18, 42, 19]
RECORD += [26, 38, 27, 32, 47, 45, 12, 8, 49, 22, 7, 1, 4, 11, 6, 10, 34, 31, 0, 29]
LAYOUTS = (
    "96.9874.T75.AJ98 752.62.K.QT75432 QJT43.AQ5.AQ83.6 AK8.KJT3.J9642.K",
    "96.987.T753.AJ98 752.62.K.QT75432 QJT43.AQ54.AQ8.6 AK8.KJT3.J9642.K",
)


def knowledge_and_rows(
    layouts: tuple[str, ...], record: list[int], seat: int
) -> tuple[Knowledge, np.ndarray]:
    deals = [Deal.parse(text) for text in layouts]
    hand = Position.replay(deals[0], record, ONLINE).hands[seat].mask
    history = []
    pos = Position(deals[0], ONLINE)
    for c in record:
        history.append((pos.to_move, c))
        pos.play(Card(c))
    k = Knowledge.from_history(ONLINE, seat, int(hand), history, [None] * 4)
    rows = np.array([[int(h.mask) for h in d.hands] for d in deals], dtype=np.uint64)
    return k, rows


def test_a_later_guess_is_not_counted_as_won() -> None:
    k, rows = knowledge_and_rows(LAYOUTS, RECORD, 3)
    pimc = alphamu_values(k, rows, np.ones(2), depth=1)
    fused_free = alphamu_values(k, rows, np.ones(2), depth=2)
    # on each layout alone a diamond lead makes one more trick (5 in all): the seat would then
    # play its next card knowing the layout; it cannot tell them apart, so it makes it on one
    assert pimc == {Card.parse("6D"): 5.0, Card.parse("9D"): 5.0, Card.parse("KH"): 4.5}
    assert fused_free == {Card.parse("6D"): 4.5, Card.parse("9D"): 4.5, Card.parse("KH"): 4.5}
    assert alphamu_values(k, rows, np.ones(2), depth=3) == fused_free


def test_depth_one_is_the_layouts_double_dummy_values() -> None:
    deal = Deal.random(77)
    pos = Position(deal, ONLINE)
    rng = random.Random(5)
    history = []
    while len(history) < 36:
        c = rng.choice(list(pos.legal_cards()))
        history.append((pos.to_move, int(c)))
        pos.play(c)
    seat = pos.to_move
    calls = [3, 4, 2, 3]
    k = Knowledge.from_history(ONLINE, seat, int(pos.hands[seat].mask), history, calls)
    drawn = draw(k, 16, 3)
    solved = solve_layouts(k, drawn.rows)
    outcomes = card_outcomes(solved.values, drawn.weights, ONLINE, k.own_call, k.won).cards
    values = alphamu_values(k, drawn.rows, drawn.weights, depth=1)
    assert set(values) == set(outcomes)
    for c, o in outcomes.items():
        assert values[c] == pytest.approx(o.expected)
    # the seat's later cards played without knowing the layout: never worth more
    deeper = alphamu_values(k, drawn.rows, drawn.weights, depth=3)
    assert all(deeper[c] <= values[c] + 1e-9 for c in values)


def test_pareto_keeps_the_vectors_nothing_beats() -> None:
    front = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.5, 0.0], [1.0, 0.0]])
    kept = pareto(front, np.array([0.5, 0.5]))
    assert sorted(map(tuple, kept)) == [(0.0, 1.0), (0.5, 0.5), (1.0, 0.0)]
    capped = pareto(front, np.array([0.9, 0.1]), cap=1)
    assert capped.tolist() == [[1.0, 0.0]]


def test_a_deadline_passed_stops_the_search() -> None:
    k, rows = knowledge_and_rows(LAYOUTS, RECORD, 3)
    with pytest.raises(SearchTimeout):
        alphamu_values(k, rows, np.ones(2), depth=2, deadline=0.0)


def test_strong_am_searches_the_last_tricks_without_fusion() -> None:
    policy = make_player("strong:am").policy  # type: ignore[attr-defined]
    assert policy.alphamu == 2 and STRONG.alphamu == 0
    k, _rows = knowledge_and_rows(LAYOUTS, RECORD, 3)
    choice = policy.choose(k, None, 11)
    assert choice.how == "alphamu" and (k.legal_mask() >> choice.card) & 1
    # a time already spent keeps the plain search's card (it never answers late)
    assert policy.choose(k, 1e-6, 11).how != "alphamu"
    with pytest.raises(UsageError, match="alphamu"):
        STRONG.replace(alphamu=-1)
    with pytest.raises(UsageError, match="alphamu_cards"):
        STRONG.replace(alphamu_cards=53)
