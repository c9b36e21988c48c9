"""The hand-evaluation HTTP service (FastAPI): analysis endpoints under ``/v1`` and the Bhoos
tournament bot endpoints (``/hi``, ``/bid``, ``/play``).

Run it with ``callbreak-lab serve --host 127.0.0.1 --port 8000`` (or ``uvicorn
callbreak_lab.service.app:app``). ``create_app(settings)`` builds an app with its own bounds.

Errors: every client mistake is a 422 whose ``detail`` lists ``{"loc": ["body", field], "msg",
"type"}`` (pydantic's shape, also used for the library's errors, any ``CallbreakLabError``, with
the field they concern when known); a body over the cap is a 413; a computation that passes its
time bound is stopped and answered with a 503 and the reason; anything else is a bug, a 500.
Solver work runs in worker processes (see ``pool.py``).
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import (
    http_exception_handler,
    request_validation_exception_handler,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from callbreak_lab import __version__
from callbreak_lab.errors import CallbreakLabError, FieldError
from callbreak_lab.service import botapi, docs, v1
from callbreak_lab.service.common import Service, unprocessable
from callbreak_lab.service.fastpath import EvaluateFastPath
from callbreak_lab.service.limits import BodyLimitMiddleware, Settings
from callbreak_lab.service.pool import JobError, JobTimeout

__all__ = ["app", "create_app"]


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new service app with its own worker pool and bounds."""
    cfg = settings or Settings()
    svc = Service(cfg)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await svc.pool.start(cfg.warmup_timeout)
        svc.bidder.preload()
        # everything loaded so far (numpy, scikit-learn, numba, the models) lives as long as the
        # process: keep it out of the garbage collector's full passes, which otherwise stall a
        # request now and then for tens of milliseconds (the p99 of /v1/evaluate under load)
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            await svc.pool.close()

    application = FastAPI(
        title="callbreak_lab service",
        version=__version__,
        description="Call Break hand evaluation, double-dummy solving, annotated lines and "
        "reviews, and a bot speaking the Bhoos tournament protocol.",
        lifespan=lifespan,
        docs_url=None,  # /docs and /redoc come from service/docs.py, with no CDN
        redoc_url=None,
    )
    application.state.service = svc
    # the lean evaluate path sits inside the body cap (middleware added later wraps it)
    application.add_middleware(EvaluateFastPath, service=svc)
    application.add_middleware(
        BodyLimitMiddleware, limit=cfg.max_body_bytes, body_timeout=cfg.body_timeout
    )

    @application.exception_handler(FieldError)
    async def _field_error(_: Request, exc: FieldError) -> JSONResponse:
        return unprocessable(exc.loc, str(exc))

    @application.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400:  # a body that is not JSON at all (e.g. not UTF-8)
            return unprocessable((), f"the request body cannot be read as JSON: {exc.detail}")
        return await http_exception_handler(request, exc)

    @application.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        try:
            return await request_validation_exception_handler(request, exc)
        except UnicodeEncodeError:  # the errors echo input holding a lone surrogate (\ud800)
            body = json.dumps({"detail": jsonable_encoder(exc.errors())}, ensure_ascii=True)
            return Response(body, status_code=422, media_type="application/json")

    @application.exception_handler(CallbreakLabError)
    async def _library_error(_: Request, exc: CallbreakLabError) -> JSONResponse:
        # a library error not mapped to a field is still the client's input
        return unprocessable((), str(exc))

    @application.exception_handler(JobError)
    async def _job_error(_: Request, exc: JobError) -> JSONResponse:
        # a solver job failed on input that passed validation: a bug on our side, said plainly
        return JSONResponse({"detail": f"internal error in a solver job: {exc}"}, status_code=500)

    @application.exception_handler(JobTimeout)
    async def _timeout(_: Request, exc: JobTimeout) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503)

    v1.register(application, svc)
    botapi.register(application, svc)
    docs.register(application)
    return application


app = create_app(Settings.from_env())
