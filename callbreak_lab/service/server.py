"""The HTTP connection guard: uvicorn's httptools protocol with an arrival time, a deadline for a
request's headers and a cap on their size.

uvicorn starts the application once a request's headers are in, and keeps a connection that is
still sending them open for as long as the client likes; httptools accepts headers of any size.
This protocol (``callbreak-lab serve`` runs uvicorn with it) adds what a public server needs:

* ``scope["state"]["arrival"]``: ``time.monotonic()`` when the request's first bytes were parsed,
  before the request waits for the event loop, so the bot's ``timeBudget`` is counted from there;
* a request whose headers are not complete ``Settings.header_timeout`` seconds after its first
  byte (or after the connection opened) gets a 408 and the connection is closed;
* headers (request line included) over ``Settings.max_header_bytes`` get a 431 and a close.

The body's deadline is the ASGI layer's (``limits.BodyLimitMiddleware``). Settings come from the
``CALLBREAK_SERVICE_*`` environment (``Settings.from_env``), which ``serve`` sets for every HTTP
process.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from callbreak_lab.service.limits import Settings

__all__ = ["PROTOCOL", "GuardedHttpToolsProtocol", "raw_response"]

#: what ``uvicorn.run(http=...)`` takes (an import string works in every serving mode)
PROTOCOL = "callbreak_lab.service.server:GuardedHttpToolsProtocol"

_REASONS = {408: "Request Timeout", 431: "Request Header Fields Too Large"}


def raw_response(status: int, detail: str, **extra: Any) -> bytes:
    """A whole HTTP/1.1 response with a JSON ``{"detail": ...}`` body that closes the
    connection (written straight to the transport, outside any application)."""
    body = json.dumps({"detail": detail, **extra}).encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the arrival time, the header deadline and the header
    size cap described in the module docstring."""

    #: (header_timeout seconds, max_header_bytes), read from the environment once per process
    limits: ClassVar[tuple[float, int] | None] = None

    @classmethod
    def _limits(cls) -> tuple[float, int]:
        if cls.limits is None:
            s = Settings.from_env()
            cls.limits = (float(s.header_timeout), int(s.max_header_bytes))
        return cls.limits

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._guard: asyncio.TimerHandle | None = None
        self._in_head = True
        self._head_raw = 0  # bytes received while the headers are incomplete
        self._head_size = 0  # request line and header bytes parsed
        self._refused = False
        self._arm()

    def _arm(self) -> None:
        if self._guard is None:
            self._guard = self.loop.call_later(self._limits()[0], self._too_slow)

    def _disarm(self) -> None:
        if self._guard is not None:
            self._guard.cancel()
            self._guard = None

    def _refuse(self, status: int, detail: str, **extra: Any) -> None:
        if self._refused:
            return
        self._refused = True
        self._disarm()
        if not self.transport.is_closing():
            self.transport.write(raw_response(status, detail, **extra))
            self.transport.close()

    def _too_slow(self) -> None:
        self._guard = None
        if self._in_head:
            limit = self._limits()[0]
            self._refuse(408, f"the request's headers did not arrive within {limit:g} s")

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._in_head:
            self._head_raw += len(data)
        super().data_received(data)
        cap = self._limits()[1]
        if self._in_head and self._head_raw > cap:  # still no end of the headers in sight
            self._refuse(431, f"the request's headers exceed {cap} bytes", limit=cap)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.scope["state"]["arrival"] = time.monotonic()
        self._in_head = True
        self._head_size = 0
        self._arm()

    def on_url(self, url: bytes) -> None:
        self._head_size += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_size += len(name) + len(value) + 4
        if self._head_size <= self._limits()[1]:
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._head_raw = 0
        self._disarm()
        cap = self._limits()[1]
        if self._head_size > cap:
            self._refuse(431, f"the request's headers exceed {cap} bytes", limit=cap)
            return
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if not self._refused:
            super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)
