"""Bhoos bot-protocol conversion: cards, histories, recorded traffic, errors."""

from __future__ import annotations

import copy

import pytest
from testdata import BHOOS_DIR

from callbreak_lab import Card, Deal, Position, parse_record, random_player, trick_winner
from callbreak_lab.arena.bhoos import (
    card_to_bhoos,
    convert_request,
    history_from_record,
    parse_bhoos_card,
    parse_history,
    read_requests,
)
from callbreak_lab.errors import (
    CardError,
    HandError,
    IllegalPlayError,
    NotationError,
    SeatError,
)

PLAY_REQUESTS = BHOOS_DIR / "play_requests.json"


@pytest.fixture(scope="module")
def requests() -> list[dict]:
    return list(read_requests(PLAY_REQUESTS.read_text()))


@pytest.mark.parametrize(
    ("text", "card"),
    [("1S", "AS"), ("1C/0", "AC"), ("TD/0", "TD"), ("2h", "2H"), (" KC ", "KC"), ("9S/12", "9S")],
)
def test_parse_card(text: str, card: str) -> None:
    assert parse_bhoos_card(text) == Card.parse(card)


@pytest.mark.parametrize("text", ["AS", "10S", "1X", "S1", "1S/", "1S/a", "", "11S", 5, None])
def test_parse_card_rejects(text: object) -> None:
    with pytest.raises(CardError, match="Bhoos card"):
        parse_bhoos_card(text)


def test_card_round_trip() -> None:
    for c in range(52):
        card = Card(c)
        assert parse_bhoos_card(card_to_bhoos(card)) == card
        assert parse_bhoos_card(card_to_bhoos(card, suffix=False)) == card
    assert card_to_bhoos("AS") == "1S/0"
    assert card_to_bhoos("TD", suffix=False) == "TD"


def test_recorded_traffic(requests: list[dict]) -> None:
    assert len(requests) == 61
    tricks_seen = 0
    for req in requests:
        game = convert_request(req)
        for t in game.tricks:  # winner index = the online rules' trick winner
            assert t.winner == (t.start + trick_winner(t.cards)) % 4
            tricks_seen += 1
        # round trips: protocol history and the play record
        assert parse_history(game.history()) == list(game.tricks)
        assert [list(x) for x in game.history()] == [list(h) for h in req["history"]]
        assert parse_record(game.record) == game.cards
        assert len(game.cards) == 4 * len(game.tricks) + len(req["played"])
        # the requesting bot is next to play, and its own plays were legal under online
        assert game.me == req["playerIds"].index(req["playerId"])
        leader = game.tricks[-1].winner if game.tricks else game.first_start
        assert (leader + len(game.played)) % 4 == game.me
        game.check_own_plays("online")
        hand = game.original_hand()
        assert hand is not None and len(hand) == 13
        # seat mapping: deal seat 0 led the first trick
        assert game.seat_of(game.first_start) == 0
        assert all(game.index_of(game.seat_of(i)) == i for i in range(4))
        assert sorted(game.seat_map.values()) == [0, 1, 2, 3]
    assert tricks_seen > 100


def test_known_request(requests: list[dict]) -> None:
    game = convert_request(requests[1])
    assert game.first_start == 1
    assert game.record == "AC 2C 5C QC | JC 4C 7S"
    assert game.seat_of(1) == 0 and game.seat_of(0) == 3
    assert game.my_seat == 3


def test_history_from_played_deal_round_trips() -> None:
    pos = Position(Deal.random(11), "online")
    policy = random_player(4)
    while not pos.is_over:
        pos.play(policy(pos))
    cards = parse_record(pos.record())
    for first in range(4):
        history = history_from_record(cards, first)
        tricks = parse_history(history)
        assert [c for t in tricks for c in t.cards] == cards
        assert [(t.winner - first) % 4 for t in tricks] == [t.winner for t in pos.tricks]
        game = convert_request({"history": history, "played": []})
        assert game.record == pos.record()
        assert parse_history(game.history(suffix=False)) == tricks


def _history() -> list:
    return [[1, ["5S/0", "9S/0", "QS/0", "6S/0"], 3], [3, ["5C/0", "1C/0", "3C/0", "4C/0"], 0]]


def test_winner_mismatch() -> None:
    h = _history()
    h[1][2] = 3
    with pytest.raises(IllegalPlayError, match=r"trick 2 .*recorded winner index 3.*index 0"):
        parse_history(h)


@pytest.mark.parametrize(
    ("mutate", "error", "message"),
    [
        (lambda h: h.append([0, ["2D", "3D"], 0]), NotationError, "list of 4 cards"),
        (lambda h: h.append([0, ["2D", "3D", "4D", "5D"]]), NotationError, r"expected \[start"),
        (lambda h: h[0].__setitem__(0, 4), SeatError, r"start \(a player index\) must be 0\.\.3"),
        (lambda h: h[0].__setitem__(2, "3"), SeatError, r"winner \(a player index\) must be"),
        (lambda h: h[1][1].__setitem__(0, "5S"), NotationError, "already played in trick 1"),
        (lambda h: h[1].__setitem__(0, 2), IllegalPlayError, "won the last trick"),
        (lambda h: h[1][1].__setitem__(2, "XX"), CardError, "trick 2: bad Bhoos card 'XX'"),
    ],
)
def test_malformed_history(mutate, error: type[Exception], message: str) -> None:
    h = copy.deepcopy(_history())
    mutate(h)
    with pytest.raises(error, match=message):
        parse_history(h)


