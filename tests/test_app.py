"""The standalone Voilà page (`make app`): its configuration, its kernel limits and what it serves.

The slow test runs `make app` with the limits shortened (one kernel, culled after 3 s without a
page) and checks them on the real server: a second page view is refused with 503 while the first
kernel runs, the kernel of a page that never connects is culled, and the page loads nothing from
another site and leaves out the cells tagged "hide-in-app".
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest

pytest.importorskip("voila")
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado.web import HTTPError
from traitlets.config import Config

from callbreak_lab.widgets.voila_kernels import AppKernelManager

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "notebooks" / "01_evaluate_a_hand.ipynb"


def _app_config() -> Config:
    c = Config()
    exec(compile((REPO / "app" / "voila.py").read_text(), "app/voila.py", "exec"), {"c": c})
    return c


def test_app_config_caps_kernels_and_culls_idle_ones() -> None:
    c = _app_config()
    assert c.VoilaConfiguration.template == "callbreak"
    assert c.VoilaConfiguration.multi_kernel_manager_class.endswith(
        "voila_kernels.AppKernelManager"
    )
    assert 1 <= c.AppKernelManager.max_kernels <= 16
    timeout, interval = (
        c.MappingKernelManager.cull_idle_timeout,
        c.MappingKernelManager.cull_interval,
    )
    assert 0 < interval < timeout <= 300  # a closed page's kernel is gone within minutes
    assert c.AppKernelManager.cull_connected_timeout > timeout  # open pages live longer
    # `make app` reads that file and finds the page's template through JUPYTER_PATH
    dry = subprocess.run(
        ["make", "-n", "--no-print-directory", "app", "APP_PORT=1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    command = dry[dry.index("JUPYTER_PATH=") :]
    assert f"JUPYTER_PATH={REPO}/app" in command
    assert f"--Voila.config_file_paths={REPO}/app" in command
    assert (REPO / "app" / "voila" / "templates" / "callbreak" / "index.html.j2").exists()


def test_app_template_links_nothing_from_another_site() -> None:
    template = (REPO / "app" / "voila" / "templates" / "callbreak" / "index.html.j2").read_text()
    code = re.sub(r"\{#.*?#\}", "", template, flags=re.S)  # without the Jinja comment
    assert "http" not in code and "super.super()" in code  # skips the lab block with the links


def test_notebook_01_hides_the_example_hand_in_the_app() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    hidden = [cell for cell in nb.cells if "hide-in-app" in cell.metadata.get("tags", [])]
    assert [cell.cell_type for cell in hidden] == ["markdown", "code"]
    assert hidden[0].source.startswith("## The same in code")
    assert 'Hand.parse("AKT54' in hidden[1].source


def _manager(**traits: Any) -> AppKernelManager:
    km = AppKernelManager(**traits)
    km.shutdowns = []  # type: ignore[attr-defined]

    async def shutdown(kernel_id: str, *args: object, **kwargs: object) -> None:
        km.shutdowns.append(kernel_id)  # type: ignore[attr-defined]

    km.shutdown_kernel = shutdown  # type: ignore[method-assign,assignment]
    return km


def test_kernel_manager_refuses_a_kernel_beyond_max_kernels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[dict[str, object]] = []

    async def start(self: object, **kwargs: object) -> str:
        started.append(kwargs)
        return "new"

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", start)
    km = _manager(max_kernels=2)
    km.list_kernel_ids = lambda: ["a"]  # type: ignore[method-assign]
    assert asyncio.run(km.start_kernel(kernel_name="python3")) == "new"
    km.list_kernel_ids = lambda: ["a", "b"]  # type: ignore[method-assign]
    with pytest.raises(HTTPError) as err:
        asyncio.run(km.start_kernel(kernel_name="python3"))
    assert err.value.status_code == 503 and "try again" in (err.value.reason or "")
    assert asyncio.run(km.start_kernel(kernel_id="a")) == "new"  # a restart is no new kernel
    assert len(started) == 2
    assert asyncio.run(_manager(max_kernels=0).start_kernel()) == "new"  # 0: no cap


@pytest.mark.parametrize(
    ("idle_s", "connections", "state", "culled_here"),
    [
        (20, 1, "idle", True),  # an open page untouched for longer than the timeout
        (5, 1, "idle", False),  # an open page in use
        (20, 1, "busy", False),  # still computing
        (20, 0, "idle", False),  # no page: Jupyter's own rule (cull_idle_timeout) decides
    ],
)
def test_kernel_manager_culls_connected_kernels_idle_too_long(
    monkeypatch: pytest.MonkeyPatch, idle_s: int, connections: int, state: str, culled_here: bool
) -> None:
    jupyter_rule: list[str] = []

    async def cull(self: object, kernel_id: str) -> None:
        jupyter_rule.append(kernel_id)

    monkeypatch.setattr(AsyncMappingKernelManager, "cull_kernel_if_idle", cull)
    km = _manager(cull_connected_timeout=10)
    last = datetime.now(UTC) - timedelta(seconds=idle_s)
    km.list_kernel_ids = lambda: ["k"]  # type: ignore[method-assign]
    km.kernel_model = lambda k: {"connections": connections, "execution_state": state}  # type: ignore[method-assign]
    km.get_kernel = lambda k: SimpleNamespace(last_activity=last)  # type: ignore[method-assign]
    asyncio.run(km.cull_kernel_if_idle("k"))
    assert km.shutdowns == (["k"] if culled_here else [])  # type: ignore[attr-defined]
    assert jupyter_rule == ([] if culled_here else ["k"])


# --- the real server --------------------------------------------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str, timeout: float = 120) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def _wait_for(log: Path, text: str, proc: subprocess.Popen[bytes], seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        content = log.read_text(errors="replace")
        if text in content:
            return content
        if proc.poll() is not None:
            pytest.fail(f"voila exited:\n{content[-3000:]}")
        time.sleep(0.2)
    pytest.fail(f"{text!r} not in the log after {seconds} s:\n{log.read_text()[-3000:]}")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_make_app_caps_kernels_culls_a_closed_pages_kernel_and_serves_only_itself(
    tmp_path: Path,
) -> None:
    port = _free_port()
    log = tmp_path / "voila.log"
    limits = (
        "--Voila.port_retries=0 --AppKernelManager.max_kernels=1 "
        "--MappingKernelManager.cull_idle_timeout=3 --MappingKernelManager.cull_interval=1"
    )
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["make", "--no-print-directory", "app", f"APP_PORT={port}", f"APP_ARGS={limits}"],
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"},
        )
    try:
        root = f"http://127.0.0.1:{port}/"
        url = root + "voila/render/01_evaluate_a_hand.ipynb"
        _wait_for(log, f"127.0.0.1:{port}", proc, 120)
        status, index = _get(root)  # the player's pages, and only those
        assert status == 200 and "voila/render/09_analysis_board.ipynb" in index
        assert "05_train_your_own_model" not in index and "http" not in index.replace(root, "")
        status, page = _get(url)  # renders the notebook in a new kernel; no page connects
        assert status == 200
        assert "cb-call-advisor" in page or "application/vnd.jupyter.widget-view+json" in page
        # nothing from another site: every src/href is relative or on this server
        links = re.findall(r"""(?:src|href)=["']([^"']+)""", page)
        assert links and all(not re.match(r"(https?:)?//", u) or u.startswith(root) for u in links)
        assert "fontawesome" not in page
        assert "The same in code" not in page and "AKT54" not in page  # "hide-in-app" cells
        status, refused = _get(url)
        assert status == 503 and "try again in a few minutes" in refused
        content = _wait_for(log, "Culling 'idle' kernel", proc, 30)
        assert "with 0 connections" in content
        _wait_for(log, "Kernel shutdown", proc, 30)  # logged when the shutdown starts
        deadline = time.monotonic() + 30
        while (status := _get(url)[0]) == 503 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert status == 200  # the slot is free again
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
