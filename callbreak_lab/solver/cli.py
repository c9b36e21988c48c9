"""The ``solve`` command of ``callbreak-lab`` (registered in ``callbreak_lab/cli.py``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from callbreak_lab._textfile import read_lines
from callbreak_lab.cards import Card, Deal

from .api import card_values, dd_table, playout, solve


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``solve``."""
    p.add_argument("deal", nargs="?", help="four dotted hands, seats 0..3 (or use --file)")
    p.add_argument(
        "--plays",
        default="",
        help="cards already played (a play record); omitted or empty: from the start of the deal",
    )
    p.add_argument("--seat", type=int, default=None, help="print only this seat's value")
    p.add_argument(
        "--cards",
        action="store_true",
        help="values of each legal card of the player to move (for --seat, else for the mover)",
    )
    p.add_argument("--playout", action="store_true", help="also the self-interested play-out")
    p.add_argument(
        "--file",
        help="solve one deal per line ('<deal>' or '<deal> @ <record>'; '#' comments; '-' stdin)",
    )


def _position(deal_text: str, plays: str, rules: Any) -> Any:
    from callbreak_lab.game import Position

    return Position.replay(Deal.parse(deal_text), plays, rules)


def _table(values: tuple[int, ...], label: str) -> str:
    head = "seat    " + " ".join(f"{s:>3}" for s in range(4))
    return head + "\n" + f"{label:<8}" + " ".join(f"{v:>3}" for v in values)


def solve_one(deal_text: str, plays: str, rules: Any, args: argparse.Namespace) -> tuple[str, Any]:
    """Text and JSON data for one deal (``solve DEAL`` without ``--file``)."""
    pos = _position(deal_text, plays, rules)
    data: dict[str, Any] = {"deal": str(pos.deal), "plays": pos.record(), "rules": rules.name}
    lines: list[str] = []
    if args.seat is not None:
        v = solve(pos, args.seat, rules)
        data["seat"] = args.seat
        data["value"] = v
        lines.append(f"seat {args.seat}: {v} of the remaining tricks")
    else:
        t = dd_table(pos, rules)
        data["tricks"] = list(t)
        label = "remain" if pos.history else "tricks"
        lines.append(_table(t, label))
        if pos.history:
            lines.append(f"{'won':<8}" + " ".join(f"{w:>3}" for w in pos.tricks_won))
    if args.cards and not pos.is_over:
        who = pos.to_move if args.seat is None else args.seat
        vals = card_values(pos, who, rules)
        data["card_values"] = {str(c): v for c, v in vals.items()}
        data["card_values_seat"] = who
        lines.append(
            f"seat {pos.to_move} to play, values for seat {who}: "
            + " ".join(f"{Card(c)}={v}" for c, v in sorted(vals.items(), key=lambda cv: -cv[0]))
        )
    if args.playout:
        res = playout(pos, rules)
        data["playout"] = list(res.tricks)
        data["cards"] = [str(c) for c in res.cards]
        lines.append(_table(res.tricks, "playout"))
        cards = [str(c) for c in res.cards]
        lines.append(" | ".join(" ".join(cards[i : i + 4]) for i in range(0, len(cards), 4)))
    return "\n".join(lines), data


def solve_file(args: argparse.Namespace, rules: Any, prog: str) -> int:
    """``solve --file F``: one line of output per deal, errors on stderr; exit code 2 if any
    line was bad, else 0."""
    bad = 0
    for number, raw in enumerate(read_lines(args.file), start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        deal_text, _, plays = text.partition("@")
        try:
            pos = _position(deal_text.strip(), plays.strip(), rules)
            tricks = list(dd_table(pos, rules))
            record: dict[str, Any] = {"deal": str(pos.deal)}
            if pos.history:
                record["plays"] = pos.record()
            record["tricks"] = tricks
            if args.playout:
                res = playout(pos, rules)
                record["playout"] = list(res.tricks)
                record["cards"] = [str(c) for c in res.cards]
        except ValueError as e:
            bad += 1
            message = " ".join(str(e).split())
            print(f"{prog}: error: line {number}: {message}", file=sys.stderr)
            continue
        if args.json:
            print(json.dumps(record), flush=True)
        else:
            extra = f"  playout {' '.join(map(str, record['playout']))}" if args.playout else ""
            print(f"{record['deal']}: {' '.join(map(str, tricks))}{extra}", flush=True)
    return 2 if bad else 0
