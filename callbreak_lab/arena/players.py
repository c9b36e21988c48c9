"""Players for the arena: the ``Player`` protocol, the built-in players and ``make_player``.

A player answers two questions from a :class:`~callbreak_lab.seat.view.SeatView`: ``call(view)``
(its call for the deal) and ``play(view)`` (its card). The referee may also call two optional
methods: ``prepare(rules)`` before each deal, outside the clock (loading a model or the solver's
kernels takes seconds once per process, as a tournament's bots start before their clocks do; a
player makes it cheap after the first time), ``new_deal(seed)`` before each deal (a seed for the
player's own randomness, so a tournament replays exactly) and, only for a player whose
``sees_deal`` is true (the ``cheater``), ``reveal(deal)``: the whole deal, handed over
explicitly, never through the view.

Built in, by name (``make_player``):

* ``random``: the lowest legal call, a uniformly random legal card;
* ``simple``: the heuristic of the public Bhoos starter bot's documented strategy (written from
  that description): call the aces and kings held; when following, the lowest card that beats
  the trick if any, else the lowest card; when void, the lowest spade that wins, else the lowest
  card; lead the highest card of the longest side suit. Every choice is made among the legal
  cards, so under a preset that forbids the heuristic's card it plays the nearest legal one;
* ``honours``: calls with the fractional honours rule (``bidding.baselines``), plays like
  ``simple``;
* ``model``: calls with the shipped bid model, plays like ``simple``;
* ``learned``: calls with the bid model; plays the card the learned play policy finds
  likeliest (``seat.policy.LEARNED``, no search);
* ``pimc``: calls with the bid model; plays the cheap card (``seat.policy.cheap_card``) early in
  the deal and then the card with the best average double-dummy value over uniform layouts
  consistent with the table (``seat.policy.PIMC``);
* ``strong``: the service's bot, calls included: calls with the bid model for the points, or
  for the match where the standing matters (``strong_call``: the match call of
  ``bidding.match`` from the match totals and the deal's number), within the Bhoos protocol's
  calls 1..8; plays the card with the best expected *score* (the preset's scoring of its call)
  over layouts drawn by the likelihood of the other seats' calls (``seat.policy.STRONG``, the
  bot's policy too), up to 64 a decision within the time limit, from the first trick with a
  time limit and from the fourth without one;
* ``cheater``: sees the deal; calls the tricks it can guarantee (its double-dummy value) and
  plays the card that keeps that value highest (the ceiling); ``CheaterPlayer(call="model")``
  calls with the bid model like ``pimc``, so against it only its sight of the cards differs
  (the ceiling on what play alone can gain); with a time limit its solve stops in time and a
  stopped solve plays the learned card;
* ``http:URL``: a bot speaking the Bhoos protocol (``callbreak_lab.arena.protocol``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from callbreak_lab.cards import Card, Deal, Hand, lowest_card
from callbreak_lab.errors import CallbreakLabError, UsageError, check_int, check_time_limit
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.knowledge import Knowledge, beats_trick
from callbreak_lab.seat.policy import LEARNED, PIMC, STRONG, Choice, SearchPolicy, decision_seed
from callbreak_lab.seat.view import SeatView

if TYPE_CHECKING:
    from callbreak_lab.bidding.equity import EquityModel

__all__ = [
    "BUILTINS",
    "CHEATER_CALLS",
    "PROTOCOL_MAX_CALL",
    "CheaterPlayer",
    "HonoursPlayer",
    "LearnedPlayer",
    "ModelPlayer",
    "PimcPlayer",
    "Player",
    "PolicyPlayer",
    "RandomPlayer",
    "SimplePlayer",
    "StrongPlayer",
    "make_player",
    "simple_call",
    "simple_card",
    "strong_call",
    "strong_view_call",
]


@runtime_checkable
class Player(Protocol):
    """What the referee asks of a player (see the module docstring for the optional hooks)."""

    name: str

    def call(self, view: SeatView) -> int:
        """The player's call for the deal (within ``view.rules``' range)."""
        ...

    def play(self, view: SeatView) -> Card:
        """The card the player plays now (one of ``view.legal_cards()``)."""
        ...


# --- simple ---------------------------------------------------------------------------------------


def simple_call(hand: Hand, rules: Ruleset) -> int:
    """The aces and kings held, clamped to the rules' call range."""
    honours = sum(1 for c in hand if c.rank >= 11)
    return min(max(honours, rules.min_call), rules.max_call)


