"""Card reading: where the cards a seat cannot see are, as the seat can tell from the table.

For each card the seat has not seen (not in its hand, not played), the chance that each other
seat holds it now, from three kinds of evidence:

* the rules: every legal-card rule a seat's play obeyed proves cards it cannot hold (a void, no
  card above the one it had to beat, the void rule's spade limits; ``Knowledge.banned``), and
  the hand sizes bound the rest. Alone they make every consistent layout equally likely; the
  chances are then counted exactly (``rules_reading``: for each card and seat, the layouts that
  put the card there, by a forward and a backward pass over the hidden cards, as
  ``seat.layouts.counted_layouts`` counts them);
* the calls: a seat that called 6 holds more high cards and spades than one that called 1; each
  layout weighs the likelihood of the other seats' calls had they held its hands
  (``seat.layouts.call_log_likelihood`` with the dealer's ``BETA``);
* the plays: how likely each card the other seats played was, had they held the layout's hands,
  under the learned play policy (``seat.layouts.play_log_likelihood``), at the weight
  ``READ_PLAY_WEIGHT`` (a temperature; the dealer's ``PLAY_WEIGHT`` makes chances too sure).

``read_cards`` weighs ``layouts`` uniform layouts of the hidden cards (the dealer's candidates,
``seat.layouts.uniform_layouts``) by the calls' and, with ``plays``, the plays' likelihood
(importance weights: every layout weighed counts, none is dropped by resampling) and reports
each card's weighted share in each seat; when no more layouts are consistent than that, it
takes every one of them and the chances are exact. Either way a
chance the rules prove is exact: 0 for a seat that cannot hold the card, 1 where only one seat
can (counted, not sampled).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from callbreak_lab.cards import SUIT_MASKS, Card, CardLike, Hand, check_seat
from callbreak_lab.errors import SolverInputError, UsageError, check_int
from callbreak_lab.render.svg import seat_name
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.seat.layouts import (
    BETA,
    NO_LAYOUT,
    call_log_likelihood,
    consistent_layouts,
    play_log_likelihood,
    uniform_layouts,
)
from callbreak_lab.util.stats import effective_sample_size

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "ASSUMED_TEXT",
    "LAYOUTS",
    "READ_PLAY_WEIGHT",
    "Assumed",
    "Reading",
    "advice_assumes",
    "read_cards",
    "rules_reading",
]

#: what a reading assumed: the evidence its chances weigh besides the rules
Assumed = Literal["calls and plays", "calls", "plays", "rules"]

#: layouts a reading weighs by default (about 0.1-0.2 s with the plays; benchmarks/reading.py)
LAYOUTS = 2048

#: the weight of the plays' likelihood in the reading: a temperature, as the dealer's
#: ``seat.layouts.PLAY_WEIGHT`` (tuned for the share of cards placed right), tuned here for the
#: Brier score of the chances on deals apart from those benchmarks/reading.py reports (seed 1):
#: the dealer's weight trusts the policy too far for chances (too sure, and its weights so
#: uneven that few layouts count)
READ_PLAY_WEIGHT = 0.5

_ASSUMED: tuple[str, ...] = get_args(Assumed)

#: what each reading means, for a person (the advice says which one its layouts assumed)
ASSUMED_TEXT: dict[str, str] = {
    "calls and plays": "the hidden cards read from the calls and the cards played (layouts "
    "weighted by the other seats' calls and by how likely their plays were under the learned "
    "play policy)",
    "calls": "the hidden cards read from the calls (layouts weighted by the other seats' calls; "
    "the cards played only rule layouts out)",
    "plays": "the hidden cards read from the cards played (layouts weighted by how likely the "
    "other seats' plays were under the learned play policy; no calls known)",
    "rules": "the hidden cards read from the rules alone (every layout that fits the cards "
    "played equally likely)",
}
_DISPLAY_SUITS = (3, 2, 0, 1)  # spades, hearts, clubs, diamonds (as the card table shows them)


@dataclass(frozen=True)
class Reading:
    """Where the cards ``seat`` cannot see are: ``chances[c, s]`` the chance seat ``s`` holds
    card ``c`` now (a ``(52, 4)`` array; the rows of the cards the seat can see, its own and
    those played, are zeros, and so is the seat's own column), each hidden card's row summing
    to 1. ``hand``: the mask of the cards the seat holds now.

    ``possible``: for each seat the mask of hidden cards the rules let it hold (what the plays
    proved and the hand sizes allow; a chance outside it is exactly 0, a card only one seat may
    hold has chance exactly 1 there). ``assumed``: the evidence weighed besides the rules
    (``"calls and plays"``, ``"calls"``, ``"plays"`` or ``"rules"``: every consistent layout
    equally likely). ``layouts``: layouts weighed (every consistent one when ``exact``);
    ``ess``: the effective sample size of their weights. ``cards_played``: cards on the table
    when read."""

    seat: int
    hand: int
    chances: NDArray[np.float64] = field(repr=False, compare=False)
    possible: tuple[int, int, int, int]
    assumed: Assumed
    layouts: int
    ess: float
    exact: bool
    cards_played: int
    rules: str
    elapsed_ms: float = field(default=0.0, compare=False)

    # --- what it says --------------------------------------------------------------------------

    @property
    def hidden(self) -> int:
        """The mask of the cards the seat cannot see."""
        mask = 0
        for m in self.possible:
            mask |= m
        return mask

    @property
    def hidden_cards(self) -> list[Card]:
        """The hidden cards in the card table's order (spades, hearts, clubs, diamonds; high
        first)."""
        hidden = self.hidden
        return [
            Card(13 * suit + rank)
            for suit in _DISPLAY_SUITS
            for rank in range(12, -1, -1)
            if hidden >> (13 * suit + rank) & 1
        ]

    def chance(self, card: CardLike, seat: int) -> float:
        """The chance ``seat`` holds ``card`` (0 for a card the seat reading it can see)."""
        return float(self.chances[Card.parse(card), check_seat(seat)])

    def of(self, card: CardLike) -> tuple[float, float, float, float]:
        """The chance each seat 0..3 holds ``card``."""
        row = self.chances[Card.parse(card)]
        return (float(row[0]), float(row[1]), float(row[2]), float(row[3]))

    def certain(self) -> dict[Card, int]:
        """The hidden cards the rules place in one seat: {card: seat}."""
        out: dict[Card, int] = {}
        for c in self.hidden_cards:
            seats = [s for s in range(4) if self.possible[s] >> c & 1]
            if len(seats) == 1:
                out[c] = seats[0]
        return out

    def voids(self) -> dict[int, list[int]]:
        """The suits each other seat is proven to hold none of the hidden cards of (suits with a
        hidden card only): {seat: [suit, ...]}."""
        hidden = self.hidden
        out: dict[int, list[int]] = {}
        for s in range(4):
            if s == self.seat:
                continue
            out[s] = [
                x
                for x in range(4)
                if hidden & SUIT_MASKS[x] and not self.possible[s] & SUIT_MASKS[x]
            ]
        return out

    def lengths(self) -> NDArray[np.float64]:
        """``lengths()[s, x]``: the expected number of hidden cards of suit ``x`` seat ``s``
        holds."""
        by_suit = self.chances.reshape(4, 13, 4).sum(axis=1)  # (suit, seat)
        return np.asarray(by_suit.T, dtype=np.float64)

    def brier(self, owner: Mapping[int, int] | NDArray[Any]) -> float:
        """The Brier score of the reading against the true seat of each hidden card (``owner``:
        card -> seat, or a length-52 array of seats): the mean over the hidden cards of the
        squared distance between the card's four chances and the true seat's indicator (0 is
        perfect; a uniform guess among three seats scores 2/3)."""
        cards = self.hidden_cards
        if not cards:
            return 0.0
        truth = np.zeros((len(cards), 4))
        for i, c in enumerate(cards):
            truth[i, int(owner[int(c)])] = 1.0
        diff = self.chances[[int(c) for c in cards]] - truth
        return float(np.mean(np.sum(diff * diff, axis=1)))

    # --- plain data and pictures ---------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """``{"seat", "hand", "assumed", "layouts", "ess", "exact", "cards_played", "rules",
        "cards": [{"card", "chances": [p0, p1, p2, p3], "seats", "certain"}]}``: the seat's hand
        and the hidden cards in the card table's order (cards as letters, e.g. ``AH``), chances
        rounded to 6 places, the seats the rules let hold the card, whether that is one."""
        certain = self.certain()
        return {
            "seat": self.seat,
            "hand": [str(c) for c in Hand(self.hand)],
            "assumed": self.assumed,
            "layouts": self.layouts,
            "ess": round(self.ess, 1),
            "exact": self.exact,
            "cards_played": self.cards_played,
            "rules": self.rules,
            "cards": [
                {
                    "card": str(c),
                    "chances": [round(float(p), 6) for p in self.chances[c]],
                    "seats": [s for s in range(4) if self.possible[s] >> c & 1],
                    "certain": c in certain,
                }
                for c in self.hidden_cards
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reading:
        """The reading ``to_dict`` wrote (chances as rounded there)."""
        try:
            seat = check_seat(data["seat"])
            hand = Hand.parse(" ".join(data["hand"])).mask if data["hand"] else 0
            assumed = data["assumed"]
            if assumed not in _ASSUMED:
                raise UsageError(f"assumed must be one of {', '.join(_ASSUMED)}, got {assumed!r}")
            chances = np.zeros((52, 4))
            possible = [0, 0, 0, 0]
            for row in data["cards"]:
                c = Card.parse(row["card"])
                p = [float(x) for x in row["chances"]]
                if len(p) != 4:
                    raise UsageError(f"{c}: four chances, one a seat, got {len(p)}")
                chances[c] = p
                for s in row["seats"]:
                    possible[check_seat(s)] |= 1 << c
            return cls(
                seat,
                hand,
                chances,
                (possible[0], possible[1], possible[2], possible[3]),
                assumed,
                int(data["layouts"]),
                float(data["ess"]),
                bool(data["exact"]),
                int(data["cards_played"]),
                str(data["rules"]),
            )
        except KeyError as e:
            raise UsageError(f"a reading needs the key {e.args[0]!r}") from None

    def header(self, names: Sequence[str] | None = None) -> str:
        """One line: whose reading, when, what it assumed and over what (``names``: the seats'
        names, one per seat, in place of "seat 0".., as ``render.svg.table_svg`` takes them)."""
        how = "every consistent layout" if self.exact else f"{self.layouts} layouts"
        if not self.exact:
            how += f", effective sample {self.ess:.0f}"
        tricks = self.cards_played // 4
        when = (
            "before the first card" if not self.cards_played else f"after {self.cards_played} cards"
        )
        if self.cards_played and self.cards_played % 4 == 0:
            when = f"after {tricks} trick{'s' if tricks != 1 else ''}"
        return (
            f"where the cards {seat_name(self.seat, names)} cannot see are, {when}: read from the "
            f"{self.assumed} ({how})"
        )

    def text(self) -> str:
        """A compact table by suit: one line per hidden card, the chance each other seat holds
        it ("·": the rules prove it cannot), then each seat's expected length of the suit."""
        others = [s for s in range(4) if s != self.seat]
        head = "       " + "".join(f"{'seat ' + str(s):>8}" for s in others)
        lines = [self.header(), head]
        lengths = self.lengths()
        cards = self.hidden_cards
        for suit in _DISPLAY_SUITS:
            in_suit = [c for c in cards if c.suit == suit]
            if not in_suit:
                continue
            for c in in_suit:
                cells = []
                for s in others:
                    if not self.possible[s] >> c & 1:
                        cells.append(f"{'·':>8}")
                    else:
                        cells.append(f"{self.chances[c, s]:>8.0%}")
                lines.append(f"  {c.symbol():<5}" + "".join(cells))
            symbol = Card(13 * suit).symbol()[-1]
            cells = [f"{lengths[s, suit]:>8.1f}" for s in others]
            lines.append(f"  {symbol} len" + "".join(cells))
        if not cards:
            lines.append("  (no hidden card)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def _repr_svg_(self) -> str:
        from callbreak_lab.render.reading import reading_svg

        return reading_svg(self)

    def _repr_html_(self) -> str:
        from callbreak_lab.render.reading import reading_html

        return reading_html(self)


def advice_assumes(k: Knowledge) -> Assumed:
    """The reading single-dummy advice (``analysis.advice``) assumes for ``k``: its layouts are
    the dealer's with the calls' weight (``seat.layouts.draw`` with ``beta``, the plays not
    weighed), so ``"calls"`` when another seat's call is known, else ``"rules"``."""
    return "calls" if any(k.calls[s] is not None for s in range(4) if s != k.seat) else "rules"


# --- counting: the rules alone ------------------------------------------------------------------


def _seats_and_needs(k: Knowledge) -> tuple[list[int], list[int], list[int]]:
    """The other seats, the hidden cards and how many each other seat holds now."""
    others = [s for s in range(4) if s != k.seat]
    hidden = k.unseen()
    cards = [c for c in range(52) if hidden >> c & 1]
    need = [13 - k.played_by[s].bit_count() for s in others]
    if sum(need) != len(cards) or min(need) < 0:
        raise SolverInputError("the cards seen and the hand sizes do not add up to a deal")
    return others, cards, need


def _counted(k: Knowledge) -> tuple[list[int], list[int], NDArray[np.float64], float]:
    """The other seats, the hidden cards, ``counts[i, j]``: the consistent layouts that put
    hidden card ``i`` in the ``j``-th other seat, and the consistent layouts in all.

    ``back[i][a, b]``: the ways to deal hidden cards ``i..`` with ``a`` to the first other seat
    and ``b`` to the second (the rest to the third, within its hand size), each card only to a
    seat that may hold it; ``fore[i][a, b]``: the same for cards ``..i-1``. A card's count in a
    seat joins the ways before it and after it (floats: at most about 1e17 ways, exact enough
    for ratios, and a zero stays a zero)."""
    others, cards, need = _seats_and_needs(k)
    banned = [k.banned(s) for s in others]
    allowed = np.array([[not (b >> c) & 1 for b in banned] for c in cards], dtype=np.float64)
    allowed = allowed.reshape(len(cards), 3)
    m = len(cards)
    n0, n1, n2 = need
    ga, gb = np.meshgrid(np.arange(n0 + 1), np.arange(n1 + 1), indexing="ij")

    def fits(dealt: int) -> NDArray[np.bool_]:
        """Where the third seat's share of ``dealt`` cards is within its hand size."""
        third = dealt - ga - gb
        return np.asarray((third >= 0) & (third <= n2))

    back = np.zeros((m + 1, n0 + 1, n1 + 1))
    back[m, 0, 0] = 1.0
    for i in range(m - 1, -1, -1):
        nxt = back[i + 1]
        w = allowed[i, 2] * nxt
        w[1:, :] += allowed[i, 0] * nxt[:-1, :]
        w[:, 1:] += allowed[i, 1] * nxt[:, :-1]
        back[i] = np.where(fits(m - i), w, 0.0)
    fore = np.zeros((m + 1, n0 + 1, n1 + 1))
    fore[0, 0, 0] = 1.0
    for i in range(m):
        prev = fore[i]
        w = allowed[i, 2] * prev
        w[1:, :] += allowed[i, 0] * prev[:-1, :]
        w[:, 1:] += allowed[i, 1] * prev[:, :-1]
        fore[i + 1] = np.where(fits(i + 1), w, 0.0)
    total = float(back[0, n0, n1])
    counts = np.zeros((m, 3))
    for i in range(m):
        rest = back[i + 1][::-1, ::-1]  # rest[a, b]: ways after card i when a, b are dealt
        f = fore[i]
        counts[i, 0] = allowed[i, 0] * np.sum(f[:-1, :] * rest[1:, :])
        counts[i, 1] = allowed[i, 1] * np.sum(f[:, :-1] * rest[:, 1:])
        counts[i, 2] = allowed[i, 2] * np.sum(f * rest)
    return others, cards, counts, total


def _possible(
    others: list[int], cards: list[int], counts: NDArray[np.float64]
) -> tuple[int, int, int, int]:
    """Each seat's mask of the hidden cards some consistent layout gives it."""
    possible = [0, 0, 0, 0]
    for i, c in enumerate(cards):
        for j, s in enumerate(others):
            if counts[i, j] > 0:
                possible[s] |= 1 << c
    return (possible[0], possible[1], possible[2], possible[3])


def _exactly(
    chances: NDArray[np.float64], possible: tuple[int, int, int, int], cards: list[int]
) -> None:
    """Make the chances the rules prove exact in place: 0 outside ``possible``, 1 for a card
    only one seat may hold, and every hidden card's row summing to 1."""
    for c in cards:
        seats = [s for s in range(4) if possible[s] >> c & 1]
        row = chances[c]
        for s in range(4):
            if s not in seats:
                row[s] = 0.0
        if len(seats) == 1:
            row[seats[0]] = 1.0
        else:
            total = row.sum()
            if total > 0:
                row /= total
            else:  # no weighed layout put it anywhere it may be: every such seat alike
                row[seats] = 1.0 / len(seats)


def rules_reading(k: Knowledge) -> Reading:
    """The reading of the rules alone: every layout of the hidden cards consistent with what
    ``k.seat`` saw equally likely, each card's chances counted exactly (no sampling; the calls
    and the plays' likelihood are not weighed). A table no layout fits is a
    ``SolverInputError``."""
    t0 = time.perf_counter()
    others, cards, counts, total = _counted(k)
    if total <= 0:
        raise SolverInputError(NO_LAYOUT)
    chances = np.zeros((52, 4))
    for i, c in enumerate(cards):
        for j, s in enumerate(others):
            chances[c, s] = counts[i, j] / total
    possible = _possible(others, cards, counts)
    _exactly(chances, possible, cards)
    return Reading(
        k.seat, k.hand, chances, possible, "rules", int(min(total, 2**62)), total, True,
        len(k.record), k.rules.name, (time.perf_counter() - t0) * 1000,
    )  # fmt: skip


# --- weighing: the calls and the plays ----------------------------------------------------------


def read_cards(
    k: Knowledge, *, layouts: int = LAYOUTS, seed: int = 0, plays: bool = True
) -> Reading:
    """Where the cards ``k.seat`` cannot see are (see the module docstring): each hidden card's
    chance in each other seat from the rules, the other seats' calls (those ``k.calls`` knows)
    and, with ``plays``, the cards they played under the learned play policy (the dealer's
    likelihoods, ``seat.layouts.draw``'s, the plays' at ``READ_PLAY_WEIGHT``); ``plays`` False:
    the calls only, as the dealer weighs them by default. Over ``layouts`` uniform layouts of
    the hidden cards, or every consistent layout when there are no more (exact); ``seed``
    fixes the layouts. The answer's ``assumed`` names the evidence weighed (no call known and
    no card played by another seat: ``"rules"``, counted exactly). A table no layout fits is a
    ``SolverInputError``."""
    n = check_int(layouts, "layouts", low=1)
    seed = check_int(seed, "seed", low=0)
    if not isinstance(plays, bool):
        raise UsageError(f"plays must be True or False, got {plays!r}")
    return _weighed(k, n, seed, READ_PLAY_WEIGHT if plays else 0.0)


def _weighed(k: Knowledge, n: int, seed: int, play_weight: float) -> Reading:
    """``read_cards`` with the plays' likelihood at ``play_weight`` (0: not weighed)."""
    t0 = time.perf_counter()
    others, cards, counts, total = _counted(k)
    if total <= 0:
        raise SolverInputError(NO_LAYOUT)
    callers = [s for s in others if k.calls[s] is not None]
    made = [int(k.calls[s]) for s in callers]  # type: ignore[arg-type]
    by_play = play_weight > 0 and any(k.played_by[s] for s in others)
    evidence = [name for name, used in (("calls", callers), ("plays", by_play)) if used]
    if not evidence:
        return rules_reading(k)
    assumed: Assumed = "calls and plays" if len(evidence) == 2 else evidence[0]  # type: ignore[assignment]

    def log_likelihood(masks: NDArray[np.uint64]) -> NDArray[np.float64]:
        out = call_log_likelihood(masks, callers, made, k.rules, BETA)
        if by_play:
            out = out + play_weight * play_log_likelihood(masks, k)
        return np.asarray(out, dtype=np.float64)

    exact = total <= n
    rows = consistent_layouts(k, n) if exact else None
    if rows is None:
        exact = False
        rows = uniform_layouts(k, n, np.random.default_rng(seed))
    if len(rows) == 0:
        raise SolverInputError(NO_LAYOUT)
    loglik = log_likelihood(rows)
    w = np.exp(loglik - loglik.max())
    w /= w.sum()
    idx = np.asarray(cards, dtype=np.uint64)
    held = (rows[:, :, None] >> idx[None, None, :]) & np.uint64(1)  # (layouts, seat, card)
    share = np.einsum("l,lsc->cs", w, held.astype(np.float64))
    chances = np.zeros((52, 4))
    chances[cards] = share
    possible = _possible(others, cards, counts)
    _exactly(chances, possible, cards)
    return Reading(
        k.seat, k.hand, chances, possible, assumed, len(rows), effective_sample_size(w), exact,
        len(k.record), k.rules.name, (time.perf_counter() - t0) * 1000,
    )  # fmt: skip
