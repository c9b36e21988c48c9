"""Rulesets, legal cards (every worked example of docs/rules.md), tricks, scoring."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callbreak_lab import (
    PRESETS,
    CallError,
    Card,
    Hand,
    HandError,
    IllegalPlayError,
    NotationError,
    Reason,
    RulesError,
    Ruleset,
)
from callbreak_lab.rules import (
    DEFAULT_RULES,
    format_tenths,
    legal_cards,
    legal_cards_with_reasons,
    score,
    trick_winner,
)

ALL = list(PRESETS)
MUST_BEAT = ["modern", "strict", "online"]
NO_MUST_BEAT = ["home", "pagat"]
STRICT_VOID = ["modern", "strict"]
WIN_ONLY = ["online", "home", "pagat"]
TENTHS = ["modern", "strict", "online", "pagat"]


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


# --- an independent, literal reading of docs/rules.md ("Legal cards") ----------------------------


def ref_legal(  # noqa: PLR0911  (a literal reading of docs/rules.md, one return per case)
    hand: set[int], trick: Sequence[int], first: bool, must_beat: bool, void_rule: str, ban: bool
) -> set[int]:
    """Plain set version of the docs/rules.md legal-card rules, for property tests."""
    if not trick:
        if ban and first and any(c // 13 != 3 for c in hand):
            return {c for c in hand if c // 13 != 3}
        return set(hand)
    led = trick[0] // 13
    same = {c for c in hand if c // 13 == led}
    spades_in = [c for c in trick if c // 13 == 3]
    if same:
        trumped = led != 3 and bool(spades_in)
        if must_beat and not trumped:
            top = max(c % 13 for c in trick if c // 13 == led)
            higher = {c for c in same if c % 13 > top}
            if higher:
                return higher
        return same
    my_spades = {c for c in hand if c // 13 == 3}
    if void_rule == "strict":
        if not my_spades:
            return set(hand)
        if spades_in:
            return {c for c in my_spades if c > max(spades_in)} or my_spades
        return my_spades
    winning = {c for c in my_spades if not spades_in or c > max(spades_in)}
    return winning or set(hand)


def ref_winner(trick: Sequence[int]) -> int:
    spades = [c for c in trick if c // 13 == 3]
    if spades:
        return list(trick).index(max(spades))
    return list(trick).index(max(c for c in trick if c // 13 == trick[0] // 13))


def ref_score(call: int, t: int, scoring: str) -> float:
    """Scores as the docs/rules.md table states them, in points (not tenths)."""
    if scoring == "tenths":
        return call + 0.1 * (t - call) if t >= call else -call
    if scoring == "flat":
        return call if t >= call else -call
    if scoring == "exact_or_one":
        return call if t in (call, call + 1) else -call
    if t in (call, call + 1):
        return call if call <= 7 else 13
    return -call


# --- presets --------------------------------------------------------------------------------------


def test_presets_match_the_rules_table() -> None:
    assert list(PRESETS) == ["modern", "strict", "online", "home", "pagat"]
    table = {
        # name: direction, min, must_beat, void_rule, ban, scoring
        "modern": ("clockwise", 1, True, "strict", False, "tenths"),
        "strict": ("anticlockwise", 2, True, "strict", True, "tenths"),
        "online": ("anticlockwise", 1, True, "win_only", False, "tenths"),
        "home": ("anticlockwise", 2, False, "win_only", False, "exact_or_one_bonus"),
        "pagat": ("anticlockwise", 1, False, "win_only", False, "tenths"),
    }
    for name, (direction, lo, mb, vr, ban, scoring) in table.items():
        r = Ruleset.preset(name)
        assert r is PRESETS[name] and r.name == name
        assert (r.direction, r.min_call, r.max_call) == (direction, lo, 13)
        assert (r.must_beat, r.void_rule, r.first_trick_spade_ban, r.scoring) == (
            mb,
            vr,
            ban,
            scoring,
        )
        assert (r.match_deals, r.target_score) == (5, None)
        assert r.kernel_flags() == (int(mb), int(vr == "win_only"), int(ban))


def test_preset_errors() -> None:
    with pytest.raises(RulesError, match="unknown ruleset 'bridge' \\(presets: modern, strict"):
        Ruleset.preset("bridge")
    with pytest.raises(RulesError, match="unknown rules variation 'overtake'"):
        Ruleset.preset("pagat+overtake")
    with pytest.raises(RulesError, match="min_call needs an int, got 'two'"):
        Ruleset.preset("modern+min_call=two")
    # two variations setting one switch differently: an error, not the last one silently
    for name, key in [
        ("modern+exact_or_one+flat", "scoring"),
        ("pagat+must_beat+no_must_beat", "must_beat"),
        ("modern+strict+win_only", "void_rule"),
        ("home+min_call=1+min_call=3", "min_call"),
    ]:
        with pytest.raises(RulesError, match=f"both set {key}: keep one"):
            Ruleset.preset(name)
    assert Ruleset.preset("pagat+flat+flat") == Ruleset.preset("pagat+flat")  # same value: fine


def test_variations_seeds_name() -> None:
    assert Ruleset.preset("modern").replace(min_call=2).name == "modern+min_call=2"
    ban = Ruleset.preset("modern").replace(first_trick_spade_ban=True)
    assert ban.name == "modern+first_trick_spade_ban" and ban.kernel_flags() == (1, 0, 1)
    trad = Ruleset.preset("modern").replace(scoring="exact_or_one")
    assert trad.name == "modern+exact_or_one"
    flat = Ruleset.preset("pagat").replace(scoring="flat")
    assert flat.name == "pagat+flat"
    overtake = Ruleset.preset("pagat").replace(must_beat=True)
    assert overtake.name == "pagat+must_beat" and overtake.must_beat
    target = Ruleset.preset("pagat").replace(match_deals=None, target_score=300)
    assert target.name == "pagat+match_deals=none+target_score=300"
    # names parse back to the same ruleset, in any order, and changes back drop the tag
    for r in (ban, trad, flat, overtake, target):
        assert Ruleset.preset(r.name) == r
    assert Ruleset.preset("pagat+target_score=300+match_deals=none") == target
    assert overtake.replace(must_beat=False) == PRESETS["pagat"]
    assert overtake.replace(must_beat=False).name == "pagat"
    assert Ruleset.preset("modern+no_must_beat+win_only").kernel_flags() == (0, 1, 0)
    custom = PRESETS["modern"].replace(name="club")
    assert custom.replace(min_call=2).name == "club+min_call=2"
    with pytest.raises(RulesError, match="unknown ruleset field\\(s\\): colour"):
        PRESETS["modern"].replace(colour="red")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"min_call": 0}, "min_call must be an int 1..13, got 0"),
        ({"max_call": 14}, "max_call must be an int 1..13, got 14"),
        ({"min_call": 5, "max_call": 4}, "min_call 5 is above max_call 4"),
        ({"direction": "left"}, "direction must be clockwise or anticlockwise, got 'left'"),
        ({"must_beat": 1}, "must_beat must be true or false, got 1"),
        ({"void_rule": "lenient"}, "void_rule must be 'strict' or 'win_only', got 'lenient'"),
        ({"scoring": "bags"}, "scoring must be one of tenths, exact_or_one"),
        ({"match_deals": 0}, "match_deals must be a positive int or None, got 0"),
        ({"target_score": -1}, "target_score must be a positive int (tenths) or None"),
        ({"match_deals": None}, "a match needs match_deals or target_score"),
        ({"name": ""}, "name must be a non-empty string"),
        ({"min_call": True}, "min_call must be an int 1..13, got True"),
    ],
)
def test_ruleset_validation(changes: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=re.escape(message)):
        PRESETS["modern"].replace(**changes)


def test_to_dict_from_dict() -> None:
    for r in PRESETS.values():
        d = r.to_dict()
        assert json.loads(json.dumps(d)) == d
        assert Ruleset.from_dict(d) == r
    assert Ruleset.from_dict({"name": "pagat", "must_beat": True}) == PRESETS["pagat"].replace(
        must_beat=True
    )
    assert Ruleset.from_dict({"name": "home+min_call=1"}).min_call == 1
    with pytest.raises(RulesError, match="unknown ruleset key\\(s\\): 'colour' \\(known: name"):
        Ruleset.from_dict({"name": "modern", "colour": 1})
    with pytest.raises(RulesError, match="missing: direction"):
        Ruleset.from_dict({"name": "mine", "min_call": 1})
    with pytest.raises(RulesError, match="must_beat must be true or false, got 'yes'"):
        Ruleset.from_dict({"name": "modern", "must_beat": "yes"})
    assert eval(repr(PRESETS["home"])) == PRESETS["home"]


# --- worked examples ----------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
def test_000_queen_of_hearts_must_beat(preset: str) -> None:
    # hearts led, Q♥ on the table, you hold 3♥ K♥: only K♥ (where must_beat applies)
    r = Ruleset.preset(preset)
    legal = r.legal_cards("3H KH 5C", cards("QH"))
    if preset in MUST_BEAT:
        assert legal == Hand.parse("KH")
        why = r.legal_cards_with_reasons("3H KH 5C", cards("QH"))
        assert why.reason is Reason.MUST_BEAT and why.text == "must beat the Q♥"
        assert why.why("3H") == "must beat the Q♥" and why.why("5C") == "must follow hearts"
    else:
        assert legal == Hand.parse("3H KH")


@pytest.mark.parametrize("preset", ALL)
def test_000_void_in_clubs_must_trump(preset: str) -> None:
    # clubs led, void in clubs, holding 2♠: must play it (strict); under win_only any spade
    # wins a trick with no spade yet, so it is forced there too
    r = Ruleset.preset(preset)
    why = r.legal_cards_with_reasons("2S KH 4D", cards("7C"))
    assert why.legal == Hand.parse("2S")
    assert why.reason is Reason.MUST_TRUMP and why.text == "void in clubs: must trump"
    # someone over-trumps with 9♠: holding J♠ 3♠ you must overtrump with the J♠
    why = r.legal_cards_with_reasons("JS 3S KH", cards("7C 2S 9S"))
    assert why.legal == Hand.parse("JS")
    assert why.reason is Reason.MUST_OVERTRUMP and why.why("3S") == "does not beat the 9♠"


@pytest.mark.parametrize("preset", ALL)
def test_001_losing_spade(preset: str) -> None:
    # A♥ led, 6♥, void third player trumps with 4♠; fourth holds only 2♠ K♦
    r = Ruleset.preset(preset)
    third = r.legal_cards("4S 8D", cards("AH 6H"))
    assert third == Hand.parse("4S")
    why = r.legal_cards_with_reasons("2S KD", cards("AH 6H 4S"))
    if preset in STRICT_VOID:
        assert why.legal == Hand.parse("2S")
        assert why.reason is Reason.LOSING_SPADE
        assert why.text == "cannot overtrump the 4♠: must still play a spade"
    else:
        assert why.legal == Hand.parse("2S KD")
        assert why.reason is Reason.FREE_CHOICE
    assert trick_winner(cards("AH 6H 4S 2S")) == 2
    assert trick_winner(cards("AH 6H 4S KD")) == 2


@pytest.mark.parametrize("preset", ALL)
def test_001_seven_of_hearts_play_ace(preset: str) -> None:
    legal = Ruleset.preset(preset).legal_cards("AH 3H", cards("7H"))
    assert legal == (Hand.parse("AH") if preset in MUST_BEAT else Hand.parse("AH 3H"))


@pytest.mark.parametrize("preset", ALL)
def test_002_trumped_trick_lifts_must_beat_but_not_for_spade_leads(preset: str) -> None:
    r = Ruleset.preset(preset)
    # hearts led and trumped: any heart is legal
    why = r.legal_cards_with_reasons("AH 3H 2S", cards("7H 4S"))
    assert why.legal == Hand.parse("AH 3H") and why.reason is Reason.FOLLOW_SUIT
    assert why.why("2S") == "must follow hearts"
    # spades led: the duty to beat still applies
    legal = r.legal_cards("AS 3S KH", cards("5S 9S"))
    assert legal == (Hand.parse("AS") if preset in MUST_BEAT else Hand.parse("AS 3S"))


@pytest.mark.parametrize("preset", ALL)
def test_004_and_003_void_with_only_lower_spades(preset: str) -> None:
    # "If your only spades are lower than one already played, you can discard any card instead"
    legal = Ruleset.preset(preset).legal_cards("3S 9D", cards("KC QS"))
    assert legal == (Hand.parse("3S") if preset in STRICT_VOID else Hand.parse("3S 9D"))


def test_004_overtaking_variation() -> None:
    pagat = Ruleset.preset("pagat")
    assert pagat.legal_cards("AH 3H", cards("7H")) == Hand.parse("AH 3H")
    assert pagat.replace(must_beat=True).legal_cards("AH 3H", cards("7H")) == Hand.parse("AH")


@pytest.mark.parametrize("preset", ALL)
def test_first_trick_spade_ban(preset: str) -> None:
    r = Ruleset.preset(preset)
    banned = r.first_trick_spade_ban
    why = r.legal_cards_with_reasons("AS 2S 3H", [], first_trick=True)
    assert why.legal == (Hand.parse("3H") if banned else Hand.parse("AS 2S 3H"))
    if banned:
        assert why.reason is Reason.FIRST_TRICK_SPADE_BAN
        assert why.why("AS") == "first trick: no spade lead while holding another suit"
    # only spades: a spade lead is allowed; later tricks: free
    assert r.legal_cards("AS 2S", [], first_trick=True) == Hand.parse("AS 2S")
    assert r.legal_cards("AS 2S 3H", [], first_trick=False) == Hand.parse("AS 2S 3H")
    # the ban restricts only the lead, not following in trick 1
    assert r.legal_cards("AS 3D", cards("4C"), first_trick=True) == Hand.parse("AS")
    assert Ruleset.preset("modern+first_trick_spade_ban").legal_cards(
        "AS 3H", [], first_trick=True
    ) == Hand.parse("3H")


def test_bhoos_request_online() -> None:
    # the recorded bot request: played 1C/0 2C/0 5C/0, holding QC as the only club
    hand = ["1S", "4S", "QH", "JH", "8H", "7H", "QC", "1D", "KD", "JD", "8D", "5D", "2D"]
    trick = [Card.parse(c) for c in ["1C/0", "2C/0", "5C/0"]]
    assert Ruleset.preset("online").legal_cards(hand, trick) == Hand.parse("QC")


def test_reason_texts_for_free_choices() -> None:
    r = Ruleset.preset("modern")
    assert r.legal_cards_with_reasons("KH", []).text == "leading: any card"
    assert r.legal_cards_with_reasons("KH 3D", cards("2C")).text == (
        "void in clubs with no spade: any card"
    )
    assert r.legal_cards_with_reasons("KH", cards("2S")).text == "void in spades: any card"
    assert r.legal_cards_with_reasons("3H", cards("QH")).text == (
        "must follow hearts (cannot beat the Q♥)"
    )
    # every spade held beats the 2♠ on the table: all legal, and the text must not say otherwise
    assert r.legal_cards_with_reasons("KS 5S 2H", cards("2S")).text == (
        "must follow spades (every one beats the 2♠)"
    )
    assert Ruleset.preset("online").legal_cards_with_reasons("2S KD", cards("AH 4S")).text == (
        "void in hearts, cannot overtrump the 4♠: any card"
    )
    with pytest.raises(HandError, match="9C is not in the hand"):
        r.legal_cards_with_reasons("KH", []).why("9C")


@pytest.mark.parametrize(
    ("hand", "trick", "error", "message"),
    [
        ("AS", "2C 3C 4C 5C", NotationError, "a trick in progress has 0..3 cards, got 4"),
        ("AS", "2C 2C", NotationError, "a card appears twice in the trick: 2C 2C"),
        ("AS KS", "KS", NotationError, "card KS is both in the hand and in the trick"),
        ("", "2C", HandError, "the hand is empty"),
        ("AKQJT98765432.A..", "2H", HandError, "a hand holds at most 13 cards, got 14"),
        ("AX", "2C", HandError, "unknown suit 'X' in card 'AX'"),
        ("AS", "2Z", NotationError, "unknown suit 'Z' in card '2Z'"),
        ("AS", "AH | 6H", NotationError, "a trick is its cards in play order, without '|'"),
    ],
)
def test_legal_input_errors(hand: str, trick: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        legal_cards(hand, trick, PRESETS["modern"])


def test_trick_winner_examples_and_errors() -> None:
    assert trick_winner(cards("QH 2H 9H 4H")) == 0
    assert trick_winner(cards("2H AD KH 3C")) == 2
    assert trick_winner(cards("AC 2S 5S KS")) == 3
    assert trick_winner(cards("AS 2S 5S KS")) == 0
    assert trick_winner(["7D"]) == 0
    with pytest.raises(NotationError, match="an empty trick has no winner"):
        trick_winner([])
    with pytest.raises(NotationError, match=re.escape("a trick has 1..4 distinct cards")):
        trick_winner(cards("AS AS"))
    # card text is read as cards (it was read letter by letter: "unknown suit 'A' in card 'A'")
    assert trick_winner("2H AD KH 3C") == 2 and trick_winner("AC, 2S, 5S, KS") == 3
    with pytest.raises(NotationError, match="a trick is card text or a list of cards, got 5"):
        trick_winner(5)  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="a trick is card text or a list of cards, got 5"):
        PRESETS["modern"].legal_cards("AS KD", 5)  # type: ignore[arg-type]


def test_module_legal_cards_take_a_preset_name() -> None:
    """rules as a name was an AttributeError ('str' object has no attribute 'legal_cards')."""
    assert legal_cards("2S KD", "AH 6H 4S", "strict") == Hand.parse("2S")
    assert legal_cards_with_reasons("3H KH", "QH", "pagat+must_beat").legal == Hand.parse("KH")
    for rules in ("bogus", 5):
        with pytest.raises(RulesError):
            legal_cards("AS", "", rules)  # type: ignore[arg-type]
    assert legal_cards("2S KD", "AH 6H 4S", None) == legal_cards("2S KD", "AH 6H 4S", "online")


def test_coerce_takes_a_ruleset_a_name_or_none_with_a_default() -> None:
    modern = PRESETS["modern"]
    assert Ruleset.coerce(modern) is modern
    assert Ruleset.coerce("pagat+must_beat") == Ruleset.preset("pagat+must_beat")
    assert Ruleset.coerce(None, default="home") is PRESETS["home"]
    assert Ruleset.coerce(None, default=modern) is modern
    assert Ruleset.coerce("strict", default=modern) is PRESETS["strict"]
    assert Ruleset.coerce(None) is PRESETS[DEFAULT_RULES] is PRESETS["online"]
    with pytest.raises(RulesError, match="rules must be a Ruleset or a preset name, got 5"):
        Ruleset.coerce(5)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="unknown ruleset 'bridge'"):
        Ruleset.coerce("bridge", default="modern")


def test_score_with_no_ruleset_scores_by_the_default_rules() -> None:
    assert score(3, 5, None) == score(3, 5, "online")  # type: ignore[arg-type]
    assert score(3, 5, None) != score(3, 5, "home")  # type: ignore[arg-type]
    assert score(3, 5, PRESETS["strict"]) == score(3, 5, "strict") == 32


# --- scoring --------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", TENTHS)
def test_seed_scores_tenths(preset: str) -> None:
    r = Ruleset.preset(preset)
    assert r.score(4, 4) == 40  # 000
    assert r.score(4, 6) == 42
    assert r.score(3, 2) == -30
    assert r.score(4, 5) == 41
    assert [r.score(c, t) for c, t in zip([3, 4, 2, 3], [5, 3, 2, 3], strict=True)] == [
        32,
        -40,
        20,
        30,
    ]  # 001
    assert [format_tenths(r.score(c, t)) for c, t in [(3, 5), (4, 3), (2, 2), (3, 3)]] == [
        "3.2",
        "-4",
        "2",
        "3",
    ]
    assert r.score(3, 5) == 32 and r.score(4, 3) == -40  # 002
    assert r.score(5, 3) == -50  # 004


def test_003_home_scoring_tables() -> None:
    home = Ruleset.preset("home")
    assert {t: home.score(3, t) for t in range(14)} == {
        t: (30 if t in (3, 4) else -30) for t in range(14)
    }
    assert {t: home.score(8, t) for t in range(14)} == {
        t: (130 if t in (8, 9) else -80) for t in range(14)
    }
    assert home.score(4, 4) == 40 and home.score(4, 5) == 40 and home.score(4, 6) == -40
    assert home.score(7, 8) == 70 and home.score(13, 13) == 130
    with pytest.raises(CallError, match=re.escape("call 1 is outside home's range 2..13")):
        home.score(1, 1)


def test_variation_scorings() -> None:
    trad = Ruleset.preset("modern+exact_or_one")
    assert [trad.score(4, t) for t in (3, 4, 5, 6)] == [-40, 40, 40, -40]
    assert trad.score(8, 9) == 80  # no bonus outside home
    flat = Ruleset.preset("pagat+flat")
    assert [flat.score(4, t) for t in (3, 4, 5, 13)] == [-40, 40, 40, 40]
    assert score(4, 6, "modern") == 42


@pytest.mark.parametrize(
    ("call", "tricks", "error", "message"),
    [
        (0, 5, CallError, "call 0 is outside modern's range 1..13"),
        (14, 5, CallError, "call 14 is outside modern's range 1..13"),
        (3, 14, IllegalPlayError, "tricks must be 0..13, got 14"),
        (3, -1, IllegalPlayError, "tricks must be 0..13, got -1"),
        (3.0, 3, CallError, "a call is a whole number of tricks (an int), got 3.0"),
        ("3", 3, CallError, "a call is a whole number of tricks (an int), got '3'"),
    ],
)
def test_score_errors(call: int, tricks: int, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        score(call, tricks, PRESETS["modern"])


def test_score_takes_numpy_ints() -> None:
    calls, tricks = np.array([3, 4]), np.array([5, 3])
    got = [score(c, t, "modern") for c, t in zip(calls, tricks, strict=True)]
    assert got == [32, -40] and all(type(x) is int for x in got)
    assert PRESETS["modern"].score(np.int8(3), np.uint8(3)) == 30
    assert format_tenths(np.int64(-5)) == "-0.5"
    PRESETS["home"].check_call(np.int64(2))
    with pytest.raises(CallError, match="call 1 is outside home"):
        PRESETS["home"].check_call(np.int64(1))
    with pytest.raises(IllegalPlayError, match=r"tricks must be 0\.\.13"):
        score(3, np.float64(3.0), "modern")


@given(
    st.integers(min_value=1, max_value=13),
    st.integers(min_value=0, max_value=13),
    st.sampled_from(["tenths", "exact_or_one", "exact_or_one_bonus", "flat"]),
)
def test_scores_match_the_formulas(call: int, tricks: int, scoring: str) -> None:
    r = PRESETS["modern"].replace(scoring=scoring)
    assert r.score(call, tricks) == round(10 * ref_score(call, tricks, scoring))


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (32, "3.2"),
        (-40, "-4"),
        (41, "4.1"),
        (20, "2"),
        (-5, "-0.5"),
        (0, "0"),
        (130, "13"),
        (-133, "-13.3"),
    ],
)
def test_format_tenths(n: int, text: str) -> None:
    assert format_tenths(n) == text


def test_format_tenths_rejects_floats() -> None:
    with pytest.raises(NotationError, match=re.escape("format_tenths needs an int, got 3.2")):
        format_tenths(3.2)  # type: ignore[arg-type]


# --- property: the mask logic equals the literal reading -----------------------------------------


@st.composite
def situations(draw: st.DrawFn) -> tuple[set[int], list[int], bool]:
    deck = draw(st.permutations(range(52)))
    n_trick = draw(st.integers(min_value=0, max_value=3))
    n_hand = draw(st.integers(min_value=1, max_value=13))
    trick = list(deck[:n_trick])
    hand = set(deck[n_trick : n_trick + n_hand])
    return hand, trick, draw(st.booleans())


@settings(max_examples=400)
@given(situations(), st.booleans(), st.sampled_from(["strict", "win_only"]), st.booleans())
def test_legal_cards_equal_reference(
    sit: tuple[set[int], list[int], bool], must_beat: bool, void_rule: str, ban: bool
) -> None:
    hand, trick, first = sit
    r = PRESETS["modern"].replace(
        must_beat=must_beat, void_rule=void_rule, first_trick_spade_ban=ban
    )
    expected = ref_legal(hand, trick, first, must_beat, void_rule, ban)
    got = r.legal_cards(Hand.from_cards(hand), [Card(c) for c in trick], first)
    assert set(got) == expected and expected
    why = r.legal_cards_with_reasons(Hand.from_cards(hand), [Card(c) for c in trick], first)
    assert why.legal == got
    assert set(why.excluded) == hand - expected
    assert all(why.excluded.values())
    if why.reason is Reason.MUST_BEAT:
        assert must_beat
    if why.reason is Reason.LOSING_SPADE:
        assert void_rule == "strict"
    if why.reason is Reason.FIRST_TRICK_SPADE_BAN:
        assert ban and first and not trick


def test_reference_minimax_legal_agrees() -> None:
    import numpy as np
    from reference import minimax as ref

    rng = np.random.default_rng(0)
    for _ in range(300):
        deck = [int(x) for x in rng.permutation(52)]
        k = int(rng.integers(0, 4))
        trick, hand = deck[:k], frozenset(deck[k : k + int(rng.integers(1, 14))])
        for mb in (False, True):
            for vr in ("strict", "win_only"):
                r = PRESETS["modern"].replace(must_beat=mb, void_rule=vr)
                got = {int(c) for c in r.legal_cards(Hand.from_cards(hand), trick)}
                assert got == set(ref.legal(hand, trick, mb, vr, False, False))


def test_ruleset_fields_take_numpy_scalars() -> None:
    r = Ruleset.preset("modern").replace(
        min_call=np.int64(2),
        max_call=np.int8(8),
        match_deals=np.int32(3),
        must_beat=np.bool_(False),
    )
    assert (r.min_call, r.max_call, r.match_deals, r.must_beat) == (2, 8, 3, False)
    assert type(r.min_call) is int and type(r.must_beat) is bool
    assert r == Ruleset.preset("modern").replace(
        min_call=2, max_call=8, match_deals=3, must_beat=False
    )
    assert eval(repr(r), {"Ruleset": Ruleset}) == r
    with pytest.raises(RulesError, match=r"max_call must be an int 1\.\.13, got 14"):
        Ruleset.preset("modern").replace(max_call=np.int64(14))
