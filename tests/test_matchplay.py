"""Playing the match's last deal for the match (``seat.matchplay``, ``SearchPolicy(match=True)``,
the ``strong:match`` player): the chance of winning the match after each card, checked against
an independent count over the same layouts; a known position where the match card is not the
points card; and the card unchanged wherever the standing cannot matter."""

from __future__ import annotations

import numpy as np
import pytest

from callbreak_lab import solver
from callbreak_lab.arena import make_player
from callbreak_lab.arena.players import StrongPlayer
from callbreak_lab.cards import Card, Deal, Hand
from callbreak_lab.game import Position, random_player
from callbreak_lab.rules import PRESETS
from callbreak_lab.seat import STRONG, Knowledge, draw
from callbreak_lab.seat.matchplay import standing_matters, win_shares

ONLINE = PRESETS["online"]
POINTS = STRONG.replace(layouts=16)
MATCH = POINTS.replace(match=True)

# The last deal of a match, 40 cards played: seat 3 (called 4, three tricks won) is to lead,
# 2.5 points behind seat 0 (72 against 47 tenths), with seats 1 and 2 far behind.
DEAL = "873.AJ32.Q52.K75 54.Q765.AKT96.92 KQJ62.K.87.QJT63 AT9.T984.J43.A84"
RECORD = (
    "JH QH KH 9H | 3C AC KC 9C | 4H AH 6H JS | TC 8C 7C 2C | JC 4C 5C 5S | 9D 7D JD QD | "
    "7S 4S KS AS | 3D 5D TD 8D | 7H 2S 8H 2H | 6C 9S 2D AD"
)
CALLS = (3, 1, 4, 4)
TOTALS = (72, 24, 29, 47)


def _last_deal(totals: tuple[int, int, int, int] = TOTALS, deals_left: int = 0) -> Knowledge:
    pos = Position.replay(Deal.parse(DEAL), RECORD, ONLINE)
    k = Knowledge.of_position(pos, pos.to_move, CALLS)
    k.totals, k.deals_left = totals, deals_left
    return k


def test_win_shares_split_ties() -> None:
    got = win_shares(np.array([[5, 9, 9, 1], [3, 3, 3, 3], [10, 0, 0, 0]]))
    assert got.tolist() == [[0, 0.5, 0.5, 0], [0.25] * 4, [1, 0, 0, 0]]


def test_the_match_card_is_not_the_points_card_here() -> None:
    k = _last_deal()
    assert k.seat == 3 and standing_matters(k)
    points = POINTS.choose(k, None, 1)
    match = MATCH.choose(k, None, 1)
    assert points.how == "search" and match.how == "match"
    assert points.card == Card.parse("TH") and match.card == Card.parse("4D")
    assert match.match[match.card] > match.match[points.card]
    # the expected points of the match card are lower: it gives up points for the match
    assert match.outcomes[match.card].expected < match.outcomes[points.card].expected  # type: ignore[operator]


def test_the_chances_are_an_independent_count_over_the_same_layouts() -> None:
    """Each card's chance: over the layouts the policy drew (the same seed), the seat's share
    of the match win when every seat plays the deal out for itself after the card."""
    k = _last_deal()
    choice = MATCH.choose(k, None, 1)
    drawn = draw(k, 16, 1)
    record = Position.replay(Deal.parse(DEAL), RECORD, ONLINE).record()
    for card, chance in choice.match.items():
        wins, total = 0.0, 0.0
        for row, weight in zip(drawn.rows, drawn.weights, strict=True):
            deal = Deal([Hand(int(m)) for m in row])
            pos = Position.replay(deal, f"{record} | {card}", ONLINE)
            tricks = solver.playout(pos).tricks
            finals = [TOTALS[s] + ONLINE.score(CALLS[s], tricks[s]) for s in range(4)]
            top = max(finals)
            share = 1 / finals.count(top) if finals[3] == top else 0.0
            wins += weight * share
            total += weight
        assert chance == pytest.approx(wins / total, abs=1e-12), card


@pytest.mark.parametrize(
    ("totals", "deals_left", "calls_known"),
    [(TOTALS, 1, True), ((40, 40, 40, 40), 0, True), (TOTALS, 0, False), (TOTALS, None, True)],
)
def test_the_card_is_unchanged_where_the_standing_cannot_matter(
    totals: tuple[int, int, int, int], deals_left: int | None, calls_known: bool
) -> None:
    """Deals still to come after this one (the equity then moves little with one trick), level
    totals, calls not known, or no standing at all: the points card, and no play-out run."""
    k = _last_deal(totals, 0 if deals_left is None else deals_left)
    if deals_left is None:
        k.totals, k.deals_left = None, None
    if not calls_known:
        k.calls = (None, None, None, None)
    assert not standing_matters(k)
    match, points = MATCH.choose(k, None, 1), POINTS.choose(k, None, 1)
    assert match.card == points.card and match.outcomes == points.outcomes
    assert match.match == {} and match.how == points.how == "search"


def test_the_first_deal_of_a_match_plays_as_before() -> None:
    """Arena views of a match's first deal carry the standing (all zero, four deals left):
    ``strong:match`` plays exactly ``strong``'s cards."""
    from callbreak_lab.arena.referee import seat_view

    plain, match = make_player("strong", "online"), make_player("strong:match", "online")
    assert isinstance(match, StrongPlayer) and match.policy.match
    for seed in range(3):
        pos = Position(Deal.random(400 + seed), ONLINE)
        policy = random_player(seed)
        while len(pos.history) < 36 + seed:
            pos.play(policy(pos))
        view = seat_view(pos, pos.to_move, [2, 3, 3, 2], totals=(0, 0, 0, 0), deal_number=1)
        k = Knowledge.of_view(view)
        assert k.deals_left == 4 and k.totals == (0, 0, 0, 0)
        for p in (plain, match):
            p.new_deal(seed)
        assert plain.play(view) == match.play(view)


def test_a_bhoos_request_carries_the_standing() -> None:
    from callbreak_lab.arena.protocol import play_body
    from callbreak_lab.arena.referee import seat_view

    pos = Position.replay(Deal.parse(DEAL), RECORD, ONLINE)
    view = seat_view(pos, pos.to_move, CALLS, totals=TOTALS, deal_number=5)
    k = Knowledge.from_bhoos(play_body(view, 1000), ONLINE)
    assert k.totals == TOTALS and k.deals_left == 0 and k.calls == CALLS
    assert MATCH.choose(k, None, 1).card == Card.parse("4D")
