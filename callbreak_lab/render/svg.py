"""Card faces and the card table as self-contained SVG (like python-chess's ``chess.svg``).

``card_svg(card)`` draws one card, ``hand_svg(hand)`` a row of overlapping cards and
``table_svg(position)`` the whole table: the four hands around a felt with the studied seat at
the bottom, the trick in the middle with each card at its player's side and labelled, legal
cards raised and outlined with their values, and calls, tricks won and scores at the side.

Everything is drawn from paths and text in generic font families: no external font, image or
stylesheet, so the SVG shows the same in Jupyter (``Position._repr_svg_``), an ipywidgets HTML
widget, a browser or a file. Suits are paths (not font glyphs), red for hearts and diamonds.
Every piece of text is escaped; each card carries a ``<title>`` (its name, hover text) and a
``data-card`` attribute (letters, e.g. ``QH``) for scripts and tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from itertools import pairwise
from typing import TYPE_CHECKING

from callbreak_lab.cards import N_TRICKS, Card, CardLike, Hand, check_seat
from callbreak_lab.errors import CardError
from callbreak_lab.render.style import BEST, FELT, FELT_EDGE, LEGAL, PLAYED, suit_color
from callbreak_lab.rules import format_tenths

if TYPE_CHECKING:
    from callbreak_lab.game import Position

__all__ = [
    "CARD_H",
    "CARD_W",
    "card_svg",
    "hand_svg",
    "seat_name",
    "suit_symbol",
    "svg_text",
    "table_svg",
]

CARD_W = 48
CARD_H = 68
FONT = "sans-serif"
DISPLAY_ORDER = (3, 2, 0, 1)  # spades, hearts, clubs, diamonds: colours alternate in a row
#: the rank on a card's face: the library's notation (``Card.symbol()``: ``T♠``), so a card reads
#: the same in a picture and in every text beside it
RANK_TEXT = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")

# Suit outlines in a 100 x 100 box.
_SUIT_PATHS = (
    # clubs: three leaves and a stem
    "M50 4a22 22 0 1 1 -0.1 0Z M25 36a22 22 0 1 1 -0.1 0Z M75 36a22 22 0 1 1 -0.1 0Z "
    "M46 52C46 74 40 88 28 98L72 98C60 88 54 74 54 52Z",
    # diamonds
    "M50 0L90 50L50 100L10 50Z",
    # hearts
    "M50 96C22 72 2 54 2 30C2 13 15 2 29 2C40 2 47 9 50 18C53 9 60 2 71 2C85 2 98 13 98 30"
    "C98 54 78 72 50 96Z",
    # spades: an upside-down heart and a stem
    "M50 2C72 26 98 42 98 64C98 79 87 88 74 88C64 88 57 83 53 76C54 86 58 93 68 98L32 98"
    "C42 93 46 86 47 76C43 83 36 88 26 88C13 88 2 79 2 64C2 42 28 26 50 2Z",
)


def _suit(suit: int, x: float, y: float, size: float) -> str:
    """A suit symbol with its top-left corner at (x, y), ``size`` pixels high."""
    return (
        f'<path d="{_SUIT_PATHS[suit]}" fill="{suit_color(suit)}" '
        f'transform="translate({x:g} {y:g}) scale({size / 100:g})"/>'
    )


def _text(x: float, y: float, text: str, size: float, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{escape(v)}"' for k, v in attrs.items())
    return f'<text x="{x:g}" y="{y:g}" font-size="{size:g}"{extra}>{escape(text)}</text>'


#: the pieces other SVG renderings draw with (``render.reading``'s grid): a suit symbol and
#: escaped text
suit_symbol = _suit
svg_text = _text


def _index(card: Card, small: bool = False) -> str:
    """A corner index: rank above a small suit (the top-left one stays visible on a card
    overlapped by its right neighbour in a hand; ``small`` for the mirrored bottom-right one)."""
    rank = RANK_TEXT[card.rank]
    size, suit = (11, 8) if small else (14, 10)
    squeeze = ' letter-spacing="-1"' if len(rank) == 2 else ""
    x = (3 if small else 3.5) if len(rank) == 2 else (4 if small else 5)
    return (
        f'<text x="{x:g}" y="{size + 1}" font-size="{size}" font-weight="700" '
        f'fill="{suit_color(card.suit)}"{squeeze}>{rank}</text>'
        + _suit(card.suit, 4 if small else 5, size + 3, suit)
    )


def _face(card: Card) -> str:
    """The body of a card in a CARD_W x CARD_H box: both corners and a large suit in the
    middle (the court cards and the ace: their letter over it)."""
    c = Card.parse(card)
    color = suit_color(c.suit)
    if c.rank >= 9:
        middle = _text(
            CARD_W / 2 + 1,
            36,
            RANK_TEXT[c.rank],
            19,
            text_anchor="middle",
            font_weight="700",
            fill=color,
        ) + _suit(c.suit, CARD_W / 2 - 6, 40, 13)
    else:
        middle = _suit(c.suit, CARD_W / 2 - 10 + 1, CARD_H / 2 - 10, 20)
    return (
        f'<rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="5" fill="#fff" '
        f'stroke="#8a8a8a"/>'
        + _index(c)
        + f'<g transform="rotate(180 {CARD_W / 2:g} {CARD_H / 2:g})">{_index(c, small=True)}</g>'
        + middle
    )


def _card(
    card: Card, x: float, y: float, ring: str | None = None, dim: bool = False, extra: str = ""
) -> str:
    """One positioned card; ``ring`` outlines it, ``dim`` greys it (not playable)."""
    parts = [
        f'<g class="card" data-card="{card}" transform="translate({x:g} {y:g})">'
        f"<title>{escape(card.symbol())} ({card.suit.plural})</title>{_face(card)}"
    ]
    if dim:
        parts.append(
            f'<rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="5" '
            'fill="#54605a" fill-opacity="0.38"/>'
        )
    if ring:
        parts.append(
            f'<rect x="-1.5" y="-1.5" width="{CARD_W + 3}" height="{CARD_H + 3}" rx="6" '
            f'fill="none" stroke="{ring}" stroke-width="3"/>'
        )
    parts.append(extra + "</g>")
    return "".join(parts)


def _backs(count: int, x: float, y: float, step: float) -> str:
    """``count`` face-down cards in a row from (x, y): a hidden hand."""
    out = [f'<g class="backs" data-count="{count}">']
    for i in range(count):
        out.append(
            f'<g transform="translate({x + i * step:g} {y:g})">'
            f'<rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="5" '
            'fill="#1f4e8c" stroke="#fff" stroke-width="1.2"/>'
            f'<rect x="5" y="5" width="{CARD_W - 10}" height="{CARD_H - 10}" rx="3" '
            'fill="none" stroke="#8fb3e0" stroke-width="1"/></g>'
        )
    out.append("</g>")
    return "".join(out)


def _svg(width: float, height: float, body: str, cls: str, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" width="{width:g}" '
        f'height="{height:g}" viewBox="0 0 {width:g} {height:g}" font-family="{FONT}" '
        f'role="img" aria-label="{escape(label)}" style="max-width:100%;height:auto">'
        f"<title>{escape(label)}</title>{body}</svg>"
    )


def card_svg(card: CardLike, width: float = CARD_W) -> str:
    """One card face as a standalone SVG, ``width`` pixels wide."""
    c = Card.parse(card)
    height = width * CARD_H / CARD_W
    body = f'<g transform="scale({width / CARD_W:g})">{_card(c, 0, 0)}</g>'
    svg = _svg(CARD_W, CARD_H, body, "cb-card-svg", c.symbol())
    return svg.replace(
        f'width="{CARD_W}" height="{CARD_H}" viewBox',
        f'width="{width:g}" height="{height:g}" viewBox',
        1,
    ).replace(f'<g transform="scale({width / CARD_W:g})">', "<g>", 1)


# --- rows of cards ------------------------------------------------------------------------------


def _display_cards(hand: Hand) -> list[Card]:
    """The hand's cards in display order: suits alternating colours, high card first."""
    return sorted(hand, key=lambda c: (DISPLAY_ORDER.index(c.suit), -c.rank))


