"""The interactive API documentation, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), served
entirely from the package: the pages' scripts, style sheet and icon are package data under
``static/`` (versions and licences in ``static/README.md``), so both pages work on a machine
without internet access. FastAPI's own pages would load them from a CDN.

The assets are read through ``importlib.resources`` (so they are found in a wheel, an editable
install or a zip import alike) and answered from a fixed table: no other path is served.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from typing import Final

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse

__all__ = ["ASSETS", "CONTENT_SECURITY_POLICY", "STATIC_PREFIX", "register"]

#: where the assets are served (each one at ``STATIC_PREFIX/<folder>/<file>``)
STATIC_PREFIX: Final = "/static"

_JS = "text/javascript; charset=utf-8"
#: every file served under ``STATIC_PREFIX``: its path below ``static/`` and its media type
ASSETS: Final[dict[str, str]] = {
    "swagger-ui/swagger-ui-bundle.js": _JS,
    "swagger-ui/swagger-ui.css": "text/css; charset=utf-8",
    "swagger-ui/favicon-32x32.png": "image/png",
    "redoc/redoc.standalone.js": _JS,
}
#: what the two pages may load: their own service's files only (inline scripts and styles, and
#: workers from blobs, are how the two libraries run). ReDoc draws its maker's logo from that
#: maker's site; this policy has the browser refuse it (the image then hides itself).
CONTENT_SECURITY_POLICY: Final = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:"
#: a browser keeps an asset a day, then asks again with its ETag (a 304 while unchanged)
_CACHE_CONTROL = "public, max-age=86400"


@functools.cache
def _asset(path: str) -> tuple[bytes, str]:
    """The bytes of ``static/<path>`` and their ETag (read once per process)."""
    data = resources.files(__package__).joinpath("static", *path.split("/")).read_bytes()
    return data, '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def _url(path: str) -> str:
    return f"{STATIC_PREFIX}/{path}"


def register(app: FastAPI) -> None:
    """Add ``/docs``, ``/redoc`` and their assets to ``app``, which must have been made with
    ``docs_url=None, redoc_url=None`` (FastAPI's CDN-loading pages)."""
    openapi_url = app.openapi_url or "/openapi.json"
    title = app.title
    favicon = _url("swagger-ui/favicon-32x32.png")

    swagger = get_swagger_ui_html(
        openapi_url=openapi_url,
        title=f"{title} - Swagger UI",
        swagger_js_url=_url("swagger-ui/swagger-ui-bundle.js"),
        swagger_css_url=_url("swagger-ui/swagger-ui.css"),
        swagger_favicon_url=favicon,
        # no badge image from the online validator
        swagger_ui_parameters={"validatorUrl": None},
    )
    redoc = get_redoc_html(
        openapi_url=openapi_url,
        title=f"{title} - ReDoc",
        redoc_js_url=_url("redoc/redoc.standalone.js"),
        redoc_favicon_url=favicon,
        with_google_fonts=False,
    )
    _add_page(app, "/docs", bytes(swagger.body))
    _add_page(app, "/redoc", bytes(redoc.body))

    @app.get(STATIC_PREFIX + "/{folder}/{name}", include_in_schema=False)
    async def asset(folder: str, name: str, request: Request) -> Response:
        path = f"{folder}/{name}"
        media_type = ASSETS.get(path)
        if media_type is None:
            raise HTTPException(404)
        data, etag = _asset(path)
        headers = {"ETag": etag, "Cache-Control": _CACHE_CONTROL}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(data, media_type=media_type, headers=headers)


def _add_page(app: FastAPI, path: str, body: bytes) -> None:
    """Answer ``GET path`` with the HTML page ``body`` under ``CONTENT_SECURITY_POLICY``."""

    async def page() -> HTMLResponse:
        return HTMLResponse(body, headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY})

    app.get(path, include_in_schema=False)(page)
