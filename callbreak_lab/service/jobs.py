"""Solver work, run inside the worker processes of :mod:`callbreak_lab.service.pool`.

Every function takes and returns plain data (ints, strings, lists, dicts) so that it crosses the
process boundary cheaply. Inputs were validated by the request handlers already; a
``CallbreakLabError`` raised here still becomes a 422.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from callbreak_lab.cards import Card, Deal, Hand
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.knowledge import Knowledge

__all__ = [
    "advise",
    "analyse",
    "bot_play",
    "line",
    "monte_carlo",
    "ping",
    "review",
    "solve",
    "warm_up",
]


def _rules(data: dict[str, Any]) -> Ruleset:
    return Ruleset.from_dict(data)


def _position(deal: str, plays: str, rules: Ruleset) -> Position:
    return Position.replay(Deal.parse(deal), plays, rules)


def warm_up() -> None:
    """Load the solver's kernels (``solver.warm_up``) and the bot's play model (its card when
    no layout is solved in time), so the first job is fast."""
    import contextlib

    from callbreak_lab import solver
    from callbreak_lab.errors import ModelError
    from callbreak_lab.seat.playmodel import load_play_model

    solver.warm_up()
    with contextlib.suppress(ModelError):  # none installed: the policy's own error says so
        load_play_model("online")


def ping(delay: float = 0.0) -> str:
    """A job that sleeps ``delay`` seconds (tests of the time bound)."""
    time.sleep(delay)
    return "pong"


def solve(
    deal: str, plays: str, rules: dict[str, Any], playout: bool, card_values: bool
) -> dict[str, Any]:
    """Double-dummy table (and optionally the play-out and the mover's card values)."""
    from callbreak_lab import solver

    r = _rules(rules)
    pos = _position(deal, plays, r)
    out: dict[str, Any] = {"dd_table": [int(v) for v in solver.dd_table(pos, r)]}
    if playout:
        result = solver.playout(pos, r)
        cards = [str(Card.parse(c)) for c in result.cards]
        out["playout"] = {"cards": cards, "tricks": [int(t) for t in result.tricks]}
    if card_values and not pos.is_over:
        values = solver.card_values(pos, pos.to_move, r)
        out["card_values"] = {str(Card.parse(c)): int(v) for c, v in values.items()}
    return out


def line(
    deal: str, plays: str, rules: dict[str, Any], seat: int, calls: Any, playout: bool
) -> dict[str, Any]:
    """``lines.play_line`` (or ``lines.playout_line``) from the position, as a dict."""
    from callbreak_lab.analysis import lines

    r = _rules(rules)
    pos = _position(deal, plays, r)
    if playout:
        return lines.playout_line(pos, r, calls=calls).to_dict()
    return lines.play_line(pos, seat, r, calls=calls).to_dict()


def analyse(deal: str, plays: str, rules: dict[str, Any], calls: Any) -> dict[str, Any]:
    """``review.analyse_play`` review of the cards played, as a dict."""
    from callbreak_lab.analysis.review import analyse_play

    return analyse_play(deal, plays, _rules(rules), calls=calls).to_dict()


def review(
    deal: str,
    plays: str,
    rules: dict[str, Any],
    calls: Any,
    n: int,
    seed: int,
    seats: list[int] | None,
    time_limit: float | None,
) -> dict[str, Any]:
    """``review.review_play``: the single-dummy review of the cards played, as a dict."""
    from callbreak_lab.analysis.review import review_play

    r = _rules(rules)
    return review_play(
        deal, plays, r, calls=calls, layouts=n, seed=seed, seats=seats, time_limit=time_limit
    ).to_dict()


def advise(  # noqa: PLR0913  (the advise request's fields, one a parameter)
    hand: str,
    plays: str,
    rules: dict[str, Any],
    calls: Any,
    n: int,
    seed: int,
    time_limit: float | None,
    seat: int | None = None,
    cards: bool = False,
) -> dict[str, Any]:
    """``advice.advise``'s answer as it stands at ``time_limit`` (``advice.deepen``): the
    single-dummy values of the legal cards of the seat to play over the layouts solved by then,
    as a dict, with how many (``solved`` of ``total``, ``complete``) and ``source``
    ("layouts"; "learned" when none was solved: ``best`` is then the learned play policy's card
    and ``cards`` is empty), the reading its layouts assumed (``assumed``) and, with ``cards``,
    where the hidden cards are (``reading``: ``seat.reading.read_cards``, from the calls and
    the plays)."""
    from callbreak_lab.analysis.advice import deepen
    from callbreak_lab.seat.reading import advice_assumes, read_cards

    r = _rules(rules)
    k = Knowledge.at_table(hand, plays, r, calls, seat=seat)
    final = deepen(k, layouts=n, seed=seed, time_limit=time_limit)
    if final.answer is not None:
        out = final.answer.to_dict()
    else:  # no layout solved in the time: the learned card, and no value claimed
        c = None if any(x is None for x in k.calls) else [int(x) for x in k.calls]  # type: ignore[arg-type]
        out = {
            "seat": k.seat, "calls": c, "unit": "tricks" if c is None else "points",
            "scale": "playout", "best": str(final.card), "layouts": 0, "distinct": 0,
            "exact": False, "stopped_early": True, "ess": 0.0, "cards": [],
        }  # fmt: skip
    out.update(source=final.source, solved=final.solved, total=final.total, complete=final.complete)
    out["assumed"] = advice_assumes(k)
    if cards:
        out["reading"] = read_cards(k, seed=seed).to_dict()
    return out


def monte_carlo(
    hand: int, seat: int, rules: dict[str, Any], n: int, seed: int, time_limit: float | None = None
) -> dict[str, Any]:
    """``analysis.montecarlo.monte_carlo`` for one hand: play-out and floor distributions,
    best call; no new sample is started after ``time_limit`` seconds (the answer says how many were
    solved of the ``n`` asked for)."""
    from callbreak_lab.analysis import montecarlo

    r = _rules(rules)
    t0 = time.perf_counter()
    result = montecarlo.monte_carlo(
        Hand(hand), seat, r, layouts=n, seed=seed, time_limit=time_limit
    )
    dist = np.asarray(result.playout_dist, dtype=np.float64)
    floor = np.asarray(result.dd_dist, dtype=np.float64)
    return {
        "layouts": int(result.n),
        "requested": int(n),
        "stopped_early": int(result.n) < int(n),
        "call": int(result.best_call),
        "distribution": [float(p) for p in dist],
        "floor_distribution": [float(p) for p in floor],
        "mean_tricks": float(result.mean_playout[0]),
        "mean_floor": float(result.mean_dd[0]),
        "elapsed_ms": (time.perf_counter() - t0) * 1000,
    }


# --- the tournament bot -----------------------------------------------------------------------


def bot_play(knowledge: Knowledge, time_limit: float | None, seed: int) -> dict[str, Any]:
    """The bot's card: the ``strong`` player's choice (``seat.policy.STRONG``, the arena's
    ``strong`` player's own policy) for what the request told (``knowledge``), within
    ``time_limit`` seconds (None: every layout). ``seed``: the decision's seed
    (``seat.policy.decision_seed``). Returns ``Choice.to_dict()`` with ``card`` as an int."""
    from callbreak_lab.seat.policy import STRONG

    choice = STRONG.choose(knowledge, time_limit, seed)
    return {**choice.to_dict(), "card": int(choice.card)}
