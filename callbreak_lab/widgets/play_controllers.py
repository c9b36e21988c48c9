"""Pure controllers for the play-line viewer and the calling trainer (no ipywidgets)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from callbreak_lab.cards import Card, Deal, Hand, Suit
from callbreak_lab.errors import CallbreakLabError, CallError, UsageError
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset, format_tenths
from callbreak_lab.widgets import backend
from callbreak_lab.widgets.backend import Forecast, Forecaster
from callbreak_lab.widgets.controllers import Observable

__all__ = ["FOCUS", "CallingTrainer", "PlayLineViewer", "Round"]


# ---------------------------------------------------------------------------------------------
# Play-line viewer
# ---------------------------------------------------------------------------------------------


class PlayLineViewer(Observable):
    """Step through an annotated line (``lines.play_line`` or ``lines.playout_line``) and branch.

    ``step`` is the number of cards played so far on the line (0..len); the decision shown is the
    one at ``step``. ``branch(card)`` replaces that decision's card and replays the line from it;
    ``cost`` is then what the change gained (+) or lost (-) for the studied seat.
    """

    def __init__(
        self,
        deal: Deal | str,
        seat: int | None = 0,
        rules: Ruleset | str = "modern",
        calls: Any = None,
        record: str = "",
    ) -> None:
        super().__init__()
        from callbreak_lab import lines

        self.rules = Ruleset.coerce(rules)
        start = Position.replay(Deal.parse(deal), record, self.rules)
        if seat is None:
            self.main = lines.playout_line(start, self.rules, calls)
        else:
            self.main = lines.play_line(start, seat, self.rules, calls)
        self.line = self.main
        self.step = 0
        self.message = ""

    # --- navigation -------------------------------------------------------------------------
    @property
    def length(self) -> int:
        """Number of cards on the line."""
        return len(self.line.steps)

    def go(self, step: int) -> None:
        """Show the position before card ``step`` (clamped to 0..length)."""
        self.step = max(0, min(int(step), self.length))
        self.message = ""
        self._changed()

    def next(self) -> None:
        """One card forward."""
        self.go(self.step + 1)

    def prev(self) -> None:
        """One card back."""
        self.go(self.step - 1)

    def next_trick(self) -> None:
        """Forward to the start of the next trick."""
        s = self.step + 1
        while s < self.length and len(self.line.position(s).trick) != 0:
            s += 1
        self.go(s)

    # --- what is shown ----------------------------------------------------------------------
    @property
    def position(self) -> Position:
        """The position before the current decision."""
        return self.line.position(self.step)

    @property
    def decision(self) -> Any:
        """The current ``lines.Step`` (None at the end of the deal)."""
        return self.line.steps[self.step] if self.step < self.length else None

    def legal_values(self) -> list[tuple[Card, int, bool]]:
        """``(card, value, played on the line)`` for each legal card, highest card first."""
        d = self.decision
        if d is None:
            return []
        return [(c, int(v), c == d.card) for c, v in sorted(d.values.items(), reverse=True)]

    def last_winner(self) -> tuple[int, tuple[int, int, int, int]] | None:
        """``(winner, tricks so far)`` when the card before ``step`` completed a trick."""
        if self.step == 0:
            return None
        prev = self.line.steps[self.step - 1]
        if prev.winner is None or prev.tricks is None:
            return None
        return prev.winner, prev.tricks

    def describe(self) -> str:
        """One plain-words line about the current decision."""
        d = self.decision
        if d is None:
            t = self.line.tricks
            return "deal over · tricks " + "-".join(map(str, t))
        who = "studied seat" if d.seat == d.target else f"opponent of seat {d.target}"
        parts = [f"trick {d.trick + 1}: seat {d.seat} ({who}) plays {d.card.symbol()}"]
        if d.forced:
            parts.append(f"forced: {d.forced}")
        elif d.restriction:
            parts.append(f"restricted: {d.restriction}")
        parts.append(f"values are seat {d.target}'s deal total")
        return " · ".join(parts)

    @property
    def cost(self) -> int | None:
        """Tricks gained (+) or lost (-) by the branch against the main line."""
        return None if self.line is self.main else self.line_delta()

    def line_delta(self) -> int:
        """Difference of the studied (or moving) seat's final tricks, branch minus main line."""
        d = self.main.steps[self.branched_at] if self.branched_at is not None else None
        who = self.main.seat if self.main.seat is not None else (d.seat if d else 0)
        return self.line.tricks[who] - self.main.tricks[who]

    @property
    def branched_at(self) -> int | None:
        """Step where the shown line leaves the main line (None on the main line)."""
        if self.line is self.main:
            return None
        for i, (a, b) in enumerate(zip(self.line.steps, self.main.steps, strict=True)):
            if a.card != b.card:
                return i
        return None

    # --- branching -----------------------------------------------------------------------------
    def branch(self, card: Card | str) -> bool:
        """Play ``card`` instead at the current decision and replay the rest of the line."""
        try:
            new = self.line.branch(self.step, card)
        except CallbreakLabError as exc:  # an illegal or unreadable card
            self.message = str(exc)
            self._changed()
            return False
        self.line = new
        self.message = ""
        self._changed()
        return True

    def back_to_main(self) -> None:
        """Drop the branch and show the main line at the same step."""
        self.line = self.main
        self.go(self.step)


