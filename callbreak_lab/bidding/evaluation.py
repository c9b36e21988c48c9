"""Held-out evaluation of the bid model against the baselines, Monte Carlo and a clairvoyant.

Every caller is scored on the test split of a profile's dataset under one ruleset (its scoring
and call range):

* **mean score per hand** (points) with the seat's play-out tricks as the outcome, and in a second
  table with its guaranteed (double-dummy) tricks as the outcome;
* **made rate** (share of calls made) and **mean call**.

Callers: the model (``recommend_calls``), each baseline of :mod:`callbreak_lab.bidding.baselines`,
the **clairvoyant** (calls the seat's actual play-out tricks, clamped to the call range: an upper
reference) and, on a small subsample, the **Monte Carlo** reference
(``analysis.montecarlo.monte_carlo``: the hand's own seat, ``mc_layouts`` random layouts of
the unseen cards, best call of the resulting distribution). The subsample table shows the model and
the baselines on the same hands, with the paired difference model - MC and its standard error.
Paired differences model - baseline on the whole split (``model_gaps``, standard errors clustered by
deal) say more than the per-caller errors, which mostly measure how the hands differ.

Also: log loss of both model heads, a reliability plot of ``P(tricks >= c)`` for several ``c``
(PNG) and a learning curve (held-out score vs training size, PNG). matplotlib is imported only
here, lazily, with the Agg backend.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from callbreak_lab.bidding.baselines import BASELINES, baseline_calls
from callbreak_lab.bidding.calls import best_calls, legal_calls, score_matrix
from callbreak_lab.bidding.model import (
    TRICK_COUNTS,
    BidModel,
    ModelError,
    Recommendation,
    encode_hands,
    load_model,
)
from callbreak_lab.cards import Hand, check_seat
from callbreak_lab.errors import CallbreakLabError, HandError
from callbreak_lab.rules import Ruleset
from callbreak_lab.util.fileio import atomic_open
from callbreak_lab.util.progress import Progress
from callbreak_lab.util.stats import clustered_mean_se, mean_se

__all__ = [
    "CALIBRATION_CALLS",
    "EvaluationReport",
    "HandSet",
    "ScoreRow",
    "evaluate_model",
    "flatten",
    "learning_curve",
    "log_loss",
    "plot_calibration",
    "plot_learning_curve",
    "reliability",
    "score_row",
]

CALIBRATION_CALLS = (1, 2, 3, 4, 5, 6)

#: ``(hand mask, seat, rules, layouts, seed) -> distribution of 14 trick counts``: the Monte Carlo
#: reference of one hand (``analysis.montecarlo.mc_distribution``)
McDistribution = Callable[[int, int, Ruleset, int, int], np.ndarray]


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandSet:
    """Per-hand arrays of a dataset split (four hands per deal, seat order)."""

    masks: np.ndarray  # (n,) uint64
    seats: np.ndarray  # (n,) int64
    playout: np.ndarray  # (n,) int64
    dd: np.ndarray  # (n,) int64
    deal: np.ndarray  # (n,) int64 deal index

    def __len__(self) -> int:
        return int(self.masks.shape[0])

    def take(self, rows: npt.ArrayLike) -> HandSet:
        """The hands at ``rows``."""
        r = np.asarray(rows)
        return HandSet(self.masks[r], self.seats[r], self.playout[r], self.dd[r], self.deal[r])


def flatten(data: Any) -> HandSet:
    """A :class:`callbreak_lab.bidding.datasets.DealData` (``masks``/``dd``/``playout`` (n, 4),
    ``index``) as one row per hand."""
    masks = np.asarray(data.masks, dtype=np.uint64)
    n = masks.shape[0]
    return HandSet(
        masks.reshape(-1),
        np.tile(np.arange(4, dtype=np.int64), n),
        np.asarray(data.playout, dtype=np.int64).reshape(-1),
        np.asarray(data.dd, dtype=np.int64).reshape(-1),
        np.repeat(np.asarray(data.index, dtype=np.int64), 4),
    )


def fit_model(train: HandSet, **params: Any) -> BidModel:
    """A :class:`BidModel` with ``params`` fitted on ``train``."""
    model = BidModel(**params)
    y = np.column_stack([train.playout, train.dd])
    return model.fit(encode_hands(train.masks, train.seats), y, deal_index=train.deal)


# ---------------------------------------------------------------------------------------------
# Scores
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreRow:
    """One caller on some hands: mean score (points), its standard error, made rate, mean call."""

    name: str
    n: int
    mean_score: float
    se: float
    made_rate: float
    mean_call: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the fields as they are."""
        return asdict(self)


