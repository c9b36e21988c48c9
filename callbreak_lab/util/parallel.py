"""The backend switch of the lab's long batch runs (dataset generation, arena tournaments):
joblib on local processes (``loky``) or on a Dask cluster (``dask``), results as they finish."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from callbreak_lab.errors import CallbreakLabError

__all__ = ["BACKENDS", "check_backend", "parallel_results"]

BACKENDS = ("loky", "dask")


def check_backend(
    backend: str, client: Any, address: str | None, error: type[CallbreakLabError]
) -> None:
    """Raise ``error`` unless ``backend`` is ``loky`` or ``dask``, and for ``dask`` unless
    dask.distributed is installed and a ``client`` or a scheduler ``address`` is given."""
    if backend not in BACKENDS:
        raise error(f"backend must be 'loky' or 'dask', got {backend!r}")
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise error(
                "backend='dask' needs dask.distributed: pip install 'callbreak_lab[dask]'"
            ) from None
        if client is None and (address is None or not address.strip()):
            raise error("backend='dask' needs a client= (distributed.Client) or an address=")


@contextlib.contextmanager
def parallel_results(
    backend: str, n_jobs: int, client: Any = None, address: str | None = None
) -> Iterator[Any]:
    """A joblib ``Parallel`` yielding results as they finish, on local processes or on Dask
    (a ``Client`` created from ``address`` is closed afterwards; a given one is left open)."""
    import joblib

    if backend == "loky":
        yield joblib.Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered")
        return
    from distributed import Client

    with contextlib.ExitStack() as stack:
        if client is None:
            client = stack.enter_context(Client(address))
        stack.enter_context(joblib.parallel_config(backend="dask", client=client))
        yield joblib.Parallel(n_jobs=-1, return_as="generator_unordered")
