"""A lean path for the hot ``POST /v1/evaluate`` request.

An evaluation's model work is small, and FastAPI's routing, dependency solving and response
handling around it cost more than it does (benchmarks/RESULTS.md, "Service"). This ASGI layer
answers the plain, valid case (a JSON body that validates, no Monte Carlo check) itself, with
the same request model, the same library call and the same response model as the FastAPI
route, and hands everything else (bad input, a Monte Carlo request, any other path) to the app
unchanged, the body replayed. So every error is still produced, and documented, by the route
in ``v1.py``; the lean path cannot answer differently from it (``tests/test_service.py``
compares the two).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from callbreak_lab.errors import CallbreakLabError
from callbreak_lab.service import schemas as s
from callbreak_lab.service.common import Service, evaluate_hand
from callbreak_lab.service.limits import ASGIApp, Receive, Scope, Send, replaying

__all__ = ["PATH", "EvaluateFastPath", "lean_evaluate"]

PATH = "/v1/evaluate"


def _is_json(scope: Scope) -> bool:
    """True for a ``content-type`` of ``application/json`` (any parameters): other JSON-ish
    types are left to the route, which knows them all."""
    headers: Iterable[tuple[bytes, bytes]] = scope.get("headers", ())
    for key, value in headers:
        if key == b"content-type":
            return value.split(b";", 1)[0].strip().lower() == b"application/json"
    return False


def lean_evaluate(svc: Service, body: bytes) -> bytes | None:
    """The JSON answer to an evaluate request body, or None when the body is anything but a
    valid request without a Monte Carlo check or ``explain`` (the FastAPI route then answers
    it)."""
    try:
        data: Any = json.loads(body)
        req = s.EvaluateRequest.model_validate(data)
    except (ValueError, ValidationError, RecursionError):  # RecursionError: JSON nested too deep
        return None
    if req.layouts is not None or req.explain:  # a Monte Carlo check or why this call: the route
        return None
    try:
        _hand, _rules, out = evaluate_hand(svc, req)
    except CallbreakLabError:  # a field the library rejects: the route names it in a 422
        return None
    return s.EvaluateResponse(**out).model_dump_json().encode()


class EvaluateFastPath:
    """ASGI middleware answering plain ``POST /v1/evaluate`` requests without the router."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["path"] != PATH
            or scope["method"] != "POST"
            or not self.service.settings.lean_evaluate
            or not _is_json(scope)
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        answer = lean_evaluate(self.service, body)
        if answer is not None:
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(answer)).encode()),
            ]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": answer})
            return
        await self.app(scope, replaying(body, receive), send)
