"""Hand features for the bid model, vectorised over many hands.

A hand is a 52-bit mask (bit ``suit * 13 + rank``; clubs 0 .. spades 3; rank 0 = deuce ..
12 = ace), see ``docs/architecture.md``. Every feature is computed from the four 13-bit suit
patterns of a hand through lookup tables with one row per pattern (8192 rows), built once with
numpy at import time, so featurising a million hands is a handful of array operations and no
Python loop over hands or cards.

The features (``FEATURE_NAMES``, in column order; suit letters ``c d h s``):

Per suit (permuting two side suits permutes exactly these columns):
  ``len_<s>``                  suit length: long spades win by length, short side suits ruff.
  ``ace_<s> king_<s> queen_<s> jack_<s>``
                               honour flags (0/1): where the high cards sit matters, not just
                               how many there are.
  ``run_<s>``                  top sequence from the ace held (A = 1, AK = 2, AKQ = 3, ...):
                               these cards are the boss cards of their suit.
Spades (trumps):
  ``spades_ge_q spades_ge_t spades_ge_8``
                               spades ranked at least Q, 10, 8: middle spades become winners
                               once the top ones fall, and they trump side suits.
  ``spade_extra``              ``max(0, len_s - 3)``: spades beyond the third usually win by
                               length because opponents run out.
  ``spade_length_winners``     ``E[max(0, len_s - longest opponent spade holding)]`` under a
                               uniform deal of the unseen cards: spades that win by length alone.
  ``hcp_spades``               honour points in spades (A 4, K 3, Q 2, J 1).
Shape of the side suits (clubs, diamonds, hearts only: a short trump suit does not ruff):
  ``side_voids side_singletons side_doubletons``
                               counts of side suits with 0, 1, 2 cards.
  ``longest_side``             length of the longest side suit.
  ``ruff_potential``           ``min(shortness, len_s - run_s)`` where shortness scores each
                               side suit 3 / 2 / 1 for void / singleton / doubleton (how many of
                               the first three rounds of that suit you could ruff). Only spades
                               outside the top run count: a top spade wins a trick anyway, so
                               ruffing with it adds nothing.
High-card winners:
  ``side_aces``                aces in side suits.
  ``side_sure_winners``        integer rule of thumb: a side ace counts 1; a side A-K counts 2
                               when the suit has at most 4 cards. The second round of a suit is
                               only safe while every opponent can still follow, which is likely
                               when the opponents hold many cards of it, i.e. when *our* length
                               is short (P(second round goes round) is 0.67 at length 4, 0.52 at 5).
  ``guarded_kings``            kings (any suit) with at least one other card of their suit: the
                               guard lets the king survive a lead of the ace.
  ``sure_high_winners``        the top run in spades counted in full, plus for each side suit
                               ``sum_{k <= run} P(all three opponents hold >= k cards of the suit)``
                               under a uniform deal of the 39 unseen cards (exact multivariate
                               hypergeometric): the k-th boss card only wins if nobody has run
                               out (and trumps) by round k, so long side suits are discounted.
  ``hcp``                      honour points over all suits (A 4, K 3, Q 2, J 1).
Seat:
  ``seat_0 .. seat_3``         one-hot seat: seat 0 bids first and leads trick 1, and the lead
                               position changes how many side winners can be cashed.

Features assume full 13-card hands (the discount tables assume the opponents hold the other 39
cards, 13 each); other card counts raise a :class:`~callbreak_lab.errors.ModelError`, and
seats outside 0..3 a ``SeatError``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from math import comb
from typing import Protocol

import numpy as np
import numpy.typing as npt

from callbreak_lab.cards import FULL_MASK, SPADE_MASK, SUIT_MASK13, Suit
from callbreak_lab.errors import ModelError, SeatError

__all__ = [
    "FEATURE_NAMES",
    "N_FEATURES",
    "SIDE_SUIT_ORDERS",
    "HasMask",
    "feature_dict",
    "features_for",
    "hand_features",
    "mask_of",
    "rename_side_suits",
    "suit_patterns",
    "validate_hands",
]

SUIT_LETTERS = ("c", "d", "h", "s")
SIDE_SUITS = (0, 1, 2)
ACE, KING, QUEEN, JACK = 12, 11, 10, 9


class HasMask(Protocol):
    """Anything exposing a 52-bit ``mask`` (e.g. ``callbreak_lab.cards.Hand``)."""

    @property
    def mask(self) -> int: ...


# ---------------------------------------------------------------------------------------------
# Per-pattern lookup tables (index = 13-bit suit pattern)
# ---------------------------------------------------------------------------------------------

_PATTERNS = np.arange(1 << 13, dtype=np.int64)
_BITS = (_PATTERNS[:, None] >> np.arange(13)) & 1  # (8192, 13), column r = rank r held

#: number of cards in the pattern
LEN_TABLE: np.ndarray = _BITS.sum(axis=1).astype(np.int64)
#: top sequence from the ace down (A=1, AK=2, ...)
RUN_TABLE: np.ndarray = np.cumprod(_BITS[:, ::-1], axis=1).sum(axis=1).astype(np.int64)
#: honour points A 4, K 3, Q 2, J 1
HCP_TABLE: np.ndarray = (
    4 * _BITS[:, ACE] + 3 * _BITS[:, KING] + 2 * _BITS[:, QUEEN] + _BITS[:, JACK]
).astype(np.int64)
#: cards of rank >= r, column r (0..12)
GE_TABLE: np.ndarray = np.cumsum(_BITS[:, ::-1], axis=1)[:, ::-1].astype(np.int64)


def _survival_table() -> np.ndarray:
    """``S[L, k]``: P(each opponent holds >= k cards of a suit | we hold L of it).

    The ``13 - L`` missing cards of the suit lie uniformly among the 39 unseen cards, dealt 13 to
    each of three opponents (multivariate hypergeometric). ``S[L, 0] = 1``.
    """
    table = np.zeros((14, 14), dtype=np.float64)
    for length in range(14):
        missing = 13 - length
        total = comb(39, missing)
        for k in range(14):
            ways = 0
            for a in range(k, 14):
                for b in range(k, 14):
                    c = missing - a - b
                    if k <= c <= 13:
                        ways += comb(13, a) * comb(13, b) * comb(13, c)
            table[length, k] = ways / total
    return table


def _length_winner_table() -> np.ndarray:
    """``W[L]``: E[max(0, L - longest opponent holding)] for a suit where we hold L cards.

    For spades these are the tricks won by length alone: once the opponent with the most trumps
    is out of them, every remaining spade of ours wins. Same hypergeometric model as
    :func:`_survival_table`.
    """
    table = np.zeros(14, dtype=np.float64)
    for length in range(14):
        missing = 13 - length
        expected = 0
        for a in range(14):
            for b in range(14):
                c = missing - a - b
                if 0 <= c <= 13:
                    expected += (
                        comb(13, a) * comb(13, b) * comb(13, c) * max(0, length - max(a, b, c))
                    )
        table[length] = expected / comb(39, missing)
    return table


SURVIVAL: np.ndarray = _survival_table()
LENGTH_WINNERS: np.ndarray = _length_winner_table()
#: expected winners from the top run of a side suit, discounted by the suit's length
SIDE_RUN_WINNERS_TABLE: np.ndarray = np.array(
    [SURVIVAL[LEN_TABLE[p], 1 : RUN_TABLE[p] + 1].sum() for p in range(1 << 13)],
    dtype=np.float64,
)
#: integer rule of thumb for sure winners in a side suit (see module docstring)
SIDE_SURE_TABLE: np.ndarray = (
    _BITS[:, ACE] + (_BITS[:, ACE] & _BITS[:, KING] & (LEN_TABLE <= 4))
).astype(np.int64)
#: king held with at least one other card of its suit
GUARDED_KING_TABLE: np.ndarray = (_BITS[:, KING] & (LEN_TABLE >= 2)).astype(np.int64)

for _table in (
    LEN_TABLE,
    RUN_TABLE,
    HCP_TABLE,
    GE_TABLE,
    SURVIVAL,
    LENGTH_WINNERS,
    SIDE_RUN_WINNERS_TABLE,
    SIDE_SURE_TABLE,
    GUARDED_KING_TABLE,
):
    _table.setflags(write=False)

# ---------------------------------------------------------------------------------------------
# Feature names
# ---------------------------------------------------------------------------------------------

_HONOURS = (("ace", ACE), ("king", KING), ("queen", QUEEN), ("jack", JACK))

FEATURE_NAMES: tuple[str, ...] = (
    *(f"len_{s}" for s in SUIT_LETTERS),
    *(f"{name}_{s}" for s in SUIT_LETTERS for name, _ in _HONOURS),
    *(f"run_{s}" for s in SUIT_LETTERS),
    "spades_ge_q",
    "spades_ge_t",
    "spades_ge_8",
    "spade_extra",
    "spade_length_winners",
    "hcp_spades",
    "side_voids",
    "side_singletons",
    "side_doubletons",
    "longest_side",
    "ruff_potential",
    "side_aces",
    "side_sure_winners",
    "guarded_kings",
    "sure_high_winners",
    "hcp",
    "seat_0",
    "seat_1",
    "seat_2",
    "seat_3",
)
N_FEATURES = len(FEATURE_NAMES)
_COL = {name: i for i, name in enumerate(FEATURE_NAMES)}

#: two helper columns after the features: side-suit shortness (3 / 2 / 1 for a void /
#: singleton / doubleton) and spades outside the top run; ``ruff_potential`` is their minimum
_SHORTNESS = N_FEATURES
_LOOSE_SPADES = N_FEATURES + 1


def _suit_rows() -> np.ndarray:
    """``R[s, p]``: what suit ``s`` holding pattern ``p`` adds to each column (float64, with the
    two helper columns); a hand's features are ``R[0, p0] + R[1, p1] + R[2, p2] + R[3, p3]``
    except ``longest_side``, ``ruff_potential`` and the seat, which are not sums over suits."""
    rows = np.zeros((4, 1 << 13, N_FEATURES + 2), dtype=np.float64)
    bits = _BITS
    for s, letter in enumerate(SUIT_LETTERS):
        r = rows[s]
        r[:, _COL[f"len_{letter}"]] = LEN_TABLE
        for name, rank in _HONOURS:
            r[:, _COL[f"{name}_{letter}"]] = bits[:, rank]
        r[:, _COL[f"run_{letter}"]] = RUN_TABLE
        r[:, _COL["guarded_kings"]] = GUARDED_KING_TABLE
        r[:, _COL["hcp"]] = HCP_TABLE
        if s == Suit.SPADES:
            r[:, _COL["spades_ge_q"]] = GE_TABLE[:, QUEEN]
            r[:, _COL["spades_ge_t"]] = GE_TABLE[:, 8]
            r[:, _COL["spades_ge_8"]] = GE_TABLE[:, 6]
            r[:, _COL["spade_extra"]] = np.maximum(LEN_TABLE - 3, 0)
            r[:, _COL["spade_length_winners"]] = LENGTH_WINNERS[LEN_TABLE]
            r[:, _COL["hcp_spades"]] = HCP_TABLE
            r[:, _COL["sure_high_winners"]] = RUN_TABLE
            r[:, _LOOSE_SPADES] = LEN_TABLE - RUN_TABLE
        else:
            r[:, _COL["side_voids"]] = LEN_TABLE == 0
            r[:, _COL["side_singletons"]] = LEN_TABLE == 1
            r[:, _COL["side_doubletons"]] = LEN_TABLE == 2
            r[:, _COL["side_aces"]] = bits[:, ACE]
            r[:, _COL["side_sure_winners"]] = SIDE_SURE_TABLE
            r[:, _COL["sure_high_winners"]] = SIDE_RUN_WINNERS_TABLE
            r[:, _SHORTNESS] = np.maximum(3 - LEN_TABLE, 0)
    rows.setflags(write=False)
    return rows


_SUIT_ROWS: np.ndarray = _suit_rows()

# ---------------------------------------------------------------------------------------------
# Vectorised core
# ---------------------------------------------------------------------------------------------

_SHIFTS = np.array([0, 13, 26, 39], dtype=np.uint64)


def suit_patterns(masks: np.ndarray) -> np.ndarray:
    """(n,) uint64 masks -> (n, 4) int64 13-bit suit patterns (columns clubs .. spades)."""
    return ((masks[:, None] >> _SHIFTS) & np.uint64(SUIT_MASK13)).astype(np.int64)


def validate_hands(
    masks: npt.ArrayLike, seats: npt.ArrayLike | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Coerce and check masks (52-bit, 13 cards each) and seats (0..3, same length).

    Returns ``(masks as uint64 (n,), seats as int64 (n,))``; ``seats=None`` means all seat 0.
    """
    arr, seat_arr, _ = _checked(masks, seats)
    return arr, seat_arr


