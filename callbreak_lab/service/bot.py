"""The tournament bot's reasoning: what a request tells, what it implies, and a cheap card.

Seats. The protocol numbers players by their index in ``playerIds`` (seat order, play passes from
index ``i`` to ``i + 1``). The library numbers seats so that seat 0 leads trick 1. So with ``L`` the
protocol index that led the first trick (``history[0][0]``; before any trick is complete, the
current trick's leader ``(me - len(played)) mod 4``) the library seat of protocol index ``p`` is
``(p - L) mod 4``: a pure rotation, which keeps the order of play.

What the table tells, the layouts consistent with it, the search over them and the cheap card are
``callbreak_lab.arena.pimc``'s (shared with the arena's ``pimc`` player), here under the ``online``
preset; this module reads the protocol's requests into that knowledge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from callbreak_lab import bhoos
from callbreak_lab.arena import pimc
from callbreak_lab.cards import Card
from callbreak_lab.errors import CallbreakLabError, FieldError
from callbreak_lab.rules import PRESETS, Ruleset

__all__ = [
    "BOT_RULES",
    "BotState",
    "bot_earlier_calls",
    "bot_seat_for_bid",
    "cheap_card",
    "read_play",
]

BOT_RULES: Ruleset = PRESETS["online"]


@dataclass
class BotState:
    """A ``/play`` request in library terms (library seats: seat 0 led trick 1)."""

    seat: int  # our library seat
    me: int  # our protocol index
    first_leader: int  # protocol index that led trick 1
    hand: int  # our current hand (mask)
    record: list[Card]  # every card played so far, in order (history, then the current trick)
    trick: list[Card]  # the current trick's cards
    leader: int  # library seat leading the current trick
    played_by: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # masks per library seat
    voids: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    excluded: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # cards a seat cannot hold
    tokens: dict[int, str] = field(default_factory=dict)  # card -> its text in ``cards``
    won: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # tricks won per library seat
    calls: list[int | None] = field(default_factory=lambda: [None] * 4)  # bids per library seat

    @property
    def first_trick(self) -> bool:
        """True while the deal's first trick is being played."""
        return len(self.record) < 4

    def legal_mask(self) -> int:
        """Our legal cards under the online preset."""
        return BOT_RULES.legal_mask(self.hand, self.trick, self.first_trick)

    def token(self, card: int) -> str:
        """The card in the request's own notation (as written in ``cards``)."""
        return self.tokens[card]

    def to_job(self) -> dict[str, Any]:
        """Plain data for a worker process."""
        return {
            "seat": self.seat,
            "hand": self.hand,
            "record": [int(c) for c in self.record],
            "played_by": list(self.played_by),
            "voids": [sorted(v) for v in self.voids],
            "excluded": list(self.excluded),
            "won": list(self.won),
            "calls": list(self.calls),
        }


_FIELDS = ("cards", "played", "history", "playerIds", "playerId")


def _field_of(message: str) -> str:
    """The request field a bhoos error message is about (it starts with the field's name)."""
    head = message.lower()
    for name in _FIELDS:
        if head.startswith(name.lower()):
            return name
    return "history" if "history" in head else "body"


def _infer(state: BotState, trick: Sequence[Card], seat: int, card: Card) -> None:
    """Record what ``seat`` playing ``card`` to ``trick`` (cards before it) reveals."""
    voids, excluded = pimc.inference(BOT_RULES, trick, card, len(state.record) < 4)
    state.voids[seat] |= voids
    state.excluded[seat] |= excluded


def _add_trick(state: BotState, trick: Sequence[Card], leader: int) -> None:
    for i, c in enumerate(trick):
        seat = (leader + i) % 4
        _infer(state, trick[:i], seat, c)
        state.played_by[seat] |= 1 << c
        state.record.append(c)


