"""Deliberately simple reference for Call Break legality, trick winner and double-dummy values.

Everything here is plain Python over ``frozenset[int]`` hands and ``list[int]`` tricks, written
for clarity, not speed: exhaustive minimax with no pruning, no memo and no card equivalence.
Only call it on small endings (see ``tests/reference/endings.py``).

Encodings (docs/architecture.md): card = suit * 13 + rank, clubs 0, diamonds 1, hearts 2,
spades 3; rank 0 = '2' .. 12 = 'A'. Seats 0..3; after seat i plays, seat (i + 1) % 4 plays.
"""

from __future__ import annotations

from collections.abc import Sequence

SPADES = 3
VOID_RULES = ("strict", "win_only")
Hands = tuple[frozenset[int], ...]


def suit(card: int) -> int:
    """Suit index of a card (0 clubs .. 3 spades)."""
    return card // 13


def rank(card: int) -> int:
    """Rank index of a card (0 = '2' .. 12 = 'A')."""
    return card % 13


def card_text(card: int) -> str:
    """Canonical text of a card, e.g. ``AS``, ``TH``, ``2C``."""
    return "23456789TJQKA"[rank(card)] + "CDHS"[suit(card)]


def parse_card(text: str) -> int:
    """Inverse of :func:`card_text` (for hand-built tests)."""
    text = text.strip().upper().replace("10", "T")
    return "CDHS".index(text[1]) * 13 + "23456789TJQKA".index(text[0])


def cards(text: str) -> frozenset[int]:
    """Parse a space separated list of cards, e.g. ``"AS 3H"``."""
    return frozenset(parse_card(t) for t in text.split())


def tie_key(card: int) -> int:
    """Order used to break ties in the play-out: lowest rank, then clubs < .. < spades."""
    return rank(card) * 4 + suit(card)


def is_trumped(trick: Sequence[int]) -> bool:
    """The rules brief: '"Trumped" means a spade lies in a trick whose led suit is not spades'."""
    return bool(trick) and suit(trick[0]) != SPADES and any(suit(c) == SPADES for c in trick)


def legal(  # noqa: C901, PLR0911  (the reference reads as the rules brief does, one return per case)
    hand: frozenset[int],
    trick: Sequence[int],
    must_beat: bool,
    void_rule: str,
    ban: bool,
    first_trick: bool,
) -> frozenset[int]:
    """Cards of ``hand`` that may be played to ``trick`` (cards already in it, in play order).

    ``ban`` is the first-trick spade ban switch; ``first_trick`` says the trick is the deal's
    first one (the ban only restricts the *lead* of that trick).
    """
    if void_rule not in VOID_RULES:
        raise ValueError(f"unknown void_rule {void_rule!r}")
    hand = frozenset(hand)
    if not trick:
        # "The leader may lead any card, except where the first-trick spade ban applies."
        # Preset table: "no spade lead to trick 1 while holding another suit".
        if ban and first_trick:
            non_spades = frozenset(c for c in hand if suit(c) != SPADES)
            if non_spades:
                return non_spades
        return hand

    led = suit(trick[0])
    of_led_suit = frozenset(c for c in hand if suit(c) == led)
    if of_led_suit:
        # "A player holding the led suit must follow suit."
        if must_beat and not is_trumped(trick):
            # must_beat: "when following suit, if the trick is not yet trumped and you hold a card
            # of the led suit higher than the highest card of the led suit in the trick, you must
            # play one of those." ... "When spades are led, the duty to beat still applies."
            highest = max(rank(c) for c in trick if suit(c) == led)
            higher = frozenset(c for c in of_led_suit if rank(c) > highest)
            if higher:
                return higher
        # must_beat: "after that [trumped] any card of the led suit is legal"; also the case of
        # no higher card held, and the no-must_beat rule (any card of the led suit).
        return of_led_suit

    # Void in the led suit from here on.
    spades = frozenset(c for c in hand if suit(c) == SPADES)
    spade_ranks_in_trick = [rank(c) for c in trick if suit(c) == SPADES]
    if void_rule == "strict":
        # strict: "holding no card of the led suit but some spade, you must play a spade;"
        if spades:
            # "if a spade is already in the trick, you must play a higher spade if you hold one,"
            if spade_ranks_in_trick:
                higher = frozenset(c for c in spades if rank(c) > max(spade_ranks_in_trick))
                if higher:
                    return higher
            # "otherwise any spade (a losing one)." (and: no spade in the trick yet -> any spade)
            return spades
        # "Only with no spade may you play any card."
        return hand

    # win_only: "holding no card of the led suit, if you hold a spade that would win the trick now
    # (any spade when none is in it yet, else one above the highest spade in it), you must play
    # one of those;"
    if spade_ranks_in_trick:
        winning = frozenset(c for c in spades if rank(c) > max(spade_ranks_in_trick))
    else:
        winning = spades
    if winning:
        return winning
    # "otherwise you may play any card, a lower spade or a discard."
    return hand


def winner(trick: Sequence[int]) -> int:
    """Index in ``trick`` of the winning card.

    The rules brief: "A trick is won by the highest spade in it, or, with no spade, by the
    highest card of the suit led."
    """
    if not trick:
        raise ValueError("empty trick has no winner")
    best_suit = SPADES if any(suit(c) == SPADES for c in trick) else suit(trick[0])
    candidates = [i for i, c in enumerate(trick) if suit(c) == best_suit]
    return max(candidates, key=lambda i: rank(trick[i]))


def to_move(trick: Sequence[int], leader: int) -> int:
    """Seat whose turn it is."""
    return (leader + len(trick)) % 4


