"""The referee: plays deals between four players who see only their own seat's view.

``play_deal`` collects the calls in seat order and plays the 13 tricks under the ruleset. A
player's answer is checked before it counts: a call outside the ruleset's range or a card that is
not legal (``illegal``), an answer that is not a call or a card (``unparsable``), an exception
(``exception``) or an answer later than the player's time limit (``timeout``: ``time_limit``
seconds a decision) is a fault. A fault
is counted, logged (logger ``callbreak_lab.arena``) with the request the player was answering, and
replaced: a call by the lowest legal call, a card by the lowest legal card. So one broken player
cannot stop a tournament. ``play_match`` plays a match's deals with running totals, the dealer
rotating as in ``game.Match``. Each deal becomes a :class:`~callbreak_lab.arena.records.Board`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from callbreak_lab.arena.records import Board, Fault
from callbreak_lab.cards import Card, Deal, lowest_card
from callbreak_lab.errors import CallbreakLabError, NotationError, UsageError
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.view import SeatView

__all__ = ["LOG", "play_deal", "play_match", "seat_seed", "seat_view"]

LOG = logging.getLogger("callbreak_lab.arena")


def seat_seed(seed: int, deal_index: int, seat: int) -> int:
    """The seed a player at ``seat`` of deal ``deal_index`` gets (``new_deal``): the same for
    every rotation of a duplicate deal, so a seeded player plays a hand the same way whoever
    holds the other hands plays the same way."""
    state = np.random.SeedSequence([int(seed), int(deal_index), int(seat)]).generate_state(1)
    return int(state[0])


def seat_view(
    pos: Position,
    seat: int,
    calls: Sequence[int],
    totals: Sequence[int] = (0, 0, 0, 0),
    deal_number: int = 1,
    time_limit: float | None = None,
) -> SeatView:
    """What ``seat`` sees in ``pos`` after ``calls`` (of seats 0..len-1): the view a player
    gets, with the match ``totals`` (tenths) and its ``time_limit`` (seconds a decision)."""
    return SeatView(
        seat,
        pos.hand(seat),
        pos.rules,
        tuple(int(c) for c in calls),
        tuple(pos.history),
        pos.trick,
        pos.leader,
        pos.tricks_won,
        (int(totals[0]), int(totals[1]), int(totals[2]), int(totals[3])),
        deal_number,
        time_limit,
    )


def _request(player: Any, view: SeatView) -> Any:
    request = getattr(player, "last_request", None)
    return request if request is not None else {"view": str(view)}


def _ask(
    player: Any, what: str, view: SeatView, limit: float | None
) -> tuple[Any, str | None, str, float]:
    """(answer, fault kind or None, message, milliseconds) of ``player.call``/``play``."""
    if hasattr(player, "last_request"):
        player.last_request = None
    t0 = time.perf_counter()
    try:
        answer = getattr(player, what)(view)
        kind, message = None, ""
    except TimeoutError as e:
        answer, kind, message = None, "timeout", str(e) or "timed out"
    except NotationError as e:
        answer, kind, message = None, "unparsable", str(e)
    except Exception as e:  # a player is any code (or a bot over HTTP): its failure is a fault
        answer, kind, message = None, "exception", f"{type(e).__name__}: {e}"
    ms = (time.perf_counter() - t0) * 1000
    if kind is None and limit is not None and ms > limit * 1000:
        kind, message = "timeout", f"answered after {ms:.0f} ms; the limit is {limit:g} s"
    return answer, kind, message, ms


def _check_call(answer: Any, rules: Ruleset) -> tuple[str | None, str]:
    if isinstance(answer, bool) or not isinstance(answer, int | np.integer):
        return "unparsable", f"a call is a whole number, got {answer!r}"
    if not rules.min_call <= int(answer) <= rules.max_call:
        return "illegal", f"call {answer} is outside {rules.min_call}..{rules.max_call}"
    return None, ""


def _check_card(answer: Any, pos: Position) -> tuple[Card | None, str | None, str]:
    try:
        card = answer if isinstance(answer, Card) else Card.parse(answer)
    except (CallbreakLabError, TypeError):
        return None, "unparsable", f"not a card: {answer!r}"
    if not pos.legal_mask() >> card & 1:
        seat = pos.to_move
        if card not in pos.hand(seat):
            return card, "illegal", f"seat {seat} does not hold {card}"
        why = pos.legal_cards_with_reasons()
        return card, "illegal", f"{card}: {why.excluded.get(card, why.text)}"
    return card, None, ""


def play_deal(  # noqa: C901, PLR0913, PLR0915  (one board from calls to score, each fault handled where it happens)
    deal: Deal | str,
    rules: Ruleset | str | None,
    players: Sequence[Any],
    names: Sequence[str] | None = None,
    *,
    deal_number: int = 1,
    totals: Sequence[int] = (0, 0, 0, 0),
    time_limit: float | None = None,
    seed: int = 0,
    deal_index: int = 0,
) -> Board:
    """Play ``deal`` with ``players[s]`` at seat ``s`` (seat 0 calls first and leads) under
    ``rules`` (None: ``rules.DEFAULT_RULES``).

    ``names`` label the players in the record (default their ``name``); ``deal_number`` and
    ``totals`` (tenths, per seat of this deal) are the match's state the views show; players
    get ``prepare(rules)`` (outside the clock) and ``seat_seed(seed, deal_index, seat)`` through
    ``new_deal``. ``time_limit`` (seconds) limits every decision (None: only a player's own
    ``time_limit``, which protocol bots have)."""
    r = Ruleset.coerce(rules)
    d = Deal.parse(deal)
    if len(players) != 4:
        raise UsageError(f"a deal needs four players, got {len(players)}")
    labels = tuple(str(getattr(p, "name", type(p).__name__)) for p in players)
    if names is not None:
        labels = tuple(str(n) for n in names)
    limits = [
        time_limit if time_limit is not None else getattr(p, "time_limit", None) for p in players
    ]
    tot = tuple(int(t) for t in totals)
    for s, p in enumerate(players):
        ready = getattr(p, "prepare", None)
        if ready is not None:
            ready(r)
        hook = getattr(p, "new_deal", None)
        if hook is not None:
            hook(seat_seed(seed, deal_index, s))
        if getattr(p, "sees_deal", False):
            p.reveal(d)
    faults: list[Fault] = []
    ms: list[list[float]] = [[], [], [], []]
    pos = Position(d, r)

    def view(seat: int) -> SeatView:
        return seat_view(pos, seat, calls, tot, deal_number, limits[seat])

    def fault(seat: int, what: str, kind: str, message: str, v: SeatView, answer: Any,
              replaced: str) -> None:  # fmt: skip
        raw = getattr(players[seat], "last_answer", None)
        f = Fault(
            seat,
            labels[seat],
            what,
            kind,
            message,
            _request(players[seat], v),
            None if answer is None and raw is None else str(raw if raw is not None else answer),
            replaced,
        )
        faults.append(f)
        LOG.warning("fault: %s", f.text())

    calls: list[int] = []
    for seat in range(4):
        v = view(seat)
        answer, kind, message, took = _ask(players[seat], "call", v, limits[seat])
        ms[seat].append(took)
        if kind is None:
            kind, message = _check_call(answer, r)
        if kind is None:
            calls.append(int(answer))
        else:
            calls.append(r.min_call)
            fault(seat, "call", kind, message, v, answer, str(r.min_call))
    while not pos.is_over:
        seat = pos.to_move
        v = view(seat)
        answer, kind, message, took = _ask(players[seat], "play", v, limits[seat])
        ms[seat].append(took)
        card: Card | None = None
        if kind is None:
            card, kind, message = _check_card(answer, pos)
        if kind is not None or card is None:
            card = lowest_card(pos.legal_cards())
            fault(seat, "play", kind or "unparsable", message, v, answer, str(card))
        pos.play(card)
    tricks = pos.tricks_won
    return Board(
        deal=d,
        rules=r,
        players=(labels[0], labels[1], labels[2], labels[3]),
        calls=(calls[0], calls[1], calls[2], calls[3]),
        plays=pos.record(),
        tricks=tricks,
        scores=tuple(r.score(calls[s], tricks[s]) for s in range(4)),  # type: ignore[arg-type]
        faults=tuple(faults),
        ms=tuple(tuple(round(x, 3) for x in m) for m in ms),
        deal_index=deal_index,
        deal_number=deal_number,
        totals_before=(tot[0], tot[1], tot[2], tot[3]),
        seed=seed,
    )


def play_match(
    deals: Sequence[Deal],
    rules: Ruleset | str | None,
    players: Sequence[Any],
    names: Sequence[str] | None = None,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    first_index: int = 0,
) -> list[Board]:
    """Play ``deals`` as one match: ``players[t]`` at table seat ``t``. In deal ``k`` (from 0)
    the deal's seat ``s`` is table seat ``(s + k) % 4`` (the dealer rotates, ``game.Match``'s
    convention), and the views show the running totals. Deal ``k`` has index
    ``first_index + k`` in the tournament (the players' seeds)."""
    if len(players) != 4:
        raise UsageError(f"a match needs four players, got {len(players)}")
    labels = [str(getattr(p, "name", type(p).__name__)) for p in players]
    if names is not None:
        labels = [str(n) for n in names]
    totals = [0, 0, 0, 0]  # per table seat, tenths
    boards = []
    for k, deal in enumerate(deals):
        table = [(s + k) % 4 for s in range(4)]
        board = play_deal(
            deal,
            rules,
            [players[t] for t in table],
            [labels[t] for t in table],
            deal_number=k + 1,
            totals=[totals[t] for t in table],
            time_limit=time_limit,
            seed=seed,
            deal_index=first_index + k,
        )
        for s, t in enumerate(table):
            totals[t] += board.scores[s]
        boards.append(board)
    return boards
