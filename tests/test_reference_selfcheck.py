"""Sanity tests of the brute-force reference itself (tests/reference), from the rules alone."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference import minimax as ref
from reference.endings import SWITCHES, Ending, random_endings

C = ref.parse_card
H = ref.cards
ALL_VOID = ("strict", "win_only")


# --- worked examples of docs/rules.md (from the rules documents), through legal() ----------


@pytest.mark.parametrize("void_rule", ALL_VOID)
def test_000_must_beat_queen_of_hearts(void_rule: str) -> None:
    """000: hearts led, Q♥ on the table, you hold 3♥ K♥: only K♥ is legal."""
    hand = H("3H KH 4C")
    assert ref.legal(hand, [C("5H"), C("QH")], True, void_rule, False, False) == H("KH")
    # without must_beat any heart may follow
    assert ref.legal(hand, [C("5H"), C("QH")], False, void_rule, False, False) == H("3H KH")


@pytest.mark.parametrize("must_beat", [True, False])
def test_000_void_in_clubs_must_trump(must_beat: bool) -> None:
    """000: clubs led, you are void in clubs and hold 2♠: you must play it (strict)."""
    hand = H("2S 9D KH")
    assert ref.legal(hand, [C("5C")], must_beat, "strict", False, False) == H("2S")
    # no spade in the trick yet: 2♠ would win now, so win_only forces it too
    assert ref.legal(hand, [C("5C")], must_beat, "win_only", False, False) == H("2S")


@pytest.mark.parametrize("must_beat", [True, False])
def test_001_losing_trump_strict_vs_win_only(must_beat: bool) -> None:
    """001: A♥ led, 6♥, a void player trumps with 4♠; fourth holds 2♠ K♦: must play 2♠ (strict)."""
    trick = [C("AH"), C("6H"), C("4S")]
    hand = H("2S KD")
    assert ref.legal(hand, trick, must_beat, "strict", False, False) == H("2S")
    # win_only: no spade that would win now, so any card: a lower spade or a discard
    assert ref.legal(hand, trick, must_beat, "win_only", False, False) == H("2S KD")
    # "4♠ wins"
    assert ref.winner([*trick, C("2S")]) == 2
    assert ref.winner([*trick, C("KD")]) == 2


@pytest.mark.parametrize("void_rule", ALL_VOID)
def test_001_on_seven_of_hearts_play_ace(void_rule: str) -> None:
    """001: on 7♥ holding A♥ and 3♥, play A♥."""
    assert ref.legal(H("AH 3H"), [C("7H")], True, void_rule, False, False) == H("AH")


# --- further branches of the legal-card rules -----------------------------------------------


def test_must_beat_lapses_once_trumped() -> None:
    """After a spade lies in a non-spade trick, any card of the led suit is legal."""
    assert ref.legal(H("AH 3H 2S"), [C("5H"), C("2S")], True, "strict", False, False) == H("AH 3H")


def test_must_beat_applies_to_spade_leads() -> None:
    """'When spades are led, the duty to beat still applies.'"""
    assert ref.legal(H("TS 3S 4H"), [C("9S")], True, "strict", False, False) == H("TS")
    assert ref.legal(H("TS 3S 4H"), [C("9S")], False, "strict", False, False) == H("TS 3S")


def test_no_higher_card_any_of_led_suit() -> None:
    assert ref.legal(H("4H 3H KS"), [C("9H")], True, "strict", False, False) == H("4H 3H")


def test_strict_overtrump_if_able() -> None:
    """strict: spade in the trick -> a higher spade if held."""
    hand = H("3S KS 5D")
    assert ref.legal(hand, [C("5H"), C("QS")], True, "strict", False, False) == H("KS")
    assert ref.legal(hand, [C("5H"), C("QS")], True, "win_only", False, False) == H("KS")
    # no spade in the trick: strict allows any spade, win_only too (any spade wins now)
    assert ref.legal(hand, [C("5H")], True, "strict", False, False) == H("3S KS")
    assert ref.legal(hand, [C("5H")], True, "win_only", False, False) == H("3S KS")


def test_void_without_spades_anything() -> None:
    hand = H("5D 7C")
    for void_rule in ALL_VOID:
        assert ref.legal(hand, [C("5H"), C("QS")], True, void_rule, False, False) == hand


def test_first_trick_spade_ban_only_at_first_lead() -> None:
    """'No spade lead to trick 1 while holding another suit'."""
    assert ref.legal(H("AS 2H"), [], True, "strict", True, True) == H("2H")
    assert ref.legal(H("AS KS"), [], True, "strict", True, True) == H("AS KS")  # only spades
    assert ref.legal(H("AS 2H"), [], True, "strict", True, False) == H("AS 2H")  # later trick
    assert ref.legal(H("AS 2H"), [], True, "strict", False, True) == H("AS 2H")  # switch off
    # following to trick 1 is not restricted by the ban
    assert ref.legal(H("AS 2H"), [C("3C")], True, "strict", True, True) == H("AS")


def test_winner() -> None:
    assert ref.winner([C("5H"), C("AH"), C("2S"), C("KS")]) == 3
    assert ref.winner([C("5H"), C("AC"), C("KD"), C("6H")]) == 3
    assert ref.winner([C("QS"), C("AH"), C("KS"), C("2S")]) == 2
    assert ref.winner([C("7D")]) == 0


def test_legal_basic_properties() -> None:
    """Legal cards are a non-empty subset of the hand, and a card of the led suit if held."""
    rng = random.Random(1)
    for _ in range(3000):
        deck = rng.sample(range(52), 10)
        hand = frozenset(deck[: rng.randint(1, 6)])
        trick = deck[6 : 6 + rng.randint(0, 3)]
        for must_beat, void_rule, ban in SWITCHES:
            first = rng.random() < 0.5
            got = ref.legal(hand, trick, must_beat, void_rule, ban, first)
            assert got and got <= hand
            if trick and any(ref.suit(c) == ref.suit(trick[0]) for c in hand):
                assert all(ref.suit(c) == ref.suit(trick[0]) for c in got)


# --- hand-built endings with values worked out by hand --------------------------------------


def test_top_spade_ending() -> None:
    """Seat 0 holds A♠ 2♦; seat 1 leads clubs, seats 2/3 cannot trump.

    Trick 1: seat 1 leads a club, seat 2 follows, seat 3 (no clubs, no spades) discards a heart,
    seat 0 (void in clubs, holding A♠) must trump under both void rules (strict: must play a
    spade; win_only: A♠ would win now) and wins. Trick 2: seat 0 leads 2♦, nobody else has a
    diamond or a spade, so 2♦ wins. Seat 0 takes both tricks; nobody else can take one.
    """
    e = Ending.from_text(["AS 2D", "KC QC", "3C 4C", "5H 6H"], leader=1)
    for sw in SWITCHES:
        assert [e.dd_value(t, *sw) for t in range(4)] == [2, 0, 0, 0]
        assert e.playout(*sw)[1] == (2, 0, 0, 0)


def test_must_beat_forced_overtake_changes_value() -> None:
    """Target seat 2 holds Q♥ 3♥; seat 1 holds A♥ 2♥, seat 3 K♥ 5♣, seat 0 (leader) 9♥ 4♥.

    must_beat: any heart lead (9♥ or 4♥) forces seat 1's A♥ (2♥ is too low), seat 2 keeps Q♥
    (nothing beats the ace), seat 3 must follow with K♥. Seat 1 then leads 2♥, seat 2 must beat
    with Q♥, seat 3 discards 5♣, seat 0's remaining heart is lower than Q♥: seat 2 wins 1.
    Without must_beat seat 1 ducks with 2♥, seat 3's K♥ beats whatever seat 2 plays, seat 3
    leads 5♣ and everyone else discards: seat 2 wins 0. No spades, so the void rule is moot.
    """
    e = Ending.from_text(["9H 4H", "AH 2H", "QH 3H", "KH 5C"], leader=0)
    for must_beat, void_rule, ban in SWITCHES:
        assert e.dd_value(2, must_beat, void_rule, ban) == (1 if must_beat else 0)


def test_strict_vs_win_only_changes_value() -> None:
    """Target seat 2 holds 2♠ 3♦; seat 0 leads from A♥ 5♥, seat 1 holds K♠ 4♣, seat 3 6♥ 7♥.

    Trick 1: seat 1 is void in hearts and must play K♠ (it wins now). Seat 2 is void in hearts
    and cannot beat K♠: under strict it must still play 2♠; under win_only it discards 3♦ and
    keeps 2♠. Seat 1 wins and leads 4♣. Under strict seat 2 has only 3♦ left and loses (0);
    under win_only 2♠ is the only spade in trick 2 and wins (1). must_beat is moot (the only
    following happens after the trump).
    """
    e = Ending.from_text(["AH 5H", "KS 4C", "2S 3D", "6H 7H"], leader=0)
    for must_beat, void_rule, ban in SWITCHES:
        assert e.dd_value(2, must_beat, void_rule, ban) == (0 if void_rule == "strict" else 1)


def test_first_trick_ban_changes_value() -> None:
    """Seat 0 leads trick 1 holding A♠ 9♣; seat 1 T♠ 9♥, seat 2 A♥ K♥, seat 3 Q♥ 6♣.

    Without the ban seat 0 cashes A♠ (seat 1 must follow with T♠, losing its trump), then 9♣
    wins too (seat 3's 6♣ is lower, nobody has a spade left): 2 tricks. With the ban seat 0
    must lead 9♣; seat 1, void in clubs, must trump with T♠ and wins; seat 1 leads 9♥, seat 0
    is void and trumps with A♠: 1 trick. (must_beat, strict; A♠ is seat 0's last card in
    trick 2, so it wins under either void rule as well.)
    """
    e = Ending.from_text(["AS 9C", "TS 9H", "AH KH", "QH 6C"], leader=0, first_trick=True)
    assert e.dd_value(0, True, "strict", False) == 2
    assert e.dd_value(0, True, "strict", True) == 1
    # the ban concerns only the lead of the deal's first trick
    later = Ending(e.hands, e.trick, e.leader, first_trick=False)
    assert later.dd_value(0, True, "strict", True) == 2


def test_mid_trick_value_counts_trick_in_progress() -> None:
    """Seat 3 led K♥ (its last card but 7♦); seat 0 to move holds A♥ 2♣, seat 1 3♣ 5♦,
    seat 2 4♣ 6♦, nobody holds a spade.

    Seat 0 must follow with its only heart, A♥, and takes the trick in progress (1). It then
    leads 2♣, which seat 2's 4♣ beats whatever seat 1 does: seat 0 totals 1, seat 2 can
    guarantee 1 (keep 4♣, discard 6♦), seats 1 (3♣ is below 4♣) and 3 (7♦ only) nothing.
    """
    e = Ending.from_text(["AH 2C", "3C 5D", "4C 6D", "7D"], trick="KH", leader=3)
    for sw in SWITCHES:
        assert e.dd_value(0, *sw) == 1
        assert e.card_values(*sw) == {C("AH"): 1}
        assert [e.dd_value(t, *sw) for t in (1, 2, 3)] == [0, 1, 0]


# --- invariants on random endings -----------------------------------------------------------


@pytest.mark.parametrize("switches", SWITCHES, ids=lambda s: f"{s}")
def test_invariants(switches: tuple[bool, str, bool]) -> None:
    must_beat, void_rule, ban = switches
    for e in random_endings(11, 10, must_beat, void_rule, ban, first_trick_rate=0.2):
        values = [e.dd_value(t, *switches) for t in range(4)]
        assert sum(values) <= e.tricks_left, e
        cv = e.card_values(*switches)
        assert max(cv.values()) == values[e.to_move], e
        played, tricks = e.playout(*switches)
        assert sum(tricks) == e.tricks_left, e
        assert len(played) == sum(len(h) for h in e.hands), e
        assert all(t >= v for t, v in zip(tricks, values, strict=True)), (e, tricks, values)
        for seat in range(4):
            if C("AS") in e.hands[seat]:
                assert values[seat] >= 1, e
        if not (e.first_trick and not e.trick):
            # the ban only restricts the lead of the deal's first trick
            assert values == [e.dd_value(t, must_beat, void_rule, not ban) for t in range(4)], e
