"""The model commands of ``callbreak-lab``: ``generate`` (solved-deal datasets), ``evaluate`` (the
suggested call for a hand) and ``evaluate-model`` (the held-out report)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import TYPE_CHECKING, NoReturn

from callbreak_lab.cli.base import (
    PROG,
    Output,
    Parser,
    Subparsers,
    UsageError,
    add_layouts,
    hidden_alias,
    parse_ints,
    progress_of,
    rules_of,
)
from callbreak_lab.util.fileio import read_lines

if TYPE_CHECKING:
    from callbreak_lab.bidding.match import MatchCall
    from callbreak_lab.bidding.model import Recommendation
    from callbreak_lab.rules import Ruleset

__all__ = ["add_evaluate", "add_evaluate_model", "add_generate"]


# --- generate -------------------------------------------------------------------------------------


def add_generate(sub: Subparsers, common: Parser) -> None:
    from callbreak_lab.bidding.datasets import DEFAULT_CHUNK

    p = sub.add_parser(
        "generate",
        parents=[common],
        help="solve seeded random deals into a dataset (resumable)",
        description="Solve --deals seeded deals of a legal-card profile (modern, strict, online, "
        "home_pagat; preset names map to their profile) into <out>/<profile>/: every seat's "
        "guaranteed and play-out tricks. Rerunning resumes; --dask runs on a Dask cluster.",
    )
    p.add_argument("--profile", required=True, help="profile or preset name, e.g. modern, home")
    p.add_argument("--deals", type=int, default=None, help="number of deals (required)")
    hidden_alias(p, "--n", "deals", type=int)
    p.add_argument("--seed", type=int, default=0, help="dataset seed (default 0)")
    p.add_argument("--n-jobs", type=int, default=1, help="local worker processes (-1: all cores)")
    hidden_alias(p, "--jobs", "n_jobs", type=int)
    p.add_argument("--dask", metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://h:8786")
    p.add_argument(
        "--out",
        default="datasets",
        help="directory of the datasets (default ./datasets; the shipped ones are in the "
        "repository's data/)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="rewrite an existing dataset with fewer deals, another chunk size or solver version",
    )
    p.add_argument(
        "--chunk-size",
        type=int,
        default=DEFAULT_CHUNK,
        help=f"deals per chunk file ({DEFAULT_CHUNK})",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    hidden_alias(p, "--no-progress", "quiet", action="store_true")
    p.set_defaults(run=cmd_generate)


def cmd_generate(args: argparse.Namespace) -> Output:
    """Generate (or resume) a solved-deal dataset."""
    from callbreak_lab.bidding.datasets import generate, profile_of

    if args.deals is None:
        raise UsageError("generate: give --deals N (the number of deals)")
    if getattr(args, "rules", None) is not None:  # --profile decides: refuse another profile
        by_rules, by_profile = profile_of(rules_of(args)), profile_of(args.profile)
        if by_rules != by_profile:
            raise UsageError(
                f"generate: --rules {args.rules} is the {by_rules} profile but --profile "
                f"{args.profile} is {by_profile}; the dataset's rules come from --profile"
            )
    with progress_of(args, f"generate {args.profile}") as progress:
        report = generate(
            args.profile,
            args.deals,
            seed=args.seed,
            out_dir=args.out,
            chunk_size=args.chunk_size,
            n_jobs=args.n_jobs,
            backend="loky" if args.dask is None else "dask",  # --dask "" is an error, not loky
            address=args.dask,
            progress=progress,
            force=args.force,
        )
    card = report.card
    text = (
        f"{card['count']} {card['profile']} deals in {report.directory}: {report.solved} chunks "
        f"solved, {report.reused} reused, {len(report.replaced)} replaced; "
        f"{card['content_hash']}"
    )
    return Output(text, report.to_dict())


# --- evaluate / evaluate-model --------------------------------------------------------------------


def add_evaluate(sub: Subparsers, common: Parser) -> None:
    p = sub.add_parser(
        "evaluate",
        parents=[common],
        help="suggested call for a hand (bid model): distribution and expected score per call",
        description="The call with the best expected score for HAND in --seat under --rules, "
        "from the shipped bid model of the ruleset's profile: the distribution of play-out "
        "tricks, the floor (guaranteed tricks) and each call's expected score. --file reads "
        "one hand per line, optionally followed by a space or tab and the seat (default 0); with "
        "--json it prints one JSON object per line in input order. A malformed line is "
        "reported with its number, the others are still evaluated, and the exit code is 2.",
    )
    p.add_argument("hand", nargs="?", help="a 13-card hand, e.g. 'AKQ2.T98.765.432'")
    p.add_argument("--seat", type=int, default=None, help="the hand's seat 0..3 (default 0)")
    p.add_argument("--file", help="a file with one hand per line ('-' for stdin)")
    p.add_argument(
        "--earlier-calls",
        default=None,
        metavar="CALLS",
        help="the calls seats 0..seat-1 already made, e.g. '3,4' (the seat defaults to their "
        "number); a call-conditioned model (strict's) uses them",
    )
    p.add_argument(
        "--totals",
        default=None,
        metavar="POINTS",
        help="the match totals in points before this deal, seats 0..3 of this deal, e.g. "
        "'0,0,31,-12': adds the call that gives the best chance of winning the match (with "
        "--deal-of-match)",
    )
    p.add_argument(
        "--deal-of-match",
        type=int,
        default=None,
        metavar="K",
        help="which deal of the match this is, 1..5 (with --totals; 1 alone: the first deal)",
    )
    add_layouts(p, 0, "also solve N random layouts of the other hands (Monte Carlo)")
    hidden_alias(p, "--monte-carlo", "layouts", type=int)
    p.add_argument(
        "--n-jobs",
        type=int,
        default=1,
        help="worker processes for --layouts (-1: all cores; what a layout costs: "
        'benchmarks/RESULTS.md, "Service")',
    )
    hidden_alias(p, "--jobs", "n_jobs", type=int)
    p.add_argument("--quiet", action="store_true", help="no progress bar (--layouts)")
    p.add_argument(
        "--explain",
        action="store_true",
        help="why this call: each card's chance of taking a trick in the play-out, each suit's "
        "expected tricks (spades: top tricks and ruffs) and where the counting rules of thumb "
        "are wrong for the hand (with --json: the answer's 'explain')",
    )
    p.set_defaults(run=cmd_evaluate)


def _earlier_calls(text: str | None) -> list[int] | None:
    """``--earlier-calls`` text ('3,4' or '3 4'; '' for none) as numbers."""
    return None if text is None else parse_ints(text, "evaluate: --earlier-calls")


def _match(args: argparse.Namespace, rec: Recommendation) -> MatchCall:
    """The match-aware call of ``--totals`` (points) and ``--deal-of-match``."""
    from callbreak_lab.bidding.match import match_call_for
    from callbreak_lab.rules import totals_of_points

    totals = None if args.totals is None else totals_of_points(args.totals, "evaluate: --totals")
    return match_call_for(
        rec.distribution,
        rec.seat,
        rec.rules,
        totals=totals,
        deal_of_match=args.deal_of_match,
        earlier_calls=rec.earlier_calls,
    )


def cmd_evaluate(args: argparse.Namespace) -> Output:
    """Bid-model advice for one hand, or for every line of --file."""
    rules = rules_of(args)
    if (args.hand is None) == (args.file is None):
        raise UsageError("evaluate: give a hand or --file (one of them)")
    earlier = _earlier_calls(args.earlier_calls)
    if args.file is None:
        return _evaluate_hand(args, rules, earlier)
    return _evaluate_file(args, rules, earlier)


def _evaluate_hand(args: argparse.Namespace, rules: Ruleset, earlier: list[int] | None) -> Output:
    """``evaluate`` of one hand: the call, and the Monte Carlo and the match when asked."""
    from callbreak_lab.bidding import evaluation as ev
    from callbreak_lab.bidding.model import recommend_call

    seat = args.seat if args.seat is not None else 0 if earlier is None else len(earlier)
    rec = recommend_call(args.hand, seat, rules, earlier_calls=earlier)
    mc = None
    if args.layouts:
        from callbreak_lab.analysis.montecarlo import monte_carlo

        with progress_of(args, "monte carlo") as progress:
            mc = monte_carlo(
                rec.hand,
                rec.seat,
                rules,
                layouts=args.layouts,
                seed=0,
                n_jobs=args.n_jobs,
                progress=progress,
            )
    data = rec.to_dict()
    if mc is not None:
        data["monte_carlo"] = {
            "layouts": mc.n,
            "call": mc.best_call,
            "expected": {str(c): e / 10 for c, e in zip(mc.calls, mc.expected, strict=True)},
            "distribution": mc.playout_dist.tolist(),
        }
    text = ev.format_recommendation(rec, mc)
    call = None
    if args.totals is not None or args.deal_of_match is not None:
        match = _match(args, rec)
        data["match"] = match.to_dict()
        text += "\n\nfor the match: " + match.text()
        call = match.call
    if args.explain:
        from callbreak_lab.bidding.explain import explain_call

        why = explain_call(rec.hand, rec.seat, rules, earlier_calls=earlier, call=call)
        data["explain"] = why.to_dict()
        text += "\n\n" + why.text()
    return Output(text, data)


def _evaluate_file(args: argparse.Namespace, rules: Ruleset, earlier: list[int] | None) -> NoReturn:
    """``evaluate --file``: a call per line, printed line by line; exits 2 if a line failed."""
    from callbreak_lab.bidding import evaluation as ev

    if args.totals is not None or args.deal_of_match is not None:
        raise UsageError("evaluate: --totals and --deal-of-match work with one hand, not --file")
    if args.layouts:
        raise UsageError("evaluate: --layouts works with one hand, not with --file")
    if args.explain:
        raise UsageError("evaluate: --explain works with one hand, not with --file")
    if earlier is not None:
        raise UsageError("evaluate: --earlier-calls works with one hand, not with --file")
    if args.seat is not None:  # it was ignored: every line without a seat was seat 0
        raise UsageError(
            "evaluate: --seat works with one hand; in --file put the seat after the hand"
        )
    lines = read_lines(args.file)
    bad = 0
    for number, result in ev.recommend_lines(lines, rules):
        if isinstance(result, str):
            bad += 1
            print(f"{PROG}: error: line {number}: {result}", file=sys.stderr)
        elif args.json:
            print(json.dumps(ev.line_record(result)))
        else:
            best = result.expected[result.call]
            print(f"{result.hand} seat {result.seat}: call {result.call} ({best:+.2f})")
    raise SystemExit(2 if bad else 0)  # output already printed line by line


def add_evaluate_model(sub: Subparsers, common: Parser) -> None:
    p = sub.add_parser(
        "evaluate-model",
        parents=[common],
        help="held-out evaluation of the bid model against baselines and Monte Carlo",
        description="Score the bid model of --rules' profile on the held-out split: mean score "
        "per hand (play-out and guaranteed tricks as the outcome), made rate and mean call for "
        "the model, each baseline, the clairvoyant caller and (--mc-hands) the Monte Carlo "
        "reference; log loss; calibration and learning-curve PNGs in --out.",
    )
    p.add_argument("--mc-hands", type=int, default=0, help="Monte Carlo on N held-out hands")
    p.add_argument("--mc-layouts", type=int, default=200, help="layouts per hand (default 200)")
    p.add_argument("--out", default=None, help="directory for the PNGs and the JSON report")
    p.add_argument("--data", default="data", help="dataset directory (default data)")
    p.add_argument("--models", default=None, help="model directory (default: shipped models)")
    p.add_argument("--no-learning-curve", action="store_true", help="skip the learning curve")
    p.add_argument("--quiet", action="store_true", help="no progress bar (--mc-hands)")
    p.set_defaults(run=cmd_evaluate_model)


def cmd_evaluate_model(args: argparse.Namespace) -> Output:
    """Held-out evaluation tables of a shipped model."""
    from callbreak_lab.analysis.montecarlo import mc_distribution
    from callbreak_lab.bidding.evaluation import evaluate_model

    if args.mc_hands < 0 or args.mc_layouts < 1:
        raise UsageError("--mc-hands must be >= 0 and --mc-layouts >= 1")
    for flag, value in (("--data", args.data), ("--models", args.models), ("--out", args.out)):
        if value is not None and not value.strip():  # "" would be the working directory
            raise UsageError(f"evaluate-model: {flag} is empty (give a directory)")
    bar = progress_of(args, "monte carlo hands") if args.mc_hands else contextlib.nullcontext()
    with bar as progress:
        report = evaluate_model(
            rules_of(args),
            args.data,
            models_dir=args.models,
            out_dir=args.out,
            mc_hands=args.mc_hands,
            mc_layouts=args.mc_layouts,
            mc_distribution=mc_distribution,
            learning_fractions=None if args.no_learning_curve else (0.125, 0.25, 0.5, 1.0),
            progress=progress,
        )
    return Output(report.format(), report.to_dict())


COMMANDS = [add_generate, add_evaluate, add_evaluate_model]
