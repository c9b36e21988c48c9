"""The αμ search over the layouts (Cazenave and Ventos, 2020): the seat's card chosen without
strategy fusion at its next decisions.

A search over layouts that solves each layout double-dummy (``SearchPolicy`` without αμ, the
PIMC of the literature) lets the seat play every later card knowing the layout: on one layout
it keeps the queen, on another the jack, and the card now is valued as if the seat could guess
right later. αμ removes that for the seat's next ``depth`` decisions (the one now included):

* the layouts travel together down one tree of the cards played; a node holds the layouts on
  which its cards are legal (the other seats' cards remove the layouts where they do not hold
  them);
* where the seat plays, its card is one for every layout of the node (it cannot tell them
  apart), so the node's *front* is the union of its cards' fronts: each vector a score per
  layout the seat can reach with one way of playing on;
* where another seat plays, it plays on each layout for itself (as the double-dummy values
  assume: the three others against the seat), so each way of playing on below keeps, per
  layout, the lowest of the cards' vectors: the front is every such combination;
* a vector another vector is at least as good as in every layout is dropped (Pareto fronts);
  past the seat's ``depth`` decisions, or at the end of the deal, the layouts' double-dummy
  values close the vectors.

Each card's value is the best weighted mean of a vector in its front; with ``depth`` 1 the
front is one vector and the values are the layouts' weighted double-dummy values (PIMC).
The tree grows with the other seats' cards across the layouts, so ``SearchPolicy`` searches this
way only near the end of a deal (``SearchPolicy.alphamu_cards``) and keeps its plain card when
the time ends first.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from callbreak_lab.cards import Card, Deal, Hand
from callbreak_lab.errors import IllegalPlayError
from callbreak_lab.game import Position
from callbreak_lab.seat.knowledge import Knowledge

if TYPE_CHECKING:
    from callbreak_lab.solver.api import Root

__all__ = ["ALPHAMU_CARDS", "ALPHAMU_DEPTH", "FRONT_CAP", "alphamu_values", "pareto"]

#: cards in the hands at or below which ``strong:am`` searches with αμ (the last four tricks)
ALPHAMU_CARDS = 16

#: the seat's decisions (the one now included) played without strategy fusion
ALPHAMU_DEPTH = 2

#: the most vectors a front keeps (the best by weighted mean): the product at another seat's
#: node can grow with every card it holds across the layouts
FRONT_CAP = 64


def pareto(front: np.ndarray, weights: np.ndarray, cap: int = FRONT_CAP) -> np.ndarray:
    """The rows of ``front`` (vectors of a score per layout) no other row is at least as good as
    in every layout (repeats once), at most ``cap`` of them (the best by ``weights``' mean)."""
    if len(front) <= 1:
        return front
    front = np.unique(front, axis=0)
    keep = np.ones(len(front), dtype=bool)
    for i in range(len(front)):
        if keep[i]:
            below = np.all(front <= front[i], axis=1)
            below[i] = False
            keep &= ~below
    front = front[keep]
    if len(front) > cap:
        front = front[np.argsort(-(front @ weights), kind="stable")[:cap]]
    return front


def seat_cards(root: Root) -> list[int]:
    """The mover's legal cards, one of each run of equivalent ones. For the seat searching they
    are the same on every layout: its hand and the cards still out are known to it."""
    from callbreak_lab.solver.api import legal_mask, representative

    legal = legal_mask(root)
    return sorted({representative(root, c) for c in range(52) if (legal >> c) & 1})


class _Search:
    """One αμ search: the seat, each total of tricks' objective, the layouts' weights, the
    deadline."""

    def __init__(
        self, seat: int, objective: np.ndarray, weights: np.ndarray, deadline: float | None
    ) -> None:
        self.seat = seat
        self.objective = objective
        self.weights = weights
        self.deadline = deadline
        from callbreak_lab.solver import api

        self.api = api
        self.eng = api.engine()

    def tick(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            from callbreak_lab.solver import SearchTimeout

            raise SearchTimeout("the αμ search ran out of time")

    def node(self, ids: np.ndarray, roots: list[Root], depth: int) -> np.ndarray:
        """The front of the node whose layouts are ``ids`` (their positions ``roots``), with
        ``depth`` of the seat's decisions still to play without fusion."""
        self.tick()
        api = self.api
        first = roots[0]
        seat = self.seat
        n = len(ids)
        if first.left == 0:
            got = self.objective[first.won[seat]]
            return np.full((1, n), got)
        if first.mover == seat:
            won = first.won[seat]
            if depth <= 0:
                vec = [self.objective[won + api.value_of(r, seat, self.eng)] for r in roots]
                return np.array([vec], dtype=np.float64)
            if depth == 1:
                values = [api.values_of(r, seat, self.eng) for r in roots]
                cards = seat_cards(first)
                front = np.array(
                    [[self.objective[won + v[c]] for v in values] for c in cards], dtype=np.float64
                )
                return pareto(front, self.weights[ids])
            fronts = [
                self.node(ids, [api.child(r, c)[0] for r in roots], depth - 1)
                for c in seat_cards(first)
            ]
            return pareto(np.concatenate(fronts), self.weights[ids])
        legal = np.array([api.legal_mask(r) for r in roots], dtype=np.uint64)
        moves = 0
        for m in legal:
            moves |= int(m)
        result = np.full((1, n), np.inf)
        w = self.weights[ids]
        while moves:
            c = (moves & -moves).bit_length() - 1
            moves &= moves - 1
            on = np.nonzero((legal >> np.uint64(c)) & np.uint64(1))[0]
            sub = self.node(ids[on], [api.child(roots[i], c)[0] for i in on], depth)
            wide = np.full((len(sub), n), np.inf)
            wide[:, on] = sub
            both = np.minimum(result[:, None, :], wide[None, :, :]).reshape(-1, n)
            result = pareto(both, w)
        return result


def alphamu_values(
    k: Knowledge,
    rows: np.ndarray,
    weights: Sequence[float] | np.ndarray,
    depth: int = 2,
    deadline: float | None = None,
) -> dict[Card, float]:
    """Each legal card of ``k.seat``'s (one of each run of equivalent ones stands for the run)
    and its best expected objective over the layouts ``rows`` (hand masks as dealt) weighted by
    ``weights``, the seat's next ``depth`` decisions played without strategy fusion: its score in
    points with its call known, else its deal total of tricks. Layouts the record does not
    replay on are left out; ``solver.SearchTimeout`` when ``deadline``
    (``time.perf_counter()``) passes first."""
    from callbreak_lab.solver.api import child, legal_mask, make_root, representative

    roots: list[Root] = []
    kept: list[float] = []
    for row, wt in zip(rows, weights, strict=True):
        deal = Deal([Hand(int(m)) for m in row])
        try:
            pos = Position.replay(deal, k.record, k.rules)
        except IllegalPlayError:
            continue
        roots.append(make_root(pos, k.rules))
        kept.append(float(wt))
    if not roots:
        return {}
    call = k.own_call
    if call is None:
        objective = np.arange(14, dtype=np.float64)
    else:
        objective = np.array([k.rules.score(call, t) / 10 for t in range(14)])
    w = np.array(kept, dtype=np.float64)
    w /= w.sum()
    search = _Search(k.seat, objective, w, deadline)
    ids = np.arange(len(roots))
    first = roots[0]
    legal = legal_mask(first)
    run_of = {d: representative(first, d) for d in range(52) if (legal >> d) & 1}
    best: dict[int, float] = {}
    for c in sorted(set(run_of.values())):
        front = search.node(ids, [child(r, c)[0] for r in roots], depth - 1)
        best[c] = float(np.max(front @ w))
    out = {Card(d): best[c] for d, c in run_of.items()}
    return out