# ---------------------------------------------------------------------------------------------
# Calling trainer
# ---------------------------------------------------------------------------------------------


def _balanced(h: Hand) -> bool:
    return tuple(sorted(h.suit_counts())) in {(3, 3, 3, 4), (2, 3, 4, 4), (2, 3, 3, 5)}


FOCUS: dict[str, Callable[[Hand], bool]] = {
    "any hand": lambda h: True,
    "long spades (5+)": lambda h: h.suit_count(Suit.SPADES) >= 5,
    "a side-suit void": lambda h: 0 in h.suit_counts()[:3],
    "balanced (4333, 4432, 5332)": _balanced,
}


@dataclass
class Round:
    """One trainer round: the deal the hand came from, the seat, and once answered the result."""

    deal: Deal
    seat: int
    call: int | None = None
    forecast: Forecast | None = None
    simulation: Forecast | None = None
    tricks: int | None = None  # the seat's play-out tricks in this very deal

    @property
    def hand(self) -> Hand:
        """The hand to call."""
        return self.deal[self.seat]


class CallingTrainer(Observable):
    """Random (seeded) hands to call; compares each call with the model's and keeps score.

    ``focus`` restricts hands to one kind (rejection sampling over random deals). After a call,
    ``score`` is what it scored in the deal's self-interested play-out and ``expected`` its
    expected score under the forecast; the session keeps totals for the person and the model and
    the share of calls matching the model's.
    """

    def __init__(
        self,
        preset: str = "modern",
        seed: int = 0,
        focus: str = "any hand",
        forecaster: Forecaster | None = None,
        simulator: Callable[..., Forecast] | None = None,
        sim_samples: int = 0,
        tricks_of: Callable[[Deal, Ruleset], list[int]] | None = None,
    ) -> None:
        super().__init__()
        self.preset = preset
        self.rng = np.random.default_rng(seed)
        self.focus = focus
        self.forecaster: Forecaster = forecaster or backend.model_forecast
        self.simulator = simulator or backend.simulate_forecast
        self.sim_samples = sim_samples
        self.tricks_of = tricks_of or backend.playout_tricks
        self.history: list[Round] = []
        self.current: Round | None = None
        self.message = ""
        self.new_hand()

    @property
    def rules(self) -> Ruleset:
        """The selected preset."""
        return Ruleset.preset(self.preset)

    def set_focus(self, focus: str) -> None:
        """Choose the kind of hand and deal a new one."""
        if focus not in FOCUS:
            raise UsageError(f"unknown focus {focus!r} (choose from {', '.join(FOCUS)})")
        self.focus = focus
        self.new_hand()

    def set_preset(self, name: str) -> None:
        """Choose the preset and deal a new hand."""
        Ruleset.preset(name)
        self.preset = name
        self.new_hand()

    def new_hand(self, max_tries: int = 20000) -> Round:
        """Deal random deals until the trainee's hand has the focus property."""
        keep = FOCUS[self.focus]
        for _ in range(max_tries):
            deal = Deal.random(self.rng)
            seat = int(self.rng.integers(4))
            if keep(deal[seat]):
                self.current = Round(deal, seat)
                self.message = ""
                self._changed()
                return self.current
        raise UsageError(f"no hand with focus {self.focus!r} in {max_tries} deals")

    def answer(self, call: int | str) -> Round | None:
        """Take the person's call for the current hand and work out how it compares."""
        r = self.current
        if r is None or r.call is not None:
            self.message = "deal a new hand first"
            self._changed()
            return None
        try:
            c = int(call)
            self.rules.check_call(c)
        except (ValueError, CallError) as exc:  # int() of a non-number, or out of range
            self.message = f"{exc}" if isinstance(exc, CallError) else f"not a call: {call!r}"
            self._changed()
            return None
        try:
            fc = self.forecaster(r.hand, r.seat, self.rules)
            sim = None
            if self.sim_samples:
                sim = self.simulator(
                    r.hand, r.seat, self.rules, n=self.sim_samples, seed=len(self.history)
                )
            tricks = self.tricks_of(r.deal, self.rules)[r.seat]
        except backend.SourceUnavailable as exc:
            self.message = str(exc)
            self._changed()
            return None
        r.call, r.forecast, r.simulation, r.tricks = c, fc, sim, tricks
        self.history.append(r)
        self.message = ""
        self._changed()
        return r

    # --- results ----------------------------------------------------------------------------
    def score_of(self, r: Round, call: int) -> int:
        """What ``call`` scored (tenths) in the round's deal play-out."""
        assert r.tricks is not None
        return self.rules.score(call, r.tricks)

    def expected_of(self, r: Round, call: int) -> float:
        """Expected score (tenths) of ``call`` under the round's forecast."""
        assert r.forecast is not None
        adv = r.forecast.advice
        return float(adv.expected[call - int(adv.calls[0])])

    @property
    def totals(self) -> tuple[int, int]:
        """Session totals in tenths: (person, model) in the deals' play-outs."""
        you = sum(self.score_of(r, r.call) for r in self.history if r.call is not None)
        model = sum(self.score_of(r, r.forecast.call) for r in self.history if r.forecast)
        return you, model

    @property
    def accuracy(self) -> float | None:
        """Share of calls equal to the model's (None before the first answer)."""
        if not self.history:
            return None
        same = sum(1 for r in self.history if r.forecast and r.call == r.forecast.call)
        return same / len(self.history)

    def summary(self) -> str:
        """Running score line."""
        if not self.history:
            return "no calls yet"
        you, model = self.totals
        acc = self.accuracy or 0.0
        return (
            f"{len(self.history)} hand(s): you {format_tenths(you)}, model "
            f"{format_tenths(model)}; your call matched the model's {100 * acc:.0f}% of the time"
        )

    def verdict(self) -> str:
        """Plain words on the last answer."""
        r = self.current
        if r is None or r.call is None or r.forecast is None:
            return ""
        fc = r.forecast
        mine, best = r.call, fc.call
        line = (
            f"You called {mine}, the model calls {best}. In this deal seat {r.seat} takes "
            f"{r.tricks} trick(s) in the play-out: your call scores "
            f"{format_tenths(self.score_of(r, mine))}, the model's "
            f"{format_tenths(self.score_of(r, best))}. "
        )
        mean_mine = format_tenths(round(self.expected_of(r, mine)))
        if mine == best:
            return line + f"Averaged over the forecast, a call of {mine} scores {mean_mine} points."
        mean_best = format_tenths(round(self.expected_of(r, best)))
        return line + (
            f"Averaged over the forecast, the expected scores are {mean_mine} points for your "
            f"call of {mine} and {mean_best} points for the model's call of {best}."
        )
