"""Why this call: each card's chance of taking a trick, the tricks of each suit, and where the
public counting rules are wrong for the hand.

:func:`explain_call` forecasts, for every card of a hand, how it ends in the self-interested
play-out (:mod:`callbreak_lab.bidding.cardchances`), adds the chances up by suit (spades split
into the tricks they take on spade leads, "top", and their ruffs of the side suits; a side suit
into its honours, A K Q, and its low cards) and sets beside them what a counting rule of
:mod:`callbreak_lab.bidding.baselines` counts for each card, naming the cards where the two
differ by a third of a trick or more.

The card model and the bid model are two estimates of the same play-out tricks. The chances
shown are the card model's, calibrated on held-out solved deals; the answer carries both sums
(``total``, ``advisor_expected``) and ``scaled``: the chances shifted by one step in log-odds so
that they add up to the bid model's expected tricks, the number behind the call
(``docs/why_call.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from callbreak_lab.bidding.baselines import BASELINES, baseline_counts
from callbreak_lab.bidding.features import mask_of
from callbreak_lab.cards import Card, Hand, check_seat
from callbreak_lab.errors import HandError, ModelError
from callbreak_lab.rules import Ruleset
from callbreak_lab.util.shown import Shown

__all__ = [
    "DEFAULT_BASELINE",
    "CallExplanation",
    "CardChance",
    "SuitTricks",
    "baseline_card_counts",
    "explain_call",
]

#: the counting rule the explanation compares with by default: the one the rules documents
#: teach ("high spades, aces in other suits, and a short suit you can trump later")
DEFAULT_BASELINE = "count_with_support"
#: a card is named as a disagreement when the rule's count and its chance differ this much
DISAGREE = 1 / 3
_SUIT_ORDER = (3, 2, 0, 1)  # spades, hearts, clubs, diamonds: the card table's order


@dataclass(frozen=True)
class CardChance:
    """One card: its chance of taking a trick (``chance``), of those by a ruff (``ruff``), the
    chance shifted to the bid model's sum (``scaled``), and the counting rule's count for it
    with the reason (``counted``, ``reason``: "" when it counts nothing)."""

    card: Card
    chance: float
    ruff: float
    scaled: float
    counted: float
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the card as text and the numbers rounded to 4 places."""
        return {
            "card": str(self.card),
            "chance": round(self.chance, 4),
            "ruff": round(self.ruff, 4),
            "scaled": round(self.scaled, 4),
            "counted": self.counted,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class SuitTricks:
    """One suit's expected tricks: ``high`` from its A K Q (spades: every trick on a spade
    lead, "top"), ``low`` from its lower cards (spades: 0), ``ruffs`` (spades only: tricks
    they take on other suits' leads), ``counted`` by the rule."""

    suit: int
    length: int
    expected: float
    high: float
    low: float
    ruffs: float
    counted: float

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self.suit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "suit": "cdhs"[self.suit],
            "symbol": self.symbol,
            "length": self.length,
            "expected": round(self.expected, 4),
            "high": round(self.high, 4),
            "low": round(self.low, 4),
            "ruffs": round(self.ruffs, 4),
            "counted": self.counted,
        }