def simple_card(hand: Hand, trick: Sequence[Card], rules: Ruleset, first_trick: bool) -> Card:
    """The starter bot's card, chosen among the legal cards: following, the lowest card that
    beats the trick if any, else the lowest; void, the lowest spade that wins, else the lowest
    card; leading, the highest card of the longest side suit (the highest spade when only
    spades may be led). Lowest means lowest rank, then clubs < diamonds < hearts < spades."""
    legal = Hand(rules.legal_mask(hand.mask, trick, first_trick))
    if not trick:
        side = [s for s in range(3) if legal.suit_count(s)]
        if not side:
            return legal.highest()
        longest = max(side, key=lambda s: (legal.suit_count(s), legal.suit(s).highest().rank))
        return legal.suit(longest).highest()
    winners = [c for c in legal if beats_trick(c, trick)]  # void: only spades can
    if winners:
        return lowest_card(winners)
    return lowest_card(legal)


class SimplePlayer:
    """``simple``: the starter bot's calls and cards (``simple_call``, ``simple_card``)."""

    name = "simple"

    def call(self, view: SeatView) -> int:
        return simple_call(view.hand, view.rules)

    def play(self, view: SeatView) -> Card:
        return simple_card(view.hand, view.trick, view.rules, view.is_first_trick)


class HonoursPlayer(SimplePlayer):
    """``honours``: the fractional honours rule's call, ``simple``'s cards."""

    name = "honours"

    def call(self, view: SeatView) -> int:
        from callbreak_lab.bidding.baselines import baseline_call

        return baseline_call("fractional_honours", view.hand, view.rules, view.seat)


def model_call(view: SeatView) -> int:
    """The shipped bid model's call for the seat, after the calls already made."""
    from callbreak_lab.bidding.model import recommend_call

    earlier = view.calls[: view.seat]
    return recommend_call(view.hand, view.seat, view.rules, earlier_calls=earlier).call


def prepare_model(rules: Ruleset) -> None:
    """Load the shipped bid model of ``rules`` (cached by ``load_model``)."""
    from callbreak_lab.bidding.model import load_model

    load_model(rules)


class ModelPlayer(SimplePlayer):
    """``model``: the bid model's call, ``simple``'s cards."""

    name = "model"

    def prepare(self, rules: Ruleset) -> None:
        prepare_model(rules)

    def call(self, view: SeatView) -> int:
        return model_call(view)


# --- random ---------------------------------------------------------------------------------------


