"""Pure controllers for the play-line viewer and the calling trainer (no ipywidgets)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from callbreak_lab.cards import Card, Deal, Hand, Suit
from callbreak_lab.errors import (
    CallbreakLabError,
    CallError,
    UsageError,
    check_int,
    check_time_limit,
)
from callbreak_lab.game import Position, parse_calls
from callbreak_lab.rules import DEFAULT_RULES, Ruleset, format_tenths
from callbreak_lab.widgets import backend
from callbreak_lab.widgets.backend import Forecast, Forecaster
from callbreak_lab.widgets.controllers import Observable, Stepper, format_expected
from callbreak_lab.widgets.deepening import Deepening

__all__ = ["FOCUS", "CallingTrainer", "PlayLineViewer", "Round"]


# ---------------------------------------------------------------------------------------------
# Play-line viewer
# ---------------------------------------------------------------------------------------------


class PlayLineViewer(Stepper):
    """Step through an annotated line (``lines.play_line`` or ``lines.playout_line``) and branch.

    ``step`` is the number of cards played so far on the line (0..len); the decision shown is the
    one at ``step``. ``branch(card)`` replaces that decision's card and replays the line from it;
    ``cost`` is then what the change gained (+) or lost (-) for the studied seat.

    ``judgement`` is ``"double"`` (every hand seen: the line's values) or ``"single"``: the
    decision is also judged as its player could at the table (``advice.single_dummy_values``
    over ``layouts`` layouts, computed when first shown and kept), for the studied seat's
    decisions (every mover's on a play-out). With ``deepening`` (the view's way) the judgement
    runs on a thread of its own and answers at once: ``single_update()`` is the latest
    ``advice.AdviceUpdate`` (the learned card, then the values over the layouts solved so far,
    then the final answer), the observers are told as it deepens (``widgets.deepening``), and
    ``wait_single()`` waits for the final one; moving to another decision stops the old one
    (no further layout is started). With ``show_cards`` the studied seat's card reading
    is shown too (``cards()``: where the cards it cannot see are, from the calls and the plays;
    the mover's on a play-out).

    ``calls`` is four calls, or a function of no argument returning them (e.g. the bid model's
    calls for the deal): it is called when the calls are first needed (``resolve_calls``: the
    single-dummy judgement, the card reading, or the view once it has drawn the table), so the
    viewer opens without loading what computes them. ``calls_pending`` says whether that is yet
    to come; the lines carry the calls from then on.
    """

    def __init__(
        self,
        deal: Deal | str,
        seat: int | None = 0,
        rules: Ruleset | str | None = None,
        *,
        calls: Any = None,
        record: str = "",
        layouts: int = 32,
        time_limit: float | None = 3.0,
    ) -> None:
        super().__init__()
        from callbreak_lab.analysis import lines

        self.rules = Ruleset.coerce(rules)
        start = Position.replay(Deal.parse(deal), record, self.rules)
        #: the function giving the calls when first needed (None: the lines carry them)
        self._calls_of: Callable[[], Any] | None = calls if callable(calls) else None
        self._calls_lock = threading.Lock()
        self._fetched: tuple[int, ...] | None = None
        given = None if self._calls_of is not None else calls
        if seat is None:
            self.main = lines.playout_line(start, self.rules, calls=given)
        else:
            self.main = lines.play_line(start, seat, self.rules, calls=given)
        self.line = self.main
        self.step = 0
        self.message = ""
        self.judgement = "double"
        #: the layouts of a single-dummy judgement, which answers within ``time_limit`` seconds
        #: (None: every layout, the answer then depends only on the step)
        self.layouts = check_int(layouts, "layouts", low=1)
        self.time_limit = check_time_limit(time_limit)
        #: the latest advice update of each decision judged (``single_update``)
        self._single: dict[tuple[int, int], Any] = {}
        self.deepening = False
        self._runs: dict[tuple[int, int], Deepening] = {}
        self.show_cards = False
        self._cards: dict[tuple[int, int], Any] = {}

    # --- calls ------------------------------------------------------------------------------
    @property
    def calls_pending(self) -> bool:
        """Whether the calls are still to be computed (``calls`` was a function)."""
        return self._calls_of is not None

    def fetch_calls(self) -> tuple[int, ...] | None:
        """Compute the calls (once; thread-safe, any thread) without changing the lines: the
        calls, or None when they are not pending or cannot be computed (``message`` says why)."""
        with self._calls_lock:
            if self._fetched is None and self._calls_of is not None:
                try:
                    self._fetched = parse_calls(self._calls_of(), self.rules)
                except CallbreakLabError as exc:  # e.g. no bid model shipped for the rules
                    self.message = f"the calls cannot be computed: {exc}"
                    self._calls_of = None
            return self._fetched

    def resolve_calls(self) -> None:
        """Compute the pending calls (``fetch_calls``) and put them on the lines shown (the
        main line and the branch; the viewer's own thread)."""
        if self._calls_of is None:
            return
        calls = self.fetch_calls()
        self._calls_of = None
        if calls is None:
            return
        on_main = self.line is self.main
        self.main = replace(self.main, calls=calls)
        self.line = self.main if on_main else replace(self.line, calls=calls)

    # --- judgement ------------------------------------------------------------------------
    def set_judgement(self, kind: str) -> None:
        """``"double"`` or ``"single"`` (see the class docstring)."""
        if kind not in ("double", "single"):
            raise UsageError(f"judgement must be 'double' or 'single', got {kind!r}")
        self.judgement = kind
        self._changed()

    def single(self, progress: Callable[[int, int], None] | None = None) -> Any:
        """The current decision's single-dummy values (``advice.SingleDummy``; with
        ``deepening``, over the layouts solved so far), or None when the judgement is
        double-dummy, the card is forced, the mover is not the studied seat, or (deepening) no
        layout is solved yet."""
        u = self.single_update(progress)
        return None if u is None else u.answer

    def single_update(self, progress: Callable[[int, int], None] | None = None) -> Any:
        """The current decision's latest ``advice.AdviceUpdate`` (None as for ``single``):
        computed here and final, or with ``deepening`` started on a thread when first asked
        and as far as it has come."""
        d = self.decision
        if self.judgement != "single" or d is None or len(d.values) < 2:
            return None
        if self.line.seat is not None and d.seat != self.line.seat:
            return None
        self.resolve_calls()
        key = (id(self.line), self.step)
        run = self._runs.get(key)
        if run is not None and run.stop.is_set() and not (run.latest and run.latest.complete):
            del self._runs[key]  # stopped short when the viewer moved on: start it again
        elif run is not None:
            if run.error:
                self.message = run.error
            return run.latest
        if key not in self._single:
            from callbreak_lab.analysis.advice import deepen
            from callbreak_lab.seat.knowledge import Knowledge

            k = Knowledge.of_position(self.position, d.seat, self.line.calls)
            n, seed, limit = self.layouts, self.step, self.time_limit
            if not self.deepening:
                self._single[key] = deepen(
                    k, layouts=n, seed=seed, time_limit=limit, progress=progress, keep_first=True
                )
            else:
                for other in self._runs.values():
                    if not other.done.is_set():
                        other.cancel()  # the decision shown before: no further layout
                self._runs[key] = Deepening(
                    lambda on_update, stop: deepen(
                        k, layouts=n, seed=seed, time_limit=limit, on_update=on_update, stop=stop
                    ),
                    self._changed,
                )
                return self._runs[key].latest
        return self._single.get(key)

    def wait_single(self, timeout: float | None = None) -> Any:
        """Wait (at most ``timeout`` seconds) until the current decision's advice is final;
        its last ``advice.AdviceUpdate`` (None when there is none)."""
        self.single_update()
        run = self._runs.get((id(self.line), self.step))
        return self.single_update() if run is None else run.wait(timeout)

    def single_status(self) -> str:
        """How far the current decision's advice has come ("12 of 32 layouts…", "… · final");
        '' when there is none."""
        u = self.single_update()
        return "" if u is None else u.status()

    def set_show_cards(self, on: bool) -> None:
        """Show the card reading (``cards()``) or not."""
        self.show_cards = bool(on)
        self._changed()

    def cards(self) -> Any:
        """Where the cards the studied seat cannot see are at the current step
        (``seat.reading.Reading``; the mover's on a play-out), or None when not shown or the
        line is over."""
        if not self.show_cards or self.step >= self.length:
            return None
        self.resolve_calls()
        key = (id(self.line), self.step)
        if key not in self._cards:
            from callbreak_lab.seat.knowledge import Knowledge
            from callbreak_lab.seat.reading import read_cards

            pos = self.position
            seat = self.line.seat if self.line.seat is not None else pos.to_move
            k = Knowledge.of_position(pos, seat, self.line.calls)
            self._cards[key] = read_cards(k, seed=self.step)
        return self._cards[key]

    def single_note(self) -> str:
        """Plain words comparing the two judgements at the current decision ('' when none;
        before the first layout is solved, the learned card)."""
        u = self.single_update()
        d = self.decision
        if u is None or d is None:
            return ""
        sd = u.answer
        if sd is None:
            return (
                f"At the table the learned play policy plays {u.card.symbol()} (no layout of "
                "the hidden cards solved yet)."
            )
        unit = "points" if sd.unit == "points" else "tricks"
        dd_best = d.best_cards()
        if sd.best in dd_best:
            return (
                f"At the table {sd.best.symbol()} is best too ({sd.value(sd.best):+.2f} {unit} "
                f"expected over {sd.layouts} layouts of the hidden cards)."
            )
        dd = dd_best[0]
        return (
            f"Double-dummy plays {dd.symbol()} (it sees every hand); at the table "
            f"{sd.best.symbol()} is better by {sd.cost(dd):.2f} {unit} "
            f"({sd.value(sd.best):+.2f} against {sd.value(dd):+.2f} over {sd.layouts} layouts)."
        )

    # --- navigation -------------------------------------------------------------------------
    @property
    def length(self) -> int:
        """Number of cards on the line."""
        return len(self.line.steps)

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
    #: with ``CallingTrainer(table=True)``: the seat's tricks when four ``strong`` players play
    #: the deal, the seat calling the person's call, then the model's
    table: tuple[int, int] | None = None
    #: why the model's call (``bidding.explain``): each card's chance of taking a trick, the
    #: suits' tricks, the counting rules' view (None before the answer or when unavailable)
    why: Any = None

    @property
    def hand(self) -> Hand:
        """The hand to call."""
        return self.deal[self.seat]


class CallingTrainer(Observable):
    """Random (seeded) hands to call; compares each call with the model's and keeps score.

    ``focus`` restricts hands to one kind (rejection sampling over random deals). After a call,
    ``score`` is what it scored in the deal's self-interested play-out and ``expected`` its
    expected score under the forecast; the session keeps totals for the person and the model and
    the share of calls matching the model's. ``table=True`` also plays each deal out at a table
    of four ``strong`` players (the arena's rules: each sees only its own hand), once with the
    person's call and once with the model's, and keeps those scores too (two boards of play a
    hand; a board's cost: benchmarks/RESULTS.md, "Arena"): how the call fares in real play, not
    only against the double-dummy play-out.
    """

    def __init__(  # noqa: PLR0913  (the public keyword API: the backends are injectable for tests)
        self,
        preset: str = DEFAULT_RULES,
        seed: int = 0,
        focus: str = "any hand",
        forecaster: Forecaster | None = None,
        simulator: Callable[..., Forecast] | None = None,
        layouts: int = 0,
        tricks_of: Callable[[Deal, Ruleset], list[int]] | None = None,
        table: bool = False,
        table_tricks_of: Callable[[Deal, Ruleset, int, int], int] | None = None,
    ) -> None:
        super().__init__()
        self.table = bool(table)
        self.table_tricks_of = table_tricks_of or backend.table_tricks
        self.preset = preset
        self.rng = np.random.default_rng(seed)
        self.focus = focus
        self.forecaster: Forecaster = forecaster or backend.model_forecast
        self.simulator = simulator or backend.simulate_forecast
        #: layouts of the Monte Carlo check of each call (0: none)
        self.layouts = layouts
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
            if self.layouts:
                sim = self.simulator(
                    r.hand, r.seat, self.rules, layouts=self.layouts, seed=len(self.history)
                )
            tricks = self.tricks_of(r.deal, self.rules)[r.seat]
            table = None
            if self.table:
                mine = self.table_tricks_of(r.deal, self.rules, r.seat, c)
                theirs = (
                    mine
                    if fc.call == c
                    else self.table_tricks_of(r.deal, self.rules, r.seat, fc.call)
                )
                table = (mine, theirs)
        except backend.SourceUnavailable as exc:
            self.message = str(exc)
            self._changed()
            return None
        r.call, r.forecast, r.simulation, r.tricks, r.table = c, fc, sim, tricks, table
        r.why = self._why(r, fc.call)
        self.history.append(r)
        self.message = ""
        self._changed()
        return r

    def _why(self, r: Round, call: int) -> Any:
        """Why the model's ``call`` for the round's hand (None when the card model is missing)."""
        from callbreak_lab.bidding.explain import explain_call

        try:
            return explain_call(r.hand, r.seat, self.rules, call=call)
        except CallbreakLabError:
            return None

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

    def set_table(self, on: bool) -> None:
        """Play the deals out at a table of four ``strong`` players too (from the next call)."""
        self.table = bool(on)
        self._changed()

    @property
    def table_totals(self) -> tuple[int, int, int]:
        """(hands played at the table, person's total, model's total) in tenths."""
        n = you = model = 0
        for r in self.history:
            if r.table is None or r.call is None or r.forecast is None:
                continue
            n += 1
            you += self.rules.score(r.call, r.table[0])
            model += self.rules.score(r.forecast.call, r.table[1])
        return n, you, model

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
        text = (
            f"{len(self.history)} hand(s): you {format_tenths(you)}, model "
            f"{format_tenths(model)}; your call matched the model's {100 * acc:.0f}% of the time"
        )
        n, t_you, t_model = self.table_totals
        if n:
            text += (
                f"; at the table of strong players ({n} hand(s)): you {format_tenths(t_you)}, "
                f"model {format_tenths(t_model)}"
            )
        return text

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
        mean_mine = format_expected(self.expected_of(r, mine))
        if r.table is not None:
            a, b = r.table
            at_table = (
                f" At a table of four strong players (each seeing only its own hand) seat "
                f"{r.seat} takes {a} trick(s) with your call, scoring "
                f"{format_tenths(self.rules.score(mine, a))}"
                + (
                    "."
                    if mine == best
                    else f", and {b} with the model's, scoring "
                    f"{format_tenths(self.rules.score(best, b))}."
                )
            )
        else:
            at_table = ""
        if mine == best:
            return (
                line
                + f"Averaged over the forecast, a call of {mine} scores {mean_mine} points."
                + at_table
            )
        mean_best = format_expected(self.expected_of(r, best))
        return (
            line
            + (
                f"Averaged over the forecast, the expected scores are {mean_mine} points for your "
                f"call of {mine} and {mean_best} points for the model's call of {best}."
            )
            + at_table
        )