@dataclass(frozen=True)
class CallExplanation(Shown):
    """Why this call, for one hand: every card's chance, every suit's tricks, the totals, the
    counting rule's view and where it is wrong for the hand."""

    hand: Hand
    seat: int
    rules: Ruleset
    earlier_calls: tuple[int, ...] | None
    call: int
    cards: tuple[CardChance, ...]
    suits: tuple[SuitTricks, ...]
    total: float
    advisor_expected: float
    baseline: str
    baseline_total: float
    baseline_calls: dict[str, float]
    disagreements: tuple[str, ...]

    @property
    def ruffs(self) -> float:
        """The spades' expected ruffs (tricks on other suits' leads)."""
        return sum(c.ruff for c in self.cards)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: every field, cards in the card table's order."""
        return {
            "hand": str(self.hand),
            "seat": self.seat,
            "rules": self.rules.name,
            "earlier_calls": None if self.earlier_calls is None else list(self.earlier_calls),
            "call": self.call,
            "total": round(self.total, 4),
            "advisor_expected": round(self.advisor_expected, 4),
            "cards": [c.to_dict() for c in self.cards],
            "suits": [s.to_dict() for s in self.suits],
            "baseline": self.baseline,
            "baseline_total": self.baseline_total,
            "baseline_counts": {k: round(v, 4) for k, v in self.baseline_calls.items()},
            "disagreements": list(self.disagreements),
        }

    def suit_line(self, s: SuitTricks) -> str:
        """One suit's tricks in words."""
        if s.length == 0:
            return f"{s.symbol} void"
        if s.suit == 3:
            parts = f"top {s.high:.2f}, ruffs {s.ruffs:.2f}"
        else:
            parts = f"A K Q {s.high:.2f}, lower cards {s.low:.2f}"
        return f"{s.symbol} {s.expected:.2f} ({parts}; the rule counts {s.counted:g})"

    def text(self) -> str:
        """The explanation as lines: the cards by suit with their chances, the suits, the
        totals, the rule's count and the disagreements."""
        lines = [
            f"why call {self.call}: the cards take {self.total:.2f} tricks in the play-out "
            f"(the call advisor expects {self.advisor_expected:.2f})"
        ]
        by_suit: dict[int, list[CardChance]] = {}
        for c in self.cards:
            by_suit.setdefault(c.card.suit, []).append(c)
        for s in self.suits:
            cells = ", ".join(
                f"{c.card.rank_char} {round(100 * c.chance):d}%" for c in by_suit.get(s.suit, [])
            )
            lines.append(f"  {self.suit_line(s)}" + (f": {cells}" if cells else ""))
        lines.append(
            f"{self.baseline} counts {self.baseline_total:g} "
            + "("
            + ", ".join(f"{k} {v:g}" for k, v in self.baseline_calls.items() if k != self.baseline)
            + ")"
        )
        lines.extend(f"  {d}" for d in self.disagreements)
        return "\n".join(lines)

    def _repr_svg_(self) -> str:
        from callbreak_lab.render.chances import chances_svg

        return chances_svg(self)

    def _repr_html_(self) -> str:
        from callbreak_lab.render.chances import chances_html

        return chances_html(self)


# ---------------------------------------------------------------------------------------------
# The counting rules, card by card
# ---------------------------------------------------------------------------------------------


def _spades_high_first(hand: Hand) -> list[Card]:
    return sorted((c for c in hand if c.suit == 3), key=lambda c: -c.rank)


def _honour_count(name: str, card: Card, held: int, length: int) -> tuple[float, str]:
    """What rule ``name`` counts for an honour (``held``: the suit's rank bits, ``length``
    its cards), with the reason; (0, "") for a card it does not count as an honour."""
    r = card.rank
    if name == "count_aces_kings" and r >= 11:
        return 1.0, "ace" if r == 12 else "king"
    if name == "count_with_support":
        if r == 12:
            return 1.0, "ace"
        if r == 11 and ((held >> 12) & 1 or length >= 3):
            return 1.0, "supported king"
    if name == "fractional_honours" and r >= 9:
        v = ((1.0, 0.75, 0.5, 0.25) if card.suit == 3 else (1.0, 0.5, 0.0, 0.0))[12 - r]
        if v:
            return v, f"{'spade ' if card.suit == 3 else ''}{card.rank_char} = {v:g}"
    return 0.0, ""


def baseline_card_counts(name: str, hand: Hand) -> dict[Card, tuple[float, str]]:
    """``{card: (count, reason)}``: what counting rule ``name`` counts for each card of
    ``hand`` (cards it counts nothing for are left out). The counts add up to
    ``baselines.baseline_counts(name, ...)`` of the hand (unrounded)."""
    if name not in BASELINES:
        raise ModelError(f"unknown baseline {name!r}; known: {', '.join(sorted(BASELINES))}")
    out: dict[Card, tuple[float, str]] = {}

    def add(card: Card, value: float, why: str) -> None:
        old, reason = out.get(card, (0.0, ""))
        out[card] = (old + value, f"{reason}, {why}" if reason else why)

    lens = hand.suit_counts()
    spades = _spades_high_first(hand)
    for card in hand:
        value, why = _honour_count(name, card, hand.suit_bits(card.suit), lens[card.suit])
        if value:
            add(card, value, why)
    if name in ("count_with_support", "fractional_honours"):
        for card in spades[3:]:  # spades beyond the third (never the ace or a king)
            add(card, 1.0, "spade beyond the third")
    if name == "count_with_support":
        shorts = [s for s in (2, 0, 1) if lens[s] <= 1]
        spare = [c for c in spades[:3] if c not in out]
        for s, card in zip(shorts, reversed(spare), strict=False):
            add(card, 1.0, f"ruff ({'♣♦♥♠'[s]} {'void' if lens[s] == 0 else 'singleton'})")
    return out


# ---------------------------------------------------------------------------------------------
# The explanation
# ---------------------------------------------------------------------------------------------


