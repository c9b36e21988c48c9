"""An advice that deepens on a thread of its own, for the widgets (no ipywidgets).

``Deepening(run, changed)`` runs ``run(on_update, stop)`` (an ``advice.deepen`` call) on a
daemon thread, keeps its latest ``advice.AdviceUpdate`` (``latest``) and tells ``changed`` as it
deepens: on the kernel's event loop when one was running where it was made (the widgets then
change on the kernel's main thread, between the page's own messages, and the page stays
responsive), else at once; at most every ``REDRAW_EVERY`` seconds, and always at the first
answer, the first value and the final answer. ``wait_first`` and ``wait`` wait for the first
and the final answer (a test waits for the state, never for time); ``cancel`` stops it (no
further layout is started)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from callbreak_lab.errors import CallbreakLabError

__all__ = ["REDRAW_EVERY", "Deepening", "Teller"]

#: seconds between two redraws of a deepening answer (the first answer, the first value and the
#: final answer are always drawn)
REDRAW_EVERY = 0.25


class Teller:
    """Tells ``changed`` from another thread: on the event loop running where it was made,
    else at once; at most every ``REDRAW_EVERY`` seconds unless ``always``."""

    def __init__(self, changed: Callable[[], None]) -> None:
        self.changed = changed
        self.last = 0.0
        try:
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # a script or a test: no loop runs here
            self.loop = None

    def __call__(self, *, always: bool = False) -> None:
        now = time.perf_counter()
        if not (always or now - self.last >= REDRAW_EVERY):
            return
        self.last = now
        if self.loop is None or self.loop.is_closed():
            self.changed()
        else:
            self.loop.call_soon_threadsafe(self.changed)


class Deepening:
    """One advice on its own thread (see the module docstring). ``error``: the message of a
    library error it ended with ('' when none)."""

    def __init__(
        self,
        run: Callable[[Callable[[Any], None], threading.Event], Any],
        changed: Callable[[], None],
    ) -> None:
        self.latest: Any = None
        self.error = ""
        self.stop, self.first, self.done = threading.Event(), threading.Event(), threading.Event()
        tell = Teller(changed)

        def update(u: Any) -> None:
            self.latest = u
            self.first.set()
            tell(always=u.final or u.solved <= 1)

        def work() -> None:
            try:
                run(update, self.stop)
            except CallbreakLabError as exc:  # e.g. no layout fits the table
                self.error = str(exc)
                tell(always=True)
            finally:
                self.first.set()
                self.done.set()

        threading.Thread(target=work, name="callbreak-deepening", daemon=True).start()

    def wait_first(self, timeout: float | None = None) -> Any:
        """The first answer (the learned card), once there (None: the advice failed)."""
        self.first.wait(timeout)
        return self.latest

    def wait(self, timeout: float | None = None) -> Any:
        """The final answer, once there (at most ``timeout`` seconds: the latest then)."""
        self.done.wait(timeout)
        return self.latest

    def cancel(self) -> None:
        """No further layout is started (those in flight finish)."""
        self.stop.set()
