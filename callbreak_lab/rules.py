"""Rulesets (the five presets of docs/rules.md and their variations), legal cards, tricks, scoring.

The legal-card logic works on masks (no loops over cards) because it runs in hot paths; the
``..._with_reasons`` variant adds the human explanation used by annotations and error messages.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from callbreak_lab.cards import (
    SPADE_MASK,
    SUIT_MASKS,
    Card,
    CardLike,
    Hand,
    HandLike,
    Suit,
)
from callbreak_lab.errors import (
    CallError,
    HandError,
    IllegalPlayError,
    NotationError,
    RulesError,
    StandingError,
)

__all__ = [
    "DEFAULT_RULES",
    "PRESETS",
    "Legal",
    "Reason",
    "RulesError",
    "Ruleset",
    "format_tenths",
    "legal_cards",
    "legal_cards_with_reasons",
    "legal_mask",
    "score",
    "tenths_of_points",
    "totals_of_points",
    "trick_winner",
]

#: the preset every public function plays by when given no rules (and no position that carries
#: its own): ``online``, the rules of the Bhoos app, its bot protocol and the arena, the
#: Call Break most people play
DEFAULT_RULES = "online"

Direction = Literal["clockwise", "anticlockwise"]
VoidRule = Literal["strict", "win_only"]
Scoring = Literal["tenths", "exact_or_one", "exact_or_one_bonus", "flat"]
_DIRECTIONS = ("clockwise", "anticlockwise")
_VOID_RULES = ("strict", "win_only")
_SCORINGS = ("tenths", "exact_or_one", "exact_or_one_bonus", "flat")


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _plain(x: Any) -> Any:
    """A numpy int (an array element) as an int; anything else unchanged (checked later)."""
    return int(x) if isinstance(x, np.integer) else x


@dataclass(frozen=True)
class Ruleset:
    """One Call Break ruleset: the switches of the docs/rules.md presets table.

    ``target_score`` is in tenths. Variation names: ``replace`` derives a name like
    ``pagat+must_beat`` or ``modern+exact_or_one+min_call=2`` from the preset it starts from, and
    ``Ruleset.preset`` parses such names back (see ``Ruleset.preset``).
    """

    name: str
    direction: Direction
    min_call: int
    max_call: int
    must_beat: bool
    void_rule: VoidRule
    first_trick_spade_ban: bool
    scoring: Scoring
    match_deals: int | None = 5
    target_score: int | None = None
    _flags: tuple[int, int, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # numpy scalars (array elements, e.g. from a sweep) become plain ints and bools
        for key in ("min_call", "max_call", "match_deals", "target_score"):
            object.__setattr__(self, key, _plain(getattr(self, key)))
        for key in ("must_beat", "first_trick_spade_ban"):
            if isinstance(getattr(self, key), np.bool_):
                object.__setattr__(self, key, bool(getattr(self, key)))
        problems = self._problems()
        if problems:
            raise RulesError("invalid ruleset: " + "; ".join(problems))
        object.__setattr__(
            self,
            "_flags",
            (
                int(self.must_beat),
                int(self.void_rule == "win_only"),
                int(self.first_trick_spade_ban),
            ),
        )

    def _problems(self) -> list[str]:  # noqa: C901  (one flat check per field, in field order)
        """What is wrong with the fields, one message each (empty: a valid ruleset)."""
        problems = []
        if not isinstance(self.name, str) or not self.name:
            problems.append(f"name must be a non-empty string, got {self.name!r}")
        if self.direction not in _DIRECTIONS:
            problems.append(f"direction must be clockwise or anticlockwise, got {self.direction!r}")
        for key in ("min_call", "max_call"):
            v = getattr(self, key)
            if not _is_int(v) or not 1 <= v <= 13:
                problems.append(f"{key} must be an int 1..13, got {v!r}")
        if not problems and self.min_call > self.max_call:
            problems.append(f"min_call {self.min_call} is above max_call {self.max_call}")
        for key in ("must_beat", "first_trick_spade_ban"):
            if not isinstance(getattr(self, key), bool):
                problems.append(f"{key} must be true or false, got {getattr(self, key)!r}")
        if self.void_rule not in _VOID_RULES:
            problems.append(f"void_rule must be 'strict' or 'win_only', got {self.void_rule!r}")
        if self.scoring not in _SCORINGS:
            problems.append(f"scoring must be one of {', '.join(_SCORINGS)}, got {self.scoring!r}")
        if self.match_deals is not None and (not _is_int(self.match_deals) or self.match_deals < 1):
            problems.append(f"match_deals must be a positive int or None, got {self.match_deals!r}")
        if self.target_score is not None and (
            not _is_int(self.target_score) or self.target_score < 1
        ):
            problems.append(
                f"target_score must be a positive int (tenths) or None, got {self.target_score!r}"
            )
        if self.match_deals is None and self.target_score is None:
            problems.append("a match needs match_deals or target_score (or both)")
        return problems

    # --- presets, variations, serialisation -----------------------------------------------------
    @classmethod
    def coerce(cls, rules: Ruleset | str | None, default: Ruleset | str | None = None) -> Ruleset:
        """``rules`` as a Ruleset: a Ruleset as it is, a preset name (with variations) through
        ``preset``. None stands for ``default`` where the caller has one (a position's own
        rules), else for ``DEFAULT_RULES``; anything else is a RulesError. The library's one
        way to accept rules."""
        if rules is None:
            rules = DEFAULT_RULES if default is None else default
        if isinstance(rules, Ruleset):
            return rules
        if isinstance(rules, str):
            return cls.preset(rules)
        raise RulesError(f"rules must be a Ruleset or a preset name, got {rules!r}")

    @classmethod
    def preset(cls, name: str) -> Ruleset:
        """A preset by name, optionally with variations: ``pagat+must_beat``,
        ``modern+exact_or_one``, ``home+min_call=1``, ``pagat+flat+target_score=300``.

        A variation is a boolean switch (``must_beat``, ``no_must_beat``,
        ``first_trick_spade_ban``...), a scoring name, a void rule name, or ``field=value``.
        """
        if isinstance(name, Ruleset):
            return name
        if not isinstance(name, str):
            raise RulesError(f"a ruleset name is a string, got {name!r}")
        base, *tags = [p.strip() for p in name.strip().lower().split("+")]
        if base not in PRESETS:
            raise RulesError(f"unknown ruleset {base!r} (presets: {', '.join(PRESETS)})")
        rules = PRESETS[base]
        if tags:
            changes: dict[str, object] = {}
            for tag in tags:
                key, value = _parse_tag(tag)
                if key in changes and changes[key] != value:
                    raise RulesError(
                        f"variations {_tag(key, changes[key])!r} and {tag!r} of {name!r} "
                        f"both set {key}: keep one"
                    )
                changes[key] = value
            rules = rules.replace(**changes)
        return rules

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some switches changed. Unless ``name`` is given, the name becomes the
        base preset plus one ``+tag`` per field that differs from it, e.g. ``pagat+must_beat``."""
        known = {f.name for f in dataclasses.fields(self) if f.init}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise RulesError(f"unknown ruleset field(s): {', '.join(unknown)}")
        if "name" in changes:
            return dataclasses.replace(self, **changes)
        new = dataclasses.replace(self, **changes)
        base_name = self.name.split("+")[0]
        base = PRESETS.get(base_name)
        if base is None:  # a custom ruleset: tag the changes relative to itself
            base_name, base = self.name, self
        tags = [
            _tag(f.name, getattr(new, f.name))
            for f in dataclasses.fields(new)
            if f.init and f.name != "name" and getattr(new, f.name) != getattr(base, f.name)
        ]
        name = "+".join([base_name, *tags])
        return dataclasses.replace(new, name=name)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict of all fields."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """Inverse of ``to_dict``. Missing fields come from the preset named by ``name`` (which may
        carry variations; no name: ``DEFAULT_RULES``); unknown keys are rejected."""
        if not isinstance(data, Mapping):
            raise RulesError(f"a ruleset dict is a mapping, got {type(data).__name__}")
        known = [f.name for f in dataclasses.fields(cls) if f.init]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise RulesError(
                f"unknown ruleset key(s): {', '.join(map(repr, unknown))} "
                f"(known: {', '.join(known)})"
            )
        if set(data) == set(known):
            return cls(**data)
        name = data.get("name", DEFAULT_RULES)
        try:
            base = cls.preset(name)
        except RulesError as e:
            missing = ", ".join(k for k in known if k not in data)
            msg = f"{e}; give a preset name or all fields (missing: {missing})"
            raise RulesError(msg) from None
        changes = {k: v for k, v in data.items() if k != "name"}
        return base.replace(**changes) if changes else base

    def kernel_flags(self) -> tuple[int, int, int]:
        """``(must_beat 0/1, void_rule 0 strict / 1 win_only, first_trick_spade_ban 0/1)``."""
        return self._flags

    # --- questions --------------------------------------------------------------------------------
    def legal_mask(self, hand: int, trick: Sequence[int], first_trick: bool = False) -> int:
        """Fast path: legal cards as a mask, for a hand mask and trick cards. No input checks."""
        must_beat, win_only, ban = self._flags
        return legal_mask(hand, trick, first_trick, must_beat, win_only, ban)

    def legal_cards(
        self, hand: HandLike, trick: Iterable[CardLike] | str = (), first_trick: bool = False
    ) -> Hand:
        """The cards of ``hand`` that may be played to ``trick`` (its cards in play order)."""
        h, t = _check_inputs(hand, trick)
        return Hand(self.legal_mask(h.mask, t, first_trick))

    def legal_cards_with_reasons(
        self, hand: HandLike, trick: Iterable[CardLike] | str = (), first_trick: bool = False
    ) -> Legal:
        """Legal cards plus why: a reason code, a sentence, and why each other card is excluded."""
        h, t = _check_inputs(hand, trick)
        return _explain(self, h, t, first_trick)

    def score(self, call: int, tricks: int) -> int:
        """Score of one deal in tenths under this ruleset's scoring."""
        return score(call, tricks, self)

    def check_call(self, call: int) -> None:
        """Raise CallError unless ``call`` is in this ruleset's range."""
        call = _plain(call)
        if not _is_int(call):
            raise CallError(f"a call is a whole number of tricks (an int), got {call!r}")
        if not self.min_call <= call <= self.max_call:
            raise CallError(
                f"call {call!r} is outside {self.name}'s range {self.min_call}..{self.max_call}"
            )

    def match_length(self) -> int:
        """The number of deals in a match; a ``RulesError`` for a match played to a target score
        (its length is not fixed, so a standing is not its totals and a count of deals)."""
        if self.target_score is not None or self.match_deals is None:
            target = self.target_score
            of = "" if target is None else f" of {format_tenths(target)} points"
            raise RulesError(
                f"a match of a fixed number of deals is needed: {self.name} plays to a target "
                f"score{of}"
            )
        return self.match_deals


