"""The kernel manager of the Voilà page (``make app``): a cap on kernels and two idle timeouts.

Voilà starts one kernel per page view (its memory: benchmarks/RESULTS.md, "Notebook app") and
shuts it down when the page says goodbye, which a closed laptop, a killed browser or a lost
connection never does. Jupyter's own culler (``cull_idle_timeout``, ``cull_interval``) removes
kernels idle that long; with ``cull_connected`` False (the default) it spares pages still open,
so this manager adds:

* ``max_kernels``: a new page view beyond that many kernels gets "503 Service Unavailable" (a
  clear message, no kernel) instead of memory for one more kernel;
* ``cull_connected_timeout``: a page still connected but untouched that long gives its kernel
  back too (it needs a reload), so open but forgotten tabs cannot hold every slot for ever.

``app/voila.py`` sets the numbers and says why. Loaded by Voilà only (it imports jupyter_server).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado.web import HTTPError
from traitlets import Integer

__all__ = ["AppKernelManager"]


class AppKernelManager(AsyncMappingKernelManager):
    """``AsyncMappingKernelManager`` with ``max_kernels`` and ``cull_connected_timeout``."""

    max_kernels = Integer(
        0,
        config=True,
        help="Most kernels running at once (0: no limit); a page view beyond it gets a 503.",
    )
    cull_connected_timeout = Integer(
        0,
        config=True,
        help="Seconds of inactivity after which a kernel is culled although its page is still "
        "connected (0: never). Needs cull_idle_timeout > 0, which starts the culler.",
    )

    async def start_kernel(  # type: ignore[override]  # async, as in AsyncMappingKernelManager
        self, *, kernel_id: str | None = None, **kwargs: Any
    ) -> str:
        """Start a kernel, or refuse with 503 when ``max_kernels`` are running."""
        running = len(self.list_kernel_ids())
        if kernel_id is None and self.max_kernels > 0 and running >= self.max_kernels:
            self.log.warning("Refusing a kernel: %d of %d running", running, self.max_kernels)
            raise HTTPError(
                503,
                reason=f"Too many visitors right now ({running} pages open); "
                "please try again in a few minutes",
            )
        return str(await super().start_kernel(kernel_id=kernel_id, **kwargs))

    async def cull_kernel_if_idle(self, kernel_id: str) -> None:
        """Jupyter's culling (kernels without a page), plus connected kernels idle for longer
        than ``cull_connected_timeout``."""
        if self.cull_connected_timeout > 0 and kernel_id in self.list_kernel_ids():
            model = self.kernel_model(kernel_id)  # type: ignore[no-untyped-call]  # jupyter_server
            kernel = self.get_kernel(kernel_id)
            last = getattr(kernel, "last_activity", None)
            busy = model.get("execution_state") == "busy"
            if model.get("connections", 0) and last is not None and not busy:
                idle = datetime.now(UTC) - last
                if idle > timedelta(seconds=self.cull_connected_timeout):
                    self.log.warning(
                        "Culling kernel %s: its page has been idle for %d s",
                        kernel_id,
                        int(idle.total_seconds()),
                    )
                    await ensure_async(self.shutdown_kernel(kernel_id))  # type: ignore[no-untyped-call]
                    return
        await super().cull_kernel_if_idle(kernel_id)  # type: ignore[no-untyped-call]  # jupyter_server
