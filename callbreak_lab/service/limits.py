"""Service settings (time bounds, body cap, pool size) and the request-body size limit.

Every number that bounds what one request may cost lives in :class:`Settings`, so tests can make
the bounds tiny and an operator can loosen them, without touching the handlers.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field, fields
from typing import Any

from callbreak_lab.errors import UsageError, check_int

__all__ = ["BodyLimitMiddleware", "Settings", "replaying"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


#: the most solver worker processes (each is a full Python process with its own table)
MAX_WORKERS = 256


def _default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class Settings:
    """Bounds of the service. Times are in seconds unless the name says ms."""

    #: hard deadline of one solver job (``/v1/solve``, ``/v1/line``, ``/v1/analyse``, Monte Carlo);
    #: the worker process running it is killed when it is hit and the request gets a 503
    time_limit: float = 20.0
    #: largest accepted request body in bytes (413 above)
    max_body_bytes: int = 64 * 1024
    #: seconds a request may take to send its headers (408 and a close after); counted from
    #: its first byte, or from the connection's opening (``server.py``)
    header_timeout: float = 5.0
    #: seconds a request may take to send its body once its headers are in (408 after)
    body_timeout: float = 10.0
    #: largest accepted request line plus headers in bytes (431 above)
    max_header_bytes: int = 16 * 1024
    #: time budget of a bot request that does not send ``timeBudget`` (the protocol's default)
    default_time_budget_ms: int = 1000
    #: part of the bot's time budget kept back for parsing, transport and the reply
    bot_margin_ms: int = 150
    #: the share of the remaining budget the bot hands its policy as the decision's time limit
    #: (the policy spends ``SearchPolicy.budget_share`` of that searching: 0.6 of it in all)
    bot_budget_fraction: float = 0.75
    #: the longest search of one ``/play`` in ms, whatever its ``timeBudget`` (a budget of ten
    #: minutes must not hold a solver worker for ten minutes)
    bot_max_search_ms: int = 2000
    #: the bot searches only positions with at most this many cards left in play (52: every
    #: position; each search stops within its budget, ``solver.time_limit``, so a full deal's
    #: heavy-tailed solve cannot make it late)
    bot_search_max_cards: int = 52
    #: largest Monte Carlo sample count of ``/v1/evaluate`` (422 above); the count that fits
    #: the time bound may be lower (``monte_carlo_cap``)
    max_monte_carlo: int = 500
    #: expected worker time of one Monte Carlo sample in ms (a layout's play-out and its
    #: guaranteed tricks, one search thread; benchmarks/RESULTS.md, "Service"), for admission
    monte_carlo_sample_ms: float = 400.0
    #: share of ``time_limit`` a Monte Carlo request may be expected to use: the cap's
    #: budget, and the time after which its job starts no new sample (the rest of the bound is
    #: room for the last sample's tail)
    monte_carlo_share: float = 0.5
    #: most layouts a decision of a single-dummy review (``/v1/analyse`` ``layouts``; 422
    #: above): a whole deal's review at 32 layouts on two threads, about the work of 16 on one
    #: worker, is in benchmarks/RESULTS.md, "Single-dummy advice"; the review stops judging at
    #: ``monte_carlo_share`` of the bound
    review_layouts_max: int = 16
    #: most layouts of one ``/v1/advise`` decision (422 above); its job answers with the
    #: layouts solved by ``monte_carlo_share`` of the bound (what a first-trick decision of 32
    #: layouts costs, and its heavy tail: benchmarks/RESULTS.md, "Single-dummy advice")
    advise_layouts_max: int = 256
    #: number of solver worker processes
    workers: int = field(default_factory=_default_workers)
    #: how long start-up waits for the workers to be warm before serving anyway
    warmup_timeout: float = 120.0
    #: seed of the bot's layout sampling (decisions are reproducible for a given request)
    seed: int = 20240607
    #: the bot searches every layout whatever the ``timeBudget`` (within ``time_limit``): its
    #: answers are then exactly those of the arena's ``strong`` player without a time limit,
    #: reproducible; for tests and for studying the bot, not for a timed tournament
    bot_deterministic: bool = False
    #: answer plain ``/v1/evaluate`` requests on the lean path (``fastpath.py``) instead of
    #: through FastAPI's router; the answers are the same, only cheaper
    lean_evaluate: bool = True

    def __post_init__(self) -> None:
        """Refuse bounds that cannot work (a pool of 0 workers, a negative or NaN time...)."""

        def need(ok: bool, name: str, what: str) -> None:
            if not ok:
                raise UsageError(f"Settings.{name} must be {what}, got {getattr(self, name)!r}")

        def whole(name: str, low: int, high: int | None = None) -> None:
            check_int(getattr(self, name), f"Settings.{name}", low=low, high=high)

        for name in (
            "time_limit",
            "warmup_timeout",
            "header_timeout",
            "body_timeout",
            "monte_carlo_sample_ms",
        ):
            v = getattr(self, name)
            ok = isinstance(v, int | float) and not isinstance(v, bool) and v > 0
            need(ok, name, "a positive number of seconds")  # NaN fails v > 0 too
        v = self.bot_budget_fraction
        need(isinstance(v, int | float) and 0 < v <= 1, "bot_budget_fraction", "in (0, 1]")
        v = self.monte_carlo_share
        need(isinstance(v, int | float) and 0 < v <= 1, "monte_carlo_share", "in (0, 1]")
        whole("workers", 1, MAX_WORKERS)
        whole("max_body_bytes", 1)
        whole("max_header_bytes", 256)
        whole("bot_max_search_ms", 1)
        whole("default_time_budget_ms", 1)
        whole("bot_margin_ms", 0)
        whole("bot_search_max_cards", 0, 52)
        whole("max_monte_carlo", 0)
        whole("review_layouts_max", 1)
        whole("advise_layouts_max", 1)
        whole("seed", 0)
        need(isinstance(self.bot_deterministic, bool), "bot_deterministic", "True or False")

    @property
    def monte_carlo_cap(self) -> int:
        """The most Monte Carlo samples one request may ask for: ``max_monte_carlo``, or fewer
        when that many are not expected to finish within ``monte_carlo_share`` of the time
        bound."""
        fits = int(self.time_limit * 1000 * self.monte_carlo_share // self.monte_carlo_sample_ms)
        return max(0, min(self.max_monte_carlo, fits))

    @classmethod
    def from_env(cls, prefix: str = "CALLBREAK_SERVICE_") -> Settings:
        """Defaults overridden by environment variables, e.g. ``CALLBREAK_SERVICE_WORKERS=2``,
        ``CALLBREAK_SERVICE_TIME_LIMIT=5`` (field name upper-cased after the prefix)."""
        changes: dict[str, Any] = {}
        for f in fields(cls):
            raw = os.environ.get(prefix + f.name.upper())
            if raw is None:
                continue
            kind = type(getattr(cls(), f.name))
            try:
                changes[f.name] = _parse_bool(raw) if kind is bool else kind(raw)
            except ValueError:
                raise UsageError(
                    f"{prefix}{f.name.upper()}={raw!r} is not a {kind.__name__}"
                ) from None
        try:
            return cls(**changes)
        except UsageError as e:
            raise UsageError(f"{e} (set by the {prefix}* environment variables)") from None


def _parse_bool(raw: str) -> bool:
    text = raw.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(raw)


def _json_error(status: int, detail: str, **extra: Any) -> tuple[int, bytes]:
    return status, json.dumps({"detail": detail, **extra}).encode()


#: media types a JSON body may be sent as
_JSON_TYPES = ("application/json",)


def _is_json_type(value: bytes) -> bool:
    media = value.split(b";", 1)[0].strip().lower().decode("latin-1")
    return media in _JSON_TYPES or (media.startswith("application/") and media.endswith("+json"))


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app ``body`` (already read in full) as one message, then
    defers to the original ``receive`` (for the disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class BodyLimitMiddleware:
    """What every request passes before the application: its arrival time, its content type,
    its body's size and how long the body takes.

    * ``scope["state"]["arrival"]``: ``time.monotonic()`` at the latest here (``server.py`` sets
      it earlier, when the request's first bytes are parsed);
    * a ``POST`` whose ``Content-Type`` is not JSON (``application/json`` or ``*/*+json``; no
      header at all is taken as JSON) gets a 415 that names the type it sent;
    * a declared ``Content-Length`` over ``limit`` bytes is refused before reading; otherwise
      the body is read (chunked bodies included) and refused once it passes the cap (413);
    * a body not complete ``body_timeout`` seconds after the headers gets a 408.
    """

    def __init__(self, app: ASGIApp, limit: int, body_timeout: float = 10.0) -> None:
        self.app = app
        self.limit = limit
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {}).setdefault("arrival", time.monotonic())
        declared = None
        for key, value in scope.get("headers", []):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = None
            elif (
                key == b"content-type"
                and scope.get("method") == "POST"
                and not _is_json_type(value)
            ):
                sent = value.decode("latin-1")[:100]
                detail = f"the request's Content-Type is {sent!r}: send JSON as application/json"
                await _send(send, *_json_error(415, detail))
                return
        if declared is not None and declared > self.limit:
            await self._send_413(send, f"{declared} bytes")
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        loop_deadline = asyncio.get_running_loop().time() + self.body_timeout
        while more:
            try:
                async with asyncio.timeout_at(loop_deadline):  # no task per message
                    message = await receive()
            except TimeoutError:
                detail = f"the request's body did not arrive within {self.body_timeout:g} s"
                await _send(send, *_json_error(408, detail))
                return
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._send_413(send, f"over {self.limit} bytes")
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        await self.app(scope, replaying(b"".join(chunks), receive), send)

    async def _send_413(self, send: Send, size_text: str) -> None:
        detail = f"request body is {size_text}; the limit is {self.limit} bytes"
        await _send(send, *_json_error(413, detail, limit=self.limit))


async def _send(send: Send, status: int, body: bytes) -> None:
    """A whole JSON response that closes the connection."""
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