def _tag(key: str, value: object) -> str:
    if isinstance(value, bool):
        return key if value else f"no_{key}"
    if key == "scoring" or key == "void_rule":
        return str(value)
    if value is None:
        return f"{key}=none"
    return f"{key}={value}"


def _parse_tag(tag: str) -> tuple[str, object]:
    if tag in _SCORINGS:
        return "scoring", tag
    if tag in _VOID_RULES:
        return "void_rule", tag
    if tag in _DIRECTIONS:
        return "direction", tag
    if tag in ("must_beat", "first_trick_spade_ban"):
        return tag, True
    if tag in ("no_must_beat", "no_first_trick_spade_ban"):
        return tag[3:], False
    if "=" in tag:
        return _parse_setting(tag)
    raise _unknown_tag(tag)


def _parse_setting(tag: str) -> tuple[str, object]:
    """A ``key=value`` variation (``min_call=2``, ``target_score=none``, ``must_beat=yes``)."""
    key, value = (p.strip() for p in tag.split("=", 1))
    if key in ("min_call", "max_call", "match_deals", "target_score"):
        if value == "none":
            return key, None
        try:
            return key, int(value)
        except ValueError:
            raise RulesError(f"{key} needs an int, got {value!r}") from None
    if key in ("direction", "void_rule", "scoring"):
        return key, value
    if key in ("must_beat", "first_trick_spade_ban"):
        if value not in ("true", "false", "1", "0", "yes", "no"):
            raise RulesError(f"{key} needs true or false, got {value!r}")
        return key, value in ("true", "1", "yes")
    raise _unknown_tag(tag)