def call_scores(calls: np.ndarray, tricks: np.ndarray, rules: Ruleset) -> np.ndarray:
    """Score in tenths of each ``calls[i]`` taking ``tricks[i]`` (vectorised ``rules.score``)."""
    lo = int(legal_calls(rules)[0])
    scores: np.ndarray = score_matrix(rules)[np.asarray(calls) - lo, np.asarray(tricks)]
    return scores


def score_row(name: str, calls: np.ndarray, tricks: np.ndarray, rules: Ruleset) -> ScoreRow:
    """Summary of ``calls`` against ``tricks`` under ``rules``."""
    s = call_scores(calls, tricks, rules) / 10.0
    n = len(s)
    mean, se = mean_se(s)
    return ScoreRow(
        name=name,
        n=n,
        mean_score=mean,
        se=se,
        made_rate=float((s > 0).mean()) if n else float("nan"),
        mean_call=float(np.mean(calls)) if n else float("nan"),
    )


def paired_gap(a: np.ndarray, b: np.ndarray, deal: np.ndarray) -> tuple[float, float]:
    """Mean of ``a - b`` (two callers' scores on the same hands) and its standard error,
    clustered by deal: the four hands of a deal share one layout, so their differences are not
    independent. The error is that of the per-deal sums; with one hand per deal it is the
    ordinary standard error of the mean."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return clustered_mean_se(d, np.asarray(deal))


def clairvoyant_calls(tricks: np.ndarray, rules: Ruleset) -> np.ndarray:
    """Call the tricks actually taken, clamped to the ruleset's call range."""
    calls: np.ndarray = np.clip(tricks, rules.min_call, rules.max_call)
    return calls


