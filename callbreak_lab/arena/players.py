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
* ``strong``: calls like ``pimc``; plays the card with the best expected *score* (the preset's
  scoring of its call) over layouts drawn by the likelihood of the other seats' calls
  (``seat.policy.STRONG``, the service's bot's policy too), up to 64 a decision within the
  budget, from the first trick with a budget and from the fourth without one
  (``strong:tricks`` plays for the mean value instead, ``strong:uniform`` draws the layouts
  uniformly, ``strong:wide`` draws up to 256, ``strong:early`` searches from the first trick even
  without a budget, ``strong:exact`` finds every card's exact value in the first three tricks too
  rather than placing it against the call, ``strong:cap`` stops any one layout at an eighth of the
  budget, ``strong:match`` plays the match's last deal for the match, ``strong:infer`` weighs
  the layouts by the other seats' plays under the learned play policy too
  (``seat.layouts.PLAY_WEIGHT``, from ``PLAY_OVERSAMPLE`` candidates a layout; with ``:soft``
  tempered to keep ``PLAY_MIN_ESS``), ``strong:prune`` leaves out of the first three tricks'
  searches the cards the learned play policy finds unlikely (``seat.policy.PRUNE``),
  ``strong:top`` solves the likeliest distinct layouts weighted by their likelihood instead of
  resampling them, ``strong:rivals`` counts each trick it takes as worth ``seat.policy.RIVALS``
  points over three for each other seat still short of its call, ``strong:am`` chooses its card
  in the last four tricks by αμ (``seat.alphamu``: its next two decisions without strategy
  fusion): the variants that measure each part);
* ``cheater``: sees the deal; calls the tricks it can guarantee (its double-dummy value) and
  plays the card that keeps that value highest (the ceiling); ``cheater:model`` calls with
  the bid model like ``pimc`` and ``strong``, so against them only its sight of the cards
  differs (the ceiling on what play alone can gain); with a budget its solve stops in time and
  a stopped solve plays the learned card;
