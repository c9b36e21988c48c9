"""Cards, hands and deals: encodings, every notation both ways, validation messages."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from testdata import BHOOS_DIR

from callbreak_lab.cards import (
    Card,
    CardError,
    Deal,
    DealError,
    Hand,
    HandError,
    NotationError,
    SeatError,
    Suit,
    check_seat,
    is_seat,
    lowest_card,
    play_order_key,
)
from callbreak_lab.errors import CallbreakLabError

BHOOS = BHOOS_DIR

masks = st.integers(min_value=0, max_value=(1 << 52) - 1)
cards = st.integers(min_value=0, max_value=51).map(Card)


# --- encoding -------------------------------------------------------------------------------------


def test_encoding_matches_architecture() -> None:
    assert Card.parse("2C") == 0
    assert Card.parse("AC") == 12
    assert Card.parse("2D") == 13
    assert Card.parse("AS") == 51
    assert Card.parse("2S") == 39
    ace = Card.parse("AS")
    assert ace.suit is Suit.SPADES and ace.rank == 12
    assert Card.parse("TH").suit == Suit.HEARTS and Card.parse("TH").rank == 8
    assert isinstance(ace, int) and ace + 0 == 51
    assert Card.of(Suit.HEARTS, 10) == Card.parse("QH")


def test_card_range_checked() -> None:
    with pytest.raises(CardError, match=re.escape("0..51, got 52")):
        Card(52)
    with pytest.raises(CardError, match="got -1"):
        Card(-1)
    with pytest.raises(CardError, match=re.escape("suit must be a whole number 0..3, got 4")):
        Card.of(4, 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AS", "AS"),
        ("as", "AS"),
        ("TH", "TH"),
        ("10H", "TH"),
        ("10h", "TH"),
        ("A♠", "AS"),
        ("♠A", "AS"),
        ("A♤", "AS"),
        ("♡Q", "QH"),
        ("2♧", "2C"),
        ("♦10", "TD"),
        ("1S", "AS"),
        ("1C/0", "AC"),
        ("QS/0", "QS"),
        (" 7d ", "7D"),
        ("A♠\ufe0f", "AS"),
    ],
)
def test_card_notations(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AX", "unknown suit 'X' in card 'AX'"),
        ("XS", "unknown rank 'X' in card 'XS'"),
        ("11S", "unknown rank '11' in card '11S'"),
        ("", "empty card text"),
        ("   ", "empty card text"),
        ("S", "unknown rank '' in card 'S'"),
        ("SA", "unknown suit 'A' in card 'SA'"),
    ],
)
def test_card_errors(text: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        Card.parse(text)


def test_card_errors_are_value_errors() -> None:
    assert issubclass(CardError, NotationError)
    assert issubclass(HandError, NotationError)
    assert issubclass(DealError, NotationError)
    assert issubclass(NotationError, CallbreakLabError) and issubclass(NotationError, ValueError)


@given(cards)
def test_card_round_trips(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert Card.parse(card.symbol()) == card
    assert Card.parse(card.symbol()[-1] + card.symbol()[:-1]) == card
    assert eval(repr(card)) == card
    assert Card.parse(str(card).lower()) == card
    bot = ("1" if card.rank == 12 else str(card)[0]) + str(card)[1] + "/0"
    assert Card.parse(bot) == card


def test_card_text_and_symbol() -> None:
    assert str(Card(51)) == "AS"
    assert Card(51).symbol() == "A♠"
    assert repr(Card(8 + 26)) == "Card.parse('TH')"
    assert f"{Card(0)}" == "2C"
    assert "♥" in Card.parse("QH")._repr_html_()


# --- hands ----------------------------------------------------------------------------------------

HAND = "AKQ2.T98.765.432"


def test_hand_set_api() -> None:
    h = Hand.parse(HAND)
    assert len(h) == 13
    assert [str(c) for c in h][:5] == ["AS", "KS", "QS", "2S", "TH"]
    assert [str(c) for c in h][-3:] == ["4C", "3C", "2C"]
    assert "AS" in h and Card.parse("AS") in h and Card.parse("AH") not in h
    assert 99 not in h
    spades = h.suit(Suit.SPADES)
    assert str(spades) == "AKQ2..."
    assert h.suit_count(Suit.HEARTS) == 3
    assert h.suit_counts() == (3, 3, 3, 4)
    assert h.suit_bits(Suit.SPADES) == (1 << 12) | (1 << 11) | (1 << 10) | 1
    assert h - spades == Hand.parse(".T98.765.432")
    assert spades | (h - spades) == h
    assert h & spades == spades
    assert h | Card.parse("AH") == Hand.parse("AKQ2.AT98.765.432")
    assert h - Card.parse("AS") == Hand.parse("KQ2.T98.765.432")
    assert hash(h) == hash(Hand.parse(HAND)) and h == Hand(h.mask)
    assert h != h.mask
    assert h.highest() == Card.parse("AS") and h.lowest() == Card.parse("2C")
    assert not Hand() and bool(h)
    assert Hand.from_cards(["AS", 50, Card.parse("2C")]) == Hand.parse("AK...2")
    assert spades.issubset(h) and spades.isdisjoint(h - spades)
    assert len(Hand.full()) == 52


def test_hand_is_immutable() -> None:
    h = Hand.parse(HAND)
    with pytest.raises(AttributeError):
        h.mask = 0  # type: ignore[misc]


@pytest.mark.parametrize(
    "text",
    [
        "AKQ2.T98.765.432",
        "akq2.t98.765.432",
        "AKQ2.1098.765.432",
        "♠AKQ2 ♥T98 ♦765 ♣432",
        "♣432 ♦765 ♥T98 ♠AKQ2",
        "♤AKQ2 ♡T98 ♢765 ♧432",
        "♠AKQ2♥T98♦765♣432",
        "♠ A K Q 2 ♥ 10 9 8 ♦765 ♣432",
        "S:AKQ2 H:T98 D:765 C:432",
        "C:432 S:AKQ2 D:765 H:T98",
        "s:akq2 h:t98 d:765 c:432",
        "AS KS QS 2S TH 9H 8H 7D 6D 5D 4C 3C 2C",
        "1S KS QS 2S 10H 9H 8H 7D 6D 5D 4C 3C/0 2C",
        "AS,KS,QS,2S,TH,9H,8H,7D,6D,5D,4C,3C,2C",
    ],
)
def test_hand_notations(text: str) -> None:
    assert Hand.parse(text) == Hand.parse(HAND)


def test_hand_empty_and_missing_suits() -> None:
    h = Hand.parse("AKQ2..765.432")
    assert h.suit_count(Suit.HEARTS) == 0
    assert Hand.parse("♠AKQ2 ♦765 ♣432") == h
    assert Hand.parse("S:AKQ2 H: D:765 C:432") == h
    assert Hand.parse("S:AKQ2 H:- D:765 C:432") == h
    assert h.symbols() == "♠AKQ2 ♥- ♦765 ♣432"
    assert h.letters() == "S:AKQ2 H:- D:765 C:432"
    assert str(Hand()) == "..."
    assert Hand.parse("") == Hand() == Hand.parse("...")
    assert Hand.parse(["1S", "QH/0"]) == Hand.parse("A.Q..")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AKQ2.T98.765", "three dots, got 3 groups"),
        ("AKQ2.T98.765.432.", "got 5 groups"),
        ("AKQ2.T98.765.43Z", "unknown rank 'Z' in clubs of hand 'AKQ2.T98.765.43Z'"),
        ("AKQ1.T98.765.432", "unknown rank '1' in spades"),
        ("AKA2.T98.765.432", "card AS given twice in hand 'AKA2.T98.765.432'"),
        ("AK 2.T98.765.432", "unexpected space in spades"),
        ("♠AK ♠A", "card AS given twice"),
        ("x S:AK", "unexpected text 'x' before the first"),
        ("♠AKX", "unknown rank 'X' in spades"),
        ("S:AK X:2", "unknown suit before ':'"),
        ("AS KS AS", "card AS given twice in hand 'AS KS AS'"),
        ("AS KX", "unknown suit 'X' in card 'KX'"),
        ("AS ZS", "unknown rank 'Z' in card 'ZS'"),
    ],
)
def test_hand_errors(text: str, message: str) -> None:
    with pytest.raises(HandError, match=re.escape(message)):
        Hand.parse(text)


def test_hand_mask_range_and_list_errors() -> None:
    with pytest.raises(
        HandError, match=re.escape(f"a hand mask must be a whole number 0..{2**52 - 1}")
    ):
        Hand(1 << 52)
    with pytest.raises(HandError, match="card AS given twice"):
        Hand.parse(["AS", "1S"])
    with pytest.raises(HandError, match="empty hand"):
        Hand().highest()


@given(masks)
def test_hand_round_trips_every_notation(mask: int) -> None:
    h = Hand(mask)
    assert Hand.parse(str(h)) == h
    assert Hand.parse(h.symbols()) == h
    assert Hand.parse(h.letters()) == h
    assert Hand.parse(h.card_list()) == h
    assert Hand.parse(list(h)) == h
    assert eval(repr(h)) == h
    assert len(h) == bin(mask).count("1")
    assert [int(c) for c in h] == sorted((c for c in range(52) if mask >> c & 1), reverse=True)


@given(masks, masks)
def test_hand_set_algebra_matches_python_sets(a: int, b: int) -> None:
    ha, hb = Hand(a), Hand(b)
    sa, sb = set(ha), set(hb)
    assert set(ha | hb) == sa | sb
    assert set(ha & hb) == sa & sb
    assert set(ha - hb) == sa - sb
    assert sum(ha.suit_counts()) == len(ha)
    assert all(set(ha.suit(s)) == {c for c in sa if c.suit == s} for s in Suit)


# --- deals ----------------------------------------------------------------------------------------


def test_deal_parse_forms_and_api() -> None:
    d = Deal.random(7)
    text = str(d)
    assert len(text.split()) == 4
    assert Deal.parse(text) == d
    assert Deal.parse(d.symbols()) == d
    assert Deal.parse(d.letters()) == d
    assert Deal.parse("\n".join(h.symbols() for h in d)) == d
    assert Deal.parse("\n".join(str(h) for h in d)) == d
    assert Deal.parse(list(d.hands)) == d
    assert Deal.parse([h.card_list() for h in d]) == d
    assert eval(repr(d)) == d
    assert d[2] is d.hands[2]
    assert hash(d) == hash(Deal.parse(text))
    m = d.masks()
    assert m.dtype == np.uint64 and [int(x) for x in m] == [h.mask for h in d]
    assert int(np.bitwise_or.reduce(m)) == (1 << 52) - 1
    for seat, h in enumerate(d):
        assert all(d.seat_of(c) == seat for c in h)


def test_deal_random_is_deterministic() -> None:
    assert Deal.random(5) == Deal.random(5)
    assert Deal.random(5) != Deal.random(6)
    assert Deal.random(np.random.default_rng(3)) == Deal.random(np.random.default_rng(3))


def _deal_text() -> str:
    return str(Deal.random(11))


def test_deal_errors_name_the_problem() -> None:
    hands = _deal_text().split()
    with pytest.raises(DealError, match="got 3 in"):
        Deal.parse(" ".join(hands[:3]))
    # move one card of seat 1 into seat 0: seat 0 has 14, seat 1 has 12
    h0, h1 = Hand.parse(hands[0]), Hand.parse(hands[1])
    moved = h1.highest()
    with pytest.raises(DealError, match="seat 0 has 14 cards, needs 13; seat 1 has 12 cards"):
        Deal([h0 | moved, h1 - moved, hands[2], hands[3]])
    # a card given twice: seats named, and the missing card named
    dup = Hand.parse(hands[2]).highest()
    lost = h0.highest()
    with pytest.raises(DealError) as info:
        Deal([(h0 - lost) | dup, h1, hands[2], hands[3]])
    msg = str(info.value)
    assert f"card(s) {dup} in both seat 0 and seat 2" in msg
    assert f"missing cards: {lost}" in msg
    with pytest.raises(DealError, match="seat 3: unknown rank 'Z'"):
        Deal.parse(" ".join([*hands[:3], "Z" + hands[3]]))
    with pytest.raises(DealError, match="four hands"):
        Deal(hands[:2])


def test_random_with_fixed_hands_and_cards() -> None:
    d = Deal.random(1)
    me = d[0]
    for seed in range(20):
        r = Deal.random_with({0: me}, seed=seed)
        assert r[0] == me
        extra = {2: next(c for c in Hand.full() if c not in me)}
        r2 = Deal.random_with({0: me, **extra}, seed=seed)
        assert r2[0] == me and extra[2] in r2[2]
    assert Deal.random_with({0: me}, seed=4) == Deal.random_with([me, None, None, None], seed=4)
    fixed = {1: Hand.parse("AS KS"), 3: Hand.parse("2C")}
    hits = 0
    for seed in range(50):
        r = Deal.random_with(fixed, seed=seed, extra_known={2: "QS"})
        assert fixed[1].issubset(r[1]) and "2C" in r[3] and "QS" in r[2]
        hits += "JS" in r[0]
    assert 0 < hits < 50  # the unfixed cards really move


def test_random_with_is_uniform_enough() -> None:
    # the ace of spades, unfixed, lands in each of the three free seats about equally often
    fixed = Deal.random(2)[0]
    counts = [0, 0, 0, 0]
    free = next(c for c in Hand.full() if c not in fixed)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        counts[Deal.random_with({0: fixed}, seed=rng).seat_of(free)] += 1
    assert counts[0] == 0
    assert all(850 < n < 1150 for n in counts[1:])


def test_random_with_errors() -> None:
    with pytest.raises(DealError, match="card AS is fixed for both seat 0 and seat 1"):
        Deal.random_with({0: "AS", 1: "AS KS"}, seed=1)
    with pytest.raises(DealError, match="seat 2 has 14 fixed cards"):
        Deal.random_with({2: list(Hand.full())[:14]}, seed=1)
    with pytest.raises(SeatError, match=re.escape("seat must be 0..3, got 4")):
        Deal.random_with({4: "AS"}, seed=1)
    with pytest.raises(DealError, match="card AS is fixed for both seat 0 and seat 3"):
        Deal.random_with({0: "AS"}, seed=1, extra_known={3: "AS"})


@given(st.integers(min_value=0, max_value=2**32))
def test_deal_round_trips(seed: int) -> None:
    d = Deal.random(seed)
    assert Deal.parse(str(d)) == d
    assert Deal.parse(d.symbols()) == d
    assert Deal.parse(d.letters()) == d
    assert sorted(int(c) for h in d for c in h) == list(range(52))


def test_bhoos_hands_parse() -> None:
    text = (BHOOS / "play_requests.json").read_text()
    dec = json.JSONDecoder()
    pos, n = 0, 0
    while pos < len(text):
        obj, end = dec.raw_decode(text, pos)
        pos = end
        while pos < len(text) and text[pos].isspace():
            pos += 1
        hand = Hand.parse(obj["cards"])
        assert len(hand) == len(obj["cards"])
        played = Hand.parse(obj["played"])
        assert hand.isdisjoint(played)
        n += 1
    assert n > 10


@pytest.mark.parametrize("value", [None, 123, 1.5])
def test_hand_and_deal_parse_reject_non_text_with_a_notation_error(value: object) -> None:
    with pytest.raises(HandError, match="cannot read a hand from"):
        Hand.parse(value)  # type: ignore[arg-type]
    with pytest.raises(DealError, match="cannot read a deal from"):
        Deal.parse(value)  # type: ignore[arg-type]
    with pytest.raises(DealError, match="four hands"):
        Deal(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, "a", 1.5, True])
def test_random_deal_rejects_bad_seeds_naming_the_seed(seed: object) -> None:
    with pytest.raises(DealError, match=r"seed must be a whole number >= 0"):
        Deal.random(seed)  # type: ignore[arg-type]
    with pytest.raises(DealError, match=r"seed must be a whole number >= 0"):
        Deal.random_with({0: "AS"}, seed=seed)  # type: ignore[arg-type]
    assert Deal.random(np.int64(3)) == Deal.random(3) and Deal.random(10**30) is not None


@pytest.mark.parametrize("suit", [-1, 4, True, 1.0, "S"])
def test_suit_queries_reject_a_bad_suit(suit: object) -> None:
    """suit(-1) was silently the spades, suit(4) an IndexError, suit_bits(9) silently 0."""
    h = Hand.parse("AKQ2.T98.765.432")
    for query in (h.suit, h.suit_bits, h.suit_count):
        with pytest.raises(HandError, match=r"a suit \(.*\) must be a whole number 0\.\.3"):
            query(suit)  # type: ignore[arg-type]
    assert h.suit(Suit.SPADES) == Hand.parse("AKQ2...") and h.suit_count(np.int64(0)) == 3


def test_card_of_and_random_with_reject_bools_and_floats() -> None:
    with pytest.raises(CardError, match=r"a card's suit must be a whole number 0\.\.3"):
        Card.of(True, 0)  # was the 2 of diamonds
    for seat in (True, 1.0):  # True was seat 1; 1.0 a TypeError
        with pytest.raises(SeatError, match=r"seat must be 0\.\.3"):
            Deal.random_with({seat: "AS"}, seed=1)  # type: ignore[dict-item]
    assert Card.of(np.int64(3), 12) == Card.parse("AS")


def test_numpy_ints_are_ints_but_bools_and_floats_are_not() -> None:
    d = Deal.random(2)
    masks = d.masks()  # uint64, the solver's form
    assert [Hand(m) for m in masks] == list(d.hands) and Deal([Hand(m) for m in masks]) == d
    assert type(Hand(masks[0]).mask) is int
    cards = np.arange(52)
    assert Card(cards[51]) == Card.parse(cards[51]) == Card.parse("AS")
    assert type(Card.parse(np.uint8(0))) is Card and int(Card(np.int32(7))) == 7
    assert d.seat_of(cards[51]) == d.seat_of("AS")
    assert np.int64(51) in Hand.parse("AS") and np.int64(50) not in Hand.parse("AS")
    assert Hand.from_cards(cards[:3]) == Hand.parse("4C 3C 2C")
    for bad in (True, np.True_, 3.0, np.float64(3.0), np.int64(52), np.int64(-1)):
        with pytest.raises(CardError, match=r"a card must be a whole number 0\.\.51"):
            Card(bad)  # type: ignore[arg-type]
        with pytest.raises(CardError):
            Card.parse(bad)  # type: ignore[arg-type]
    for bad in (True, np.True_, 3.0, np.float64(3.0), np.int64(-1), np.uint64(1 << 52)):
        with pytest.raises(
            HandError, match=re.escape(f"a hand mask must be a whole number 0..{2**52 - 1}")
        ):
            Hand(bad)  # type: ignore[arg-type]


def test_is_seat_is_0_to_3_as_int_or_numpy_int() -> None:
    assert all(is_seat(x) for x in (0, 1, 2, 3, np.int8(2), np.uint64(3)))
    assert not any(is_seat(x) for x in (-1, 4, True, np.True_, 1.0, "1", None, np.int64(-1)))


@pytest.mark.parametrize("seat", [-1, 4, True, 1.0, "1"])
def test_deal_index_rejects_what_is_not_a_seat(seat: object) -> None:
    deal = Deal.random(3)
    with pytest.raises(SeatError, match=r"seat must be 0\.\.3"):
        deal[seat]  # type: ignore[index]


@pytest.mark.parametrize("seat", [-1, 4, True, np.True_, 1.0, "1", None, np.int64(-1)])
def test_check_seat_rejects_what_is_not_a_seat_and_names_it(seat: object) -> None:
    with pytest.raises(SeatError, match=re.escape(f"leader must be 0..3, got {seat!r}")):
        check_seat(seat, "leader")


def test_check_seat_returns_a_plain_int() -> None:
    got = [check_seat(x) for x in (0, 1, 2, 3, np.int8(2), np.uint64(3))]
    assert got == [0, 1, 2, 3, 2, 3] and all(type(x) is int for x in got)


def test_play_order_key_is_rank_then_clubs_diamonds_hearts_spades() -> None:
    order = sorted(range(52), key=play_order_key)
    assert [str(Card(c)) for c in order[:5]] == ["2C", "2D", "2H", "2S", "3C"]
    assert [str(Card(c)) for c in order[-2:]] == ["AH", "AS"]
    assert lowest_card(Card.parse(t) for t in ("AS", "3D", "3C", "KH")) == Card.parse("3C")
    assert lowest_card([51, 12]) == Card.parse("AC") and type(lowest_card([0])) is Card
    with pytest.raises(CardError, match="no card"):
        lowest_card([])


def test_deal_index_takes_seats_as_ints_and_numpy_ints() -> None:
    deal = Deal.random(3)
    assert [deal[s] for s in range(4)] == list(deal.hands)
    assert deal[np.int64(2)] == deal.hands[2]