RAISE = 12  # a highlighted card sits this much higher than the others
SUIT_GAP = 5  # extra space between suits in a row


def _row_width(cards: Sequence[Card], step: float) -> float:
    if not cards:
        return CARD_W
    gaps = sum(1 for a, b in pairwise(cards) if a.suit != b.suit)
    return (len(cards) - 1) * step + gaps * SUIT_GAP + CARD_W


def _badge(
    x: float, y: float, width: float, value: object, good: bool, played: bool = False
) -> str:
    """A card's value over it: white, green when the value is the best, framed in blue on the
    card a line plays (its own outline may be hidden under the next card of the row)."""
    fill, color = (BEST, "#fff") if good else ("#fff", "#111")
    edge = f'stroke="{PLAYED}" stroke-width="2.5"' if played else 'stroke="#333" stroke-width="0.6"'
    return (
        f'<g class="value" data-value="{escape(str(value))}">'
        f'<rect x="{x:g}" y="{y:g}" width="{width:g}" height="15" rx="4" fill="{fill}" {edge}/>'
        + _text(
            x + width / 2,
            y + 11.5,
            str(value),
            12,
            text_anchor="middle",
            font_weight="700",
            fill=color,
        )
        + "</g>"
    )


def _row(
    cards: Sequence[Card],
    x: float,
    y: float,
    step: float,
    highlight: Mapping[Card, object] | None,
    played: Card | None,
    best: object,
) -> str:
    """A row of overlapping cards, the first at (x, y). With ``highlight`` the cards in it are
    raised and outlined (value badges when the value is not None) and the others dimmed."""
    out = []
    cx = x
    for i, card in enumerate(cards):
        if i and cards[i - 1].suit != card.suit:
            cx += SUIT_GAP
        lit = highlight is not None and card in highlight
        value = highlight.get(card) if highlight is not None else None
        top = y - RAISE if lit else y
        badge = ""
        if lit and value is not None:
            good = best is not None and value == best
            w = min(step - 2, CARD_W) if i < len(cards) - 1 else CARD_W / 2
            badge = _badge(0, -17, max(w, 18), value, good, card == played)
        ring = (PLAYED if card == played else LEGAL) if lit else None
        out.append(_card(card, cx, top, ring, dim=highlight is not None and not lit, extra=badge))
        cx += step
    return "".join(out)


