"""The card choice of one seat: one parametrised policy behind the arena's ``pimc`` and
``strong`` players and the service's bot.

A :class:`SearchPolicy` chooses from a seat's :class:`~callbreak_lab.seat.knowledge.Knowledge`:

* a forced card is played at once; while more than ``search_cards`` cards are in the hands, the
  cheap card (``cheap_card``: no search);
* otherwise it draws up to ``layouts`` layouts of the hidden cards (``seat.layouts.draw``:
  weighted by the other seats' calls with ``beta`` > 0, uniform with 0, and by the likelihood of
  the cards they played under the learned play policy with ``play_weight`` > 0), solves the
  seat's card values on each within the time limit (``seat.outcomes.solve_layouts``), and
  plays the card with the best expected *score* of its call over them (``objective="score"``;
  ties to the higher mean value, then the lowest card) or the best mean value (``"tricks"``,
  and whenever its own call is not known);
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

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from callbreak_lab.cards import Card, Hand, Suit, play_order_key
from callbreak_lab.errors import UsageError
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.alphamu import ALPHAMU_CARDS, alphamu_values
from callbreak_lab.seat.knowledge import Knowledge, beats_trick, higher_in_suit
from callbreak_lab.seat.layouts import BETA, OVERSAMPLE, PLAY_FLOOR, draw
from callbreak_lab.seat.matchplay import MATCH_CARDS, match_chances, standing_matters
from callbreak_lab.seat.outcomes import CardOutcome, Outcomes, card_outcomes, solve_layouts

__all__ = [
    "LEARNED",
    "PIMC",
    "PRUNE",
    "RIVALS",
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

#: the share of a decision's time one layout may take before it is left for the next under
#: ``strong:cap``: a full deal's solve time has a heavy tail, and one slow layout can take the
#: whole time; but the slow layouts are those where the cards' outcomes are close, so leaving
#: them out biases the choice
LAYOUT_SHARE = 0.125


#: the share of the learned play policy's likeliest card's probability below which the
#: ``strong:prune`` search leaves a card unvalued in the first three tricks (``SearchPolicy.prune``)
PRUNE = 0.05

#: ``strong:rivals``'s ``SearchPolicy.rivals``: with any other seat short of its call, a trick
#: outweighs the seat's own small risks to its call (benchmarks/RESULTS.md, "Reading the table")
RIVALS = 10.0


@functools.cache
def more_tricks_never_cost(rules: Ruleset) -> bool:
    """Whether one more trick never lowers a seat's score under ``rules`` (``tenths`` and
    ``flat`` scoring; not the scorings where a call overshot by two fails): only then can a
    trick be worth more to the seat than its own score says."""
    calls = range(rules.min_call, rules.max_call + 1)
    return all(rules.score(c, t + 1) >= rules.score(c, t) for c in calls for t in range(13))


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
    """A policy's answer: ``card``; ``how`` ("forced", "search", "alphamu" (the search
    without strategy fusion, ``SearchPolicy.alphamu``), "cheap" or "learned": the card without
    search, "cheap (no layout solved)" or "learned (no layout solved)"); the search's
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
    #: each card's chance of winning the match (on the match's last deal, ``match=True``)
    match: dict[Card, float] = field(default_factory=dict)

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
            "match": {str(c): round(p, 4) for c, p in self.match.items()},
        }