def _unknown_tag(tag: str) -> RulesError:
    return RulesError(
        f"unknown rules variation {tag!r} (e.g. must_beat, no_must_beat, first_trick_spade_ban, "
        "exact_or_one, flat, win_only, strict, min_call=2, target_score=300)"
    )


def _preset(name: str, direction: Direction, min_call: int, must_beat: bool, void_rule: VoidRule,
            ban: bool, scoring: Scoring) -> Ruleset:  # fmt: skip
    return Ruleset(name, direction, min_call, 13, must_beat, void_rule, ban, scoring, 5, None)


PRESETS: Mapping[str, Ruleset] = MappingProxyType(
    {
        "modern": _preset("modern", "clockwise", 1, True, "strict", False, "tenths"),
        "strict": _preset("strict", "anticlockwise", 2, True, "strict", True, "tenths"),
        "online": _preset("online", "anticlockwise", 1, True, "win_only", False, "tenths"),
        "home": _preset("home", "anticlockwise", 2, False, "win_only", False, "exact_or_one_bonus"),
        "pagat": _preset("pagat", "anticlockwise", 1, False, "win_only", False, "tenths"),
    }
)


# --- legal cards ---------------------------------------------------------------------------------


def legal_mask(  # noqa: C901, PLR0911  (the rule case by case, one return each: the hot path of every legal-card query)
    hand: int, trick: Sequence[int], first_trick: bool, must_beat: int, win_only: int, ban: int
) -> int:
    """The legal-card rule of docs/rules.md on masks: the legal cards of the hand mask ``hand`` for
    the ``trick`` cards so far, with the switches as ints (``Ruleset.kernel_flags``). The hot
    path of ``Ruleset.legal_mask`` and ``Position``; no input checks."""
    if not trick:
        if ban and first_trick:
            side = hand & ~SPADE_MASK
            if side:
                return side
        return hand
    led = trick[0] // 13
    follow = hand & SUIT_MASKS[led]
    top_spade = -1
    top_led = -1
    for c in trick:
        if c >= 39:
            if c > top_spade:
                top_spade = c
        elif c // 13 == led and c > top_led:
            top_led = c
    if follow:
        if must_beat:
            top = top_spade if led == 3 else (top_led if top_spade < 0 else 99)
            if top != 99:
                higher = follow & ~((2 << top) - 1)
                if higher:
                    return higher
        return follow
    spades = hand & SPADE_MASK
    if not spades:
        return hand
    if top_spade < 0:
        return spades
    over = spades & ~((2 << top_spade) - 1)
    if over:
        return over
    return hand if win_only else spades


