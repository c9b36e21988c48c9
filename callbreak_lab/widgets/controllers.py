"""Pure controllers behind the widgets: all state and logic, no ipywidgets.

A view builds a controller, forwards user actions to its methods and redraws from its state. Each
controller can be driven directly from Python (and is unit-tested that way).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from callbreak_lab.bidding.calls import check_earlier_calls
from callbreak_lab.bidding.explain import CallExplanation
from callbreak_lab.bidding.features import feature_dict
from callbreak_lab.bidding.match import MatchCall, check_deal_of_match, match_call_for
from callbreak_lab.cards import (
    ALL_CARDS,
    N_TRICKS,
    Card,
    Deal,
    Hand,
    NotationError,
    Suit,
    check_seat,
)
from callbreak_lab.errors import CallbreakLabError, CallError, HandError
from callbreak_lab.rules import DEFAULT_RULES, PRESETS, Ruleset, totals_of_points
from callbreak_lab.widgets import backend
from callbreak_lab.widgets.backend import Forecast, Forecaster, Progress, SourceUnavailable

__all__ = [
    "CallAdvisor",
    "DealExplorer",
    "HandPicker",
    "explain",
    "format_expected",
]

MAX_CARDS = N_TRICKS  # a full hand: one card a trick
SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
Listener = Callable[[], None]


class Observable:
    """Minimal change notification: views register a callback and redraw on change. One
    notification at a time: an advice deepening on its own thread (``widgets.deepening``)
    tells of its final answer while a redraw begun on the kernel's thread may still be
    drawing the first answer, and without a running event loop (a script, a test) its
    notification comes on that thread; it waits for the redraw under way, so the last drawing
    is of the latest state."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def observe(self, fn: Listener) -> None:
        """Call ``fn()`` after every state change."""
        self._listeners.append(fn)

    def _changed(self) -> None:
        with self._notifying:
            for fn in list(self._listeners):
                fn()

    @property
    def _notifying(self) -> threading.RLock:
        """The lock that keeps notifications one at a time, made on first use (a dataclass
        subclass does not call ``__init__``); ``dict.setdefault`` keeps one if two threads
        make it at once."""
        lock = self.__dict__.get("_notify_lock")
        if lock is None:
            lock = self.__dict__.setdefault("_notify_lock", threading.RLock())
        return lock  # type: ignore[no-any-return]

    def _say(self, message: str) -> None:
        """Show ``message`` (why an entry was refused, or "" once all is well) and notify."""
        self.message = message
        self._changed()


class Stepper(Observable):
    """A controller that shows one step of a sequence (a line's cards, a deal's record):
    ``step`` in ``0..length``, moved by ``go``/``next``/``prev``; each move clears
    ``message`` and notifies."""

    step: int
    message: str

    @property
    def length(self) -> int:
        """The last step."""
        raise NotImplementedError

    def go(self, step: int) -> None:
        """Show step ``step`` (clamped to ``0..length``)."""
        self.step = max(0, min(int(step), self.length))
        self.message = ""
        self._changed()

    def next(self) -> None:
        """One step forward."""
        self.go(self.step + 1)

    def prev(self) -> None:
        """One step back."""
        self.go(self.step - 1)


# ---------------------------------------------------------------------------------------------
# Hand picker
# ---------------------------------------------------------------------------------------------