@dataclass(frozen=True)
class SearchPolicy:
    """The card choice over layouts of the hidden cards (see the module docstring).

    ``layouts``: layouts drawn a decision; ``objective``: ``"score"`` or ``"tricks"``;
    ``beta``: the calls' weight (0: uniform layouts); ``oversample``: candidates weighed per
    layout drawn; ``window_above``: cards in the hands above which values are placed against
    the call (52: never); ``layout_share``: one layout may take this share of the time at most
    (None: all of it); ``search_cards``: cards in the hands above which the cheap card is played
    without search (None: 52 with a time limit, 40 without: 64 full-deal layouts take seconds);
    ``budget_share``: the share of a time limit spent searching; ``match``: on the match's last
    deal, with the standings known and not level, play the card with the best chance of winning
    the match (``seat.matchplay``) once at most ``MATCH_CARDS`` cards are in the hands;
    ``play_weight``: the weight of the other seats' plays under the learned play policy in the
    dealer (0: not used), floored at ``play_floor`` and tempered to keep an effective sample
    size of ``min_ess`` (``seat.layouts.tempered``; 0: not tempered); ``fallback``: the card
    without search (while more than ``search_cards`` cards are in the hands, or when no layout
    was solved in time): ``"cheap"`` (``cheap_card``) or ``"learned"`` (``learned_card``);
    ``prune``: while more than ``prune_above`` cards are in the hands, the search values only
    the cards the learned play policy gives at least this share of its likeliest card's
    probability (``searched_cards``; 0: every legal card), so more layouts fit the time;
    ``resample``: the layouts drawn by resampling the weighted candidates (True) or the
    ``layouts`` likeliest distinct candidates weighted by their likelihood (False;
    ``seat.layouts.draw``); ``rivals``: the points a trick the seat takes is worth to it for
    each other seat still short of its call, divided by three (``trick_points``): in a
    duplicate margin or a match the others' scores count against the seat's, and a trick the
    seat takes is one of theirs (0: the seat's own score alone); ``alphamu``: with at most
    ``alphamu_cards`` cards in the hands, the card of the best expected score with the seat's
    next ``alphamu`` decisions played without strategy fusion (``seat.alphamu``; 0 or 1: the
    layouts solved one by one), kept only when that search ends within the time."""

    layouts: int = 64
    objective: Objective = "score"
    beta: float = BETA
    oversample: int = OVERSAMPLE
    window_above: int = WINDOW_ABOVE
    layout_share: float | None = None
    search_cards: int | None = None
    budget_share: float = 0.8
    match: bool = False
    play_weight: float = 0.0
    play_floor: float = PLAY_FLOOR
    min_ess: float = 0.0
    fallback: Literal["cheap", "learned"] = "cheap"
    prune: float = 0.0
    prune_above: int = WINDOW_ABOVE
    resample: bool = True
    rivals: float = 0.0
    alphamu: int = 0
    alphamu_cards: int = ALPHAMU_CARDS

    def __post_init__(self) -> None:
        if isinstance(self.layouts, bool) or not isinstance(self.layouts, int) or self.layouts < 1:
            raise UsageError(f"layouts must be a whole number >= 1, got {self.layouts!r}")
        if self.objective not in ("score", "tricks"):
            raise UsageError(f"objective must be 'score' or 'tricks', got {self.objective!r}")
        if not (isinstance(self.beta, int | float) and self.beta >= 0):
            raise UsageError(f"beta must be a number >= 0, got {self.beta!r}")
        if not (isinstance(self.play_weight, int | float) and self.play_weight >= 0):
            raise UsageError(f"play_weight must be a number >= 0, got {self.play_weight!r}")
        if not 0 < self.budget_share <= 1:
            raise UsageError(f"budget_share must be in (0, 1], got {self.budget_share!r}")
        if not (isinstance(self.min_ess, int | float) and self.min_ess >= 0):
            raise UsageError(f"min_ess must be a number >= 0, got {self.min_ess!r}")
        if self.fallback not in ("cheap", "learned"):
            raise UsageError(f"fallback must be 'cheap' or 'learned', got {self.fallback!r}")
        if not (isinstance(self.prune, int | float) and 0 <= self.prune <= 1):
            raise UsageError(f"prune must be a number in [0, 1], got {self.prune!r}")
        if not (isinstance(self.rivals, int | float) and 0 <= self.rivals <= 100):
            raise UsageError(f"rivals must be a number in [0, 100], got {self.rivals!r}")
        for name in ("prune_above", "alphamu", "alphamu_cards"):
            got = getattr(self, name)
            if isinstance(got, bool) or not isinstance(got, int) or not 0 <= got <= 52:
                raise UsageError(f"{name} must be a whole number in 0..52, got {got!r}")

    def instant_card(self, k: Knowledge) -> Card:
        """The policy's card for ``k.seat`` without search (``fallback``)."""
        if self.fallback == "learned":
            return learned_card(k)
        return cheap_card(k.rules, k.hand, k.trick, k.record)

    def searched_cards(self, k: Knowledge) -> int | None:
        """The mask of the legal cards the search values at this decision: with ``prune`` > 0
        and more than ``prune_above`` cards in the hands, those the learned play policy gives
        at least ``prune`` times the likeliest card's probability; otherwise None (every
        legal card)."""
        if self.prune <= 0 or k.cards_left <= self.prune_above:
            return None
        from callbreak_lab.seat.playmodel import card_proba, load_play_model

        proba = card_proba(load_play_model(k.rules), k)
        top = max(proba.values())
        mask = 0
        for c, p in proba.items():
            if p >= self.prune * top:
                mask |= 1 << c
        return mask

    def trick_points(self, k: Knowledge) -> float:
        """What one more trick of the seat's is worth beyond its own score at this decision:
        ``rivals`` times the share of the other seats still short of their calls (0 before
        the calls are known)."""
        if self.rivals <= 0 or not more_tricks_never_cost(k.rules):
            return 0.0
        short = 0
        for s in range(4):
            call = k.calls[s] if s < len(k.calls) else None
            if s != k.seat and call is not None and k.tricks_won[s] < call:
                short += 1
        return self.rivals * short / 3

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
        drawn = draw(
            k,
            self.layouts,
            seed,
            beta=self.beta,
            oversample=self.oversample,
            play_weight=self.play_weight,
            play_floor=self.play_floor,
            min_ess=self.min_ess,
            resample=self.resample,
        )
        own = k.own_call
        objective: Objective = "tricks" if own is None else self.objective
        window = self._window(k, objective)
        remaining = None
        if time_limit is not None:
            remaining = max(0.0, self.budget_share * time_limit - (time.perf_counter() - t0))
        per_layout = None
        if time_limit is not None and self.layout_share is not None:
            per_layout = self.layout_share * self.budget_share * time_limit
        solved = solve_layouts(
            k,
            drawn.rows,
            time_limit=remaining,
            window=window,
            per_layout=per_layout,
            cards=self.searched_cards(k),
        )
        weights = drawn.weights[list(solved.index)]
        outcomes = None
        card, how = None, f"{self.fallback} (no layout solved)"
        if len(solved):
            outcomes = card_outcomes(solved.values, weights, k.rules, own, k.won)
            card, how = outcomes.best(objective, self.trick_points(k)), "search"
            if not (legal >> card) & 1:  # a layout's value for a card the seat cannot play
                card, how = None, f"{self.fallback} (search answered an illegal card)"
            elif self.alphamu > 1 and k.cards_left <= self.alphamu_cards:
                deadline = None if time_limit is None else t0 + self.budget_share * time_limit
                rows = drawn.rows[list(solved.index)]
                card, how = self._without_fusion(k, rows, weights, outcomes, card, deadline)
        if card is None:
            card = self.instant_card(k)
        chances: dict[Card, float] = {}
        if how == "search" and outcomes is not None and self._for_the_match(k):
            left = None
            if time_limit is not None:
                left = max(0.0, self.budget_share * time_limit - (time.perf_counter() - t0))
            legal_cards = [c for c in outcomes.cards if (legal >> c) & 1]
            rows = drawn.rows[list(solved.index)]
            got = match_chances(k, rows, weights, legal_cards, left)
            if got is not None:
                chances = {c: p for c, (p, _se) in got.items()}
                card, how = _match_card(chances, outcomes.cards), "match"
        return Choice(
            card,
            how,
            layouts=int(weights.sum()),
            distinct=len(solved),
            candidates=drawn.candidates,
            ess=drawn.ess,
            window=window,
            outcomes={} if outcomes is None else outcomes.cards,
            slowest=solved.slowest,
            stopped=solved.stopped,
            elapsed_ms=(time.perf_counter() - t0) * 1000,
            match=chances,
        )

    def _window(self, k: Knowledge, objective: Objective) -> tuple[int, int] | None:
        """The window the values are placed in (short of the call, exactly it, over it) while
        more than ``window_above`` cards are in the hands and the call is still to make; None:
        exact values."""
        need = 0 if k.own_call is None else k.own_call - k.won
        if objective == "score" and need >= 1 and k.cards_left > self.window_above:
            return (need - 1, need + 1)
        return None

    def _without_fusion(
        self,
        k: Knowledge,
        rows: np.ndarray,
        weights: np.ndarray,
        outcomes: Outcomes,
        plain: Card,
        deadline: float | None,
    ) -> tuple[Card, str]:
        """The αμ card over the layouts solved, or the plain search's card when αμ does not end
        by ``deadline``."""
        from callbreak_lab.solver import SearchTimeout

        try:
            values = alphamu_values(k, rows, weights, self.alphamu, deadline)
        except SearchTimeout:
            return plain, "search"
        if not values:
            return plain, "search"
        return _alphamu_card(values, outcomes, plain), "alphamu"

    def _for_the_match(self, k: Knowledge) -> bool:
        return self.match and k.cards_left <= MATCH_CARDS and standing_matters(k)


