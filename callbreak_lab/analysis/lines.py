"""Annotated play lines and reviews of played deals.

Two kinds of line, both played to the end of the deal from a position:

* ``play_line(position, seat, rules=None)`` -- the **double-dummy line** for a studied seat:
  "what can I guarantee?". The studied seat plays to maximise its own tricks and the other three
  play together to minimise them (the paranoid value of docs/rules.md). Every value shown is the
  studied seat's trick total for the deal, and it stays constant along the line; its final trick
  count equals the solver's value at the start.
* ``playout_line(position, rules=None)`` -- the **self-interested play-out**: "how would this deal
  go?". Each mover plays the card maximising *its own* double-dummy value (itself as the target),
  so each step shows the mover's own card values. The four trick counts sum to 13 for a whole
  deal; they are the forecast the bid model learns, whereas the line above is a floor.

Both lines record, for each card: who plays, every legal card with its value, the best value,
the rule restricting the choice (``restriction``) and whether the card was **forced**. A card is
forced only when the rules leave exactly one legal card (or the hand holds one card); when the
rules restrict the choice but several cards remain, ``restriction`` says why and ``forced`` is
``None``. Ties between equally good cards go to the lowest card (lowest rank; among equal ranks
clubs < diamonds < hearts < spades: ``cards.play_order_key``), the rule the solver's play-out uses.

Values are **deal totals**: tricks the seat has already won plus the double-dummy value of the
remaining tricks (the trick in progress included).

``line.branch(i, card)`` replays a line with another card at step ``i``; ``advice="single"`` adds
the single-dummy judgement of each decision (``analysis.advice``: on the call advisor's scale, every
seat playing for itself, with each card's floor beside it). Reviews of cards actually
played are in ``analysis.review`` (``judged_step`` is the step they judge).

All values come from ``callbreak_lab.solver`` (``card_values``, one call per decision; a forced
card on the double-dummy line needs no call since its value is the line's value).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Unpack

from callbreak_lab.cards import (
    Card,
    CardLike,
    Deal,
    check_seat,
    letters,
    lowest_card,
    play_order_key,
)
from callbreak_lab.errors import IllegalPlayError, SolverInputError, check_int
from callbreak_lab.game import Position, parse_calls
from callbreak_lab.rules import Legal, Reason, Ruleset

if TYPE_CHECKING:
    from callbreak_lab.analysis.advice import SingleDummy

__all__ = [
    "Line",
    "LineOptions",
    "Step",
    "judged_step",
    "play_line",
    "playout_line",
]

LAST_CARD = "last card in hand"


def _rules_of(
    position: Position | Deal | str, rules: Ruleset | str | None
) -> tuple[Position, Ruleset]:
    """The position under ``rules`` (replayed when they play differently from its own, an
    IllegalPlayError when they forbid one of its cards); a Deal or deal text is its start (seat
    0 on lead) under ``rules`` (None: ``rules.DEFAULT_RULES``)."""
    if isinstance(position, Deal | str):
        start = Position(Deal.parse(position), Ruleset.coerce(rules))
        return start, start.rules
    if not isinstance(position, Position):
        raise SolverInputError(
            f"need a Position, a Deal or deal text, got {type(position).__name__}"
        )
    r = Ruleset.coerce(rules, default=position.rules)
    return position.under(r), r


def _restriction(legal: Legal) -> str | None:
    """The rule narrowing the choice, if any (the rules' own sentence)."""
    if legal.reason == Reason.FREE_CHOICE:
        return None
    return legal.text


def _forced_text(legal: Legal, restriction: str | None, hand_size: int) -> str | None:
    if len(legal.legal) != 1:
        return None
    if hand_size == 1:
        return LAST_CARD
    return restriction or legal.text


def _solver_values(
    position: Position, seat: int, rules: Ruleset, known: int | None = None, exact: bool = False
) -> dict[Card, int]:
    """``card_values`` from the solver, converted to deal totals for ``seat``. ``known``: a deal
    total the seat is already known to reach from here (its value earlier on the line);
    ``exact``: ``known`` is the position's value itself (along a double-dummy line)."""
    from callbreak_lab import solver

    base = position.tricks_won[seat]
    lo = 0 if known is None else max(0, known - base)
    hi = lo if exact and known is not None else None
    raw = solver.card_values(position, seat, rules, at_least=lo, at_most=hi)
    return {Card.parse(c): base + int(v) for c, v in raw.items()}


def _last_trick_values(position: Position, seat: int) -> dict[Card, int] | None:
    """Values without the solver once only the trick in progress is left (one card per hand)."""
    if any(len(h) > 1 for h in position.hands):
        return None
    p = position.copy()
    card = p.legal_cards().lowest()
    p.play(card)
    while p.trick:
        p.play(p.legal_cards().lowest())
    return {card: p.tricks_won[seat]}


@dataclass(frozen=True)
class Step:
    """One card of a line: who played what, each legal card's value for ``target``, and why."""

    index: int
    trick: int  # 0-based trick number in the deal
    seat: int
    card: Card
    target: int  # whose trick total the values are
    values: Mapping[Card, int]
    best: int  # best value for the mover (max when mover == target, else min)
    restriction: str | None  # the rule that restricted the choice, if any
    forced: str | None  # why, when exactly one legal card was left
    winner: int | None = None  # on the card completing a trick: the seat winning it
    tricks: tuple[int, int, int, int] | None = None  # running counts after the trick
    #: the mover's single-dummy values here (``advice="single"``; None: not asked, or forced)
    single: SingleDummy | None = field(default=None, repr=False, compare=False)

    @property
    def disagrees(self) -> bool:
        """True when the single-dummy best card is not one of the double-dummy best cards: a
        card only someone who saw every hand would choose (a teaching moment)."""
        return self.single is not None and self.single.best not in self.best_cards()

    def lesson(self) -> str | None:
        """The teaching sentence of a disagreement (None without one)."""
        sd = self.single
        if sd is None or not self.disagrees:
            return None
        dd_card = self.best_cards()[0]
        gap = sd.value(sd.best) - sd.value(dd_card)
        unit = "points" if sd.unit == "points" else "tricks"
        return (
            f"double-dummy plays {dd_card} (it sees every hand: {self.values[dd_card]} tricks); "
            f"at the table {sd.best} is better by {gap:.2f} {unit} "
            f"({sd.value(sd.best):+.2f} against {sd.value(dd_card):+.2f} over {sd.layouts} "
            "layouts, each seat playing for itself)"
        )

    @property
    def value(self) -> int:
        """Value of the card played."""
        return self.values[self.card]

    @property
    def is_best(self) -> bool:
        """True when the card played is one of the best ones for its mover."""
        return self.value == self.best

    def best_cards(self) -> list[Card]:
        """The legal cards reaching ``best``, lowest first."""
        return sorted((c for c, v in self.values.items() if v == self.best), key=play_order_key)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (cards as text in letters, the reasons' cards too)."""
        d: dict[str, Any] = {
            "seat": self.seat,
            "card": str(self.card),
            "trick": self.trick + 1,
            "values": {str(c): v for c, v in sorted(self.values.items(), key=_desc)},
            "best": self.best,
            "forced": None if self.forced is None else letters(self.forced),
            "restriction": None if self.restriction is None else letters(self.restriction),
        }
        if self.winner is not None:
            d["winner"] = self.winner
            d["tricks"] = list(self.tricks or ())
        if self.single is not None:
            sd = self.single
            d["single"] = {
                "unit": sd.unit,
                "scale": "playout",
                "best": str(sd.best),
                "expected": round(sd.value(self.card), 4),
                "cost": round(sd.cost(self.card), 4),
                "disagrees": self.disagrees,
                "lesson": self.lesson(),
                "layouts": sd.layouts,
                "exact": sd.exact,
                "cards": {str(c): round(sd.value(c), 4) for c in sd.ranked()},
                "floor": {str(c): round(_floor(sd, c), 4) for c in sd.ranked()},
            }
        return d


def _floor(sd: SingleDummy, card: Card) -> float:
    """A card's single-dummy value on the floor (its expected score, else its tricks)."""
    o = sd.outcomes[card]
    return o.floor_tricks if o.floor_expected is None else o.floor_expected


def _desc(item: tuple[Card, int]) -> tuple[int, int]:
    return (-item[0].suit, -item[0].rank)


Kind = Literal["line", "playout"]


@dataclass(frozen=True)
class Line:
    """A line from ``start`` to the end of the deal (see the module docstring).

    ``seat`` is the studied seat of a double-dummy line (None for a play-out). A line made by
    ``branch`` has ``base`` (the line it branched from), ``branched_at`` (step index) and
    ``change`` (its final trick counts minus the base line's, per seat).
    """

    kind: Kind
    start: Position
    rules: Ruleset
    seat: int | None
    calls: tuple[int, ...] | None
    steps: tuple[Step, ...]
    base: Line | None = field(default=None, repr=False, compare=False)
    branched_at: int | None = None
    change: tuple[int, int, int, int] | None = None
    #: ``(layouts, seed)`` of the single-dummy advice on the steps (None: double-dummy only)
    single: tuple[int, int] | None = None

    def disagreements(self) -> list[Step]:
        """The steps whose single-dummy best card differs from the double-dummy best."""
        return [s for s in self.steps if s.disagrees]

    @property
    def tricks(self) -> tuple[int, int, int, int]:
        """Final trick counts of the four seats for the whole deal."""
        t = list(self.start.tricks_won)
        for s in self.steps:
            if s.winner is not None:
                t[s.winner] += 1
        return (t[0], t[1], t[2], t[3])

    @property
    def value(self) -> int | None:
        """The studied seat's final trick count (None for a play-out)."""
        return None if self.seat is None else self.tricks[self.seat]

    @property
    def delta(self) -> int | None:
        """For a branch: tricks gained (+) or lost (-) against the base line by the studied seat
        (a play-out: by the seat that played the changed card)."""
        if self.change is None or self.branched_at is None:
            return None
        who = self.seat if self.seat is not None else self.steps[self.branched_at].seat
        return self.change[who]

    def position(self, step_index: int | None = None) -> Position:
        """The position before step ``step_index`` (the end of the line when None)."""
        n = len(self.steps) if step_index is None else step_index
        n = check_int(n, "step index", low=0, high=len(self.steps), error=SolverInputError)
        p = self.start.copy()
        for s in self.steps[:n]:
            p.play(s.card)
        return p

    def cards(self) -> list[Card]:
        """The cards of the line in play order."""
        return [s.card for s in self.steps]

    def branch(self, step_index: int, card: CardLike) -> Line:
        """Replace the card at ``step_index`` with another legal card and play on from there."""
        last = len(self.steps) - 1
        step_index = check_int(step_index, "step index", low=0, high=last, error=SolverInputError)
        c = Card.parse(card)
        old = self.steps[step_index]
        pos = self.position(step_index)
        if c not in old.values:
            legal = pos.legal_cards_with_reasons()
            why = legal.excluded.get(c, f"seat {old.seat} does not hold {c}")
            cards = " ".join(str(x) for x in sorted(legal.legal, key=play_order_key))
            raise IllegalPlayError(f"step {step_index}: {c} is not legal ({why}; legal: {cards})")
        steps = list(self.steps[:step_index])
        steps.append(_make_step(pos, step_index, c, old.target, old.values, old.best, old))
        if self.kind == "line":
            assert self.seat is not None
            rest = _dd_steps(pos, self.seat, self.rules, len(steps), old.values[c])
        else:
            rest = _playout_steps(pos, self.rules, len(steps))
        if self.single is not None:  # the rest is played from after the branch's card
            after = self.position(step_index)
            after.play(c)
            rest = _with_single(rest, after, self, *self.single)
        new = Line(self.kind, self.start, self.rules, self.seat, self.calls, (*steps, *rest))
        a, b = new.tricks, self.tricks
        change = (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3])
        return Line(
            self.kind, self.start, self.rules, self.seat, self.calls, new.steps,
            base=self, branched_at=step_index, change=change, single=self.single,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """``{"kind", "seat", "rules", "steps": [...], "tricks": [t0, t1, t2, t3], ...}``."""
        d: dict[str, Any] = {
            "kind": self.kind,
            "rules": self.rules.name,
            "deal": str(self.start.deal),
            "start": self.start.record(),
            "seat": self.seat,
            "value": self.value,
            "calls": list(self.calls) if self.calls else None,
            "steps": [s.to_dict() for s in self.steps],
            "tricks": list(self.tricks),
        }
        if self.single is not None:
            d["advice"] = {"kind": "single", "layouts": self.single[0], "seed": self.single[1]}
            d["disagreements"] = [st.index for st in self.disagreements()]
        if self.change is not None:
            d["branched_at"] = self.branched_at
            d["change"] = list(self.change)
            d["delta"] = self.delta
        return d

    def text(self, detail: bool = False) -> str:
        """Plain text, one line per trick (``detail``: each decision's values and reasons)."""
        from callbreak_lab.render.text import line_text

        return line_text(self, detail)

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        from callbreak_lab.render.html import line_html

        return line_html(self)


def _make_step(
    pos: Position,
    index: int,
    card: Card,
    target: int,
    values: Mapping[Card, int],
    best: int,
    legal: Legal | Step,
) -> Step:
    """Play ``card`` on ``pos`` (mutating it) and return its step."""
    seat = pos.to_move
    if isinstance(legal, Step):
        restriction, forced = legal.restriction, legal.forced
    else:
        restriction = _restriction(legal)
        forced = _forced_text(legal, restriction, len(pos.hand(seat)))
    trick = pos.trick_index
    pos.play(card)
    winner = tricks = None
    if not pos.trick:
        winner, tricks = pos.leader, pos.tricks_won
    return Step(index, trick, seat, card, target, dict(values), best, restriction, forced,
                winner, tricks)  # fmt: skip


def _choose(values: Mapping[Card, int], maximise: bool) -> tuple[Card, int]:
    best = max(values.values()) if maximise else min(values.values())
    return lowest_card(c for c, v in values.items() if v == best), best


def _dd_steps(
    pos: Position, seat: int, rules: Ruleset, first: int, known: int | None
) -> list[Step]:
    """The double-dummy line for ``seat`` from ``pos`` (mutated) to the end of the deal.

    ``known``: the value of ``pos`` for ``seat`` when already known (saves a solver call on a
    forced card; along the line the value never changes)."""
    steps: list[Step] = []
    while not pos.is_over:
        legal = pos.legal_cards_with_reasons()
        if len(legal.legal) == 1 and known is not None:
            values = {legal.legal.lowest(): known}
        else:
            values = _last_trick_values(pos, seat) or _solver_values(
                pos, seat, rules, known, exact=True
            )
        card, best = _choose(values, pos.to_move == seat)
        known = best
        steps.append(_make_step(pos, first + len(steps), card, seat, values, best, legal))
    return steps


def _playout_steps(pos: Position, rules: Ruleset, first: int) -> list[Step]:
    """The self-interested play-out from ``pos`` (mutated) to the end of the deal."""
    steps: list[Step] = []
    # each seat's deal total at its last decision still holds: the other seats' cards can only
    # raise it (its value is their minimum) and its own chosen card keeps it
    known: list[int | None] = [None, None, None, None]
    while not pos.is_over:
        mover = pos.to_move
        legal = pos.legal_cards_with_reasons()
        values = _last_trick_values(pos, mover) or _solver_values(pos, mover, rules, known[mover])
        card, best = _choose(values, True)
        known[mover] = best
        steps.append(_make_step(pos, first + len(steps), card, mover, values, best, legal))
    return steps


Advice = Literal["double", "single"]


def _with_single(
    steps: Sequence[Step], before: Position, line: Line, n: int, seed: int
) -> list[Step]:
    """``steps`` (played from ``before``) with the single-dummy values of each decision that
    is not forced: the studied seat's on a double-dummy line, every mover's on a play-out."""
    from callbreak_lab.analysis.advice import single_dummy_values

    pos = before.copy()
    out: list[Step] = []
    for st in steps:
        ours = line.seat is None or st.seat == line.seat
        if ours and len(st.values) > 1:
            sd = single_dummy_values(
                pos, st.seat, calls=line.calls, layouts=n, seed=seed * 1009 + st.index
            )
            st = replace(st, single=sd)
        out.append(st)
        pos.play(st.card)
    return out


class LineOptions(TypedDict, total=False):
    """The keyword-only options of ``play_line`` and ``playout_line``: ``calls`` (None),
    ``advice`` ("double"), and for single-dummy advice ``layouts`` (32) and ``seed`` (0)."""

    calls: Iterable[int] | str | None
    advice: Advice
    layouts: int
    seed: int


def _advice(advice: Advice, layouts: int, seed: int) -> tuple[int, int] | None:
    if advice not in ("double", "single"):
        raise SolverInputError(f"advice must be 'double' or 'single', got {advice!r}")
    if advice == "double":
        return None
    return (
        check_int(layouts, "layouts (a decision)", low=1, error=SolverInputError),
        check_int(seed, "seed", error=SolverInputError),
    )


def play_line(
    position: Position | Deal | str,
    seat: int,
    rules: Ruleset | str | None = None,
    **options: Unpack[LineOptions],
) -> Line:
    """The double-dummy line for ``seat`` from ``position`` to the end of the deal, under
    ``rules`` (None: the position's own; a Deal or deal text: ``rules.DEFAULT_RULES``).

    ``advice="single"``: each of the seat's decisions also carries its single-dummy values
    (``advice.single_dummy_values`` over ``layouts`` layouts, seeded), and the line marks where the
    two judgements disagree (``Line.disagreements``, ``Step.lesson``)."""
    return _line(position, seat, rules, **options)


def playout_line(
    position: Position | Deal | str,
    rules: Ruleset | str | None = None,
    **options: Unpack[LineOptions],
) -> Line:
    """The self-interested play-out from ``position``, annotated with each mover's values
    (``advice="single"``: and each mover's single-dummy values, see ``play_line``)."""
    return _line(position, None, rules, **options)


def _line(
    position: Position | Deal | str,
    seat: int | None,
    rules: Ruleset | str | None,
    *,
    calls: Iterable[int] | str | None = None,
    advice: Advice = "double",
    layouts: int = 32,
    seed: int = 0,
) -> Line:
    """``play_line`` for ``seat``, or ``playout_line`` where ``seat`` is None (the options'
    defaults: no calls, double-dummy advice, 32 layouts, seed 0)."""
    pos, r = _rules_of(position, rules)
    if seat is not None:
        seat = check_seat(seat)
    c = parse_calls(calls, r)
    single = _advice(advice, layouts, seed)
    start = pos.copy()
    if seat is None:
        line = Line("playout", start, r, None, c, tuple(_playout_steps(pos, r, 0)))
    else:
        line = Line("line", start, r, seat, c, tuple(_dd_steps(pos, seat, r, 0, None)))
    if single is None:
        return line
    steps = _with_single(line.steps, start, line, *single)
    return replace(line, steps=tuple(steps), single=single)


def judged_step(pos: Position, index: int, card: Card) -> Step:
    """Play ``card`` (legal) on ``pos`` (mutated) and return its step, with every legal card's
    value for the mover itself (its own deal total; ``best`` its highest): a played card as a
    review judges it."""
    mover = pos.to_move
    legal = pos.legal_cards_with_reasons()
    values = _last_trick_values(pos, mover) or _solver_values(pos, mover, pos.rules)
    return _make_step(pos, index, card, mover, values, max(values.values()), legal)
