"""Numba kernels: the relevant cards of a search result (partition search, as DDS's "winning
ranks"), and the sibling cards a result settles.

A result found at a node holds for every position that agrees with it on the owners of the cards
at or above the relevant ones in each suit (and on suit lengths, always part of a table entry).
The marks here say which cards a result relied on: the card that won a trick, the card a
legal-card rule compared against, and the cards of a searched sibling.
"""

from __future__ import annotations

from ._consts import LO, RANK, SUIT, Ints, kernel
from ._moves import rep_of, trick_info


@kernel
def trick_mark(tc: Ints, ts: int) -> tuple[int, int]:
    """(winner offset, mask of the winning card if it beat a card of its own suit, else 0)."""
    _led, best, wo = trick_info(tc, ts, 4)
    bs = SUIT[best]
    for i in range(4):
        if i != wo and SUIT[tc[ts + i]] == bs:
            return wo, 1 << best
    return wo, 0


@kernel
def all_moves_mark(hand: Ints, legal: Ints, led: int, vr: int, lmark: int) -> int:
    """The legal-card mark a result needs when every legal move gave it (a node whose moves all
    failed to cut off): none when the rules' comparison excluded no card of the class the mover
    had to play from (the suit led, the spades, or the whole hand).

    Partition search's argument: an entry covers positions that agree on the cards at or above
    its relevant ones. In such a position the rule compares the same class against another
    winning card, and the cards it allows are a subset of the class, so of the moves that all
    gave the result here. A subset cannot change an all-moves result."""
    if lmark == 0:
        return 0
    if hand[led] != 0:
        return 0 if legal[led] == hand[led] else lmark
    if vr == 0 and hand[3] != 0:
        return 0 if legal[3] == hand[3] else lmark
    for s in range(4):
        if legal[s] != hand[s]:
            return lmark
    return 0


@kernel
def cut_mark(tc: Ints, ts: int, pos: int, c: int, lmark: int) -> int:
    """The legal-card mark a cutoff by card ``c`` needs: ``c`` itself when it beat the compared
    card in its suit (in a position agreeing on the cards down to ``c``, the compared card is
    lower, so ``c`` beats it and is legal again), else the compared card."""
    if lmark == 0:
        return 0
    _led, best, _wo = trick_info(tc, ts, pos)
    if SUIT[c] == SUIT[best] and c > best:
        return 1 << c
    return lmark


@kernel
def sibling_skips(mine: int, lv: int, c: int, rel: int) -> int:
    """The mover's cards (52-bit) whose result equals that of ``c``, just searched with
    relevant cards ``rel``: the other cards of ``c``'s suit below the suit's lowest relevant
    card, when ``c`` is below it too (partition search's argument: the positions after the two
    cards agree on every card whose rank mattered, and in suit lengths). A card whose run of
    equivalent cards reaches a relevant card is kept: it stands for cards the argument does not
    cover. ``mine``: the mover's cards of the suit; ``lv``: the suit's live cards, those already
    in the trick included (13-bit masks)."""
    s: int = SUIT[c]
    rs = (rel >> (13 * s)) & 0x1FFF & lv
    m = 13
    if rs != 0:
        m = LO[rs]
    if RANK[c] >= m:
        return 0
    low: int = mine & ((1 << m) - 1) & ~(1 << RANK[c])
    if m < 13 and (mine >> m) & 1:
        # drop the run of the mover's cards that ends at the relevant card m
        low &= (1 << (rep_of(s * 13 + m, mine, lv) % 13)) - 1
    return low << (13 * s)


@kernel
def suit_live(hands: Ints, tc: Ints, ts: int, pos: int, s: int) -> int:
    """The live cards of suit ``s`` (13-bit), the ``pos`` cards already in the trick included."""
    lv: int = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
    for j in range(pos):
        cc = tc[ts + j]
        if SUIT[cc] == s:
            lv |= 1 << RANK[cc]
    return lv