class HandPicker(Observable):
    """A hand being entered card by card or as text (any notation ``Hand.parse`` reads).

    ``hand`` is the last valid hand; ``text`` what the text box shows (canonical after a click or
    a good entry, the person's text after a bad one); ``message`` explains the last refusal.
    """

    def __init__(self, hand: Hand | str | None = None) -> None:
        super().__init__()
        self.hand = Hand()
        self.text = ""
        self.message = ""
        if hand is not None:
            self.set_text(str(hand) if isinstance(hand, Hand) else hand)

    @property
    def count(self) -> int:
        """Cards held so far."""
        return len(self.hand)

    @property
    def complete(self) -> bool:
        """True with exactly 13 cards."""
        return self.count == MAX_CARDS

    @property
    def status(self) -> str:
        """``7 of 13 cards`` plus the last message."""
        base = f"{self.count} of {MAX_CARDS} cards"
        return f"{base} · {self.message}" if self.message else base

    def holds(self, card: Card | int | str) -> bool:
        """True when ``card`` is in the hand."""
        return Card.parse(card) in self.hand

    def toggle(self, card: Card | int | str) -> bool:
        """Add or remove one card; refuses a 14th card (returns False, sets ``message``)."""
        c = Card.parse(card)
        if c in self.hand:
            self.hand = self.hand - c
            self.message = ""
        elif self.count >= MAX_CARDS:
            self._say(f"a hand has 13 cards: remove one before adding {c.symbol()}")
            return False
        else:
            self.hand = self.hand | c
            self.message = ""
        self.text = str(self.hand) if self.hand else ""
        self._changed()
        return True

    def set_text(self, text: str) -> bool:
        """Read a hand from text; on a bad entry keep the last hand and explain (returns False)."""
        self.text = text
        if not text.strip():
            self.hand, self.message = Hand(), ""
            self._changed()
            return True
        try:
            hand = Hand.parse(text)
        except NotationError as exc:
            self._say(str(exc))
            return False
        if len(hand) > MAX_CARDS:
            self._say(f"{len(hand)} cards given: a hand has at most 13")
            return False
        self.hand, self.message = hand, ""
        self.text = str(hand)
        self._changed()
        return True

    def preview(self, text: str) -> tuple[int, str]:
        """``(cards, problem)`` of ``text`` as typed, before it is entered (nothing changes): the
        cards it holds so far and '' while it reads as a hand; a dotted hand still being typed
        counts with its missing dots (``AKQ2.T98`` holds 7 cards). Text that does not read as
        a hand gives the entered hand's count and why, as ``set_text`` would."""
        if not text.strip():
            return 0, ""
        candidates = [text]
        dots = text.count(".")
        if 0 < dots < 3:
            candidates.append(text + "." * (3 - dots))
        problem = ""
        for candidate in candidates:
            try:
                hand = Hand.parse(candidate)
            except NotationError as exc:
                problem = problem or str(exc)
                continue
            if len(hand) > MAX_CARDS:
                return len(hand), f"{len(hand)} cards given: a hand has at most 13"
            return len(hand), ""
        return self.count, problem

    def set_hand(self, hand: Hand) -> None:
        """Replace the hand (at most 13 cards)."""
        if len(hand) > MAX_CARDS:
            raise HandError(f"a hand has at most 13 cards, got {len(hand)}")
        self.hand, self.message = hand, ""
        self.text = str(hand) if hand else ""
        self._changed()

    def clear(self) -> None:
        """Empty the hand."""
        self.set_hand(Hand())

    def random_fill(self, seed: int | None = None) -> None:
        """Complete the hand with random cards (keeps those already picked)."""
        rng = np.random.default_rng(seed)
        rest = [c for c in ALL_CARDS if c not in self.hand]
        extra = rng.choice(len(rest), size=MAX_CARDS - self.count, replace=False)
        self.set_hand(self.hand | Hand.from_cards(rest[int(i)] for i in extra))


# ---------------------------------------------------------------------------------------------
# Call advisor
# ---------------------------------------------------------------------------------------------

_HONOUR_NAMES = (("ace_s", "A"), ("king_s", "K"), ("queen_s", "Q"), ("jack_s", "J"))


def format_expected(tenths: float) -> str:
    """An expected score (in tenths of a point) as points to one decimal, the ".0" kept:
    24.7 -> "2.5", 20.2 -> "2.0", -5 -> "-0.5". Every page shows expected scores this way, so a
    whole number never reads as a rounded one."""
    value = round(float(tenths)) / 10
    return f"{value + 0.0:.1f}"  # + 0.0: -0.0 shows as 0.0


def floor_range(floor: np.ndarray, share: float = 0.8) -> tuple[int, int, float]:
    """``(low, high, p)``: the guaranteed tricks lie in ``low..high`` with probability ``p >=
    share`` (the central ``share`` of the floor distribution: its 10th to 90th percentile)."""
    cdf = np.cumsum(np.asarray(floor, dtype=np.float64) / np.sum(floor))
    tail = (1.0 - share) / 2
    low = int(np.searchsorted(cdf, tail + 1e-9, side="right"))
    high = int(np.searchsorted(cdf, 1.0 - tail - 1e-9))
    p = float(cdf[high] - (cdf[low - 1] if low else 0.0))
    return low, high, p


