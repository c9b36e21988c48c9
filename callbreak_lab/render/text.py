"""Plain text of lines (``analysis.lines``) and reviews (``analysis.review``): the text outputs
of the library and the command line, cards in letters (``QH``).

The wording pieces shared with the HTML tables (``counts_text``, ``values_text``,
``trick_groups``, ``played_before``, ``scores_text``, ``line_header``, ...) live here once;
``callbreak_lab.render.html`` builds on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from callbreak_lab.cards import Card, letters
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset, format_tenths

if TYPE_CHECKING:
    from callbreak_lab.analysis.lines import Line, Step
    from callbreak_lab.analysis.review import CardJudgement, CardReview, Review, SingleDummyReview

__all__ = [
    "LEGEND",
    "REVIEW_LEGEND",
    "line_header",
    "line_text",
    "review_text",
    "single_dummy_review_text",
]

LEGEND = (
    "Legend: * forced (the rules left one legal card)  ? not the best card for its player  "
    "(..) played before the line  -> trick winner, then tricks won by seats 0-1-2-3"
)
REVIEW_LEGEND = (
    "Legend: * forced  ? lost tricks against double-dummy defence (-n)  "
    "-> trick winner, then tricks won by seats 0-1-2-3"
)


def counts_text(tricks: Sequence[int], calls: Sequence[int] | None) -> str:
    """Tricks won per seat: ``2/3 4/4 ..`` against the calls, ``2-4-..`` without calls."""
    if calls:
        return " ".join(f"{t}/{c}" for t, c in zip(tricks, calls, strict=True))
    return "-".join(str(t) for t in tricks)


def _mark(step: Step, flagged: bool) -> str:
    return "*" if step.forced else ("?" if flagged else "")


def ranked_values(step: Step) -> list[tuple[Card, int]]:
    """The step's legal cards with their values, best first (then the higher suit and rank)."""
    return sorted(step.values.items(), key=lambda kv: (-kv[1], -kv[0].suit, -kv[0].rank))


def values_text(step: Step, symbols: bool = False) -> str:
    """Each legal card's value, best first (``symbols``: cards as ``Q♥``), or ``any of n cards``
    when they are all equal."""
    items = ranked_values(step)
    if len({v for _, v in items}) == 1 and len(items) > 1:
        return f"any of {len(items)} cards: {items[0][1]}"
    return ", ".join(f"{c.symbol() if symbols else c} {v}" for c, v in items)


def trick_groups(steps: Sequence[Step]) -> list[list[Step]]:
    """``steps`` cut into tricks (a row of the text or of the HTML table each)."""
    groups: list[list[Step]] = []
    for s in steps:
        if not groups or groups[-1][0].trick != s.trick:
            groups.append([])
        groups[-1].append(s)
    return groups


def played_before(start: Position, group: list[Step]) -> list[tuple[int, Card]]:
    """Cards of the group's trick played before the line started (its first trick only)."""
    if group[0].trick != start.trick_index:
        return []
    return [((start.leader + i) % 4, c) for i, c in enumerate(start.trick)]


def _trick_row(
    start: Position, group: list[Step], calls: Sequence[int] | None, flags: dict[int, int]
) -> str:
    cells = [f"S{seat} ({c})" for seat, c in played_before(start, group)]
    for s in group:
        lost = flags.get(s.index, 0)
        tail = f"-{lost}" if lost > 0 else ""
        cells.append(f"S{s.seat} {s.card}{_mark(s, lost != 0)}{tail}")
    row = f"T{group[0].trick + 1:<3} " + " ".join(f"{c:<8}" for c in cells)
    last = group[-1]
    if last.winner is not None and last.tricks is not None:
        row += f" -> S{last.winner}  {counts_text(last.tricks, calls)}"
    return row.rstrip()


