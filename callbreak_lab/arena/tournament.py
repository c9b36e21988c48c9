"""Duplicate tournaments: ``run(players, rules, deals=..., seed=...)`` and its report.

Deal ``j`` of a tournament is ``Deal.seeded(seed, j)``, so the same
seed gives the same deals whatever the tournament's size. Consecutive deals form matches of
``rules.match_deals`` deals (5 in every preset; 5 when a variation has none), whose running totals
the players see. Every match is played four times, rotation ``r`` putting entry ``(t + r) % 4`` of
``players`` at table seat ``t``: each entry holds each hand of each deal once, so the luck of the
cards cancels out of the comparison. A board is one deal played once (``4 * deals`` boards).

The report, per player (entries with the same label pooled): mean score per board, mean call,
mean tricks, make rate, mean overtricks, mean of tricks minus call, faults and the time per
decision (median, p99, max); per pair of players, the margin of one over the other (the mean over
deals of the difference of their mean scores on that deal's boards) with its standard error
clustered by deal (the spread of the per-deal differences over the square root of the number of
deals). Four copies of one deterministic player therefore have margins of exactly zero.

The matches: a match is one rotation's ``match_deals`` consecutive deals (a group of deals
played in all four rotations makes four matches, one a rotation, so every entry sits at every
table seat of the group once). Per player, its share of the matches won per seat it held (a win
is 1, a win shared by ``k`` seats level on the top total is ``1/k``; a quarter is par), and per
pair the difference of their shares, each with its standard error clustered by group of deals
(the four rotations of a group share its deals). Only whole matches count: a tournament whose
deals are not a multiple of ``match_deals`` leaves its last, shorter group out of them. Four
copies of one deterministic player win exactly a quarter of the matches each.

Boards run in parallel with joblib, one task per match and rotation: local processes
(``backend="loky"``, ``n_jobs``) or a Dask cluster (``backend="dask"`` with ``client`` or
``address``), the switch of dataset generation (``callbreak_lab.util.parallel``). ``n_jobs`` None
or 1 plays in this process.
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from callbreak_lab.arena.players import make_player
from callbreak_lab.arena.records import (
    Board,
    board_identity,
    check_record_slot,
    write_record,
)
from callbreak_lab.arena.referee import play_match
from callbreak_lab.bidding.equity import win_shares
from callbreak_lab.cards import Deal
from callbreak_lab.errors import UsageError, check_int, check_time_limit
from callbreak_lab.rules import Ruleset
from callbreak_lab.util.parallel import check_backend, parallel_results
from callbreak_lab.util.progress import Progress
from callbreak_lab.util.stats import mean_se

__all__ = [
    "Margin",
    "MatchMargin",
    "MatchStats",
    "PlayerStats",
    "Report",
    "run",
    "summarise",
    "tournament_deal",
]

PlayerSpec = str | Callable[[], Any]
_LABEL = re.compile(r"^([A-Za-z0-9_.#-]+)=(.+)$")


#: deal ``index`` of the tournament seeded ``seed``: the library's one seeded deal
tournament_deal = Deal.seeded


def _entry(spec: PlayerSpec) -> tuple[str, PlayerSpec]:
    """(label, spec): ``label=spec`` names a player (e.g. ``a=simple``); by default a built-in
    or ``http:URL`` is labelled by itself, a factory by its ``label``, ``name`` or ``__name__``."""
    if isinstance(spec, str):
        text = spec.strip()
        m = _LABEL.match(text)
        if m and not text.startswith(("http:", "https:")):
            return m.group(1), m.group(2).strip()
        return text, text
    if callable(spec):
        label = getattr(spec, "label", None) or getattr(spec, "name", None)
        return str(label or getattr(spec, "__name__", "player")), spec
    raise UsageError(f"a player is a name, http:URL or a factory of players, got {spec!r}")


def _build(spec: PlayerSpec, rules: Ruleset, time_limit: float | None) -> Any:
    if isinstance(spec, str):
        return make_player(spec, rules, time_limit=time_limit)
    return spec()


def _play_task(
    specs: Sequence[PlayerSpec],
    labels: Sequence[str],
    rules: Ruleset,
    deals: Sequence[Deal],
    seed: int,
    first: int,
    rotation: int,
    time_limit: float | None,
) -> list[Board]:
    """One match (``deals``, tournament deals ``first ..``) in one rotation. The same call in
    this process or in a worker: the deals, the rules and the boards cross as they are."""
    table = [(t + rotation) % 4 for t in range(4)]
    players = [_build(specs[e], rules, time_limit) for e in table]
    boards = play_match(
        deals,
        rules,
        players,
        [labels[e] for e in table],
        time_limit=time_limit,
        seed=seed,
        first_index=first,
    )
    return [dataclasses.replace(b, rotation=rotation) for b in boards]


# --- the report -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerStats:
    """One player's figures (points; ``made`` a fraction; times in ms)."""

    name: str
    seats: int
    boards: int
    mean_score: float
    score_se: float
    mean_call: float
    mean_tricks: float
    made: float
    overtricks: float
    tricks_minus_call: float
    faults: int
    ms_p50: float
    ms_p99: float
    ms_max: float

    def to_dict(self) -> dict[str, Any]:
        return {k: _json_number(v) for k, v in dataclasses.asdict(self).items()}