def explain(hand: Hand, seat: int, forecast: Forecast) -> str:
    """One plain-words line: spades, the floor, voids, and which call scores best on average.

    The floor is the hand's double-dummy value: the tricks it takes even when the other three
    play against it, every card seen. It depends on how the other 39 cards lie, so it is a
    distribution over their layouts (the forecast's ``floor``, the grey outline of the chart);
    the line gives its central range and how often the floor lies there, so the words and the
    chart agree. Without a floor it is left out."""
    f = feature_dict(hand, seat)
    n = int(f["len_s"])
    honours = " ".join(ch for key, ch in _HONOUR_NAMES if f[key])
    if n == 0:
        spades = "no spades"
    else:
        spades = f"{n} spade{'s' if n != 1 else ''}" + (f" with {honours}" if honours else "")
    if forecast.floor is not None:
        low, high, p = floor_range(forecast.floor)
        tricks = f"{low}" if low == high else f"{low}-{high}"
        plural = "s" if high != 1 else ""
        spades += (
            f": a floor of {tricks} trick{plural} in {100 * p:.0f}% of the ways the other cards "
            "lie (the tricks it takes even when the others play against it, all cards seen)"
        )
    parts = [spades]
    voids = [s.plural for s in SUIT_ORDER[1:] if hand.suit_count(s) == 0]
    if voids and n:
        parts.append(f"a void in {' and '.join(voids)} to trump")
    adv = forecast.advice
    parts.append(
        f"call {adv.call} scores best on average "
        f"({format_expected(adv.expected_score)} points expected, made "
        f"{100 * adv.make_probability:.0f}% of the time)"
    )
    return "; ".join(parts)


@dataclass
class SimulationCheck:
    """Result of the Monte Carlo check shown over the model's forecast."""

    forecast: Forecast
    agrees: bool


