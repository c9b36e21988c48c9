"""Text and HTML renderings of lines (``callbreak_lab.lines``) and double-dummy reviews
(``callbreak_lab.review``).

Plain HTML with inline CSS, every piece of text escaped; no widget or web imports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from callbreak_lab.cards import Card
from callbreak_lab.render.html import BLACK, RED
from callbreak_lab.rules import Ruleset, format_tenths

if TYPE_CHECKING:
    from callbreak_lab.game import Position
    from callbreak_lab.lines import Line, Step
    from callbreak_lab.review import CardReview, Review

LEGEND = (
    "Legend: * forced (the rules left one legal card)  ? not the best card for its player  "
    "(..) played before the line  -> trick winner, then tricks won by seats 0-1-2-3"
)
REVIEW_LEGEND = (
    "Legend: * forced  ? lost tricks against double-dummy defence (-n)  "
    "-> trick winner, then tricks won by seats 0-1-2-3"
)


_SYMBOL_CARD = re.compile("([2-9TJQKA])([♣♦♥♠])")


def letters(text: str) -> str:
    """``text`` with every card written in letters (``2♦`` -> ``2D``): the rules word their
    restrictions with suit symbols, while the plain-text and JSON outputs name cards in letters."""
    return _SYMBOL_CARD.sub(lambda m: m.group(1) + "CDHS"["♣♦♥♠".index(m.group(2))], text)


def _counts(tricks: Sequence[int], calls: Sequence[int] | None) -> str:
    if calls:
        return " ".join(f"{t}/{c}" for t, c in zip(tricks, calls, strict=True))
    return "-".join(str(t) for t in tricks)


def _mark(step: Step, flagged: bool) -> str:
    return "*" if step.forced else ("?" if flagged else "")


def _values_text(step: Step, symbols: bool = False) -> str:
    items = sorted(step.values.items(), key=lambda kv: (-kv[1], -kv[0].suit, -kv[0].rank))
    if len({v for _, v in items}) == 1 and len(items) > 1:
        return f"any of {len(items)} cards: {items[0][1]}"
    return ", ".join(f"{c.symbol() if symbols else c} {v}" for c, v in items)


def _groups(steps: Sequence[Step]) -> list[list[Step]]:
    groups: list[list[Step]] = []
    for s in steps:
        if not groups or groups[-1][0].trick != s.trick:
            groups.append([])
        groups[-1].append(s)
    return groups


def _before(start: Position, group: list[Step]) -> list[tuple[int, Card]]:
    """Cards of the group's trick played before the line started (its first trick only)."""
    if group[0].trick != start.trick_index:
        return []
    return [((start.leader + i) % 4, c) for i, c in enumerate(start.trick)]


def _trick_row(
    start: Position, group: list[Step], calls: Sequence[int] | None, flags: dict[int, int]
) -> str:
    cells = [f"S{seat} ({c})" for seat, c in _before(start, group)]
    for s in group:
        lost = flags.get(s.index, 0)
        tail = f"-{lost}" if lost > 0 else ""
        cells.append(f"S{s.seat} {s.card}{_mark(s, lost != 0)}{tail}")
    row = f"T{group[0].trick + 1:<3} " + " ".join(f"{c:<8}" for c in cells)
    last = group[-1]
    if last.winner is not None and last.tricks is not None:
        row += f" -> S{last.winner}  {_counts(last.tricks, calls)}"
    return row.rstrip()


def _detail(step: Step, flagged: int = 0) -> str:
    head = f"      S{step.seat} {step.card}{_mark(step, flagged != 0)}"
    if step.forced:
        return f"{head:<14} forced: {letters(step.forced)}"
    why = f" ({letters(step.restriction)})" if step.restriction else ""
    note = f"  lost {flagged}" if flagged > 0 else ""
    sd = step.single
    if sd is not None:
        unit = "pts" if sd.unit == "points" else "tricks"
        note += (
            f"  | single-dummy: {sd.best} best, {step.card} {sd.value(step.card):+.2f} {unit}"
            + ("  <- differs" if step.disagrees else "")
        )
    return f"{head:<14} {_values_text(step)}{why}{note}"


def _scores(tricks: Sequence[int], calls: Sequence[int] | None, rules: Ruleset) -> str:
    if not calls:
        return ""
    return " scores " + " ".join(
        format_tenths(rules.score(c, t)) for c, t in zip(calls, tricks, strict=True)
    )


