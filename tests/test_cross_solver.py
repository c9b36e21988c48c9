"""Cross-check ``callbreak_lab.solver`` against the brute-force reference (tests/reference).

Endings are the last 2..4 tricks of random full deals, reached by random LEGAL play (reference
``legal``) and rebuilt with ``Position.replay``, at trick boundaries and mid-trick, for every
preset profile and every combination of the legal-card switches (must_beat x void_rule x ban).
For each ending: ``solve`` for all four seats and ``dd_table`` equal the reference dd values,
``card_values`` equals the reference's, and the ``playout`` (cards and tricks) equals the
reference play-out. Fixed seeds; a failure prints code that rebuilds the position.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference import minimax as ref
from reference.endings import DealEnding, random_deal_ending

from callbreak_lab import solver
from callbreak_lab.cards import Deal
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset

pytestmark = pytest.mark.slow  # solves against the reference minimax: about 30 s

#: Endings per profile (9 profiles).
ENDINGS_PER_PROFILE = 220


def _profiles() -> list[Ruleset]:
    """The five presets by name, then the switch combinations no preset has."""
    presets = [Ruleset.preset(n) for n in ("modern", "strict", "online", "home", "pagat")]
    seen = {(r.must_beat, r.void_rule, r.first_trick_spade_ban) for r in presets}
    extra = [
        Ruleset.preset("modern").replace(must_beat=mb, void_rule=vr, first_trick_spade_ban=ban)
        for mb in (True, False)
        for vr in ("strict", "win_only")
        for ban in (False, True)
        if (mb, vr, ban) not in seen
    ]
    return presets + extra


PROFILES = _profiles()


def _switches(rules: Ruleset) -> tuple[bool, str, bool]:
    return rules.must_beat, rules.void_rule, rules.first_trick_spade_ban


def paste(de: DealEnding, rules: Ruleset) -> str:
    """Code that rebuilds the failing position (and the reference ending)."""
    return (
        f"\n  rules = Ruleset.preset({rules.name!r})"
        f"  # must_beat={rules.must_beat} void_rule={rules.void_rule!r} "
        f"ban={rules.first_trick_spade_ban}"
        f"\n  pos = Position.replay(Deal.parse({de.deal_text()!r}), {de.record_text()!r}, rules)"
        f"\n  reference ending: {de.ending!r}"
    )


def build_position(de: DealEnding, rules: Ruleset) -> Position:
    """``Position.replay`` of the ending's record; checks it lands on the reference position."""
    deal = Deal([sorted(h) for h in de.deal])
    pos = Position.replay(deal, list(de.record), rules)
    e = de.ending
    where = paste(de, rules)
    assert [frozenset(int(c) for c in pos.hand(s)) for s in range(4)] == list(e.hands), where
    assert [int(c) for c in pos.trick] == list(e.trick), where
    assert (pos.leader, pos.to_move) == (e.leader, e.to_move), where
    assert pos.is_first_trick == e.first_trick, where
    return pos


def _playout_remaining(result: object, pos: Position) -> tuple[int, ...]:
    """Play-out trick counts of the remaining tricks (the trick in progress included)."""
    tricks = tuple(int(t) for t in result.tricks)  # type: ignore[attr-defined]
    if sum(tricks) == 13:  # counted over the whole deal: remove the tricks already won
        tricks = tuple(t - int(w) for t, w in zip(tricks, pos.tricks_won, strict=True))
    return tricks


@pytest.mark.parametrize("rules", PROFILES, ids=lambda r: r.name)
def test_solver_matches_reference(rules: Ruleset) -> None:
    switches = _switches(rules)
    rng = random.Random(f"cross-solver-{switches}")
    mid_trick = boundary = 0
    for _ in range(ENDINGS_PER_PROFILE):
        de = random_deal_ending(rng, *switches)
        e = de.ending
        pos = build_position(de, rules)
        where = paste(de, rules)
        if e.trick:
            mid_trick += 1
        else:
            boundary += 1

        expected = [e.dd_value(seat, *switches) for seat in range(4)]
        got = [int(solver.solve(pos, seat, rules)) for seat in range(4)]
        assert got == expected, f"solve per seat: solver {got}, reference {expected}{where}"
        table = [int(v) for v in solver.dd_table(pos, rules)]
        assert table == expected, f"dd_table: solver {table}, reference {expected}{where}"

        ref_values = e.card_values(*switches)
        values = {int(c): int(v) for c, v in solver.card_values(pos, e.to_move, rules).items()}
        assert values == ref_values, (
            f"card_values for seat {e.to_move}: solver "
            f"{ {ref.card_text(c): v for c, v in sorted(values.items())} }, reference "
            f"{ {ref.card_text(c): v for c, v in sorted(ref_values.items())} }{where}"
        )

        ref_cards, ref_tricks = e.playout(*switches)
        result = solver.playout(pos, rules)
        cards = [int(c) for c in result.cards]
        tricks = _playout_remaining(result, pos)
        assert (tricks, cards) == (ref_tricks, ref_cards), (
            f"playout: solver {tricks} {[ref.card_text(c) for c in cards]}, reference "
            f"{ref_tricks} {[ref.card_text(c) for c in ref_cards]}{where}"
        )
    assert mid_trick > ENDINGS_PER_PROFILE // 4 and boundary > ENDINGS_PER_PROFILE // 5