def _checked(
    masks: npt.ArrayLike, seats: npt.ArrayLike | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`validate_hands` plus the (n, 4) suit patterns it computed on the way."""
    raw = np.asarray(masks)
    if raw.ndim != 1:
        raise ModelError(f"masks must be a 1-D array of hand masks, got shape {raw.shape}")
    if raw.dtype == object or raw.dtype.kind not in "iu":
        try:
            raw = np.array([int(m) for m in raw.tolist()], dtype=np.uint64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ModelError(f"masks must be integers (52-bit hand masks): {exc}") from None
    if raw.dtype.kind == "i" and raw.size and int(raw.min()) < 0:
        raise ModelError("hand masks must be non-negative")
    arr = raw.astype(np.uint64)
    if arr.size and int(arr.max()) > FULL_MASK:
        bad = int(np.argmax(arr > np.uint64(FULL_MASK)))
        raise ModelError(f"mask at index {bad} has bits above bit 51: {int(arr[bad]):#x}")
    pats = suit_patterns(arr)
    counts = LEN_TABLE[pats].sum(axis=1)
    if arr.size and np.any(counts != 13):
        bad = int(np.argmax(counts != 13))
        raise ModelError(
            f"hand at index {bad} has {int(counts[bad])} cards; features need 13-card hands"
        )
    if seats is None:
        seat_arr = np.zeros(arr.shape[0], dtype=np.int64)
    else:
        seat_raw = np.asarray(seats)
        if seat_raw.ndim == 0:
            seat_raw = np.full(arr.shape[0], seat_raw)
        if seat_raw.shape != arr.shape:
            raise ModelError(f"seats shape {seat_raw.shape} does not match masks shape {arr.shape}")
        if seat_raw.size and seat_raw.dtype.kind not in "iu":
            raise SeatError(f"seats must be integers 0..3, got dtype {seat_raw.dtype}")
        seat_arr = seat_raw.astype(np.int64)
        if seat_arr.size and (seat_arr.min() < 0 or seat_arr.max() > 3):
            raise SeatError("seats must be in 0..3")
    return arr, seat_arr, pats


def hand_features(masks: npt.ArrayLike, seats: npt.ArrayLike | None = None) -> np.ndarray:
    """Feature matrix ``(n, N_FEATURES)`` float32 for ``n`` hands (uint64 masks) and seats.

    Columns follow :data:`FEATURE_NAMES`; see the module docstring for what each one means.
    ``seats`` may be a scalar (all hands in one seat) or ``None`` (seat 0).
    """
    arr, seat_arr, pats = _checked(masks, seats)  # pats: (n, 4) suit patterns
    n = arr.shape[0]
    # every column but three is a sum over the suits of a per-suit table row (added in suit
    # order clubs .. spades, so the float sums are the same as adding the columns one by one)
    acc = (
        _SUIT_ROWS[0, pats[:, 0]]
        + _SUIT_ROWS[1, pats[:, 1]]
        + _SUIT_ROWS[2, pats[:, 2]]
        + _SUIT_ROWS[3, pats[:, 3]]
    )
    side_lens = LEN_TABLE[pats[:, :3]]
    acc[:, _COL["longest_side"]] = side_lens.max(axis=1)
    acc[:, _COL["ruff_potential"]] = np.minimum(acc[:, _SHORTNESS], acc[:, _LOOSE_SPADES])
    if n:
        acc[np.arange(n), _COL["seat_0"] + seat_arr] = 1.0
    out: np.ndarray = acc[:, :N_FEATURES].astype(np.float32)
    return out


#: The six orders of the side suits (clubs, diamonds, hearts): ``SIDE_SUIT_ORDERS[k][s]`` is
#: where suit ``s`` goes. The rules treat the three side suits alike, so a deal with its side
#: suits renamed is another deal with the same trick counts (up to the play-out's tie-break
#: between equally good cards of different suits).
SIDE_SUIT_ORDERS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(3)))


def rename_side_suits(masks: npt.ArrayLike, order: Sequence[int]) -> np.ndarray:
    """The hands ``masks`` (uint64) with side suit ``s`` renamed ``order[s]``; spades stay."""
    if sorted(order) != [0, 1, 2]:
        raise ModelError(f"order must be a permutation of 0, 1, 2, got {tuple(order)!r}")
    m = np.asarray(masks, dtype=np.uint64)
    out = m & np.uint64(SPADE_MASK)
    for s in range(3):
        out |= ((m >> np.uint64(13 * s)) & np.uint64(SUIT_MASK13)) << np.uint64(13 * int(order[s]))
    return out


def mask_of(hand: HasMask | int | np.integer) -> int:
    """The int mask of a ``Hand`` (anything with ``.mask``) or of a plain integer mask."""
    if isinstance(hand, int | np.integer):
        return int(hand)
    return int(hand.mask)


def features_for(hand: HasMask | int | np.integer, seat: int = 0) -> np.ndarray:
    """Feature vector ``(N_FEATURES,)`` float32 for one hand (a ``Hand`` or an int mask)."""
    mask = mask_of(hand)
    row: np.ndarray = hand_features(np.array([mask], dtype=np.uint64), np.array([seat]))[0]
    return row


def feature_dict(hand: HasMask | int | np.integer, seat: int = 0) -> dict[str, float]:
    """``{feature name: value}`` for one hand: handy for display and for tests."""
    return dict(zip(FEATURE_NAMES, features_for(hand, seat).tolist(), strict=True))