@dataclass(frozen=True)
class Margin:
    """``a``'s mean score per board minus ``b``'s on the same deals (points), with its standard
    error clustered by deal (NaN with a single deal)."""

    a: str
    b: str
    margin: float
    se: float
    deals: int
    #: ``(deal index, margin)`` for each deal both played, in deal order
    by_deal: tuple[tuple[int, float], ...] = ()
    #: the seed the deals were dealt from (a deal index names a deal only with its seed)
    seed: int | None = None

    def minus(self, other: Margin) -> Margin:
        """This margin minus ``other``'s, deal by deal over the deals both cover: a paired
        estimate of ``self.a`` over ``other.a`` when both margins are over the same field on the
        same deals (one seed), far tighter than the difference of the two means, because each
        deal's luck cancels. The result's ``a`` is ``self.a`` and its ``b`` is ``other.a``."""
        if not isinstance(other, Margin):
            raise UsageError(f"a margin is subtracted from a margin, got {type(other).__name__}")
        if self.seed != other.seed:
            raise UsageError(
                f"the margins were dealt from different seeds ({self.seed} and {other.seed}): "
                "their deals are not the same"
            )
        theirs = dict(other.by_deal)
        common = [(i, m - theirs[i]) for i, m in self.by_deal if i in theirs]
        if not common:
            raise UsageError(
                f"the margins of {self.a!r} and {other.a!r} share no deal "
                "(were they played on the same seed, with deals recorded?)"
            )
        d = np.array([m for _, m in common])
        return Margin(self.a, other.a, *mean_se(d), len(d), tuple(common), self.seed)

    def to_dict(self) -> dict[str, Any]:
        out = {k: _json_number(v) for k, v in dataclasses.asdict(self).items() if k != "by_deal"}
        out["by_deal"] = [[i, round(m, 4)] for i, m in self.by_deal]
        return out


@dataclass(frozen=True)
class MatchStats:
    """One player's matches: ``matches`` seats it held in whole matches, ``share`` its mean
    share of their wins (ties shared; 0.25 is par), ``se`` the standard error clustered by
    group of deals (NaN with fewer than two groups)."""

    name: str
    matches: int
    share: float
    se: float

    def to_dict(self) -> dict[str, Any]:
        return {k: _json_number(v) for k, v in dataclasses.asdict(self).items()}


@dataclass(frozen=True)
class MatchMargin:
    """``a``'s share of the matches won minus ``b``'s, from the groups of deals both played,
    with its standard error clustered by group (NaN with a single group)."""

    a: str
    b: str
    margin: float
    se: float
    groups: int

    def to_dict(self) -> dict[str, Any]:
        return {k: _json_number(v) for k, v in dataclasses.asdict(self).items()}


