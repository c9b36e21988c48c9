"""The analysis board's pure controller (no ipywidgets): a deal and its play record, stepped
through with every legal card's value, branched, opened from a link and reviewed.

``BoardSpec`` is what a link holds: the deal, the cards played (any notation ``parse_record``
reads), the calls, the rules and the step shown. ``BoardSpec.parse`` reads the four text boxes of
the page, refusing bad text with a ``FieldError`` naming the box; ``to_query`` / ``from_query``
write and read the link's query (``?deal=...&record=...&calls=...&rules=...&step=...``), which a
Voilà page's kernel sees as ``QUERY_STRING`` (``widgets.page.page_query``).

``AnalysisBoard`` shows the position before card ``step`` of the shown cards: the record, or after
``play(card)`` away from the record's card a branch, the record's cards up to there, the card
tried and the self-interested play-out after it (``lines.playout_line``). At the record's end a
card played extends the record instead. The values of a step are the mover's own double-dummy
deal totals for each legal card (``lines.judged_step`` on the record, the play-out's steps on a
branch), computed when the step is first shown. ``review()`` judges the record single-dummy
(``review.review_play``); ``open_mistake(i)`` goes to mistake ``i``'s position, where the next
card played is judged against the review's best card (``verdict``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote, urlencode

from callbreak_lab.analysis import lines
from callbreak_lab.cards import Card, Deal, check_seat
from callbreak_lab.errors import (
    CallbreakLabError,
    FieldError,
    check_int,
    check_time_limit,
)
from callbreak_lab.game import Position, parse_calls, parse_record
from callbreak_lab.rules import Ruleset
from callbreak_lab.util.progress import Progress
from callbreak_lab.widgets.controllers import Stepper

if TYPE_CHECKING:  # the review (and the advice it loads) is imported when first asked for
    from callbreak_lab.analysis.review import CardJudgement, SingleDummyReview
    from callbreak_lab.widgets.after_deal import AfterDeal

__all__ = ["AnalysisBoard", "BoardSpec", "Branch"]

#: the link's query keys, in the order a link writes them
QUERY_KEYS = ("deal", "record", "calls", "rules", "step")


def _field(name: str, read: Callable[[], Any]) -> Any:
    """``read()``, its library error re-raised as a FieldError naming the box ``name``."""
    try:
        return read()
    except FieldError:
        raise
    except CallbreakLabError as exc:
        raise FieldError(name, f"{name}: {exc}") from None


def _whole(value: int | str) -> int | str:
    """``value`` as an int when it is the text of one (a link's step), else as it is (for
    ``check_int`` to refuse by name)."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return value


def _record_text(cards: tuple[Card, ...]) -> str:
    """Cards as a play record, ``|`` between tricks (``AS 2S 5S KS | QH``)."""
    text = [str(c) for c in cards]
    return " | ".join(" ".join(text[i : i + 4]) for i in range(0, len(text), 4))


