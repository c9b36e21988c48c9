"""Match equity: each seat's chance of winning the match from a standing.

A match is ``rules.match_deals`` deals (five in every preset); the highest total after the last
one wins, and seats level on the top total share the win. The equity of a standing (the four
totals in tenths and the deals still to play) is each seat's expected share of the win.

**The model of a deal.** The equity rests on the project's own play: the score vectors of
thousands of recorded deals per preset, each played by four copies of one arena player
(``arena.matchcall.record_deals``; ``scripts/make_equity.py`` records them and ships them as
package data, ``callbreak_lab/models/equity_<preset>.npz``, with a JSON card of how and
what). Deals are independent, so the future is a sum of recorded deals drawn at random.

**The estimate.** Totals are listed by the seats of the next deal: seat 0 calls first and
leads in it, and the deal passes one seat on after each deal. A *future* of ``d`` deals is the
sum of ``d`` distinct recorded deals, deal ``k`` of it turned ``k`` seats on, so each seat
holds the places at the table it will hold in the match. Each seat's equity is the mean over
the futures of its share of the win with the future added to the totals. A seat's place at
the table matters a little: in the recorded deals the seat that calls first and leads scores a
tenth of a point a deal less than the others under some players (the card says how much),
which is worth about a percentage point of equity before the last deal.
``EquityModel(..., exchangeable=True)`` closes the futures under the 24 permutations of the
seats instead, treating every seat alike. The same futures serve every standing, so the
estimate is exactly monotone (a seat gains by a higher total), sums to 1, depends on the
totals only through their differences (adding a constant to every total changes nothing) and
needs no interpolation: it is evaluated at the standing asked for, in milliseconds. With no
deal left it is the final result.

**The standard error.** The recorded deals are split at random into ``GROUPS`` groups, and each
group draws its futures from its own deals only; the group estimates are independent, so their
spread over the square root of their number is the standard error of the mean. It counts both
the resampling noise and the sampling error of the recorded deals themselves.

A standing that is not one raises :class:`~callbreak_lab.errors.StandingError`; a ruleset whose
match is played to a target score, a :class:`~callbreak_lab.errors.RulesError`; a ruleset whose
deals play or score differently from every recorded preset, a
:class:`~callbreak_lab.errors.ModelError`.
"""

from __future__ import annotations

import functools
import io
import itertools
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from callbreak_lab.errors import ModelError, StandingError
from callbreak_lab.rules import (
    PRESETS,
    Ruleset,
    format_tenths,
    tenths_of_points,
    totals_of_points,
)
from callbreak_lab.util.fileio import atomic_open
from callbreak_lab.util.shown import Shown
from callbreak_lab.util.stats import standard_errors

__all__ = [
    "FORMAT",
    "FUTURES",
    "GROUPS",
    "DealScores",
    "Equity",
    "EquityModel",
    "check_deals_left",
    "check_totals",
    "equity_model",
    "match_equity",
    "recorded_preset",
    "shipped_path",
    "standing_text",
    "tenths_of_points",
    "totals_of_points",
    "whole_or_none",
    "win_shares",
]

FORMAT = "callbreak_lab.equity/1"
#: independent groups of recorded deals behind the standard error
GROUPS = 8
#: futures drawn for each count of deals left, over all groups
FUTURES = 65536
#: the fewest recorded seats a pool of one call value must have before it is used as it is
MIN_POOL = 40
_SEED = 20261205
_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), dtype=np.intp)
#: the ruleset fields that change how a deal is played or scored: a recording serves a ruleset
#: only when these agree (the direction is display only; the match's length and a lower highest
#: call do not change the deals)
DEAL_FIELDS = ("min_call", "must_beat", "void_rule", "first_trick_spade_ban", "scoring")


# --- standings ------------------------------------------------------------------------------------


def _whole(x: object) -> bool:
    return isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_)


def whole_or_none(x: object) -> int | None:
    """``x`` as an int when it is a whole number (an int or a numpy integer, not a bool)."""
    if isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_):
        return int(x)
    return None