* ``http:URL``: a bot speaking the Bhoos protocol (``callbreak_lab.arena.protocol``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from callbreak_lab.cards import Card, Deal, Hand, lowest_card
from callbreak_lab.errors import UsageError
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.alphamu import ALPHAMU_DEPTH
from callbreak_lab.seat.knowledge import Knowledge, beats_trick
from callbreak_lab.seat.layouts import PLAY_MIN_ESS, PLAY_OVERSAMPLE, PLAY_WEIGHT
from callbreak_lab.seat.policy import (
    LAYOUT_SHARE,
    LEARNED,
    PIMC,
    PRUNE,
    RIVALS,
    STRONG,
    Choice,
    SearchPolicy,
    decision_seed,
)
from callbreak_lab.seat.view import SeatView

__all__ = [
    "BUILTINS",
    "CHEATER_CALLS",
    "STRONG_VARIANTS",
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
    within ``budget_ms`` a decision (None: no limit,
    the choice then depends only on the table and the deal's seed). The service's bot asks the
    same policy for its card (``service/jobs.py``), so what the arena measures is what the bot
    plays."""

    name = "policy"

    def __init__(self, policy: SearchPolicy, budget_ms: int | None = None) -> None:
        self.policy = policy
        self.budget_ms = budget_ms
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
        if self.budget_ms is not None:
            limit = max(0.0, self.budget_ms / 1000 - (time.perf_counter() - t0))
        self.last = self.policy.choose(k, limit, decision_seed(self._seed, len(k.record)))
        return self.last.card


class LearnedPlayer(PolicyPlayer):
    """``learned``: the bid model's call; the card the learned play policy finds likeliest
    (``seat.policy.LEARNED``): no search, about a millisecond a card."""

    name = "learned"

    def __init__(self, budget_ms: int | None = None) -> None:
        super().__init__(LEARNED, budget_ms)

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
        self, layouts: int = 16, budget_ms: int | None = None, search_cards: int = 40
    ) -> None:
        if isinstance(layouts, bool) or not isinstance(layouts, int) or layouts < 1:
            raise UsageError(f"pimc: layouts must be at least 1, got {layouts}")
        super().__init__(PIMC.replace(layouts=layouts, search_cards=search_cards), budget_ms)


class StrongPlayer(PolicyPlayer):
    """``strong``: the bid model's call; the card with the best expected score over up to
    ``layouts`` layouts drawn by the likelihood of the calls (``seat.policy.STRONG``), within
    ``budget_ms``. The other parameters make its variants: ``objective="tricks"`` plays for the
    mean value, ``beta`` weighs the calls (0: uniform layouts), ``window_above`` the cards in
    the hands above which the values are placed against the call only (52: exact values
    throughout), ``match``: on the match's last deal it plays for the match
    (``seat.matchplay``), ``cap_layouts``: one layout may take ``policy.LAYOUT_SHARE`` of the time
    at most, ``search_cards`` the cards above which it plays the cheap card (None: the whole deal
    with a budget, the last 40 cards without one), ``play_weight`` the weight of the other
    seats' plays under the learned play policy in the dealer (0: not used), ``oversample`` the
    candidates weighed per layout drawn (None: ``seat.policy.STRONG``'s), ``min_ess`` the least
    effective sample size the plays' weights keep (``seat.layouts.tempered``), ``prune`` the
    share of the learned policy's likeliest card below which a card is not searched in the first
    three tricks (``seat.policy.SearchPolicy``; 0: every card), ``resample`` False: the
    likeliest distinct layouts weighted by their likelihood rather than resampled, ``rivals``
    the points a trick is worth for each other seat still short of its call, over three
    (``SearchPolicy.rivals``), ``alphamu`` the seat's decisions searched without strategy
    fusion in the last tricks (``SearchPolicy.alphamu``; 0: none)."""

    name = "strong"

    def __init__(  # noqa: PLR0913  (one keyword a variant, as make_player's strong:<flag>s)
        self,
        layouts: int = 64,
        budget_ms: int | None = None,
        search_cards: int | None = None,
        objective: str = "score",
        beta: float | None = None,
        window_above: int | None = None,
        cap_layouts: bool = False,
        match: bool = False,
        play_weight: float = 0.0,
        oversample: int | None = None,
        min_ess: float = 0.0,
        prune: float = 0.0,
        resample: bool = True,
        rivals: float = 0.0,
        alphamu: int = 0,
    ) -> None:
        if objective not in ("score", "tricks"):
            raise UsageError(f"strong: objective must be score or tricks, got {objective!r}")
        policy = STRONG.replace(
            layouts=layouts,
            search_cards=search_cards,
            objective=objective,
            beta=STRONG.beta if beta is None else beta,
            window_above=STRONG.window_above if window_above is None else int(window_above),
            layout_share=LAYOUT_SHARE if cap_layouts else None,
            match=match,
            play_weight=play_weight,
            oversample=STRONG.oversample if oversample is None else oversample,
            min_ess=min_ess,
            prune=prune,
            resample=resample,
            rivals=rivals,
            alphamu=alphamu,
        )
        super().__init__(policy, budget_ms)


# --- cheater --------------------------------------------------------------------------------------


#: how the ``cheater`` calls (``CheaterPlayer(call=...)``, ``cheater:<call>``)
CHEATER_CALLS = ("floor", "playout", "model")


class CheaterPlayer:
    """``cheater``: given the deal by the referee (``reveal``). Plays the legal card that keeps
    its double-dummy value highest, ties to the lowest card (the play-out's rule), and calls
    (``call``) the tricks it can guarantee whatever the others do, its double-dummy value
    (``"floor"``, the default), its tricks in the self-interested play-out (``"playout"``),
    clamped to the call range, or the bid model's call from its hand alone (``"model"``, as
    ``pimc`` and ``strong`` call). The floor is the default because the others do not play the
    play-out: against ``simple`` players the play-out call is missed about one deal in five
    and scores less than ``simple`` (benchmarks/HISTORY.md, "Arena"). With ``budget_ms`` its
    solve stops at ``seat.policy.STRONG``'s share of the budget, and a solve stopped there plays
    the learned play policy's card (``seat.policy.LEARNED``), so it never answers late."""

    name = "cheater"
    sees_deal = True

    def __init__(self, call: str = "floor", budget_ms: int | None = None) -> None:
        if call not in CHEATER_CALLS:
            raise UsageError(f"cheater: call is one of {', '.join(CHEATER_CALLS)}, got {call!r}")
        if budget_ms is not None and (
            isinstance(budget_ms, bool) or not isinstance(budget_ms, int) or budget_ms < 1
        ):
            raise UsageError(f"cheater: budget_ms must be a whole number >= 1, got {budget_ms!r}")
        self.calls = call
        self.budget_ms = budget_ms
        #: how the last card was chosen: ``"solve"``, ``"forced"`` or ``"learned (solve stopped)"``
        self.last_how = ""
        self._deal: Deal | None = None

    def prepare(self, rules: Ruleset) -> None:
        if self.calls == "model":
            prepare_model(rules)
        if self.budget_ms is not None:
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
        if self.calls == "floor":
            tricks = solver.solve(deal, view.seat, view.rules)
        else:
            tricks = solver.playout(deal, view.rules).tricks[view.seat]
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
        if self.budget_ms is not None:
            left = STRONG.budget_share * self.budget_ms / 1000 - (time.perf_counter() - t0)
            limit = solver.time_limit(max(0.0, left))
        try:
            with limit:
                values = solver.card_values(pos, view.seat, view.rules)
        except solver.SearchTimeout:  # only under a budget
            self.last_how = "learned (solve stopped)"
            return LEARNED.instant_card(Knowledge.of_view(view))
        self.last_how = "solve"
        best = max(values.values())
        return lowest_card(c for c, v in values.items() if v == best)


# --- registry -------------------------------------------------------------------------------------

#: the ``strong:<flag>[:<flag>...]`` variants of ``make_player`` (see the module docstring)
STRONG_VARIANTS = (
    "tricks", "uniform", "wide", "early", "exact", "cap", "match", "infer", "soft", "prune",
    "top", "rivals", "am",
)  # fmt: skip

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


def make_player(spec: str, rules: Ruleset | str = "online", budget_ms: int | None = None) -> Player:
    """A player from its name: a built-in (``BUILTINS``) or ``http:URL`` (a Bhoos protocol bot,
    ``online`` rules only). ``budget_ms`` is the time a decision may take: ``pimc`` and
    ``strong`` stop their searches in time, a protocol bot receives it as ``timeBudget``."""
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"a player is a built-in name or http:URL, got {spec!r}")
    name = spec.strip()
    if name.startswith(("http:", "https:")):
        from callbreak_lab.arena.protocol import HttpPlayer

        return HttpPlayer(name, Ruleset.coerce(rules), budget_ms)
    if name.startswith("cheater:"):
        how = name.split(":", 1)[1]
        if how not in CHEATER_CALLS:
            raise UsageError(f"cheater: unknown variant {how!r} ({', '.join(CHEATER_CALLS)})")
        return CheaterPlayer(call=how, budget_ms=budget_ms)
    if name.startswith("strong:"):  # variants for comparisons (see the module docstring)
        flags = name.split(":")[1:]
        unknown = [f for f in flags if f not in STRONG_VARIANTS]
        if unknown:
            raise UsageError(
                f"strong: unknown variant {unknown[0]!r} ({', '.join(STRONG_VARIANTS)})"
            )
        return StrongPlayer(
            layouts=256 if "wide" in flags else 64,
            budget_ms=budget_ms,
            search_cards=52 if "early" in flags else None,
            objective="tricks" if "tricks" in flags else "score",
            beta=0.0 if "uniform" in flags else None,
            window_above=52 if "exact" in flags else None,
            cap_layouts="cap" in flags,
            match="match" in flags,
            play_weight=PLAY_WEIGHT if "infer" in flags else 0.0,
            oversample=PLAY_OVERSAMPLE if "infer" in flags else None,
            min_ess=PLAY_MIN_ESS if "soft" in flags else 0.0,
            prune=PRUNE if "prune" in flags else 0.0,
            resample="top" not in flags,
            rivals=RIVALS if "rivals" in flags else 0.0,
            alphamu=ALPHAMU_DEPTH if "am" in flags else 0,
        )
    if name not in BUILTINS:
        raise UsageError(f"unknown player {name!r}: a built-in ({', '.join(BUILTINS)}) or http:URL")
    if name in ("pimc", "strong", "learned", "cheater"):  # the players that honour a budget
        timed: Player = BUILTINS[name](budget_ms=budget_ms)
        return timed
    player: Player = BUILTINS[name]()
    return player
