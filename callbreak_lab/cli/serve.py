"""The ``serve`` command of ``callbreak-lab``: the HTTP service (JSON API and bot endpoints)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from callbreak_lab.cli.base import Output, Parser, Subparsers, add_time_limit, hidden_alias
from callbreak_lab.errors import UsageError

# --- serve ----------------------------------------------------------------------------------------


def add_serve(sub: Subparsers, common: Parser) -> None:
    p = sub.add_parser(
        "serve",
        parents=[common],
        help="run the HTTP service (uvicorn): analysis API and Bhoos bot endpoints",
        description="Serve /v1/evaluate, /v1/solve, /v1/line, /v1/analyse, /v1/rules, /healthz "
        "and the tournament bot's /hi, /bid, /play with uvicorn (docs at /docs). Other bounds "
        "come from CALLBREAK_SERVICE_* environment variables (see service/limits.py).",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=None, help="solver worker processes")
    p.add_argument(
        "--http-workers",
        type=int,
        default=1,
        help="HTTP server processes (default 1); each has its own solver workers. Two roughly "
        "double /v1/evaluate's throughput on two cores (benchmarks/RESULTS.md)",
    )
    add_time_limit(p, "seconds a solver job may take (the service's time_limit setting)")
    hidden_alias(p, "--solve-timeout", "time_limit", type=float)
    p.add_argument(
        "--log-level",
        default="info",
        type=str.lower,
        choices=["critical", "error", "warning", "info", "debug", "trace"],
        help="uvicorn log level (default info)",
    )
    p.add_argument(
        "--no-access-log",
        dest="access_log",
        action="store_false",
        help="no log line per request (saves CPU under heavy load; errors are still logged)",
    )
    p.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> Output:
    """Run the service until interrupted."""
    import dataclasses

    import uvicorn

    from callbreak_lab.service import Settings, create_app
    from callbreak_lab.service.limits import MAX_WORKERS
    from callbreak_lab.service.server import PROTOCOL

    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1..65535, got {args.port}")
    changes: dict[str, Any] = {}
    if args.workers is not None:
        if not 1 <= args.workers <= MAX_WORKERS:
            raise UsageError(f"--workers must be 1..{MAX_WORKERS}, got {args.workers}")
        changes["workers"] = args.workers
    if args.time_limit is not None:
        if not args.time_limit > 0:
            raise UsageError(f"--time-limit must be a positive number of seconds, "
                             f"got {args.time_limit}")  # fmt: skip
        changes["time_limit"] = args.time_limit
    if not 1 <= args.http_workers <= MAX_WORKERS:
        raise UsageError(f"--http-workers must be 1..{MAX_WORKERS}, got {args.http_workers}")
    settings = dataclasses.replace(Settings.from_env(), **changes)
    if args.http_workers == 1:
        uvicorn.run(
            create_app(settings),
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            access_log=args.access_log,
            http=PROTOCOL,
        )
    else:
        # several processes import the app themselves: hand the settings over by environment
        for name, value in changes.items():
            os.environ[f"CALLBREAK_SERVICE_{name.upper()}"] = str(value)
        uvicorn.run(
            "callbreak_lab.service.app:app",
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            access_log=args.access_log,
            workers=args.http_workers,
            http=PROTOCOL,
        )
    return Output("server stopped", {"host": args.host, "port": args.port})


COMMANDS = [add_serve]
