"""A player that is a bot speaking the Bhoos protocol (docs/bhoos-protocol.md), as its client.

The arena is the game server: ``GET /hi`` until the bot answers (once, before its first
decision), ``POST /bid`` at the start of every deal, ``POST /play`` for every card. Player ids are
``P0``..``P3`` by table seat (the same for the whole match), so ``playerIds`` keeps its order
across the deals while the first bidder rotates; ``history`` holds the finished tricks
``[leader index, [cards in play order], winner index]``; ``context`` the deal's number (``round``,
1..5) and per player its running total (``totalPoints``, points), its call (``bid``, 0 while not
yet made) and tricks won (``won``); ``timeBudget`` the milliseconds the bot has. Cards are written
as the protocol writes them (``1S`` for the ace; ``/0`` after the cards in ``played`` and
``history``, as in the recorded traffic). Protocol bots play the ``online`` preset only.

Only the standard library's HTTP client is used. An answer that is not ``{"value": ...}`` with a
whole number (``/bid``) or a card (``/play``) raises ``NotationError``; no answer within the time
budget plus ``GRACE_S`` raises ``TimeoutError``; the referee counts either as a fault.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from callbreak_lab.arena import bhoos
from callbreak_lab.cards import Card
from callbreak_lab.errors import NotationError, UsageError
from callbreak_lab.rules import PRESETS, Ruleset, trick_winner
from callbreak_lab.seat.view import SeatView

__all__ = ["DEFAULT_BUDGET_MS", "GRACE_S", "HttpPlayer", "bid_body", "bot_url", "play_body"]

#: the protocol's time budget when none is given (the service's default too)
DEFAULT_BUDGET_MS = 1000
#: seconds a protocol bot's answer may take beyond its budget before the request is given up
GRACE_S = 1.0
IDS = ("P0", "P1", "P2", "P3")


def bot_url(spec: str) -> str:
    """The bot's base URL from ``http:host:port``, ``http:http://host:port`` or a plain URL."""
    text = spec.strip()
    if text.startswith("http:") and not text.startswith("http://"):
        text = text[5:]
    if not text.startswith(("http://", "https://")):
        text = "http://" + text
    parts = urllib.parse.urlsplit(text)
    if not parts.netloc:
        raise UsageError(f"a protocol bot is http:HOST:PORT or http:URL, got {spec!r}")
    return text.rstrip("/")


def _table(view: SeatView, seat: int) -> int:
    """The table seat (index into ``playerIds``) of the deal's ``seat``."""
    return (seat + view.deal_number - 1) % 4


def _context(view: SeatView) -> dict[str, Any]:
    players = {}
    for seat in range(4):
        players[IDS[_table(view, seat)]] = {
            "totalPoints": view.totals[seat] / 10,
            "bid": view.calls[seat] if seat < len(view.calls) else 0,
            "won": view.tricks_won[seat],
        }
    return {"round": view.deal_number, "players": players}


def bid_body(view: SeatView, budget_ms: int) -> dict[str, Any]:
    """The ``/bid`` request for the view's seat."""
    return {
        "playerId": IDS[_table(view, view.seat)],
        "playerIds": list(IDS),
        "cards": [bhoos.card_to_bhoos(c, suffix=False) for c in view.hand],
        "context": _context(view),
        "timeBudget": budget_ms,
    }


def play_body(view: SeatView, budget_ms: int) -> dict[str, Any]:
    """The ``/play`` request for the view's seat."""
    history = []
    done = len(view.history) - len(view.trick)
    for start in range(0, done, 4):
        trick = view.history[start : start + 4]
        cards = [c for _, c in trick]
        winner = trick[trick_winner(cards)][0]
        history.append(
            [
                _table(view, trick[0][0]),
                [bhoos.card_to_bhoos(c) for c in cards],
                _table(view, winner),
            ]
        )
    return {
        "playerId": IDS[_table(view, view.seat)],
        "playerIds": list(IDS),
        "cards": [bhoos.card_to_bhoos(c, suffix=False) for c in view.hand],
        "played": [bhoos.card_to_bhoos(c) for c in view.trick],
        "history": history,
        "context": _context(view),
        "timeBudget": budget_ms,
    }


