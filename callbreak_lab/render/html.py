"""HTML for Jupyter (``_repr_html_``): plain HTML with inline CSS, everything escaped. A
position shows as the SVG card table of ``callbreak_lab.render.svg``.

The core classes import this module lazily, so cards/rules/game stay free of rendering code.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from callbreak_lab.cards import RANK_CHARS, SUIT_MASK13, Card, Deal, Hand

if TYPE_CHECKING:
    from callbreak_lab.game import Match, Position

RED = "#c0392b"
BLACK = "#111"
_BOX = (
    "display:inline-block;font-family:system-ui,sans-serif;font-size:14px;line-height:1.35;"
    "border:1px solid #ccc;border-radius:6px;padding:4px 8px;background:#fff;color:#111"
)


def _suit_color(suit: int) -> str:
    return RED if suit in (1, 2) else BLACK


def card_html(card: Card) -> str:
    """One card, rank and symbol, red for hearts and diamonds."""
    c = Card.parse(card)
    return (
        f'<span style="color:{_suit_color(c.suit)};font-weight:600;white-space:nowrap" '
        f'title="{escape(str(c))}">{escape(c.symbol())}</span>'
    )


def _suit_line(hand: Hand, suit: int) -> str:
    bits = (hand.mask >> (13 * suit)) & SUIT_MASK13
    ranks = "".join(RANK_CHARS[r] for r in range(12, -1, -1) if bits >> r & 1) or "—"
    sym = "♣♦♥♠"[suit]
    return (
        f'<div style="white-space:nowrap"><span style="color:{_suit_color(suit)}">{sym}</span>'
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
    from callbreak_lab.render.svg import table_svg

    return f'<div class="cb-position">{table_svg(position)}</div>'


def _row(cells: Sequence[str], header: bool = False) -> str:
    tag = "th" if header else "td"
    style = "padding:2px 8px;text-align:right;border-bottom:1px solid #eee"
    return "<tr>" + "".join(f'<{tag} style="{style}">{c}</{tag}>' for c in cells) + "</tr>"


def match_html(match: Match) -> str:
    """Deal-by-deal calls, tricks and scores with running totals and places."""
    from callbreak_lab.rules import format_tenths

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