def hand_svg(
    hand: Hand | str,
    highlight: Mapping[CardLike, object] | Iterable[CardLike] | None = None,
    step: float = 26,
) -> str:
    """A hand as a row of overlapping card faces (spades, hearts, clubs, diamonds). ``highlight``
    raises and outlines some cards: a mapping card -> value adds a value badge over each."""
    h = Hand.parse(hand) if isinstance(hand, str) else hand
    cards = _display_cards(h)
    lit = _highlight(highlight, [h])
    top = 17 + RAISE if lit else 2
    width = _row_width(cards, step) + 4
    body = _row(cards, 2, top, step, lit, None, None)
    return _svg(width, top + CARD_H + 2, body, "cb-hand-svg", h.symbols())


def _highlight(
    highlight: Mapping[CardLike, object] | Iterable[CardLike] | None, hands: Sequence[Hand]
) -> dict[Card, object] | None:
    """``highlight`` as {card: value or None}; every card must be in one of ``hands``."""
    if highlight is None:
        return None
    if isinstance(highlight, Mapping):
        lit = {Card.parse(c): v for c, v in highlight.items()}
    else:
        lit = {Card.parse(c): None for c in highlight}
    held = 0
    for h in hands:
        held |= h.mask
    for c in lit:
        if not held >> c & 1:
            raise CardError(f"cannot highlight {c}: no hand shown holds it")
    return lit


# --- the table ---------------------------------------------------------------------------------

SIDE_STEP = 20  # overlap of the left and right hands
MAIN_STEP = 26  # overlap of the top and bottom hands
FELT_W, FELT_H = 870.0, 470.0
CX, CY = FELT_W / 2, 246.0  # centre of the trick
NORTH_Y = 58.0  # top edge of the top hand's cards (its label and value badges above)
SOUTH_Y = 366.0  # top edge of the bottom hand's cards (its label below)
PANEL_W = 250.0
_SIDES = {"clockwise": ("s", "w", "n", "e"), "anticlockwise": ("s", "e", "n", "w")}
_TRICK_OFFSET = {"s": (0, 50), "n": (0, -50), "w": (-70, 0), "e": (70, 0)}


