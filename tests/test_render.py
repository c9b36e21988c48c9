"""Jupyter HTML (_repr_html_): symbols, red suits, table layout, escaping."""

from __future__ import annotations

from callbreak_lab import PRESETS, Card, Deal, Hand, Match, Position, play_out, random_player
from callbreak_lab.render.html import deal_html
from callbreak_lab.render.style import RED


def test_card_and_hand_html() -> None:
    assert RED in Card.parse("QH")._repr_html_() and "Q♥" in Card.parse("QH")._repr_html_()
    assert RED not in Card.parse("QS")._repr_html_()
    html = Hand.parse("AKQ2..765.432")._repr_html_()
    assert "♠</span> AKQ2" in html and "♥</span> —" in html and "♣</span> 432" in html


def test_deal_html_has_four_seats_in_a_cross() -> None:
    d = Deal.random(1)
    html = d._repr_html_()
    assert all(f"seat {s}" in html for s in range(4))
    assert html.count("grid-row") == 5  # four seats and the centre
    # seat 1 sits on the other side for anticlockwise play
    assert deal_html(d, "clockwise") != deal_html(d, "anticlockwise")


def test_position_html_shows_trick_and_scores() -> None:
    p = Position(Deal.random(2), PRESETS["online"])
    play_out(p, random_player(0))
    while len(p.trick) != 2:
        p.unplay()
    html = p._repr_html_()  # the SVG card table (tests/test_svg.py checks it in detail)
    assert "<svg" in html and "seat 3" in html and "won" in html and "to play" in html
    assert "online" in html
    assert all(f'data-card="{c}"' in html and c.symbol() in html for c in p.trick)
    play_out(p, random_player(1))
    assert "deal over" in p._repr_html_()


def test_match_html_escapes_names_and_formats_tenths() -> None:
    m = Match("modern", players=["<b>x</b>", "B&B", "C", "D"])
    m.record_deal([3, 4, 2, 3], [5, 3, 2, 3])
    html = m._repr_html_()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html and "B&amp;B" in html
    assert "3.2" in html and "-4" in html and "(3/5)" in html
