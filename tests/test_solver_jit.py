"""The numba side: the same kernels run as plain Python (NUMBA_DISABLE_JIT=1), and a fresh
process loads the compiled search from numba's on-disk cache without crashing (a recursive
search crashed there with numba 0.68.1; this one is iterative)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
from callbreak_lab.solver import api
from callbreak_lab.solver._search import probe, solve_root
hands = [{{3, 17, 40}}, {{5, 30, 44}}, {{8, 21, 50}}, {{11, 26, 39}}]
masks = tuple(sum(1 << c for c in h) for h in hands)
out = []
for flags in [(1, 0, 0), (0, 1, 0), (1, 1, 1)]:
    root = api.Root(masks, (), 1, True, (0, 0, 0, 0), flags)
    out.append([api.value_of(root, t) for t in range(4)])
    out.append(sorted(api.values_of(root, 2).items()))
    res = api.playout_of(root)
    out.append([[int(c) for c in res.cards], list(res.tricks)])
mid = api.Root(tuple(m & ~(1 << 5) for m in masks), (5,), 1, False, (0, 0, 0, 0), (1, 0, 0))
out.append([api.value_of(mid, t) for t in range(4)])
hits = [getattr(f, "stats", None) and f.stats.cache_hits for f in (probe, solve_root)]
print(json.dumps({{"values": out, "hits": [sum(h.values()) if h else 0 for h in hits]}}))
"""


def run(env_extra: dict[str, str]) -> dict:
    env = dict(os.environ, **env_extra)
    code = SCRIPT.format(tests=str(ROOT / "tests"))
    r = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600,
        cwd=str(ROOT),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_plain_python_mode_gives_the_same_values() -> None:
    jit = run({})
    plain = run({"NUMBA_DISABLE_JIT": "1"})
    assert plain["values"] == jit["values"]


@pytest.mark.slow
def test_fresh_process_loads_the_search_from_the_disk_cache() -> None:
    run({})  # writes the cache if this checkout has none yet
    again = run({})  # a fresh process: must load (not compile) and not crash
    assert again["hits"][0] > 0 and again["hits"][1] > 0
