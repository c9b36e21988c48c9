"""Where the views' numbers come from: the bid model, the Monte Carlo reference, the solver.

Every forecast is a :class:`~callbreak_lab.bidding.calls.Forecast` (a trick distribution plus
the call decision on it), the one the service answers with too. Sources are looked up when first
used, so the widgets import cleanly while a source is missing and say so
(:class:`SourceUnavailable`) instead of showing made-up numbers. No ipywidgets here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from callbreak_lab.bidding.calls import Forecast
from callbreak_lab.cards import Deal, Hand
from callbreak_lab.rules import Ruleset

__all__ = [
    "Forecast",
    "Forecaster",
    "Progress",
    "SourceUnavailable",
    "auto_forecast",
    "dd_table",
    "forecast_from_dist",
    "model_forecast",
    "model_missing",
    "playout_tricks",
    "simulate_forecast",
]

Progress = Callable[[int, int], None]


class SourceUnavailable(RuntimeError):
    """A forecasting source (model, simulator, solver) is not installed or not trained yet."""


class Forecaster(Protocol):
    """``forecaster(hand, seat, rules) -> Forecast``; called with ``earlier_calls=(...)`` too
    when the person gave the calls of the seats before (a forecaster that cannot use them need
    not accept the keyword unless they are given)."""

    def __call__(
        self, hand: Hand, seat: int, rules: Ruleset, earlier_calls: Sequence[int] | None = None
    ) -> Forecast: ...


def _module(name: str, what: str) -> Any:
    try:
        return importlib.import_module(f"callbreak_lab.{name}")
    except ImportError as exc:
        raise SourceUnavailable(f"{what} is not available ({exc})") from None


def forecast_from_dist(
    dist: Any,
    rules: Ruleset,
    source: str,
    floor: Any = None,
    layouts: int | None = None,
) -> Forecast:
    """:meth:`Forecast.from_dist <callbreak_lab.bidding.calls.Forecast.from_dist>`."""
    return Forecast.from_dist(dist, rules, source, floor=floor, layouts=layouts)


# ---------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------


def _calls_note(rec: Any) -> str:
    if rec.earlier_calls is None:
        return ""
    calls = ", ".join(map(str, rec.earlier_calls)) or "none"
    if rec.calls_used:
        return f" after calls {calls}"
    return f"; it does not use the earlier calls {calls}"


def model_forecast(
    hand: Hand, seat: int, rules: Ruleset, earlier_calls: Sequence[int] | None = None
) -> Forecast:
    """The shipped bid model's forecast (``model.recommend_call``) with its floor distribution;
    ``earlier_calls`` reach a call-conditioned model (the source then says so)."""
    model = _module("bidding.model", "the bid model")
    try:
        rec = model.recommend_call(hand, seat, rules, earlier_calls=earlier_calls)
    except model.ModelError as exc:
        raise SourceUnavailable(
            f"the bid model is not available ({exc}); 'check with simulation' runs the slow "
            "Monte Carlo reference instead"
        ) from None
    return Forecast(
        dist=np.asarray(rec.distribution, dtype=np.float64),
        advice=rec.advice,
        source=f"bid model ({model.profile_of(rules)}){_calls_note(rec)}",
        floor=np.asarray(rec.floor, dtype=np.float64),
    )


def simulate_forecast(
    hand: Hand,
    seat: int,
    rules: Ruleset,
    *,
    layouts: int = 48,
    seed: int = 0,
    progress: Progress | None = None,
    chunks: int = 8,
) -> Forecast:
    """The Monte Carlo reference (``analysis.montecarlo.monte_carlo``) over ``layouts`` layouts
    around the hand.

    The layouts are drawn from one seeded generator in up to ``chunks`` calls, so that
    ``progress(done, total)`` can report after each; the play-out tricks of all layouts make the
    distribution, their guaranteed tricks the floor.
    """
    montecarlo = _module("analysis.montecarlo", "the Monte Carlo simulation")
    rng = np.random.default_rng(seed)
    n = layouts
    sizes = [len(part) for part in np.array_split(np.arange(n), min(chunks, n))]
    playout: list[np.ndarray] = []
    floor: list[np.ndarray] = []
    done = 0
    if progress is not None:
        progress(0, n)
    for size in sizes:
        try:
            result = montecarlo.monte_carlo(hand, seat, rules, layouts=size, seed=rng)
        except ImportError as exc:
            raise SourceUnavailable(f"the double-dummy solver is not available ({exc})") from None
        playout.append(np.asarray(result.playout))
        floor.append(np.asarray(result.dd))
        done += size
        if progress is not None:
            progress(done, n)
    po, dd = np.concatenate(playout), np.concatenate(floor)
    dist = np.bincount(po, minlength=14) / len(po)
    floor_dist = np.bincount(dd, minlength=14) / len(dd)
    return forecast_from_dist(dist, rules, f"Monte Carlo ({n} layouts)", floor_dist, layouts=n)


def model_missing(rules: Ruleset) -> str | None:
    """Why the bid model for ``rules`` cannot be loaded, or None when it can."""
    try:
        model = _module("bidding.model", "the bid model")
        model.load_model(rules)
    except SourceUnavailable as exc:
        return str(exc)
    except model.ModelError as exc:
        return f"the bid model is not available: {exc}"
    return None


def auto_forecast(
    hand: Hand,
    seat: int,
    rules: Ruleset,
    *,
    fallback_layouts: int = 8,
    earlier_calls: Sequence[int] | None = None,
) -> Forecast:
    """The bid model's forecast; while no model is shipped, the Monte Carlo reference (slower,
    and labelled as such; it deals the other hands without regard to ``earlier_calls``)."""
    try:
        return model_forecast(hand, seat, rules, earlier_calls)
    except SourceUnavailable as model_missing:
        try:
            return simulate_forecast(hand, seat, rules, layouts=fallback_layouts)
        except SourceUnavailable as exc:
            raise SourceUnavailable(f"{model_missing}; and {exc}") from None


def _solver() -> Any:
    return _module("solver", "the double-dummy solver")


def dd_table(deal: Deal, rules: Ruleset) -> list[int]:
    """The double-dummy value (guaranteed tricks) of each seat at the start of ``deal``."""
    return [int(v) for v in _solver().dd_table(deal, rules)]


def playout_tricks(deal: Deal, rules: Ruleset) -> list[int]:
    """Tricks per seat in the self-interested play-out of ``deal``."""
    result = _solver().playout(deal, rules)
    tricks = getattr(result, "tricks", result)
    return [int(v) for v in tricks]


class _GivenCall:
    """A ``strong`` player whose call is given (the trainee's): it plays as ``strong`` does for
    that call."""

    name = "given call"

    def __init__(self, call: int) -> None:
        from callbreak_lab.arena.players import make_player

        self.inner: Any = make_player("strong")
        self.fixed = int(call)

    def prepare(self, rules: Ruleset) -> None:
        self.inner.prepare(rules)

    def new_deal(self, seed: int) -> None:
        self.inner.new_deal(seed)

    def call(self, view: Any) -> int:
        return self.fixed

    def play(self, view: Any) -> Any:
        return self.inner.play(view)


def table_tricks(deal: Deal, rules: Ruleset, seat: int, call: int) -> int:
    """The tricks ``seat`` takes when four ``strong`` players play ``deal`` (arena rules: each
    sees only its own seat) and ``seat`` calls ``call``, the others their own calls."""
    from callbreak_lab.arena.players import make_player
    from callbreak_lab.arena.referee import play_deal

    players: list[Any] = [make_player("strong") for _ in range(4)]
    players[seat] = _GivenCall(call)
    return int(play_deal(deal, rules, players).tricks[seat])
