"""A card reading (``seat.reading.Reading``) as a grid of seats by cards, SVG and HTML.

One block a suit (spades, hearts, clubs, diamonds, as the card table orders them), one column a
rank (ace first, as the card table's rows), one row each other seat. A hidden card's cell is
shaded by the chance the seat holds it (white to the felt's green) with the chance in percent;
a cell the rules rule out shows a dot, a certain one is outlined in gold (the colour the card
table outlines cards with). The columns of the cards the reading seat can see are pale: its
own ("you") and the cards played ("played"). At the right of each row the seat's expected
length of the suit's hidden cards.

The colours, the suit paths and the rank text are the card table's (``render.style``,
``render.svg``); everything is escaped text and paths, so the SVG shows the same anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from callbreak_lab.cards import Card
from callbreak_lab.errors import CardError
from callbreak_lab.render.style import FELT, FELT_EDGE, LEGAL
from callbreak_lab.render.svg import FONT, RANK_TEXT, seat_name, suit_symbol, svg_text

if TYPE_CHECKING:
    from callbreak_lab.seat.reading import Reading

__all__ = ["reading_html", "reading_svg", "shade"]

SUITS = (3, 2, 0, 1)  # spades, hearts, clubs, diamonds
CELL_W, CELL_H = 30.0, 22.0
LABEL_W = 74.0  # the seat labels at the left
LEN_W = 46.0  # the expected lengths at the right
HEAD_H = 22.0  # the ranks over each block
BLOCK_GAP = 10.0
TOP = 46.0  # the title lines
FOOT = 40.0  # the legend


def shade(p: float) -> str:
    """The cell colour of chance ``p``: white at 0 to the felt's green at 1."""
    p = min(1.0, max(0.0, p))
    felt = (int(FELT[1:3], 16), int(FELT[3:5], 16), int(FELT[5:7], 16))
    r, g, b = (round(255 + (c - 255) * p) for c in felt)
    return f"#{r:02x}{g:02x}{b:02x}"


def reading_svg(reading: Reading, *, names: Sequence[str] | None = None) -> str:
    """The reading as an SVG grid of the other seats by the cards, one block a suit. ``names``
    replaces "seat 0".. in the rows, the tips and the title (one per seat, as ``table_svg``
    takes them: a table's "you", "bot 1"..)."""
    if names is not None and len(names) != 4:
        raise CardError(f"names need one entry per seat (4), got {len(names)}")
    others = [s for s in range(4) if s != reading.seat]
    hidden = reading.hidden
    lengths = reading.lengths()
    block_h = HEAD_H + CELL_H * len(others)
    width = LABEL_W + 13 * CELL_W + LEN_W + 8
    height = TOP + 4 * block_h + 3 * BLOCK_GAP + FOOT
    title = reading.header(names)
    when, _, how = title.partition(": ")
    out = [
        svg_text(6, 17, when[:1].upper() + when[1:], 13, fill="#111", font_weight="700"),
        svg_text(6, 34, how, 11.5, fill="#333"),
    ]
    y = TOP
    for suit in SUITS:
        out.append(f'<g class="suit" data-suit="{suit}">')
        out.append(suit_symbol(suit, 10, y + 3, 15))
        for rank in range(12, -1, -1):
            x = LABEL_W + (12 - rank) * CELL_W
            out.append(
                svg_text(x + CELL_W / 2, y + 15, RANK_TEXT[rank], 12, text_anchor="middle",
                      font_weight="700", fill="#333")
            )  # fmt: skip
        out.append(svg_text(LABEL_W + 13 * CELL_W + LEN_W / 2 + 4, y + 15, "length", 10.5,
                         text_anchor="middle", fill="#555"))  # fmt: skip
        for i, s in enumerate(others):
            cy = y + HEAD_H + i * CELL_H
            out.append(svg_text(6, cy + 15, seat_name(s, names)[:10], 12.5, fill="#111"))
            for rank in range(12, -1, -1):
                card = Card(13 * suit + rank)
                x = LABEL_W + (12 - rank) * CELL_W
                out.append(
                    _cell(reading, card, s, x, cy, hidden, first=i == 0, rows=len(others),
                          name=seat_name(s, names))
                )  # fmt: skip
            out.append(
                svg_text(LABEL_W + 13 * CELL_W + LEN_W / 2 + 4, cy + 15, f"{lengths[s, suit]:.1f}",
                      12, text_anchor="middle", fill="#111")
            )  # fmt: skip
        out.append(
            f'<rect x="{LABEL_W:g}" y="{y + HEAD_H:g}" width="{13 * CELL_W:g}" '
            f'height="{CELL_H * len(others):g}" fill="none" stroke="{FELT_EDGE}" '
            'stroke-width="1"/>'
        )
        out.append("</g>")
        y += block_h + BLOCK_GAP
    legend = (
        "shade and number: the chance in % the seat holds the card · gold outline: certain",
        "dot: the rules prove it cannot · pale columns: cards you see (yours, or played)",
    )
    for i, line in enumerate(legend):
        out.append(svg_text(6, y + 10 + 16 * i, line, 11, fill="#333"))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="cb-reading-svg" width="{width:g}" '
        f'height="{height:g}" viewBox="0 0 {width:g} {height:g}" font-family="{FONT}" '
        f'role="img" aria-label="{escape(title)}" style="max-width:100%;height:auto">'
        f'<title>{escape(title)}</title><rect width="{width:g}" height="{height:g}" '
        f'fill="#fff"/>{"".join(out)}</svg>'
    )