@dataclass(frozen=True)
class BoardSpec:
    """A deal, the cards played from its start, the calls (None: unknown), the rules and the
    step shown (0..len(record)): what the board opens and what its link holds."""

    deal: Deal
    record: tuple[Card, ...]
    calls: tuple[int, ...] | None
    rules: Ruleset
    step: int

    @classmethod
    def parse(
        cls,
        deal: Deal | str,
        record: str = "",
        calls: str | None = None,
        rules: Ruleset | str | None = None,
        *,
        step: int | str | None = None,
    ) -> BoardSpec:
        """Read the page's boxes: ``deal`` (any deal notation ``Deal.parse`` reads), ``record``
        (the cards played from the deal's start, seat 0 leading), ``calls`` (four numbers, '' or
        None: unknown), ``rules`` (a preset name; None: ``rules.DEFAULT_RULES``) and ``step`` (the
        card shown, None: the record's end). Bad text raises a FieldError naming its box."""
        r = _field("rules", lambda: Ruleset.coerce(rules or None))
        if isinstance(deal, str) and not deal.strip():
            raise FieldError("deal", "deal: empty (paste four hands, seats 0..3)")
        d = _field("deal", lambda: Deal.parse(deal))
        cards = _field("record", lambda: parse_record(record or ""))
        _field("record", lambda: Position.replay(d, cards, r))
        c = _field("calls", lambda: parse_calls(calls or None, r))
        n = len(cards)
        if step is None or (isinstance(step, str) and not step.strip()):
            s = n
        else:
            s = _field("step", lambda: check_int(_whole(step), "step", low=0, high=n))
        return cls(d, tuple(cards), c, r, s)

    @property
    def record_text(self) -> str:
        """The record as text (``|`` between tricks)."""
        return _record_text(self.record)

    def to_query(self) -> str:
        """The link's query (without ``?``): ``deal`` (dotted hands joined by ``/``),
        ``record`` (cards joined by ``,``), ``calls`` (``3,4,2,3``), ``rules`` (a preset
        name), ``step``; nothing in it needs escaping."""
        items = {
            "deal": "/".join(str(h) for h in self.deal),
            "record": ",".join(str(c) for c in self.record),
            "calls": ",".join(map(str, self.calls)) if self.calls else "",
            "rules": self.rules.name,
            "step": str(self.step),
        }
        return urlencode({k: v for k, v in items.items() if v}, quote_via=quote, safe=",/")

    @classmethod
    def from_query(cls, query: str) -> BoardSpec:
        """The spec a link's query describes (a leading ``?`` is fine; other keys are
        ignored). A query without a deal, or with bad text, raises a FieldError naming it."""
        q = parse_qs(query.lstrip("?"), keep_blank_values=True)

        def one(key: str) -> str | None:
            values = q.get(key)
            return values[-1] if values else None

        deal = one("deal")
        if not deal:
            raise FieldError("deal", "deal: the link has no deal (…?deal=…&record=…)")
        return cls.parse(
            deal, one("record") or "", one("calls"), one("rules") or None, step=one("step")
        )

    def link(self, base: str = "") -> str:
        """``base`` (a page's address) with this spec as its query."""
        return f"{base}?{self.to_query()}"


@dataclass(frozen=True)
class Branch:
    """A branch: at step ``at`` the card ``card`` instead of the record's, and the play-out
    after it (``line``, a self-interested play-out to the deal's end)."""

    at: int
    card: Card
    line: lines.Line