def line_header(line: Line) -> str:
    """One sentence saying what the line is."""
    start = line.start
    where = (
        "from the start"
        if not start.history
        else f"from trick {start.trick_index + 1} after {len(start.history)} cards"
    )
    if line.kind == "line":
        head = (
            f"Double-dummy line for seat {line.seat} ({line.rules.name}, {where}): seat "
            f"{line.seat} can guarantee {line.value} tricks; it maximises, the other three "
            "minimise its tricks; ties go to the lowest card."
        )
    else:
        head = (
            f"Self-interested play-out ({line.rules.name}, {where}): each player plays its best "
            "card for itself (values: the mover's own tricks); ties go to the lowest card."
        )
    if line.change is not None and line.branched_at is not None and line.base is not None:
        old = line.base.steps[line.branched_at]
        new = line.steps[line.branched_at]
        d = line.delta or 0
        who = f"seat {line.seat}" if line.seat is not None else f"seat {new.seat}"
        verb = "gains" if d > 0 else "loses" if d < 0 else "neither gains nor loses"
        amount = f" {abs(d)} trick{'s' if abs(d) != 1 else ''}" if d else ""
        head += (
            f"\nBranch at step {line.branched_at} (trick {new.trick + 1}): S{new.seat} plays "
            f"{new.card} instead of {old.card}; {who} {verb}{amount}."
        )
    return head


def line_text(line: Line, detail: bool = False) -> str:
    """Header, one row per trick (``detail``: one row per decision below it), result, legend."""
    out = [line_header(line)]
    flags = {}
    if line.branched_at is not None:
        s = line.steps[line.branched_at]
        flags[s.index] = 0 if s.is_best else -1
    for group in _groups(line.steps):
        out.append(_trick_row(line.start, group, line.calls, flags))
        if detail:
            out.extend(_detail(s) for s in group)
    t = line.tricks
    out.append(f"Result: {_counts(t, line.calls)}{_scores(t, line.calls, line.rules)}")
    if line.single is not None:
        moments = line.disagreements()
        out.append(
            f"Single-dummy advice ({line.single[0]} layouts a decision): "
            + (f"{len(moments)} decision(s) where it differs from double-dummy:" if moments
               else "it agrees with double-dummy at every decision.")
        )  # fmt: skip
        out.extend(f"  T{m.trick + 1} S{m.seat}: {m.lesson()}" for m in moments)
    out.append(LEGEND)
    return "\n".join(out)


def review_text(review: Review, detail: bool = False) -> str:
    """Rows per trick with flagged cards, then the flagged cards and the summary."""
    n = len(review.entries)
    out = [
        f"Review ({review.rules.name}): {n} card{'s' if n != 1 else ''}"
        f"{'' if review.complete else ' (a prefix of the deal)'}; each card judged by its "
        "player's own double-dummy value (deal tricks it can guarantee) before and after it."
    ]
    flags = {e.step.index: e.lost for e in review.entries}
    start_pos = _empty_position(review)
    for group in _groups([e.step for e in review.entries]):
        out.append(_trick_row(start_pos, group, review.calls, flags))
        if detail:
            out.extend(_detail(s, flags[s.index]) for s in group)
    bad = review.flagged()
    out.append("Cards that lost tricks:" if bad else "No card lost a trick.")
    out.extend(_flag_text(e) for e in bad)
    fl, lo = review.flagged_per_seat, review.lost_per_seat
    out.append(
        "Summary: "
        + "; ".join(f"seat {s}: {fl[s]} card(s), {lo[s]} trick(s) lost" for s in range(4))
    )
    t = review.tricks
    out.append(f"Tricks: {_counts(t, review.calls)}{_scores_if_done(review)}")
    out.append(REVIEW_LEGEND)
    return "\n".join(out)


def _scores_if_done(review: Review) -> str:
    return _scores(review.tricks, review.calls, review.rules) if review.complete else ""


def _flag_text(e: CardReview) -> str:
    s = e.step
    better = " ".join(str(c) for c in e.better())
    return (
        f"  T{s.trick + 1} S{s.seat} {s.card}: could guarantee {e.before}, after it "
        f"{e.after} (-{e.lost}); better: {better}"
    )


def _empty_position(review: Review) -> Position:
    from callbreak_lab.game import Position

    return Position(review.deal, review.rules)


# --- HTML -----------------------------------------------------------------------------------------

_TABLE = "border-collapse:collapse;font-family:system-ui,sans-serif;font-size:13px"
_TD = "padding:2px 8px;border-bottom:1px solid #eee;text-align:left;white-space:nowrap"
_SMALL = "font-size:11px;color:#666"
_WRAP = "white-space:normal;max-width:16em"
_FONT = "font-family:system-ui,sans-serif"


def _win(cell: str, wins: bool) -> str:
    if not wins:
        return cell
    return f'<span style="background:#fff3b0;padding:0 2px" title="wins the trick">{cell}</span>'


def _card_span(card: Card) -> str:
    color = RED if card.suit in (1, 2) else BLACK
    return f'<span style="color:{color};font-weight:600">{escape(card.symbol())}</span>'


