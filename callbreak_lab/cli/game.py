"""The core commands of ``callbreak-lab``: ``score``, ``legal``, ``rules`` and ``deal``."""

from __future__ import annotations

import argparse
from typing import Any

from callbreak_lab.cards import Deal, Hand
from callbreak_lab.cli.base import Output, Parser, Subparsers, parse_ints, rules_of
from callbreak_lab.errors import IllegalPlayError, UsageError
from callbreak_lab.rules import PRESETS, format_tenths

# --- score ----------------------------------------------------------------------------------------


def add_score(sub: Subparsers, common: Parser) -> None:
    p = sub.add_parser(
        "score",
        parents=[common],
        help="score calls against tricks won",
        description="Score each seat's call against its tricks (e.g. --calls 3,4,2,3 "
        "--tricks 5,3,2,3 prints 3.2 -4 2 3). With four seats the tricks must sum to 13.",
    )
    p.add_argument("--calls", required=True, help="calls, comma separated")
    p.add_argument("--tricks", required=True, help="tricks won, comma separated, same order")
    p.set_defaults(run=cmd_score)


def cmd_score(args: argparse.Namespace) -> Output:
    """Scores of calls against tricks in the ruleset's scoring."""
    rules = rules_of(args)
    calls = parse_ints(args.calls, "--calls")
    tricks = parse_ints(args.tricks, "--tricks")
    if not calls or len(calls) != len(tricks) or len(calls) > 4:
        raise UsageError(
            f"give 1..4 calls and as many tricks, got {len(calls)} calls and {len(tricks)} tricks"
        )
    if len(tricks) == 4 and sum(tricks) != 13:
        raise IllegalPlayError(f"the tricks of four seats must sum to 13, got {sum(tricks)}")
    scores = [rules.score(c, t) for c, t in zip(calls, tricks, strict=True)]
    texts = [format_tenths(s) for s in scores]
    data = {
        "rules": rules.name,
        "calls": calls,
        "tricks": tricks,
        "scores": texts,
        "scores_tenths": scores,
    }
    return Output(" ".join(texts), data)


# --- legal ----------------------------------------------------------------------------------------


def add_legal(sub: Subparsers, common: Parser) -> None:
    p = sub.add_parser(
        "legal",
        parents=[common],
        help="legal cards for a hand and a trick, and why",
        description="Which cards of --hand may be played to --trick (its cards in play order) "
        "and why. The hand may be a fragment in any notation.",
    )
    p.add_argument("--hand", required=True, help="the hand, e.g. 'AKQ2.T98.765.432' or 'AS 2S KD'")
    p.add_argument("--trick", default="", help="cards already in the trick, e.g. 'AH 6H 4S'")
    p.add_argument(
        "--first-trick", action="store_true", help="this is the deal's first trick (lead only)"
    )
    p.set_defaults(run=cmd_legal)


def cmd_legal(args: argparse.Namespace) -> Output:
    """Legal cards with the reason and why each other card is excluded."""
    rules = rules_of(args)
    hand = Hand.parse(args.hand)
    result = rules.legal_cards_with_reasons(hand, args.trick, args.first_trick)
    trick = [str(c) for c in _trick_cards(args.trick)]
    lines = [
        f"legal: {result.legal.card_list()}",
        f"reason: {result.text} [{result.reason.value}]",
    ]
    lines += [f"not {card}: {why}" for card, why in result.excluded.items()]
    data = {
        "rules": rules.name,
        "hand": str(hand),
        "trick": trick,
        "first_trick": args.first_trick,
        "legal": [str(c) for c in result.legal],
        "reason": result.reason.value,
        "text": result.text,
        "excluded": {str(c): why for c, why in result.excluded.items()},
    }
    return Output("\n".join(lines), data)


def _trick_cards(text: str) -> list[Any]:
    from callbreak_lab.game import parse_record

    return parse_record(text)


# --- rules ----------------------------------------------------------------------------------------


def add_rules(sub: Subparsers, common: Parser) -> None:
    p = sub.add_parser(
        "rules",
        parents=[common],
        help="the ruleset presets table",
        description="Print the five presets, or only the ruleset given with --rules "
        "(variations like pagat+must_beat or modern+exact_or_one are accepted).",
    )
    p.set_defaults(run=cmd_rules)


def cmd_rules(args: argparse.Namespace) -> Output:
    """The presets table (or one ruleset)."""
    given = getattr(args, "rules", None) is not None
    chosen = [rules_of(args)] if given else list(PRESETS.values())
    header = ("name", "direction", "calls", "must_beat", "void_rule", "ban_t1", "scoring", "match")
    rows = [header]
    for r in chosen:
        match = []
        if r.match_deals is not None:
            match.append(f"{r.match_deals} deals")
        if r.target_score is not None:
            match.append(f"to {format_tenths(r.target_score)}")
        rows.append(
            (
                r.name,
                r.direction,
                f"{r.min_call}-{r.max_call}",
                "yes" if r.must_beat else "no",
                r.void_rule,
                "yes" if r.first_trick_spade_ban else "no",
                r.scoring,
                " or ".join(match),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    text = "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
    return Output(text, [r.to_dict() for r in chosen])


# --- deal -----------------------------------------------------------------------------------------


def add_deal(sub: Subparsers, common: Parser) -> None:
    p = sub.add_parser(
        "deal",
        parents=[common],
        help="a random deal (deterministic for --seed)",
        description="Print a uniformly random deal as four dotted hands, seats 0..3.",
    )
    p.add_argument("--seed", type=int, default=None, help="random seed (int)")
    p.set_defaults(run=cmd_deal)


def cmd_deal(args: argparse.Namespace) -> Output:
    """A random deal."""
    deal = Deal.random(args.seed)
    return Output(str(deal), {"deal": str(deal), "hands": [str(h) for h in deal]})


COMMANDS = [add_score, add_legal, add_rules, add_deal]