def _alphamu_card(values: dict[Card, float], outcomes: Outcomes, plain: Card) -> Card:
    """The card of the best αμ value; between equal values the plain search's card, then the
    best mean value, then the lowest card."""
    top = max(values.values())
    best = [c for c, v in values.items() if v >= top - 1e-9]
    if plain in best:
        return plain
    return min(best, key=lambda c: (-outcomes.cards[c].tricks, play_order_key(c)))


def _match_card(chances: dict[Card, float], outcomes: dict[Card, CardOutcome]) -> Card:
    """The card with the best chance of winning the match; between equal chances the best
    expected score, then the best mean value, then the lowest card."""
    top = max(chances.values())
    best = [c for c, p in chances.items() if p >= top - 1e-9]
    return min(
        best,
        key=lambda c: (-(outcomes[c].expected or 0.0), -outcomes[c].tricks, play_order_key(c)),
    )


#: the ``strong`` player's and the service bot's policy; without search it plays the learned
#: policy's card, which beats the cheap card (benchmarks/RESULTS.md, "Reading the table")
STRONG = SearchPolicy(fallback="learned")

#: the ``pimc`` player's policy: sixteen uniform layouts, the best mean double-dummy value,
#: the cheap card in the first three tricks
PIMC = SearchPolicy(layouts=16, objective="tricks", beta=0.0, window_above=52, search_cards=40)


#: the ``learned`` player's policy: never searches; the learned play policy's likeliest card
#: (``learned_card``) at every decision, about a millisecond a card
LEARNED = SearchPolicy(search_cards=0, fallback="learned")