def play(
    hands: Hands, trick: Sequence[int], leader: int, first_trick: bool, card: int
) -> tuple[Hands, list[int], int, bool, int | None]:
    """Play ``card`` for the mover (no legality check).

    Returns ``(hands, trick, leader, first_trick, trick_winner_seat_or_None)``; when the card
    completes a trick the new trick is empty, the winner leads and ``first_trick`` becomes False.
    """
    mover = to_move(trick, leader)
    if card not in hands[mover]:
        raise ValueError(f"seat {mover} does not hold {card_text(card)}")
    new_hands = list(hands)
    new_hands[mover] = hands[mover] - {card}
    new_trick = [*trick, card]
    if len(new_trick) < 4:
        return tuple(new_hands), new_trick, leader, first_trick, None
    won = (leader + winner(new_trick)) % 4
    return tuple(new_hands), [], won, False, won


def _check_position(hands: Hands, trick: Sequence[int], leader: int) -> None:
    """Reject positions whose hand sizes cannot occur (the cards played so far must line up)."""
    if len(hands) != 4 or not 0 <= leader < 4 or len(trick) > 3:
        raise ValueError("need 4 hands, a leader 0..3 and a trick of 0..3 cards")
    n = len(hands[leader]) + (1 if trick else 0)
    for i in range(4):
        seat = (leader + i) % 4
        expected = n - 1 if i < len(trick) else n
        if len(hands[seat]) != expected:
            raise ValueError(f"inconsistent hand sizes {[len(h) for h in hands]} for trick {trick}")


def dd_value(
    hands: Hands,
    trick: Sequence[int],
    leader: int,
    target: int,
    must_beat: bool,
    void_rule: str,
    ban: bool,
    first_trick: bool,
) -> int:
    """Double-dummy value: tricks of the remaining ones (trick in progress included) that
    ``target`` can guarantee when it maximises and the other three seats minimise.

    Exhaustive minimax with no pruning, no memo and no card equivalence.
    """
    _check_position(hands, trick, leader)
    return _search(hands, list(trick), leader, target, must_beat, void_rule, ban, first_trick)


def _search(
    hands: Hands,
    trick: list[int],
    leader: int,
    target: int,
    must_beat: bool,
    void_rule: str,
    ban: bool,
    first_trick: bool,
) -> int:
    mover = to_move(trick, leader)
    if not trick and not hands[mover]:
        return 0  # deal over
    values = []
    for card in legal(hands[mover], trick, must_beat, void_rule, ban, first_trick):
        values.append(
            _value_after(hands, trick, leader, target, must_beat, void_rule, ban, first_trick, card)
        )
    return max(values) if mover == target else min(values)


def _value_after(  # noqa: PLR0913  (the search state, passed down as the brief names it)
    hands: Hands,
    trick: list[int],
    leader: int,
    target: int,
    must_beat: bool,
    void_rule: str,
    ban: bool,
    first_trick: bool,
    card: int,
) -> int:
    """Target's tricks from the current trick on, after the mover plays ``card``."""
    hands2, trick2, leader2, first2, won = play(hands, trick, leader, first_trick, card)
    now = 1 if won == target else 0
    return now + _search(hands2, trick2, leader2, target, must_beat, void_rule, ban, first2)


def card_values(
    hands: Hands,
    trick: Sequence[int],
    leader: int,
    must_beat: bool,
    void_rule: str,
    ban: bool,
    first_trick: bool,
) -> dict[int, int]:
    """``{card: value}`` for each legal card of the mover: the mover's own double-dummy value
    (trick in progress included) after playing that card."""
    _check_position(hands, trick, leader)
    mover = to_move(trick, leader)
    return {
        card: _value_after(
            hands, list(trick), leader, mover, must_beat, void_rule, ban, first_trick, card
        )
        for card in legal(hands[mover], trick, must_beat, void_rule, ban, first_trick)
    }


def playout(
    hands: Hands,
    trick: Sequence[int],
    leader: int,
    must_beat: bool,
    void_rule: str,
    ban: bool,
    first_trick: bool,
) -> tuple[list[int], tuple[int, int, int, int]]:
    """Self-interested play-out: the mover plays a legal card maximising its own double-dummy
    value after the card; ties go to the lowest ``rank * 4 + suit``. Repeat until the end.

    Returns ``(cards played, tricks per seat of the remaining tricks)`` (trick in progress
    included).
    """
    _check_position(hands, trick, leader)
    played: list[int] = []
    tricks = [0, 0, 0, 0]
    trick = list(trick)
    while trick or hands[to_move(trick, leader)]:
        values = card_values(hands, trick, leader, must_beat, void_rule, ban, first_trick)
        best = max(values.values())
        card = min((c for c, v in values.items() if v == best), key=tie_key)
        played.append(card)
        hands, trick, leader, first_trick, won = play(hands, trick, leader, first_trick, card)
        if won is not None:
            tricks[won] += 1
    return played, (tricks[0], tricks[1], tricks[2], tricks[3])


def count_nodes(
    hands: Hands,
    trick: Sequence[int],
    leader: int,
    must_beat: bool,
    void_rule: str,
    ban: bool,
    first_trick: bool,
    limit: int,
) -> int | None:
    """Number of positions in the full game tree, or None once it exceeds ``limit``."""
    count = 0

    def walk(hands: Hands, trick: list[int], leader: int, first_trick: bool) -> bool:
        nonlocal count
        count += 1
        if count > limit:
            return False
        mover = to_move(trick, leader)
        if not trick and not hands[mover]:
            return True
        for card in legal(hands[mover], trick, must_beat, void_rule, ban, first_trick):
            h2, t2, l2, f2, _ = play(hands, trick, leader, first_trick, card)
            if not walk(h2, t2, l2, f2):
                return False
        return True

    return count if walk(hands, list(trick), leader, first_trick) else None
