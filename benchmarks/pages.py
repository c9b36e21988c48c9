"""How soon each player's page is usable: `make app` (Voilà) opened in headless Chromium, timed
from the navigation to the page's first control answering a click.

For each page: one opening to warm up (the server's first render, numba's cache read into
memory), then ``--runs`` timed openings, each in a fresh page (a new kernel, as a player gets):
``control`` is when the control appears, ``answer`` when the page shows its answer to a click on
it (the kernel ran the click's handler); ``cpu`` the CPU seconds the server, the page's kernel
and Chromium used until the answer (what an idle machine's two cores have to do, whatever the
load beside). Between openings the browser goes to about:blank; the server runs without its
kernel cap and culls a left page's kernel after 10 s. The machine's load average is printed
beside the times.

    .venv/bin/python benchmarks/pages.py [--runs 3] [--pages 01 07 09] [--json out.json]

The Chromium driver and the server helpers are the browser tests' (tests/test_browser.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from test_browser import CDP, _free_port, _stop, _wait_http, chromium, spawn  # noqa: E402

#: no kernel cap here (each opening is a new kernel) and a left page's kernel culled after 10 s
#: instead of 120 s, so the openings of a run never wait for a free kernel
APP_ARGS = (
    "--Voila.port_retries=0 --AppKernelManager.max_kernels=0 "
    "--MappingKernelManager.cull_idle_timeout=10 --MappingKernelManager.cull_interval=2"
)


@dataclass(frozen=True)
class Page:
    """A page, the first control a player uses on it, and what shows its answer (JS)."""

    notebook: str
    control: str  # CSS selector of the control clicked
    answer: str  # a JS expression true once the page answered the click


PAGES = {
    "01": Page(
        "01_evaluate_a_hand",
        "button.cb-card-AS",
        "document.querySelector('button.cb-card-AS').classList.contains('cb-held')",
    ),
    "02": Page("02_play_lines", "button.cb-next", "!!document.querySelector('[data-step=\"1\"]')"),
    "04": Page(
        "04_calling_trainer",
        "button.cb-next-hand",
        "document.querySelector('.cb-trainer-hand').innerText !== window.__cbBefore",
    ),
    "07": Page(
        "07_play_against_the_bots",
        "button.cb-call-advice",
        "!!document.querySelector('.cb-call-advice-text')",
    ),
    "09": Page(
        "09_analysis_board",
        "button.cb-board-random",
        "document.querySelector('.cb-board-deal textarea').value.length > 0",
    ),
}


def _cpu_ticks() -> dict[int, int]:
    """CPU time (clock ticks, user + system) of each live process this script started (the
    server, its kernels, Chromium), by pid."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        ticks[pid] = int(fields[11]) + int(fields[12])
    ours = {os.getpid()}
    grew = True
    while grew:
        new = {pid for pid, parent in parents.items() if parent in ours} - ours
        grew = bool(new)
        ours |= new
    return {pid: ticks[pid] for pid in ours if pid in ticks}


def _cpu_since(before: dict[int, int]) -> float:
    """CPU seconds the script's processes used since ``before`` (a new process from zero)."""
    now = _cpu_ticks()
    used = sum(t - before.get(pid, 0) for pid, t in now.items())
    return used / os.sysconf("SC_CLK_TCK")


def _poll(cdp: CDP, expression: str, seconds: float) -> float | None:
    """Seconds (monotonic clock) when ``expression`` became true, None after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if cdp.js(expression):
                return time.monotonic()
        except RuntimeError:  # the page is between documents
            pass
        time.sleep(0.05)
    return None


def open_once(cdp: CDP, url: str, page: Page, seconds: float = 300) -> tuple[float, float, float]:
    """(control shown, answer shown) in seconds from the navigation, and the CPU seconds the
    server, the page's kernel and Chromium used until the answer."""
    cdp.call("Page.navigate", url="about:blank")
    cdp_ready = "location.href === 'about:blank' && document.readyState === 'complete'"
    if _poll(cdp, cdp_ready, 30) is None:
        raise RuntimeError("about:blank did not load")
    cpu0 = _cpu_ticks()
    t0 = time.monotonic()
    cdp.call("Page.navigate", url=url)
    sel = json.dumps(page.control)
    shown = _poll(cdp, f"!!document.querySelector({sel})", seconds)
    if shown is None:
        raise RuntimeError(f"{page.notebook}: {page.control} did not appear in {seconds} s")
    if page.notebook.startswith("04"):
        cdp.js("window.__cbBefore = document.querySelector('.cb-trainer-hand').innerText")
    cdp.click(page.control)
    answered = _poll(cdp, page.answer, seconds)
    if answered is None:
        raise RuntimeError(f"{page.notebook}: no answer to {page.control} in {seconds} s")
    return shown - t0, answered - t0, _cpu_since(cpu0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="timed openings a page")
    ap.add_argument("--pages", nargs="+", default=list(PAGES), choices=list(PAGES))
    ap.add_argument("--json", type=Path, default=None, help="write the results here too")
    args = ap.parse_args()

    port = _free_port()
    proc = spawn(
        ["make", "--no-print-directory", "app", f"APP_PORT={port}", f"APP_ARGS={APP_ARGS}"],
        cwd=REPO,
        env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"},
    )  # fmt: skip
    results: dict[str, dict[str, object]] = {}
    try:
        root = f"http://127.0.0.1:{port}/"
        _wait_http(root, proc, 120)
        with chromium() as cdp:
            cdp.call("Page.enable")
            for key in args.pages:
                page = PAGES[key]
                url = f"{root}voila/render/{page.notebook}.ipynb"
                open_once(cdp, url, page)  # warm-up
                runs = [open_once(cdp, url, page) for _ in range(args.runs)]
                control = [round(a, 2) for a, _, _ in runs]
                answer = [round(b, 2) for _, b, _ in runs]
                cpu = [round(c, 2) for _, _, c in runs]
                results[page.notebook] = {
                    "control_s": control,
                    "answer_s": answer,
                    "median_answer_s": round(statistics.median(answer), 2),
                    "cpu_s": cpu,
                    "load_average": [round(x, 2) for x in os.getloadavg()],
                }
                r = results[page.notebook]
                print(
                    f"{page.notebook:<26} control {control} s · answer {answer} s · median "
                    f"{r['median_answer_s']} s · CPU to the answer {cpu} s · load "
                    f"{r['load_average']}",
                    flush=True,
                )
    finally:
        _stop(proc)
    print(f"cores: {os.cpu_count()}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
