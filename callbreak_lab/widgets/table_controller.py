"""Pure controller of "play a match against the bots" (no ipywidgets).

A person sits at table seat ``table_seat`` of a match (``rules.match_deals`` deals, five for the
presets) against three arena players (``simple``, ``model`` or ``strong``) that see only their
own seat (``arena.referee.seat_view``, with the match's standing). Deal ``k`` (from 0) of a match
seeded ``seed`` is ``Deal.seeded(seed, k)``: a match is replayed by its seed.

Seats rotate as in ``game.Match`` and ``arena.referee.play_match`` (RULES.md: the first caller
sits next to the dealer, leads trick 1, and the deal passes one seat on): the core's ``Position``
always has deal seat 0 calling first and leading, so in deal ``k`` the deal's seat ``s`` is table
seat ``(s + k) % 4``. The dealer is table seat ``(3 + k) % 4`` and the first leader table seat
``k % 4``; the person's seat in the deal's ``Position`` (``seat``) is ``(table_seat - k) % 4``.
Each table seat keeps its name ("you", "bot 1" .. "bot 3" in the order of play after you).

In a deal the calls go in seat order; ``call_advice()`` gives the bid model's suggestion (its
expected score and chance of making it) and the call ``strong`` makes at this standing. Then the
person plays its cards while the bots answer between its turns. A hint gives the person's
single-dummy values at its turn (``advice``), ``cards()`` where the cards it cannot see are
(``seat.reading``); at the end of a deal it is scored into the match (``game.Match``),
``review()`` judges the person's cards single-dummy, and ``after_deal()`` replays the deal.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from callbreak_lab.analysis.advice import AdviceUpdate, SingleDummy, single_dummy_values
from callbreak_lab.analysis.review import SingleDummyReview, review_play
from callbreak_lab.arena.players import make_player, strong_call
from callbreak_lab.arena.referee import seat_seed, seat_view
from callbreak_lab.bidding import recommend_call
from callbreak_lab.cards import Card, Deal, check_seat
from callbreak_lab.errors import CallbreakLabError, UsageError, check_int
from callbreak_lab.game import Match, Position
from callbreak_lab.rules import Ruleset, format_tenths
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.seat.reading import Reading, read_cards
from callbreak_lab.widgets.after_deal import AfterDeal
from callbreak_lab.widgets.controllers import Observable, format_expected
from callbreak_lab.widgets.deepening import Deepening

__all__ = ["OPPONENTS", "SEED_LIMIT", "CallSuggestion", "PlayTable", "fresh_seed"]

#: the bots a person can play against (``arena.players.make_player`` names)
OPPONENTS = ("simple", "model", "strong")
#: fresh match seeds are drawn below this (short enough to read out and type back)
SEED_LIMIT = 1_000_000


def fresh_seed() -> int:
    """A new match seed in ``0..SEED_LIMIT-1``."""
    return secrets.randbelow(SEED_LIMIT)


def _place(p: int) -> str:
    return f"{p}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(p if p < 20 else p % 10, 'th') }"


@dataclass(frozen=True)
class CallSuggestion:
    """The call advice at the person's turn to call: the bid model's points-best ``call`` with
    its expected score (points) and chance of being made, every legal call's (``rows``: call,
    expected points, make chance), and ``match_call``, the call ``strong`` makes at this
    standing, with ``reason`` (``arena.players.strong_call``)."""

    call: int
    expected: float
    make: float
    rows: tuple[tuple[int, float, float], ...]
    match_call: int
    reason: str

    def text(self) -> str:
        """One line: the suggestion, its expected score and make chance, the match call."""
        out = (
            f"Suggested call: {self.call} (expected score {format_expected(10 * self.expected)}, "
            f"made {100 * self.make:.0f}% of the time)"
        )
        if self.match_call != self.call:
            out += f"; at this standing strong calls {self.match_call} ({self.reason})"
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "call": self.call,
            "expected": round(self.expected, 4),
            "make": round(self.make, 4),
            "rows": [[c, round(e, 4), round(p, 4)] for c, e, p in self.rows],
            "match_call": self.match_call,
            "reason": self.reason,
        }


class _Preparing:
    """``prepare(rules)`` of the bots on a thread of its own: the first deal's table shows at
    once and the bots are ready by the time the person has called (``strong`` loads its solver
    and the match equity, a few seconds on a busy machine)."""

    def __init__(self, bots: list[Any], rules: Ruleset) -> None:
        self.error: BaseException | None = None
        self.thread = threading.Thread(
            target=self._run, args=(bots, rules), name="callbreak-table-prepare", daemon=True
        )
        self.thread.start()

    def _run(self, bots: list[Any], rules: Ruleset) -> None:
        try:
            for bot in bots:
                ready = getattr(bot, "prepare", None)
                if ready is not None:
                    ready(rules)
        except BaseException as exc:  # raised again in the kernel's thread (wait)
            self.error = exc

    def wait(self) -> None:
        self.thread.join()
        if self.error is not None:
            raise self.error


class PlayTable(Observable):
    """A match against three bots, one deal at a time (see the module docstring).

    ``phase``: ``"call"`` (the person's call is due), ``"play"`` (its card is due) or ``"over"``
    (the deal is over; ``match_over`` once the last deal of the match is). ``message`` explains
    a refused call or card; ``log`` lists what happened in this deal, in order."""

    #: the bots being prepared on a thread (``_ready`` waits for them)
    _preparing: _Preparing | None = None

    def __init__(
        self,
        rules: Ruleset | str | None = None,
        seat: int = 0,
        *,
        seed: int | None = None,
        opponents: str = "strong",
        hint_layouts: int = 32,
        review_layouts: int = 16,
        time_limit: float | None = 3.0,
    ) -> None:
        super().__init__()
        self.rules = Ruleset.coerce(rules)
        #: the person's table seat (fixed for the match)
        self.table_seat = check_seat(seat)
        self.hint_layouts = check_int(hint_layouts, "hint_layouts", low=1)
        self.review_layouts = check_int(review_layouts, "review_layouts", low=1)
        #: a hint answers within this many seconds with the layouts solved by then (a few deals
        #: at trick 1 need seconds a layout); None: every layout
        self.time_limit = time_limit
        self.new_match(seed, opponents=opponents)

    # --- the match -------------------------------------------------------------------------
    def new_match(self, seed: int | str | None = None, *, opponents: str | None = None) -> None:
        """Start a match: ``seed`` (None: a fresh one) deals its deals, ``opponents`` (None: the
        same as before) sit at the three other table seats."""
        if seed is None or (isinstance(seed, str) and not seed.strip()):
            seed = fresh_seed()
        try:
            seed_value = int(seed)
        except (TypeError, ValueError):
            raise UsageError(f"a match's seed is a whole number >= 0, got {seed!r}") from None
        self.seed = check_int(seed_value, "a match's seed", low=0)
        who = opponents if opponents is not None else getattr(self, "opponents", "strong")
        if who not in OPPONENTS:
            raise UsageError(f"opponents: one of {', '.join(OPPONENTS)}, got {who!r}")
        self.opponents = who
        #: the bot at each other table seat, kept for the whole match (as ``play_match`` does)
        self.bots: dict[int, Any] = {t: make_player(who) for t in range(4) if t != self.table_seat}
        self.match = Match(self.rules, self.table_names)
        #: the finished deals of this match, for ``after_deal``
        self.finished: list[AfterDeal] = []
        self._start_deal()

    def new_deal(self) -> None:
        """The next deal of the match (a new match once it is over)."""
        if self.match.is_over:
            self.new_match(fresh_seed())
            return
        if self.phase != "over":
            self._say("finish this deal first")
            return
        self._start_deal()

    @property
    def table_names(self) -> list[str]:
        """The name of each table seat: "you", and "bot 1".."bot 3" in the order of play
        after you."""
        return [
            "you" if t == self.table_seat else f"bot {(t - self.table_seat) % 4}" for t in range(4)
        ]

    def table_of(self, deal_seat: int) -> int:
        """The table seat of a seat of the current deal's ``Position``."""
        return (check_seat(deal_seat, "a deal seat") + self.deal_index) % 4

    @property
    def names(self) -> list[str]:
        """The players' names by seat of the current deal."""
        table = self.table_names
        return [table[self.table_of(s)] for s in range(4)]

    @property
    def dealer(self) -> int:
        """The table seat dealing the current deal."""
        return (3 + self.deal_index) % 4

    @property
    def first_leader(self) -> int:
        """The table seat calling first and leading trick 1 of the current deal."""
        return self.deal_index % 4

    @property
    def deal_count(self) -> int | None:
        """Deals in a match (None: played to a target score)."""
        return self.rules.match_deals

    @property
    def match_over(self) -> bool:
        return self.match.is_over

    @property
    def deals(self) -> int:
        """Deals of this match played to the end."""
        return len(self.match.deals)

    @property
    def totals(self) -> tuple[int, int, int, int]:
        """The match's totals in tenths by table seat."""
        return self.match.totals

    def _deal_totals(self) -> list[int]:
        """The match's totals before this deal by seat of this deal (what the bots see)."""
        before = [0, 0, 0, 0]
        for d in self.match.deals[: self.deal_index]:
            for t in range(4):
                before[t] += d.scores[t]
        return [before[self.table_of(s)] for s in range(4)]

    # --- the deal -------------------------------------------------------------------------
    def _start_deal(self) -> None:
        """Deal the match's next deal and let the bots before the person call."""
        self.deal_index = len(self.match.deals)
        self.seat = (self.table_seat - self.deal_index) % 4  # the person's seat in this deal
        self.deal = Deal.seeded(self.seed, self.deal_index)
        self.position = Position(self.deal, self.rules)
        self.calls: list[int] = []
        self.log: list[str] = []
        self.message = ""
        self._hint: SingleDummy | None = None
        self._cards: Reading | None = None
        self._review: SingleDummyReview | None = None
        self._call_advice: CallSuggestion | None = None
        self._ready()  # the last match's bots are ready before new ones are
        bots = [self.bots[self.table_of(s)] for s in range(4) if s != self.seat]
        self._preparing = _Preparing(bots, self.rules)
        if self.deal_index:
            self._ready()  # cheap once the match's first deal has prepared them
        for s in range(4):  # as the referee does (arena.referee.play_deal)
            hook = getattr(self._bot(s), "new_deal", None) if s != self.seat else None
            if hook is not None:
                hook(seat_seed(self.seed, self.deal_index, s))
        self._bots_call()
        self._changed()

    def _ready(self) -> None:
        """Wait until the bots are prepared for this deal (``prepare(rules)``, as the referee
        does); a bot's failure to prepare is raised here."""
        preparing = self._preparing
        if preparing is not None:
            self._preparing = None
            preparing.wait()

    @property
    def phase(self) -> str:
        """``call``, ``play`` or ``over``."""
        if len(self.calls) < 4:
            return "call"
        return "over" if self.position.is_over else "play"

    def _bot(self, s: int) -> Any:
        return self.bots[self.table_of(s)]

    def _view(self, s: int) -> Any:
        return seat_view(self.position, s, self.calls, self._deal_totals(), self.deal_index + 1)

    def _bots_call(self) -> None:
        if len(self.calls) < 4 and len(self.calls) != self.seat:
            self._ready()
        while len(self.calls) < 4 and len(self.calls) != self.seat:
            s = len(self.calls)
            c = int(self._bot(s).call(self._view(s)))
            self.calls.append(c)
            self.log.append(f"{self.names[s]} calls {c}")

    def _bots_play(self) -> None:
        if not self.position.is_over and self.position.to_move != self.seat:
            self._ready()
        while not self.position.is_over and self.position.to_move != self.seat:
            s = self.position.to_move
            card = Card.parse(self._bot(s).play(self._view(s)))
            self.position.play(card)
            self.log.append(f"{self.names[s]} plays {card.symbol()}")
            self._after_card()

    def _after_card(self) -> None:
        p = self.position
        if not p.trick and p.tricks:
            t = p.tricks[-1]
            self.log.append(f"trick {len(p.tricks)}: {self.names[t.winner]} wins it")
        if p.is_over:
            k = self.deal_index
            calls = [self.calls[(t - k) % 4] for t in range(4)]
            tricks = [p.tricks_won[(t - k) % 4] for t in range(4)]
            self.match.record_deal(calls, tricks)
            self.finished.append(self._after_deal_of_this_deal())

    def _after_deal_of_this_deal(self) -> AfterDeal:
        n = self.deal_index + 1
        of = f" of {self.deal_count}" if self.deal_count else ""
        dealer = self.table_names[self.dealer]
        return AfterDeal(
            self.deal, self.position.record(), self.rules, calls=self.calls, seat=self.seat,
            names=self.names,
            title=f"Deal {n}{of} (seed {self.seed}, deal index {self.deal_index}; {dealer} dealt)",
        )  # fmt: skip

    # --- the person's moves -------------------------------------------------------------------
    def call(self, value: int | str) -> bool:
        """The person's call; the bots after it call and the play starts."""
        if self.phase != "call" or len(self.calls) != self.seat:
            self._say("no call is due from you now")
            return False
        try:
            c = int(value)
        except (ValueError, TypeError):
            self._say(f"not a call: {value!r}")
            return False
        try:
            self.rules.check_call(c)
        except CallbreakLabError as exc:  # outside the preset's range
            self._say(str(exc))
            return False
        self.calls.append(c)
        self.log.append(f"you call {c}")
        self._bots_call()
        self.message = ""
        self._bots_play()
        self._changed()
        return True

    def play(self, card: Card | str) -> bool:
        """The person's card (refused with the rule when it is not legal); the bots answer."""
        if self.phase == "call":
            self._say("no card is due from you now: the calls come first (make your call)")
            return False
        if self.phase != "play" or self.position.to_move != self.seat:
            self._say("no card is due from you now: the deal is over")
            return False
        try:
            c = Card.parse(card)
            if not self.position.legal_mask() >> c & 1:
                legal = self.position.legal_cards_with_reasons()
                why = legal.excluded.get(c, f"you do not hold {c.symbol()}")
                raise UsageError(f"{c.symbol()} cannot be played: {why}")
        except CallbreakLabError as exc:
            self._say(str(exc))
            return False
        self.position.play(c)
        self.log.append(f"you play {c.symbol()}")
        self._after_card()
        self._hint = None
        self._cards = None
        self.message = ""
        self._bots_play()
        self._changed()
        return True

    # --- help and judgement ---------------------------------------------------------------
    def call_advice(self) -> CallSuggestion | None:
        """The bid model's call for the person's hand (the earlier calls heard) and the call
        ``strong`` makes at this standing; None when no call of the person is due."""
        if self.phase != "call" or len(self.calls) != self.seat:
            return None
        if self._call_advice is None:
            hand = self.deal[self.seat]
            rec = recommend_call(hand, self.seat, self.rules, earlier_calls=self.calls)
            match_call, reason = strong_call(
                rec.distribution, self.seat, self.rules, self._deal_totals(),
                self.deal_index + 1, earlier_calls=self.calls,
            )  # fmt: skip
            a = rec.advice
            self._call_advice = CallSuggestion(
                int(a.call), a.expected_score / 10, a.make_probability,
                tuple((c, e / 10, p) for c, e, p in a.table()), int(match_call), reason,
            )  # fmt: skip
        self._changed()
        return self._call_advice

    @property
    def last_call_advice(self) -> CallSuggestion | None:
        """The call advice asked for at this turn (None if none was)."""
        return self._call_advice if self.phase == "call" else None

    def hint(self, progress: Callable[[int, int], None] | None = None) -> SingleDummy | None:
        """The person's single-dummy values now (its hand, the calls, the cards played); None
        when no card of the person is due."""
        if self.phase != "play" or self.position.to_move != self.seat:
            return None
        if self._hint is None:
            self._hint = single_dummy_values(
                self.position, self.seat, calls=self.calls, layouts=self.hint_layouts,
                seed=len(self.position.history), time_limit=self.time_limit, progress=progress,
            )  # fmt: skip
        self._changed()
        return self._hint

    @property
    def last_hint(self) -> SingleDummy | None:
        """The hint asked for at this turn (None if none was; with ``start_hint``, the values
        over the layouts solved so far, None before the first)."""
        if self._hint is not None:
            return self._hint
        u = self.hint_update
        return None if u is None else u.answer

    #: the deepening hint of the turn it was asked at (``start_hint``)
    _hint_run: tuple[Position, int, Deepening] | None = None

    def start_hint(self) -> AdviceUpdate | None:
        """The person's hint as the view shows it: it answers at once and deepens on a thread
        of its own (``advice.deepen``: the learned play policy's card, then the values over the
        layouts solved so far, then the final answer; the observers are told as it deepens,
        ``widgets.deepening``). Returns the first answer; ``hint_update`` is the latest,
        ``wait_hint`` waits for the final one. A card played stops it (no further layout)."""
        if self.phase != "play" or self.position.to_move != self.seat:
            return None
        if self.hint_update is None:
            from callbreak_lab.analysis.advice import deepen

            pos, turn = self.position, len(self.position.history)
            k = Knowledge.of_position(pos, self.seat, self.calls)
            n, limit = self.hint_layouts, self.time_limit

            def advise(on_update: Callable[[AdviceUpdate], None], stop: Any) -> AdviceUpdate:
                def keep(u: AdviceUpdate) -> None:
                    if self.position is not pos or len(pos.history) != turn:
                        stop.set()  # the turn is over: the rest of this hint is not wanted
                        return
                    on_update(u)

                return deepen(k, layouts=n, seed=turn, time_limit=limit, on_update=keep, stop=stop)

            self._hint_run = (pos, turn, Deepening(advise, self._changed))
            self._hint_run[2].wait_first()
        self._changed()
        return self.hint_update

    @property
    def hint_update(self) -> AdviceUpdate | None:
        """The latest answer of this turn's deepening hint (``start_hint``; None if none)."""
        run = self._hint_run
        if run is None or run[0] is not self.position or run[1] != len(self.position.history):
            return None
        return run[2].latest  # type: ignore[no-any-return]

    def wait_hint(self, timeout: float | None = None) -> AdviceUpdate | None:
        """Wait (at most ``timeout`` seconds) for this turn's hint to be final; its answer."""
        if self.hint_update is None or self._hint_run is None:
            return None
        return self._hint_run[2].wait(timeout)  # type: ignore[no-any-return]

    def cards(self) -> Reading | None:
        """Where the cards the person cannot see are now (``seat.reading.read_cards``: from the
        calls and the cards played); None before the play or after it."""
        if self.phase != "play":
            return None
        if self._cards is None:
            k = Knowledge.of_position(self.position, self.seat, self.calls)
            self._cards = read_cards(k, seed=len(self.position.history))
        self._changed()
        return self._cards

    @property
    def last_cards(self) -> Reading | None:
        """The reading asked for at this turn (None if none was)."""
        return self._cards

    def review(self, progress: Callable[[int, int], None] | None = None) -> SingleDummyReview:
        """The single-dummy review of the person's cards and call once the deal is over (also
        given to the deal's ``after_deal()`` view for its chart)."""
        if self.phase != "over":
            raise UsageError("the review comes when the deal is over")
        if self._review is None:
            self._review = review_play(
                self.deal, self.position.record(), self.rules, calls=self.calls,
                layouts=self.review_layouts, seed=self.seed + self.deal_index, seats=[self.seat],
                progress=progress,
            )  # fmt: skip
            self.finished[-1].set_review(self._review)
            self._changed()
        return self._review

    @property
    def last_review(self) -> SingleDummyReview | None:
        return self._review

    def after_deal(self, number: int | None = None) -> AfterDeal:
        """The replay of finished deal ``number`` (1-based; None: the last one)."""
        if not self.finished:
            raise UsageError("no deal of this match is over yet")
        n = len(self.finished) if number is None else number
        check_int(n, "a finished deal's number", low=1, high=len(self.finished))
        return self.finished[n - 1]

    # --- words ------------------------------------------------------------------------------
    def result(self) -> str:
        """Plain words on the finished deal (empty before the end)."""
        if self.phase != "over":
            return ""
        won = self.position.tricks_won
        parts = []
        for s in range(4):
            score = format_tenths(self.rules.score(self.calls[s], won[s]))
            parts.append(f"{self.names[s]}: called {self.calls[s]}, took {won[s]}, scores {score}")
        return "; ".join(parts) + "."

    def standing(self) -> str:
        """The match's totals after the deals played, and its result once it is over."""
        m = self.match
        names = self.table_names
        order = sorted(range(4), key=lambda t: (-m.totals[t], t))
        totals = ", ".join(f"{names[t]} {format_tenths(m.totals[t])}" for t in order)
        out = f"Totals after {len(m.deals)} deal(s): {totals}."
        if m.is_over:
            winners = m.winners()
            place = m.places()[self.table_seat]
            if winners == [self.table_seat]:
                out += " Match over: you win the match!"
            elif self.table_seat in winners:
                shared = ", ".join(names[t] for t in winners if t != self.table_seat)
                out += f" Match over: you share the win with {shared}."
            else:
                out += f" Match over: you finish {_place(place)}; {names[winners[0]]} wins."
        return out

    def deal_heading(self) -> str:
        """Which deal of the match, who dealt and who calls first and leads."""
        of = f" of {self.deal_count}" if self.deal_count else ""
        names = self.table_names
        first = names[self.first_leader]
        leads = "you call first and lead" if first == "you" else f"{first} calls first and leads"
        return (
            f"Deal {self.deal_index + 1}{of} · match seed {self.seed} · dealer: "
            f"{names[self.dealer]} · {leads}"
        )

    def status(self) -> str:
        """What is due now, in plain words."""
        if self.phase == "call":
            lo, hi = self.rules.min_call, self.rules.max_call
            heard = ", ".join(f"{self.names[s]} {c}" for s, c in enumerate(self.calls))
            heard = heard or "none (you call first)"
            return f"Calling: your call ({lo}..{hi}). Calls so far: {heard}."
        if self.phase == "play":
            return (
                f"Trick {self.position.trick_index + 1} of 13: your card "
                "(click a raised card in your hand)"
            )
        tail = " Match over." if self.match.is_over else ""
        return f"Deal {self.deal_index + 1} over. " + self.result() + tail