def _cell(  # noqa: PLR0913  (where the cell is, and what it shows)
    reading: Reading,
    card: Card,
    seat: int,
    x: float,
    y: float,
    hidden: int,
    first: bool,
    rows: int,
    name: str,
) -> str:
    """One cell: the chance ``seat`` (called ``name``) holds ``card``, or the card's column when
    it is seen."""
    if not hidden >> card & 1:
        if not first:
            return ""
        own = bool(reading.hand >> card & 1)
        label = "you" if own else "played"
        fill = "#fff4cc" if own else "#eeeeee"
        return (
            f'<g class="seen" data-card="{card}" data-seen="{label}">'
            f"<title>{escape(card.symbol())}: {label}</title>"
            f'<rect x="{x:g}" y="{y:g}" width="{CELL_W:g}" height="{CELL_H * rows:g}" '
            f'fill="{fill}" stroke="#ddd" stroke-width="0.5"/>'
            + _vertical(x + CELL_W / 2, y + CELL_H * rows / 2, label)
            + "</g>"
        )
    p = reading.chance(card, seat)
    possible = bool(reading.possible[seat] >> card & 1)
    certain = possible and p == 1.0
    pct = round(100 * p)
    tip = f"{card.symbol()}: {name} " + (f"{pct}%" if possible else "cannot hold it")
    parts = [
        f'<g class="cell" data-card="{card}" data-seat="{seat}" data-chance="{p:.4f}">'
        f"<title>{escape(tip)}</title>"
        f'<rect x="{x:g}" y="{y:g}" width="{CELL_W:g}" height="{CELL_H:g}" fill="{shade(p)}" '
        'stroke="#ccc" stroke-width="0.5"/>'
    ]
    if not possible:
        parts.append(
            f'<circle cx="{x + CELL_W / 2:g}" cy="{y + CELL_H / 2:g}" r="1.8" fill="#999"/>'
        )
    else:
        color = "#fff" if p >= 0.5 else "#111"
        weight = "700" if certain else "400"
        parts.append(
            svg_text(x + CELL_W / 2, y + 15, f"{pct}", 11, text_anchor="middle", fill=color,
                     font_weight=weight)
        )  # fmt: skip
    if certain:
        parts.append(
            f'<rect x="{x + 1.5:g}" y="{y + 1.5:g}" width="{CELL_W - 3:g}" height="{CELL_H - 3:g}" '
            f'fill="none" stroke="{LEGAL}" stroke-width="2.5"/>'
        )
    parts.append("</g>")
    return "".join(parts)


def _vertical(x: float, y: float, label: str) -> str:
    """A short label written upwards in a seen card's column."""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="10" fill="#777" text-anchor="middle" '
        f'dominant-baseline="middle" transform="rotate(-90 {x:g} {y:g})">{escape(label)}</text>'
    )


def reading_html(reading: Reading, *, names: Sequence[str] | None = None) -> str:
    """The reading's SVG grid in a block for Jupyter (``Reading._repr_html_``; ``names`` as
    ``reading_svg`` takes them)."""
    grid = reading_svg(reading, names=names)
    return f'<div class="cb-reading" style="max-width:640px">{grid}</div>'