class Reason(StrEnum):
    """Why the legal set is what it is (the decisive rule)."""

    FREE_CHOICE = "free_choice"
    FIRST_TRICK_SPADE_BAN = "first_trick_spade_ban"
    FOLLOW_SUIT = "follow_suit"
    MUST_BEAT = "must_beat"
    MUST_TRUMP = "must_trump"
    MUST_OVERTRUMP = "must_overtrump"
    LOSING_SPADE = "losing_spade"


@dataclass(frozen=True)
class Legal:
    """Result of ``legal_cards_with_reasons``: the legal hand, the reason code and sentence, and
    for each excluded card of the hand why it may not be played."""

    legal: Hand
    reason: Reason
    text: str
    excluded: Mapping[Card, str]

    def why(self, card: CardLike) -> str:
        """Why ``card`` is excluded, or the general reason when it is legal."""
        c = Card.parse(card)
        if c in self.legal:
            return self.text
        if c not in self.excluded:
            raise HandError(f"{c} is not in the hand")
        return self.excluded[c]


def _check_inputs(hand: HandLike, trick: Iterable[CardLike] | str) -> tuple[Hand, list[Card]]:
    h = Hand.parse(hand)
    t = _trick_cards(trick)
    if not h:
        raise HandError("the hand is empty")
    if len(h) > 13:
        raise HandError(f"a hand holds at most 13 cards, got {len(h)}")
    if len(t) > 3:
        raise NotationError(f"a trick in progress has 0..3 cards, got {len(t)}")
    if len(set(t)) != len(t):
        raise NotationError(f"a card appears twice in the trick: {' '.join(map(str, t))}")
    both = [c for c in t if c in h]
    if both:
        raise NotationError(f"card {both[0]} is both in the hand and in the trick")
    return h, t


def _cards_in_order(text: str) -> list[Card]:
    return [Card.parse(tok) for tok in text.replace(",", " ").split()]


def _trick_cards(trick: Iterable[CardLike] | str) -> list[Card]:
    """The cards of a trick given as text (``"AH 6H"``) or as a sequence of cards."""
    if isinstance(trick, str):
        if "|" in trick:
            raise NotationError(
                f"a trick is its cards in play order, without '|' (which separates "
                f"the tricks of a play record), got {trick!r}"
            )
        return _cards_in_order(trick)
    if not isinstance(trick, Iterable):
        raise NotationError(f"a trick is card text or a list of cards, got {trick!r}")
    return [Card.parse(c) for c in trick]