class HttpPlayer:
    """A Bhoos protocol bot at ``spec`` (``http:HOST:PORT`` or a URL). Before its first request
    it polls ``/hi`` for up to ``wait_s`` seconds. ``last_request`` and ``last_answer`` keep the
    latest exchange for the referee's fault log."""

    def __init__(
        self,
        spec: str,
        rules: Ruleset | str,
        budget_ms: int | None = None,
        wait_s: float = 30.0,
    ) -> None:
        r = Ruleset.coerce(rules)
        if r != PRESETS["online"]:
            raise UsageError(f"protocol bots play the online preset; {spec} cannot play {r.name}")
        self.url = bot_url(spec)
        self.name = f"http:{self.url}"
        self.budget_ms = DEFAULT_BUDGET_MS if budget_ms is None else int(budget_ms)
        if self.budget_ms < 1:
            raise UsageError(f"a protocol bot's time budget is at least 1 ms, got {budget_ms}")
        #: the referee faults an answer that takes longer than this (seconds)
        self.time_limit = self.budget_ms / 1000
        self.last_request: dict[str, Any] | None = None
        self.last_answer: str | None = None
        self.wait_s = float(wait_s)
        self._polled = False

    def _send(self, path: str, body: dict[str, Any] | None) -> str:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path,
            data=data,
            headers={"Content-Type": "application/json"} if data is not None else {},
            method="GET" if data is None else "POST",
        )
        timeout = self.budget_ms / 1000 + GRACE_S
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return str(response.read().decode("utf-8", "replace"))
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")[:500]
            raise ConnectionError(f"{path} answered HTTP {e.code}: {text}") from None
        except TimeoutError:
            raise TimeoutError(f"{path}: no answer within {timeout:.1f} s") from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                raise TimeoutError(f"{path}: no answer within {timeout:.1f} s") from None
            raise ConnectionError(f"{path}: {e.reason}") from None

    def ready(self, wait_s: float | None = None) -> None:
        """Poll ``GET /hi`` until the bot answers (a ConnectionError after ``wait_s``, by
        default the player's ``wait_s``)."""
        deadline = time.monotonic() + (self.wait_s if wait_s is None else wait_s)
        while True:
            try:
                self._send("/hi", None)
                return
            except (ConnectionError, TimeoutError) as e:
                if time.monotonic() > deadline:
                    raise ConnectionError(f"{self.url} did not answer /hi: {e}") from None
                time.sleep(0.2)

    def _value(self, path: str, body: dict[str, Any]) -> Any:
        if not self._polled:  # once: a bot that never answers fails every request quickly
            self._polled = True
            self.ready()
        self.last_request = {"path": path, "body": body}
        self.last_answer = None
        text = self._send(path, body)
        self.last_answer = text
        try:
            answer = json.loads(text)
        except ValueError:
            raise NotationError(f"{path}: the answer is not JSON: {text[:200]!r}") from None
        if not isinstance(answer, dict) or "value" not in answer:
            raise NotationError(f'{path}: the answer is not {{"value": ...}}: {text[:200]!r}')
        return answer["value"]

    def call(self, view: SeatView) -> int:
        value = self._value("/bid", bid_body(view, self.budget_ms))
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise NotationError(f"/bid: the value is not a whole number: {value!r}")
        if isinstance(value, float) and not value.is_integer():
            raise NotationError(f"/bid: the value is not a whole number: {value!r}")
        return int(value)

    def play(self, view: SeatView) -> Card:
        value = self._value("/play", play_body(view, self.budget_ms))
        return bhoos.parse_bhoos_card(value)  # a CardError (NotationError) when it is not one
