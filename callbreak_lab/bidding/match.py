"""Match-aware calls: the call that maximises the caller's chance of winning the match.

The points-best call (:func:`callbreak_lab.bidding.model.recommend_call`) maximises the
expected score of the deal. Late in a match the standings can ask for something else: a seat
three points behind with one deal left wins only by scoring three more than the leader, so a
bigger call that is made less often can win more matches. :func:`match_call` weighs each legal
call by the chance of winning the match that follows from it:

``P(win | call c) = sum over t of P(tricks = t) * W(score(c, t))``

where ``P(tricks = t)`` is the bid model's forecast for the hand and ``W(x)`` the caller's
share of the match win when it scores ``x`` this deal: the other three seats score this deal
as the recorded deals' seats did (each on its own: a seat whose call is known, as the seats
that made that call; the others, as the seats in their place), then the deals left are played
as in :mod:`callbreak_lab.bidding.equity`. Two approximations, stated: the others' scores this
deal are independent of the caller's tricks and of each other (in the recorded deals two seats'
scores correlate at about -0.1), and the others play for points, as the recorded players did.

The decision keeps the points-best call unless other calls win the match more often by at
least ``MIN_GAIN`` (half a percentage point: the forecast and the recorded opponents are not
exact to less); of the calls that do and come within ``MIN_GAIN`` of the best, it takes the one
with the highest expected score (so a match already won or lost still plays for points), and
only when its gain is ``Z_GAIN`` standard errors clear (the gain's error is paired over the
equity's independent groups). In the first deal of a match, and with every total level and
``LEVEL_DEALS`` or more deals after the one being called, it is the points-best call exactly:
there the equity alone would move one call in seven (to a riskier call, since a seat among
four level ones wins by being on top, which variance helps) for a gain of about one percentage
point, a bet on how closely the recorded players stand for the table that this far from the
end is not taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

import numpy as np
import numpy.typing as npt

from callbreak_lab.bidding.calls import (
    best_call,
    check_earlier_calls,
    legal_calls,
    make_probabilities,
    score_matrix,
)
from callbreak_lab.bidding.equity import (
    EquityModel,
    check_totals,
    equity_model,
    standing_text,
    whole_or_none,
)
from callbreak_lab.cards import Hand, check_seat
from callbreak_lab.errors import StandingError
from callbreak_lab.rules import Ruleset, format_tenths
from callbreak_lab.util.shown import Shown
from callbreak_lab.util.stats import mean_se, standard_errors

__all__ = [
    "LEVEL_DEALS",
    "MIN_GAIN",
    "Z_GAIN",
    "MatchCall",
    "MatchCallRow",
    "Standing",
    "check_deal_of_match",
    "match_call",
    "match_call_for",
]

#: the smallest gain in the chance of winning the match that moves the call off the
#: points-best one (half a percentage point)
MIN_GAIN = 0.005
#: ... and the gain must be this many of its standard errors
Z_GAIN = 2.0
#: with every total level and at least this many deals after the one being called, the call is
#: the points-best one
LEVEL_DEALS = 2

_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def check_deal_of_match(deal_of_match: object, rules: Ruleset) -> int:
    """``deal_of_match`` (the deal being called, 1 for the first) as an int in
    ``1..match_deals``, or a ``StandingError``."""
    n = rules.match_length()
    k = whole_or_none(deal_of_match)
    if k is None or not 1 <= k <= n:
        raise StandingError(
            f"the deal of the match is 1..{n} in a match of {n} deals, got {deal_of_match!r}"
        )
    return k


@dataclass(frozen=True)
class MatchCallRow:
    """One legal call: expected score (points), chance of making it, and the chance of winning
    the match with it and its standard error (None without a standing)."""

    call: int
    expected: float
    make_probability: float
    win: float | None
    win_se: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "call": self.call,
            "expected_points": round(self.expected, 4),
            "make_probability": round(self.make_probability, 4),
            "win_probability": None if self.win is None else round(self.win, 4),
            "win_se": None if self.win_se is None else round(self.win_se, 4),
        }


@dataclass(frozen=True)
class MatchCall(Shown):
    """The call for the match: ``call`` (the decision), ``points_call`` (the best expected
    score), ``match_best`` (the highest chance of winning the match), every legal call's
    figures (``rows``), the gain of ``match_best`` over ``points_call`` in that chance and its
    standard error, and ``reason``, the decision in a sentence.

    ``totals`` (tenths, by seat of this deal) and ``deal_of_match`` are the standing (None:
    unknown); ``deals`` the recorded deals the equity rests on (0 without a standing)."""

    rules: Ruleset
    seat: int
    dist: np.ndarray
    totals: tuple[int, int, int, int] | None
    deal_of_match: int | None
    earlier_calls: tuple[int, ...] | None
    rows: tuple[MatchCallRow, ...]
    points_call: int
    match_best: int
    call: int
    gain: float
    gain_se: float
    reason: str
    deals: int

    def row(self, call: int) -> MatchCallRow:
        """The figures of one legal call."""
        for r in self.rows:
            if r.call == call:
                return r
        raise StandingError(f"call {call} is not a legal call of {self.rules.name}")

    @property
    def deals_left(self) -> int | None:
        """Deals after this one (None without a standing)."""
        if self.deal_of_match is None:
            return None
        return self.rules.match_length() - self.deal_of_match

    def text(self) -> str:
        """The reason, then one row a call: expected points, made, match wins."""
        head = f"seat {self.seat} ({self.rules.name})"
        if self.totals is not None:
            totals = " ".join(format_tenths(t) for t in self.totals)
            head += f", deal {self.deal_of_match} of {self.rules.match_length()}, totals {totals}"
        rows = [head, self.reason, "call  expected  made   wins the match"]
        for r in self.rows:
            wins = "" if r.win is None else f"{100 * r.win:5.1f} % ± {100 * (r.win_se or 0):.1f}"
            marks = []
            if r.call == self.call:
                marks.append("the call")
            if r.call == self.points_call:
                marks.append("points-best")
            if r.call == self.match_best and self.totals is not None:
                marks.append("match-best")
            mark = f"  <- {', '.join(marks)}" if marks else ""
            rows.append(
                f"{r.call:>4}  {r.expected:+8.2f}  {100 * r.make_probability:3.0f} %  {wins}{mark}"
            )
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the decision, the standing (tenths) and every call's figures."""
        return {
            "rules": self.rules.name,
            "seat": self.seat,
            "totals": None if self.totals is None else list(self.totals),
            "totals_points": None if self.totals is None else [t / 10 for t in self.totals],
            "deal_of_match": self.deal_of_match,
            "deals_left": self.deals_left,
            "earlier_calls": None if self.earlier_calls is None else list(self.earlier_calls),
            "call": self.call,
            "points_call": self.points_call,
            "match_best": self.match_best,
            "gain": round(self.gain, 4),
            "gain_se": round(self.gain_se, 4),
            "reason": self.reason,
            "deals": self.deals,
            "calls": [r.to_dict() for r in self.rows],
        }


