"""SVG card faces and the card table (callbreak_lab.render.svg): well-formed, self-contained, and
showing what they claim (seats, trick, highlighted values, calls and scores)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from callbreak_lab import Card, Deal, Hand, Position, Ruleset, play_out, random_player
from callbreak_lab.cards import ALL_CARDS
from callbreak_lab.errors import CallbreakLabError, SeatError
from callbreak_lab.render.style import BEST, BLACK, PLAYED, RED
from callbreak_lab.render.svg import card_svg, hand_svg, table_svg
from callbreak_lab.rules import format_tenths

NS = {"s": "http://www.w3.org/2000/svg"}
S = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{S}svg"
    return root


def _cards(el: ET.Element) -> list[ET.Element]:
    return [g for g in el.iter(f"{S}g") if g.get("class") == "card"]


def _xy(g: ET.Element) -> tuple[float, float]:
    m = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\)", g.get("transform", ""))
    assert m, g.get("transform")
    return float(m.group(1)), float(m.group(2))


def _position(seed: int, cards: int, rules: str = "modern") -> Position:
    p = Position(Deal.random(seed), rules)
    policy = random_player(seed)
    while len(p.history) < cards:
        p.play(policy(p))
    return p


def test_card_faces_are_52_distinct_self_contained_svgs() -> None:
    faces = {}
    for card in ALL_CARDS:
        svg = card_svg(card)
        root = parse(svg)
        assert root.get("width") == "48" and root.get("height") == "68"
        assert "href" not in svg and "url(" not in svg and "@import" not in svg  # no assets
        fills = {p.get("fill") for p in root.iter(f"{S}path")}
        assert fills == {RED if card.suit in (1, 2) else BLACK}
        rank = card.rank_char  # the library's notation: T for the ten, as Card.symbol()
        texts = [t.text for t in root.iter(f"{S}text")]
        assert texts.count(rank) == (3 if rank in "JQKA" else 2)  # corners (and J Q K A: middle)
        assert len(list(root.iter(f"{S}path"))) == 3  # the corners' suits and the middle one
        assert card.symbol() in root.findtext("s:title", namespaces=NS)
        assert _cards(root)[0].get("data-card") == str(card)
        faces[card] = svg
    assert len(set(faces.values())) == 52
    wide = parse(card_svg("QH", width=96))
    assert wide.get("width") == "96" and wide.get("height") == "136"
    assert wide.get("viewBox") == "0 0 48 68"


def test_hand_row_orders_suits_and_badges_highlighted_values() -> None:
    hand = Hand.parse("AK2.Q3.JT.987")
    root = parse(hand_svg(hand))
    assert [g.get("data-card") for g in _cards(root)] == [
        "AS", "KS", "2S", "QH", "3H", "9C", "8C", "7C", "JD", "TD",
    ]  # fmt: skip
    lit = parse(hand_svg(hand, {"KS": 4, "3H": 2}))
    badges = {
        g.get("data-card"): v.get("data-value")
        for g in _cards(lit)
        for v in g.iter(f"{S}g")
        if v.get("class") == "value"
    }
    assert badges == {"KS": "4", "3H": "2"}
    ys = {g.get("data-card"): _xy(g)[1] for g in _cards(lit)}
    assert ys["KS"] < ys["AS"] and ys["3H"] < ys["AS"]  # raised
    assert len(_cards(parse(hand_svg(hand, ["AS"])))) == 10
    with pytest.raises(CallbreakLabError, match="no hand shown holds"):
        hand_svg(hand, {"AH": 1})


@pytest.mark.parametrize("direction", ["modern", "online"])
def test_table_puts_the_bottom_seat_at_the_bottom(direction: str) -> None:
    p = _position(3, 22, direction)
    clockwise = p.rules.direction == "clockwise"
    for bottom in range(4):
        root = parse(table_svg(p, bottom_seat=bottom))
        seats = {g.get("data-side"): g for g in root.iter(f"{S}g") if g.get("class") == "seat"}
        assert sorted(seats) == ["e", "n", "s", "w"]
        assert int(seats["s"].get("data-seat")) == bottom
        after = (bottom + 1) % 4  # the next to play sits on the bottom seat's left (clockwise)
        assert int(seats["w" if clockwise else "e"].get("data-seat")) == after
        assert int(seats["n"].get("data-seat")) == (bottom + 2) % 4
        y = {side: min(_xy(c)[1] for c in _cards(g)) for side, g in seats.items()}
        x = {side: min(_xy(c)[0] for c in _cards(g)) for side, g in seats.items()}
        assert y["s"] > y["w"] > y["n"] and y["s"] > y["e"] > y["n"]
        assert x["w"] < x["n"] < x["e"] and x["w"] < x["s"] < x["e"]
        for seat_el in seats.values():
            held = Hand(p.hands[int(seat_el.get("data-seat"))].mask)
            assert {Card.parse(c.get("data-card")) for c in _cards(seat_el)} == set(held)
    with pytest.raises(SeatError):
        table_svg(p, bottom_seat=4)


def test_table_trick_labels_turn_and_default_legal_cards() -> None:
    p = _position(5, 18)  # two cards on the trick
    assert len(p.trick) == 2
    root = parse(table_svg(p))
    trick = next(g for g in root.iter(f"{S}g") if g.get("class") == "trick")
    assert [c.get("data-card") for c in _cards(trick)] == [str(c) for c in p.trick]
    labels = [t.text for t in trick.iter(f"{S}text")]
    assert f"seat {p.leader} led" in labels and f"seat {(p.leader + 1) % 4}" in labels
    assert f"seat {p.to_move} to play" in labels
    mover = next(g for g in root.iter(f"{S}g") if g.get("data-turn") == "1")
    assert int(mover.get("data-seat")) == p.to_move
    rings = {
        c.get("data-card")
        for c in _cards(mover)
        if any(r.get("stroke-width") == "3" for r in c.iter(f"{S}rect"))
    }
    assert rings == {str(c) for c in p.legal_cards()}
    # between tricks: the last trick, faded, with its winner
    q = _position(5, 20)
    root = parse(table_svg(q))
    trick = next(g for g in root.iter(f"{S}g") if g.get("class") == "trick")
    assert trick.get("data-last") == "1" and len(_cards(trick)) == 4
    won = q.tricks[-1].winner
    assert f"seat {won} won" in "".join(t.text or "" for t in trick.iter(f"{S}text"))
    assert parse(table_svg(q, last_trick=False)).find(".//s:g[@data-last='1']", NS) is None
    # a replay says who plays next, not whose turn it is
    replay = table_svg(p, names=["you", "bot 1", "bot 2", "bot 3"], turn_text="next")
    name = ["you", "bot 1", "bot 2", "bot 3"][p.to_move]
    assert "to play" not in replay and f"{name} next<" in replay and "▶ next<" in replay
    assert f"trick {p.trick_index + 1} of 13 · {name} next<" in replay


def test_table_highlight_values_calls_and_scores() -> None:
    p = _position(8, 36)
    legal = list(p.legal_cards())
    values = {c: 3 + i % 2 for i, c in enumerate(legal)}
    calls, result = [3, 4, 2, 3], [4, 3, 3, 3]
    svg = table_svg(p, 2, values, played=legal[0], best=4, calls=calls, result=result,
                    result_label="line", notes=["a note <with> markup"])  # fmt: skip
    root = parse(svg)
    shown = {}
    for g in _cards(root):
        for v in g.iter(f"{S}g"):
            if v.get("class") == "value":
                shown[Card.parse(g.get("data-card"))] = int(v.get("data-value"))
                rect = v.find("s:rect", NS)
                assert (rect.get("fill") == BEST) == (values[Card.parse(g.get("data-card"))] == 4)
                assert (rect.get("stroke") == PLAYED) == (g.get("data-card") == str(legal[0]))
    assert shown == values
    cells = {
        (c.get("data-col"), int(c.get("data-seat"))): c.findtext("s:text", namespaces=NS)
        for c in root.iter(f"{S}g")
        if c.get("class") == "cell"
    }
    rules = Ruleset.preset("modern")
    for seat in range(4):
        assert cells["call", seat] == str(calls[seat])
        assert cells["won", seat] == str(p.tricks_won[seat])
        assert cells["line", seat] == str(result[seat])
        assert cells["score", seat] == format_tenths(rules.score(calls[seat], result[seat]))
    assert "a note &lt;with&gt; markup" in svg and "<with>" not in svg
    with pytest.raises(CallbreakLabError, match="calls need one entry per seat"):
        table_svg(p, calls=[3, 3])
    with pytest.raises(CallbreakLabError, match="no hand shown holds"):
        table_svg(p, highlight={p.history[0][1]: 1})
    names = parse(table_svg(p, names=["<b>A</b>", "B", "C", "D"]))
    assert any(t.text and t.text.startswith("<b>A</b>") for t in names.iter(f"{S}text"))


def test_finished_deal_scores_the_tricks_won() -> None:
    p = play_out(Position(Deal.random(4), "modern"), random_player(4))
    root = parse(table_svg(p, calls=[2, 2, 2, 2]))
    assert root.find(".//s:g[@data-turn='1']", NS) is None
    scores = [
        c.findtext("s:text", namespaces=NS)
        for c in root.iter(f"{S}g")
        if c.get("class") == "cell" and c.get("data-col") == "score"
    ]
    assert scores == [format_tenths(p.rules.score(2, t)) for t in p.tricks_won]
    assert "deal over" in root.findtext("s:title", namespaces=NS)


def test_position_shows_as_the_svg_table() -> None:
    p = _position(2, 26)
    assert p._repr_svg_() == table_svg(p)
    parse(p._repr_svg_())
    html = p._repr_html_()
    assert html.startswith('<div class="cb-position"><svg') and table_svg(p) in html
