"""The service's bot is the arena's ``strong`` player: for the same seat view, the same seed and
no time limit, ``/play`` answers the card ``StrongPlayer.play`` chooses, every time. Views: the
61 recorded client requests (tests/data/bhoos) and random mid-deal views of every kind (leading
and following in each place, first and last tricks, forced cards, with and without the calls),
sent to ``/play`` as the arena's protocol client sends them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from testdata import BHOOS_DIR

from callbreak_lab.arena import bhoos
from callbreak_lab.arena.players import StrongPlayer, make_player
from callbreak_lab.arena.protocol import play_body
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


def _random_views() -> list[SeatView]:
    """Mid-deal views at every depth band and place in the trick, half with the calls."""
    rng = np.random.default_rng(20261205)
    views = []
    for i, depth in enumerate(DEPTHS):
        pos = Position(Deal.random(5000 + i), ONLINE)
        while len(pos.history) < depth:
            legal = list(pos.legal_cards())
            pos.play(legal[int(rng.integers(len(legal)))])
        calls = [int(c) for c in rng.integers(1, 7, size=4)] if i % 2 else []
        views.append(seat_view(pos, pos.to_move, calls))
    return views


def test_the_views_cover_every_kind() -> None:
    views = _random_views()
    assert {len(v.trick) for v in views} == {0, 1, 2, 3}
    assert any(len(v.history) < 4 for v in views) and any(len(v.history) >= 48 for v in views)
    assert any(len(v.legal_cards()) == 1 for v in views)  # a forced card
    assert {bool(v.calls) for v in views} == {True, False}


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