def _pct(x: float) -> str:
    """A chance as a percentage: whole numbers from 10 %, one decimal below."""
    return f"{100 * x:.0f} %" if x >= 0.095 else f"{100 * x:.1f} %"


def _reason(
    standing: str, left: int, kind: str, call: int, best: int, points: int,
    win: dict[int, float], clear: bool,
) -> str:  # fmt: skip
    """The decision in a sentence."""
    deals = f"with {_WORDS.get(left, str(left))} deal{'s' if left != 1 else ''} left"
    if kind == "first":
        return (
            f"the first deal of the match: the points-best call of {points} (every total is "
            f"level and the match is decided by points; it wins {_pct(win[points])} of matches)"
        )
    if kind == "level":
        return (
            f"every total level {deals}: the points-best call of {points} (far from the end "
            f"the match is decided by points; it wins {_pct(win[points])} of matches)"
        )
    if best == points:
        return (
            f"{standing} {deals}: the points-best call of {points} wins {_pct(win[points])} of "
            f"matches, within {100 * MIN_GAIN:.1f} percentage point of the best call for the match"
        )
    if clear:
        return (
            f"{standing} {deals}: a call of {call} wins {_pct(win[call])} of matches against "
            f"{_pct(win[points])} for the points-best {points}"
        )
    return (
        f"{standing} {deals}: a call of {best} would win {_pct(win[best])} of matches against "
        f"{_pct(win[points])} for the points-best {points}, within the estimate's noise: the "
        "points-best call stands"
    )


