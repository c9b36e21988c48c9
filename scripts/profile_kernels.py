"""Where a solve's time goes, part by part of the search kernel (a developer's tool).

perf cannot name numba's compiled functions here, and the kernels are inlined into ``probe``
anyway. So this copies the package to a temporary directory, wraps each part of ``probe`` in
reads of the CPU's cycle counter (``llvm.readcyclecounter``), and solves the given cases with
that copy in a fresh process and numba cache (about a minute of compiling):

    python scripts/profile_kernels.py home:175:2:3 modern:21:3:4

Each case is ``preset:deal seed:seat:k`` (the probe "can the seat take at least k?", in a fresh
table). It prints the share of the probes' cycles spent in each part, summed over the cases,
and the table's reads per lookup. The counter reads cost cycles of their own, so the shares are
approximate and the unlabelled rest (the search loop itself) reads high. The instrumentation
is applied by exact text replacement: when the kernels change, it stops with the line it could
not find, and the list below needs updating.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_RDTSC = """

from llvmlite import ir as _ir
from numba import types as _nt
from numba.core.extending import intrinsic as _intrinsic


@_intrinsic
def rdtsc(typingctx):
    def codegen(context, builder, signature, args):
        fnty = _ir.FunctionType(_ir.IntType(64), [])
        fn = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=fnty)
        return builder.call(fn, [])

    return _nt.int64(), codegen
"""

#: (label, first line of the part, last line of the part) in ``_search.probe``
PARTS = [
    ("sure-trick bounds", "lb, ub, lmk, umk = quick_bounds(", None),
    (
        "suit codes, length word",
        "codes = pl[p, F_CODE : F_CODE + 4]",
        "w0 = length_word(hands, leader)",
    ),
    ("group hash + lookups", "tf = fl * 4 + target", "ent = ent2"),
    ("hit's relevant cards", "rel = entry_marks(ent, hands) if use_part else _ALL", None),
    ("move generation", "n, lmark = gen_moves(", None),
    ("all-moves mark", "pl[p, F_AMARK] = all_moves_mark(", None),
    ("store (all moves)", "_store(hands, pl, p, r, -1, rel,", None),
    ("store (cutoff)", "_store(hands, pl, p, r, c, rel,", None),
    ("cutoff mark", "rel |= cut_mark(", None),
    ("suit's live cards", "lv = suit_live(", None),
    ("sibling skips", "pl[p, F_SKIP] |= sibling_skips(", None),
    ("trick winner", "wo, tmark = trick_mark(", None),
    ("winner-fixed check", "led, best, wo = trick_info(tc, ts, pos)", "break"),
]
TOTAL = 15  # the slot of the probes' whole time


def _instrument(src: str) -> str:
    """Wrap each part of ``PARTS`` in cycle-counter reads added to ``stats[ST_T + i]``."""
    lines = src.split("\n")
    for slot, (label, first, last) in enumerate(PARTS):
        begin = next(i for i, ln in enumerate(lines) if ln.startswith("def probe("))
        start = next((i for i in range(begin, len(lines)) if first in lines[i]), None)
        if start is None:
            raise SystemExit(f"profile_kernels: cannot find the part {label!r}: {first!r}")
        end = start
        if last is not None:
            end = next((i for i in range(start, len(lines)) if last in lines[i]), None)
            if end is None:
                raise SystemExit(f"profile_kernels: cannot find the end of {label!r}: {last!r}")
        elif lines[start].rstrip().endswith("("):
            depth = 0
            for end in range(start, len(lines)):
                depth += lines[end].count("(") - lines[end].count(")")
                if depth == 0:
                    break
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        lines.insert(end + 1, f"{indent}stats[ST_T + {slot}] += rdtsc() - _t0")
        lines.insert(start, f"{indent}_t0 = rdtsc()")
    out = "\n".join(lines)
    out = out.replace("    kernel,\n)", "    kernel,\n    rdtsc,\n    ST_T,\n)", 1)
    out = out.replace(
        "    stats[ST_PROBES] += 1\n", "    stats[ST_PROBES] += 1\n    _tp = rdtsc()\n", 1
    )
    out = out.replace(
        "            if p == 0:\n                return r\n",
        f"            if p == 0:\n                stats[ST_T + {TOTAL}] += rdtsc() - _tp\n"
        "                return r\n",
        1,
    )
    return out


_RUNNER = """
import sys
import numpy as np
from callbreak_lab.cards import Deal
from callbreak_lab.solver.api import make_root
from callbreak_lab.solver._engine import Engine
from callbreak_lab.solver._consts import ST_T
labels = sys.argv[1].split("|")
eng = Engine()
eng.at_least(make_root(Deal.random(1), "home"), 0, 1)
total = np.zeros(16)
for case in sys.argv[2:]:
    preset, seed, seat, k = case.split(":")
    eng.clear()
    eng.stats[:] = 0
    r = eng.at_least(make_root(Deal.random(int(seed)), preset), int(seat), int(k))
    s = eng.stats  # the cycle counts sit past the named counters (ST_T on)
    nodes = eng.counters().nodes
    print(f"{case}: {bool(r)}, {nodes:,} nodes, {s[ST_T + 15] / nodes:.0f} cycles a node")
    total += s[ST_T : ST_T + 16]
for i, label in enumerate(labels):
    print(f"  {label:26s} {total[i] / total[15] * 100:5.1f} %")
rest = 100 - total[: len(labels)].sum() / total[15] * 100
print(f"  {'(the rest: the loop itself)':26s} {rest:5.1f} %")
"""


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    with tempfile.TemporaryDirectory(prefix="cb-profile-") as tmp:
        pkg = Path(tmp) / "callbreak_lab"
        shutil.copytree(ROOT / "callbreak_lab", pkg, ignore=shutil.ignore_patterns("__pycache__"))
        consts = pkg / "solver" / "_consts.py"
        text = consts.read_text()
        if "\nN_STATS = " not in text:
            raise SystemExit("profile_kernels: cannot find N_STATS in _consts.py")
        text = text.replace("\nN_STATS = ", "\nN_STATS_BASE = ", 1)
        text += "\nST_T = N_STATS_BASE\nN_STATS = ST_T + 16\n" + _RDTSC
        consts.write_text(text)
        search = pkg / "solver" / "_search.py"
        search.write_text(_instrument(search.read_text()))
        env = dict(os.environ, PYTHONPATH=tmp, NUMBA_CACHE_DIR=str(Path(tmp) / "nc"))
        labels = "|".join(label for label, _f, _l in PARTS)
        return subprocess.call([sys.executable, "-c", _RUNNER, labels, *argv], env=env, cwd=tmp)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