def read_play(body: dict[str, Any]) -> BotState:
    """Turn a ``/play`` body into a :class:`BotState` (the protocol conversion is
    ``callbreak_lab.bhoos``); a FieldError naming the field when the cards do not add up."""
    cards = body.get("cards") or []
    if not cards:
        raise FieldError("cards", "cards is empty: there is nothing to play")
    parsed = []
    for i, text in enumerate(cards):
        try:
            parsed.append(bhoos.parse_bhoos_card(text))
        except CallbreakLabError as e:
            raise FieldError("cards", f"cards[{i}]: {e}") from None
    if len(set(parsed)) != len(parsed):
        raise FieldError("cards", "cards: a card appears twice")
    request = dict(body)
    if request.get("playerId") is None and request.get("id") is not None:
        request["playerId"] = request["id"]
    if request.get("playerIds") is None:
        if request.get("history"):
            raise FieldError("playerIds", "playerIds and playerId (or id) are needed with history")
        request.pop("playerIds", None)
        request["playerId"] = "0"  # only relative seats matter before a trick is complete
    try:
        game = bhoos.convert_request(request)
        hand = game.original_hand()
        if hand is None or game.me is None:
            raise FieldError("playerId", "the request does not say which player we are")
        if len(hand) != 13:
            raise FieldError(
                "cards",
                f"after {len(game.tricks)} finished trick(s) the hand must hold "
                f"{13 - len(game.tricks)} cards, got {len(game.hand or ())}",
            )
        game.check_own_plays(BOT_RULES)
    except FieldError:
        raise
    except CallbreakLabError as e:  # the bhoos conversion's errors, whose message names the field
        raise FieldError(_field_of(str(e)), str(e)) from None
    tokens = dict(zip(parsed, cards, strict=True))
    current = game.hand.mask if game.hand is not None else 0
    seat = game.seat_of(game.me)
    leader = game.seat_of(game.tricks[-1].winner) if game.tricks else 0
    state = BotState(seat, game.me, game.first_start, current, [], [], leader)
    state.tokens = {int(c): t for c, t in tokens.items()}
    for t in game.tricks:
        _add_trick(state, t.cards, game.seat_of(t.start))
        state.won[game.seat_of(t.winner)] += 1
    ids = request.get("playerIds")
    players = (body.get("context") or {}).get("players")
    if isinstance(ids, list) and isinstance(players, dict):
        for p, pid in enumerate(ids):
            info = players.get(pid)
            bid = info.get("bid") if isinstance(info, dict) else None
            if isinstance(bid, int) and not isinstance(bid, bool) and 1 <= bid <= 13:
                state.calls[game.seat_of(p)] = bid
    _add_trick(state, game.played, leader)
    state.trick = list(game.played)
    return state


def cheap_card(state: BotState) -> Card:
    """A legal card without search (``pimc.cheap_card`` under the online preset)."""
    return pimc.cheap_card(BOT_RULES, state.hand, state.trick, state.record)


def bot_earlier_calls(body: dict[str, Any]) -> list[int]:
    """The calls other players have already made (``context.players[*].bid > 0``; online calls
    are at least 1, so 0 means "not yet"), in the order the context lists them, at most three.
    Without a context, none. Only their number, sum and largest value reach the bid model, so
    their order does not matter."""
    ctx = body.get("context")
    if not isinstance(ctx, dict):
        return []
    players = ctx.get("players")
    if not isinstance(players, dict):
        return []
    me = body.get("playerId") or body.get("id")
    found: list[int] = []
    for pid, info in players.items():
        if pid == me or not isinstance(info, dict):
            continue
        bid = info.get("bid")
        if isinstance(bid, int | float) and not isinstance(bid, bool) and bid > 0:
            found.append(int(bid) if float(bid).is_integer() else -1)
    return found[:3]


def bot_seat_for_bid(body: dict[str, Any]) -> int:
    """Our bidding seat (0 = first to bid): the number of other players who have already bid."""
    return len(bot_earlier_calls(body))