def _sides(bottom: int, direction: str) -> dict[int, str]:
    """Side of the table ('s', 'w', 'n', 'e') of each seat, ``bottom`` at the bottom and the
    others following the direction of play (the next player sits to the bottom seat's left when
    play goes clockwise)."""
    order = _SIDES["anticlockwise" if direction == "anticlockwise" else "clockwise"]
    return {seat: order[(seat - bottom) % 4] for seat in range(4)}


def seat_name(seat: int, names: Sequence[str] | None = None) -> str:
    """The seat's name in ``names`` (one per seat), or "seat 0".. without them."""
    return names[seat] if names else f"seat {seat}"


def _seat(  # noqa: PLR0913  (one seat's drawing state, as table_svg's loop has it)
    seat: int,
    side: str,
    hand: Hand,
    label: str,
    turn: bool,
    lit: dict[Card, object] | None,
    played: Card | None,
    best: object,
    hidden: bool = False,
    turn_text: str = "to play",
) -> str:
    """One seat: its label (on a yellow band when it is to play) and its cards in a row (face
    down when ``hidden``)."""
    cards = _display_cards(hand)
    step = MAIN_STEP if side in "sn" else SIDE_STEP
    if hidden:
        width = (len(cards) - 1) * step + CARD_W if cards else float(CARD_W)
    else:
        width = _row_width(cards, step)
    if side == "n":
        x, y, ly = CX - width / 2, NORTH_Y, 20.0
    elif side == "s":
        x, y, ly = CX - width / 2, SOUTH_Y, FELT_H - 14
    else:
        x = 18.0 if side == "w" else FELT_W - 18 - width
        y = CY - CARD_H / 2
        ly = y - RAISE - 26
    label_x = min(x, FELT_W - 18 - 7.2 * len(label) - 80) if side == "e" else x
    seat_lit = None
    if lit is not None:
        seat_lit = {c: v for c, v in lit.items() if hand.mask >> c & 1} or None
    out = [f'<g class="seat" data-seat="{seat}" data-side="{side}" data-turn="{int(turn)}">']
    text = label + (f"  ▶ {turn_text}" if turn else "")
    if turn:  # an estimate of the text's width: 13 px bold sans-serif is about 7.6 px a character
        out.append(
            f'<rect x="{label_x - 7:g}" y="{ly - 14:g}" width="{14 + 7.6 * len(text):g}" '
            'height="20" rx="10" fill="#ffe27a"/>'
        )
    out.append(
        _text(
            label_x,
            ly,
            text,
            13,
            fill="#111" if turn else "#fff",
            font_weight="700" if turn else "400",
        )
    )
    if not cards:
        out.append(_text(x, y + CARD_H / 2, "(no cards left)", 12, fill="#d6e9dc"))
    if hidden:
        out.append(_backs(len(cards), x, y, step))
    else:
        out.append(_row(cards, x, y, step, seat_lit, played, best))
    out.append("</g>")
    return "".join(out)