class CallAdvisor(Observable):
    """Suggested call, make probabilities and expected scores for a picked hand.

    ``forecaster`` gives the quick forecast (the bid model by default); ``simulator`` the slow
    Monte Carlo reference used by "check with simulation". With the match standing given
    (``set_standing``: the four totals before this deal and the deal of the match), ``match``
    is the call for the match (``bidding.match.match_call_for``) beside the points-best one.
    """

    def __init__(
        self,
        picker: HandPicker | None = None,
        preset: str = DEFAULT_RULES,
        seat: int = 0,
        forecaster: Forecaster | None = None,
        simulator: Callable[..., Forecast] | None = None,
        layouts: int = 16,
    ) -> None:
        super().__init__()
        self.picker = picker or HandPicker()
        self.preset = preset
        self.seat = seat
        #: calls of the seats before this one (seat 0 first); empty: not given
        self.earlier_calls: tuple[int, ...] = ()
        #: what the "calls before" box shows: the accepted calls, or the refused text as typed
        self.earlier_text = ""
        #: why ``earlier_text`` is refused ('' when it is accepted); advising waits for a fix
        self.earlier_error = ""
        self.forecaster: Forecaster = forecaster or backend.model_forecast
        self.simulator = simulator or backend.simulate_forecast
        #: layouts of the Monte Carlo check ("check with simulation")
        self.layouts = layouts
        #: the match standing: the totals before this deal (tenths, seat 0 first) and the deal
        #: of the match (1 for the first); None: not given
        self.totals: tuple[int, int, int, int] | None = None
        self.deal_of_match: int | None = None
        #: the totals box as typed, and why it or the deal is refused ('' when accepted)
        self.totals_text = ""
        self.standing_error = ""
        #: the call for the match of the last advice (None without a standing), or why not
        self.match: MatchCall | None = None
        self.match_error = ""
        self.forecast: Forecast | None = None
        self.simulation: SimulationCheck | None = None
        self.explanation = ""
        #: why this call (``bidding.explain``): each card's chance, the suits' tricks, the
        #: counting rules' view; None before advice or when it cannot be had (``why_error``)
        self.why: CallExplanation | None = None
        self.why_error = ""
        self.error = ""
        self.runs = 0
        self.picker.observe(self._hand_changed)

    @property
    def rules(self) -> Ruleset:
        """The selected preset."""
        return Ruleset.preset(self.preset)

    @staticmethod
    def presets() -> list[str]:
        """Preset names for the selector."""
        return list(PRESETS)

    def set_preset(self, name: str) -> None:
        """Select a preset (the old advice no longer applies)."""
        Ruleset.preset(name)
        self.preset = name
        if self.earlier_error:  # the refused text may be fine under the new rules
            self.set_earlier_calls(self.earlier_text)
            return
        self._reset()

    def set_seat(self, seat: int) -> None:
        """Select the seat 0..3 (seat 0 bids first and leads). Earlier calls given for another
        seat no longer fit and are dropped; a refused entry is dropped too (the box shows the
        calls kept)."""
        self.seat = check_seat(seat)
        if self.earlier_calls and len(self.earlier_calls) != self.seat:
            self.earlier_calls = ()
        self.earlier_text, self.earlier_error = ",".join(map(str, self.earlier_calls)), ""
        self._reset()

    def set_earlier_calls(self, text: str) -> bool:
        """The calls already made by the seats before this one, as text ('3,4' or '3 4'; ''
        for none). Their number sets the seat (two calls: seat 2). A call-conditioned model
        (strict's, online's) forecasts from them; the others ignore them. A bad entry is kept
        as typed in ``earlier_text`` with its reason in ``earlier_error`` and ``error``; the calls
        there were stay, no forecast is shown and ``advise`` refuses until the entry is
        corrected (returns False)."""
        parts = text.replace(",", " ").split()
        problem = ""
        calls: tuple[int, ...] = ()
        if not all(p.isdigit() for p in parts):
            problem = f"earlier calls are whole numbers such as '3,4', got {text.strip()!r}"
        elif len(parts) > 3:
            problem = f"at most three seats call before you, got {len(parts)} calls"
        else:
            try:
                calls = check_earlier_calls([int(p) for p in parts], len(parts), self.rules)
            except CallError as exc:
                problem = str(exc)
        if problem:
            self.earlier_text, self.earlier_error = text, problem
            self._reset()
            return False
        self.earlier_calls = calls
        self.earlier_text, self.earlier_error = ",".join(map(str, calls)), ""
        if calls:
            self.seat = len(calls)
        self._reset()
        return True

    def set_standing(self, totals: str, deal_of_match: int | None) -> bool:
        """The match standing: the four totals in points before this deal, seat 0 first
        (``"3, 0, 6.2, -1"``; ``""`` for none) and the deal of the match (1..``match_deals``;
        None: not in a match). The first deal needs no totals (every one is 0). A bad standing
        is kept as typed with its reason in ``standing_error`` (the points advice still shows,
        the match call does not) and returns False."""
        self.totals_text = totals
        problem = ""
        parsed: tuple[int, int, int, int] | None = None
        try:
            parsed = totals_of_points(totals) if totals.strip() else None
            if deal_of_match is not None:
                check_deal_of_match(deal_of_match, self.rules)
                if parsed is None and deal_of_match != 1:
                    problem = f"deal {deal_of_match} of the match needs the four totals before it"
                elif parsed is not None and deal_of_match == 1 and any(parsed):
                    problem = "before the first deal of a match every total is 0"
            elif parsed is not None:
                problem = "with the totals, choose the deal of the match"
        except CallbreakLabError as exc:
            problem = str(exc)
        if problem:
            self.totals, self.deal_of_match = None, None
        else:
            self.totals, self.deal_of_match = parsed, deal_of_match
        self.standing_error = problem
        self._reset()
        return not problem

    def _match(self, fc: Forecast) -> None:
        """The call for the match from the forecast, when a standing is given."""
        self.match, self.match_error = None, self.standing_error
        if self.standing_error or (self.totals is None and self.deal_of_match is None):
            return
        try:
            self.match = match_call_for(
                fc.dist,
                self.seat,
                self.rules,
                totals=self.totals,
                deal_of_match=self.deal_of_match,
                earlier_calls=self.earlier_calls or None,
            )
        except CallbreakLabError as exc:  # e.g. a variant without recorded deals
            self.match_error = str(exc)

    def _hand_changed(self) -> None:
        if self.forecast is not None or self.error:
            self._reset()

    def _reset(self) -> None:
        """Drop the advice; a refused "calls before" entry stays reported in ``error``."""
        self.forecast, self.simulation, self.explanation = None, None, ""
        self.why, self.why_error = None, ""
        self.match, self.match_error = None, self.standing_error
        self.error = f"calls before: {self.earlier_error}" if self.earlier_error else ""
        self._changed()

    def advise(self) -> Forecast | None:
        """Forecast the picked hand; on a problem set ``error`` and return None."""
        self.simulation = None
        self.runs += 1
        if self.earlier_error:  # never advise past a refused entry: its text is still shown
            self.forecast, self.explanation, self.why = None, "", None
            self.error = f"calls before: {self.earlier_error}; correct or clear them to get a call"
            self._changed()
            return None
        if not self.picker.complete:
            self.forecast, self.explanation, self.why = None, "", None
            self.error = f"pick 13 cards first ({self.picker.count} so far)"
            self._changed()
            return None
        rules = self.rules
        try:
            check_earlier_calls(self.earlier_calls, len(self.earlier_calls), rules)
        except CallError as exc:  # the preset changed since the calls were given
            self.forecast, self.explanation, self.why = None, "", None
            self.error = f"{self.preset}: {exc}"
            self._changed()
            return None
        extra = {"earlier_calls": self.earlier_calls} if self.earlier_calls else {}
        try:
            fc = self.forecaster(self.picker.hand, self.seat, rules, **extra)
        except SourceUnavailable as exc:
            self.forecast, self.explanation, self.error = None, "", str(exc)
            self.why = None
            self._changed()
            return None
        self.forecast, self.error = fc, ""
        self.explanation = explain(self.picker.hand, self.seat, fc)
        self._match(fc)
        self._why(fc)
        self._changed()
        return fc

    def _why(self, fc: Forecast) -> None:
        """Why the call shown (the match's call when a standing is given): each card's chance
        of taking a trick and the counting rules' view (``why``, else ``why_error``)."""
        from callbreak_lab.bidding.explain import explain_call  # loads the card model

        call = self.match.call if self.match is not None else fc.call
        try:
            self.why = explain_call(
                self.picker.hand,
                self.seat,
                self.rules,
                earlier_calls=self.earlier_calls or None,
                call=call,
            )
            self.why_error = ""
        except CallbreakLabError as exc:  # e.g. the card model is not installed
            self.why, self.why_error = None, f"why this call: {exc}"

    def check_with_simulation(
        self, progress: Progress | None = None, seed: int = 0
    ) -> SimulationCheck | None:
        """Run the Monte Carlo reference for the same hand and seat; ``progress(done, total)``."""
        if self.forecast is None and self.advise() is None:
            return None
        try:
            sim = self.simulator(
                self.picker.hand,
                self.seat,
                self.rules,
                layouts=self.layouts,
                seed=seed,
                progress=progress,
            )
        except SourceUnavailable as exc:
            self.error = str(exc)
            self._changed()
            return None
        assert self.forecast is not None
        self.simulation = SimulationCheck(sim, agrees=sim.call == self.forecast.call)
        self._changed()
        return self.simulation

    def table(self, top: int | None = None) -> list[tuple[int, str, str]]:
        """Rows ``(call, P(made) as %, expected score)`` of the current forecast, in call order;
        with ``top``, only the ``top`` calls of highest expected score (ties: the lower call)."""
        if self.forecast is None:
            return []
        rows = self.forecast.advice.table()
        if top is not None:
            best = sorted(rows, key=lambda r: (-r[1], r[0]))[:top]
            rows = sorted(best, key=lambda r: r[0])
        return [(int(c), f"{100 * p:.0f}%", format_expected(e)) for c, e, p in rows]