def log_loss(proba: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of outcomes ``y`` (probabilities clipped at 1e-15)."""
    p = proba[np.arange(len(y)), np.asarray(y, dtype=np.int64)]
    return float(-np.log(np.clip(p, 1e-15, 1.0)).mean())


def reliability(
    proba: np.ndarray, y: np.ndarray, c: int, bins: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reliability of ``P(tricks >= c)``: per probability bin, (mean forecast, observed rate,
    count); empty bins are dropped."""
    forecast = proba[:, c:].sum(axis=1)
    observed = (np.asarray(y) >= c).astype(np.float64)
    which = np.minimum((forecast * bins).astype(np.int64), bins - 1)
    count = np.bincount(which, minlength=bins)
    keep = count > 0
    f = np.bincount(which, weights=forecast, minlength=bins)[keep] / count[keep]
    o = np.bincount(which, weights=observed, minlength=bins)[keep] / count[keep]
    return f, o, count[keep]


# ---------------------------------------------------------------------------------------------
# Plots (matplotlib only here, lazily, Agg)
# ---------------------------------------------------------------------------------------------


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_calibration(
    proba: np.ndarray,
    y: np.ndarray,
    path: str | Path,
    calls: Sequence[int] = CALIBRATION_CALLS,
    title: str = "",
) -> Path:
    """Save reliability curves of ``P(tricks >= c)`` for each ``c`` in ``calls`` as a PNG."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 6))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect")
    for c in calls:
        f, o, _n = reliability(proba, y, c)
        ax.plot(f, o, marker="o", ms=3, label=f"P(tricks ≥ {c})")
    ax.set_xlabel("forecast probability")
    ax.set_ylabel("observed frequency")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(title or "Reliability of P(tricks ≥ c)")
    ax.legend(loc="upper left", fontsize=8)
    return _save_figure(plt, fig, Path(path))


def _save_figure(plt: Any, fig: Any, out: Path) -> Path:
    """Write ``fig`` to ``out`` atomically (format from the suffix, PNG by default)."""
    try:
        with atomic_open(out) as f:
            fig.savefig(f, format=out.suffix[1:] or "png", dpi=100, bbox_inches="tight")
    finally:
        plt.close(fig)
    return out


def plot_learning_curve(
    points: Sequence[tuple[int, float, float]], path: str | Path, title: str = ""
) -> Path:
    """Save held-out mean score (with ± 1 SE) against training hands as a PNG."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    sizes = [p[0] for p in points]
    means = np.array([p[1] for p in points])
    ses = np.array([p[2] for p in points])
    ax.errorbar(sizes, means, yerr=ses, marker="o", capsize=3)
    ax.set_xscale("log")
    ax.set_xlabel("training hands")
    ax.set_ylabel("held-out mean score per hand")
    ax.set_title(title or "Learning curve")
    ax.grid(True, alpha=0.3)
    return _save_figure(plt, fig, Path(path))


def learning_curve(
    train: HandSet,
    test: HandSet,
    rules: Ruleset,
    fractions: Sequence[float] = (0.125, 0.25, 0.5, 1.0),
    seed: int = 0,
    **params: Any,
) -> list[tuple[int, float, float]]:
    """``(training hands, held-out mean score, SE)`` for models fitted on growing subsets of
    whole deals of ``train``."""
    deals = np.unique(train.deal)
    order = np.random.default_rng(seed).permutation(deals)
    points = []
    for frac in fractions:
        chosen = order[: max(2, round(frac * len(deals)))]
        sub = train.take(np.isin(train.deal, chosen))
        model = fit_model(sub, **params)
        calls = best_calls(model.predict_proba(encode_hands(test.masks, test.seats)), rules).call
        row = score_row("model", calls, test.playout, rules)
        points.append((len(sub), row.mean_score, row.se))
    return points


# ---------------------------------------------------------------------------------------------
# One hand (the ``evaluate`` command)
# ---------------------------------------------------------------------------------------------


def parse_hand_line(line: str) -> tuple[Hand, int]:
    """``"<hand> [seat]"`` -> (hand, seat): a trailing whole number after any whitespace (a
    space or a tab) is the seat (default 0)."""
    text = line.strip()
    if not text:
        raise HandError("empty line: expected a hand, optionally followed by a seat")
    parts = text.rsplit(None, 1)
    seat = 0
    if len(parts) == 2 and re.fullmatch(r"[+-]?\d+", parts[1]):  # \d: the digits int() reads
        text, seat = parts[0], check_seat(int(parts[1]))
    hand = Hand.parse(text)
    if len(hand) != 13:
        raise HandError(f"a hand has 13 cards, got {len(hand)} in {text!r}")
    return hand, seat


def recommend_lines(
    lines: Sequence[str], rules: Ruleset, model: BidModel | None = None
) -> list[tuple[int, Recommendation | str]]:
    """For each non-blank line (numbered from 1): its :class:`Recommendation`, or the error
    message of a malformed line. Valid hands are predicted in one batch."""
    order: list[int] = []
    errors: dict[int, str] = {}
    good: list[tuple[int, Hand, int]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        order.append(number)
        try:
            good.append((number, *parse_hand_line(line)))
        except CallbreakLabError as exc:
            errors[number] = str(exc)
    results: dict[int, Recommendation | str] = dict(errors)
    if good:
        bid_model = model if model is not None else load_model(rules)
        masks = np.array([h.mask for _, h, _ in good], dtype=np.uint64)
        seats = np.array([s for _, _, s in good], dtype=np.int64)
        x = encode_hands(masks, seats)
        batch = best_calls(bid_model.predict_proba(x), rules)
        floor = bid_model.predict_floor_proba(x)
        for i, (number, hand, seat) in enumerate(good):
            results[number] = Recommendation(hand, seat, rules, batch[i], floor[i])
    return [(number, results[number]) for number in order]


def format_recommendation(rec: Recommendation, mc: Any = None) -> str:
    """Human-readable advice: the call, the distributions and every call's expected score
    (points) and make probability; ``mc`` (an ``analysis.montecarlo.MonteCarloResult``) adds
    its columns."""
    adv = rec.advice
    out = [
        f"hand {rec.hand}  seat {rec.seat}  rules {rec.rules.name}",
        f"suggested call: {rec.call}  (expected {adv.expected_score / 10:+.2f}, "
        f"made {adv.make_probability:.0%})",
    ]
    if rec.earlier_calls is not None:
        shown = ", ".join(map(str, rec.earlier_calls)) or "none"
        how = "the model used them" if rec.calls_used else "this model does not use them"
        out.append(f"earlier calls: {shown} ({how})")
    if mc is not None:
        out.append(f"monte carlo ({mc.n} layouts) call: {mc.best_call}")
    mc_head = "  monte carlo" if mc is not None else ""
    out += ["", f"tricks  play-out    floor{mc_head}"]
    for t in range(TRICK_COUNTS):
        cells = [rec.distribution[t], rec.floor[t]] + ([mc.playout_dist[t]] if mc else [])
        if max(cells) >= 0.0005:
            out.append(f"{t:>6}" + "".join(f"{c:>9.1%}" for c in cells))
    out += ["", "call  expected  P(made)" + ("  mc expected" if mc is not None else "")]
    for i, (c, e, p) in enumerate(rec.advice.table()):
        mark = " *" if c == rec.call else ""
        extra = f"  {mc.expected[i] / 10:>+11.2f}" if mc is not None else ""
        out.append(f"{c:>4}  {e / 10:>+8.2f}  {p:>7.1%}{extra}{mark}")
    return "\n".join(out)


def line_record(rec: Recommendation) -> dict[str, Any]:
    """The JSON object of one ``--file`` line."""
    return {
        "hand": str(rec.hand),
        "seat": rec.seat,
        "call": rec.call,
        "expected": {str(c): round(v, 4) for c, v in rec.expected.items()},
        "distribution": [round(float(p), 6) for p in rec.distribution],
    }


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvaluationReport:
    """Everything :func:`evaluate_model` measured (scores in points)."""

    profile: str
    rules: str
    test_hands: int
    playout_table: list[ScoreRow]
    floor_table: list[ScoreRow]
    log_loss: dict[str, float]
    #: model minus each baseline on the same hands (play-out outcome): (mean, SE by deal)
    model_gaps: dict[str, tuple[float, float]] = field(default_factory=dict)
    mc_table: list[ScoreRow] = field(default_factory=list)
    mc_gap: dict[str, float] = field(default_factory=dict)
    learning: list[tuple[int, float, float]] = field(default_factory=list)
    conditioning: list[ScoreRow] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)

    def format(self) -> str:
        """The tables as plain text."""
        out = [f"profile {self.profile}, rules {self.rules}, {self.test_hands} held-out hands"]
        out += ["", "Outcome = play-out tricks", *_table(self.playout_table)]
        out += [
            f"  model - {name}: {m:+.3f} ± {se:.3f} (paired, SE clustered by deal)"
            for name, (m, se) in self.model_gaps.items()
        ]
        out += ["", "Outcome = guaranteed tricks (floor)", *_table(self.floor_table)]
        if self.mc_table:
            out += [
                "",
                f"Monte Carlo subsample ({self.mc_table[0].n} hands)",
                *_table(self.mc_table),
            ]
            gap = self.mc_gap
            out.append(
                f"model - monte_carlo: {gap['model_minus_mc']:+.3f} ± {gap['se']:.3f} (paired SE)"
            )
        if self.conditioning:
            out += ["", "Conditioning on earlier seats' calls", *_table(self.conditioning)]
        out += ["", "log loss: " + ", ".join(f"{k} {v:.4f}" for k, v in self.log_loss.items())]
        if self.learning:
            out += ["", "learning curve (training hands: held-out mean score)"]
            out += [f"  {n:>7}: {m:.3f} ± {se:.3f}" for n, m, se in self.learning]
        out += [f"{k}: {v}" for k, v in self.files.items()]
        return "\n".join(out)


def _table(rows: Sequence[ScoreRow]) -> list[str]:
    head = f"  {'caller':<22} {'hands':>6} {'score':>7} {'± se':>6} {'made':>6} {'call':>5}"
    return [head] + [
        f"  {r.name:<22} {r.n:>6} {r.mean_score:>7.3f} {r.se:>6.3f} "
        f"{r.made_rate:>6.1%} {r.mean_call:>5.2f}"
        for r in rows
    ]


def caller_table(
    test: HandSet, rules: Ruleset, model: BidModel, outcome: np.ndarray
) -> list[ScoreRow]:
    """Model, baselines and clairvoyant scored against ``outcome`` on ``test``."""
    model_calls = best_calls(model.predict_proba(encode_hands(test.masks, test.seats)), rules).call
    rows = [score_row("model", model_calls, outcome, rules)]
    for name in BASELINES:
        rows.append(
            score_row(name, baseline_calls(name, test.masks, test.seats, rules), outcome, rules)
        )
    rows.append(score_row("clairvoyant", clairvoyant_calls(test.playout, rules), outcome, rules))
    return rows


def model_gaps(test: HandSet, rules: Ruleset, model: BidModel) -> dict[str, tuple[float, float]]:
    """The model's score minus each baseline's on the same hands (play-out outcome)."""
    model_calls = best_calls(model.predict_proba(encode_hands(test.masks, test.seats)), rules).call
    mine = call_scores(model_calls, test.playout, rules) / 10.0
    out = {}
    for name in BASELINES:
        theirs = call_scores(
            baseline_calls(name, test.masks, test.seats, rules), test.playout, rules
        )
        out[name] = paired_gap(mine, theirs / 10.0, test.deal)
    return out


def conditioning_rows(model: BidModel, test: HandSet, rules: Ruleset) -> list[ScoreRow]:
    """Held-out score without and with the calls of earlier seats (the first head's calls for
    the other hands of each deal), when ``model`` has a conditioned head."""
    if getattr(model, "conditioned_", None) is None:
        return []
    from callbreak_lab.bidding.estimator import deal_calls

    base = model.predict_proba(encode_hands(test.masks, test.seats))
    table = deal_calls(base, test.deal, test.seats, model.call_rules_)
    cond = model.predict_proba(encode_hands(test.masks, test.seats, earlier_calls=table))
    return [
        score_row("unconditioned", best_calls(base, rules).call, test.playout, rules),
        score_row("conditioned", best_calls(cond, rules).call, test.playout, rules),
    ]


def evaluate_model(  # noqa: PLR0913  (the public keyword API: model, folders, Monte Carlo and curve)
    rules: str | Ruleset,
    data_dir: str | Path,
    *,
    model: BidModel | None = None,
    models_dir: str | Path | None = None,
    out_dir: str | Path | None = None,
    mc_hands: int = 0,
    mc_layouts: int = 200,
    mc_distribution: McDistribution | None = None,
    learning_fractions: Sequence[float] | None = (0.125, 0.25, 0.5, 1.0),
    seed: int = 0,
    log: Callable[[str], None] | None = None,
    progress: Progress | None = None,
) -> EvaluationReport:
    """Evaluate the model of ``rules``' profile on the held-out split under ``rules``.

    ``model`` defaults to the shipped one (``models_dir``). PNGs and ``evaluation-<rules>.json``
    go to ``out_dir`` when given. ``mc_hands`` > 0 adds the Monte Carlo table on that many
    held-out hands, each hand's distribution from ``mc_distribution(mask, seat, rules, layouts,
    seed)`` (``analysis.montecarlo.mc_distribution``: the analysis layer sits above the bid
    model, so its caller passes it in); ``learning_fractions=None`` skips the learning curve
    (which refits models on subsets of the training split with the model's parameters).
    ``log(message)`` hears each step as it starts; ``progress(done, total)`` is called after
    each Monte Carlo hand (the long part).
    """
    from callbreak_lab.bidding import datasets as data_mod

    say = log or (lambda _msg: None)
    ruleset = Ruleset.coerce(rules)
    for what, path in (("data_dir", data_dir), ("models_dir", models_dir), ("out_dir", out_dir)):
        if path is not None and not str(path).strip():  # Path("") is the working directory
            raise ModelError(f"{what} is empty (give a directory)")
    if out_dir is not None:  # before the work: a bad out_dir fails now, not after it
        try:
            Path(out_dir).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ModelError(f"cannot create the output directory {out_dir}: {e}") from None
    profile = data_mod.profile_of(ruleset)
    bid_model = model if model is not None else load_model(ruleset, models_dir)
    test = flatten(data_mod.load(profile, data_dir, split="test"))
    if len(test) == 0:
        raise ModelError(f"the test split of {profile} in {data_dir} is empty")
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    proba = bid_model.predict_proba(encode_hands(test.masks, test.seats))
    floor = bid_model.predict_floor_proba(encode_hands(test.masks, test.seats))
    report = EvaluationReport(
        profile=profile,
        rules=ruleset.name,
        test_hands=len(test),
        playout_table=caller_table(test, ruleset, bid_model, test.playout),
        floor_table=caller_table(test, ruleset, bid_model, test.dd),
        log_loss={"playout": log_loss(proba, test.playout), "floor": log_loss(floor, test.dd)},
        conditioning=conditioning_rows(bid_model, test, ruleset),
        model_gaps=model_gaps(test, ruleset, bid_model),
    )
    seconds["tables"] = time.perf_counter() - t0
    if mc_hands > 0:
        if mc_distribution is None:
            raise ModelError(
                "mc_hands needs mc_distribution (e.g. analysis.montecarlo.mc_distribution)"
            )
        say(f"monte carlo: {mc_hands} hands x {mc_layouts} layouts")
        t0 = time.perf_counter()
        mc_table, mc_gap = _mc_comparison(
            test, ruleset, bid_model, mc_hands, mc_layouts, seed, mc_distribution, progress
        )
        report = replace(report, mc_table=mc_table, mc_gap=mc_gap)
        seconds["monte_carlo"] = time.perf_counter() - t0
    if learning_fractions:
        say("learning curve")
        t0 = time.perf_counter()
        train = flatten(data_mod.load(profile, data_dir, split="train"))
        learning = learning_curve(
            train, test, ruleset, learning_fractions, seed, **bid_model.get_params()
        )
        report = replace(report, learning=learning)
        seconds["learning_curve"] = time.perf_counter() - t0
    report = replace(report, seconds=seconds)
    if out_dir is not None:
        _write_report(report, proba, test.playout, ruleset, Path(out_dir))
    return report


def _mc_comparison(
    test: HandSet,
    ruleset: Ruleset,
    bid_model: BidModel,
    hands: int,
    layouts: int,
    seed: int,
    mc_distribution: McDistribution,
    progress: Progress | None = None,
) -> tuple[list[ScoreRow], dict[str, float]]:
    """``evaluate_model``'s Monte Carlo table on ``hands`` held-out hands (the reference's row
    second) and the model's paired gap to the reference."""
    rows = np.random.default_rng(seed).choice(len(test), min(hands, len(test)), replace=False)
    sub = test.take(np.sort(rows))
    found = []
    for i, (m, s) in enumerate(zip(sub.masks, sub.seats, strict=True)):
        found.append(mc_distribution(int(m), int(s), ruleset, layouts, seed + i))
        if progress is not None:
            progress(i + 1, len(sub))
    dists = np.array(found)
    table = caller_table(sub, ruleset, bid_model, sub.playout)
    mc_calls = best_calls(dists, ruleset).call
    table.insert(1, score_row("monte_carlo", mc_calls, sub.playout, ruleset))
    sub_proba = bid_model.predict_proba(encode_hands(sub.masks, sub.seats))
    model_calls = best_calls(sub_proba, ruleset).call
    gap, gap_se = paired_gap(
        call_scores(model_calls, sub.playout, ruleset) / 10.0,
        call_scores(mc_calls, sub.playout, ruleset) / 10.0,
        sub.deal,
    )
    return table, {
        "model_minus_mc": gap,
        "se": gap_se,
        "mc_log_loss": log_loss(np.clip(dists, 1e-15, 1), sub.playout),
        "model_log_loss": log_loss(sub_proba, sub.playout),
    }


def _write_report(
    report: EvaluationReport, proba: np.ndarray, playout: np.ndarray, ruleset: Ruleset, out: Path
) -> None:
    """The plots and ``evaluation-<rules>.json`` of ``report`` into ``out`` (their paths go
    into ``report.files``)."""
    profile = report.profile
    tag = ruleset.name.replace("+", "_")
    report.files["calibration_png"] = str(
        plot_calibration(
            proba, playout, out / f"calibration-{tag}.png",
            title=f"{profile}: reliability of P(play-out tricks ≥ c)",
        )
    )  # fmt: skip
    if report.learning:
        report.files["learning_curve_png"] = str(
            plot_learning_curve(
                report.learning, out / f"learning-curve-{tag}.png",
                title=f"{profile} under {ruleset.name}: held-out score vs training size",
            )
        )  # fmt: skip
    json_path = out / f"evaluation-{tag}.json"
    record = report.to_dict()
    # the plots sit beside the JSON: name them relative to it, so the record stays true
    # wherever the folder is copied
    record["files"] = {k: Path(v).name for k, v in report.files.items()}
    with atomic_open(json_path) as f:
        f.write((json.dumps(record, indent=2) + "\n").encode())
    report.files["json"] = str(json_path)