def match_call_for(
    dist: npt.ArrayLike,
    seat: int,
    rules: Ruleset | str | None = None,
    *,
    totals: Sequence[int] | None = None,
    deal_of_match: int | None = None,
    earlier_calls: Sequence[int] | None = None,
    equity: EquityModel | None = None,
) -> MatchCall:
    """:func:`match_call` for a forecast already made: ``dist`` is ``P(tricks = t)``,
    ``t = 0..13`` (the bot, which has its own forecast, calls this)."""
    r = Ruleset.coerce(rules)
    check_seat(seat)
    advice = best_call(dist, r)
    prev = None if earlier_calls is None else check_earlier_calls(earlier_calls, seat, r)
    calls = legal_calls(r)
    made = make_probabilities(advice.dist, r)
    expected = advice.expected / 10
    points = advice.call
    if totals is None and deal_of_match is None:
        rows = tuple(
            MatchCallRow(int(c), float(e), float(m), None, None)
            for c, e, m in zip(calls, expected, made, strict=True)
        )
        unknown = "the standings are unknown: the points-best call"
        return MatchCall(r, seat, advice.dist, None, None, prev, rows, points, points, points,
                         0.0, 0.0, unknown, 0)  # fmt: skip
    n = r.match_length()
    if deal_of_match is None:
        raise StandingError(f"with the totals, give the deal of the match (1..{n})")
    k = check_deal_of_match(deal_of_match, r)
    if totals is None:
        if k != 1:
            raise StandingError(f"deal {k} of the match needs the four totals before it")
        totals = (0, 0, 0, 0)
    t = check_totals(totals)
    if k == 1 and any(t):
        shown = " ".join(format_tenths(x) for x in t)
        raise StandingError(f"before the first deal of a match every total is 0, got {shown}")
    model = equity if equity is not None else equity_model(r)
    known = dict(enumerate(prev or ()))
    others = model.others(seat, known, model.rows, (seat, k, *t, *known.values()))
    table = score_matrix(r).astype(np.int64)  # (calls, 14) tenths
    xs, where = np.unique(table, return_inverse=True)
    curve = model.win_curve(t, seat, n - k, others, xs)  # (groups, len(xs))
    per_call = curve[:, where.reshape(table.shape)] @ advice.dist  # (groups, calls)
    win = per_call.mean(axis=0)
    se = standard_errors(per_call)
    i_points = int(points - calls[0])
    # the calls that beat the points-best one by MIN_GAIN and are within MIN_GAIN of the best;
    # of those, the one that scores most (a won or lost match leaves the points to play for)
    near = (win >= win[i_points] + MIN_GAIN) & (win >= win.max() - MIN_GAIN)
    i_best = int(np.argmax(np.where(near, advice.expected, -np.inf))) if near.any() else i_points
    diff = per_call[:, i_best] - per_call[:, i_points]
    gain, gain_se = mean_se(diff)
    best = int(calls[i_best])
    # the first deal, and level totals with two deals or more to follow: the points-best call
    kind = "first" if k == 1 else "level" if len(set(t)) == 1 and n - k >= LEVEL_DEALS else ""
    clear = not kind and best != points and gain >= Z_GAIN * gain_se
    call = best if clear else points
    rows = tuple(
        MatchCallRow(int(c), float(e), float(m), float(w), float(s))
        for c, e, m, w, s in zip(calls, expected, made, win, se, strict=True)
    )
    wins = {int(c): float(w) for c, w in zip(calls, win, strict=True)}
    reason = _reason(standing_text(t, seat), n - k + 1, kind, call, best, points, wins, clear)
    return MatchCall(r, seat, advice.dist, t, k, prev, rows, points, best, call, gain, gain_se,
                     reason, len(model.scores))  # fmt: skip


class Standing(TypedDict, total=False):
    """The keyword-only options of ``match_call``, passed on to ``match_call_for`` (all
    None unless given)."""

    totals: Sequence[int] | None
    deal_of_match: int | None
    earlier_calls: Sequence[int] | None
    equity: EquityModel | None


def match_call(
    hand: Hand | str | int,
    seat: int = 0,
    rules: Ruleset | str | None = None,
    **standing: Unpack[Standing],
) -> MatchCall:
    """The call for ``hand`` in ``seat`` under ``rules`` (None: ``rules.DEFAULT_RULES``) that
    gives the best chance of winning the match from the standing: ``totals`` (tenths, the four
    seats of this deal before it) and ``deal_of_match`` (1 for the first deal). Without both
    (the standings unknown) it is the points-best call; in the first deal, exactly that call too.

    ``earlier_calls`` (seats ``0..seat-1``) reach the bid model as in ``recommend_call`` and
    tell the equity what those seats undertook; ``equity``: an
    :class:`~callbreak_lab.bidding.equity.EquityModel` over other recorded deals."""
    from callbreak_lab.bidding.model import recommend_call

    rec = recommend_call(hand, seat, rules, earlier_calls=standing.get("earlier_calls"))
    return match_call_for(rec.distribution, seat, rec.rules, **standing)
