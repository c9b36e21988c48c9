"""The service's bot is the arena's ``strong`` player, calls included: for the same seat view,
``/bid`` answers the call ``StrongPlayer.call`` makes (for the match where the standing
matters, within the protocol's 1..8), and for the same seed and no time limit ``/play``
answers the card ``StrongPlayer.play`` chooses, every time. Views: the recorded client
requests (tests/data/bhoos: one ``/bid``, 61 ``/play``) and random views of every kind (bids
in each seat at every deal of the match, standings level and not; mid-deal views leading and
following in each place, first and last tricks, forced cards, with and without the calls and
the standings), sent as the arena's protocol client sends them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from testdata import BHOOS_DIR

from callbreak_lab.arena import bhoos
from callbreak_lab.arena.players import StrongPlayer, make_player
from callbreak_lab.arena.protocol import bid_body, play_body
from callbreak_lab.arena.referee import seat_view
from callbreak_lab.cards import Deal, Hand
from callbreak_lab.game import Position
from callbreak_lab.rules import PRESETS, trick_winner
from callbreak_lab.seat import STRONG, SeatView
from callbreak_lab.seat.policy import deal_seed
from callbreak_lab.service import Settings, create_app

ONLINE = PRESETS["online"]
SETTINGS = Settings(workers=1, bot_deterministic=True)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(SETTINGS)) as c:
        yield c


def _view_of_request(req: dict[str, Any]) -> SeatView:
    """The arena's view of what a recorded request tells: every card with its seat (seat 0 led
    the first trick), the calls when the request gives all four."""
    k = bhoos.knowledge_of_request(req, ONLINE)
    history: list[tuple[int, Any]] = []
    trick: list[Any] = []
    leader = 0
    for card in k.record:
        history.append(((leader + len(trick)) % 4, card))
        trick.append(card)
        if len(trick) == 4:
            leader = (leader + trick_winner(trick)) % 4
            trick = []
    calls = () if any(c is None for c in k.calls) else tuple(int(c) for c in k.calls)  # type: ignore[arg-type]
    won = (k.tricks_won[0], k.tricks_won[1], k.tricks_won[2], k.tricks_won[3])
    return SeatView(k.seat, Hand(k.hand), ONLINE, calls, tuple(history), tuple(trick), leader, won)


def _dealt(view: SeatView) -> int:
    """The 13 cards the view's seat was dealt (the bot's seed is made from them)."""
    return view.hand.mask | sum(1 << int(c) for s, c in view.history if s == view.seat)


def _arena_card(view: SeatView) -> tuple[str, str]:
    player = make_player("strong", "online")  # no budget: every layout, as the bot here
    assert isinstance(player, StrongPlayer) and player.policy == STRONG
    player.new_deal(deal_seed(SETTINGS.seed, _dealt(view)))
    card = player.play(view)
    last = player.last
    assert last is not None
    return str(card), f"search ({last.layouts} layouts)" if last.how == "search" else last.how


def _bot_card(client: TestClient, body: dict[str, Any]) -> tuple[str, str]:
    r = client.post("/play", json=body)
    assert r.status_code == 200, r.text
    return str(bhoos.parse_bhoos_card(r.json()["value"])), r.headers["x-callbreak-choice"]


#: cards played before each random view: the first trick, the middle, and every place in the
#: trick of the searched tricks (40 cards or fewer in the hands) down to the last card
DEPTHS = (0, 1, 2, 3, 17, 26, 31, 30, *range(36, 52), *range(36, 48))


def _standing(rng: np.random.Generator, number: int) -> tuple[int, int, int, int]:
    """Match totals in tenths before deal ``number`` (none before the first)."""
    if number == 1:
        return (0, 0, 0, 0)
    t = rng.integers(-60, 45 * number, size=4)
    return (int(t[0]), int(t[1]), int(t[2]), int(t[3]))


def _random_views() -> list[SeatView]:
    """Mid-deal views at every depth band and place in the trick, half with the calls, with
    standings of every deal of the match."""
    rng = np.random.default_rng(20261205)
    views = []
    for i, depth in enumerate(DEPTHS):
        pos = Position(Deal.random(5000 + i), ONLINE)
        while len(pos.history) < depth:
            legal = list(pos.legal_cards())
            pos.play(legal[int(rng.integers(len(legal)))])
        calls = [int(c) for c in rng.integers(1, 7, size=4)] if i % 2 else []
        number = 1 + i % 5
        views.append(seat_view(pos, pos.to_move, calls, _standing(rng, number), number))
    return views


#: random bid views: every seat at every deal of the match
BIDS = 40


def _bid_views() -> list[SeatView]:
    """A view before the call of each seat in turn, at each deal of the match (standings
    level for a few), the earlier seats' calls 1..8."""
    rng = np.random.default_rng(20261207)
    views = []
    for i in range(BIDS):
        seat, number = i % 4, 1 + (i // 4) % 5
        totals = (30, 30, 30, 30) if i % 9 == 8 else _standing(rng, number)
        calls = tuple(int(c) for c in rng.integers(1, 9, size=seat))
        hand = Deal.random(9000 + i)[seat]
        views.append(SeatView(seat, hand, ONLINE, calls, (), (), 0, (0, 0, 0, 0), totals, number))
    return views


def _arena_call(view: SeatView) -> tuple[int, str]:
    player = make_player("strong", "online")
    assert isinstance(player, StrongPlayer)
    return player.call(view), player.last_call


def _bot_call(client: TestClient, body: dict[str, Any]) -> tuple[int, str]:
    r = client.post("/bid", json=body)
    assert r.status_code == 200, r.text
    return int(r.json()["value"]), r.headers["x-callbreak-match"]


def test_the_bot_calls_the_arena_players_call_on_the_recorded_request(
    client: TestClient,
) -> None:
    """The recorded ``/bid`` (deal 5 of a match, three calls made): the arena's view of it is
    seat 3 after calls 3, 4, 1 with the context's totals."""
    body = json.loads((BHOOS_DIR / "bid_request.json").read_text())
    earlier = bhoos.earlier_calls(body)
    standing = bhoos.bid_standing(body)
    assert standing is not None and earlier == [3, 4, 1]
    totals, number = standing
    hand = Hand.from_cards(bhoos.parse_bhoos_card(c) for c in body["cards"])
    view = SeatView(3, hand, ONLINE, tuple(earlier), (), (), 0, (0, 0, 0, 0), totals, number)
    arena, why = _arena_call(view)
    bot, bot_why = _bot_call(client, body)
    assert bot == arena and 1 <= bot <= 8, (why, bot_why)
    assert bot_why == why.encode("ascii", "replace").decode()


def test_the_bid_views_cover_the_match() -> None:
    views = _bid_views()
    assert {v.seat for v in views} == {0, 1, 2, 3}
    assert {v.deal_number for v in views} == {1, 2, 3, 4, 5}
    assert any(len(set(v.totals)) == 1 and v.deal_number > 1 for v in views)  # level


@pytest.mark.parametrize("index", range(BIDS))
def test_the_bot_calls_the_arena_players_call_on_random_views(
    client: TestClient, index: int
) -> None:
    view = _bid_views()[index]
    arena, why = _arena_call(view)
    bot, bot_why = _bot_call(client, bid_body(view, 1000))
    assert bot == arena and 1 <= bot <= 8, (why, bot_why)
    assert bot_why == why.encode("ascii", "replace").decode()


def test_some_random_views_call_for_the_match() -> None:
    """The bid views reach the match call: on some the call is not the points-best one, and
    in a match's first deal it always is."""
    from callbreak_lab.bidding.model import recommend_call

    differ = 0
    for view in _bid_views():
        call, _ = _arena_call(view)
        points = recommend_call(view.hand, view.seat, ONLINE, earlier_calls=list(view.calls))
        best = min(points.call, 8)
        if view.deal_number == 1:
            assert call == best
        differ += call != best
    assert differ >= 1


def test_the_views_cover_every_kind() -> None:
    views = _random_views()
    assert {len(v.trick) for v in views} == {0, 1, 2, 3}
    assert any(len(v.history) < 4 for v in views) and any(len(v.history) >= 48 for v in views)
    assert any(len(v.legal_cards()) == 1 for v in views)  # a forced card
    assert {bool(v.calls) for v in views} == {True, False}


@pytest.mark.slow  # 61 searches: in make test, not in the two-minute loop
@pytest.mark.parametrize("index", range(61))
def test_the_bot_plays_the_arena_players_card_on_the_recorded_requests(
    client: TestClient, index: int
) -> None:
    path = BHOOS_DIR / "play_requests.json"
    req = list(bhoos.read_requests(path.read_text()))[index]
    body = {k: v for k, v in req.items() if k != "timeBudget"}
    arena, how = _arena_card(_view_of_request(req))
    bot, bot_how = _bot_card(client, body)
    assert bot == arena, (how, bot_how)
    assert how.startswith("search") == bot_how.startswith("search"), (how, bot_how)
    if how.startswith("search"):
        assert bot_how == how  # the same layouts too


@pytest.mark.parametrize("index", range(len(DEPTHS)))
def test_the_bot_plays_the_arena_players_card_on_random_views(
    client: TestClient, index: int
) -> None:
    view = _random_views()[index]
    arena, how = _arena_card(view)
    bot, bot_how = _bot_card(client, play_body(view, 1000))
    assert bot == arena, (how, bot_how)
    assert how.startswith("search") == bot_how.startswith("search"), (how, bot_how)
    if how.startswith("search"):
        assert bot_how == how  # the same layouts too