# ---------------------------------------------------------------------------------------------
# Deal explorer
# ---------------------------------------------------------------------------------------------


@dataclass
class DealExplorer(Observable):
    """A full deal (entered or dealt from a seed) and its double-dummy table for the four seats."""

    preset: str = DEFAULT_RULES
    deal: Deal | None = None
    text: str = ""
    message: str = ""
    table: list[int] | None = None
    playout: list[int] | None = None
    _listeners: list[Listener] = field(default_factory=list, repr=False)

    @property
    def rules(self) -> Ruleset:
        """The selected preset."""
        return Ruleset.preset(self.preset)

    def set_preset(self, name: str) -> None:
        """Select a preset; the table is recomputed on the next ``solve``."""
        Ruleset.preset(name)
        self.preset, self.table, self.playout = name, None, None
        self._changed()

    def set_text(self, text: str) -> bool:
        """Read a deal in any notation; on a bad entry keep the old deal and explain."""
        self.text = text
        try:
            deal = Deal.parse(text)
        except NotationError as exc:
            self._say(str(exc))
            return False
        self._set(deal)
        return True

    def deal_random(self, seed: int) -> Deal:
        """Deal a random (seeded) deal."""
        deal = Deal.random(int(seed))
        self._set(deal)
        return deal

    def _set(self, deal: Deal) -> None:
        self.deal, self.text, self.message = deal, str(deal), ""
        self.table, self.playout = None, None
        self._changed()

    def solve(self) -> list[int] | None:
        """The double-dummy value of each seat and its self-interested play-out tricks."""
        if self.deal is None:
            self._say("enter or deal a deal first")
            return None
        try:
            self.table = backend.dd_table(self.deal, self.rules)
            self.playout = backend.playout_tricks(self.deal, self.rules)
        except SourceUnavailable as exc:
            self._say(str(exc))
            return None
        self._say("")
        return self.table
