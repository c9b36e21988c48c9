"""Cross-check ``callbreak_lab.rules`` against the independent reference (tests/reference).

Thousands of random (hand fragment, partial trick, switch combination) cases compare the legal
cards (``Ruleset.legal_cards``, the module ``legal_cards``, ``Ruleset.legal_mask`` and
``legal_cards_with_reasons``) and ``trick_winner`` with the reference. Fixed seeds; a failure
prints a case that can be pasted into ``tests/reference/minimax.py``'s ``legal``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference import minimax as ref
from reference.endings import PRESET_SWITCHES, SWITCHES

from callbreak_lab import rules as cb_rules
from callbreak_lab.rules import Ruleset

CASES_PER_COMBO = 3000


def ruleset_for(must_beat: bool, void_rule: str, ban: bool) -> Ruleset:
    """The foundation ruleset with exactly these legal-card switches."""
    return Ruleset.preset("modern").replace(
        must_beat=must_beat, void_rule=void_rule, first_trick_spade_ban=ban
    )


def _texts(cs: object) -> str:
    return " ".join(ref.card_text(int(c)) for c in cs)  # type: ignore[attr-defined]


def random_case(rng: random.Random) -> tuple[frozenset[int], list[int], bool]:
    """A hand fragment (1..13 cards) and a partial trick (0..3 other cards), from a random
    subset of suits so that following, overtaking and trumping all occur often."""
    suits = rng.sample(range(4), rng.choice([1, 2, 2, 3, 3, 4]))
    if rng.random() < 0.6 and 3 not in suits:
        suits.append(3)
    pool = [s * 13 + r for s in suits for r in range(13)]
    size = rng.choice([1, 2, 3, 4, 5, 6, 8, 13])
    n_trick = rng.randint(0, 3)
    size = min(size, len(pool) - n_trick)
    picked = rng.sample(pool, size + n_trick)
    hand = frozenset(picked[:size])
    trick = picked[size:]
    if rng.random() < 0.3 and len(trick) >= 2:
        # make trick sequences like "A♥ 6♥ 4♠" (a plain lead then trumps) common
        trick[1:] = sorted(trick[1:], key=lambda c: ref.suit(c) != ref.suit(trick[0]))
    return hand, trick, rng.random() < 0.5


def test_presets_match_rules_md() -> None:
    """The five presets carry the legal-card switches of the docs/rules.md table."""
    for name, (must_beat, void_rule, ban) in PRESET_SWITCHES.items():
        rules = Ruleset.preset(name)
        assert (rules.must_beat, rules.void_rule, rules.first_trick_spade_ban) == (
            must_beat,
            void_rule,
            ban,
        ), name
        assert rules.kernel_flags() == (
            int(must_beat),
            0 if void_rule == "strict" else 1,
            int(ban),
        ), name


@pytest.mark.parametrize("switches", SWITCHES, ids=lambda s: f"mb={s[0]}-{s[1]}-ban={s[2]}")
def test_legal_cards_agree(switches: tuple[bool, str, bool]) -> None:
    must_beat, void_rule, ban = switches
    rules = ruleset_for(must_beat, void_rule, ban)
    assert (rules.must_beat, rules.void_rule, rules.first_trick_spade_ban) == switches
    rng = random.Random(f"cross-rules-{switches}")
    for i in range(CASES_PER_COMBO):
        hand, trick, first = random_case(rng)
        expected = ref.legal(hand, trick, must_beat, void_rule, ban, first)
        mask = sum(1 << c for c in hand)
        case = (
            f"case {i}: legal(cards({_texts(sorted(hand))!r}), "
            f"[{', '.join(f'parse_card({ref.card_text(c)!r})' for c in trick)}], "
            f"must_beat={must_beat}, void_rule={void_rule!r}, ban={ban}, first_trick={first})"
        )
        got = frozenset(int(c) for c in rules.legal_cards(sorted(hand), trick, first_trick=first))
        assert got == expected, (
            f"{case}: reference {_texts(sorted(expected))}, "
            f"Ruleset.legal_cards {_texts(sorted(got))}"
        )
        got_fn = cb_rules.legal_cards(sorted(hand), trick, rules, first_trick=first)
        assert frozenset(int(c) for c in got_fn) == expected, f"{case}: module legal_cards"
        got_mask = rules.legal_mask(mask, trick, first_trick=first)
        assert got_mask == sum(1 << c for c in expected), f"{case}: Ruleset.legal_mask"
        reasons = rules.legal_cards_with_reasons(sorted(hand), trick, first_trick=first)
        assert frozenset(int(c) for c in reasons.legal) == expected, f"{case}: with_reasons"


def test_legal_cards_presets_by_name() -> None:
    """Each preset, looked up by name, gives the reference's legal cards for its profile."""
    rng = random.Random("cross-rules-presets")
    for name, switches in PRESET_SWITCHES.items():
        rules = Ruleset.preset(name)
        for _ in range(500):
            hand, trick, first = random_case(rng)
            expected = ref.legal(hand, trick, *switches, first)
            got = frozenset(int(c) for c in rules.legal_cards(sorted(hand), trick, first))
            assert got == expected, (name, _texts(sorted(hand)), _texts(trick), first)


def test_seed_examples_through_foundation() -> None:
    """The docs/rules.md worked examples, through the foundation (reference verified separately)."""
    modern, strict, online = (Ruleset.preset(n) for n in ("modern", "strict", "online"))
    c = ref.parse_card
    assert {int(x) for x in modern.legal_cards([c("3H"), c("KH")], [c("5H"), c("QH")])} == {c("KH")}
    assert {int(x) for x in modern.legal_cards([c("2S"), c("9D")], [c("5C")])} == {c("2S")}
    fragment = [c("2S"), c("KD")]
    trick = [c("AH"), c("6H"), c("4S")]
    assert {int(x) for x in strict.legal_cards(fragment, trick)} == {c("2S")}
    assert {int(x) for x in online.legal_cards(fragment, trick)} == {c("2S"), c("KD")}
    assert cb_rules.trick_winner([*trick, c("2S")]) == 2
    assert {int(x) for x in strict.legal_cards([c("AH"), c("3H")], [c("7H")])} == {c("AH")}


def test_trick_winner_agrees() -> None:
    rng = random.Random("cross-winner")
    for _ in range(5000):
        suits = rng.sample(range(4), rng.randint(1, 4))
        pool = [s * 13 + r for s in suits for r in range(13)]
        trick = rng.sample(pool, min(len(pool), rng.randint(1, 4)))
        assert cb_rules.trick_winner(trick) == ref.winner(trick), _texts(trick)