def table_svg(  # noqa: PLR0913  (the public keyword API: what to mark, label and hide)
    position: Position,
    bottom_seat: int = 0,
    highlight: Mapping[CardLike, object] | Iterable[CardLike] | None = None,
    *,
    played: CardLike | None = None,
    best: object = None,
    calls: Sequence[int] | None = None,
    result: Sequence[int] | None = None,
    result_label: str = "end",
    names: Sequence[str] | None = None,
    notes: Sequence[str] = (),
    last_trick: bool = True,
    hidden: Iterable[int] = (),
    calling: int | None = None,
    turn_text: str = "to play",
) -> str:
    """The card table of ``position`` as SVG.

    ``bottom_seat`` sits at the bottom (the studied seat), the others around the table in the
    direction of play. ``highlight`` marks cards of the hands (raised, outlined in gold, the rest
    of that hand dimmed); a mapping ``{card: value}`` puts the value in a badge over each card,
    green when it equals ``best``; ``played`` outlines one of them in blue (the card a line
    plays). By default (``highlight=None``) the legal cards of the seat to move are marked,
    without values. The trick in progress lies in the middle, each card on its player's side
    and labelled; between tricks the last completed trick is shown faded with its winner
    (``last_trick=False``: nothing). At the side: each seat's call (``calls``), tricks won so
    far, ``result`` (final tricks, e.g. a line's end, in a column named ``result_label``) and
    the score of each call for the final tricks (``result``, or the tricks won once the deal is
    over), then ``notes`` (short lines of text). ``names`` replaces "seat 0".. in the labels.
    The hands of the seats in ``hidden`` are drawn face down (a table where a person plays
    against others); nothing of their cards is in the SVG. ``calling``: the seat whose call is
    due (the calls before trick 1): its label reads "▶ to call" and no card is raised.
    ``turn_text`` says what the seat to move does next in its label, the trick's slot and the
    status ("to play"; a replay of a finished deal: e.g. "next").
    """
    bottom = check_seat(bottom_seat, "bottom_seat")
    face_down = {check_seat(x, "hidden") for x in hidden}
    hands = position.hands
    over = position.is_over
    mover = position.to_move
    caller = None if calling is None else check_seat(calling, "calling")
    if highlight is None and caller is not None:
        lit: dict[Card, object] | None = None
    elif highlight is None and not over:
        lit = {c: None for c in position.legal_cards()}
    else:
        lit = _highlight(highlight, hands)
    played_card = Card.parse(played) if played is not None else None
    for what, seq in (("calls", calls), ("result", result), ("names", names)):
        if seq is not None and len(seq) != 4:
            raise CardError(f"{what} need one entry per seat (4), got {len(seq)}")
    sides = _sides(bottom, position.rules.direction)
    won = position.tricks_won
    parts = [
        f'<rect x="1" y="1" width="{FELT_W - 2:g}" height="{FELT_H - 2:g}" rx="22" '
        f'fill="{FELT}" stroke="{FELT_EDGE}" stroke-width="2"/>'
    ]
    for seat in range(4):
        call = f" · call {calls[seat]}" if calls else ""
        label = f"{seat_name(seat, names)}{call} · won {won[seat]}"
        turn = seat == caller if caller is not None else not over and seat == mover
        parts.append(
            _seat(
                seat,
                sides[seat],
                hands[seat],
                label,
                turn,
                lit,
                played_card,
                best,
                seat in face_down,
                turn_text if caller is None else "to call",
            )
        )
    parts.append(_trick(position, sides, last_trick, names, caller is not None, turn_text))
    parts.append(
        _panel(position, bottom, calls, result, result_label, names, notes, caller, turn_text)
    )
    if caller is not None:
        state = f"calling, {seat_name(caller, names)} to call"
    elif over:
        state = "deal over"
    else:
        state = f"trick {position.trick_index + 1}, {seat_name(mover, names)} {turn_text}"
    return _svg(
        FELT_W + 14 + PANEL_W,
        FELT_H,
        "".join(parts),
        "cb-table-svg",
        f"card table ({position.rules.name}): {state}",
    )


def _trick(
    position: Position,
    sides: dict[int, str],
    last: bool,
    names: Sequence[str] | None,
    calling: bool = False,
    turn_text: str = "to play",
) -> str:
    """The trick in the middle: each card at its player's side, labelled with the seat; the
    seat to play gets a dashed slot labelled with ``turn_text`` (none while ``calling``).
    Between tricks: the last trick, faded, with its winner."""
    cards = list(position.trick)
    leader = position.leader
    winner = None
    faded = False
    if not cards and last and position.tricks:
        t = position.tricks[-1]
        cards, leader, winner, faded = list(t.cards), t.leader, t.winner, True
    fade = ' opacity="0.82"' if faded else ""
    out = [f'<g class="trick" data-cards="{len(cards)}" data-last="{int(faded)}"{fade}>']
    for i, card in enumerate(cards):
        seat = (leader + i) % 4
        dx, dy = _TRICK_OFFSET[sides[seat]]
        x, y = CX + dx - CARD_W / 2, CY + dy - CARD_H / 2
        out.append(_card(card, x, y, LEGAL if seat == winner else None))
        note = (
            seat_name(seat, names) + (" led" if i == 0 else "") + (" won" if seat == winner else "")
        )
        out.append(_trick_label(sides[seat], x, y, note, seat))
    if not position.is_over and not faded and not calling:
        mover = position.to_move
        dx, dy = _TRICK_OFFSET[sides[mover]]
        x, y = CX + dx - CARD_W / 2, CY + dy - CARD_H / 2
        out.append(
            f'<rect class="slot" x="{x:g}" y="{y:g}" width="{CARD_W}" height="{CARD_H}" rx="5" '
            'fill="none" stroke="#ffe27a" stroke-width="2" stroke-dasharray="5 4"/>'
        )
        out.append(
            _trick_label(sides[mover], x, y, f"{seat_name(mover, names)} {turn_text}", mover)
        )
    if faded and winner is not None:
        out.append(
            _text(
                CX,
                CY - 100,
                f"last trick: {seat_name(winner, names)} won it",
                12.5,
                text_anchor="middle",
                fill="#fff",
                font_weight="700",
            )
        )
    out.append("</g>")
    return "".join(out)