def check_totals(totals: object, what: str = "totals") -> tuple[int, int, int, int]:
    """``totals`` as four ints (tenths, ``31`` is 3.1 points), or a ``StandingError`` naming
    what is wrong: not a sequence, not four of them, or one that is not a whole number."""
    if isinstance(totals, str | bytes) or not isinstance(totals, Sequence | np.ndarray):
        raise StandingError(
            f"{what} must be a list of four whole numbers of tenths, got {totals!r}"
        )
    values = list(totals)
    if len(values) != 4:
        raise StandingError(f"{what} must be four totals, one a seat, got {len(values)}")
    for seat, v in enumerate(values):
        if not _whole(v):
            raise StandingError(
                f"{what}: seat {seat}'s total must be a whole number of tenths (31 is 3.1 "
                f"points), got {v!r}"
            )
    return (int(values[0]), int(values[1]), int(values[2]), int(values[3]))


def check_deals_left(deals_left: object, rules: Ruleset | str) -> int:
    """``deals_left`` (the deals still to play after the standing) as an int in
    ``0..match_deals - 1``, or a ``StandingError``. With all of a match's deals still to play
    the totals are the start's, zero, and every seat's equity is a quarter."""
    n = Ruleset.coerce(rules).match_length()
    d = whole_or_none(deals_left)
    if d is None or not 0 <= d <= n - 1:
        raise StandingError(
            f"deals_left counts the deals still to play after the standing: 0..{n - 1} in a "
            f"match of {n} deals, got {deals_left!r}"
        )
    return d