class AnalysisBoard(Stepper):
    """See the module docstring. ``message`` says why the last entry was refused ('' when all
    is well); ``note`` what the last card tried is worth against the best."""

    def __init__(
        self,
        spec: BoardSpec | None = None,
        *,
        layouts: int = 16,
        time_limit: float | None = None,
    ) -> None:
        super().__init__()
        #: layouts a decision of the review (``review``), and its time limit in seconds
        self.layouts = check_int(layouts, "layouts", low=1)
        self.time_limit = check_time_limit(time_limit)
        self.spec: BoardSpec | None = None
        self.step = 0
        self.branch: Branch | None = None
        self.reviewed: SingleDummyReview | None = None
        #: the mistake being tried again (from ``open_mistake``), until a card is played there
        self.trying: CardJudgement | None = None
        self.message = ""
        self.note = ""
        self._values: dict[int, lines.Step] = {}
        if spec is not None:
            self._open(spec)

    # --- opening ------------------------------------------------------------------------------
    def _open(self, spec: BoardSpec) -> None:
        self.spec = spec
        self.step = spec.step
        self.branch = None
        self.reviewed = None
        self.trying = None
        self.message = self.note = ""
        self._values = {}

    def load(
        self,
        deal: str,
        record: str = "",
        calls: str | None = None,
        rules: str | None = None,
        *,
        step: int | str | None = None,
    ) -> bool:
        """Open the deal and record typed on the page (``BoardSpec.parse``); False, with
        ``message`` naming the box, when the text is refused (the board keeps what it showed)."""
        return self._open_from(lambda: BoardSpec.parse(deal, record, calls, rules, step=step))

    def open_query(self, query: str) -> bool:
        """Open a link's query (``BoardSpec.from_query``); False with ``message`` when refused."""
        return self._open_from(lambda: BoardSpec.from_query(query))

    def _open_from(self, read: Callable[[], BoardSpec]) -> bool:
        """Open what ``read`` gives; False, with ``message``, when it refuses the text."""
        try:
            spec = read()
        except CallbreakLabError as exc:
            self._say(str(exc))
            return False
        self._open(spec)
        self._changed()
        return True

    def random_deal(self, seed: int, index: int = 0, rules: str | None = None) -> bool:
        """Open deal ``index`` of the deals seeded ``seed`` (``Deal.seeded``) with no card
        played, to play a record onto it card by card."""
        try:
            deal = Deal.seeded(seed, index)
            r = Ruleset.coerce(rules or (self.spec.rules if self.spec else None))
        except CallbreakLabError as exc:
            self._say(str(exc))
            return False
        self._open(BoardSpec(deal, (), None, r, 0))
        self._changed()
        return True

    # --- what is shown --------------------------------------------------------------------------
    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards shown: the record, or on a branch its cards before the branch, the card
        tried and the play-out after it."""
        if self.spec is None:
            return ()
        if self.branch is None:
            return self.spec.record
        b = self.branch
        return (*self.spec.record[: b.at], b.card, *b.line.cards())

    @property
    def length(self) -> int:
        """Number of cards shown."""
        return len(self.cards)

    @property
    def position(self) -> Position:
        """The position before card ``step`` of the shown cards."""
        if self.spec is None:
            raise FieldError("deal", "deal: no deal on the board yet")
        return Position.replay(self.spec.deal, self.cards[: self.step], self.spec.rules)

    def values(self) -> lines.Step | None:
        """The decision at ``step``: who plays, each legal card's double-dummy deal total for
        its mover (``best`` the highest) and the card shown there (None at the end of the
        shown cards). After the record's last card, where no card is known yet, the card shown
        is the lowest best one."""
        if self.spec is None:
            return None
        b = self.branch
        if b is not None and self.step > b.at:
            k = self.step - b.at - 1
            return b.line.steps[k] if k < len(b.line.steps) else None
        record = self.spec.record
        if self.step < len(record):
            card: Card | None = record[self.step]
        else:
            card = b.card if b is not None and b.at == self.step else None
        if self.step not in self._values:
            pos = Position.replay(self.spec.deal, record[: self.step], self.spec.rules)
            if pos.is_over:
                return None
            first = card if card is not None else pos.legal_cards().lowest()
            self._values[self.step] = lines.judged_step(pos, self.step, first)
        st = self._values[self.step]
        shown = card if card is not None else st.best_cards()[0]
        return st if st.card == shown else replace(st, card=shown)

    def at_record_end(self) -> bool:
        """True when the step is after the record's last card and no branch is shown: a card
        played here extends the record."""
        return self.spec is not None and self.branch is None and self.step == len(self.spec.record)

    def describe(self) -> str:
        """One plain-words line on the current step."""
        if self.spec is None:
            return "no deal yet: paste one (or draw a random one) and press open"
        pos = self.position
        if pos.is_over:
            return "deal over · tricks " + "-".join(map(str, pos.tricks_won))
        st = self.values()
        where = f"card {self.step + 1} of {self.length} (trick {pos.trick_index + 1})"
        if self.at_record_end():
            where = f"after the record's {self.step} card(s) (trick {pos.trick_index + 1})"
        text = f"{where} · seat {pos.to_move} to play"
        if st is not None and not self.at_record_end():
            ok = "a best card" if st.is_best else f"best: {st.best} tricks"
            text += f" · played {st.card.symbol()} ({st.value} trick(s) for seat {st.seat}, {ok})"
        if self.branch is not None:
            text += f" · on a branch from card {self.branch.at + 1}"
        return text

    # --- navigation ----------------------------------------------------------------------------
    def back_to_record(self) -> None:
        """Drop the branch and show the record at the same step (or its end)."""
        self.branch = None
        self.trying = None
        self.note = ""
        self.go(self.step)

    # --- playing a card --------------------------------------------------------------------------
    def play(self, card: Card | str) -> bool:
        """Play ``card`` at the current step: at the record's end it extends the record; on the
        record's (or a branch's) own card it steps forward; else it branches there (the
        play-out continues from it) and ``note`` says what it is worth against the best (against
        the review's best card when trying a mistake again). False, with ``message``, for a
        card that is not legal here."""
        if self.spec is None:
            self._say("open a deal first")
            return False
        pos = self.position
        try:
            c = Card.parse(card)
            if pos.is_over:
                raise FieldError("card", "the deal is over: no card left to play")
            legal = pos.legal_cards_with_reasons()
            if c not in legal.legal:
                why = legal.excluded.get(c, f"seat {pos.to_move} does not hold {c.symbol()}")
                raise FieldError("card", f"{c.symbol()} cannot be played here: {why}")
        except CallbreakLabError as exc:
            self._say(str(exc))
            return False
        trying = self.trying
        if trying is not None and (self.branch is not None or trying.index != self.step):
            trying = None  # the mistake's position is no longer shown
        if self.at_record_end():
            spec = self.spec
            self._open(replace(spec, record=(*spec.record, c), step=self.step + 1))
            self._changed()
            return True
        st = self.values()
        if st is not None and c == st.card:
            # the card shown here: step on (a mistake tried again with its own card is judged)
            self.note = self.verdict(c, trying) if trying is not None else ""
            self.trying = None
            self.go(self.step + 1)
            return True
        after = pos.copy()
        after.play(c)
        at = self.step
        if self.branch is not None and at > self.branch.at:
            # a branch off the branch: its cards so far become the record's prefix shown
            self._open(replace(self.spec, record=self.cards[:at], step=at))
        line = lines.playout_line(after, calls=self.spec.calls)
        self.branch = Branch(at, c, line)
        self.note = self.verdict(c, trying)
        self.trying = None
        self.message = ""
        self.step = at + 1
        self._changed()
        return True

    def verdict(self, card: Card, judged: CardJudgement | None = None) -> str:
        """Plain words on ``card`` at the current step against the best card: the review's
        single-dummy judgement of the mistake tried again (``judged``), else the double-dummy
        deal totals."""
        if judged is not None and judged.sd is not None:
            return self._table_verdict(card, judged)
        st = self.values()
        value = None if st is None else st.values.get(card)
        if st is None or value is None:
            return ""
        best = st.best_cards()[0]
        if value == st.best:
            what = "a best card" if card == best else f"as good as the best ({best.symbol()})"
            return (
                f"{card.symbol()} is {what}: seat {st.seat} ends with {value} tricks double-dummy."
            )
        return (
            f"{card.symbol()} is not the best: seat {st.seat} ends with {value} tricks "
            f"double-dummy, {st.best} with {best.symbol()}."
        )

    def _table_verdict(self, card: Card, judged: CardJudgement) -> str:
        """``verdict`` by the review's single-dummy values of the mistake ``judged``."""
        sd = judged.sd
        assert sd is not None
        unit = "points" if sd.unit == "points" else "tricks"
        best, cost = sd.best, sd.cost(card)
        threshold = self.reviewed.threshold if self.reviewed is not None else 0.05
        mine, top = sd.value(card), sd.value(best)
        played = f"the card played, {judged.card.symbol()}, cost {judged.cost:.2f}"
        if card == best:
            return (
                f"{card.symbol()} is the best card at the table: {mine:+.2f} {unit} expected "
                f"({played})."
            )
        if cost <= threshold:
            return (
                f"{card.symbol()} is as good as the best ({best.symbol()}): {mine:+.2f} {unit} "
                f"expected against {top:+.2f} at the table ({played})."
            )
        return (
            f"{card.symbol()} is not the best: it costs {cost:.2f} {unit} against "
            f"{best.symbol()} ({mine:+.2f} against {top:+.2f} expected at the table; "
            f"{played}). Try again."
        )

    # --- the review ---------------------------------------------------------------------------
    def review(
        self,
        *,
        seats: list[int] | None = None,
        first: int = 0,
        progress: Progress | None = None,
    ) -> SingleDummyReview | None:
        """Judge the record's cards single-dummy (``review.review_play``, ``layouts`` layouts a
        decision, the seats ``seats``, default all four, from card ``first`` on); the mistakes
        are then listed by ``mistakes``. None, with ``message``, without a record."""
        if self.spec is None or not self.spec.record:
            self._say("nothing to review: the record is empty")
            return None
        from callbreak_lab.analysis.review import review_play

        try:
            chosen = None if seats is None else [check_seat(s) for s in seats]
            self.reviewed = review_play(
                self.spec.deal, list(self.spec.record), self.spec.rules,
                calls=self.spec.calls, layouts=self.layouts, seats=chosen,
                first=first, time_limit=self.time_limit, progress=progress,
            )  # fmt: skip
        except CallbreakLabError as exc:
            self._say(str(exc))
            return None
        self.message = ""
        self._changed()
        return self.reviewed

    def mistakes(self, k: int = 5) -> list[CardJudgement]:
        """The review's ``k`` costliest cards, costliest first ([] before a review)."""
        return [] if self.reviewed is None else self.reviewed.mistakes(k)

    def open_mistake(self, index: int) -> bool:
        """Go to the position of the review's card ``index`` (its 0-based place in the record)
        on the record, to try another card there: the next card played is judged against the
        review's best (``note``)."""
        if self.reviewed is None:
            self._say("review the play first")
            return False
        found = [j for j in self.reviewed.cards if j.index == index and j.sd is not None]
        if not found:
            self._say(
                f"card {index + 1} of the record was not judged (a forced card, a seat not "
                "reviewed, or before the review's first card)"
            )
            return False
        self.branch = None
        self.trying = found[0]
        self.note = ""
        self.go(index)
        return True

    # --- after the deal ----------------------------------------------------------------------
    def after_deal(self, seat: int) -> AfterDeal | None:
        """The record replayed with the four hands face up (``after_deal.AfterDeal``, ``seat``
        at the bottom), with the review's values of ``seat``'s cards when the review judged
        them (its expected score across the deal). None before a deal is opened."""
        from callbreak_lab.widgets.after_deal import AfterDeal

        spec = self.spec
        if spec is None:
            return None
        after = AfterDeal(
            spec.deal, spec.record, spec.rules, calls=spec.calls, seat=check_seat(seat),
            title=f"The record replayed ({len(spec.record)} cards), seat {seat} at the bottom",
        )  # fmt: skip
        r = self.reviewed
        if r is not None and seat in r.seats:  # a review is of the record opened
            after.set_review(r)
        return after

    # --- the link -------------------------------------------------------------------------------
    def current_spec(self) -> BoardSpec | None:
        """The spec that reopens what is shown: the record and step (on a branch, the branch's
        cards as the record)."""
        if self.spec is None:
            return None
        return replace(self.spec, record=self.cards, step=self.step)

    def link(self, base: str = "") -> str:
        """A link to the position shown: ``base`` (the page's address) and the query ('' before
        a deal is opened)."""
        spec = self.current_spec()
        return "" if spec is None else spec.link(base)