def _detail(step: Step, flagged: int = 0) -> str:
    head = f"      S{step.seat} {step.card}{_mark(step, flagged != 0)}"
    if step.forced:
        return f"{head:<14} forced: {letters(step.forced)}"
    why = f" ({letters(step.restriction)})" if step.restriction else ""
    note = f"  lost {flagged}" if flagged > 0 else ""
    sd = step.single
    if sd is not None:
        unit = "pts" if sd.unit == "points" else "tricks"
        note += (
            f"  | single-dummy: {sd.best} best, {step.card} {sd.value(step.card):+.2f} {unit}"
            + ("  <- differs" if step.disagrees else "")
        )
    return f"{head:<14} {values_text(step)}{why}{note}"


def scores_text(tricks: Sequence[int], calls: Sequence[int] | None, rules: Ruleset) -> str:
    """`` scores 3.1 -4 ..`` of the calls for ``tricks`` (nothing without calls)."""
    if not calls:
        return ""
    return " scores " + " ".join(
        format_tenths(rules.score(c, t)) for c, t in zip(calls, tricks, strict=True)
    )


def line_header(line: Line) -> str:
    """One sentence saying what the line is."""
    start = line.start
    where = (
        "from the start"
        if not start.history
        else f"from trick {start.trick_index + 1} after {len(start.history)} cards"
    )
    if line.kind == "line":
        head = (
            f"Double-dummy line for seat {line.seat} ({line.rules.name}, {where}): seat "
            f"{line.seat} can guarantee {line.value} tricks; it maximises, the other three "
            "minimise its tricks; ties go to the lowest card."
        )
    else:
        head = (
            f"Self-interested play-out ({line.rules.name}, {where}): each player plays its best "
            "card for itself (values: the mover's own tricks); ties go to the lowest card."
        )
    if line.change is not None and line.branched_at is not None and line.base is not None:
        old = line.base.steps[line.branched_at]
        new = line.steps[line.branched_at]
        d = line.delta or 0
        who = f"seat {line.seat}" if line.seat is not None else f"seat {new.seat}"
        verb = "gains" if d > 0 else "loses" if d < 0 else "neither gains nor loses"
        amount = f" {abs(d)} trick{'s' if abs(d) != 1 else ''}" if d else ""
        head += (
            f"\nBranch at step {line.branched_at} (trick {new.trick + 1}): S{new.seat} plays "
            f"{new.card} instead of {old.card}; {who} {verb}{amount}."
        )
    return head


def line_text(line: Line, detail: bool = False) -> str:
    """Header, one row per trick (``detail``: one row per decision below it), result, legend."""
    out = [line_header(line)]
    flags = {}
    if line.branched_at is not None:
        s = line.steps[line.branched_at]
        flags[s.index] = 0 if s.is_best else -1
    for group in trick_groups(line.steps):
        out.append(_trick_row(line.start, group, line.calls, flags))
        if detail:
            out.extend(_detail(s) for s in group)
    t = line.tricks
    out.append(f"Result: {counts_text(t, line.calls)}{scores_text(t, line.calls, line.rules)}")
    if line.single is not None:
        moments = line.disagreements()
        out.append(
            f"Single-dummy advice ({line.single[0]} layouts a decision): "
            + (f"{len(moments)} decision(s) where it differs from double-dummy:" if moments
               else "it agrees with double-dummy at every decision.")
        )  # fmt: skip
        out.extend(f"  T{m.trick + 1} S{m.seat}: {m.lesson()}" for m in moments)
    out.append(LEGEND)
    return "\n".join(out)