def _explain(rules: Ruleset, hand: Hand, trick: list[Card], first_trick: bool) -> Legal:
    legal = Hand(rules.legal_mask(hand.mask, trick, first_trick))
    if not trick:
        if legal != hand:
            text = "first trick: no spade lead while holding another suit"
            return Legal(legal, Reason.FIRST_TRICK_SPADE_BAN, text, {c: text for c in hand - legal})
        return Legal(legal, Reason.FREE_CHOICE, "leading: any card", {})
    led = trick[0].suit
    spades_in = [c for c in trick if c.suit == Suit.SPADES]
    top_spade = max(spades_in) if spades_in else None
    if hand.suit_count(led):
        return _explain_following(rules, hand, legal, trick, top_spade)
    return _explain_void(rules, hand, legal, led, top_spade)


def _explain_following(
    rules: Ruleset, hand: Hand, legal: Hand, trick: list[Card], top_spade: Card | None
) -> Legal:
    """``_explain`` for a hand holding the suit led."""
    led = trick[0].suit
    trumped = led != Suit.SPADES and top_spade is not None
    top = max(c for c in trick if c.suit == led)
    follow = f"must follow {led.plural}"
    if legal.suit_count(led) < hand.suit_count(led):
        reason, text = Reason.MUST_BEAT, f"must beat the {top.symbol()}"
        excluded = {c: text if c.suit == led else follow for c in hand - legal}
        return Legal(legal, reason, text, excluded)
    if rules.must_beat and trumped:
        text = f"{follow} (the trick is trumped: any of them)"
    elif rules.must_beat and hand.suit(led).lowest() > top:
        text = f"{follow} (every one beats the {top.symbol()})"
    elif rules.must_beat:
        text = f"{follow} (cannot beat the {top.symbol()})"
    else:
        text = follow
    return Legal(legal, Reason.FOLLOW_SUIT, text, {c: follow for c in hand - legal})


def _explain_void(
    rules: Ruleset, hand: Hand, legal: Hand, led: Suit, top_spade: Card | None
) -> Legal:
    """``_explain`` for a hand void in the suit led."""
    void = f"void in {led.plural}"
    spades = hand.suit(Suit.SPADES)
    if not spades:
        tail = ": any card" if led == Suit.SPADES else " with no spade: any card"
        return Legal(legal, Reason.FREE_CHOICE, void + tail, {})
    if top_spade is None:
        text = f"{void}: must trump"
        return Legal(legal, Reason.MUST_TRUMP, text, {c: text for c in hand - legal})
    beat = top_spade.symbol()
    if spades.highest() > top_spade:
        text = f"{void}: must overtrump the {beat}"
        excluded = {
            c: f"does not beat the {beat}" if c.suit == Suit.SPADES else text for c in hand - legal
        }
        return Legal(legal, Reason.MUST_OVERTRUMP, text, excluded)
    if rules.void_rule == "win_only":
        text = f"{void}, cannot overtrump the {beat}: any card"
        return Legal(legal, Reason.FREE_CHOICE, text, {})
    text = f"cannot overtrump the {beat}: must still play a spade"
    return Legal(legal, Reason.LOSING_SPADE, text, {c: text for c in hand - legal})


def legal_cards(
    hand: HandLike,
    trick: Iterable[CardLike] | str,
    rules: Ruleset | str,
    first_trick: bool = False,
) -> Hand:
    """Module-level form of ``Ruleset.legal_cards`` (``rules`` may be a preset name)."""
    return Ruleset.coerce(rules).legal_cards(hand, trick, first_trick)


def legal_cards_with_reasons(
    hand: HandLike,
    trick: Iterable[CardLike] | str,
    rules: Ruleset | str,
    first_trick: bool = False,
) -> Legal:
    """Module-level form of ``Ruleset.legal_cards_with_reasons`` (``rules`` may be a name)."""
    return Ruleset.coerce(rules).legal_cards_with_reasons(hand, trick, first_trick)


