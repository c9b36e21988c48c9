"""Play by sampling: what a seat knows from the cards it saw, layouts consistent with it, and the
card with the best average double-dummy value over them (perfect-information Monte Carlo).

The arena's ``pimc`` player and the service's tournament bot (``service/bot.py``,
``service/jobs.py``) share this module, under any ruleset.

What the table tells. For each card ``c`` a seat played to a trick whose cards before it were
``T`` (led suit ``s``), every legal-card rule of docs/rules.md gives a set of cards the seat did
not hold *then*, so neither now (hands only shrink):

* ``c`` not of suit ``s``: no card of ``s`` (it would have had to follow).
* ``c`` of suit ``s`` below the card it had to beat (``must_beat``; the highest card of ``s`` in
  ``T`` when the trick is not trumped, the highest spade when spades were led): no card of ``s``
  above that card.
* void in ``s`` and ``c`` not a spade: with no spade in ``T``, no spade at all (a spade would
  have been compulsory); with a spade in ``T``, no spade above it (it would have had to
  overtrump), and under ``void_rule = strict`` no spade at all (even a losing spade is
  compulsory there).
* void in ``s`` and ``c`` a spade below the trick's highest spade: no spade above that one.
* leading a spade to the first trick under ``first_trick_spade_ban``: no card of another suit.

Together they are exactly the conditions for every observed card to have been legal, so every
layout that respects them replays without an illegal card. ``deal_layouts`` deals the unseen cards
with ``simulate.deal_around`` (the cards seen played placed at their seats, known voids as voids,
and a suit whose unseen cards are all excluded for a seat as a void too) and imposes the remaining
"no card above" limits by rejection; when the limits reject nearly every deal, the rest are
drawn by exact counting (``counted_layouts``), equally likely too.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from callbreak_lab.cards import FULL_MASK, SUIT_MASKS, Card, Deal, Hand, lowest_card
from callbreak_lab.errors import IllegalPlayError, SolverInputError
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset

__all__ = [
    "Knowledge",
    "beats_trick",
    "cheap_card",
    "counted_layouts",
    "deal_layouts",
    "higher_in_suit",
    "inference",
    "layout_values",
    "search",
]

SPADES = 3


def higher_in_suit(card: int) -> int:
    """Mask of the cards of ``card``'s suit ranked above it."""
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def inference(
    rules: Ruleset, trick: Sequence[int], card: int, first_trick: bool = False
) -> tuple[set[int], int]:
    """What playing ``card`` to ``trick`` (the cards before it) under ``rules`` shows about the
    player: the suits it is now known to be void in and the mask of cards it cannot hold."""
    if not trick:
        if first_trick and rules.first_trick_spade_ban and card // 13 == SPADES:
            return {0, 1, 2}, FULL_MASK & ~SUIT_MASKS[SPADES]
        return set(), 0
    led = trick[0] // 13
    spades = [c for c in trick if c // 13 == SPADES]
    top_spade = max(spades) if spades else -1
    if card // 13 == led:
        if not rules.must_beat:
            return set(), 0
        trumped = led != SPADES and top_spade >= 0
        top_led = max(c for c in trick if c // 13 == led)
        if not trumped and card < top_led:
            return set(), higher_in_suit(top_led)
        return set(), 0
    voids = {led}
    excluded = SUIT_MASKS[led]
    if card // 13 == SPADES:
        if top_spade >= 0 and card < top_spade:
            excluded |= higher_in_suit(top_spade)
        return voids, excluded
    if top_spade < 0 or rules.void_rule == "strict":
        voids.add(SPADES)
        excluded |= SUIT_MASKS[SPADES]
    else:
        excluded |= higher_in_suit(top_spade)
    return voids, excluded


@dataclass
class Knowledge:
    """What one seat knows during a deal: its hand now, every card played and by whom, and what
    the plays showed about the other hands (``voids``, ``excluded``: cards a seat cannot hold)."""

    rules: Ruleset
    seat: int
    hand: int  # the seat's current hand (mask)
    record: list[Card] = field(default_factory=list)  # every card played, in order
    trick: list[Card] = field(default_factory=list)  # the trick in progress
    leader: int = 0  # the seat leading the trick in progress
    played_by: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    voids: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    excluded: list[int] = field(default_factory=lambda: [0, 0, 0, 0])

    @classmethod
    def from_history(
        cls, rules: Ruleset, seat: int, hand: int, history: Iterable[tuple[int, int]]
    ) -> Knowledge:
        """The knowledge of ``seat`` holding ``hand`` now after the cards of ``history``
        (``(seat, card)`` in play order from the deal's start; seat 0 led the first trick)."""
        k = cls(rules, seat, hand)
        for who, card in history:
            k.add(who, Card(card))
        return k

    def add(self, seat: int, card: Card) -> None:
        """Record ``seat`` playing ``card`` to the trick in progress."""
        voids, excluded = inference(self.rules, self.trick, card, len(self.record) < 4)
        self.voids[seat] |= voids
        self.excluded[seat] |= excluded
        self.played_by[seat] |= 1 << card
        self.record.append(card)
        if not self.trick:
            self.leader = seat
        self.trick.append(card)
        if len(self.trick) == 4:
            self.trick = []
            self.leader = -1  # the winner; only the next card tells (see ``add``)

    def banned(self, seat: int) -> int:
        """The cards ``seat`` cannot hold now: those the plays excluded and its void suits."""
        mask = self.excluded[seat]
        for x in self.voids[seat]:
            mask |= SUIT_MASKS[x]
        return mask

    @property
    def first_trick(self) -> bool:
        """True while the deal's first trick is being played."""
        return len(self.record) < 4

    def legal_mask(self) -> int:
        """The seat's legal cards now (when it is to play)."""
        return self.rules.legal_mask(self.hand, self.trick, self.first_trick)

    def to_job(self) -> dict[str, Any]:
        """Plain data for a worker process (``from_job`` reads it back)."""
        return {
            "seat": self.seat,
            "hand": self.hand,
            "record": [int(c) for c in self.record],
            "played_by": list(self.played_by),
            "voids": [sorted(v) for v in self.voids],
            "excluded": list(self.excluded),
        }

    @classmethod
    def from_job(cls, job: dict[str, Any], rules: Ruleset) -> Knowledge:
        """The knowledge ``to_job`` wrote (the trick in progress from the record's length)."""
        record = [Card(c) for c in job["record"]]
        return cls(
            rules,
            int(job["seat"]),
            int(job["hand"]),
            record,
            record[len(record) - len(record) % 4 :],
            -1,
            [int(m) for m in job["played_by"]],
            [set(v) for v in job["voids"]],
            [int(m) for m in job["excluded"]],
        )


def beats_trick(card: int, trick: Sequence[int]) -> bool:
    """Whether ``card`` would win ``trick`` (the cards played to it so far) right now."""
    led = trick[0] // 13
    best = trick[0]
    for c in trick[1:]:
        if (c >= 39 and c > best) or (best < 39 and c // 13 == led and c > best):
            best = c
    return (card >= 39 and card > best) or (best < 39 and card // 13 == led and card > best)


def cheap_card(rules: Ruleset, hand: int, trick: Sequence[int], record: Sequence[int]) -> Card:
    """The sampling player's card without search: win the trick as cheaply as possible when a
    legal card wins it now, otherwise discard the lowest card (non-spades first). Leading: the
    highest card of a side suit when it is the best card left in that suit, else the lowest card
    of the longest side suit."""
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


def deal_layouts(k: Knowledge, n: int, seed: int | np.random.Generator) -> np.ndarray:
    """Up to ``n`` layouts of the unseen cards consistent with everything ``k`` saw: an
    ``(m, 4)`` array of the deal's hand masks (as dealt), ``m <= n``. Exact uniform dealing
    under the known cards and voids (``simulate.deal_around``), then rejection of the layouts
    that give a seat a card it was shown not to hold; six rounds of ``4 n`` draws at most."""
    from callbreak_lab import simulate

    seat = k.seat
    own = k.hand | k.played_by[seat]
    seen = 0
    for m in k.played_by:
        seen |= m
    unseen = FULL_MASK & ~seen & ~k.hand
    known = {s: Hand(k.played_by[s]) for s in range(4) if s != seat and k.played_by[s]}
    voids: dict[int, set[int]] = {}
    for s in range(4):
        if s == seat:
            continue
        suits = set(k.voids[s])
        for x in range(4):  # every unseen card of the suit excluded: a void
            if unseen & SUIT_MASKS[x] & ~k.excluded[s] == 0:
                suits.add(x)
        if suits:
            voids[s] = suits
    limits = np.array(
        [0 if s == seat else k.excluded[s] & ~k.played_by[s] for s in range(4)], dtype=np.uint64
    )
    rng = np.random.default_rng(seed)
    kept: list[np.ndarray] = []
    total = 0
    for _ in range(6):
        masks = simulate.deal_around(Hand(own), seat, max(4 * n, 16), rng, known=known, voids=voids)
        ok = np.all((masks & limits[None, :]) == 0, axis=1)
        kept.append(masks[ok])
        total += int(ok.sum())
        if total >= n:
            break
    if total < n:  # the limits reject nearly every deal: the rest by exact counting
        kept.append(counted_layouts(k, n - total, rng))
    return np.concatenate(kept)[:n]


def counted_layouts(k: Knowledge, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` layouts consistent with ``k``, every one equally likely, drawn card by card with
    the number of ways to deal the rest: ``ways[i, a, b]`` counts the deals of the unseen cards
    ``i..`` in which the first of the other seats takes ``a`` of them and the second ``b`` (the
    third the rest), each card only to a seat that may hold it (not excluded, not void). Rows as
    ``deal_layouts``; none when no layout fits. ``deal_layouts`` uses it when rejection keeps too
    few: heavy "no card above" limits, where nearly every unconstrained deal breaks one."""
    seat = k.seat
    others = [s for s in range(4) if s != seat]
    seen = k.hand
    for m in k.played_by:
        seen |= m
    unseen = [c for c in range(52) if not (seen >> c) & 1]
    banned = [k.banned(s) for s in others]
    allowed = np.array([[not (b >> c) & 1 for b in banned] for c in unseen], dtype=bool)
    need = [13 - k.played_by[s].bit_count() for s in others]
    m = len(unseen)
    if sum(need) != m:
        raise SolverInputError("the cards seen and the hand sizes do not add up to a deal")
    # ways[i, a, b] (float: up to about 1e17, far below its range; only ratios are used)
    ways = np.zeros((m + 1, 14, 14), dtype=np.float64)
    ways[m, 0, 0] = 1.0
    ga, gb = np.meshgrid(np.arange(14), np.arange(14), indexing="ij")
    for i in range(m - 1, -1, -1):
        gc = (m - i) - ga - gb  # cards left for the third seat
        nxt = ways[i + 1]
        w = np.zeros((14, 14))
        if allowed[i, 0]:
            w[1:, :] += nxt[:-1, :]
        if allowed[i, 1]:
            w[:, 1:] += nxt[:, :-1]
        if allowed[i, 2]:
            w += np.where(gc >= 1, nxt, 0.0)
        ways[i] = np.where((gc >= 0) & (gc <= 13), w, 0.0)
    rows = np.zeros((n, 4), dtype=np.uint64)
    if n == 0 or need[0] > 13 or need[1] > 13 or ways[0, need[0], need[1]] == 0:
        return rows[:0]
    rows[:, seat] = k.hand | k.played_by[seat]
    for s in others:
        rows[:, s] = k.played_by[s]
    left_a = np.full(n, need[0])
    left_b = np.full(n, need[1])
    for i, card in enumerate(unseen):
        nxt = ways[i + 1]
        to_a = np.where(allowed[i, 0] & (left_a > 0), nxt[np.maximum(left_a - 1, 0), left_b], 0.0)
        to_b = np.where(allowed[i, 1] & (left_b > 0), nxt[left_a, np.maximum(left_b - 1, 0)], 0.0)
        left_c = (m - i) - left_a - left_b
        to_c = np.where(allowed[i, 2] & (left_c > 0), nxt[left_a, left_b], 0.0)
        r = rng.random(n) * (to_a + to_b + to_c)
        pick = np.where(r < to_a, 0, np.where(r < to_a + to_b, 1, 2))
        bit = np.uint64(1 << card)
        for j, s in enumerate(others):
            rows[pick == j, s] |= bit
        left_a -= pick == 0
        left_b -= pick == 1
    return rows


def layout_values(
    k: Knowledge,
    layouts: np.ndarray,
    budget: float | None,
    window: tuple[int, int] | None = None,
    per_layout: float | None = None,
) -> tuple[list[tuple[int, dict[int, int]]], float]:
    """``solver.card_values`` for ``k.seat`` on each layout (rows of hand masks as dealt) in
    order (``window`` (lo, hi): ``solver.card_values_within``, the values clipped to it),
    within ``budget`` seconds (None: every layout): the layout still being solved when
    the budget ends is stopped and left out (``solver.time_limit``), so as many layouts as fit
    are solved and the call never runs late. ``per_layout`` seconds (None: no limit) stops any
    one layout sooner and goes on to the next: a full deal's solve time has a heavy tail (a few
    layouts take seconds where most take milliseconds), and one slow layout would otherwise
    take the whole budget. Returns ``(row index, {card: value})`` per layout solved (a layout
    the record cannot replay on is skipped) and the slowest layout's seconds (the stopped ones
    included)."""
    from callbreak_lab import solver

    t0 = time.perf_counter()
    deadline = None if budget is None else t0 + budget
    out: list[tuple[int, dict[int, int]]] = []
    worst = 0.0  # the slowest layout here
    with contextlib.ExitStack() as stack:
        if budget is not None and per_layout is None:  # one clock for the whole budget
            stack.enter_context(solver.time_limit(budget))
        for i, row in enumerate(layouts):
            now = time.perf_counter()
            if deadline is not None and now >= deadline:
                break
            deal = Deal([Hand(int(m)) for m in row])  # checked: microseconds beside the solve
            try:
                pos = Position.replay(deal, k.record, k.rules)
            except IllegalPlayError:
                continue
            limit = None  # a clock of its own for each layout (a tenth of a ms each) only here
            if per_layout is not None:
                limit = per_layout if deadline is None else min(per_layout, deadline - now)
            try:
                with solver.time_limit(limit) if limit is not None else contextlib.nullcontext():
                    if window is None:
                        values = solver.card_values(pos, k.seat, k.rules)
                    else:
                        values = solver.card_values_within(pos, k.seat, k.rules, *window)
            except solver.SearchTimeout:  # this layout's limit or the budget ended during it
                worst = max(worst, time.perf_counter() - now)
                if per_layout is None:
                    break
                continue
            out.append((i, {int(c): int(v) for c, v in values.items()}))
            worst = max(worst, time.perf_counter() - now)
    return out, worst


def search(
    k: Knowledge,
    budget: float | None,
    seed: int,
    max_layouts: int = 200,
) -> dict[str, Any]:
    """The card with the best average double-dummy value for ``k.seat`` over sampled layouts
    (``layout_values``), ties to the lowest card (``cards.play_order_key``).

    At most ``max_layouts`` layouts, within ``budget`` seconds (see ``layout_values``). Without
    a budget the answer depends only on the knowledge, ``seed`` and ``max_layouts``. Returns
    ``card`` (None when no layout was solved), ``layouts`` solved, ``sampled``, ``averages`` per
    card, ``per_solve`` (seconds of the slowest layout) and ``elapsed_ms``."""
    t0 = time.perf_counter()
    try:
        layouts = deal_layouts(k, max_layouts, seed)
    except SolverInputError:  # no layout fits (a seat's answers contradict each other)
        layouts = np.zeros((0, 4), dtype=np.uint64)
    remaining = None if budget is None else budget - (time.perf_counter() - t0)
    solved, worst = layout_values(k, layouts, remaining)
    totals: dict[int, float] = {}
    for _, values in solved:
        for c, v in values.items():
            totals[c] = totals.get(c, 0.0) + float(v)
    elapsed = (time.perf_counter() - t0) * 1000
    if not solved:
        return {"card": None, "layouts": 0, "sampled": len(layouts), "averages": {},
                "per_solve": worst, "elapsed_ms": elapsed}  # fmt: skip
    best = max(totals.values())
    choices = [c for c, v in totals.items() if v >= best - 1e-9]
    return {
        "card": int(lowest_card(choices)),
        "layouts": len(solved),
        "sampled": len(layouts),
        "averages": {str(Card(c)): v / len(solved) for c, v in totals.items()},
        "per_solve": worst,
        "elapsed_ms": elapsed,
    }