def review_text(review: Review, detail: bool = False) -> str:
    """Rows per trick with flagged cards, then the flagged cards and the summary."""
    n = len(review.entries)
    out = [
        f"Review ({review.rules.name}): {n} card{'s' if n != 1 else ''}"
        f"{'' if review.complete else ' (a prefix of the deal)'}; each card judged by its "
        "player's own double-dummy value (deal tricks it can guarantee) before and after it."
    ]
    flags = {e.step.index: e.lost for e in review.entries}
    start_pos = Position(review.deal, review.rules)
    for group in trick_groups([e.step for e in review.entries]):
        out.append(_trick_row(start_pos, group, review.calls, flags))
        if detail:
            out.extend(_detail(s, flags[s.index]) for s in group)
    bad = review.flagged()
    out.append("Cards that lost tricks:" if bad else "No card lost a trick.")
    out.extend(_flag_text(e) for e in bad)
    fl, lo = review.flagged_per_seat, review.lost_per_seat
    out.append(
        "Summary: "
        + "; ".join(f"seat {s}: {fl[s]} card(s), {lo[s]} trick(s) lost" for s in range(4))
    )
    t = review.tricks
    out.append(f"Tricks: {counts_text(t, review.calls)}{review_scores(review)}")
    out.append(REVIEW_LEGEND)
    return "\n".join(out)


def review_scores(review: Review) -> str:
    """The scores once the reviewed deal is complete (``scores_text``), else nothing."""
    return scores_text(review.tricks, review.calls, review.rules) if review.complete else ""


def _flag_text(e: CardReview) -> str:
    s = e.step
    better = " ".join(str(c) for c in e.better())
    return (
        f"  T{s.trick + 1} S{s.seat} {s.card}: could guarantee {e.before}, after it "
        f"{e.after} (-{e.lost}); better: {better}"
    )


# --- single-dummy reviews ---------------------------------------------------------------------


def expected_text(x: float | None, unit: str) -> str:
    """An expected score (``+1.50``, signed: points) or expected tricks (``1.50``); ``-``
    for no value."""
    if x is None:
        return "-"
    return f"{x:+.2f}" if unit == "points" else f"{x:.2f}"


def _card_line(c: CardJudgement, unit: str) -> str:
    dd = "" if c.dd_value is None else f", double-dummy {c.dd_value} tricks"
    return (
        f"trick {c.trick:>2}  seat {c.seat} played {c.card}: {expected_text(c.sd_expected, unit)}; "
        f"{c.sd_best_card} {expected_text(c.sd_best_expected, unit)} was best, "
        f"cost {c.cost:.2f} ± {c.cost_se:.2f} {unit}{dd}"
    )


def single_dummy_review_text(review: SingleDummyReview) -> str:
    """The costly cards in play order, the biggest mistakes, and each player's summary."""
    u = review.unit
    head = (
        f"Single-dummy review ({review.rules.name}, {review.layouts} layouts a decision, seed "
        f"{review.seed}; expected {'scores in points' if u == 'points' else 'tricks: no calls'}, "
        "each seat playing for itself)"
    )
    lines = [head]
    if review.stopped_early:
        lines.append(f"(the time limit ran out: the first {len(review.cards)} cards are reviewed)")
    if review.deal is not None:
        lines.append(f"deal  {review.deal}")
    if review.calls:
        lines.append("calls " + " ".join(str(c) for c in review.calls))
    costly = [c for c in review.cards if c.cost > review.threshold]
    lines.append(f"{sum(c.sd is not None for c in review.cards)} cards judged, {len(costly)} cost "
                 f"more than {review.threshold:g} {u}:")  # fmt: skip
    lines += ["  " + _card_line(c, u) for c in costly] or ["  none"]
    top = review.mistakes()
    if top:
        lines.append("Biggest mistakes:")
        lines += [f"  {i}. " + _card_line(c, u) for i, c in enumerate(top, 1)]
    lines.append(f"seat  call  best call  call cost  play cost ({u})  cards judged")
    for p in review.players:
        call = "-" if p.call is None else str(p.call)
        best = "-" if p.best_call is None else str(p.best_call)
        cc = "-" if p.call_cost is None else f"{p.call_cost:.2f}"
        lines.append(f"{p.seat:>4}  {call:>4}  {best:>9}  {cc:>9}  {p.play_cost:>14.2f}  "
                     f"{p.judged:>12}")  # fmt: skip
    return "\n".join(lines)
