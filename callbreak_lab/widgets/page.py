"""Whether the code runs on a Voilà page (the player's page) or in Jupyter.

A notebook's demo cells (a call printed, a review of a deal nobody played) teach a reader in
Jupyter; on the Voilà page they read as the player's own results and delay the page. Such a cell
runs its body under ``if not on_voila_page():`` so the page shows only what the player uses.

Voilà starts each page's kernel with ``VOILA_BASE_URL``, ``VOILA_SERVER_URL`` and
``VOILA_APP_PORT`` in its environment (``voila.handler`` for a kernel started on a request,
``voila.voila_kernel_manager`` for a preheated one) and a preheated kernel also gets
``VOILA_KERNEL_ID``; Jupyter, nbclient and plain Python set none of them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["VOILA_ENV", "on_voila_page", "page_query", "page_url"]

#: environment variables Voilà sets in a page's kernel (any one of them marks a page)
VOILA_ENV = ("VOILA_BASE_URL", "VOILA_SERVER_URL", "VOILA_APP_PORT", "VOILA_KERNEL_ID")


def on_voila_page(environ: Mapping[str, str] | None = None) -> bool:
    """True in a kernel Voilà started for a page (``environ``: None reads ``os.environ``)."""
    env = os.environ if environ is None else environ
    return any(name in env for name in VOILA_ENV)


# --- the page's address (the analysis board's links) ------------------------------------------


def page_query(environ: Mapping[str, str] | None = None) -> str:
    """The query string of the page (without ``?``; '' in Jupyter): Voilà passes it to the
    page's kernel as ``QUERY_STRING`` (``voila.handler``)."""
    env = os.environ if environ is None else environ
    return env.get("QUERY_STRING", "")


def page_url(environ: Mapping[str, str] | None = None) -> str:
    """The page's address without its query ('' in Jupyter): Voilà passes the request's URL to
    the page's kernel as ``VOILA_REQUEST_URL``."""
    from urllib.parse import urlsplit, urlunsplit

    env = os.environ if environ is None else environ
    url = env.get("VOILA_REQUEST_URL", "")
    if not url:
        return ""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
