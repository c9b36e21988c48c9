"""`make lab` really starts JupyterLab: run it headless, check it answers on 127.0.0.1, stop it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # starts JupyterLab: about a minute

REPO = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.timeout(180)
def test_make_lab_starts_jupyterlab_on_notebooks() -> None:
    port = _free_port()
    token = "smoke-test-token"
    lab_args = (
        f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} "
        f"--ServerApp.port_retries=0 --IdentityProvider.token={token}"
    )
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"LAB_ARGS={lab_args}"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"},
    )
    try:
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                url = f"http://127.0.0.1:{port}/api/status?token={token}"
                with urllib.request.urlopen(url, timeout=2) as response:
                    status = json.load(response)
                    break
            except OSError:
                time.sleep(0.5)
        if status is None:
            output = proc.stdout.read().decode() if proc.poll() is not None and proc.stdout else ""
            pytest.fail(f"JupyterLab did not answer on 127.0.0.1:{port}\n{output[-2000:]}")
        assert "started" in status
        # The lab serves the notebooks folder: its contents API lists notebooks/README.md.
        url = f"http://127.0.0.1:{port}/api/contents?token={token}"
        with urllib.request.urlopen(url, timeout=5) as response:
            names = {item["name"] for item in json.load(response)["content"]}
        assert "README.md" in names
        url = f"http://127.0.0.1:{port}/lab?token={token}"
        with urllib.request.urlopen(url, timeout=5) as response:
            assert response.status == 200
            assert b"JupyterLab" in response.read()
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop make and the JupyterLab server it started (one process group)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
