"""Rule-of-thumb bidding baselines, the kind public Call Break bots use.

Each rule looks only at the bidder's own 13 cards, counts "likely tricks" by a fixed recipe and
clamps the count into the ruleset's call range ``[min_call, max_call]`` (so a hand worth 0 still
calls 1, or 2 under the ``strict`` and ``home`` presets). They are vectorised over uint64 hand
masks through the per-suit-pattern tables of :mod:`callbreak_lab.bidding.features`.

They are the yardsticks the bid model has to beat; none of them looks at the seat, which is
accepted only so every bidder shares one signature.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
import numpy.typing as npt

from callbreak_lab.bidding.features import (
    ACE,
    JACK,
    KING,
    LEN_TABLE,
    QUEEN,
    HasMask,
    mask_of,
    suit_patterns,
    validate_hands,
)
from callbreak_lab.cards import Suit
from callbreak_lab.errors import ModelError, RulesError

__all__ = [
    "BASELINES",
    "CallRange",
    "baseline_call",
    "baseline_calls",
    "baseline_counts",
    "clamp_calls",
    "count_aces_kings",
    "count_with_support",
    "fractional_honours",
]


class CallRange(Protocol):
    """What a baseline needs from a ruleset (``callbreak_lab.rules.Ruleset`` fits)."""

    @property
    def min_call(self) -> int: ...

    @property
    def max_call(self) -> int: ...


Counter = Callable[[np.ndarray], np.ndarray]

_PATTERNS = np.arange(1 << 13, dtype=np.int64)


def _bit(rank: int) -> np.ndarray:
    return (_PATTERNS >> rank) & 1


# ------------------------------------------------------------------------------------------
# Per-pattern tables for the counting rules
# ------------------------------------------------------------------------------------------

#: aces + kings in one suit
_AK_TABLE = (_bit(ACE) + _bit(KING)).astype(np.float64)
#: supported king: the ace is held too, or at least two other cards guard it (length >= 3)
_SUPPORTED_KING = (_bit(KING) & ((_bit(ACE) == 1) | (LEN_TABLE >= 3))).astype(np.float64)
_SIDE_FRACTION = 1.0 * _bit(ACE) + 0.5 * _bit(KING)
_SPADE_FRACTION = 1.0 * _bit(ACE) + 0.75 * _bit(KING) + 0.5 * _bit(QUEEN) + 0.25 * _bit(JACK)


def count_aces_kings(masks: np.ndarray) -> np.ndarray:
    """Count every ace and every king as one trick each (any suit).

    The simplest bot rule: top cards win, everything else is ignored. It overbids lone kings
    (which fall to the ace) and underbids long spades.
    """
    pats = suit_patterns(masks)
    counts: np.ndarray = _AK_TABLE[pats].sum(axis=1)
    return counts


def count_with_support(masks: np.ndarray) -> np.ndarray:
    """Aces, supported kings, long spades and one ruff per short side suit.

    * every ace counts 1;
    * a king counts 1 when its suit also holds the ace or at least two other cards (so it
      can wait for the ace to fall);
    * each spade beyond the third counts 1 (opponents run out of trumps);
    * each void or singleton side suit adds 1 while "spare" spades remain: spades not already
      counted above (spade length minus the counted spade ace/king minus the length bonus).
    """
    pats = suit_patterns(masks)
    aces = ((pats >> ACE) & 1).sum(axis=1)
    kings = _SUPPORTED_KING[pats]
    sp_len = LEN_TABLE[pats[:, Suit.SPADES]]
    extra = np.maximum(sp_len - 3, 0)
    spade_honours = ((pats[:, Suit.SPADES] >> ACE) & 1) + kings[:, Suit.SPADES]
    spare = np.maximum(sp_len - spade_honours - extra, 0)
    short = (LEN_TABLE[pats[:, : Suit.SPADES]] <= 1).sum(axis=1)
    counts: np.ndarray = aces + kings.sum(axis=1) + extra + np.minimum(short, spare)
    return counts


def fractional_honours(masks: np.ndarray) -> np.ndarray:
    """Fractional trick values for honours plus a spade length bonus, rounded.

    * side suits: A = 1, K = 0.5 (a king wins about half the time);
    * spades: A = 1, K = 0.75 (only the ace beats it), Q = 0.5, J = 0.25 (they become winners
      as the top spades fall and can ruff side suits);
    * each spade beyond the third adds 1.

    The sum is rounded half up (``floor(x + 0.5)``, so 2.5 calls 3) before clamping; the
    unrounded value comes from :func:`baseline_counts`.
    """
    pats = suit_patterns(masks)
    side = _SIDE_FRACTION[pats[:, : Suit.SPADES]].sum(axis=1)
    spades = _SPADE_FRACTION[pats[:, Suit.SPADES]]
    extra = np.maximum(LEN_TABLE[pats[:, Suit.SPADES]] - 3, 0)
    counts: np.ndarray = side + spades + extra
    return counts


#: name -> counting rule (uint64 masks (n,) -> trick count (n,), before rounding/clamping)
BASELINES: dict[str, Counter] = {
    "count_aces_kings": count_aces_kings,
    "count_with_support": count_with_support,
    "fractional_honours": fractional_honours,
}


def clamp_calls(counts: npt.ArrayLike, rules: CallRange) -> np.ndarray:
    """Round counts half up and clamp them into ``[rules.min_call, rules.max_call]`` (int64)."""
    lo, hi = int(rules.min_call), int(rules.max_call)
    if not 0 <= lo <= hi <= 13:
        raise RulesError(f"ruleset call range {lo}..{hi} is not within 0..13")
    rounded = np.floor(np.asarray(counts, dtype=np.float64) + 0.5).astype(np.int64)
    return np.clip(rounded, lo, hi)


def _counter(name: str) -> Counter:
    try:
        return BASELINES[name]
    except KeyError:
        known = ", ".join(sorted(BASELINES))
        raise ModelError(f"unknown baseline {name!r}; known: {known}") from None


def baseline_counts(
    name: str, masks: npt.ArrayLike, seats: npt.ArrayLike | None = None
) -> np.ndarray:
    """Unrounded, unclamped trick count of baseline ``name`` for each hand (float64)."""
    counter = _counter(name)
    arr, _ = validate_hands(masks, seats)
    return np.asarray(counter(arr), dtype=np.float64)


def baseline_calls(
    name: str, masks: npt.ArrayLike, seats: npt.ArrayLike | None, rules: CallRange
) -> np.ndarray:
    """Calls (int64, shape (n,)) of baseline ``name`` for hands ``masks``, clamped to ``rules``."""
    return clamp_calls(baseline_counts(name, masks, seats), rules)


def baseline_call(
    name: str, hand: HasMask | int | np.integer, rules: CallRange, seat: int = 0
) -> int:
    """Call of baseline ``name`` for one hand (a ``Hand`` or an int mask)."""
    mask = mask_of(hand)
    return int(baseline_calls(name, np.array([mask], dtype=np.uint64), np.array([seat]), rules)[0])
