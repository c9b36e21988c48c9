"""THE dealer of the hidden cards: the layouts a seat's judgement is made over.

Every judgement of a seat (the players, the service's bot, single-dummy advice, reviews) asks
this module for the layouts of the cards the seat cannot see, consistent with its
``Knowledge``:

* ``consistent_layouts``: every consistent layout, when there are few (exact answers);
* ``uniform_layouts``: layouts drawn uniformly among the consistent ones, by exact uniform
  dealing under the known cards and voids (``seat.dealing.deal_around``: the cards seen played
  placed at their seats, known voids as voids, a suit whose unseen cards are all excluded for a
  seat as a void too), then rejection of those that break a "no card above" limit; when the
  limits reject nearly every deal, the rest are drawn by exact counting (``counted_layouts``),
  equally likely too;
* ``draw``: what the judgements use. Each other seat's call is evidence about its hand (a seat
  that called 6 holds more high cards and spades than one that called 1), so each candidate
  layout gets the likelihood of the calls the other seats made had they held the layout's hands
  (``call_log_likelihood``), and the layouts are drawn by that weight, repeats merged into
  weights, the likeliest first; with ``exact_limit`` and at most that many consistent layouts,
  every one of them is taken with its weight instead (``Layouts.exact``). With ``play_weight``
  > 0 the cards the other seats played are evidence too (policy-based inference, below).

The likelihood of a call. A seat chooses its call from what its hand is worth: the bid model's
trick distribution for the hand gives the expected score of every legal call
(``bidding.calls.expected_scores``), and a player calls one of the best of them, not always the
very best. So ``P(call c | hand) = softmax(beta * E[score of c | hand])`` over the legal calls,
with ``beta`` in 1/points (``BETA``; ``benchmarks/inference.py`` measures the share of hidden
cards placed in the right seat for several values). ``beta = 0`` is the uniform dealer. The
layouts' hands are those *as dealt* (cards played included), which is what the calls were made
from. Drawing deals ``oversample * n`` uniform candidates, weighs them and draws ``n`` with
probability proportional to the weight (systematic resampling); the effective sample size of
the weights says how much the calls narrowed the field.

The likelihood of the play. A seat that led the K♥ rarely holds the A♥; one that trumped low
rarely holds a high spade. A learned play policy (``seat.playmodel``, trained on the ``strong``
player's own choices) gives the probability of each legal card for any hand, so each candidate
layout also gets ``play_weight * sum log max(P(card played | the hand the layout gave the seat
then), play_floor)`` over every card the other seats played (``play_log_likelihood``): the floor
keeps one surprising card from ruling a layout out, the weight (a temperature) how far the
policy is trusted. ``play_weight = 0`` (the default) leaves the dealer as it was, draw for draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from callbreak_lab.bidding import calls as call_rules
from callbreak_lab.cards import SUIT_MASKS, Hand
from callbreak_lab.errors import SolverInputError, UsageError, check_int
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.dealing import deal_around
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.util.stats import effective_sample_size

__all__ = [
    "BETA",
    "NO_LAYOUT",
    "OVERSAMPLE",
    "PLAY_FLOOR",
    "PLAY_OVERSAMPLE",
    "PLAY_WEIGHT",
    "Layouts",
    "call_log_likelihood",
    "consistent_layouts",
    "counted_layouts",
    "draw",
    "effective_size",
    "play_log_likelihood",
    "uniform_layouts",
]

#: sharpness of the call likelihood, in 1/points (see the module docstring)
BETA = 2.0

#: uniform candidates dealt per layout drawn: the calls' weights are uneven (a few candidates
#: fit them far better than the rest), and more candidates keep more distinct layouts
OVERSAMPLE = 8

#: the weight of the plays' likelihood when the card reading is on (``draw(play_weight=...)``;
#: tuned by benchmarks/inference.py on deals apart from those it reports)
PLAY_WEIGHT = 1.5

#: candidates dealt per layout drawn when the plays weigh them too: the plays' weights are far
#: more uneven than the calls', and more candidates keep a larger effective sample size
PLAY_OVERSAMPLE = 16

#: the least probability a card played counts for under the play policy (see the docstring)
PLAY_FLOOR = 0.02

#: the one error text for a table no layout fits
NO_LAYOUT = "no layout of the hidden cards fits what the table showed"

_EMPTY = np.zeros((0, 4), dtype=np.uint64)


@dataclass(frozen=True)
class Layouts:
    """Layouts of the hidden cards for a judgement: ``rows`` the distinct layouts (``(m, 4)``
    uint64 hand masks as dealt, the likeliest first), ``weights`` their weights (how often each
    was drawn, or each layout's call likelihood when ``exact``), ``candidates`` the layouts
    weighed, ``ess`` the effective sample size of the candidates' weights, ``exact`` whether
    ``rows`` are every consistent layout."""

    rows: np.ndarray
    weights: np.ndarray
    candidates: int
    ess: float
    exact: bool = False

    def __len__(self) -> int:
        return len(self.rows)


#: the effective sample size of weights (``util.stats.effective_sample_size``)
effective_size = effective_sample_size


def _others_and_needs(k: Knowledge) -> tuple[list[int], list[int], list[int]]:
    """The other seats, the unseen cards and the cards each other seat holds now; a
    ``SolverInputError`` when they do not add up to a deal."""
    others = [s for s in range(4) if s != k.seat]
    unseen_mask = k.unseen()
    unseen = [c for c in range(52) if (unseen_mask >> c) & 1]
    need = [13 - k.played_by[s].bit_count() for s in others]
    if sum(need) != len(unseen) or min(need) < 0:
        raise SolverInputError("the cards seen and the hand sizes do not add up to a deal")
    return others, unseen, need


def _ways(k: Knowledge) -> tuple[list[int], list[int], list[int], np.ndarray, np.ndarray]:
    """The other seats, the unseen cards, the cards each other seat holds now, ``allowed[i, j]``
    (the unseen card ``i`` may lie with the ``j``-th other seat: not excluded, not void) and
    ``ways[i, a, b]``: how many deals of the unseen cards ``i..`` give the first other seat
    ``a`` of them and the second ``b`` (the third the rest), each card to a seat allowed it.
    Floats (up to about 1e17, far below their range): exact enough for ratios and for a
    comparison with a count's limit."""
    others, unseen, need = _others_and_needs(k)
    banned = [k.banned(s) for s in others]
    allowed = np.array([[not (b >> c) & 1 for b in banned] for c in unseen], dtype=bool)
    m = len(unseen)
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
    return others, unseen, need, allowed, ways


def _count(need: list[int], ways: np.ndarray) -> float:
    """The number of consistent layouts (``_ways``'s count for the seats' hand sizes)."""
    return 0.0 if need[0] > 13 or need[1] > 13 else float(ways[0, need[0], need[1]])


def consistent_layouts(k: Knowledge, limit: int) -> np.ndarray | None:
    """Every layout of the hidden cards consistent with ``k`` (rows of the four hand masks as
    dealt, in the order of a search that gives the unseen cards in turn to the other seats in
    seat order), or None when there are more than ``limit``. The count comes first, from
    ``_ways``, and the search enters only branches that still lead to a layout, so its work is
    proportional to the layouts it returns (a search without the count could wander through
    millions of dead ends when the "no card above" limits are heavy)."""
    others, unseen, need, allowed, ways = _ways(k)
    if _count(need, ways) > limit:
        return None
    own = k.hand | k.played_by[k.seat]
    left = list(need)
    hands = [k.played_by[s] for s in others]
    rows: list[list[int]] = []

    def place(i: int) -> None:
        if i == len(unseen):
            row = [0, 0, 0, 0]
            row[k.seat] = own
            for j, s in enumerate(others):
                row[s] = hands[j]
            rows.append(row)
            return
        card = unseen[i]
        for j in range(3):
            if not left[j] or not allowed[i, j]:
                continue
            left[j] -= 1
            if ways[i + 1, left[0], left[1]] > 0:
                hands[j] |= 1 << card
                place(i + 1)
                hands[j] &= ~(1 << card)
            left[j] += 1

    place(0)
    return np.array(rows, dtype=np.uint64).reshape(-1, 4)


def counted_layouts(k: Knowledge, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` layouts consistent with ``k``, every one equally likely, drawn card by card with
    the number of ways to deal the rest (``_ways``), each card only to a seat that may hold it
    (not excluded, not void). Rows as ``uniform_layouts``; none when no layout fits.
    ``uniform_layouts`` uses it when rejection keeps too few: heavy "no card above" limits,
    where nearly every unconstrained deal breaks one."""
    others, unseen, need, allowed, ways = _ways(k)
    m = len(unseen)
    rows = np.zeros((n, 4), dtype=np.uint64)
    if n == 0 or _count(need, ways) == 0:
        return rows[:0]
    rows[:, k.seat] = k.hand | k.played_by[k.seat]
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


def uniform_layouts(k: Knowledge, n: int, seed: int | np.random.Generator) -> np.ndarray:
    """Up to ``n`` layouts of the unseen cards consistent with everything ``k`` saw, each
    equally likely: an ``(m, 4)`` array of the deal's hand masks (as dealt), ``m <= n`` (fewer
    only when no layout fits). Exact uniform dealing under the known cards and voids, then
    rejection of the layouts that give a seat a card it was shown not to hold (six rounds of
    ``4 n`` draws at most), the rest by exact counting."""
    seat = k.seat
    own = k.hand | k.played_by[seat]
    unseen = k.unseen()
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
        masks = deal_around(Hand(own), seat, max(4 * n, 16), rng, known=known, voids=voids)
        ok = np.all((masks & limits[None, :]) == 0, axis=1)
        kept.append(masks[ok])
        total += int(ok.sum())
        if total >= n:
            break
    if total < n:  # the limits reject nearly every deal: the rest by exact counting
        kept.append(counted_layouts(k, n - total, rng))
    return np.concatenate(kept)[:n]


def call_log_likelihood(
    masks: np.ndarray, seats: Sequence[int], made: Sequence[int], rules: Ruleset, beta: float
) -> np.ndarray:
    """``log P(calls | hands)`` of each layout (row of ``masks``, hands as dealt) for the seats
    ``seats`` that called ``made[i]`` (up to an additive constant)."""
    from callbreak_lab.bidding.estimator import encode_hands
    from callbreak_lab.bidding.model import load_model

    m = len(masks)
    if m == 0 or not seats:
        return np.zeros(m)
    legal = call_rules.legal_calls(rules)
    model = load_model(rules)
    hands = np.concatenate([masks[:, s] for s in seats]).astype(np.uint64)
    seat_col = np.repeat(np.asarray(seats, dtype=np.int64), m)
    proba = model.predict_proba(encode_hands(hands.astype(np.int64), seat_col))
    # expected score of every legal call, in points: (rows, n_calls)
    expected = proba @ call_rules.score_matrix(rules).T.astype(np.float64) / 10.0
    logits = beta * expected
    logits -= logits.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(logits).sum(axis=1))
    total = np.zeros(m)
    for i, call in enumerate(made):
        idx = np.flatnonzero(legal == call)
        if idx.size == 0:  # a call outside the preset's range tells nothing here
            continue
        rows = slice(i * m, (i + 1) * m)
        total += logits[rows, idx[0]] - log_norm[rows]
    return total


def play_log_likelihood(masks: np.ndarray, k: Knowledge, floor: float = PLAY_FLOOR) -> np.ndarray:
    """``sum log max(P(card played | hand then), floor)`` of each layout (row of ``masks``,
    hands as dealt) over every card the seats other than ``k.seat`` played, under the shipped
    play policy of ``k.rules`` (``seat.playmodel``)."""
    from callbreak_lab.seat.playmodel import load_play_model, record_states

    m = len(masks)
    movers, cards, before, states = record_states(k.record, k.calls)
    other = np.flatnonzero(movers != k.seat)
    if m == 0 or other.size == 0:
        return np.zeros(m)
    movers, cards, before = movers[other], cards[other], before[other]
    p = other.size
    hands = (masks[:, movers].astype(np.uint64) & ~before[None, :]).reshape(-1)
    tiled = states.take(np.tile(other, m)).with_hands(hands)
    rows, cand, proba = load_play_model(k.rules).state_proba(k.rules, tiled)
    played = np.zeros(m * p)
    hit = cand == np.tile(cards, m)[rows]
    played[rows[hit]] = proba[hit]
    return np.asarray(np.log(np.maximum(played, floor)).reshape(m, p).sum(axis=1))


def _callers(k: Knowledge) -> tuple[list[int], list[int]]:
    """The other seats whose calls ``k`` knows, and those calls."""
    others = [s for s in range(4) if s != k.seat and k.calls[s] is not None]
    return others, [int(k.calls[s]) for s in others]  # type: ignore[arg-type]


def _movers(k: Knowledge) -> list[int]:
    """The seat that played each card of ``k.record`` (seat 0 led the first trick)."""
    from callbreak_lab.game import record_seats

    return list(record_seats(k.record))[:-1]


def _merged(rows: np.ndarray, candidates: int, ess: float) -> Layouts:
    """``rows`` (with repeats) as distinct layouts weighted by their count, the most drawn
    first."""
    if not len(rows):
        return Layouts(_EMPTY, np.zeros(0), candidates, ess)
    distinct, counts = np.unique(rows, axis=0, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    return Layouts(distinct[order], counts[order].astype(np.float64), candidates, ess)


def draw(
    k: Knowledge,
    n: int,
    seed: int | np.random.Generator,
    *,
    beta: float = BETA,
    oversample: int = OVERSAMPLE,
    exact_limit: int = 0,
    play_weight: float = 0.0,
    play_floor: float = PLAY_FLOOR,
) -> Layouts:
    """The layouts a judgement of ``k.seat`` is made over (see the module docstring): every
    consistent layout with its call likelihood when there are at most ``exact_limit``, else
    ``n`` drawn by the likelihood of the other seats' calls (``k.calls``) from ``oversample * n``
    uniform candidates, repeats merged; with ``play_weight`` > 0 the likelihood of the other
    seats' plays under the play policy weighs them too (floored at ``play_floor``). None
    fitting: no rows (a seat's plays contradict each other)."""
    n = check_int(n, "layouts", low=1)
    oversample = check_int(oversample, "oversample", low=1)
    if not (isinstance(play_weight, int | float) and play_weight >= 0):
        raise UsageError(f"play_weight must be a number >= 0, got {play_weight!r}")
    callers, made = _callers(k)
    by_play = play_weight > 0 and any(s != k.seat for s in _movers(k))

    def log_likelihood(masks: np.ndarray) -> np.ndarray:
        total = call_log_likelihood(masks, callers, made, k.rules, beta)
        if by_play:
            total = total + play_weight * play_log_likelihood(masks, k, play_floor)
        return total

    if exact_limit:
        every = consistent_layouts(k, exact_limit)
        if every is not None and len(every):
            loglik = log_likelihood(every)
            weights = np.exp(loglik - loglik.max())
            return Layouts(every, weights, len(every), effective_size(weights), exact=True)
    rng = np.random.default_rng(seed)
    try:
        if (beta == 0 or not callers) and not by_play:
            plain = uniform_layouts(k, int(n), rng)
            return _merged(plain, len(plain), float(len(plain)))
        cand = uniform_layouts(k, int(n) * oversample, rng)
    except SolverInputError:
        return Layouts(_EMPTY, np.zeros(0), 0, 0.0)
    if len(cand) == 0:
        return Layouts(_EMPTY, np.zeros(0), 0, 0.0)
    loglik = log_likelihood(cand)
    w = np.exp(loglik - loglik.max())
    w /= w.sum()
    ess = effective_sample_size(w)
    # systematic resampling: n evenly spaced points through the weights' cumulative sum
    points = (rng.random() + np.arange(n)) / n
    idx = np.minimum(np.searchsorted(np.cumsum(w), points), len(cand) - 1)
    return _merged(cand[idx], len(cand), ess)
