"""The Bhoos tournament bot endpoints: ``GET /hi``, ``POST /bid``, ``POST /play``.

``/play`` answers within the request's ``timeBudget`` (ms, default 1000), counted from the
request's arrival (``scope["state"]["arrival"]``, set when its first bytes are parsed), so time
spent waiting for the event loop or a worker is not lost: it computes a cheap legal card first,
then lets a worker process choose the card as the arena's ``strong`` player does (the same
policy object, ``seat.policy.STRONG``) within a part of the remaining budget
(``Settings.bot_budget_fraction`` of it, after ``Settings.bot_margin_ms`` kept back, and never
over ``Settings.bot_max_search_ms``). If the search is late (the worker is killed at the hard
deadline), every worker is busy, or anything goes wrong in it, the cheap card is answered.
The answer is always a card of ``cards`` that is legal under the ``online`` preset, written
exactly as the request wrote it.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import FastAPI, Request, Response

from callbreak_lab.arena import bhoos
from callbreak_lab.arena.players import PROTOCOL_MAX_CALL
from callbreak_lab.bidding import calls
from callbreak_lab.cards import Hand
from callbreak_lab.errors import CallbreakLabError, CallError, FieldError
from callbreak_lab.seat.policy import deal_seed, decision_seed
from callbreak_lab.service import schemas as s
from callbreak_lab.service.bot import BOT_RULES, cheap_card, read_play
from callbreak_lab.service.common import BODY_ERRORS, GET_ERRORS, Service, client_of
from callbreak_lab.service.pool import JobError, JobTimeout

__all__ = ["BID_RULES", "register"]

#: the protocol's calls are 1..8 (``arena.players.PROTOCOL_MAX_CALL``): the online preset
#: within that range, the rules ``strong_call`` calls under for the bot
BID_RULES = BOT_RULES.replace(max_call=PROTOCOL_MAX_CALL)
_MIN_SEARCH = 0.03  # seconds: below this much remaining time, do not start a search


def _hand_of(cards: list[str]) -> Hand:
    try:
        parsed = [bhoos.parse_bhoos_card(c) for c in cards]
    except CallbreakLabError as e:
        raise FieldError("cards", f"cards: {e}") from None
    if len(set(parsed)) != len(parsed):
        raise FieldError("cards", "cards: a card appears twice")
    return Hand.from_cards(parsed)


def _match_call(req: s.BidRequest, dist: Any, seat: int, earlier: list[int]) -> tuple[int, str]:
    """The arena's ``strong`` call (``arena.players.strong_call``: for the match where the
    context's ``round`` and totals make the standing matter, else for the points, within
    1..8) and what decided it; a standing the context gives wrongly leaves the points-best
    call (a bot still answers)."""
    from callbreak_lab.arena.players import strong_call

    try:
        standing = bhoos.bid_standing(req.model_dump())
    except CallbreakLabError as e:
        call, _ = strong_call(dist, seat, BOT_RULES, earlier_calls=earlier)
        return call, f"the points-best call: {e}"
    totals, number = (None, None) if standing is None else standing
    call, reason = strong_call(dist, seat, BOT_RULES, totals, number, earlier_calls=earlier)
    return call, reason.encode("ascii", "replace").decode()


def _bid(req: s.BidRequest, svc: Service, response: Response) -> s.BidResponse:
    """``/bid``'s answer (see ``register``), its source and match decision in the headers."""
    hand = _hand_of(req.cards)
    if len(hand) != 13:
        raise FieldError("cards", f"cards: a bid needs the 13 dealt cards, got {len(hand)}")
    earlier = bhoos.earlier_calls(req.model_dump())
    seat = len(earlier)
    try:
        calls.check_earlier_calls(earlier, seat, BOT_RULES)
    except CallError:
        earlier = []  # another player's odd bid: still answer, without conditioning on it
    forecast = svc.bidder.forecast(hand, seat, BOT_RULES, earlier if earlier else None)
    used = f"; after calls {earlier}" if forecast.calls_used else ""
    response.headers["x-callbreak-source"] = f"{forecast.source}; seat {seat}{used}"
    call, response.headers["x-callbreak-match"] = _match_call(req, forecast.dist, seat, earlier)
    return s.BidResponse(value=max(1, min(8, int(call))))


