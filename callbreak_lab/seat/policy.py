"""The card choice of one seat: one parametrised policy behind the arena's ``pimc`` and
``strong`` players and the service's bot.

A :class:`SearchPolicy` chooses from a seat's :class:`~callbreak_lab.seat.knowledge.Knowledge`:

* a forced card is played at once; while more than ``search_cards`` cards are in the hands, the
  cheap card (``cheap_card``: no search);
* otherwise it draws up to ``layouts`` layouts of the hidden cards (``seat.layouts.draw``:
  weighted by the other seats' calls with ``beta`` > 0, uniform with 0), solves the seat's card
  values on each within the time limit and weighs each card's outcome over them
  (``seat.outcomes.judge``, the path single-dummy advice takes too), and plays the card with
  the best expected *score* of its call over them (``objective="score"``; ties to the higher
  mean value, then the lowest card) or the best mean value (``"tricks"``, and whenever its own
  call is not known);
* while more than ``window_above`` cards are in the hands and the call is still to make, each
  card's value is only placed against the call (``solver.card_values_within``: short of it,
  exactly it, or at least one trick over), which is all the score needs but the tenths of
  further overtricks, and takes far less time on a full deal, so more layouts fit the time
  (benchmarks/RESULTS.md).

With a time limit the policy spends ``budget_share`` of it searching (the rest covers the
answer's way back); the layout still being solved when that ends is stopped and left out, so as
many layouts as fit are solved and the answer is never late. Without one the answer depends only
on the knowledge and the seed: the seed of a decision is ``decision_seed(deal seed, cards
played)``, so the same seat in the same situation plays the same card wherever it is asked
(the arena, the service's bot, a notebook).

``STRONG``, ``PIMC`` and ``LEARNED`` are the three players' parameters, defined once here:
``LEARNED`` never searches (``search_cards=0``) and answers at once the card the learned play
policy (``seat.playmodel``) finds likeliest for the seat, the instant answer ``STRONG`` also
gives where a search does not fit the time.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from callbreak_lab.cards import Card, Hand, Suit, play_order_key
from callbreak_lab.errors import UsageError, check_int
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.knowledge import Knowledge, beats_trick, higher_in_suit
from callbreak_lab.seat.layouts import BETA, OVERSAMPLE
from callbreak_lab.seat.outcomes import CardOutcome, Judgement, judge

__all__ = [
    "LEARNED",
    "PIMC",
    "STRONG",
    "Choice",
    "Objective",
    "SearchPolicy",
    "cheap_card",
    "deal_seed",
    "decision_seed",
    "learned_card",
]

Objective = Literal["score", "tricks"]

SPADES = int(Suit.SPADES)

#: cards in the hands above which a seat that has not made its call yet places each card's
#: value against its call instead of finding it (the first three tricks)
WINDOW_ABOVE = 40


def decision_seed(*parts: int) -> int:
    """A seed from whole numbers (stable across runs, processes and machines)."""
    return int(np.random.SeedSequence([int(p) & 0xFFFFFFFF for p in parts]).generate_state(1)[0])


def deal_seed(base: int, dealt: int) -> int:
    """The seed of a seat's deal from a ``base`` seed and the 13 cards it was dealt (a mask):
    what the service's bot uses where the arena's referee hands each player a seed."""
    return decision_seed(base, dealt & 0xFFFFFFFF, dealt >> 32)


def cheap_card(rules: Ruleset, hand: int, trick: Sequence[int], record: Sequence[int]) -> Card:
    """The card without search: win the trick as cheaply as possible when a legal card wins it
    now, otherwise discard the lowest card (non-spades first). Leading: the highest card of a
    side suit when it is the best card left in that suit, else the lowest card of the longest
    side suit."""
    legal = Hand(rules.legal_mask(hand, trick, len(record) < 4))
    if not trick:
        gone = 0
        for c in record:
            gone |= 1 << c
        for c in sorted(legal, key=lambda c: -c.rank):
            if c.suit == SPADES:
                continue
            if not higher_in_suit(c) & ~gone & ~hand:
                return c
        side = [s for s in range(3) if legal.suit_count(s)]
        if side:
            longest = max(side, key=lambda s: (legal.suit_count(s), -s))
            return legal.suit(longest).lowest()
        return legal.lowest()
    winners = [c for c in legal if beats_trick(c, trick)]
    if winners:
        return min(winners, key=lambda c: (c.suit == SPADES, c.rank))
    return min(legal, key=lambda c: (c.suit == SPADES, c.rank, c.suit))


def learned_card(k: Knowledge) -> Card:
    """The legal card of ``k.seat`` (to play) the shipped play policy of ``k.rules``
    (``seat.playmodel``) gives the highest probability, ties to the lowest card."""
    from callbreak_lab.seat.playmodel import card_proba, load_play_model

    proba = card_proba(load_play_model(k.rules), k)
    return min(proba, key=lambda c: (-proba[c], play_order_key(c)))


@dataclass(frozen=True)
class Choice:
    """A policy's answer: ``card``; ``how`` ("forced", "search", "cheap" or "learned": the card
    without search, "cheap (no layout solved)" or "learned (no layout solved)"); the search's
    ``layouts`` (draws solved, repeats counted), ``distinct`` layouts solved, ``candidates``
    weighed, ``ess`` (the call weights' effective sample size), ``window`` (the values' window,
    None when exact), ``outcomes`` per card (the clipped values' means under a window),
    ``slowest`` layout's seconds, ``stopped`` (the time ended before every layout),
    ``elapsed_ms``."""

    card: Card
    how: str
    layouts: int = 0
    distinct: int = 0
    candidates: int = 0
    ess: float = 0.0
    window: tuple[int, int] | None = None
    outcomes: dict[Card, CardOutcome] = field(default_factory=dict)
    slowest: float = 0.0
    stopped: bool = False
    elapsed_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain data (cards as text), best card first in ``outcomes``."""
        return {
            "card": str(self.card),
            "how": self.how,
            "layouts": self.layouts,
            "distinct": self.distinct,
            "candidates": self.candidates,
            "ess": round(self.ess, 1),
            "window": None if self.window is None else list(self.window),
            "outcomes": {str(c): o.to_dict() for c, o in self.outcomes.items()},
            "stopped": self.stopped,
            "elapsed_ms": round(self.elapsed_ms, 1),
        }


@dataclass(frozen=True)
class SearchPolicy:
    """The card choice over layouts of the hidden cards (see the module docstring).

    ``layouts``: layouts drawn a decision; ``objective``: ``"score"`` or ``"tricks"``;
    ``beta``: the calls' weight (0: uniform layouts); ``oversample``: candidates weighed per
    layout drawn; ``window_above``: cards in the hands above which values are placed against
    the call (52: never); ``search_cards``: cards in the hands above which the card without
    search is played (None: 52 with a time limit, 40 without: 64 full-deal layouts take
    seconds); ``budget_share``: the share of a time limit spent searching; ``fallback``: the
    card without search (while more than ``search_cards`` cards are in the hands, or when no
    layout was solved in time): ``"cheap"`` (``cheap_card``) or ``"learned"``
    (``learned_card``)."""

    layouts: int = 64
    objective: Objective = "score"
    beta: float = BETA
    oversample: int = OVERSAMPLE
    window_above: int = WINDOW_ABOVE
    search_cards: int | None = None
    budget_share: float = 0.8
    fallback: Literal["cheap", "learned"] = "cheap"

    def __post_init__(self) -> None:
        check_int(self.layouts, "layouts", low=1)
        if self.objective not in ("score", "tricks"):
            raise UsageError(f"objective must be 'score' or 'tricks', got {self.objective!r}")
        if not (isinstance(self.beta, int | float) and self.beta >= 0):
            raise UsageError(f"beta must be a number >= 0, got {self.beta!r}")
        if not 0 < self.budget_share <= 1:
            raise UsageError(f"budget_share must be in (0, 1], got {self.budget_share!r}")
        if self.fallback not in ("cheap", "learned"):
            raise UsageError(f"fallback must be 'cheap' or 'learned', got {self.fallback!r}")

    def instant_card(self, k: Knowledge) -> Card:
        """The policy's card for ``k.seat`` without search (``fallback``)."""
        if self.fallback == "learned":
            return learned_card(k)
        return cheap_card(k.rules, k.hand, k.trick, k.record)

    def replace(self, **changes: Any) -> SearchPolicy:
        """This policy with some parameters changed (checked again)."""
        return replace(self, **changes)

    def searches(self, k: Knowledge, time_limit: float | None) -> bool:
        """Whether the policy searches at this decision (not forced, few enough cards)."""
        limit = self.search_cards
        if limit is None:
            limit = 40 if time_limit is None else 52
        return k.legal_mask().bit_count() > 1 and k.cards_left <= limit

    def choose(self, k: Knowledge, time_limit: float | None = None, seed: int = 0) -> Choice:
        """The card for ``k.seat`` (to play) within ``time_limit`` seconds (None: every layout;
        the answer then depends only on ``k`` and ``seed``)."""
        t0 = time.perf_counter()
        legal = k.legal_mask()
        if legal.bit_count() == 1:
            only = Card((legal & -legal).bit_length() - 1)
            return Choice(only, "forced", elapsed_ms=(time.perf_counter() - t0) * 1000)
        if not self.searches(k, time_limit):
            return Choice(
                self.instant_card(k), self.fallback, elapsed_ms=(time.perf_counter() - t0) * 1000
            )
        objective: Objective = "tricks" if k.own_call is None else self.objective
        window = self._window(k, objective)
        remaining = None
        if time_limit is not None:
            remaining = max(0.0, self.budget_share * time_limit - (time.perf_counter() - t0))
        found = self.judge(k, seed, window=window, time_limit=remaining)
        card, how = None, f"{self.fallback} (no layout solved)"
        if found.outcomes is not None:
            card, how = found.outcomes.best(objective), "search"
            if not (legal >> card) & 1:  # a layout's value for a card the seat cannot play
                card, how = None, f"{self.fallback} (search answered an illegal card)"
        if card is None:
            card = self.instant_card(k)
        return Choice(
            card,
            how,
            layouts=int(found.weights.sum()),
            distinct=len(found.solved),
            candidates=found.drawn.candidates,
            ess=found.drawn.ess,
            window=window,
            outcomes={} if found.outcomes is None else found.outcomes.cards,
            slowest=found.solved.slowest,
            stopped=found.solved.stopped,
            elapsed_ms=(time.perf_counter() - t0) * 1000,
        )

    def judge(
        self,
        k: Knowledge,
        seed: int,
        *,
        window: tuple[int, int] | None = None,
        time_limit: float | None = None,
    ) -> Judgement:
        """The layouts the policy weighs for ``k`` and each card's outcome over them
        (``seat.outcomes.judge`` with the policy's ``layouts``, ``beta`` and ``oversample``),
        the values placed in ``window``, within ``time_limit`` seconds."""
        return judge(
            k,
            self.layouts,
            seed,
            beta=self.beta,
            oversample=self.oversample,
            window=window,
            time_limit=time_limit,
        )

    def _window(self, k: Knowledge, objective: Objective) -> tuple[int, int] | None:
        """The window the values are placed in (short of the call, exactly it, over it) while
        more than ``window_above`` cards are in the hands and the call is still to make; None:
        exact values."""
        need = 0 if k.own_call is None else k.own_call - k.won
        if objective == "score" and need >= 1 and k.cards_left > self.window_above:
            return (need - 1, need + 1)
        return None


#: the ``strong`` player's and the service bot's policy; without search it plays the learned
#: policy's card
STRONG = SearchPolicy(fallback="learned")

#: the ``pimc`` player's policy: sixteen uniform layouts, the best mean double-dummy value,
#: the cheap card in the first three tricks
PIMC = SearchPolicy(layouts=16, objective="tricks", beta=0.0, window_above=52, search_cards=40)


#: the ``learned`` player's policy: never searches; the learned play policy's likeliest card
#: (``learned_card``) at every decision, about a millisecond a card
LEARNED = SearchPolicy(search_cards=0, fallback="learned")