def _values_html(step: Step) -> str:
    items = sorted(step.values.items(), key=lambda kv: (-kv[1], -kv[0].suit, -kv[0].rank))
    parts = []
    for c, v in items:
        title = f"seat {step.target} takes {v} tricks after {c.symbol()}"
        weight = "font-weight:700;" if c == step.card else ""
        parts.append(
            f'<span title="{escape(title)}" style="{weight}">{_card_span(c)}&nbsp;{v}</span>'
        )
    return " · ".join(parts)


def _cell(step: Step, lost: int) -> str:
    notes = [f"seat {step.seat} plays {step.card.symbol()}"]
    if step.forced:
        notes.append(f"forced: {step.forced}")
    elif step.restriction:
        notes.append(step.restriction)
    notes.append("values: " + _values_text(step, symbols=True))
    if lost > 0:
        notes.append(f"lost {lost} trick(s)")
    elif lost < 0:
        notes.append("not the best card")
    mark = ""
    if step.forced:
        mark = '<sup style="color:#555">*</sup>'
    if lost:
        tail = f"−{lost}" if lost > 0 else "?"
        mark += f'<sup style="color:{RED};font-weight:700">{escape(tail)}</sup>'
    return f'<span title="{escape(" — ".join(notes))}">{_card_span(step.card)}{mark}</span>'


def _table_html(
    caption: str,
    start: Position,
    steps: Sequence[Step],
    calls: Sequence[int] | None,
    flags: dict[int, int],
    footer: str,
) -> str:
    head = "".join(
        f'<th style="{_TD}">{escape(h)}</th>'
        for h in ("trick", "seat 0", "seat 1", "seat 2", "seat 3", "winner", "tricks")
    )
    rows = [f"<tr>{head}</tr>"]
    for group in _groups(steps):
        winner = group[-1].winner
        cards = {
            seat: _win(f'<span style="{_SMALL}">({_card_span(c)})</span>', seat == winner)
            for seat, c in _before(start, group)
        }
        values: dict[int, str] = {}
        for s in group:
            cards[s.seat] = _win(_cell(s, flags.get(s.index, 0)), s.seat == winner)
            values[s.seat] = "" if s.forced else _values_html(s)
        lead = group[0].seat if not _before(start, group) else start.leader
        tds = [f"T{group[0].trick + 1}"]
        for seat in range(4):
            arrow = "▸" if seat == lead else ""
            tds.append(arrow + cards.get(seat, ""))
        tricks = group[-1].tricks
        tds.append(f"seat {winner}" if winner is not None else "")
        tds.append(escape(_counts(tricks, calls)) if tricks is not None else "")
        rows.append("<tr>" + "".join(f'<td style="{_TD}">{t}</td>' for t in tds) + "</tr>")
        second = ["", *(values.get(seat, "") for seat in range(4)), "", ""]
        rows.append(
            "<tr>"
            + "".join(f'<td style="{_TD};{_SMALL};{_WRAP}">{t}</td>' for t in second)
            + "</tr>"
        )
    cap = f'<caption style="text-align:left;{_SMALL}">{escape(caption)}</caption>'
    foot = f'<div style="{_SMALL};{_FONT}">{escape(footer)}</div>'
    return f'<div><table style="{_TABLE}">{cap}{"".join(rows)}</table>{foot}</div>'


def line_html(line: Line) -> str:
    """Trick-by-trick table: winning card highlighted, forced cards starred (reason on hover),
    each card's title and the second row giving every alternative's value."""
    flags: dict[int, int] = {}
    if line.branched_at is not None and not line.steps[line.branched_at].is_best:
        flags[line.branched_at] = -1
    t = line.tricks
    footer = (
        f"Result: {_counts(t, line.calls)}{_scores(t, line.calls, line.rules)}. "
        "▸ leader; highlighted card wins the trick; * forced; second row: each legal card's "
        f"value ({'the studied seat' if line.kind == 'line' else 'the mover'}'s deal tricks)."
    )
    return _table_html(line_header(line), line.start, line.steps, line.calls, flags, footer)


def review_html(review: Review) -> str:
    """Trick-by-trick table of the played cards with flagged cards marked (−n)."""
    flags = {e.step.index: e.lost for e in review.entries}
    fl, lo = review.flagged_per_seat, review.lost_per_seat
    summary = "; ".join(f"seat {s}: {fl[s]} card(s), {lo[s]} trick(s) lost" for s in range(4))
    caption = (
        f"Review ({review.rules.name}): {len(review.entries)} cards, each judged by its player's "
        "own double-dummy value."
    )
    footer = (
        f"{summary}. Tricks {_counts(review.tricks, review.calls)}"
        f"{_scores_if_done(review)}. −n: the card lost n tricks; second row: each legal "
        "card's value for its player."
    )
    steps = [e.step for e in review.entries]
    return _table_html(caption, _empty_position(review), steps, review.calls, flags, footer)