def _json_number(v: Any) -> Any:
    if isinstance(v, float):
        return None if math.isnan(v) else round(v, 4)
    return v


@dataclass(frozen=True)
class Report:
    """A tournament's result: the players' figures, the margins, and every board."""

    rules: Ruleset
    deals: int
    seed: int
    players: tuple[PlayerStats, ...]
    margins: tuple[Margin, ...]
    boards: tuple[Board, ...]
    seconds: float = 0.0
    #: seconds a decision (None: no limit)
    time_limit: float | None = None
    #: deals in a match (``rules.match_deals``; 5 when the rules play to a target score)
    match_deals: int = 5
    #: whole matches played (one a rotation of each whole group of deals)
    match_count: int = 0
    matches: tuple[MatchStats, ...] = ()
    match_margins: tuple[MatchMargin, ...] = ()

    def player(self, name: str) -> PlayerStats:
        """The figures of the player labelled ``name``."""
        for p in self.players:
            if p.name == name:
                return p
        raise UsageError(f"no player {name!r} in the report ({[p.name for p in self.players]})")

    def margin(self, a: str, b: str) -> Margin:
        """``a``'s margin over ``b`` (either order of the stored pair)."""
        for m in self.margins:
            if (m.a, m.b) == (a, b):
                return m
            if (m.a, m.b) == (b, a):
                flipped = tuple((i, -v) for i, v in m.by_deal)
                return Margin(a, b, -m.margin, m.se, m.deals, flipped, m.seed)
        raise UsageError(f"no margin between {a!r} and {b!r}")

    def match(self, name: str) -> MatchStats:
        """The matches of the player labelled ``name``."""
        for m in self.matches:
            if m.name == name:
                return m
        raise UsageError(
            f"no matches of {name!r} in the report ({self.match_count} whole matches; "
            f"players {[p.name for p in self.players]})"
        )

    def match_margin(self, a: str, b: str) -> MatchMargin:
        """``a``'s share of the matches won minus ``b``'s (either order of the stored pair)."""
        for m in self.match_margins:
            if (m.a, m.b) == (a, b):
                return m
            if (m.a, m.b) == (b, a):
                return MatchMargin(a, b, -m.margin, m.se, m.groups)
        raise UsageError(f"no match margin between {a!r} and {b!r} ({self.match_count} matches)")

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object."""
        return {
            "rules": self.rules.name,
            "deals": self.deals,
            "boards": len(self.boards),
            "seed": self.seed,
            "time_limit": self.time_limit,
            "seconds": round(self.seconds, 2),
            "players": [p.to_dict() for p in self.players],
            "margins": [m.to_dict() for m in self.margins],
            "matches": {
                "deals": self.match_deals,
                "played": self.match_count,
                "players": [m.to_dict() for m in self.matches],
                "margins": [m.to_dict() for m in self.match_margins],
            },
        }

    def text(self) -> str:
        """The table: one row per player, then the margins."""
        head = (
            f"arena: {self.rules.name}, {self.deals} deals x 4 rotations = {len(self.boards)} "
            f"boards, seed {self.seed}"
            + ("" if self.time_limit is None else f", {self.time_limit:g} s a decision")
            + f" ({self.seconds:.1f} s)"
        )
        width = max([6, *(len(p.name) for p in self.players)])
        rows = [
            head,
            f"{'player':<{width}}  seats  score/board      call  tricks  made  over   t-c  "
            "faults  ms p50    p99    max  matches won",
        ]
        shares = {m.name: m for m in self.matches}
        for p in self.players:
            se = "" if math.isnan(p.score_se) else f"± {p.score_se:.2f}"
            rows.append(
                f"{p.name:<{width}}  {p.seats:>5}  {p.mean_score:+6.2f} {se:<8}  "
                f"{p.mean_call:5.2f}  {p.mean_tricks:6.2f}  {p.made:4.2f}  {p.overtricks:4.2f}  "
                f"{p.tricks_minus_call:+5.2f}  {p.faults:>6}  {p.ms_p50:6.1f} {p.ms_p99:6.0f} "
                f"{p.ms_max:6.0f}  {_share_text(shares.get(p.name))}"
            )
        rows.append(self._matches_line())
        if self.margins:
            rows.append(
                "margins (points a board; matches won, percentage points; ± standard error "
                "clustered by deal):"
            )
            for m in self.margins:
                se = "" if math.isnan(m.se) else f" ± {m.se:.2f}"
                line = f"  {m.a} over {m.b}: {m.margin:+.2f}{se}"
                found = [x for x in self.match_margins if {x.a, x.b} == {m.a, m.b}]
                if found:
                    mm = self.match_margin(m.a, m.b)
                    mse = "" if math.isnan(mm.se) else f" ± {100 * mm.se:.1f}"
                    line += f"; matches won {100 * mm.margin:+.1f}{mse}"
                rows.append(line)
        faults = sum(len(b.faults) for b in self.boards)
        if faults:
            rows.append(f"{faults} fault(s): see the boards' records")
        return "\n".join(rows)

    def _matches_line(self) -> str:
        """What the matches column counts."""
        if not self.match_count:
            return (
                f"matches won: no whole match ({self.deals} deals; a match is {self.match_deals})"
            )
        return (
            f"matches won: {self.match_count} matches of {self.match_deals} deals (each group "
            "of deals in four rotations); a seat's share of the wins, ties shared, 25 % is par"
        )

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        names = ", ".join(p.name for p in self.players)
        return f"<Report {self.rules.name}: {self.deals} deals, {len(self.boards)} boards; {names}>"

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.text())}</pre>"


def _share_text(m: MatchStats | None) -> str:
    if m is None:
        return "-"
    se = "" if math.isnan(m.se) else f" ± {100 * m.se:.1f}"
    return f"{100 * m.share:5.1f} %{se}"


def _percentile(x: list[float], q: float) -> float:
    return float(np.percentile(x, q)) if x else float("nan")


def _table_totals(match: Sequence[Board], first: int) -> tuple[list[int], list[str]]:
    """Each table seat's match total (tenths) and player over a match's boards (the deal passes
    one seat on after each deal)."""
    totals = [0, 0, 0, 0]
    labels: list[str | None] = [None, None, None, None]
    for b in match:
        for s in range(4):
            t = (s + b.deal_number - 1) % 4  # the deal's seat s sits at table seat t
            totals[t] += b.scores[s]
            if labels[t] not in (None, b.players[s]):
                raise UsageError(f"match from deal {first}: table seat {t} changes player")
            labels[t] = b.players[s]
    return totals, [str(x) for x in labels]


def _match_results(
    boards: Sequence[Board], names: Sequence[str], group: int
) -> tuple[int, list[MatchStats], list[MatchMargin]]:
    """The whole matches among ``boards`` (``group`` deals each): their count, each player's
    share of their wins and each pair's difference, clustered by group of deals."""
    played: dict[tuple[int, int], list[Board]] = {}
    for b in boards:
        played.setdefault((b.deal_index - (b.deal_number - 1), b.rotation), []).append(b)
    index = {n: i for i, n in enumerate(names)}
    # per group of deals (its first deal) and player: twelfths of wins and seats held, so that
    # shares add up exactly (a win shared by 1..4 seats is 12, 6, 4 or 3 twelfths)
    twelfths: dict[int, np.ndarray] = {}
    seats: dict[int, np.ndarray] = {}
    count = 0
    for (first, _), match in sorted(played.items()):
        if sorted(b.deal_number for b in match) != list(range(1, group + 1)):
            continue  # not a whole match
        totals, labels = _table_totals(match, first)
        shares = win_shares(totals, twelfths=True)
        wins = twelfths.setdefault(first, np.zeros(len(names), dtype=np.int64))
        held = seats.setdefault(first, np.zeros(len(names), dtype=np.int64))
        for t in range(4):
            i = index[labels[t]]
            held[i] += 1
            wins[i] += shares[t]
        count += 1
    if not count:
        return 0, [], []
    firsts = sorted(twelfths)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_group = np.array([twelfths[f] / (12 * seats[f]) for f in firsts])  # NaN: absent
    held_all = np.array([seats[f] for f in firsts]).sum(axis=0)
    stats = []
    for name in names:
        col = per_group[:, index[name]]
        col = col[~np.isnan(col)]
        stats.append(MatchStats(name, int(held_all[index[name]]), *mean_se(col)))
    margins = []
    for i, a in enumerate(names):
        for b_name in names[i + 1 :]:
            d = per_group[:, index[a]] - per_group[:, index[b_name]]
            d = d[~np.isnan(d)]
            margins.append(MatchMargin(a, b_name, *mean_se(d), len(d)))
    return count, stats, margins


