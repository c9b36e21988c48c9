"""Cards, hands and deals: small int-based types with notation both ways.

A card is an int ``suit * 13 + rank`` (clubs 0, diamonds 1, hearts 2, spades 3; rank 0 is the
deuce, 12 the ace). A hand is a 52-bit mask. A deal is four hands in seat order 0..3. Every type
prints to a canonical text (``AS``, ``AKQ2.T98.765.432``) and parses every notation documented in
``docs/architecture.md``; ``repr()`` pastes back as code. Rendering lives in
``callbreak_lab.render``. The three types share their parsers and the encoding constants, so
they stay in one module (python-chess keeps its core types together the same way), a little
over the project's usual size.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from enum import IntEnum
from typing import Self, TypeAlias, TypeGuard

import numpy as np

from callbreak_lab.errors import (
    CardError,
    DealError,
    HandError,
    NotationError,
    SeatError,
    check_int,
)

__all__ = [
    "ALL_CARDS",
    "FULL_MASK",
    "N_TRICKS",
    "SUIT_MASKS",
    "Card",
    "CardError",
    "Deal",
    "DealError",
    "Hand",
    "HandError",
    "NotationError",
    "SeatError",
    "Suit",
    "as_rng",
    "check_seat",
    "is_seat",
    "letters",
    "lowest_card",
    "play_order_key",
]


def is_seat(x: object) -> TypeGuard[int | np.integer]:
    """Whether ``x`` is a seat number 0..3 (an int or numpy int; not a bool, which would pass
    as 0 or 1, and not -1, which indexing would take as seat 3)."""
    return not isinstance(x, bool) and isinstance(x, int | np.integer) and bool(0 <= x <= 3)


def check_seat(seat: object, what: str = "seat") -> int:
    """``seat`` as a plain int when it is a seat 0..3 (see ``is_seat``), else a ``SeatError``
    naming ``what`` (e.g. ``"leader"``, ``"a seat in known"``). The library's one seat check."""
    if not is_seat(seat):
        raise SeatError(f"{what} must be 0..3, got {seat!r}")
    return int(seat)


