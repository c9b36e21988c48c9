"""Seeded generator of small, valid Call Break endings for the brute-force reference.

An ending is the last ``n`` tricks of a deal (``n`` = 2..5): ``4 * n`` cards dealt ``n`` to a
seat, a leader, and 0..3 cards already played to the current trick, each one LEGAL under the
switches (checked with the reference :func:`~tests.reference.minimax.legal`), so the seats that
already played hold ``n - 1`` cards and the others ``n``.

About ``first_trick``: the first-trick spade ban only restricts the *lead of the deal's first
trick* ("no spade lead to trick 1 while holding another suit"). A real ending of 5 or fewer
tricks is never trick 1, so ``first_trick`` is False for every generated ending unless the caller
asks for it (``first_trick_rate``), which deliberately pretends the current trick is the deal's
first one in order to exercise the ban at the lead (for rules-level checks, not real deals).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import product

from . import minimax as ref

#: Every combination of the legal-card switches: (must_beat, void_rule, ban).
SWITCHES: list[tuple[bool, str, bool]] = list(
    product((True, False), ("strict", "win_only"), (False, True))
)

#: The preset profiles of docs/rules.md: name -> (must_beat, void_rule, first_trick_spade_ban).
PRESET_SWITCHES: dict[str, tuple[bool, str, bool]] = {
    "modern": (True, "strict", False),
    "strict": (True, "strict", True),
    "online": (True, "win_only", False),
    "home": (False, "win_only", False),
    "pagat": (False, "win_only", False),
}


def _text(cs: frozenset[int] | list[int] | tuple[int, ...]) -> str:
    ordered = cs if isinstance(cs, (list, tuple)) else sorted(cs, key=lambda c: (-c // 13, -c))
    return " ".join(ref.card_text(c) for c in ordered)


@dataclass(frozen=True)
class Ending:
    """A position near the end of a deal: four hands, the trick in progress and its leader."""

    hands: tuple[frozenset[int], ...]
    trick: tuple[int, ...] = ()
    leader: int = 0
    first_trick: bool = False
    # switches the trick's cards were generated legal under (informative only)
    switches: tuple[bool, str, bool] | None = field(default=None, compare=False)

    @classmethod
    def from_text(
        cls,
        hands: list[str] | tuple[str, ...],
        trick: str = "",
        leader: int = 0,
        first_trick: bool = False,
    ) -> Ending:
        """Build from card texts, e.g. ``Ending.from_text(["AS 2H", "KH 3H", ...], "QH", 1)``."""
        return cls(
            tuple(ref.cards(h) for h in hands),
            tuple(ref.parse_card(t) for t in trick.split()),
            leader,
            first_trick,
        )

    def __repr__(self) -> str:
        hands = ", ".join(repr(_text(h)) for h in self.hands)
        return (
            f"Ending.from_text([{hands}], trick={_text(self.trick)!r}, leader={self.leader}, "
            f"first_trick={self.first_trick})"
        )

    @property
    def to_move(self) -> int:
        """Seat whose turn it is."""
        return ref.to_move(self.trick, self.leader)

    @property
    def tricks_left(self) -> int:
        """Remaining tricks, the one in progress included."""
        return len(self.hands[self.leader]) + (1 if self.trick else 0)

    def dd_value(self, target: int, must_beat: bool, void_rule: str, ban: bool) -> int:
        """Reference double-dummy value for ``target``."""
        return ref.dd_value(
            self.hands, list(self.trick), self.leader, target, must_beat, void_rule, ban,
            self.first_trick,
        )  # fmt: skip

    def card_values(self, must_beat: bool, void_rule: str, ban: bool) -> dict[int, int]:
        """Reference ``{card: value}`` for the mover."""
        return ref.card_values(
            self.hands, list(self.trick), self.leader, must_beat, void_rule, ban, self.first_trick
        )

    def playout(
        self, must_beat: bool, void_rule: str, ban: bool
    ) -> tuple[list[int], tuple[int, int, int, int]]:
        """Reference self-interested play-out."""
        return ref.playout(
            self.hands, list(self.trick), self.leader, must_beat, void_rule, ban, self.first_trick
        )

    def tree_size(self, must_beat: bool, void_rule: str, ban: bool, limit: int) -> int | None:
        """Positions in the game tree, or None above ``limit``."""
        return ref.count_nodes(
            self.hands, list(self.trick), self.leader, must_beat, void_rule, ban,
            self.first_trick, limit,
        )  # fmt: skip


#: Default weights of the ending sizes (tricks left): mostly 2..4, a few 5.
SIZE_WEIGHTS: dict[int, int] = {2: 3, 3: 4, 4: 4, 5: 2}


def random_ending(
    rng: random.Random,
    must_beat: bool,
    void_rule: str,
    ban: bool,
    *,
    sizes: dict[int, int] | None = None,
    node_limit: int = 6000,
    first_trick_rate: float = 0.0,
    mid_trick_rate: float = 0.6,
) -> Ending:
    """Draw a random valid ending whose game tree has at most ``node_limit`` positions.

    Cards come from a random subset of 1..4 suits (biased towards fewer suits, so following,
    overtaking and trumping all happen often). With probability ``mid_trick_rate`` 1..3 seats
    have already played a legal card to the current trick.
    """
    sizes = sizes or SIZE_WEIGHTS
    while True:
        n = rng.choices(list(sizes), weights=list(sizes.values()))[0]
        n_suits = rng.choice([2, 2, 3, 3, 4]) if n <= 3 else rng.choice([2, 3, 3, 4, 4])
        suits = rng.sample(range(4), n_suits)
        if rng.random() < 0.7 and 3 not in suits:
            suits[0] = 3  # usually keep spades (trumps) in play
        pool = [s * 13 + r for s in suits for r in range(13)]
        if len(pool) < 4 * n:
            continue
        dealt = rng.sample(pool, 4 * n)
        hands = [frozenset(dealt[i * n : (i + 1) * n]) for i in range(4)]
        leader = rng.randrange(4)
        first_trick = rng.random() < first_trick_rate
        played = rng.randint(1, 3) if rng.random() < mid_trick_rate else 0
        trick: list[int] = []
        for i in range(played):
            seat = (leader + i) % 4
            options = ref.legal(hands[seat], trick, must_beat, void_rule, ban, first_trick)
            card = rng.choice(sorted(options))
            trick.append(card)
            hands[seat] = hands[seat] - {card}
        ending = Ending(
            tuple(hands), tuple(trick), leader, first_trick, (must_beat, void_rule, ban)
        )
        if ending.tree_size(must_beat, void_rule, ban, node_limit) is not None:
            return ending


def random_endings(
    seed: int, count: int, must_beat: bool, void_rule: str, ban: bool, **kwargs: object
) -> list[Ending]:
    """``count`` endings from a fixed seed (reproducible)."""
    rng = random.Random(seed)
    return [random_ending(rng, must_beat, void_rule, ban, **kwargs) for _ in range(count)]  # type: ignore[arg-type]


#: Default weights of the ending sizes for endings of full deals (4-suit hands branch more).
DEAL_SIZE_WEIGHTS: dict[int, int] = {2: 5, 3: 6, 4: 2}


@dataclass(frozen=True)
class DealEnding:
    """An ending reached by legally playing the first tricks of a full 13-card deal."""

    deal: tuple[frozenset[int], ...]  # the four 13-card hands at the start
    record: tuple[int, ...]  # cards played from the start, in order (legal under the switches)
    ending: Ending  # the position after ``record``

    def deal_text(self) -> str:
        """Dotted deal text (spades.hearts.diamonds.clubs per seat), as in docs/architecture.md."""
        return " ".join(_dotted(h) for h in self.deal)

    def record_text(self) -> str:
        """Play record with ``|`` between tricks."""
        parts = [ref.card_text(c) for c in self.record]
        return " | ".join(" ".join(parts[i : i + 4]) for i in range(0, len(parts), 4))


def _dotted(hand: frozenset[int]) -> str:
    ranks = "23456789TJQKA"
    return ".".join(
        "".join(
            ranks[ref.rank(c)] for c in sorted((c for c in hand if ref.suit(c) == s), reverse=True)
        )
        for s in (3, 2, 1, 0)
    )


def random_deal_ending(
    rng: random.Random,
    must_beat: bool,
    void_rule: str,
    ban: bool,
    *,
    sizes: dict[int, int] | None = None,
    node_limit: int = 1500,
    mid_trick_rate: float = 0.6,
) -> DealEnding:
    """Deal 52 cards at random, play random legal cards (reference ``legal``, the ban applied to
    the first lead) until ``n`` tricks remain, plus 1..3 cards of the next trick with probability
    ``mid_trick_rate``; while the remaining game tree exceeds ``node_limit`` positions, play on
    (so big endings shrink instead of being redrawn)."""
    sizes = sizes or DEAL_SIZE_WEIGHTS
    n = rng.choices(list(sizes), weights=list(sizes.values()))[0]
    extra = rng.randint(1, 3) if rng.random() < mid_trick_rate else 0
    deck = list(range(52))
    rng.shuffle(deck)
    deal = tuple(frozenset(deck[13 * s : 13 * (s + 1)]) for s in range(4))
    hands: ref.Hands = deal
    trick: list[int] = []
    leader, first = 0, True
    record: list[int] = []
    for _ in range(4 * (13 - n) + extra):
        mover = ref.to_move(trick, leader)
        card = rng.choice(sorted(ref.legal(hands[mover], trick, must_beat, void_rule, ban, first)))
        record.append(card)
        hands, trick, leader, first, _ = ref.play(hands, trick, leader, first, card)
    while True:
        ending = Ending(hands, tuple(trick), leader, first, (must_beat, void_rule, ban))
        if ending.tree_size(must_beat, void_rule, ban, node_limit) is not None:
            return DealEnding(deal, tuple(record), ending)
        # too big for brute force: play on (one more random legal card) and retry
        mover = ref.to_move(trick, leader)
        card = rng.choice(sorted(ref.legal(hands[mover], trick, must_beat, void_rule, ban, first)))
        record.append(card)
        hands, trick, leader, first, _ = ref.play(hands, trick, leader, first, card)
