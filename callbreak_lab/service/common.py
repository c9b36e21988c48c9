"""Shared pieces of the service: input parsing with field names, per-app state.

A request field the library rejects becomes a ``FieldError`` (``callbreak_lab.errors``) naming
the field, answered with a 422."""

from __future__ import annotations

from typing import Any

import numpy as np
from fastapi.responses import JSONResponse

from callbreak_lab.bidding import calls
from callbreak_lab.cards import Deal, Hand
from callbreak_lab.errors import CallbreakLabError, FieldError, ModelError
from callbreak_lab.game import Position
from callbreak_lab.rules import PRESETS, Ruleset
from callbreak_lab.service import schemas as s
from callbreak_lab.service.bidder import Bidder
from callbreak_lab.service.limits import Settings
from callbreak_lab.service.pool import JobError, WorkerPool

__all__ = [
    "BODY_ERRORS",
    "ERRORS",
    "GET_ERRORS",
    "FieldError",
    "Service",
    "client_of",
    "evaluate_hand",
    "parse_calls",
    "parse_hand13",
    "parse_position",
    "parse_rules",
    "position_info",
    "rules_catalogue",
]

#: the answers besides 200 and 422 (FastAPI documents the 422 of a route taking a body) that
#: the service's own layers give to a request with a body (``limits.BodyLimitMiddleware``: 408,
#: 413, 415; the time bound: 503)
ERRORS: dict[int | str, dict[str, Any]] = {
    408: {"model": s.Problem, "description": "the request's body arrived too slowly"},
    413: {"model": s.TooLarge, "description": "request body too large"},
    415: {"model": s.Problem, "description": "the body is not sent as application/json"},
    503: {"model": s.Problem, "description": "the time bound was hit (or the server is busy)"},
}
#: ... to a request with a body that no solver job answers (the bot's ``/bid`` and ``/play``)
BODY_ERRORS: dict[int | str, dict[str, Any]] = {k: ERRORS[k] for k in (408, 413, 415)}
#: ... and to a GET (the body cap and deadline apply to every request)
GET_ERRORS: dict[int | str, dict[str, Any]] = {k: ERRORS[k] for k in (408, 413)}


def unprocessable(loc: tuple[str | int, ...], message: str) -> JSONResponse:
    detail = [{"loc": ["body", *loc], "msg": message, "type": "value_error"}]
    return JSONResponse({"detail": detail}, status_code=422)


# --- parsing helpers (library errors -> FieldError with the field name) --------------------------


def parse_rules(spec: s.RulesSpec, field: str = "rules") -> Ruleset:
    """A ruleset from a preset name or a switches object."""
    try:
        if isinstance(spec, str):
            return Ruleset.preset(spec)
        return Ruleset.from_dict(spec.model_dump(exclude_none=True))
    except CallbreakLabError as e:
        raise FieldError(field, str(e)) from None


def parse_hand13(text: str) -> Hand:
    """A full 13-card hand."""
    try:
        hand = Hand.parse(text)
    except CallbreakLabError as e:
        raise FieldError("hand", str(e)) from None
    if len(hand) != 13:
        raise FieldError("hand", f"a hand has 13 cards, got {len(hand)}")
    return hand


def parse_position(deal: str, plays: str, rules: Ruleset) -> Position:
    """The position after ``plays`` from the start of ``deal``."""
    try:
        d = Deal.parse(deal)
    except CallbreakLabError as e:
        raise FieldError("deal", str(e)) from None
    try:
        return Position.replay(d, plays, rules)
    except CallbreakLabError as e:
        raise FieldError("plays", str(e)) from None


def parse_calls(value: str | list[int] | None, rules: Ruleset) -> Any:
    """Four calls in the ruleset's range, or None."""
    if value is None:
        return None
    from callbreak_lab.game import parse_calls as parse_four

    try:
        return parse_four(value, rules)
    except CallbreakLabError as e:
        raise FieldError("calls", str(e)) from None


def position_info(pos: Position) -> s.PositionInfo:
    """Summary of a position for responses."""
    return s.PositionInfo(
        record=pos.record(),
        to_move=pos.to_move,
        leader=pos.leader,
        trick=[str(c) for c in pos.trick],
        tricks_won=list(pos.tricks_won),
        tricks_left=13 - pos.trick_index,
        legal=[str(c) for c in pos.legal_cards()],
    )


def _floats(a: Any) -> list[float]:
    return [float(x) for x in np.asarray(a, dtype=np.float64)]


def model_cards() -> dict[str, Any]:
    """Model card summary per profile, or "absent" (a missing or unreadable card)."""
    try:
        from callbreak_lab.bidding import model
    except ImportError as e:  # the `model` extra (scikit-learn) is not installed
        return {"error": f"{type(e).__name__}: {e}"}
    out: dict[str, Any] = {}
    for profile in model.PROFILES:
        try:
            card = model.read_card(profile)
        except ModelError:
            out[profile] = "absent"
            continue
        out[profile] = {
            k: card.get(k)
            for k in ("model_file", "model_sha256", "sklearn", "training_size", "dataset_hash")
        }
    return out