def summarise(
    boards: Sequence[Board],
    order: Sequence[str] | None = None,
    *,
    rules: Ruleset | None = None,
    deals: int | None = None,
    seed: int = 0,
    seconds: float = 0.0,
    time_limit: float | None = None,
) -> Report:
    """The report of ``boards`` (``order``: the players' labels, each once, in report order;
    by default in order of first appearance)."""
    if not boards:
        raise UsageError("no boards to summarise")
    names: list[str] = list(dict.fromkeys(order or [n for b in boards for n in b.players]))
    index = {n: i for i, n in enumerate(names)}
    deal_ids = sorted({b.deal_index for b in boards})
    row = {d: i for i, d in enumerate(deal_ids)}
    sums = np.zeros((len(deal_ids), len(names)))
    counts = np.zeros((len(deal_ids), len(names)))
    samples: dict[str, list[tuple[int, int, int]]] = {n: [] for n in names}
    faults = dict.fromkeys(names, 0)
    times: dict[str, list[float]] = {n: [] for n in names}
    seats = dict.fromkeys(names, 0)
    for b in boards:
        for s, name in enumerate(b.players):
            if name not in index:
                raise UsageError(f"board {b.deal_index} has player {name!r}, not in {names}")
            sums[row[b.deal_index], index[name]] += b.scores[s]
            counts[row[b.deal_index], index[name]] += 1
            samples[name].append((b.calls[s], b.tricks[s], b.scores[s]))
            times[name].extend(b.ms[s])
            seats[name] = max(seats[name], b.players.count(name))
        for f in b.faults:
            faults[b.players[f.seat]] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        per_deal = sums / counts / 10  # points per board, per deal and player
    stats = []
    for name in names:
        arr = np.array(samples[name], dtype=np.float64).reshape(-1, 3)
        calls, tricks, scores = arr[:, 0], arr[:, 1], arr[:, 2]
        col = per_deal[:, index[name]]
        stats.append(
            PlayerStats(
                name=name,
                seats=seats[name],
                boards=len(arr),
                mean_score=float(scores.mean() / 10),
                score_se=mean_se(col[~np.isnan(col)])[1],
                mean_call=float(calls.mean()),
                mean_tricks=float(tricks.mean()),
                made=float((scores > 0).mean()),
                overtricks=float(np.maximum(tricks - calls, 0).mean()),
                tricks_minus_call=float((tricks - calls).mean()),
                faults=faults[name],
                ms_p50=_percentile(times[name], 50),
                ms_p99=_percentile(times[name], 99),
                ms_max=max(times[name], default=float("nan")),
            )
        )
    margins = []
    for i, a in enumerate(names):
        for b_name in names[i + 1 :]:
            d = per_deal[:, index[a]] - per_deal[:, index[b_name]]
            kept = np.flatnonzero(~np.isnan(d))
            by_deal = tuple((deal_ids[k], float(d[k])) for k in kept)
            d = d[kept]
            margins.append(
                Margin(
                    a,
                    b_name,
                    *mean_se(d),
                    len(d),
                    by_deal,
                    seed,
                )
            )
    r = rules if rules is not None else boards[0].rules
    group = r.match_deals or 5
    match_count, match_stats, match_margins = _match_results(boards, names, group)
    return Report(
        rules=r,
        deals=deals if deals is not None else len(deal_ids),
        seed=seed,
        players=tuple(stats),
        margins=tuple(margins),
        boards=tuple(boards),
        seconds=seconds,
        time_limit=time_limit,
        match_deals=group,
        match_count=match_count,
        matches=tuple(match_stats),
        match_margins=tuple(match_margins),
    )