def trick_winner(trick: Sequence[CardLike] | str) -> int:
    """Index in ``trick`` of the winning card: highest spade, else highest of the led suit."""
    cards = _trick_cards(trick)
    if not cards:
        raise NotationError("an empty trick has no winner")
    if len(cards) > 4 or len(set(cards)) != len(cards):
        raise NotationError(f"a trick has 1..4 distinct cards, got {' '.join(map(str, cards))}")
    led = cards[0] // 13
    best = 0
    for i, c in enumerate(cards):
        b = cards[best]
        if (c >= 39 and c > b) or (b < 39 and c // 13 == led and c > b):
            best = i
    return best


# --- scoring -------------------------------------------------------------------------------------


def score(call: int, tricks: int, rules: Ruleset | str) -> int:
    """Score of one deal in integer tenths: 32 means 3.2 (see the docs/rules.md scoring table)."""
    r = Ruleset.coerce(rules)
    call, tricks = _plain(call), _plain(tricks)
    r.check_call(call)
    if not _is_int(tricks) or not 0 <= tricks <= 13:
        raise IllegalPlayError(f"tricks must be 0..13, got {tricks!r}")
    if r.scoring == "tenths":
        return 10 * call + (tricks - call) if tricks >= call else -10 * call
    if r.scoring == "flat":
        return 10 * call if tricks >= call else -10 * call
    made = call <= tricks <= call + 1
    if r.scoring == "exact_or_one":
        return 10 * call if made else -10 * call
    # exact_or_one_bonus
    if not made:
        return -10 * call
    return 10 * call if call <= 7 else 130


def format_tenths(n: int) -> str:
    """Tenths as text: 32 -> "3.2", -40 -> "-4", -5 -> "-0.5"."""
    n = _plain(n)
    if not _is_int(n):
        raise NotationError(f"format_tenths needs an int, got {n!r}")
    whole, tenth = divmod(abs(n), 10)
    sign = "-" if n < 0 else ""
    return f"{sign}{whole}.{tenth}" if tenth else f"{sign}{whole}"


def tenths_of_points(value: object, what: str = "a total") -> int:
    """A total given in points (a number or its text, at most one decimal: ``3.1``, ``-4``) as
    tenths, the inverse of :func:`format_tenths`. Float noise below a millionth of a point is
    forgiven (``4.199999999999999`` is 4.2, as some servers send it); anything else is a
    ``StandingError``."""
    if isinstance(value, bool | np.bool_):
        raise StandingError(f"{what} must be a number of points, got {value!r}")
    if isinstance(value, int | np.integer):
        return 10 * int(value)
    if isinstance(value, float | np.floating):
        x = float(value)
        if not math.isfinite(x):
            raise StandingError(f"{what} must be a finite number of points, got {value!r}")
        tenths = round(x * 10)
        if abs(x * 10 - tenths) > 1e-5:
            raise StandingError(
                f"{what} must be a whole number of tenths of a point (scores move by 0.1), "
                f"got {value!r}"
            )
        return int(tenths)
    if isinstance(value, str):
        try:
            d = Decimal(value.strip())
        except InvalidOperation:
            raise StandingError(f"{what} must be a number of points, got {value!r}") from None
        if not d.is_finite():
            raise StandingError(f"{what} must be a finite number of points, got {value!r}")
        tenths_d = d * 10
        if tenths_d != tenths_d.to_integral_value():
            raise StandingError(
                f"{what} must have at most one decimal (scores move by 0.1), got {value!r}"
            )
        return int(tenths_d)
    raise StandingError(f"{what} must be a number of points, got {value!r}")


def totals_of_points(values: object, what: str = "totals") -> tuple[int, int, int, int]:
    """Four totals given in points as tenths: a text (``"0,0,31,-12"``, ``"3.1 -4 0 0"``) or
    a sequence of numbers or texts, each as :func:`tenths_of_points` reads it; a
    ``StandingError`` naming the seat otherwise."""
    if isinstance(values, str):
        if re.search(r",\s*,", values):
            raise StandingError(f"{what} has an empty value between two commas: {values!r}")
        parts: list[object] = [p for p in re.split(r"[,\s]+", values.strip()) if p]
    elif isinstance(values, Sequence | np.ndarray) and not isinstance(values, bytes):
        parts = list(values)
    else:
        raise StandingError(f"{what} must be four numbers of points, got {values!r}")
    if len(parts) != 4:
        raise StandingError(f"{what} must be four totals, one a seat, got {len(parts)}")
    t = [tenths_of_points(v, f"{what}: seat {seat}'s total") for seat, v in enumerate(parts)]
    return (t[0], t[1], t[2], t[3])
