"""A hand shaded by each card's chance of taking a trick ("why this call"), SVG and HTML.

The hand is drawn as the card table draws cards (``render.svg``'s faces, spades, hearts, clubs,
diamonds, high card first), side by side; under each card a cell shaded by its chance (white to
the felt's green, ``render.reading.shade``) with the chance in percent, a gold outline where the
counting rule counts the card as a trick, and a small ``R`` where most of its chance comes from
ruffs. At the right of each suit its expected tricks; a title line with the totals.
"""

from __future__ import annotations

from html import escape
from itertools import pairwise
from typing import TYPE_CHECKING

from callbreak_lab.render.reading import shade
from callbreak_lab.render.style import LEGAL
from callbreak_lab.render.svg import CARD_H, CARD_W, FONT, card_svg, svg_text

if TYPE_CHECKING:
    from callbreak_lab.bidding.explain import CallExplanation

__all__ = ["chances_html", "chances_svg"]

STEP = CARD_W + 4
SUIT_GAP = 14.0
TOP = 44.0  # the title lines
CELL_H = 22.0
SUIT_H = 40.0  # the suits' lines under the cells
FOOT = 22.0  # the legend


def chances_svg(ex: CallExplanation) -> str:
    """The hand as a row of cards, each over a cell shaded by its chance of taking a trick."""
    cards = list(ex.cards)
    gaps = sum(1 for a, b in pairwise(cards) if a.card.suit != b.card.suit)
    width = max(8 + len(cards) * STEP + gaps * SUIT_GAP + 4, 560)
    height = TOP + CARD_H + 4 + CELL_H + SUIT_H + FOOT
    out = [
        svg_text(
            6,
            17,
            f"Why call {ex.call}: the cards take {ex.total:.1f} tricks "
            f"(the call advisor expects {ex.advisor_expected:.1f})",
            13,
            fill="#111",
            font_weight="700",
        ),
        svg_text(
            6,
            34,
            f"{ex.baseline} counts {ex.baseline_total:g}; each card's chance of taking a trick "
            "in the play-out, gold: the rule counts it",
            11.5,
            fill="#333",
        ),
    ]
    x = 6.0
    suit_x: dict[int, list[float]] = {}
    for i, c in enumerate(cards):
        if i and cards[i - 1].card.suit != c.card.suit:
            x += SUIT_GAP
        suit_x.setdefault(c.card.suit, []).append(x)
        face = card_svg(c.card).replace("<svg ", f'<svg x="{x:g}" y="{TOP:g}" ', 1)
        y = TOP + CARD_H + 4
        label = f"{round(100 * c.chance):d}%"
        dark = c.chance > 0.55
        title = f"{c.card.symbol()}: takes a trick {label} of the time" + (
            f" ({100 * c.ruff:.0f}% by ruffs)" if c.ruff >= 0.005 else ""
        )
        if c.counted:
            title += f"; {ex.baseline} counts {c.counted:g} ({c.reason})"
        ring = f' stroke="{LEGAL}" stroke-width="3"' if c.counted else ' stroke="#9a9a9a"'
        out.append(
            f'<g class="chance" data-card="{c.card}" data-chance="{c.chance:.4f}">'
            f"<title>{escape(title)}</title>{face}"
            f'<rect x="{x + 1:g}" y="{y:g}" width="{CARD_W - 2}" height="{CELL_H}" rx="4" '
            f'fill="{shade(c.chance)}"{ring}/>'
            + svg_text(
                x + CARD_W / 2,
                y + 15,
                label,
                12,
                text_anchor="middle",
                font_weight="700",
                fill="#fff" if dark else "#111",
            )
            + (
                svg_text(
                    x + CARD_W - 6,
                    y + 9,
                    "R",
                    8,
                    text_anchor="middle",
                    fill="#fff" if dark else "#555",
                )
                if c.ruff > c.chance / 2 and c.chance > 0.05
                else ""
            )
            + "</g>"
        )
        x += STEP
    y = TOP + CARD_H + 4 + CELL_H + 18
    for s in ex.suits:
        xs = suit_x.get(s.suit)
        if not xs:
            continue
        text = f"{s.symbol} {s.expected:.2f}"
        out.append(svg_text(xs[0] + 2, y, text, 12, fill="#111", font_weight="700"))
        if s.suit == 3:  # on a line of its own: a short spade suit leaves no room beside it
            out.append(svg_text(xs[0] + 2, y + 13, f"ruffs {s.ruffs:.2f}", 10.5, fill="#333"))
    out.append(
        svg_text(
            6,
            height - 6,
            "white 0% to green 100%; R: mostly ruffs",
            10.5,
            fill="#555",
        )
    )
    label = f"why call {ex.call}: {ex.hand.symbols()}"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="cb-chances-svg" width="{width:g}" '
        f'height="{height:g}" viewBox="0 0 {width:g} {height:g}" font-family="{FONT}" '
        f'role="img" aria-label="{escape(label)}" style="max-width:100%;height:auto">'
        f"<title>{escape(label)}</title>{''.join(out)}</svg>"
    )


def chances_html(ex: CallExplanation) -> str:
    """The shaded hand and, under it, where the counting rule is wrong for the hand."""
    items = "".join(f"<li>{escape(d)}</li>" for d in ex.disagreements)
    suits = "".join(f"<li>{escape(ex.suit_line(s))}</li>" for s in ex.suits)
    wrong = (
        f'<div style="margin-top:4px"><b>Where {escape(ex.baseline)} is wrong for this hand'
        f'</b><ul style="margin:2px 0">{items}</ul></div>'
        if items
        else f'<div style="margin-top:4px">{escape(ex.baseline)} agrees with every card '
        "within a third of a trick.</div>"
    )
    return (
        '<div class="cb-why" style="font-family:system-ui,sans-serif;font-size:13px">'
        f"{chances_svg(ex)}"
        f'<ul style="margin:2px 0">{suits}</ul>{wrong}</div>'
    )