# --- the app ----------------------------------------------------------------------------------


class Service:
    """Per-app state: settings, the worker pool, the bidder."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pool = WorkerPool(settings.workers)
        self.bidder = Bidder()

    async def run(
        self,
        kind: str,
        job: str,
        kwargs: dict[str, Any],
        client: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        """A solver job of class ``kind`` (``pool.KINDS``) for ``client`` under the solve time
        bound; JobError(value_error) becomes a 422."""
        bound = self.settings.time_limit if timeout is None else timeout
        try:
            return await self.pool.run(job, kwargs, bound, kind=kind, client=client)
        except JobError as e:
            if e.value_error:
                raise FieldError("body", str(e)) from None
            raise


def client_of(request: Any) -> str:
    """Who sent a request, for the worker pool's per-client share: the peer's address."""
    peer = getattr(request, "client", None)
    return str(peer.host) if peer is not None else "unknown"


def evaluate_hand(svc: Service, req: s.EvaluateRequest) -> tuple[Hand, Ruleset, dict[str, Any]]:
    """The in-process part of ``/v1/evaluate`` (no solver): forecast and call table."""
    hand = parse_hand13(req.hand)
    rules = parse_rules(req.rules)
    earlier = None
    if req.earlier_calls is not None:
        try:
            earlier = calls.check_earlier_calls(req.earlier_calls, req.seat, rules)
        except CallbreakLabError as e:
            raise FieldError("earlier_calls", str(e)) from None
    fc = svc.bidder.forecast(hand, req.seat, rules, earlier)
    advice = fc.advice
    rows = [
        s.CallRow(
            call=int(c),
            expected_tenths=float(e),
            expected_points=float(e) / 10,
            make_probability=float(p),
        )
        for c, e, p in zip(advice.calls, advice.expected, advice.make_prob, strict=True)
    ]
    body = {
        "hand": str(hand),
        "seat": req.seat,
        "rules": rules.name,
        "source": fc.source,
        "call": int(advice.call),
        "expected_tenths": advice.expected_score,
        "make_probability": advice.make_probability,
        "distribution": _floats(fc.dist),
        "floor_distribution": None if fc.floor is None else _floats(fc.floor),
        "earlier_calls": None if earlier is None else list(earlier),
        "calls_used": fc.calls_used,
        "calls": rows,
    }
    if req.totals is not None or req.deal_of_match is not None:
        body["match"] = _match_advice(req, fc.dist, rules, earlier)
    return hand, rules, body


def _match_advice(
    req: s.EvaluateRequest, dist: np.ndarray, rules: Ruleset, earlier: tuple[int, ...] | None
) -> dict[str, Any]:
    """``/v1/evaluate``'s ``match``: the match-aware call, every bad part of the standing a
    ``FieldError`` naming its field."""
    from callbreak_lab.bidding.equity import recorded_preset
    from callbreak_lab.bidding.match import check_deal_of_match, match_call_for
    from callbreak_lab.rules import totals_of_points

    try:
        n = rules.match_length()
        recorded_preset(rules)
    except CallbreakLabError as e:
        raise FieldError("rules", str(e)) from None
    if req.deal_of_match is None:
        raise FieldError("deal_of_match", f"with the totals, give the deal of the match (1..{n})")
    try:
        k = check_deal_of_match(req.deal_of_match, rules)
    except CallbreakLabError as e:
        raise FieldError("deal_of_match", str(e)) from None
    if req.totals is None and k != 1:
        raise FieldError("totals", f"deal {k} of the match needs the four totals before it")
    try:
        totals = None if req.totals is None else totals_of_points(req.totals)
        found = match_call_for(
            dist, req.seat, rules, totals=totals, deal_of_match=k, earlier_calls=earlier
        )
    except CallbreakLabError as e:
        raise FieldError("totals", str(e)) from None
    return found.to_dict()


def rules_catalogue() -> dict[str, Any]:
    """The presets and the switches they set."""
    return {
        "presets": {name: r.to_dict() for name, r in PRESETS.items()},
        "switches": {
            "direction": ["clockwise", "anticlockwise"],
            "min_call": "1..13",
            "max_call": "1..13",
            "must_beat": "bool",
            "void_rule": ["strict", "win_only"],
            "first_trick_spade_ban": "bool",
            "scoring": ["tenths", "exact_or_one", "exact_or_one_bonus", "flat"],
            "match_deals": "positive int or null",
            "target_score": "positive int (tenths) or null",
        },
        "variations": "preset+tag, e.g. pagat+must_beat, modern+exact_or_one+min_call=2",
    }
