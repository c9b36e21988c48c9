"""The tournament bot's reading of a ``/play`` request: what the body tells, in the seat
layer's terms, with the field that is wrong named (a ``/bid``'s calls and standing are read by
``arena.bhoos.earlier_calls`` and ``bid_standing``).

Seats. The protocol numbers players by their index in ``playerIds`` (seat order, play passes from
index ``i`` to ``i + 1``). The library numbers seats so that seat 0 leads trick 1. So with ``L`` the
protocol index that led the first trick (``history[0][0]``; before any trick is complete, the
current trick's leader ``(me - len(played)) mod 4``) the library seat of protocol index ``p`` is
``(p - L) mod 4``: a pure rotation, which keeps the order of play.

What the table tells and the card choice are the seat layer's (``seat.knowledge.Knowledge``, read
by ``arena.bhoos.knowledge_of_request``; ``seat.policy.STRONG``: the arena's ``strong`` player's
policy), under the
``online`` preset; this module checks the request's fields and names the one that is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from callbreak_lab.arena import bhoos
from callbreak_lab.cards import Card
from callbreak_lab.errors import CallbreakLabError, FieldError
from callbreak_lab.rules import PRESETS, Ruleset
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.seat.policy import cheap_card as policy_cheap_card

__all__ = [
    "BOT_RULES",
    "BotRequest",
    "cheap_card",
    "read_play",
]

BOT_RULES: Ruleset = PRESETS["online"]


@dataclass(frozen=True)
class BotRequest:
    """A ``/play`` request in library terms: what the bot's seat knows (library seats: seat 0
    led trick 1), its protocol index ``me``, the 13 cards it was dealt (a mask) and each card's
    text as the request wrote it (``token``)."""

    knowledge: Knowledge
    me: int
    dealt: int
    tokens: dict[int, str]

    def token(self, card: int) -> str:
        """The card in the request's own notation (as written in ``cards``)."""
        return self.tokens[card]


_FIELDS = ("cards", "played", "history", "playerIds", "playerId")


def _field_of(message: str) -> str:
    """The request field a bhoos error message is about (it starts with the field's name)."""
    head = message.lower()
    for name in _FIELDS:
        if head.startswith(name.lower()):
            return name
    return "history" if "history" in head else "body"


def read_play(body: dict[str, Any]) -> BotRequest:
    """Turn a ``/play`` body into a :class:`BotRequest` (the protocol conversion is
    ``callbreak_lab.arena.bhoos``); a FieldError naming the field when the cards do not add up."""
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
        k = bhoos.knowledge_of_request(request, BOT_RULES, game=game)
    except FieldError:
        raise
    except CallbreakLabError as e:  # the bhoos conversion's errors, whose message names the field
        raise FieldError(_field_of(str(e)), str(e)) from None
    tokens = {int(c): t for c, t in zip(parsed, cards, strict=True)}
    return BotRequest(k, game.me, int(hand.mask), tokens)


def cheap_card(k: Knowledge) -> Card:
    """A legal card without search (``seat.policy.cheap_card``)."""
    return policy_cheap_card(k.rules, k.hand, k.trick, k.record)