def register(app: FastAPI, svc: Service) -> None:
    """Add the bot routes to ``app``."""

    @app.get("/hi", response_model=s.HelloResponse, responses=GET_ERRORS, tags=["bot"])
    async def hi() -> s.HelloResponse:
        """Readiness probe."""
        return s.HelloResponse(value="hello")

    @app.post("/bid", response_model=s.BidResponse, responses=BODY_ERRORS, tags=["bot"])
    async def bid(req: s.BidRequest, response: Response) -> s.BidResponse:
        """Our call, the arena's ``strong`` player's (``arena.players.strong_call``): the best
        expected-score call of the online preset within 1..8, from the bid model (or the stated
        fallback when no model is shipped; see ``/healthz``). The other players' bids in
        ``context`` give our seat and, for a call-conditioned model, the earlier calls it
        conditions on. With the match's ``round`` and every player's ``totalPoints`` in
        ``context``, the call that gives the best chance of winning the match
        (``bidding.match``; the header ``x-callbreak-match`` says why)."""
        return _bid(req, svc, response)

    @app.post("/play", response_model=s.PlayResponse, responses=BODY_ERRORS, tags=["bot"])
    async def play(req: s.PlayRequest, request: Request, response: Response) -> s.PlayResponse:
        """Our card: the arena's ``strong`` player's (``seat.policy.STRONG``: the best expected
        score of our call over layouts drawn by the likelihood of the calls), within
        ``timeBudget`` from the request's arrival; when no layout is solved in time, ``strong``'s
        card without search (the learned play policy's likeliest), and when there is no time to
        ask the search at all, the cheap legal card computed at once."""
        t0 = request.scope.get("state", {}).get("arrival", time.monotonic())
        cfg = svc.settings
        budget_ms = cfg.default_time_budget_ms if req.timeBudget is None else req.timeBudget
        seen = read_play(req.model_dump())
        k = seen.knowledge
        legal = k.legal_mask()
        card = int(cheap_card(k))  # at once, the answer if nothing better is back in time
        how = "forced" if legal.bit_count() == 1 else "heuristic"
        if how == "heuristic" and k.cards_left > cfg.bot_search_max_cards:
            how = "heuristic (early trick)"
        remaining = (budget_ms - cfg.bot_margin_ms) / 1000 - (time.monotonic() - t0)
        remaining = min(remaining, cfg.bot_max_search_ms / 1000)
        if cfg.bot_deterministic:
            remaining = cfg.time_limit
        if how == "heuristic" and remaining > _MIN_SEARCH:
            seed = decision_seed(deal_seed(cfg.seed, seen.dealt), len(k.record))
            job = {"knowledge": k, "seed": seed, "time_limit": None}
            try:
                result = await svc.pool.run(
                    "bot_play",
                    job,
                    remaining,
                    budget_key=None if cfg.bot_deterministic else "time_limit",
                    budget_fraction=cfg.bot_budget_fraction,
                    min_budget=_MIN_SEARCH,
                    kind="bot",
                    client=client_of(request),
                )
            except (JobTimeout, JobError) as e:
                how = f"heuristic ({type(e).__name__})"
            else:
                found = result["card"]
                if result["how"] == "search" and legal >> found & 1:
                    card = int(found)
                    how = f"search ({result['layouts']} layouts)"
                elif legal >> found & 1:  # strong's card without search: the learned one
                    card = int(found)
                    how = "learned (no layout solved in time)"
                else:
                    how = "heuristic (no layout solved in time)"
        response.headers["x-callbreak-choice"] = how
        # milliseconds from the request's arrival to the answer (before it is written)
        response.headers["x-callbreak-elapsed-ms"] = f"{(time.monotonic() - t0) * 1000:.1f}"
        return s.PlayResponse(value=seen.token(card))
