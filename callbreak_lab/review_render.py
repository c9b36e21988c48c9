"""Text and HTML renderings of single-dummy reviews (``callbreak_lab.review``).

Plain HTML with inline CSS, every piece of text escaped; no widget or web imports.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from callbreak_lab.review import CardJudgement, SingleDummyReview


_PAD = ' style="padding:2px 10px;text-align:left"'


def _num(x: float | None, unit: str) -> str:
    if x is None:
        return "-"
    return f"{x:+.2f}" if unit == "points" else f"{x:.2f}"


def _card_line(c: CardJudgement, unit: str) -> str:
    dd = "" if c.dd_value is None else f", double-dummy {c.dd_value} tricks"
    return (
        f"trick {c.trick:>2}  seat {c.seat} played {c.card}: {_num(c.sd_expected, unit)}; "
        f"{c.sd_best_card} {_num(c.sd_best_expected, unit)} was best, "
        f"cost {c.cost:.2f} ± {c.cost_se:.2f} {unit}{dd}"
    )


def review_text(review: SingleDummyReview) -> str:
    """The costly cards in play order, the biggest mistakes, and each player's summary."""
    u = review.unit
    head = (
        f"Single-dummy review ({review.rules.name}, {review.n} layouts a decision, seed "
        f"{review.seed}; expected {'scores in points' if u == 'points' else 'tricks: no calls'})"
    )
    lines = [head]
    if review.stopped_early:
        lines.append(f"(the time limit ran out: the first {len(review.cards)} cards are reviewed)")
    if review.deal is not None:
        lines.append(f"deal  {review.deal}")
    if review.calls:
        lines.append("calls " + " ".join(str(c) for c in review.calls))
    costly = [c for c in review.cards if c.cost > review.threshold]
    lines.append(f"{sum(c.sd is not None for c in review.cards)} cards judged, {len(costly)} cost "
                 f"more than {review.threshold:g} {u}:")  # fmt: skip
    lines += ["  " + _card_line(c, u) for c in costly] or ["  none"]
    top = review.mistakes()
    if top:
        lines.append("Biggest mistakes:")
        lines += [f"  {i}. " + _card_line(c, u) for i, c in enumerate(top, 1)]
    lines.append(f"seat  call  best call  call cost  play cost ({u})  cards judged")
    for p in review.players:
        call = "-" if p.call is None else str(p.call)
        best = "-" if p.best_call is None else str(p.best_call)
        cc = "-" if p.call_cost is None else f"{p.call_cost:.2f}"
        lines.append(f"{p.seat:>4}  {call:>4}  {best:>9}  {cc:>9}  {p.play_cost:>14.2f}  "
                     f"{p.judged:>12}")  # fmt: skip
    return "\n".join(lines)


def review_html(review: SingleDummyReview) -> str:
    """A table of the judged cards (the costly ones highlighted) and the players' summary."""
    u = review.unit
    rows = []
    for c in review.cards:
        if c.seat not in review.seats or (c.sd is None and not c.forced):
            continue
        bad = c.cost > review.threshold
        style = ' style="background:#fde2e1"' if bad else ""
        cells = [
            str(c.trick), str(c.seat), escape(str(c.card)),
            "forced" if c.forced else escape(_num(c.sd_expected, u)),
            "" if c.sd_best_card is None else escape(str(c.sd_best_card)),
            escape(_num(c.sd_best_expected, u)), f"{c.cost:.2f}",
            "" if c.dd_value is None else str(c.dd_value),
        ]  # fmt: skip
        rows.append(f"<tr{style}>" + "".join(f"<td{_PAD}>{x}</td>" for x in cells) + "</tr>")
    head = "".join(
        f"<th{_PAD}>{h}</th>"
        for h in ("trick", "seat", "card", f"expected ({u})", "best", "best expected", "cost",
                  "double-dummy")
    )  # fmt: skip
    players = "".join(
        "<tr>"
        + "".join(
            f"<td{_PAD}>{x}</td>"
            for x in (
                p.seat,
                "-" if p.call is None else p.call,
                "-" if p.best_call is None else p.best_call,
                "-" if p.call_cost is None else f"{p.call_cost:.2f}",
                f"{p.play_cost:.2f}",
            )
        )
        + "</tr>"
        for p in review.players
    )
    top = review.mistakes()
    worst = (
        "<p>Biggest mistakes: "
        + "; ".join(
            escape(f"trick {c.trick}, {c.card} ({c.sd_best_card} was best, cost {c.cost:.2f})")
            for c in top
        )
        + "</p>"
        if top
        else f"<p>No card cost more than {review.threshold:g} {u} against the best card.</p>"
    )
    return (
        '<div class="cb-sd-review" style="font-family:sans-serif">'
        f"<p>Single-dummy review ({escape(review.rules.name)}, {review.n} layouts a decision)</p>"
        '<table style="border-collapse:collapse"><tr>'
        + "".join(
            f"<th{_PAD}>{h}</th>"
            for h in ("seat", "call", "best call", "call cost", f"play cost ({u})")
        )
        + f"</tr>{players}</table>{worst}"
        f'<table style="border-collapse:collapse;margin-top:8px"><tr>{head}</tr>'
        + "".join(rows)
        + "</table></div>"
    )