# --- running one --------------------------------------------------------------------------------


def run(  # noqa: C901, PLR0913  (the public keyword API: players, rules, size, backend, records)
    players: Sequence[PlayerSpec],
    rules: Ruleset | str | None = None,
    *,
    deals: int = 10,
    seed: int = 0,
    n_jobs: int | None = 1,
    backend: str = "loky",
    client: Any = None,
    address: str | None = None,
    time_limit: float | None = None,
    records: str | Path | None = None,
    progress: Progress | None = None,
) -> Report:
    """Play a duplicate tournament of ``deals`` deals (``4 * deals`` boards) between four
    ``players`` (built-in names, ``http:URL``, ``label=name``, or factories returning a
    player) under ``rules`` (None: ``rules.DEFAULT_RULES``) and return its :class:`Report`.

    ``time_limit`` (seconds) limits every decision (a later answer is a fault; ``pimc`` and
    ``strong`` search within it, a protocol bot gets it as ``timeBudget``); ``n_jobs``: worker
    processes (None or 1: this process, -1: every core); ``records``: a directory that receives
    one JSON record per board (``records.Board``); ``progress(done, total)`` is called as boards
    finish."""
    r = Ruleset.coerce(rules)
    n = check_int(deals, "deals", low=1)
    seed = check_int(seed, "seed", low=0)
    jobs = 1 if n_jobs is None else int(n_jobs)
    if jobs == 0:
        raise UsageError("n_jobs must not be 0 (None or 1: in this process, -1: every core)")
    time_limit = check_time_limit(time_limit, "arena: time_limit")
    check_backend(backend, client, address, UsageError)
    if len(players) != 4:
        raise UsageError(f"a tournament needs four players, got {len(players)}")
    entries = [_entry(p) for p in players]
    labels = [label for label, _ in entries]
    specs = [spec for _, spec in entries]
    for spec in specs:  # bad names, or a protocol bot under another preset: refused now
        if isinstance(spec, str):
            make_player(spec, r, time_limit=time_limit)
    group = r.match_deals or 5
    matches = [
        (first, [tournament_deal(seed, j) for j in range(first, min(first + group, n))])
        for first in range(0, n, group)
    ]
    tasks = [(first, match, rotation) for first, match in matches for rotation in range(4)]
    directory = None if records is None else Path(records)
    if directory is not None:
        for first, match, rotation in tasks:
            for k, deal in enumerate(match):
                by_seat = tuple(labels[((s + k) % 4 + rotation) % 4] for s in range(4))
                check_record_slot(
                    directory, board_identity(deal, r, by_seat, seed, first + k, rotation)
                )
    t0 = time.perf_counter()
    found: list[Board] = []

    def take(boards: list[Board]) -> None:
        for b in boards:
            if directory is not None:
                write_record(directory, b)
        found.extend(boards)
        if progress is not None:
            progress(len(found), 4 * n)

    if jobs == 1 and backend == "loky":
        for first, match, rotation in tasks:
            take(_play_task(specs, labels, r, match, seed, first, rotation, time_limit))
    else:
        from joblib import delayed

        with parallel_results(backend, jobs, client, address) as par:
            calls = (
                delayed(_play_task)(specs, labels, r, match, seed, first, rotation, time_limit)
                for first, match, rotation in tasks
            )
            for boards in par(calls):
                take(boards)
    found.sort(key=lambda b: (b.deal_index, b.rotation))
    return summarise(
        found,
        labels,
        rules=r,
        deals=n,
        seed=seed,
        seconds=time.perf_counter() - t0,
        time_limit=time_limit,
    )