def test_void_then_follow_is_rejected() -> None:
    # index 0 discards a heart on a club trick, then plays a club later
    h = [[0, ["KC", "2H", "3C", "4C"], 0], [0, ["5C", "6C", "7C", "8C"], 3]]
    with pytest.raises(IllegalPlayError, match="index 1 plays 6C after showing void in clubs"):
        parse_history(h)
    assert len(parse_history(h, check_voids=False)) == 2


def test_request_errors() -> None:
    base = {"playerId": "P0", "playerIds": ["P0", "B1", "B2", "B3"], "history": [], "played": []}
    with pytest.raises(NotationError, match="playerIds must list 4"):
        convert_request({**base, "playerIds": ["P0"]})
    with pytest.raises(NotationError, match="not in playerIds"):
        convert_request({**base, "playerId": "zz"})
    with pytest.raises(NotationError, match=r"played must list 0\.\.3"):
        convert_request({**base, "played": ["2C", "3C", "4C", "5C"]})
    with pytest.raises(NotationError, match="appears twice"):
        convert_request({**base, "played": ["2C", "2C/0"]})
    with pytest.raises(HandError, match="held but already played"):
        convert_request({**base, "played": ["2C"], "cards": ["2C", "3C"]})
    with pytest.raises(HandError, match="cards: a list of Bhoos cards, got 5"):
        convert_request({**base, "cards": 5})
    with pytest.raises(HandError, match="cards: card 2C given twice"):
        convert_request({**base, "cards": ["2C", "2C/0"]})
    with pytest.raises(IllegalPlayError, match="turn"):
        convert_request({**base, "history": _history()[:1]})  # index 3 leads, not P0's turn
    with pytest.raises(NotationError, match="JSON object"):
        convert_request(["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="history must be a list"):
        parse_history("1S 2S")


def test_read_requests_errors() -> None:
    assert list(read_requests('{"a": 1}{"b": 2}  \n')) == [{"a": 1}, {"b": 2}]
    with pytest.raises(NotationError, match="bad JSON at character"):
        list(read_requests('{"a": 1}{"b":'))
    with pytest.raises(NotationError, match="expected a JSON object"):
        list(read_requests("[1, 2]"))


def test_history_indices_may_be_numpy_ints() -> None:
    import numpy as np

    plain = _history()
    h = [[np.int64(s), cards, np.int8(w)] for s, cards, w in plain]
    tricks = parse_history(h)
    assert tricks == parse_history(plain)
    assert all(type(t.start) is int and type(t.winner) is int for t in tricks)


@pytest.mark.parametrize("index", range(12))
def test_a_request_tells_the_bot_what_the_arena_s_view_tells_its_player(index: int) -> None:
    """``knowledge_of_request`` of the ``/play`` body the arena sends a protocol bot is the
    knowledge of the arena's own view: the seat, hand, plays, calls and the match standing,
    whichever protocol index led the first trick."""
    import numpy as np

    from callbreak_lab.arena.bhoos import knowledge_of_request
    from callbreak_lab.arena.protocol import play_body
    from callbreak_lab.arena.referee import seat_view
    from callbreak_lab.seat import Knowledge

    rng = np.random.default_rng(index)
    pos = Position(Deal.seeded(62, index), "online")
    for _ in range(int(rng.integers(0, 52))):
        legal = sorted(pos.legal_cards())
        pos.play(legal[int(rng.integers(len(legal)))])
    calls = [int(c) for c in rng.integers(1, 9, size=4)]
    totals = tuple(int(t) for t in rng.integers(-300, 300, size=4))
    view = seat_view(pos, pos.to_move, calls, totals=totals, deal_number=int(rng.integers(1, 6)))
    k = knowledge_of_request(play_body(view, 1000))
    assert k == Knowledge.of_view(view)
    assert k.totals == totals and k.calls == tuple(calls) and k.deals_left == 5 - view.deal_number


def test_the_context_is_read_one_way_for_bid_and_play() -> None:
    """``player_id`` (``playerId``, else ``id``), the calls made (``bid`` above 0) and the
    totals (points read as tenths, float noise forgiven) mean the same in a ``/bid`` and a
    ``/play`` body."""
    from callbreak_lab.arena.bhoos import bid_standing, earlier_calls, player_id

    assert player_id({"playerId": "A", "id": "B"}) == "A"
    assert player_id({"playerId": None, "id": "B"}) == "B" and player_id({}) is None
    players = {
        "P0": {"bid": 0, "totalPoints": 4.199999999999999},
        "P1": {"bid": 3, "totalPoints": -3},
        "P2": {"bid": 0, "totalPoints": 0},
        "P3": {"bid": 2.0, "totalPoints": 12.5},
    }
    bid = {"id": "P0", "cards": [], "context": {"round": 2, "players": players}}
    assert earlier_calls(bid) == [3, 2]
    # calling order: those who called (P1, P3), then the bot (P0), then the rest (P2)
    assert bid_standing(bid) == ((-30, 125, 42, 0), 2)
