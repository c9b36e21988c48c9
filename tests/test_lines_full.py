"""Lines and reviews of whole random deals against the solver facade (needs callbreak_lab.solver's
``solve``, ``card_values`` and ``playout``)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import callbreak_lab.solver as solver
from callbreak_lab import Card, Deal, Hand, Position, random_player
from callbreak_lab.analysis.lines import play_line, playout_line
from callbreak_lab.analysis.review import analyse_play
from callbreak_lab.cards import play_order_key

# seeds whose lines the solver finds quickly (solve times vary a lot between deals)
CASES = [(5, "modern", 1), (1, "online", 0), (2, "strict", 0)]


def _playout_parts(result: Any) -> tuple[list[Card], tuple[int, ...]]:
    if hasattr(result, "cards"):
        cards, tricks = result.cards, result.tricks
    else:
        cards, tricks = result[0], result[1]
    return [Card.parse(c) for c in cards], tuple(int(t) for t in tricks)


@pytest.mark.parametrize(("seed", "rules", "seat"), CASES)
def test_full_line(seed: int, rules: str, seat: int) -> None:
    pos = Position(Deal.random(seed), rules)
    line = play_line(pos, seat, rules)
    assert line.value == solver.solve(pos, seat, pos.rules)
    assert len(line.steps) == 52 and sum(line.tricks) == 13
    replayed = Position.replay(pos.deal, line.cards(), rules)  # every card legal
    assert replayed.tricks_won == line.tricks
    for s in line.steps:
        assert s.value == s.best == line.value
        mine = s.seat == seat
        assert s.best == (max if mine else min)(s.values.values())
        assert s.card == min((c for c, v in s.values.items() if v == s.best), key=play_order_key)
        assert (s.forced is not None) == (len(s.values) == 1)
    # branching with a worse card changes the outcome by what card_values predicted
    tried = 0
    for i, s in enumerate(line.steps):
        worse = [c for c, v in s.values.items() if v != s.best]
        if not worse or tried == 2:
            continue
        tried += 1
        c = worse[0]
        b = line.branch(i, c)
        assert b.delta == s.values[c] - s.best != 0
        assert b.value == s.values[c]
        assert b.cards()[:i] == line.cards()[:i] and b.steps[i].card == c
        assert b.base is line and b.branched_at == i
        assert Position.replay(pos.deal, b.cards(), rules).tricks_won == b.tricks
    assert tried


@pytest.mark.parametrize(("seed", "rules", "seat"), [CASES[0], CASES[2]])
def test_playout_line_matches_solver(seed: int, rules: str, seat: int) -> None:
    del seat
    pos = Position(Deal.random(seed), rules)
    line = playout_line(pos, rules, calls=[3, 3, 3, 3])
    cards, tricks = _playout_parts(solver.playout(pos, pos.rules))
    assert line.cards() == cards
    assert line.tricks == tricks and sum(line.tricks) == 13
    for s in line.steps:
        assert s.target == s.seat and s.is_best and s.best == max(s.values.values())
    d = line.to_dict()
    assert d["tricks"] == list(tricks) and d["seat"] is None and len(d["steps"]) == 52


def test_analyse_random_play() -> None:
    deal = Deal.random(5)
    rules = "modern"
    pos = Position(deal, rules)
    policy = random_player(9)
    while not pos.is_over:
        pos.play(policy(pos))
    review = analyse_play(deal, pos.record(), rules, calls="3,3,3,3")
    assert review.complete and review.tricks == pos.tricks_won
    check = Position(deal, rules)
    flagged = []
    for e in review.entries:
        s = e.step
        raw = solver.card_values(check, s.seat, check.rules)
        base = check.tricks_won[s.seat]
        assert e.before == base + max(raw.values())
        assert e.after == base + raw[s.card]
        if raw[s.card] < max(raw.values()):
            flagged.append(len(check.history))
            assert set(e.better()) == {c for c, v in raw.items() if v > raw[s.card]}
        check.play(s.card)
    assert [e.step.index for e in review.flagged()] == flagged
    assert flagged, "a random player should lose some tricks"
    assert sum(review.lost_per_seat) == sum(e.lost for e in review.flagged())
    assert review.to_dict()["summary"]["flagged"] == list(review.flagged_per_seat)
    text = str(review)
    assert "Cards that lost tricks:" in text and "better:" in text
    # a prefix review covers just those cards
    part = analyse_play(deal, pos.record().split("|")[0], rules)
    assert len(part.entries) == 4 and not part.complete


def _deal_with(seat0: Hand, seed: int) -> Deal:
    rest = [c for c in range(52) if c not in seat0]
    random.Random(seed).shuffle(rest)
    return Deal([seat0, *(Hand.from_cards(rest[13 * i : 13 * i + 13]) for i in range(3))])


def test_first_trick_spade_ban() -> None:
    # seat 0 holds twelve spades and the 2C: under strict it must lead the club
    spades = Hand.parse("AKQJT98765432...")
    deal = _deal_with(spades - Hand.parse("AS") | Hand.parse("2C"), 0)
    line = play_line(Position(deal, "strict"), 0, "strict")
    first = line.steps[0]
    assert first.card == Card.parse("2C")
    assert first.forced == "first trick: no spade lead while holding another suit"
    free = play_line(Position(deal, "modern"), 0, "modern").steps[0]
    assert free.forced is None and free.restriction is None and len(free.values) == 13
    # several other cards: restricted but not forced
    deal2 = _deal_with(spades - Hand.parse("AS KS QS") | Hand.parse("2C 3D 4H"), 1)
    step = play_line(Position(deal2, "strict"), 0).steps[0]
    assert step.forced is None
    assert step.restriction == "first trick: no spade lead while holding another suit"
    assert sorted(map(str, step.values)) == ["2C", "3D", "4H"]