class RandomPlayer:
    """``random``: the lowest legal call and a uniformly random legal card (seeded per deal)."""

    name = "random"

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def new_deal(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def call(self, view: SeatView) -> int:
        return view.rules.min_call

    def play(self, view: SeatView) -> Card:
        legal = view.legal_cards().cards()
        return legal[int(self._rng.integers(len(legal)))]


# --- the search players: pimc and strong -------------------------------------------------------


class PolicyPlayer:
    """A player that calls with the bid model and plays by a ``seat.policy.SearchPolicy``
    within ``time_limit`` seconds a decision (None: no limit, the choice then depends only on
    the table and the deal's seed). The service's bot asks the same policy for its card
    (``service/jobs.py``), so what the arena measures is what the bot plays."""

    name = "policy"

    def __init__(self, policy: SearchPolicy, time_limit: float | None = None) -> None:
        self.policy = policy
        self.time_limit = check_time_limit(time_limit, f"{self.name}: time_limit")
        self._seed = 0
        #: the last decision's answer (``Choice``: how, layouts, outcomes), for inspection
        self.last: Choice | None = None
        self._warm = False

    def prepare(self, rules: Ruleset) -> None:
        prepare_model(rules)
        if not self._warm:
            from callbreak_lab import solver

            solver.warm_up()
            self._warm = True

    def new_deal(self, seed: int) -> None:
        self._seed = int(seed)

    def call(self, view: SeatView) -> int:
        return model_call(view)

    def play(self, view: SeatView) -> Card:
        t0 = time.perf_counter()
        k = Knowledge.of_view(view)
        limit = None
        if self.time_limit is not None:
            limit = max(0.0, self.time_limit - (time.perf_counter() - t0))
        self.last = self.policy.choose(k, limit, decision_seed(self._seed, len(k.record)))
        return self.last.card


class LearnedPlayer(PolicyPlayer):
    """``learned``: the bid model's call; the card the learned play policy finds likeliest
    (``seat.policy.LEARNED``): no search, about a millisecond a card."""

    name = "learned"

    def __init__(self, time_limit: float | None = None) -> None:
        super().__init__(LEARNED, time_limit)

    def prepare(self, rules: Ruleset) -> None:
        prepare_model(rules)
        from callbreak_lab.seat.playmodel import load_play_model

        load_play_model(rules)


class PimcPlayer(PolicyPlayer):
    """``pimc``: the bid model's call; the cheap card while more than ``search_cards`` cards are
    in the hands, then the best average double-dummy card over ``layouts`` uniform layouts
    consistent with the table (``seat.policy.PIMC``)."""

    name = "pimc"

    def __init__(
        self, layouts: int = 16, time_limit: float | None = None, search_cards: int = 40
    ) -> None:
        n = check_int(layouts, "pimc: layouts", low=1)
        super().__init__(PIMC.replace(layouts=n, search_cards=search_cards), time_limit)


def prepare_equity(rules: Ruleset) -> None:
    """Load the match equity of ``rules`` and draw its futures before the clock starts (a
    match played to a target score has none)."""
    from callbreak_lab.bidding.equity import equity_model
    from callbreak_lab.errors import RulesError

    try:
        n = rules.match_length()
    except RulesError:
        return
    model = equity_model(rules)
    for left in range(n):
        model.futures(left, first=1)


#: the Bhoos protocol's largest call (its calls are 1..8): ``strong`` and the bot call within it
PROTOCOL_MAX_CALL = 8


def strong_call(
    dist: npt.ArrayLike,
    seat: int,
    rules: Ruleset,
    totals: Sequence[int] | None = None,
    deal_number: int | None = None,
    *,
    earlier_calls: Sequence[int] | None = None,
    equity: EquityModel | None = None,
    max_call: int | None = PROTOCOL_MAX_CALL,
) -> tuple[int, str]:
    """The call of ``strong`` and of the service's bot from a forecast ``dist`` (``P(tricks =
    t)``, ``t = 0..13``) for ``seat`` under ``rules``, at most ``max_call`` (the protocol's
    calls 1..8; None: the rules' range), and what decided it. With the standing known
    (``totals`` in tenths and ``deal_number``): the call with the best chance of winning the
    match (``bidding.match.match_call_for``, which keeps the points-best call where the
    standing cannot matter, the match's first deal or level totals early, and unless another
    call clearly wins more matches; ``equity``: over other recorded deals); without it, or when
    the equity cannot take the standing (a match played to a target score, calls outside the
    range), the points-best call. ``earlier_calls``: the
    calls of seats ``0..seat-1``."""
    from callbreak_lab.bidding.calls import best_call
    from callbreak_lab.bidding.match import match_call_for

    r = rules
    if max_call is not None and rules.max_call > max_call:
        r = rules.replace(max_call=max_call)
    points = int(best_call(dist, r).call)
    if totals is None or deal_number is None:
        return points, "no standing in the context: the points-best call"
    try:
        found = match_call_for(
            dist, seat, r, totals=totals, deal_of_match=deal_number,
            earlier_calls=earlier_calls or None, equity=equity,
        )  # fmt: skip
    except CallbreakLabError as e:
        return points, f"the points-best call: {e}"
    return int(found.call), found.reason


def strong_view_call(
    view: SeatView,
    *,
    equity: EquityModel | None = None,
    max_call: int | None = PROTOCOL_MAX_CALL,
) -> tuple[int, str]:
    """``strong_call`` at the table: the bid model's forecast of ``view``'s hand (the earlier
    seats' calls heard), the standing the referee shows (``view.totals``,
    ``view.deal_number``); ``equity`` and ``max_call`` as ``strong_call``'s."""
    from callbreak_lab.bidding.model import recommend_call

    earlier = list(view.calls[: view.seat])
    rec = recommend_call(view.hand, view.seat, view.rules, earlier_calls=earlier)
    return strong_call(
        rec.distribution, view.seat, view.rules, view.totals, view.deal_number,
        earlier_calls=earlier, equity=equity, max_call=max_call,
    )  # fmt: skip


class StrongPlayer(PolicyPlayer):
    """``strong``: the service's bot. Calls ``strong_call`` from the bid model's forecast and
    the standing the referee shows (``SeatView.totals``, ``SeatView.deal_number``); plays the
    card with the best expected score over up to 64 layouts drawn by the likelihood of the
    calls (``seat.policy.STRONG``), within ``time_limit`` seconds a decision. ``last_call``:
    what decided the last call."""

    name = "strong"

    def __init__(self, time_limit: float | None = None) -> None:
        super().__init__(STRONG, time_limit)
        self.last_call = ""

    def prepare(self, rules: Ruleset) -> None:
        super().prepare(rules)
        prepare_equity(rules.replace(max_call=min(rules.max_call, PROTOCOL_MAX_CALL)))

    def call(self, view: SeatView) -> int:
        call, self.last_call = strong_view_call(view)
        return call


# --- cheater --------------------------------------------------------------------------------------


#: how the ``cheater`` calls (``CheaterPlayer(call=...)``)
CHEATER_CALLS = ("floor", "model")


class CheaterPlayer:
    """``cheater``: given the deal by the referee (``reveal``). Plays the legal card that keeps
    its double-dummy value highest, ties to the lowest card (the play-out's rule), and calls
    (``call``) the tricks it can guarantee whatever the others do, its double-dummy value
    (``"floor"``, the default), clamped to the call range, or the bid model's call from its
    hand alone (``"model"``, as ``pimc`` calls). With ``time_limit`` (seconds) its solve stops
    at ``seat.policy.STRONG``'s share of it, and a solve stopped there plays the learned play
    policy's card (``seat.policy.LEARNED``), so it never answers late."""

    name = "cheater"
    sees_deal = True

    def __init__(self, call: str = "floor", time_limit: float | None = None) -> None:
        if call not in CHEATER_CALLS:
            raise UsageError(f"cheater: call is one of {', '.join(CHEATER_CALLS)}, got {call!r}")
        self.calls = call
        self.time_limit = check_time_limit(time_limit, "cheater: time_limit")
        #: how the last card was chosen: ``"solve"``, ``"forced"`` or ``"learned (solve stopped)"``
        self.last_how = ""
        self._deal: Deal | None = None

    def prepare(self, rules: Ruleset) -> None:
        if self.calls == "model":
            prepare_model(rules)
        if self.time_limit is not None:
            from callbreak_lab import solver
            from callbreak_lab.seat.playmodel import load_play_model

            solver.warm_up()
            load_play_model(rules)

    def reveal(self, deal: Deal) -> None:
        self._deal = deal

    def _the_deal(self) -> Deal:
        if self._deal is None:
            raise UsageError("cheater: the referee did not reveal the deal")
        return self._deal

    def call(self, view: SeatView) -> int:
        from callbreak_lab import solver

        deal = self._the_deal()
        if self.calls == "model":
            return model_call(view)
        tricks = solver.solve(deal, view.seat, view.rules)
        return min(max(int(tricks), view.rules.min_call), view.rules.max_call)

    def play(self, view: SeatView) -> Card:
        from callbreak_lab import solver

        t0 = time.perf_counter()
        legal = view.legal_cards()
        if len(legal) == 1:
            self.last_how = "forced"
            return legal.highest()
        pos = Position.replay(self._the_deal(), [c for _, c in view.history], view.rules)
        limit: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        if self.time_limit is not None:
            left = STRONG.budget_share * self.time_limit - (time.perf_counter() - t0)
            limit = solver.time_limit(max(0.0, left))
        try:
            with limit:
                values = solver.card_values(pos, view.seat, view.rules)
        except solver.SearchTimeout:  # only under a time limit
            self.last_how = "learned (solve stopped)"
            return LEARNED.instant_card(Knowledge.of_view(view))
        self.last_how = "solve"
        best = max(values.values())
        return lowest_card(c for c, v in values.items() if v == best)


# --- registry -------------------------------------------------------------------------------------

BUILTINS: dict[str, Callable[..., Any]] = {
    "random": RandomPlayer,
    "simple": SimplePlayer,
    "honours": HonoursPlayer,
    "model": ModelPlayer,
    "learned": LearnedPlayer,
    "pimc": PimcPlayer,
    "strong": StrongPlayer,
    "cheater": CheaterPlayer,
}


def make_player(
    spec: str, rules: Ruleset | str | None = None, *, time_limit: float | None = None
) -> Player:
    """A player from its name: a built-in (``BUILTINS``) or ``http:URL`` (a Bhoos protocol bot,
    ``online`` rules only; ``rules`` None: ``rules.DEFAULT_RULES``). ``time_limit`` is the
    seconds a decision may take: ``pimc``, ``strong``, ``learned`` and ``cheater`` answer in
    time, a protocol bot receives it as ``timeBudget`` (milliseconds)."""
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"a player is a built-in name or http:URL, got {spec!r}")
    name = spec.strip()
    limit = check_time_limit(time_limit, f"{name}: time_limit")
    if name.startswith(("http:", "https:")):
        from callbreak_lab.arena.protocol import HttpPlayer

        budget_ms = None if limit is None else max(1, round(limit * 1000))
        return HttpPlayer(name, Ruleset.coerce(rules), budget_ms)
    if name not in BUILTINS:
        raise UsageError(f"unknown player {name!r}: a built-in ({', '.join(BUILTINS)}) or http:URL")
    if name in ("pimc", "strong", "learned", "cheater"):  # the players that honour a time limit
        timed: Player = BUILTINS[name](time_limit=limit)
        return timed
    player: Player = BUILTINS[name]()
    return player