def win_shares(finals: npt.ArrayLike, *, twelfths: bool = False) -> np.ndarray:
    """Each seat's share of the match win for final totals of shape ``(..., 4)``: 1 for the
    single top total, ``1/k`` each for ``k`` seats level on it, 0 for the others; the one
    match-share rule of the library (the equity model, the arena's match results).

    ``twelfths``: the shares as whole twelfths (int64: 12, 6, 4 or 3 for a win shared by one to
    four seats), so that sums of shares over many matches are exact."""
    arr = np.asarray(finals)
    win = arr == arr.max(axis=-1, keepdims=True)
    parts: np.ndarray = np.where(win, 12 // win.sum(axis=-1, keepdims=True), 0).astype(np.int64)
    return parts if twelfths else parts / 12


def standing_text(totals: Sequence[int], seat: int) -> str:
    """Where ``seat`` stands against the best of the others, in words: ``3 points behind``,
    ``level with the leader``, ``2.5 points ahead``."""
    best = max(t for s, t in enumerate(totals) if s != seat)
    gap = int(totals[seat]) - best
    if gap == 0:
        return "level with the leader"
    points = format_tenths(abs(gap))
    unit = "point" if abs(gap) == 10 else "points"
    return f"{points} {unit} {'ahead' if gap > 0 else 'behind'}"


# --- the recorded deals ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DealScores:
    """Recorded deals of one ruleset, by deal seat (seat 0 called first and led): ``calls`` and
    ``tricks`` of shape ``(n, 4)``; ``players`` names the arena player that played all four
    seats, ``seed`` and ``first`` the tournament deals they were (``first .. first + n - 1``)."""

    rules: Ruleset
    calls: np.ndarray
    tricks: np.ndarray
    players: str
    seed: int
    first: int = 0

    def __post_init__(self) -> None:
        calls = np.asarray(self.calls)
        tricks = np.asarray(self.tricks)
        if calls.ndim != 2 or calls.shape[1:] != (4,) or tricks.shape != calls.shape:
            raise ModelError(
                f"recorded deals need calls and tricks of shape (n, 4), got {calls.shape} and "
                f"{tricks.shape}"
            )
        if not len(calls):
            raise ModelError("recorded deals: none")
        if np.any(tricks.sum(axis=1) != 13) or tricks.min() < 0:
            raise ModelError("recorded deals: every deal's tricks are 0..13 and sum to 13")
        r = self.rules
        if calls.min() < r.min_call or calls.max() > r.max_call:
            raise ModelError(
                f"recorded deals: calls must be {r.min_call}..{r.max_call} under {r.name}, got "
                f"{calls.min()}..{calls.max()}"
            )
        object.__setattr__(self, "calls", calls.astype(np.int8))
        object.__setattr__(self, "tricks", tricks.astype(np.int8))

    def __len__(self) -> int:
        return int(self.calls.shape[0])

    @functools.cached_property
    def scores(self) -> np.ndarray:
        """Each seat's score of each deal in tenths, ``(n, 4)`` int16 (the ruleset's scoring)."""
        r = self.rules
        table = np.array(
            [[r.score(c, t) for t in range(14)] for c in range(r.min_call, r.max_call + 1)],
            dtype=np.int16,
        )
        return table[self.calls.astype(np.intp) - r.min_call, self.tricks.astype(np.intp)]

    def meta(self) -> dict[str, Any]:
        """What the file says about itself (format, rules, players, seed, deals)."""
        return {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "first": self.first,
            "deals": len(self),
        }

    def save(self, path: Path) -> Path:
        """Write the deals to ``path`` (an ``.npz``) atomically."""
        with atomic_open(Path(path), ".npz") as f:
            np.savez_compressed(
                f, calls=self.calls, tricks=self.tricks, meta=np.array(json.dumps(self.meta()))
            )
        return Path(path)

    @classmethod
    def load(cls, source: Path | Traversable) -> DealScores:
        """Read deals written by :meth:`save` (a path or a package resource)."""
        try:
            with source.open("rb") as f:
                raw = f.read()
            with np.load(io.BytesIO(raw), allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                calls, tricks = data["calls"], data["tricks"]
        except (OSError, ValueError, KeyError) as e:
            raise ModelError(f"recorded deals {source} cannot be read: {e}") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ModelError(f"recorded deals {source}: not a {FORMAT} file")
        return cls(
            Ruleset.from_dict(meta["rules"]),
            calls,
            tricks,
            str(meta["players"]),
            int(meta["seed"]),
            int(meta.get("first", 0)),
        )

    @classmethod
    def concat(cls, parts: Sequence[DealScores]) -> DealScores:
        """Consecutive recordings (same rules, players and seed; each starting where the
        previous one ended) as one."""
        if not parts:
            raise ModelError("recorded deals: nothing to join")
        head = parts[0]
        at = head.first
        for p in parts:
            if (p.rules, p.players, p.seed) != (head.rules, head.players, head.seed):
                raise ModelError("recorded deals: parts of different rules, players or seed")
            if p.first != at:
                raise ModelError(f"recorded deals: a part starts at deal {p.first}, not {at}")
            at += len(p)
        return cls(
            head.rules,
            np.concatenate([p.calls for p in parts]),
            np.concatenate([p.tricks for p in parts]),
            head.players,
            head.seed,
            head.first,
        )


# --- the estimate ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Equity(Shown):
    """Each seat's share of the match win from ``totals`` (tenths, per seat) with
    ``deals_left`` deals to play: ``p`` (summing to 1) and its standard error ``se`` (0 when
    no deal is left: the result is known). ``deals`` recorded deals stand behind it."""

    rules: Ruleset
    totals: tuple[int, int, int, int]
    deals_left: int
    p: tuple[float, float, float, float]
    se: tuple[float, float, float, float]
    deals: int

    def text(self) -> str:
        """One line a seat: total, equity and its standard error."""
        left = {0: "the match is over", 1: "1 deal left"}.get(
            self.deals_left, f"{self.deals_left} deals left"
        )
        rows = [f"match equity ({self.rules.name}, {left}; from {self.deals} recorded deals):"]
        for s in range(4):
            se = "" if self.deals_left == 0 else f" ± {100 * self.se[s]:.1f}"
            rows.append(
                f"  seat {s}  total {format_tenths(self.totals[s]):>6}  wins "
                f"{100 * self.p[s]:5.1f} %{se}"
            )
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: totals in tenths, probabilities and standard errors."""
        return {
            "rules": self.rules.name,
            "totals": list(self.totals),
            "deals_left": self.deals_left,
            "p": [round(x, 6) for x in self.p],
            "se": [round(x, 6) for x in self.se],
            "deals": self.deals,
        }


def _four(x: np.ndarray) -> tuple[float, float, float, float]:
    return (float(x[0]), float(x[1]), float(x[2]), float(x[3]))


def _distinct(rng: np.random.Generator, n: int, rows: int, k: int) -> np.ndarray:
    """``(rows, k)`` indices into ``0..n-1``, distinct within a row, uniformly drawn (rows with
    a repeat are drawn again: few when ``k`` is small against ``n``)."""
    picks = rng.integers(n, size=(rows, k))
    while k > 1:
        ordered = np.sort(picks, axis=1)
        again = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not again.any():
            break
        picks[again] = rng.integers(n, size=(int(again.sum()), k))
    return picks


class EquityModel:
    """The equity estimate over one recording (see the module docstring): futures drawn once
    per count of deals left and kept, shared by every standing asked. Safe to use from several
    threads.

    ``exchangeable=True`` closes the futures under the 24 permutations of the seats: every
    seat is treated alike, whatever its place at the table (``futures`` then counts the futures
    before the permutations)."""

    def __init__(
        self,
        scores: DealScores,
        groups: int = GROUPS,
        futures: int = FUTURES,
        seed: int = _SEED,
        *,
        exchangeable: bool = False,
    ) -> None:
        if groups < 2 or futures < groups * (24 if exchangeable else 1):
            raise ModelError(
                f"equity: groups >= 2 and enough futures for each, got {groups}, {futures}"
            )
        if len(scores) < 4 * groups:
            raise ModelError(
                f"equity: {len(scores)} recorded deals are too few for {groups} groups"
            )
        self.scores = scores
        self.groups = int(groups)
        self.exchangeable = bool(exchangeable)
        self.per_group = int(futures) // (self.groups * (24 if exchangeable else 1))
        self.seed = int(seed)
        order = np.random.default_rng([self.seed, 0]).permutation(len(scores))
        #: the recorded deals of each group (disjoint, sizes differing by one at most)
        self.members: tuple[np.ndarray, ...] = tuple(
            np.sort(order[g :: self.groups]) for g in range(self.groups)
        )
        self._futures: dict[tuple[int, int], np.ndarray] = {}
        self._lock = threading.Lock()

    @property
    def rows(self) -> int:
        """Futures a group (after the seat permutations, when exchangeable)."""
        return self.per_group * (24 if self.exchangeable else 1)

    def futures(self, deals: int, first: int = 0) -> np.ndarray:
        """The futures of ``deals`` deals: ``(groups, rows, 4)`` sums of scores in tenths (all
        zero for no deal) by seat of the deal ``first`` deals before the first of them (0: the
        next deal's seats; 1: the seats of the deal being called, the futures following it)."""
        if deals == 0:
            return np.zeros((self.groups, 1, 4), dtype=np.int16)
        found = self._futures.get((deals, first))
        if found is None:
            with self._lock:
                found = self._futures.get((deals, first))
                if found is None:
                    found = self._draw(deals, first)
                    self._futures[deals, first] = found
        return found

    def _draw(self, deals: int, first: int) -> np.ndarray:
        scores = self.scores.scores
        rng = np.random.default_rng([self.seed, 1, deals, first])
        out = np.empty((self.groups, self.rows, 4), dtype=np.int16)
        for g, members in enumerate(self.members):
            if deals > len(members):
                raise ModelError(
                    f"equity: {deals} deals left need at least as many recorded deals a group"
                )
            picks = members[_distinct(rng, len(members), self.per_group, deals)]
            total = np.zeros((self.per_group, 4), dtype=np.int32)
            for k in range(deals):
                # the deal passes one seat on a deal: seat t of the first deal holds deal seat
                # (t - k - first) % 4 of deal k
                total += np.roll(scores[picks[:, k]], k + first, axis=1)
            out[g] = total[:, _PERMUTATIONS].reshape(-1, 4) if self.exchangeable else total
        return out

    def equity(self, totals: Sequence[int], deals_left: int) -> tuple[np.ndarray, np.ndarray]:
        """``(p, se)``, each of shape (4,), for checked ``totals`` and ``deals_left``."""
        t = np.asarray(totals, dtype=np.int32)
        if deals_left == 0:
            return win_shares(t), np.zeros(4)
        finals = self.futures(deals_left).astype(np.int32) + t
        twelfths = win_shares(finals, twelfths=True)
        per_group = twelfths.sum(axis=1) / (12 * finals.shape[1])  # (groups, 4)
        return per_group.mean(axis=0), standard_errors(per_group)

    # --- the call decision's part ----------------------------------------------------------------

    def _pool(self, rows: np.ndarray, call: int | None, seat: int) -> np.ndarray:
        """Scores (tenths) a seat may take this deal, from the recorded deals ``rows``: the
        deal seat's own when its call is unknown, else every seat's that made the same call
        (empty when there are too few)."""
        scores: np.ndarray = self.scores.scores[rows].astype(np.int32)
        if call is None:
            return np.ascontiguousarray(scores[:, seat])
        mask = self.scores.calls[rows] == call
        if int(mask.sum()) < MIN_POOL:
            return np.zeros(0, dtype=np.int32)
        return np.ascontiguousarray(scores[mask])

    def _call_pool(self, call: int) -> np.ndarray:
        """Scores of seats that called ``call``, from the whole recording; when fewer than
        ``MIN_POOL`` seats made that call, the outcomes of the nearest calls (tricks over or
        under the call) scored as if ``call`` had been made."""
        rules = self.scores.rules
        calls = self.scores.calls.astype(np.int32).ravel()
        tricks = self.scores.tricks.astype(np.int32).ravel()
        distance = np.abs(calls - call)
        for reach in range(14):
            near = distance <= reach
            if int(near.sum()) >= MIN_POOL:
                margin = tricks[near] - calls[near]
                taken = np.clip(call + margin, 0, 13)
                table = np.array([rules.score(call, t) for t in range(14)], dtype=np.int32)
                pool: np.ndarray = table[taken]
                return pool
        raise ModelError(f"equity: fewer than {MIN_POOL} recorded seats in all")

    def others(
        self, seat: int, calls: Mapping[int, int], draws: int, seed: Sequence[int]
    ) -> np.ndarray:
        """This deal's scores of the three seats other than ``seat`` (in seat order): ``(groups,
        draws, 3)`` tenths, each seat drawn on its own from its pool in the group's recorded
        deals (``calls``: the calls known, by seat; a seat with a known call scores as the
        recorded seats that made that call did)."""
        rng = np.random.default_rng([self.seed, 2, *(int(x) & 0xFFFFFFFF for x in seed)])
        out = np.empty((self.groups, draws, 3), dtype=np.int32)
        shared: dict[int, np.ndarray] = {}
        for g, members in enumerate(self.members):
            for i, other in enumerate(s for s in range(4) if s != seat):
                call = calls.get(other)
                pool = self._pool(members, call, other)
                if not len(pool) and call is not None:
                    if call not in shared:
                        shared[call] = self._call_pool(call)
                    pool = shared[call]
                out[g, :, i] = pool[rng.integers(len(pool), size=draws)]
        return out

    def win_curve(
        self,
        totals: Sequence[int],
        seat: int,
        deals_left: int,
        others: np.ndarray,
        scores: np.ndarray,
    ) -> np.ndarray:
        """``(groups, len(scores))``: ``seat``'s share of the match win if it scores each of
        ``scores`` (tenths) this deal, the others score ``others`` (from :meth:`others`) and
        ``deals_left`` deals follow."""
        t = np.asarray(totals, dtype=np.int32)
        rest = [s for s in range(4) if s != seat]
        future = self.futures(deals_left, first=1).astype(np.int32)
        rows = max(future.shape[1], others.shape[1])
        future = np.broadcast_to(future, (self.groups, rows, 4))
        others = np.broadcast_to(others, (self.groups, rows, 3))
        rivals = t[rest] + others + future[:, :, rest]
        best = rivals.max(axis=2)
        level = (rivals == best[:, :, None]).sum(axis=2)
        need = best - t[seat] - future[:, :, seat]  # the caller's deal score must beat this
        weight = 1.0 / (1 + level)
        xs = np.asarray(scores, dtype=np.int32)
        out = np.empty((self.groups, len(xs)))
        for g in range(self.groups):
            order = np.argsort(need[g], kind="stable")
            sorted_need = need[g][order]
            tie = np.concatenate([[0.0], np.cumsum(weight[g][order])])
            below = np.searchsorted(sorted_need, xs, side="left")
            upto = np.searchsorted(sorted_need, xs, side="right")
            out[g] = (below + tie[upto] - tie[below]) / rows
        return out


# --- the shipped recordings -----------------------------------------------------------------------


def recorded_preset(rules: Ruleset | str) -> str:
    """The preset whose recorded deals serve ``rules``: its base preset, when the fields that
    change a deal's play or score (``DEAL_FIELDS``) are the preset's; else a ``ModelError``."""
    r = Ruleset.coerce(rules)
    base = r.name.split("+")[0]
    preset = PRESETS.get(base)
    differ = (
        [] if preset is None else [f for f in DEAL_FIELDS if getattr(r, f) != getattr(preset, f)]
    )
    if preset is None or differ:
        verb = "differs" if len(differ) == 1 else "differ"
        why = f"{', '.join(differ)} {verb} from {base}'s" if preset is not None else "no preset"
        raise ModelError(
            f"no recorded deals for {r.name} ({why}): the match equity is shipped for the "
            f"presets {', '.join(PRESETS)} (record others with scripts/make_equity.py)"
        )
    return base


def shipped_path(preset: str) -> Traversable:
    """The package resource of a preset's recorded deals,
    ``callbreak_lab/models/equity_<preset>.npz``."""
    return resources.files("callbreak_lab").joinpath("models", f"equity_{preset}.npz")


@functools.lru_cache(maxsize=8)
def _shipped(preset: str) -> EquityModel:
    path = shipped_path(preset)
    if not path.is_file():
        raise ModelError(
            f"no recorded deals for {preset}: {path} is missing (scripts/make_equity.py)"
        )
    return EquityModel(DealScores.load(path))


def equity_model(rules: Ruleset | str, scores: DealScores | None = None) -> EquityModel:
    """The equity model of ``rules``: over ``scores`` when given (cached per recording only
    by the caller), else over the shipped recording of the rules' preset (cached)."""
    if scores is not None:
        return EquityModel(scores)
    return _shipped(recorded_preset(rules))


def match_equity(
    totals: Sequence[int],
    deals_left: int,
    rules: Ruleset | str | None = None,
    *,
    model: EquityModel | None = None,
) -> Equity:
    """Each seat's chance of winning the match (ties shared) from ``totals`` (tenths, one a
    seat) with ``deals_left`` deals still to play (``0 .. match_deals - 1``) under ``rules``
    (None: ``rules.DEFAULT_RULES``), with its standard error:
    ``match_equity((0, 0, 20, 0), 1, "online").p``.

    ``model``: an :class:`EquityModel` over other recorded deals (default: the shipped
    recording of the rules' preset)."""
    r = Ruleset.coerce(rules)
    t = check_totals(totals)
    d = check_deals_left(deals_left, r)
    m = model if model is not None else equity_model(r)
    p, se = m.equity(t, d)
    return Equity(r, t, d, _four(p), _four(se), len(m.scores))
