"""Value-identity checks for solver changes (a developer tool; the test suite has the exact ones).

A speed-up must not change one value. Node counts are cheap to compare, values on positions the
brute-force reference cannot reach (6..11 tricks left) need this script:

    # before the change (e.g. from a git worktree of the old commit on PYTHONPATH):
    python scripts/solver_check.py record old.json --positions 300 --seed 11
    # after it:
    python scripts/solver_check.py record new.json --positions 300 --seed 11
    python scripts/solver_check.py compare old.json new.json
    # the same with the helper thread joining every search at once (the shared table's test)
    python scripts/solver_check.py record two.json --positions 300 --seed 11 --threads 2 --eager
    # pruning on vs. off in one version (sure-trick bounds, partition search):
    python scripts/solver_check.py techniques --positions 400 --seed 7
    # node counts (and values) of every seat-solve of Deal.random(0..11), table cleared per
    # solve, one file per version; compare-nodes sums them per preset and lists the worst ratios
    python scripts/solver_check.py nodes old-nodes.json --presets online,modern,home --seeds 0:12
    python scripts/solver_check.py compare-nodes old-nodes.json new-nodes.json
    # the slowest 5 % of one file: their values and nodes
    python scripts/solver_check.py tail new-nodes.json
    # one technique off against on, same version
    python scripts/solver_check.py nodes off.json --seeds 12:30 --off MOBILITY
    # a long run: one engine through every solve and play-out, its table full (the benchmark's,
    # dataset generation's and the service's situation; table layout and replacement show here)
    python scripts/solver_check.py nodes long.json --seeds 100:110 --long-run --playouts

Node counts are exact; CPU seconds on this kind of shared machine moved by up to 30 % between
identical runs (session 11). Compare times only side by side: the old version (a git worktree on
PYTHONPATH; its kernels cache in a directory named by their sources' digest, apart from the new
version's: solver/_consts.py) on one core and the new one on the other.

Positions: random deals (presets modern, strict, online, home in turn) played at random to a
trick boundary or 1..3 cards into a trick; ``record`` keeps the four seats' values and the
mover's card values; ``techniques`` solves each seat with every technique on, with the
sure-trick bounds off, with partition search off and with sibling skipping off (5..8 tricks left,
so all finish quickly).
Exit code 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from callbreak_lab.cards import Deal
from callbreak_lab.game import Position
from callbreak_lab.solver import _consts
from callbreak_lab.solver._consts import (
    OPT_PART,
    OPT_QUICK,
    OPT_SIBLING,
    default_opts,
)
from callbreak_lab.solver._engine import Engine
from callbreak_lab.solver.api import Root, make_root, playout_of, value_of, values_of

PRESETS = ("modern", "strict", "online", "home")
#: the search's technique switches by name ("MOBILITY" for ``OPT_MOBILITY``)
OPTS = {k[4:]: int(v) for k, v in vars(_consts).items() if k.startswith("OPT_")}


def positions(n: int, seed: int, tricks_left: list[int]) -> Iterator[tuple[str, Position, Root]]:
    """``n`` seeded random positions: (preset, position, solver root)."""
    rng = random.Random(seed)
    for i in range(n):
        preset = PRESETS[i % len(PRESETS)]
        pos = Position(Deal.random(rng.randrange(1 << 30)), preset)
        cards = 52 - 4 * rng.choice(tricks_left) + rng.choice([0, 0, 1, 2, 3])
        while len(pos.history) < cards:
            pos.play(rng.choice(list(pos.legal_cards())))
        yield preset, pos, make_root(pos, preset)


def record(out: Path, n: int, seed: int, threads: int = 1, eager: bool = False) -> int:
    eng = Engine(threads=threads)
    if eager:  # the helper joins every search at once (a stress test of the shared table)
        eng.helper_delay = 0.0
        eng.helper_min_left = 0
    rows = []
    t0 = time.perf_counter()
    for i, (preset, pos, root) in enumerate(positions(n, seed, [6, 7, 8, 9, 10, 11])):
        eng.clear()
        values = [value_of(root, seat, eng) for seat in range(4)]
        cards = sorted(values_of(root, root.mover, eng).items())
        rows.append([preset, str(pos.deal), pos.record(), values, cards])
        if i % 25 == 0:
            print(f"{i} positions, {time.perf_counter() - t0:.0f} s", flush=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(rows))
    tmp.replace(out)
    print(f"{n} positions recorded in {out} ({time.perf_counter() - t0:.0f} s)")
    return 0


def compare(a: Path, b: Path) -> int:
    old, new = json.loads(a.read_text()), json.loads(b.read_text())
    if len(old) != len(new):
        print(f"different position counts: {len(old)} vs {len(new)}")
        return 1
    bad = [i for i, (x, y) in enumerate(zip(old, new, strict=True)) if x != y]
    for i in bad[:20]:
        print(f"position {i}: {old[i]} vs {new[i]}")
    print(f"{len(bad)} of {len(old)} positions differ")
    return 1 if bad else 0


def techniques(n: int, seed: int) -> int:
    variants = {"all on": default_opts()}
    for name, opt in (
        ("bounds off", OPT_QUICK),
        ("partition off", OPT_PART),
        ("sibling skipping off", OPT_SIBLING),
    ):
        opts = default_opts()
        opts[opt] = 0
        variants[name] = opts
    engines = {name: Engine(opts=opts) for name, opts in variants.items()}
    bad = 0
    for i, (preset, pos, root) in enumerate(positions(n, seed, [5, 6, 7, 8])):
        for seat in range(4):
            got = {}
            for name, eng in engines.items():
                eng.clear()
                got[name] = value_of(root, seat, eng)
            if len(set(got.values())) != 1:
                bad += 1
                print(f"{preset} seat {seat} {got}: {str(pos.deal)!r} @ {pos.record()!r}")
        if i % 50 == 0:
            print(f"{i} positions", flush=True)
    print(f"{4 * n} seat-solves, {bad} with differing values")
    return 1 if bad else 0


def nodes(
    out: Path,
    presets: list[str],
    lo: int,
    hi: int,
    off: list[str],
    long_run: bool = False,
    playouts: bool = False,
) -> int:
    """Value, nodes and CPU seconds of each seat-solve of ``Deal.random(lo..hi-1)``, with the
    techniques named in ``off`` (``OPT_*`` names without the prefix) switched off.

    ``long_run``: one engine through every solve without clearing its table, as in the
    benchmark, dataset generation and the service (the table fills up and replacement decides);
    ``playouts``: also each deal's play-out from its four values (the dataset's work), a row
    ``preset/seed/playout`` whose value is the four trick counts."""
    opts = default_opts()
    for name in off:
        if name.upper() not in OPTS:
            sys.exit(f"unknown technique {name!r} (known: {', '.join(sorted(OPTS))})")
        opts[OPTS[name.upper()]] = 0
    eng = Engine(opts=opts)
    rows: dict[str, list[float]] = {}
    for preset in presets:
        for seed in range(lo, hi):
            root = make_root(Deal.random(seed), preset)
            for seat in range(4):
                if not long_run:
                    eng.clear()
                n0 = eng.counters().nodes
                t0 = time.process_time()
                v = value_of(root, seat, eng)
                dt = time.process_time() - t0
                n = eng.counters().nodes - n0
                rows[f"{preset}/{seed}/{seat}"] = [v, n, round(dt, 3)]
            if playouts:
                known = tuple(int(rows[f"{preset}/{seed}/{q}"][0]) for q in range(4))
                n0 = eng.counters().nodes
                t0 = time.process_time()
                tricks = list(playout_of(root, eng, known=known).tricks)
                dt = time.process_time() - t0
                n = eng.counters().nodes - n0
                rows[f"{preset}/{seed}/playout"] = [tricks, n, round(dt, 3)]
        mine = [r for k, r in rows.items() if k.startswith(preset + "/")]
        print(f"{preset}: {sum(r[1] for r in mine):,} nodes, {sum(r[2] for r in mine):.1f} s CPU")
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(rows))
    tmp.replace(out)
    return 0


def tail(path: Path) -> int:
    """The slowest 5 % of a ``nodes`` file's seat-solves: their share of all nodes, their values
    and nodes."""
    rows = json.loads(path.read_text())
    solves = sorted(
        ((k, r) for k, r in rows.items() if not k.endswith("/playout")), key=lambda kr: -kr[1][1]
    )
    total = sum(r[1] for _, r in solves)
    top = solves[: max(1, len(solves) // 20)]
    share = sum(r[1] for _, r in top) / max(total, 1)
    print(f"{len(solves)} seat-solves, {total / 1e6:.1f} M nodes; slowest {len(top)}: {share:.0%}")
    for k, r in top:
        print(f"  {k:16} value {r[0]:2}  {r[1] / 1e6:6.1f} M nodes")
    return 0


def compare_nodes(a: Path, b: Path) -> int:
    old, new = json.loads(a.read_text()), json.loads(b.read_text())
    common = [k for k in old if k in new]
    bad = [k for k in common if old[k][0] != new[k][0]]
    for k in bad[:20]:
        print(f"{k}: value {old[k][0]} vs {new[k][0]}")
    for preset in [*sorted({k.split("/")[0] for k in common}), ""]:
        ks = [k for k in common if k.startswith(preset)]
        na = sorted(old[k][1] for k in ks)
        nb = sorted(new[k][1] for k in ks)
        ta, tb = sum(old[k][2] for k in ks), sum(new[k][2] for k in ks)
        print(
            f"{preset or 'all':8} nodes {sum(na) / 1e6:8.1f} M -> {sum(nb) / 1e6:8.1f} M "
            f"({sum(nb) / max(sum(na), 1):.3f}), median {na[len(na) // 2] / 1e3:.0f} K -> "
            f"{nb[len(nb) // 2] / 1e3:.0f} K, max {na[-1] / 1e6:.1f} M -> {nb[-1] / 1e6:.1f} M, "
            f"CPU {ta:.0f} -> {tb:.0f} s"
        )
    worst = sorted(common, key=lambda k: new[k][1] / max(old[k][1], 1), reverse=True)[:6]
    print("worst ratios:", ", ".join(f"{k} {old[k][1]:,} -> {new[k][1]:,}" for k in worst))
    print(f"{len(bad)} of {len(common)} rows (seat-solves, play-outs) with differing results")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="values of seeded positions to a JSON file")
    r.add_argument("out", type=Path)
    r.add_argument("--threads", type=int, default=1, help="search threads (Engine(threads=))")
    r.add_argument("--eager", action="store_true", help="the helper joins every search at once")
    c = sub.add_parser("compare", help="two recorded files")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    t = sub.add_parser("techniques", help="pruning on vs. off")
    nd = sub.add_parser("nodes", help="node counts of every seat-solve of seeded deals")
    nd.add_argument("out", type=Path)
    nd.add_argument("--presets", default="online,modern,home")
    nd.add_argument("--seeds", default="0:12", help="LO:HI, deals Deal.random(LO..HI-1)")
    nd.add_argument(
        "--off", default="", help="techniques to switch off, e.g. MOBILITY,GUESS (OPT_* names)"
    )
    nd.add_argument(
        "--long-run", action="store_true", help="one engine, never cleared (a full table)"
    )
    nd.add_argument("--playouts", action="store_true", help="also play out each deal")
    tl = sub.add_parser("tail", help="the slowest 5 %% of a node-count file's solves")
    tl.add_argument("path", type=Path)
    cn = sub.add_parser("compare-nodes", help="two node-count files")
    cn.add_argument("a", type=Path)
    cn.add_argument("b", type=Path)
    for q in (r, t):
        q.add_argument("--positions", type=int, default=300)
        q.add_argument("--seed", type=int, default=11)
    args = p.parse_args(argv)
    if args.command == "record":
        return record(args.out, args.positions, args.seed, args.threads, args.eager)
    if args.command == "compare":
        return compare(args.a, args.b)
    if args.command == "nodes":
        lo, hi = (int(x) for x in args.seeds.split(":"))
        off = [x for x in args.off.split(",") if x]
        return nodes(args.out, args.presets.split(","), lo, hi, off, args.long_run, args.playouts)
    if args.command == "compare-nodes":
        return compare_nodes(args.a, args.b)
    if args.command == "tail":
        return tail(args.path)
    return techniques(args.positions, args.seed)


if __name__ == "__main__":
    sys.exit(main())
