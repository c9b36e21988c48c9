"""Playing the last deal of a match for the match, not for the deal's points.

A match is won by the highest total after its last deal (ties share the win). On the last deal
the standings before it are known, so the chance of winning the match after a card is exact on
each layout of the hidden cards once every seat's tricks to the end are known: the four totals
plus the deal's scores (each seat's call against its tricks) decide it. The tricks to the end
after each legal card come from the self-interested play-out (``solver.playout``: every seat,
this one included, then plays the card that keeps its own double-dummy value highest), the
project's model of how a deal ends. The card with the highest weighted chance over the layouts
is the match card; between cards of equal chance (the match is won or lost either way) the
points decide, as before.

The play-outs cost one per legal card and layout, so the match objective is used only when the
standing can matter (the last deal, every call known, totals not level) and the hands are
small enough (``MATCH_CARDS``) for the play-outs to fit a decision's time.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from callbreak_lab.cards import Card, Deal, Hand
from callbreak_lab.errors import IllegalPlayError
from callbreak_lab.game import Position
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.util.stats import mean_se

__all__ = ["MATCH_CARDS", "match_chances", "standing_matters", "win_shares"]

#: the most cards in the hands at which the match objective is used (the play-outs of every
#: legal card on every layout must fit the time of a decision: six tricks or fewer to go)
MATCH_CARDS = 24


def win_shares(finals: np.ndarray) -> np.ndarray:
    """Each seat's share of the match win for final totals ``finals`` (``(..., 4)``): 1 for
    the one highest total, 1/k to each of k seats tied at the top, 0 otherwise."""
    f = np.asarray(finals)
    top = f == f.max(axis=-1, keepdims=True)
    out: np.ndarray = top / top.sum(axis=-1, keepdims=True)
    return out


def standing_matters(k: Knowledge) -> bool:
    """Whether the match objective applies to ``k``: its deal is the match's last (``deals_left``
    0), the totals before it are known and not all level, and every seat's call is known."""
    return (
        k.deals_left == 0
        and k.totals is not None
        and len(set(k.totals)) > 1
        and all(c is not None for c in k.calls)
    )


def _chance(k: Knowledge, row: np.ndarray, card: int) -> float | None:
    """The seat's share of the match win on one layout after ``card`` (None: the record does not
    replay on the layout)."""
    from callbreak_lab import solver

    deal = Deal([Hand(int(m)) for m in row])
    try:
        pos = Position.replay(deal, [*k.record, Card(card)], k.rules)
    except IllegalPlayError:
        return None
    tricks = solver.playout(pos).tricks
    assert k.totals is not None
    finals = [
        k.totals[s] + k.rules.score(int(k.calls[s]), int(tricks[s]))  # type: ignore[arg-type]
        for s in range(4)
    ]
    return float(win_shares(np.array(finals))[k.seat])


def match_chances(
    k: Knowledge,
    rows: np.ndarray,
    weights: np.ndarray,
    cards: Sequence[Card],
    time_limit: float | None = None,
) -> dict[Card, tuple[float, float]] | None:
    """Each of ``cards``' weighted chance of winning the match over the layouts ``rows`` (with
    ``weights``), with its standard error, for ``k.seat`` on the last deal; layouts are taken in
    order until ``time_limit`` seconds have passed (a layout is counted only with every card's
    chance on it, so the cards are compared on the same layouts). None when no layout was
    finished in time."""
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    chances: list[list[float]] = []
    kept: list[float] = []
    for row, weight in zip(rows, weights, strict=True):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        got = [_chance(k, row, int(c)) for c in cards]
        if any(x is None for x in got):
            continue
        chances.append([float(x) for x in got if x is not None])
        kept.append(float(weight))
    if not chances:
        return None
    table = np.array(chances)
    w = np.array(kept)
    return {c: mean_se(table[:, i], w, single=0.0) for i, c in enumerate(cards)}