class Suit(IntEnum):
    """The four suits; the order is also the tie-break order clubs < diamonds < hearts < spades."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """Upper-case suit letter: ``C D H S``."""
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        """Suit symbol: ``♣ ♦ ♥ ♠``."""
        return "♣♦♥♠"[self]

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are drawn red."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def plural(self) -> str:
        """Lower-case English name: ``clubs`` etc. (used in messages)."""
        return self.name.lower()


RANK_CHARS = "23456789TJQKA"
SUIT_MASK13 = 0x1FFF
FULL_MASK = (1 << 52) - 1
SUIT_MASKS: tuple[int, int, int, int] = tuple(SUIT_MASK13 << (13 * s) for s in range(4))  # type: ignore[assignment]
SPADE_MASK = SUIT_MASKS[3]
N_TRICKS = 13  # tricks of a deal: each hand holds one card a trick
_SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_SUIT_FROM_CHAR: dict[str, Suit] = {
    "C": Suit.CLUBS,
    "D": Suit.DIAMONDS,
    "H": Suit.HEARTS,
    "S": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♧": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♢": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♡": Suit.HEARTS,
    "♠": Suit.SPADES,
    "♤": Suit.SPADES,
}
_SYMBOLS = "♣♧♦♢♥♡♠♤"
# Rank texts of a single card; "1" is the bot protocol's ace, "10" the ten.
_RANK_FROM_TEXT: dict[str, int] = {c: i for i, c in enumerate(RANK_CHARS)} | {"10": 8, "1": 12}
_EMPTY_SUIT = ("", "-", "—")
_VS16 = "\ufe0f"  # emoji variation selector that may follow a suit symbol


class Card(int):
    """A card as an int 0..51 (``suit * 13 + rank``); usable as a plain int everywhere."""

    __slots__ = ()

    def __new__(cls, value: int) -> Self:
        return int.__new__(cls, check_int(value, "a card", low=0, high=51, error=CardError))

    @classmethod
    def of(cls, suit: int, rank: int) -> Card:
        """The card of ``suit`` (0..3) and ``rank`` (0 = deuce .. 12 = ace)."""
        s = check_int(suit, "a card's suit", low=0, high=3, error=CardError)
        return ALL_CARDS[s * 13 + check_int(rank, "a card's rank", low=0, high=12, error=CardError)]

    @property
    def suit(self) -> Suit:
        """The card's suit."""
        return _SUITS[self // 13]

    @property
    def rank(self) -> int:
        """0 for the deuce up to 12 for the ace."""
        return self % 13

    @property
    def rank_char(self) -> str:
        """One-character rank: ``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return RANK_CHARS[self % 13]

    @property
    def mask(self) -> int:
        """The one-bit mask of this card."""
        return 1 << self

    def symbol(self) -> str:
        """Display text with the suit symbol: ``A♠``, ``T♥``."""
        return RANK_CHARS[self % 13] + "♣♦♥♠"[self // 13]

    def __str__(self) -> str:
        return RANK_CHARS[self % 13] + "CDHS"[self // 13]

    def __repr__(self) -> str:
        return f"Card.parse('{self}')"

    def _repr_html_(self) -> str:
        from callbreak_lab.render.html import card_html

        return card_html(self)

    @classmethod
    def parse(cls, text: str | int) -> Card:
        """Parse ``AS``, ``TH``, ``10H``, ``as``, ``A♠``, ``♠A``, ``1S`` and ``1C/0`` (bot form)."""
        if isinstance(text, Card):
            return ALL_CARDS[text]
        if isinstance(text, int | np.integer) and not isinstance(text, bool):
            return ALL_CARDS[Card(text)]  # numpy ints too (array elements)
        if not isinstance(text, str):
            raise CardError(f"cannot read a card from {text!r}")
        t = text.strip().replace(_VS16, "").upper()
        t = re.sub(r"/\d+$", "", t)  # bot protocol deck suffix
        if not t:
            raise CardError(f"empty card text {text!r}")
        if t[0] in _SYMBOLS:
            suit_char, rank_text = t[0], t[1:].strip()
        elif t[-1] in _SUIT_FROM_CHAR:
            suit_char, rank_text = t[-1], t[:-1].strip()
        else:
            raise CardError(f"unknown suit {t[-1]!r} in card {text!r} (suits: S H D C or symbols)")
        rank = _RANK_FROM_TEXT.get(rank_text)
        if rank is None:
            raise CardError(f"unknown rank {rank_text!r} in card {text!r}")
        return ALL_CARDS[_SUIT_FROM_CHAR[suit_char] * 13 + rank]


ALL_CARDS: tuple[Card, ...] = tuple(int.__new__(Card, c) for c in range(52))

CardLike: TypeAlias = Card | int | str


def play_order_key(card: int) -> int:
    """The tie-break order among equally good cards: lowest rank first and, among equal ranks,
    clubs < diamonds < hearts < spades (the key ``rank * 4 + suit``). The solver's
    self-interested play-out, the annotated lines and the bot's search all break ties by it."""
    return (card % 13) * 4 + card // 13


def lowest_card(cards: Iterable[int]) -> Card:
    """The first of ``cards`` (cards or card ints) in ``play_order_key`` order."""
    best = min(cards, key=play_order_key, default=None)
    if best is None:
        raise CardError("no card to choose from")
    return ALL_CARDS[best]


_SYMBOL_CARD = re.compile(f"([{RANK_CHARS}])([♣♦♥♠])")


def letters(text: str) -> str:
    """``text`` with every card written in letters (``2♦`` -> ``2D``): the rules word their
    restrictions with suit symbols, while the plain-text and JSON outputs name cards in letters."""
    return _SYMBOL_CARD.sub(lambda m: m.group(1) + _SUIT_FROM_CHAR[m.group(2)].letter, text)


def _suit_text(bits: int) -> str:
    """Rank characters of a 13-bit suit, high to low."""
    return "".join(RANK_CHARS[r] for r in range(12, -1, -1) if bits >> r & 1)


def _parse_ranks(group: str, suit: Suit, whole: str, seen: int) -> int:
    """Parse the rank characters of one suit group into a mask, checking duplicates."""
    g = "".join(group.split()).upper()
    if g in _EMPTY_SUIT:
        return 0
    mask = 0
    i = 0
    while i < len(g):
        if g.startswith("10", i):
            rank, i = 8, i + 2
        elif g[i] in RANK_CHARS:
            rank, i = RANK_CHARS.index(g[i]), i + 1
        else:
            raise HandError(f"unknown rank {g[i]!r} in {suit.plural} of hand {whole!r}")
        bit = 1 << (suit * 13 + rank)
        if (mask | seen) & bit:
            raise HandError(f"card {ALL_CARDS[suit * 13 + rank]} given twice in hand {whole!r}")
        mask |= bit
    return mask


class Hand:
    """A set of cards as a 52-bit mask; immutable, hashable, iterates high to low.

    Iteration order is spades first then hearts, diamonds, clubs, each high to low
    (descending card index).
    """

    __slots__ = ("mask",)

    mask: int

    def __init__(self, mask: int = 0) -> None:
        if isinstance(mask, Hand):
            mask = mask.mask
        m = check_int(mask, "a hand mask", low=0, high=FULL_MASK, error=HandError)
        object.__setattr__(self, "mask", m)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Hand is immutable")

    # --- pickling and copying -------------------------------------------------------------------
    # Pickle's default for a class with slots makes an empty object and then sets the slots,
    # which the raising ``__setattr__`` refuses: a hand is rebuilt from its mask by the
    # constructor instead, which checks the mask.
    def __reduce__(self) -> tuple[type[Self], tuple[int]]:
        return (type(self), (self.mask,))

    def __copy__(self) -> Self:
        return self  # immutable: the copy is the hand itself, as for int and str

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self

    # --- construction -------------------------------------------------------------------------
    @classmethod
    def from_cards(cls, cards: Iterable[CardLike]) -> Hand:
        """The hand holding ``cards`` (Card, int or card text); duplicates are an error."""
        mask = 0
        for c in cards:
            card = Card.parse(c)
            bit = 1 << card
            if mask & bit:
                raise HandError(f"card {card} given twice")
            mask |= bit
        return cls(mask)

    @classmethod
    def full(cls) -> Hand:
        """All 52 cards."""
        return cls(FULL_MASK)

    @classmethod
    def parse(cls, text: str | Hand | Card | Iterable[CardLike]) -> Hand:
        """Parse dotted (``AKQ2.T98.765.432``), symbol (``♠AKQ2 ♥T98``), letter
        (``S:AKQ2 H:T98``) or card-list (``AS KS 2C`` or a list) notation."""
        if not isinstance(text, str):
            return cls._from_object(text)
        t = text.strip().replace(_VS16, "")
        if "." in t:
            return cls._parse_dotted(t, text)
        if ":" in t:
            return cls._parse_groups(re.split(r"([SHDCshdc♣♧♦♢♥♡♠♤])\s*:", t), text, "S:")
        if t and t[0] in _SYMBOLS:
            return cls._parse_groups(re.split(f"([{_SYMBOLS}])", t), text, "♠")
        return cls._parse_card_list(t, text)

    @classmethod
    def _from_object(cls, obj: Hand | Card | Iterable[CardLike]) -> Hand:
        """``parse`` of anything but text: a hand, a card or cards."""
        if isinstance(obj, Hand):
            return obj
        if isinstance(obj, Card):
            return cls(1 << obj)
        if not isinstance(obj, Iterable):
            raise HandError(f"cannot read a hand from {obj!r} (give text or a list of cards)")
        try:
            return cls.from_cards(obj)
        except NotationError as e:
            raise HandError(f"{e} in hand {obj!r}") from None

    @classmethod
    def _parse_dotted(cls, t: str, text: str) -> Hand:
        """Parse ``AKQ2.T98.765.432`` (spades first); ``text`` is what the caller gave."""
        groups = t.split(".")
        if len(groups) != 4:
            raise HandError(
                "a dotted hand has four suits spades.hearts.diamonds.clubs separated by "
                f"three dots, got {len(groups)} groups in {text!r}"
            )
        mask = 0
        for suit, g in zip(
            (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS), groups, strict=True
        ):
            if any(ch.isspace() for ch in g.strip()):
                raise HandError(f"unexpected space in {suit.plural} of hand {text!r}")
            mask |= _parse_ranks(g, suit, text, mask)
        return cls(mask)

    @classmethod
    def _parse_card_list(cls, t: str, text: str) -> Hand:
        """Parse ``AS KS 2C`` (spaces or commas between the cards)."""
        mask = 0
        for tok in t.replace(",", " ").split():
            try:
                card = Card.parse(tok)
            except CardError as e:
                raise HandError(f"{e} in hand {text!r}") from None
            if mask >> card & 1:
                raise HandError(f"card {card} given twice in hand {text!r}")
            mask |= 1 << card
        return cls(mask)

    @classmethod
    def _parse_groups(cls, parts: list[str], text: str, marker: str) -> Hand:
        """Parse ``[prefix, suit, ranks, suit, ranks, ...]`` from a symbol or letter split."""
        if parts[0].strip():
            raise HandError(
                f"unexpected text {parts[0].strip()!r} before the first {marker} suit in {text!r}"
            )
        mask = 0
        for i in range(1, len(parts), 2):
            suit = _SUIT_FROM_CHAR[parts[i].upper()]
            body = parts[i + 1]
            if ":" in body:
                raise HandError(f"unknown suit before ':' in {text!r}")
            mask |= _parse_ranks(body, suit, text, mask)
        return cls(mask)

    # --- set-like API ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __iter__(self) -> Iterator[Card]:
        m = self.mask
        while m:
            c = m.bit_length() - 1
            yield ALL_CARDS[c]
            m ^= 1 << c

    def __contains__(self, card: object) -> bool:
        if isinstance(card, str):
            card = Card.parse(card)
        if isinstance(card, int | np.integer) and 0 <= card < 52:
            return bool(self.mask >> int(card) & 1)
        return False

    @staticmethod
    def _other(other: object) -> int | None:
        if isinstance(other, Hand):
            return other.mask
        if isinstance(other, Card):
            return 1 << other
        return None

    def __or__(self, other: Hand | Card) -> Hand:
        m = self._other(other)
        return NotImplemented if m is None else Hand(self.mask | m)

    __ror__ = __or__

    def __and__(self, other: Hand | Card) -> Hand:
        m = self._other(other)
        return NotImplemented if m is None else Hand(self.mask & m)

    __rand__ = __and__

    def __sub__(self, other: Hand | Card) -> Hand:
        m = self._other(other)
        return NotImplemented if m is None else Hand(self.mask & ~m)

    def __xor__(self, other: Hand | Card) -> Hand:
        m = self._other(other)
        return NotImplemented if m is None else Hand(self.mask ^ m)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(("Hand", self.mask))

    def issubset(self, other: Hand) -> bool:
        """True when every card of this hand is in ``other``."""
        return self.mask & ~other.mask == 0

    def isdisjoint(self, other: Hand) -> bool:
        """True when the hands share no card."""
        return self.mask & other.mask == 0

    # --- suits -------------------------------------------------------------------------------
    def suit(self, suit: int) -> Hand:
        """The cards of one suit, as a hand."""
        return Hand(self.mask & SUIT_MASKS[_suit_index(suit)])

    def suit_bits(self, suit: int) -> int:
        """The 13-bit rank mask of one suit (bit r = rank r held)."""
        return (self.mask >> (13 * _suit_index(suit))) & SUIT_MASK13

    def suit_count(self, suit: int) -> int:
        """How many cards of ``suit`` the hand holds."""
        return (self.mask & SUIT_MASKS[_suit_index(suit)]).bit_count()

    def suit_counts(self) -> tuple[int, int, int, int]:
        """Card counts per suit in Suit order (clubs, diamonds, hearts, spades)."""
        m = self.mask
        return tuple((m & SUIT_MASKS[s]).bit_count() for s in range(4))  # type: ignore[return-value]

    def highest(self) -> Card:
        """The card with the highest index (highest spade first)."""
        if not self.mask:
            raise HandError("empty hand has no highest card")
        return ALL_CARDS[self.mask.bit_length() - 1]

    def lowest(self) -> Card:
        """The card with the lowest index."""
        if not self.mask:
            raise HandError("empty hand has no lowest card")
        return ALL_CARDS[(self.mask & -self.mask).bit_length() - 1]

    def cards(self) -> list[Card]:
        """The cards, high to low (same order as iteration)."""
        return list(self)

    # --- text --------------------------------------------------------------------------------
    def __str__(self) -> str:
        m = self.mask
        return ".".join(_suit_text((m >> (13 * s)) & SUIT_MASK13) for s in (3, 2, 1, 0))

    def symbols(self) -> str:
        """Suit-symbol form ``♠AKQ2 ♥T98 ♦765 ♣432`` (an empty suit prints as ``-``)."""
        m = self.mask
        return " ".join(
            "♣♦♥♠"[s] + (_suit_text((m >> (13 * s)) & SUIT_MASK13) or "-") for s in (3, 2, 1, 0)
        )

    def letters(self) -> str:
        """Letter form ``S:AKQ2 H:T98 D:765 C:432`` (an empty suit prints as ``S:-``)."""
        m = self.mask
        return " ".join(
            "CDHS"[s] + ":" + (_suit_text((m >> (13 * s)) & SUIT_MASK13) or "-")
            for s in (3, 2, 1, 0)
        )

    def card_list(self) -> str:
        """Space-separated canonical cards, high to low: ``AS KS 2C``."""
        return " ".join(str(c) for c in self)

    def __repr__(self) -> str:
        return f"Hand.parse('{self}')"

    def _repr_html_(self) -> str:
        from callbreak_lab.render.html import hand_html

        return hand_html(self)


HandLike: TypeAlias = Hand | Card | str | Iterable[CardLike]


def _suit_index(suit: object) -> int:
    """A suit 0..3 (a ``Suit`` or an int); -1 or 4 are errors, not another suit or none."""
    return check_int(
        suit, "a suit (clubs, diamonds, hearts, spades)", low=0, high=3, error=HandError
    )


def as_rng(seed: np.random.Generator | int | None) -> np.random.Generator:
    """A numpy Generator: ``seed`` itself when it is one, else seeded by a whole number >= 0
    (None: fresh entropy). A bad seed is a ``DealError`` naming it."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(
        None if seed is None else check_int(seed, "seed", low=0, error=DealError)
    )


def _mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


class Deal:
    """Four 13-card hands in seat order 0..3 covering the deck."""

    __slots__ = ("hands",)

    hands: tuple[Hand, Hand, Hand, Hand]

    def __init__(self, hands: Sequence[HandLike]) -> None:
        if isinstance(hands, str | Hand) or not hasattr(hands, "__len__") or len(hands) != 4:
            raise DealError("a deal is four hands in seat order 0..3")
        hs = tuple(Hand.parse(h) for h in hands)
        problems: list[str] = []
        for i in range(4):
            for j in range(i + 1, 4):
                both = hs[i] & hs[j]
                if both:
                    cards = " ".join(str(c) for c in both)
                    problems.append(f"card(s) {cards} in both seat {i} and seat {j}")
        for i, h in enumerate(hs):
            if len(h) != 13:
                problems.append(f"seat {i} has {len(h)} cards, needs 13")
        union = hs[0].mask | hs[1].mask | hs[2].mask | hs[3].mask
        if union != FULL_MASK:
            missing = Hand(FULL_MASK & ~union)
            problems.append(f"missing cards: {missing.card_list()}")
        if problems:
            raise DealError("; ".join(problems))
        object.__setattr__(self, "hands", hs)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Deal is immutable")

    # --- pickling and copying -------------------------------------------------------------------
    # As for ``Hand``: rebuilt from its four hands by the constructor, which checks that they
    # still form a deal.
    def __reduce__(self) -> tuple[type[Self], tuple[tuple[Hand, Hand, Hand, Hand]]]:
        return (type(self), (self.hands,))

    def __copy__(self) -> Self:
        return self  # immutable (and so are its hands): the copy is the deal itself

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self

    @classmethod
    def _trusted(cls, masks: Sequence[int]) -> Deal:
        """Build from four masks known to form a deal (no validation)."""
        d = object.__new__(cls)
        object.__setattr__(d, "hands", tuple(Hand(int(m)) for m in masks))
        return d

    @classmethod
    def parse(cls, text: str | Deal | Sequence[HandLike]) -> Deal:
        """Four hands: dotted separated by spaces, or any hand notation separated by ``/`` or
        newlines, or a sequence of four hands."""
        if isinstance(text, Deal):
            return text
        if not isinstance(text, str):
            if not isinstance(text, Iterable):
                raise DealError(f"cannot read a deal from {text!r} (give text or four hands)")
            return cls(list(text))
        t = text.strip()
        if re.search(r"/(?!\d)", t):
            parts = [p.strip() for p in re.split(r"/(?!\d)", t)]
        elif "\n" in t:
            parts = [line.strip() for line in t.splitlines() if line.strip()]
        else:
            parts = t.split()
        if len(parts) != 4:
            raise DealError(
                f"a deal is four hands (seats 0..3), got {len(parts)} in {text!r}; separate "
                "dotted hands by spaces, other forms by '/' or newlines"
            )
        hands = []
        for seat, p in enumerate(parts):
            try:
                hands.append(Hand.parse(p))
            except HandError as e:
                raise DealError(f"seat {seat}: {e}") from None
        return cls(hands)

    @classmethod
    def random(cls, seed: np.random.Generator | int | None = None) -> Deal:
        """A uniformly random deal; deterministic for an int seed or a given Generator."""
        perm = as_rng(seed).permutation(52)
        return cls._trusted([_mask_of(perm[13 * i : 13 * i + 13]) for i in range(4)])

    @classmethod
    def seeded(cls, seed: int, index: int) -> Deal:
        """Deal ``index`` of the deals seeded ``seed`` (both whole numbers >= 0): the one
        "deal i of seed s" of the library, the deals of the arena's tournaments, the solved
        datasets and the play table alike. Each deal is drawn from its own generator
        (``numpy.random.default_rng([seed, index])``), so deal ``i`` is the same whichever deals
        are dealt before it."""
        s = check_int(seed, "a deal's seed", low=0, error=DealError)
        i = check_int(index, "a deal's index", low=0, error=DealError)
        return cls.random(np.random.default_rng([s, i]))

    @classmethod
    def random_with(
        cls,
        fixed: Mapping[int, HandLike] | Sequence[HandLike | None],
        seed: np.random.Generator | int | None = None,
        extra_known: Mapping[int, HandLike] | None = None,
    ) -> Deal:
        """A deal where each seat holds its ``fixed`` cards (a whole hand or some cards) and
        ``extra_known`` cards (e.g. cards it was seen to play); the rest are dealt uniformly at
        random to fill every seat to 13."""
        known = [0, 0, 0, 0]
        items: list[tuple[int, HandLike]] = []
        for source in (fixed, extra_known or {}):
            if isinstance(source, Mapping):
                items.extend(source.items())
            else:
                if len(source) != 4:
                    raise DealError(f"fixed hands per seat need 4 entries, got {len(source)}")
                items.extend((s, h) for s, h in enumerate(source) if h is not None)
        owner: dict[int, int] = {}
        for s, h in items:
            seat = check_seat(s)
            hand = Hand.parse(h)
            for c in hand:
                if owner.get(c, seat) != seat:
                    raise DealError(f"card {c} is fixed for both seat {owner[c]} and seat {seat}")
                owner[c] = seat
            known[seat] |= hand.mask
        for seat in range(4):
            n = known[seat].bit_count()
            if n > 13:
                raise DealError(f"seat {seat} has {n} fixed cards, at most 13 fit")
        all_known = known[0] | known[1] | known[2] | known[3]
        rest = np.array([c for c in range(52) if not all_known >> c & 1], dtype=np.int64)
        rest = as_rng(seed).permutation(rest)
        masks = []
        pos = 0
        for seat in range(4):
            need = 13 - known[seat].bit_count()
            masks.append(known[seat] | _mask_of(rest[pos : pos + need]))
            pos += need
        return cls._trusted(masks)

    def __getitem__(self, seat: int) -> Hand:
        """The hand of ``seat`` (0..3; not -1 for seat 3, nor ``True`` for seat 1)."""
        return self.hands[check_seat(seat)]

    def __iter__(self) -> Iterator[Hand]:
        return iter(self.hands)

    def __len__(self) -> int:
        return 4

    def masks(self) -> np.ndarray:
        """The four masks as a numpy uint64 array (solver input)."""
        return np.array([h.mask for h in self.hands], dtype=np.uint64)

    def seat_of(self, card: CardLike) -> int:
        """The seat holding ``card``."""
        c = Card.parse(card)
        for seat, h in enumerate(self.hands):
            if h.mask >> c & 1:
                return seat
        raise AssertionError("unreachable: a deal holds every card")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deal) and other.hands == self.hands

    def __hash__(self) -> int:
        return hash(("Deal", *(h.mask for h in self.hands)))

    def __str__(self) -> str:
        return " ".join(str(h) for h in self.hands)

    def symbols(self) -> str:
        """The four hands in suit-symbol form separated by `` / ``."""
        return " / ".join(h.symbols() for h in self.hands)

    def letters(self) -> str:
        """The four hands in letter form separated by `` / ``."""
        return " / ".join(h.letters() for h in self.hands)

    def __repr__(self) -> str:
        return f"Deal.parse('{self}')"

    def _repr_html_(self) -> str:
        from callbreak_lab.render.html import deal_html

        return deal_html(self)
