"""Positions (play/unplay, errors, records), random play-outs under every ruleset, matches."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callbreak_lab import (
    PRESETS,
    CallError,
    Card,
    Deal,
    DealError,
    Hand,
    IllegalPlayError,
    Match,
    Position,
    RecordError,
    Ruleset,
    SeatError,
    parse_record,
    play_out,
    random_player,
)

try:
    from test_rules import ref_legal
except ImportError:  # pragma: no cover - when tests/ is imported as a package
    from tests.test_rules import ref_legal

# seat 0 leads Q♥; seat 1 has only the 2♥; seat 2 holds K♥ 3♥ and nine spades; seat 3 A♥.
FIXED = Deal.parse(".Q..AKQJT9876543 .2.AKQJT987654.2 AKQJT9876.K3.32. 5432.AJT987654..")

# every preset with every combination of the legal-card switches
RULESETS = [
    PRESETS[name].replace(must_beat=mb, void_rule=vr, first_trick_spade_ban=ban)
    for name in PRESETS
    for mb, vr, ban in itertools.product((False, True), ("strict", "win_only"), (False, True))
]


def ref_winner(trick: list[int]) -> int:
    """Independent trick winner: the highest spade, else the highest card of the led suit."""
    spades = [c for c in trick if c >= 39]
    pool = spades or [c for c in trick if c // 13 == trick[0] // 13]
    return trick.index(max(pool))


def snapshot(p: Position) -> tuple[object, ...]:
    return (
        p.hands,
        p.trick,
        p.leader,
        p.to_move,
        p.tricks_won,
        tuple(p.history),
        tuple(p.tricks),
        p.trick_index,
        p.is_first_trick,
        p.is_over,
        p.legal_cards(),
    )


# --- positions ------------------------------------------------------------------------------------


def test_position_state_through_a_trick() -> None:
    p = Position(FIXED, "modern")
    assert p.to_move == 0 and p.leader == 0 and p.is_first_trick and not p.is_over
    assert p.trick == () and p.tricks_won == (0, 0, 0, 0) and p.trick_index == 0
    assert p.legal_cards() == FIXED[0]
    p.play("QH")
    assert p.to_move == 1 and p.trick == (Card.parse("QH"),)
    assert p.legal_cards() == Hand.parse("2H")
    p.play("2H")
    assert p.legal_cards() == Hand.parse("KH")
    p.play("KH")
    p.play(Card.parse("AH"))
    assert p.trick == () and p.leader == 3 and p.to_move == 3
    assert p.tricks_won == (0, 0, 0, 1) and p.trick_index == 1 and not p.is_first_trick
    assert [(s, str(c)) for s, c in p.history] == [(0, "QH"), (1, "2H"), (2, "KH"), (3, "AH")]
    assert p.tricks[0].winner == 3 and p.tricks[0].leader == 0
    assert p.record() == "QH 2H KH AH"
    assert "Q" not in str(p.hands[0]).split(".")[1]


def test_illegal_play_messages() -> None:
    p = Position(FIXED, "modern")
    p.play("QH")
    with pytest.raises(IllegalPlayError, match=r"^seat 1 does not hold 5C$"):
        p.play("5C")
    p.play("2H")
    with pytest.raises(
        IllegalPlayError, match=re.escape("seat 2 cannot play 3♥: must beat the Q♥ (legal: K♥)")
    ):
        p.play("3H")
    with pytest.raises(IllegalPlayError, match=re.escape("seat 2 cannot play A♠: must follow")):
        p.play("AS")
    # under pagat (no must-beat) the 3♥ is fine
    q = Position.replay(FIXED, "QH 2H", "pagat")
    q.play("3H")
    assert q.trick[-1] == Card.parse("3H")


def test_void_messages_in_play() -> None:
    # seat 0 leads A♣: seat 1 follows 2♣, seat 2 (void in clubs, spades held) must trump
    p = Position.replay(FIXED, "QH 2H KH AH | 4H 3C 7D 3H", "modern")
    assert p.to_move == 3  # 4H won by seat 3
    p = Position.replay(FIXED, "QH 2H KH AH | 5S 3C 7D 6S", "modern")
    assert p.leader == 2 and p.tricks_won == (0, 0, 1, 1)
    p.play("2D")
    # seat 3 void in diamonds holding spades 4♠ 3♠ 2♠: must trump
    with pytest.raises(IllegalPlayError, match=re.escape("void in diamonds: must trump")):
        p.play("JH")
    p.play("2S")
    # seat 0 void in diamonds with no spade: any card
    assert p.legal_cards() == p.hands[0]
    p.play("AC")
    # seat 1 follows diamonds
    p.play("AD")
    assert p.tricks[-1].winner == 3


def _seed_001_deal() -> Deal:
    """Seat 0 holds every heart but the 6♥ (seat 1); seat 2 the spades 4♠..A♠; seat 3 2♠ 3♠ K♦."""
    fixed = {
        0: Hand.parse(".AKQJT9875432..3"),
        1: Hand.parse("6H"),
        2: Hand.parse("AKQJT987654..AQ."),
        3: Hand.parse("32..K."),
    }
    return Deal.random_with(fixed, seed=1)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_seed_001_losing_spade_in_play(preset: str) -> None:
    p = Position(_seed_001_deal(), preset)
    p.play("AH")
    p.play("6H")
    assert p.legal_cards() == p.hands[2].suit(3)  # void in hearts: must trump (any spade wins)
    p.play("4S")
    if PRESETS[preset].void_rule == "strict":
        assert p.legal_cards() == Hand.parse("3S 2S")
        with pytest.raises(
            IllegalPlayError,
            match=re.escape(
                "seat 3 cannot play K♦: cannot overtrump the 4♠: must still play a spade "
                "(legal: 3♠ 2♠)"
            ),
        ):
            p.play("KD")
        p.play("2S")
    else:
        assert p.legal_cards() == p.hands[3]
        p.play("KD")
    assert p.tricks[0].winner == 2 and p.leader == 2


def test_first_trick_spade_ban_in_a_position() -> None:
    deal = Deal.random(3)
    p = Position(deal, "strict")
    assert p.legal_cards() == (deal[0] - deal[0].suit(3) or deal[0])
    spade = next(iter(deal[0].suit(3)), None)
    if spade is not None:
        with pytest.raises(IllegalPlayError, match="first trick: no spade lead"):
            p.play(spade)


def test_over_and_unplay_errors() -> None:
    p = Position(FIXED, "modern")
    with pytest.raises(IllegalPlayError, match="nothing to unplay"):
        p.unplay()
    play_out(p, random_player(0))
    assert p.is_over and sum(p.tricks_won) == 13 and p.legal_cards() == Hand()
    with pytest.raises(IllegalPlayError, match="the deal is over: cannot play AS"):
        p.play("AS")
    with pytest.raises(IllegalPlayError, match="the deal is over"):
        p.legal_cards_with_reasons()


def test_copy_is_independent_and_repr_pastes_back() -> None:
    p = Position.replay(FIXED, "QH 2H KH AH | 5S 3C", "online")
    q = p.copy()
    q.play("7D")
    assert len(p.history) == 6 and len(q.history) == 7
    assert eval(repr(p)) == p
    custom = PRESETS["pagat"].replace(name="table")
    r = Position.replay(FIXED, "QH", custom)
    assert eval(repr(r)) == r and "Ruleset(name='table'" in repr(r)
    assert "seat 1 to play" in str(r)
    assert "deal over" in str(play_out(r.copy(), random_player(1)))
    html = p._repr_html_()
    assert "seat 0" in html and "♥" in html and "trick 2 of 13" in html


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(RULESETS))
def test_random_playouts_follow_the_rules(seed: int, rules: Ruleset) -> None:
    deal = Deal.random(seed)
    p = Position(deal, rules)
    policy = random_player(seed)
    mb, vr, ban = rules.must_beat, rules.void_rule, rules.first_trick_spade_ban
    won = [0, 0, 0, 0]
    while not p.is_over:
        legal = p.legal_cards()
        seat = p.to_move
        expected = ref_legal(
            {int(c) for c in p.hands[seat]}, list(p.trick), p.is_first_trick, mb, vr, ban
        )
        assert legal and {int(c) for c in legal} == expected
        assert p.legal_cards_with_reasons().legal == legal
        leader = p.leader
        card = policy(p)
        assert card in legal
        trick_before = [int(c) for c in p.trick]
        p.play(card)
        if len(trick_before) == 3:
            winner = (leader + ref_winner([*trick_before, int(card)])) % 4
            won[winner] += 1
            assert p.leader == winner
    assert list(p.tricks_won) == won and sum(won) == 13 and len(p.tricks) == 13
    assert all(not h for h in p.hands)
    assert Position.replay(deal, p.record(), rules) == p
    assert parse_record(p.record()) == [c for _, c in p.history]


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.data())
def test_unplay_restores_the_exact_position(seed: int, data: st.DataObject) -> None:
    rules = RULESETS[seed % len(RULESETS)]
    p = Position(Deal.random(seed), rules)
    rng = np.random.default_rng(seed)
    policy = random_player(rng)
    while not p.is_over:
        before = snapshot(p)
        card = policy(p)
        p.play(card)
        if data.draw(st.booleans()):
            assert p.unplay() == card
            assert snapshot(p) == before
            p.play(card)
    # unwind everything
    for _ in range(52):
        p.unplay()
    assert snapshot(p) == snapshot(Position(p.deal, rules))


def test_random_player_is_deterministic() -> None:
    a = play_out(Position(FIXED, "modern"), random_player(5)).record()
    b = play_out(Position(FIXED, "modern"), random_player(5)).record()
    c = play_out(Position(FIXED, "modern"), random_player(6)).record()
    assert a == b and a != c


# --- play records --------------------------------------------------------------------------------


def test_record_notations_and_partial_tricks() -> None:
    p = Position.replay(FIXED, "QH 2H KH AH | 5S 3C 7D 6S | 3D", "modern")
    assert p.record() == "QH 2H KH AH | 5S 3C 7D 6S | 3D"
    assert Position.replay(FIXED, "Q♥ ♥2 kh 1H/0 | 5S 3C 7D 6S | 3D", "modern") == p
    assert Position.replay(FIXED, "QH 2H KH AH 5S 3C 7D 6S 3D", "modern") == p
    assert Position.replay(FIXED, "QH 2H KH AH | 5S 3C 7D 6S |", "modern").trick_index == 2
    assert Position.replay(FIXED, [Card.parse("QH"), "2H"], "modern").to_move == 2
    assert Position.replay(FIXED, "", "modern") == Position(FIXED, "modern")
    assert parse_record("AS 2S 5S KS | QH 2H 9H 4H | QC")[-1] == Card.parse("QC")


@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=0, max_value=52))
def test_record_round_trips(seed: int, n: int) -> None:
    p = Position(Deal.random(seed), "online")
    policy = random_player(seed)
    for _ in range(n):
        p.play(policy(p))
    text = p.record()
    assert Position.replay(p.deal, text, "online") == p
    symbols = " | ".join(" ".join(c.symbol() for c in t.cards) for t in p.tricks)
    assert parse_record(symbols) == [c for t in p.tricks for c in t.cards]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("QH 2H KH | AH", "trick 1 of the play record has 3 cards; '|' must separate"),
        ("QH 2H KH AH 5S | 3C", "trick 1 of the play record has 5 cards"),
        ("QH 2H KH AH | | 5S", "trick 2 of the play record has 0 cards"),
        ("QH 2H KH AH | 5S 3C 7D 6S 3D", "trick 2 of the play record has 5 cards"),
        ("QH 2H XX", "card 3 of the play record: unknown suit 'X' in card 'XX'"),
    ],
)
def test_record_errors(record: str, message: str) -> None:
    with pytest.raises(RecordError, match=re.escape(message)):
        Position.replay(FIXED, record, "modern")


def test_replay_names_the_illegal_card() -> None:
    with pytest.raises(
        IllegalPlayError,
        match=re.escape(
            "card 3 (3H, trick 1): seat 2 cannot play 3♥: must beat the Q♥ (legal: K♥)"
        ),
    ):
        Position.replay(FIXED, "QH 2H 3H", "modern")
    with pytest.raises(IllegalPlayError, match=re.escape("card 6 (2C, trick 2): seat 0 does not")):
        Position.replay(FIXED, "QH 2H KH AH | 5S 2C", "modern")
    with pytest.raises(RecordError, match="at most 52 cards"):
        parse_record(" ".join(["AS"] * 53))


# --- match ----------------------------------------------------------------------------------------


def test_match_scores_places_and_dealer() -> None:
    m = Match("modern")
    assert m.dealer == 3 and m.first_bidder == 0 and m.table_seat(0) == 0
    d = m.record_deal([3, 4, 2, 3], [5, 3, 2, 3])
    assert d.scores == (32, -40, 20, 30) and d.dealer == 3
    assert m.totals == (32, -40, 20, 30) and m.places() == (1, 4, 3, 2)
    assert m.dealer == 0 and m.first_bidder == 1 and m.table_seat(0) == 1 and m.table_seat(3) == 0
    m.start_deal("2,5,3,2")
    m.record_deal(None, "1 6 3 3")
    # totals 32-20=12, -40+51=11, 20+30=50, 30+21=51
    assert m.totals == (12, 11, 50, 51) and m.places() == (3, 4, 2, 1)
    assert m.winners() == [3]
    assert [d.dealer for d in m.deals] == [3, 0]
    assert "totals 1.2 1.1 5 5.1" in repr(m)
    html = m._repr_html_()
    assert "5.1" in html and "-4" in html and "place" in html


def test_match_ties_share_places_and_the_win() -> None:
    m = Match("modern", players=["Asha", "Bikash", "Chirag", "Dipa"])
    m.record_deal([3, 3, 3, 4], [3, 3, 3, 4])
    assert m.totals == (30, 30, 30, 40) and m.places() == (2, 2, 2, 1)
    m.record_deal([4, 4, 2, 2], [4, 4, 3, 2])
    # 70, 70, 51, 60
    assert m.places() == (1, 1, 4, 3) and m.winners() == [0, 1]
    assert "Chirag" in m._repr_html_()


def test_match_ends_after_five_deals_and_rotates_dealer() -> None:
    m = Match("strict")
    for _ in range(5):
        assert not m.is_over
        m.record_deal([2, 2, 2, 2], [4, 3, 3, 3])
    assert m.is_over and [d.dealer for d in m.deals] == [3, 0, 1, 2, 3]
    assert m.totals == (5 * 22, 5 * 21, 5 * 21, 5 * 21)
    with pytest.raises(IllegalPlayError, match="the match is over after 5 deals"):
        m.record_deal([2, 2, 2, 2], [4, 3, 3, 3])
    with pytest.raises(IllegalPlayError, match="the match is over"):
        m.start_deal([2, 2, 2, 2])


def test_match_to_target_score() -> None:
    m = Match(Ruleset.preset("pagat+match_deals=none+target_score=100"))
    deals = 0
    while not m.is_over:
        m.record_deal([4, 1, 1, 1], [10, 1, 1, 1])
        deals += 1
    # 4.6 per deal: 9.2 after two deals, 13.8 >= 10 after three
    assert deals == 3 and m.totals[0] == 138 and m.winners() == [0]


@pytest.mark.parametrize(
    ("rules", "calls", "tricks", "error", "message"),
    [
        (
            "modern",
            [0, 4, 2, 3],
            [5, 3, 2, 3],
            CallError,
            "seat 0 called 0: modern calls are 1..13",
        ),
        (
            "strict",
            [3, 4, 1, 3],
            [5, 3, 2, 3],
            CallError,
            "seat 2 called 1: strict calls are 2..13",
        ),
        ("modern", [3, 4, 2, 14], [5, 3, 2, 3], CallError, "seat 3 called 14"),
        ("modern", [3, 4, 2], [5, 3, 2, 3], CallError, "calls need one value per seat (4), got 3"),
        ("modern", "3,x,2,3", [5, 3, 2, 3], CallError, "calls must be four whole numbers"),
        ("modern", [3, 4, 2, 3.5], [5, 3, 2, 3], CallError, "seat 3's calls must be a whole"),
        ("modern", [3, 4, 2, 3], [5, 3, 2, 2], IllegalPlayError, "tricks must sum to 13, got 12"),
        ("modern", [3, 4, 2, 3], [14, 0, 0, -1], IllegalPlayError, "seat 0 took 14 tricks"),
    ],
)
def test_match_input_errors(
    rules: str, calls: object, tricks: object, error: type[Exception], message: str
) -> None:
    m = Match(rules)
    with pytest.raises(error, match=re.escape(message)):
        m.record_deal(calls, tricks)  # type: ignore[arg-type]
    assert m.deals == []
    assert issubclass(CallError, IllegalPlayError) and issubclass(CallError, ValueError)


def test_match_pending_calls_and_players() -> None:
    m = Match("home")
    with pytest.raises(CallError, match="no calls: pass calls or call start_deal first"):
        m.record_deal(None, [4, 3, 3, 3])
    with pytest.raises(CallError, match=re.escape("seat 1 called 1: home calls are 2..13")):
        m.start_deal([2, 1, 2, 2])
    m.start_deal([2, 2, 2, 2])
    with pytest.raises(CallError, match="differ from those given to start_deal"):
        m.record_deal([3, 2, 2, 2], [4, 3, 3, 3])
    assert m.record_deal([2, 2, 2, 2], [4, 3, 3, 3]).scores == (-20, 20, 20, 20)
    with pytest.raises(IllegalPlayError, match="exactly 4 players, got 3"):
        Match("modern", players=3)
    with pytest.raises(IllegalPlayError, match="exactly 4 players, got 2"):
        Match("modern", players=["a", "b"])
    for seat in (4, -1, True):  # 4 silently wrapped to table seat 0 (plus the deals played)
        with pytest.raises(SeatError, match=r"a deal seat must be 0\.\.3"):
            m.table_seat(seat)
    assert m.table_seat(3) == 0  # one deal played: deal seat 3 is table seat 0
    # a string is not a list of names ("abcd" made players a, b, c and d)
    for players in ("abcd", "Ann,Bob,Cat,Dan", None):
        with pytest.raises(IllegalPlayError, match="a list of four names"):
            Match("modern", players=players)  # type: ignore[arg-type]


def test_random_player_rejects_a_bad_seed() -> None:
    for seed in (-1, "a"):  # numpy's "expected non-negative integer" / a TypeError
        with pytest.raises(DealError, match="seed must be a whole number >= 0"):
            random_player(seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("seat", [-1, 4, True, "1", 1.5])
def test_position_hand_rejects_a_bad_seat(seat: object) -> None:
    p = Position(FIXED, "modern")
    with pytest.raises(SeatError, match=r"seat must be 0\.\.3"):
        p.hand(seat)  # type: ignore[arg-type]
    assert p.hand(np.int64(3)) == FIXED[3]


def test_under_other_rules() -> None:
    p = Position.replay(Deal.random(1), "5C 2C", "pagat")  # seat 1 ducks, holding JC 9C
    same = p.under("home")  # the same legal-card switches: a copy with the other rules
    assert same.rules.name == "home" and same.history == p.history and same is not p
    with pytest.raises(
        IllegalPlayError, match=r"not legal under modern: card 2 \(2C, trick 1\): seat 1 cannot"
    ):
        p.under("modern")
    q = Position.replay(p.deal, "5C JC", "pagat").under("modern")
    assert q.rules.name == "modern" and q.record() == "5C JC"


def test_numpy_ints_as_cards_seats_calls_and_tricks() -> None:
    p = Position(FIXED, "modern")
    p.play(np.int64(Card.parse("QH")))  # an element of an array of card indices
    assert p.record() == "QH" and p.hand(np.int64(0)) == FIXED[0] - Card.parse("QH")
    m = Match("modern")
    result = m.record_deal(np.array([3, 3, 3, 3]), np.array([4, 3, 3, 3]))
    assert result.calls == (3, 3, 3, 3) and result.scores == (31, 30, 30, 30)
    assert all(type(x) is int for x in (*result.calls, *result.tricks, *m.totals))
    with pytest.raises(IllegalPlayError, match="seat 0's tricks must be a whole number"):
        m.record_deal([3, 3, 3, 3], np.array([4.0, 3, 3, 3]))
    with pytest.raises(IllegalPlayError, match="whole number, got True"):
        m.record_deal([3, 3, 3, 3], [True, 4, 4, 4])
