"""Annotated lines on hand-built endings (known lines and reasons) and small random endings,
checked against the brute-force reference in tests/reference."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Sequence

import numpy as np
import pytest

from callbreak_lab import Card, Deal, Hand, Position, Ruleset, random_player
from callbreak_lab.analysis.lines import LAST_CARD, play_line, playout_line
from callbreak_lab.analysis.review import analyse_play
from callbreak_lab.errors import (
    CallError,
    CardError,
    DealError,
    IllegalPlayError,
    RecordError,
    SeatError,
    SolverInputError,
)
from tests.reference import minimax as ref


def ref_card_values(pos: Position, target: int, rules: Ruleset | None = None) -> dict[Card, int]:
    """Brute-force ``card_values``: remaining tricks (current one included) for ``target``."""
    r = pos.rules
    out = {}
    for c in pos.legal_cards():
        p = pos.copy()
        before = p.tricks_won[target]
        p.play(c)
        hands = tuple(frozenset(int(x) for x in h) for h in p.hands)
        rest = 0
        if not p.is_over:
            rest = ref.dd_value(
                hands, [int(x) for x in p.trick], p.leader, target,
                r.must_beat, r.void_rule, r.first_trick_spade_ban, p.is_first_trick,
            )  # fmt: skip
        out[c] = p.tricks_won[target] - before + rest
    return out


FILLER_RULES = Ruleset.preset("pagat")


def ending(
    hands: Sequence[str], rules: str, leader: int = 0, trick: str = "", seed: int = 0
) -> Position:
    """A position whose remaining cards are ``hands`` (the cards each seat still holds, space
    separated) after ``trick`` (cards already in the current trick, led by ``leader``).

    The other cards are dealt at random and played as filler tricks that never touch the
    ending's cards and leave ``leader`` on lead (randomised depth-first search, restarted on a
    new filler deal when its node budget runs out). A filler legal under ``rules`` is rare when
    must-beat meets high ending cards, so the filler is played under the loosest preset
    (``pagat``) and the position then switched to ``rules``: the ending itself is what the
    tests are about, and every card of it is checked legal under ``rules``."""
    r = Ruleset.preset(rules)
    pos = _filler(tuple(hands), leader, trick, seed).copy()
    pos.rules = r
    pos._flags = r.kernel_flags()  # test-only: switch the ruleset for the ending
    for c in trick.split():
        pos.play(c)  # checked legal under ``rules``
    return pos


@functools.cache
def _filler(hands: tuple[str, ...], leader: int, trick: str, seed: int) -> Position:
    held = [Hand.parse(h.split()) if h else Hand() for h in hands]
    played = [Card.parse(c) for c in trick.split()]
    own = [h.mask for h in held]
    for i, c in enumerate(played):
        own[(leader + i) % 4] |= c.mask
    fill_cards = 4 * (13 - len(held[leader]) - (1 if played else 0))
    used = own[0] | own[1] | own[2] | own[3]
    rest = [c for c in range(52) if not used >> c & 1]
    rng = random.Random(seed)
    for _ in range(500):
        rng.shuffle(rest)
        masks, k = [], 0
        for s in range(4):
            need = 13 - own[s].bit_count()
            masks.append(own[s] | sum(1 << c for c in rest[k : k + need]))
            k += need
        pos = Position(Deal([Hand(m) for m in masks]), FILLER_RULES)
        budget = [300]

        def search(pos: Position = pos, budget: list[int] = budget) -> bool:
            if len(pos.history) == fill_cards:
                return pos.leader == leader
            budget[0] -= 1
            if budget[0] < 0:
                return False
            m = pos.legal_mask() & ~own[pos.to_move]
            choices = [c for c in range(52) if m >> c & 1]
            rng.shuffle(choices)
            for c in choices:
                pos.play(c)
                if search():
                    return True
                pos.unplay()
            return False

        if search():
            return pos
    raise AssertionError("no filler found")


def check_against_reference(line_steps, start: Position) -> None:
    pos = start.copy()
    for s in line_steps:
        want = ref_card_values(pos, s.target)
        base = pos.tricks_won[s.target]
        assert {c: v for c, v in s.values.items()} == {c: base + v for c, v in want.items()}
        pos.play(s.card)


# --- hand-built endings ---------------------------------------------------------------------------


def must_beat_ending(rules: str) -> Position:
    """Seat 0 led QH; seat 1 holds KH 3H; KH wins both tricks, 3H neither."""
    return ending(["AC", "KH 3H", "4H 2C", "5H 3C"], rules, leader=0, trick="QH")


@pytest.mark.parametrize("rules", ["modern", "strict", "online"])
def test_must_beat(rules: str) -> None:
    pos = must_beat_ending(rules)
    line = play_line(pos, 1, rules)
    first = line.steps[0]
    assert (first.seat, first.card, first.forced) == (1, Card.parse("KH"), "must beat the Q♥")
    assert first.restriction == "must beat the Q♥"
    assert line.value == pos.tricks_won[1] + 2
    assert line.steps[-1].forced == LAST_CARD
    assert "S1 KH*" in str(line)
    check_against_reference(line.steps, pos)


@pytest.mark.parametrize("rules", ["home", "pagat"])
def test_no_must_beat(rules: str) -> None:
    pos = must_beat_ending(rules)
    line = play_line(pos, 1, rules)
    first = line.steps[0]
    base = pos.tricks_won[1]
    assert first.card == Card.parse("KH") and first.forced is None
    assert first.restriction == "must follow hearts"
    assert first.values == {Card.parse("KH"): base + 2, Card.parse("3H"): base}
    assert first.best == base + 2
    # branching to the low heart costs both tricks
    worse = line.branch(0, "3H")
    assert worse.delta == -2 and worse.value == base
    assert worse.steps[0].card == Card.parse("3H")
    assert "loses 2 tricks" in str(worse)
    check_against_reference(worse.steps, pos)


@pytest.mark.parametrize("rules", ["modern", "strict", "online", "home", "pagat"])
def test_void_must_trump(rules: str) -> None:
    # clubs led, seat 1 void in clubs with 2S and KD: any spade would win, so it must trump
    pos = ending(["AD", "2S KD", "4C 5D", "6C 7D"], rules, leader=0, trick="KC")
    line = play_line(pos, 1, rules)
    first = line.steps[0]
    assert first.card == Card.parse("2S")
    assert first.forced == "void in clubs: must trump"
    assert line.tricks[1] - pos.tricks_won[1] == 1
    check_against_reference(line.steps, pos)


@pytest.mark.parametrize("rules", ["modern", "strict", "online", "home", "pagat"])
def test_must_overtrump(rules: str) -> None:
    pos = ending(["3S KD", "6C AD", "2D", "3D"], rules, leader=2, trick="4C 2S")
    line = play_line(pos, 0, rules)
    first = line.steps[0]
    assert (first.seat, first.card) == (0, Card.parse("3S"))
    assert first.forced == "void in clubs: must overtrump the 2♠"
    assert line.steps[1].winner == 0
    check_against_reference(line.steps, pos)


@pytest.mark.parametrize("rules", ["modern", "strict"])
def test_losing_spade_strict(rules: str) -> None:
    pos = ending(["2S KD", "6C AD", "2D", "3D"], rules, leader=2, trick="4C 3S")
    line = play_line(pos, 0, rules)
    first = line.steps[0]
    assert first.card == Card.parse("2S")
    assert first.forced == "cannot overtrump the 3♠: must still play a spade"
    assert line.value == pos.tricks_won[0]
    check_against_reference(line.steps, pos)


@pytest.mark.parametrize("rules", ["online", "home", "pagat"])
def test_losing_spade_win_only(rules: str) -> None:
    # under win_only the losing spade is not compulsory: discarding KD keeps 3S to trump later
    pos = ending(["2S KD", "6C AD", "2D", "3D"], rules, leader=2, trick="4C 3S")
    line = play_line(pos, 0, rules)
    first = line.steps[0]
    base = pos.tricks_won[0]
    assert first.forced is None and first.restriction is None
    assert first.values == {Card.parse("2S"): base, Card.parse("KD"): base + 1}
    assert first.card == Card.parse("KD") and line.value == base + 1
    assert (line.steps[3].seat, line.steps[3].card) == (0, Card.parse("2S"))
    assert line.steps[3].forced == LAST_CARD
    check_against_reference(line.steps, pos)
    branch = line.branch(0, "2S")
    assert branch.delta == -1 and branch.change is not None and sum(branch.change) == 0


def test_tie_break_lowest_card() -> None:
    # every card of seat 0 is worth the same: the lowest (rank, then clubs<..<spades) is played
    pos = ending(["AS KS", "2H 3H", "4H 5H", "6H 7H"], "modern", leader=0)
    line = play_line(pos, 0)
    assert line.steps[0].values == {Card.parse("AS"): 2 + pos.tricks_won[0],
                                    Card.parse("KS"): 2 + pos.tricks_won[0]}  # fmt: skip
    assert line.steps[0].card == Card.parse("KS")
    pos = ending(["5S 5H", "2D 3D", "4D 6D", "7D 8D"], "pagat", leader=0)
    assert play_line(pos, 0).steps[0].card == Card.parse("5H")


def test_opponents_minimise() -> None:
    # seat 1 (an opponent of studied seat 0) overtakes with AH rather than let QH win
    pos = ending(["2C", "AH 3H", "4C 5C", "6C 7C"], "pagat", leader=0, trick="QH")
    line = play_line(pos, 0)
    s1 = line.steps[0]
    assert s1.seat == 1 and s1.best == min(s1.values.values())
    assert s1.card == Card.parse("AH")
    check_against_reference(line.steps, pos)


# --- random small endings against the reference ---------------------------------------------


def random_ending(seed: int, rules: str, cards_left: int) -> Position:
    pos = Position(Deal.random(seed), rules)
    policy = random_player(seed)
    while 52 - len(pos.history) > cards_left:
        pos.play(policy(pos))
    return pos


@pytest.mark.parametrize("rules", ["modern", "strict", "online", "home", "pagat"])
def test_random_endings_match_reference(rules: str) -> None:
    for seed in range(3):
        pos = random_ending(seed, rules, 9 + seed % 3)
        seat = seed % 4
        line = play_line(pos, seat)
        first_values = ref_card_values(pos, seat)
        best = (max if pos.to_move == seat else min)(first_values.values())
        assert line.value == pos.tricks_won[seat] + best
        check_against_reference(line.steps, pos)
        replayed = Position.replay(pos.deal, [c for _, c in pos.history] + line.cards(), rules)
        assert replayed.is_over and replayed.tricks_won == line.tricks
        po = playout_line(pos)
        assert sum(po.tricks) == 13
        check_against_reference(po.steps, pos)
        for s in po.steps:
            assert s.best == max(s.values.values()) and s.is_best


def test_line_with_calls_and_dict() -> None:
    pos = must_beat_ending("modern")
    line = play_line(pos, 1, calls="3,4,2,3")
    d = json.loads(json.dumps(line.to_dict()))
    assert d["tricks"] == list(line.tricks) and d["seat"] == 1 and d["calls"] == [3, 4, 2, 3]
    assert [s["card"] for s in d["steps"]] == [str(c) for c in line.cards()]
    first = d["steps"][0]
    assert first["forced"] == "must beat the QH" and first["values"] == {"KH": first["best"]}
    assert "winner" not in first
    assert d["steps"][2]["winner"] == 1  # the 4th card of the trick
    text = str(line)
    assert "/4" in text and "Legend" in text and "(QH)" in text
    assert "S1 KH*" in line.text(detail=True) and "forced: must beat the QH" in line.text(True)


def test_html_is_escaped_and_marked() -> None:
    pos = ending(["2S KD", "6C AD", "2D", "3D"], "online", leader=2, trick="4C 3S")
    html = play_line(pos, 0)._repr_html_()
    assert "♦" in html and "#c0392b" in html and "<table" in html
    assert "title=" in html and "wins" in html
    pos = must_beat_ending("modern")
    html = play_line(pos, 1)._repr_html_()
    assert "forced: must beat the Q♥" in html and "<sup" in html
    assert "<script" not in html


def test_errors() -> None:
    pos = must_beat_ending("home")
    line = play_line(pos, 1)
    with pytest.raises(SeatError, match=r"seat must be 0\.\.3"):
        play_line(pos, 4)
    with pytest.raises(SolverInputError, match="step index"):
        line.branch(99, "3H")
    for index in (1.5, True, "1"):  # 1.5 and "1" were TypeErrors, True was step 1
        with pytest.raises(SolverInputError, match="step index must be a whole number"):
            line.position(index)  # type: ignore[arg-type]
    with pytest.raises(IllegalPlayError, match="does not hold AS"):
        line.branch(0, "AS")
    with pytest.raises(CardError, match="unknown rank"):
        line.branch(0, "ZH")
    with pytest.raises(CallError, match="calls need one value per seat"):
        play_line(pos, 1, calls="3,4")
    with pytest.raises(CallError, match="whole numbers"):
        play_line(pos, 1, calls="a,b,c,d")
    with pytest.raises(CallError, match=r"calls are 2\.\.13"):
        play_line(pos, 1, calls=[1, 3, 3, 3])
    with pytest.raises(DealError, match="a deal is four hands"):
        play_line("AKQ", 1, "home")
    assert play_line(pos.deal, 1).rules.name == "online"  # a deal without rules: DEFAULT_RULES
    with pytest.raises(SolverInputError, match="need a Position, a Deal or deal text, got int"):
        play_line(5, 1, "home")  # type: ignore[arg-type]
    with pytest.raises(CallError, match=r"seat 0.s call must be a whole number"):
        play_line(pos, 1, calls=[3.0, 3, 3, 3])  # type: ignore[list-item]
    with pytest.raises(CallError, match="whole numbers, got 5"):
        play_line(pos, 1, calls=5)  # type: ignore[arg-type]
    # the ruleset's own highest call, not always 13
    with pytest.raises(CallError, match=r"called 9: home\+max_call=8 calls are 2\.\.8"):
        play_line(pos, 1, "home+max_call=8", calls=[9, 3, 3, 3])
    with pytest.raises(RecordError, match="a play record or a list of cards, got None"):
        analyse_play(pos.deal, None, "home")  # type: ignore[arg-type]


def test_position_replayed_under_other_rules() -> None:
    pos = Position.replay(Deal.random(1), "5C 2C 3C 4C | 8C 9C", "pagat")  # seat 1 ducked
    with pytest.raises(IllegalPlayError, match=r"not legal under modern: card 2 \(2C, trick 1\)"):
        play_line(pos, 0, "modern")
    line = playout_line(pos, "home")  # plays like pagat: the same line, under home's name
    assert line.rules.name == "home" and line.cards() == playout_line(pos).cards()


def test_numpy_seat_and_calls() -> None:
    pos = must_beat_ending("home")
    line = play_line(pos, np.int64(1), calls=np.array([2, 3, 4, 4]))
    assert line.seat == 1 and type(line.seat) is int and line.calls == (2, 3, 4, 4)
    assert line.cards() == play_line(pos, 1).cards()
    with pytest.raises(SeatError, match=r"seat must be 0\.\.3"):
        play_line(pos, np.float64(1.0))  # type: ignore[arg-type]


def test_branch_rejects_illegal_card() -> None:
    pos = must_beat_ending("pagat")
    line = play_line(pos, 0)  # seat 0 studied; seat 1 plays step 0
    pos2 = ending(["AD", "2S KD", "4C 5D", "6C 7D"], "modern", leader=0, trick="KC")
    line2 = play_line(pos2, 1)
    with pytest.raises(IllegalPlayError, match=r"not legal.*void in clubs: must trump"):
        line2.branch(0, "KD")
    assert line.branch(0, "3H").steps[0].card == Card.parse("3H")


def test_follow_when_every_card_beats() -> None:
    # 2H led, seat 1 holds KH 3H: both beat it, so the only rule at work is following suit
    pos = ending(["AC", "KH 3H", "4H 2C", "5H 3C"], "modern", leader=0, trick="2H")
    step = play_line(pos, 1).steps[0]
    assert step.restriction == "must follow hearts (every one beats the 2♥)"
    assert step.forced is None
    assert set(step.values) == {Card.parse("KH"), Card.parse("3H")}
    # cannot beat: the rules' sentence is kept
    pos = ending(["AC", "3H 2H", "4H 2C", "5H 3C"], "modern", leader=0, trick="KH")
    step = play_line(pos, 1).steps[0]
    assert step.restriction == "must follow hearts (cannot beat the K♥)"


def test_lines_from_a_deal_or_its_text_start_the_deal() -> None:
    deal = Deal.random(1)
    line = play_line(deal, 2, "modern")
    assert len(line.steps) == 52
    assert play_line(str(deal), 2, "modern").text() == line.text()
    assert play_line(Position(deal, "modern"), 2).text() == line.text()
    out = playout_line(deal, "online")
    assert out.text() == playout_line(Position(deal, "online")).text()
    assert sum(out.tricks) == 13