def _disagreements(cards: Sequence[CardChance]) -> tuple[str, ...]:
    """Cards whose count by the rule and chance differ by :data:`DISAGREE` or more, the
    largest difference first, in words."""
    rows = []
    for c in cards:
        diff = c.counted - c.chance
        if abs(diff) < DISAGREE:
            continue
        pct = f"{100 * c.chance:.0f}%"
        how = " (most of them ruffs)" if c.ruff > c.chance / 2 and c.chance > 0.05 else ""
        if c.counted > 0:
            what = "a trick" if c.counted == 1 else f"{c.counted:g} trick"
            text = (
                f"counts {c.card.symbol()} as {what} ({c.reason}); it takes one {pct} of "
                f"the time{how}"
            )
        else:
            text = f"counts nothing for {c.card.symbol()}; it takes a trick {pct} of the time{how}"
        rows.append((abs(diff), text))
    rows.sort(key=lambda t: -t[0])
    return tuple(t for _, t in rows)


def explain_call(
    hand: Hand | str | int,
    seat: int = 0,
    rules: str | Ruleset | None = None,
    *,
    earlier_calls: Sequence[int] | None = None,
    call: int | None = None,
    baseline: str = DEFAULT_BASELINE,
) -> CallExplanation:
    """Why the call advisor calls what it calls for ``hand`` in ``seat`` under ``rules``.

    ``earlier_calls``: the calls of seats ``0..seat-1`` (the card model and a call-conditioned
    bid model use them). ``call``: the call to explain (default: the advisor's, e.g. the
    match-aware call when a standing is given). ``baseline``: the counting rule to compare
    with (:data:`callbreak_lab.bidding.baselines.BASELINES`)."""
    from callbreak_lab.bidding.calls import check_earlier_calls
    from callbreak_lab.bidding.cardchances import card_features, load_card_model, shift_to
    from callbreak_lab.bidding.model import recommend_call

    ruleset = Ruleset.coerce(rules)
    parsed = (
        hand
        if isinstance(hand, Hand)
        else Hand(int(hand))
        if isinstance(hand, int)
        else Hand.parse(hand)
    )
    if len(parsed) != 13:
        raise HandError(f"a hand has 13 cards, got {len(parsed)} in {str(parsed)!r}")
    seat = check_seat(seat)
    if baseline not in BASELINES:
        raise ModelError(f"unknown baseline {baseline!r}; known: {', '.join(sorted(BASELINES))}")
    prev = None if earlier_calls is None else check_earlier_calls(earlier_calls, seat, ruleset)
    rec = recommend_call(parsed, seat, ruleset, earlier_calls=prev)
    advisor = float(rec.distribution @ np.arange(len(rec.distribution)))
    table = None
    if prev is not None:
        table = np.full((1, 4), -1, dtype=np.int64)
        table[0, : len(prev)] = prev
    cards, x = card_features(np.array([mask_of(parsed)], dtype=np.uint64), [seat], table, ruleset)
    proba = load_card_model().predict(x)
    chance = 1.0 - proba[:, 0]
    scaled = shift_to(chance, [advisor])[0]
    counts = baseline_card_counts(baseline, parsed)
    rows = [
        CardChance(
            Card(int(c)),
            float(chance[i]),
            float(proba[i, 2]),
            float(scaled[i]),
            counts.get(Card(int(c)), (0.0, ""))[0],
            counts.get(Card(int(c)), (0.0, ""))[1],
        )
        for i, c in enumerate(cards[0])
    ]
    rows.sort(key=lambda r: (_SUIT_ORDER.index(r.card.suit), -r.card.rank))
    suits = []
    for s in _SUIT_ORDER:
        mine = [r for r in rows if r.card.suit == s]
        ruffs = sum(r.ruff for r in mine)
        high = sum(r.chance - r.ruff for r in mine if s == 3 or r.card.rank >= 10)
        low = sum(r.chance for r in mine if s != 3 and r.card.rank < 10)
        suits.append(
            SuitTricks(
                s,
                len(mine),
                sum(r.chance for r in mine),
                high,
                low,
                ruffs,
                sum(r.counted for r in mine),
            )
        )
    mask = np.array([mask_of(parsed)], dtype=np.uint64)
    totals = {k: float(baseline_counts(k, mask)[0]) for k in BASELINES}
    return CallExplanation(
        hand=parsed,
        seat=seat,
        rules=ruleset,
        earlier_calls=prev,
        call=rec.call if call is None else int(call),
        cards=tuple(rows),
        suits=tuple(suits),
        total=float(chance.sum()),
        advisor_expected=advisor,
        baseline=baseline,
        baseline_total=totals[baseline],
        baseline_calls=totals,
        disagreements=_disagreements(rows),
    )
