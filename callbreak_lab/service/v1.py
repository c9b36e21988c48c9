"""The analysis endpoints under ``/v1`` and the service endpoints (``/healthz``)."""

from __future__ import annotations

import time
from typing import Any

from fastapi import FastAPI, Request, Response

from callbreak_lab import __version__
from callbreak_lab.service import schemas as s
from callbreak_lab.service.common import (
    ERRORS,
    GET_ERRORS,
    FieldError,
    Service,
    client_of,
    evaluate_hand,
    model_cards,
    parse_calls,
    parse_position,
    parse_rules,
    position_info,
    rules_catalogue,
)

__all__ = ["register"]


def register(app: FastAPI, svc: Service) -> None:  # noqa: C901, PLR0915  (six small route handlers, closures over svc: the counts are their sum)
    """Add the ``/v1`` routes and ``/healthz`` to ``app``."""

    @app.get("/healthz", response_model=s.Health, responses=GET_ERRORS, tags=["service"])
    async def healthz() -> s.Health:
        """Status, package version, model versions ("absent" when not shipped), workers."""
        from callbreak_lab.rules import Ruleset

        return s.Health(
            status="ok",
            version=__version__,
            models=model_cards(),
            bid_source=svc.bidder.source(Ruleset.preset("online")),
            workers=s.WorkerCounts(
                size=svc.pool.size,
                alive=svc.pool.alive,
                idle=svc.pool.ready,
                killed=svc.pool.killed,
                completed=svc.pool.completed,
            ),
        )

    @app.get("/v1/rules", response_model=s.RulesCatalogue, responses=GET_ERRORS, tags=["analysis"])
    async def rules() -> dict[str, Any]:
        """The presets and their switches."""
        return rules_catalogue()

    @app.post(
        "/v1/evaluate", response_model=s.EvaluateResponse, responses=ERRORS, tags=["analysis"]
    )
    async def evaluate(req: s.EvaluateRequest, request: Request) -> Response:
        """Suggested call for a hand: the trick distribution, the expected score and the chance
        of making each call, the floor distribution; optionally a bounded Monte Carlo check."""
        hand, rules, body = evaluate_hand(svc, req)
        if req.layouts is not None:
            cfg = svc.settings
            cap = cfg.monte_carlo_cap
            if req.layouts > cap:
                why = (
                    ""
                    if cap == cfg.max_monte_carlo
                    else f": a layout takes about {cfg.monte_carlo_sample_ms:g} ms of solver "
                    f"time, and {cap} is what fits in {cfg.monte_carlo_share:.0%} of this "
                    f"service's {cfg.time_limit:g} s time bound"
                )
                raise FieldError("layouts", f"at most {cap} layouts, got {req.layouts}{why}")
            body["monte_carlo"] = await svc.run(
                "long",
                "monte_carlo",
                {
                    "hand": hand.mask,
                    "seat": req.seat,
                    "rules": rules.to_dict(),
                    "n": req.layouts,
                    "seed": svc.settings.seed,
                    "time_limit": cfg.time_limit * cfg.monte_carlo_share,
                },
                client=client_of(request),
            )
        if req.explain:
            body["explain"] = _explain(req, hand, rules, body)
        # serialised here, once (the response model documents it; no second validation pass)
        content = s.EvaluateResponse(**body).model_dump_json()
        return Response(content, media_type="application/json")

    @app.post("/v1/solve", response_model=s.SolveResponse, responses=ERRORS, tags=["analysis"])
    async def solve(req: s.SolveRequest, request: Request) -> s.SolveResponse:
        """The double-dummy table of the position after ``plays`` (and the play-out and the
        mover's card values when asked)."""
        t0 = time.perf_counter()
        rules = parse_rules(req.rules)
        pos = parse_position(req.deal, req.plays, rules)
        if pos.is_over:
            out: dict[str, Any] = {"dd_table": [0, 0, 0, 0]}
            if req.playout:
                out["playout"] = {"cards": [], "tricks": list(pos.tricks_won)}
            if req.card_values:
                out["card_values"] = {}
        else:
            out = await svc.run(
                "solve",
                "solve",
                {
                    "deal": str(pos.deal),
                    "plays": pos.record(),
                    "rules": rules.to_dict(),
                    "playout": req.playout,
                    "card_values": req.card_values,
                },
                client=client_of(request),
            )
        won = pos.tricks_won
        playout = out.get("playout")
        if playout is not None:
            cards = [*(str(c) for _, c in pos.history), *playout["cards"]]
            record = " | ".join(" ".join(cards[i : i + 4]) for i in range(0, len(cards), 4))
            playout = s.Playout(cards=playout["cards"], record=record, tricks=playout["tricks"])
        return s.SolveResponse(
            deal=str(pos.deal),
            rules=rules.name,
            position=position_info(pos),
            dd_table=out["dd_table"],
            totals=[won[t] + out["dd_table"][t] for t in range(4)],
            playout=playout,
            card_values=out.get("card_values"),
            elapsed_ms=(time.perf_counter() - t0) * 1000,
        )

    @app.post("/v1/line", response_model=s.LineResponse, responses=ERRORS, tags=["analysis"])
    async def line(req: s.LineRequest, request: Request) -> dict[str, Any]:
        """The annotated double-dummy line for ``seat`` from the position after ``plays``
        (``playout: true``: the self-interested play-out line), as ``lines.Line.to_dict()``."""
        rules = parse_rules(req.rules)
        pos = parse_position(req.deal, req.plays, rules)
        if pos.is_over:  # as the CLI's `line` says (a line of no card is not an answer)
            raise FieldError("plays", "the plays finish the deal: no card is left to play")
        calls = parse_calls(req.calls, rules)
        result: dict[str, Any] = await svc.run(
            "long",
            "line",
            {
                "deal": str(pos.deal),
                "plays": pos.record(),
                "rules": rules.to_dict(),
                "seat": req.seat,
                "calls": None if calls is None else list(calls),
                "playout": req.playout,
            },
            client=client_of(request),
        )
        return result

    @app.post("/v1/advise", response_model=s.AdviseResponse, responses=ERRORS, tags=["analysis"])
    async def advise(req: s.AdviseRequest, request: Request) -> dict[str, Any]:
        """At the table: every legal card of the seat to play judged by what it can see (its
        hand, the calls, the cards played), best first: expected score, expected tricks, the
        chance of making its call and what each card costs (``SingleDummy.to_dict()``), over
        the layouts solved within ``time_limit`` (``solved`` of ``total``; none solved: the
        learned play policy's card, ``source`` "learned")."""
        from callbreak_lab.errors import (
            CallbreakLabError,
            IllegalPlayError,
            RecordError,
            SeatError,
        )
        from callbreak_lab.seat import Knowledge

        rules = parse_rules(req.rules)
        cfg = svc.settings
        if req.layouts > cfg.advise_layouts_max:
            raise FieldError(
                "layouts", f"at most {cfg.advise_layouts_max} layouts, got {req.layouts}"
            )
        try:
            # cheap: the errors name their field
            Knowledge.at_table(req.hand, req.plays, rules, seat=req.seat)
        except (IllegalPlayError, RecordError) as e:
            raise FieldError("plays", str(e)) from None
        except SeatError as e:  # not the seat to play
            raise FieldError("seat", str(e)) from None
        except CallbreakLabError as e:  # the hand's text, or a hand that does not fit the plays
            raise FieldError("hand", str(e)) from None
        calls = parse_calls(req.calls, rules)
        bound = cfg.time_limit * cfg.monte_carlo_share
        if req.time_limit is not None and req.time_limit > bound:
            raise FieldError(
                "time_limit", f"at most {bound:g} s (the service's time bound), got "
                f"{req.time_limit:g}",
            )  # fmt: skip
        job = {
            "hand": req.hand,
            "plays": req.plays,
            "seat": req.seat,
            "rules": rules.to_dict(),
            "calls": None if calls is None else list(calls),
            "n": req.layouts,
            "seed": req.seed,
            "time_limit": bound if req.time_limit is None else req.time_limit,
            "cards": req.cards,
        }
        result: dict[str, Any] = await svc.run("long", "advise", job, client=client_of(request))
        return result

    @app.post("/v1/analyse", response_model=s.AnalyseResponse, responses=ERRORS, tags=["analysis"])
    async def analyse(req: s.AnalyseRequest, request: Request) -> dict[str, Any]:
        """Review of the cards played: each card's value for its player before and after,
        flagging cards that lost a trick against double-dummy defence (``Review.to_dict()``);
        with ``layouts``, each card judged by what its player could see (expected score,
        best card, cost in points; ``SingleDummyReview.to_dict()``)."""
        rules = parse_rules(req.rules)
        pos = parse_position(req.deal, req.plays, rules)
        if not pos.history:  # as the CLI's `analyse` says (a review of no card is not an answer)
            raise FieldError("plays", "no card is played: give the cards to review")
        calls = parse_calls(req.calls, rules)
        job: dict[str, Any] = {
            "deal": str(pos.deal),
            "plays": pos.record(),
            "rules": rules.to_dict(),
            "calls": None if calls is None else list(calls),
        }
        name = "analyse"
        if req.layouts is not None:
            cfg = svc.settings
            if req.layouts > cfg.review_layouts_max:
                raise FieldError(
                    "layouts",
                    f"at most {cfg.review_layouts_max} layouts a decision, got "
                    f"{req.layouts} (a whole deal's review must fit the service's "
                    f"{cfg.time_limit:g} s time bound; the command line has no limit)",
                )
            seats = req.seats
            if seats is not None and (not seats or any(not 0 <= x <= 3 for x in seats)):
                raise FieldError("seats", f"seats are 0..3, at least one, got {seats}")
            name = "review"
            job.update(
                n=req.layouts,
                seed=req.seed,
                seats=seats,
                time_limit=cfg.time_limit * cfg.monte_carlo_share,
            )
        elif req.seats is not None:
            raise FieldError("seats", "seats choose whom a single-dummy review judges: "
                             "give layouts too")  # fmt: skip
        result: dict[str, Any] = await svc.run("long", name, job, client=client_of(request))
        return result


def _explain(req: s.EvaluateRequest, hand: Any, rules: Any, body: dict[str, Any]) -> dict[str, Any]:
    """``/v1/evaluate``'s ``explain``: why the answer's call (the match's call when given)."""
    from callbreak_lab.bidding.explain import explain_call
    from callbreak_lab.errors import CallbreakLabError

    match = body.get("match")
    call = match["call"] if isinstance(match, dict) else body["call"]
    try:
        why = explain_call(
            hand, req.seat, rules, earlier_calls=body.get("earlier_calls"), call=call
        )
    except CallbreakLabError as e:
        raise FieldError("explain", str(e)) from None
    return why.to_dict()
