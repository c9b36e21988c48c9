"""HTML for Jupyter (``_repr_html_``) of cards, hands, deals, positions and matches, and of
lines and reviews: plain HTML with inline CSS, every piece of text escaped; no widget or web
imports. A position shows as the SVG card table of ``callbreak_lab.render.svg``; the tables of
lines and reviews take their wording from ``callbreak_lab.render.text``.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from callbreak_lab.cards import RANK_CHARS, SUIT_MASK13, Card, Deal, Hand, Suit
from callbreak_lab.game import Match, Position
from callbreak_lab.render.style import BLACK, RED, suit_color
from callbreak_lab.render.svg import table_svg
from callbreak_lab.render.text import (
    counts_text,
    expected_text,
    line_header,
    played_before,
    ranked_values,
    review_scores,
    scores_text,
    trick_groups,
    values_text,
)
from callbreak_lab.rules import format_tenths

if TYPE_CHECKING:
    from callbreak_lab.analysis.lines import Line, Step
    from callbreak_lab.analysis.review import Review, SingleDummyReview

__all__ = [
    "card_html",
    "deal_html",
    "hand_html",
    "line_html",
    "match_html",
    "position_html",
    "review_html",
    "single_dummy_review_html",
]

_BOX = (
    "display:inline-block;font-family:system-ui,sans-serif;font-size:14px;line-height:1.35;"
    "border:1px solid #ccc;border-radius:6px;padding:4px 8px;background:#fff;color:#111"
)


def card_html(card: Card) -> str:
    """One card, rank and symbol, red for hearts and diamonds."""
    c = Card.parse(card)
    return (
        f'<span style="color:{suit_color(c.suit)};font-weight:600;white-space:nowrap" '
        f'title="{escape(str(c))}">{escape(c.symbol())}</span>'
    )


def _suit_line(hand: Hand, suit: int) -> str:
    bits = (hand.mask >> (13 * suit)) & SUIT_MASK13
    ranks = "".join(RANK_CHARS[r] for r in range(12, -1, -1) if bits >> r & 1) or "—"
    sym = Suit(suit).symbol
    return (
        f'<div style="white-space:nowrap"><span style="color:{suit_color(suit)}">{sym}</span>'
        f" {escape(ranks)}</div>"
    )


def _hand_block(hand: Hand) -> str:
    return "".join(_suit_line(hand, s) for s in (3, 2, 1, 0))


def hand_html(hand: Hand) -> str:
    """A hand as four suit lines (spades first)."""
    return f'<div style="{_BOX}" title="{escape(str(hand))}">{_hand_block(hand)}</div>'


def _positions(direction: str) -> dict[int, str]:
    """Grid area of each seat: seat 0 at the bottom, the others in the direction of play."""
    if direction == "clockwise":
        return {0: "s", 1: "w", 2: "n", 3: "e"}
    return {0: "s", 1: "e", 2: "n", 3: "w"}


_AREA = {"n": "1 / 2", "w": "2 / 1", "e": "2 / 3", "s": "3 / 2", "c": "2 / 2"}


def _table(cells: dict[int, str], center: str, direction: str, extra: str = "") -> str:
    pos = _positions(direction)
    parts = [
        f'<div style="display:grid;grid-template-columns:auto auto auto;gap:6px 14px;'
        f'align-items:center;justify-items:center;{_BOX}">'
    ]
    for seat, body in cells.items():
        r, c = _AREA[pos[seat]].split(" / ")
        parts.append(f'<div style="grid-row:{r};grid-column:{c}">{body}</div>')
    parts.append(f'<div style="grid-row:2;grid-column:2;min-width:90px">{center}</div>')
    parts.append("</div>")
    return "".join(parts) + extra


def _seat_cell(seat: int, hand: Hand) -> str:
    return f'<div style="font-size:12px;color:#555">seat {seat}</div>{_hand_block(hand)}'


def deal_html(deal: Deal, direction: str = "clockwise") -> str:
    """The four hands laid out as a table, seat 0 at the bottom."""
    cells = {seat: _seat_cell(seat, h) for seat, h in enumerate(deal.hands)}
    center = '<div style="color:#888;font-size:12px;text-align:center">seat 0 leads</div>'
    return _table(cells, center, direction)


def position_html(position: Position) -> str:
    """The card table of ``callbreak_lab.render.svg.table_svg`` (seat 0 at the bottom, the legal
    cards of the seat to move raised) in a div."""
    return f'<div class="cb-position">{table_svg(position)}</div>'


def _row(cells: Sequence[str], header: bool = False) -> str:
    tag = "th" if header else "td"
    style = "padding:2px 8px;text-align:right;border-bottom:1px solid #eee"
    return "<tr>" + "".join(f'<{tag} style="{style}">{c}</{tag}>' for c in cells) + "</tr>"


def match_html(match: Match) -> str:
    """Deal-by-deal calls, tricks and scores with running totals and places."""
    names = [escape(n) for n in match.names]
    rows = [_row(["deal", "dealer", *names], header=True)]
    for i, d in enumerate(match.deals):
        cells = [str(i + 1), escape(match.names[d.dealer])]
        for seat in range(4):
            color = RED if d.scores[seat] < 0 else BLACK
            cells.append(
                f'<span style="color:{color}">{escape(format_tenths(d.scores[seat]))}</span>'
                f' <span style="color:#888;font-size:11px">'
                f"({d.calls[seat]}/{d.tricks[seat]})</span>"
            )
        rows.append(_row(cells))
    rows.append(
        _row(["<b>total</b>", "", *(f"<b>{escape(format_tenths(t))}</b>" for t in match.totals)])
    )
    rows.append(_row(["place", "", *(str(p) for p in match.places())]))
    state = "over" if match.is_over else f"next dealer {escape(match.names[match.dealer])}"
    caption = (
        f'<caption style="text-align:left;font-size:12px;color:#555">rules '
        f"{escape(match.rules.name)} · {len(match.deals)} deal(s) · {state}</caption>"
    )
    return (
        f'<table style="border-collapse:collapse;font-family:system-ui,sans-serif;'
        f'font-size:13px">{caption}{"".join(rows)}</table>'
    )


# --- lines and reviews ---------------------------------------------------------------------

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
    color = suit_color(card.suit)
    return f'<span style="color:{color};font-weight:600">{escape(card.symbol())}</span>'


def _values_html(step: Step) -> str:
    parts = []
    for c, v in ranked_values(step):
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
    notes.append("values: " + values_text(step, symbols=True))
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
    for group in trick_groups(steps):
        winner = group[-1].winner
        cards = {
            seat: _win(f'<span style="{_SMALL}">({_card_span(c)})</span>', seat == winner)
            for seat, c in played_before(start, group)
        }
        values: dict[int, str] = {}
        for s in group:
            cards[s.seat] = _win(_cell(s, flags.get(s.index, 0)), s.seat == winner)
            values[s.seat] = "" if s.forced else _values_html(s)
        lead = group[0].seat if not played_before(start, group) else start.leader
        tds = [f"T{group[0].trick + 1}"]
        for seat in range(4):
            arrow = "▸" if seat == lead else ""
            tds.append(arrow + cards.get(seat, ""))
        tricks = group[-1].tricks
        tds.append(f"seat {winner}" if winner is not None else "")
        tds.append(escape(counts_text(tricks, calls)) if tricks is not None else "")
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
        f"Result: {counts_text(t, line.calls)}{scores_text(t, line.calls, line.rules)}. "
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
        f"{summary}. Tricks {counts_text(review.tricks, review.calls)}"
        f"{review_scores(review)}. −n: the card lost n tricks; second row: each legal "
        "card's value for its player."
    )
    steps = [e.step for e in review.entries]
    return _table_html(
        caption, Position(review.deal, review.rules), steps, review.calls, flags, footer
    )


_PAD = ' style="padding:2px 10px;text-align:left"'


def single_dummy_review_html(review: SingleDummyReview) -> str:
    """A table of the judged cards (the costly ones highlighted) and the players' summary."""
    u = review.unit
    rows = []
    for c in review.cards:
        if c.seat not in review.seats or (c.sd is None and not c.forced):
            continue
        bad = c.cost > review.threshold
        style = ' style="background:#fde2e1"' if bad else ""
        cells = [
            str(c.trick), str(c.seat), _card_span(c.card),
            "forced" if c.forced else escape(expected_text(c.sd_expected, u)),
            "" if c.sd_best_card is None else _card_span(c.sd_best_card),
            escape(expected_text(c.sd_best_expected, u)), f"{c.cost:.2f}",
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
            escape(
                f"trick {c.trick}, {c.card.symbol()} "
                f"({'-' if c.sd_best_card is None else c.sd_best_card.symbol()} was best, "
                f"cost {c.cost:.2f})"
            )
            for c in top
        )
        + "</p>"
        if top
        else f"<p>No card cost more than {review.threshold:g} {u} against the best card.</p>"
    )
    return (
        '<div class="cb-sd-review" style="font-family:sans-serif">'
        f"<p>Single-dummy review ({escape(review.rules.name)}, "
        f"{review.layouts} layouts a decision)</p>"
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