def _trick_label(side: str, x: float, y: float, note: str, seat: int) -> str:
    """A seat label beside a trick card: left of the top card, right of the bottom one, under
    the side ones."""
    attrs = {"fill": "#fff", "class": "trick-seat", "data_seat": str(seat)}
    if side == "n":
        return _text(x - 8, y + 14, note, 12.5, text_anchor="end", **attrs)
    if side == "s":
        return _text(x + CARD_W + 8, y + CARD_H - 6, note, 12.5, **attrs)
    return _text(x + CARD_W / 2, y + CARD_H + 16, note, 12.5, text_anchor="middle", **attrs)


def _wrap(text: str, width: int = 36) -> list[str]:
    """``text`` in lines of at most ``width`` characters (SVG text does not wrap by itself)."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _panel(  # noqa: PLR0913  (what the panel lists and the status words)
    position: Position,
    bottom: int,
    calls: Sequence[int] | None,
    result: Sequence[int] | None,
    result_label: str,
    names: Sequence[str] | None,
    notes: Sequence[str],
    caller: int | None = None,
    turn_text: str = "to play",
) -> str:
    """Beside the felt: per seat its call, tricks won, final tricks and score, then the status
    (the calls phase when ``caller`` is to call) and the notes."""
    rules = position.rules
    over = position.is_over
    final = result if result is not None else (position.tricks_won if over else None)
    seats = [(names[s][:9] if names else f"seat {s}") for s in range(4)]
    cols: list[tuple[str, list[str], float]] = [
        ("", [f"{n} ●" if s == bottom else n for s, n in enumerate(seats)], 78.0),
        ("call", [str(c) for c in calls] if calls else ["–"] * 4, 38.0),
        ("won", [str(t) for t in position.tricks_won], 38.0),
    ]
    if final is not None:
        cols.append((result_label if result is not None else "end", [str(t) for t in final], 38.0))
        if calls:
            scores = [format_tenths(rules.score(c, t)) for c, t in zip(calls, final, strict=True)]
            cols.append(("score", scores, 44.0))
    out = [
        f'<g class="panel" transform="translate({FELT_W + 14:g} 0)">'
        f'<rect x="0.5" y="1" width="{PANEL_W - 1:g}" height="136" rx="8" fill="#fafafa" '
        'stroke="#cfcfcf"/>'
    ]
    x = 12.0
    for head, values, width in cols:
        out.append(_text(x, 24, head, 12, fill="#555", font_weight="700"))
        for seat, v in enumerate(values):
            out.append(
                f'<g class="cell" data-col="{escape(head or "seat")}" data-seat="{seat}">'
                + _text(
                    x,
                    50 + 22 * seat,
                    v,
                    14,
                    fill="#111",
                    font_weight="700" if seat == bottom else "400",
                )
                + "</g>"
            )
        x += width
    mover = seat_name(position.to_move, names)
    if caller is not None:
        status = f"calling · {seat_name(caller, names)} to call"
    elif over:
        status = "deal over"
    else:
        status = f"trick {position.trick_index + 1} of {N_TRICKS} · {mover} {turn_text}"
    lines = [f"rules {rules.name}", status, f"● {seats[bottom]}: the seat at the bottom"]
    if not calls and caller is None:
        lines.append("no calls given")
    lines.extend(notes)
    y = 160.0
    for line in lines:
        for part in _wrap(line):
            out.append(_text(6, y, part, 12.5, fill="#222"))
            y += 17
        y += 4
    out.append("</g>")
    return "".join(out)
