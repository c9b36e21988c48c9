"""Tests for callbreak_lab.bidding.features: known hands, shapes, errors, vectorised == per-hand."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callbreak_lab.bidding.features import (
    FEATURE_NAMES,
    GE_TABLE,
    GUARDED_KING_TABLE,
    HCP_TABLE,
    LEN_TABLE,
    LENGTH_WINNERS,
    N_FEATURES,
    RUN_TABLE,
    SIDE_RUN_WINNERS_TABLE,
    SIDE_SURE_TABLE,
    SURVIVAL,
    feature_dict,
    features_for,
    hand_features,
    suit_patterns,
)
from callbreak_lab.cards import Hand
from callbreak_lab.errors import ModelError, SeatError

COL = {name: i for i, name in enumerate(FEATURE_NAMES)}
PER_SUIT = ("len", "ace", "king", "queen", "jack", "run")


def mask(text: str) -> int:
    return Hand.parse(text).mask


def full_hands() -> st.SearchStrategy[int]:
    """Random 13-card hands as int masks."""
    return st.sets(st.integers(0, 51), min_size=13, max_size=13).map(
        lambda cards: sum(1 << c for c in cards)
    )


def swap_suits(m: int, a: int, b: int) -> int:
    """Exchange the 13-bit patterns of suits a and b in mask m."""
    pa, pb = (m >> (13 * a)) & 0x1FFF, (m >> (13 * b)) & 0x1FFF
    m &= ~((0x1FFF << (13 * a)) | (0x1FFF << (13 * b)))
    return m | (pb << (13 * a)) | (pa << (13 * b))


def reference_features(masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The features column by column, straight from the definitions in the module docstring
    (the first implementation): ``hand_features`` sums per-suit table rows instead and must
    give exactly the same numbers, or the shipped models would see different inputs."""
    pats = suit_patterns(masks)
    n = len(masks)
    out = np.zeros((n, N_FEATURES), dtype=np.float32)
    lens, runs, sp = LEN_TABLE[pats], RUN_TABLE[pats], pats[:, 3]
    side_lens, side_pats = lens[:, :3], pats[:, :3]
    for s, letter in enumerate("cdhs"):
        out[:, COL[f"len_{letter}"]] = lens[:, s]
        for name, rank in (("ace", 12), ("king", 11), ("queen", 10), ("jack", 9)):
            out[:, COL[f"{name}_{letter}"]] = (pats[:, s] >> rank) & 1
        out[:, COL[f"run_{letter}"]] = runs[:, s]
    out[:, COL["spades_ge_q"]] = GE_TABLE[sp, 10]
    out[:, COL["spades_ge_t"]] = GE_TABLE[sp, 8]
    out[:, COL["spades_ge_8"]] = GE_TABLE[sp, 6]
    out[:, COL["spade_extra"]] = np.maximum(lens[:, 3] - 3, 0)
    out[:, COL["spade_length_winners"]] = LENGTH_WINNERS[lens[:, 3]]
    out[:, COL["hcp_spades"]] = HCP_TABLE[sp]
    out[:, COL["side_voids"]] = (side_lens == 0).sum(axis=1)
    out[:, COL["side_singletons"]] = (side_lens == 1).sum(axis=1)
    out[:, COL["side_doubletons"]] = (side_lens == 2).sum(axis=1)
    out[:, COL["longest_side"]] = side_lens.max(axis=1)
    shortness = np.maximum(3 - side_lens, 0).sum(axis=1)
    out[:, COL["ruff_potential"]] = np.minimum(shortness, lens[:, 3] - runs[:, 3])
    out[:, COL["side_aces"]] = ((side_pats >> 12) & 1).sum(axis=1)
    out[:, COL["side_sure_winners"]] = SIDE_SURE_TABLE[side_pats].sum(axis=1)
    out[:, COL["guarded_kings"]] = GUARDED_KING_TABLE[pats].sum(axis=1)
    out[:, COL["sure_high_winners"]] = runs[:, 3] + SIDE_RUN_WINNERS_TABLE[side_pats].sum(axis=1)
    out[:, COL["hcp"]] = HCP_TABLE[pats].sum(axis=1)
    out[np.arange(n), COL["seat_0"] + seats] = 1.0
    return out


# --- names and shapes -----------------------------------------------------------------------


def test_feature_names_unique_and_match_columns() -> None:
    assert len(set(FEATURE_NAMES)) == len(FEATURE_NAMES) == N_FEATURES
    out = hand_features(np.array([mask("AKQ2.T98.765.432")], dtype=np.uint64), np.array([0]))
    assert out.shape == (1, N_FEATURES)
    assert out.dtype == np.float32


def test_empty_batch() -> None:
    out = hand_features(np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64))
    assert out.shape == (0, N_FEATURES)


# --- known hands ----------------------------------------------------------------------------


def test_balanced_top_spades() -> None:
    # spades A K Q 2, hearts T 9 8, diamonds 7 6 5, clubs 4 3 2
    f = feature_dict(Hand.parse("AKQ2.T98.765.432"), seat=2)
    assert (f["len_s"], f["len_h"], f["len_d"], f["len_c"]) == (4, 3, 3, 3)
    assert (f["ace_s"], f["king_s"], f["queen_s"], f["jack_s"]) == (1, 1, 1, 0)
    assert f["run_s"] == 3  # A K Q from the top
    assert f["spades_ge_q"] == 3 and f["spades_ge_t"] == 3 and f["spades_ge_8"] == 3
    assert f["spade_extra"] == 1  # one spade beyond the third
    # the 9 missing spades split 3-3-3 is the only way our 4th spade wins by length
    assert f["spade_length_winners"] == pytest.approx(comb(13, 3) ** 3 / comb(39, 9))
    assert f["hcp_spades"] == 9 and f["hcp"] == 9  # 4 + 3 + 2
    assert f["side_voids"] == f["side_singletons"] == f["side_doubletons"] == 0
    assert f["longest_side"] == 3
    assert f["ruff_potential"] == 0  # no short side suit
    assert f["side_aces"] == 0 and f["side_sure_winners"] == 0
    assert f["guarded_kings"] == 1  # K♠ with company
    assert f["sure_high_winners"] == pytest.approx(3.0)  # the spade run, counted in full
    assert [f[f"seat_{i}"] for i in range(4)] == [0, 0, 1, 0]


def test_all_thirteen_spades() -> None:
    f = feature_dict(mask("AKQJT98765432..."))
    assert f["len_s"] == 13 and f["run_s"] == 13
    assert f["spades_ge_q"] == 3 and f["spades_ge_t"] == 5 and f["spades_ge_8"] == 7
    assert f["spade_extra"] == 10
    assert f["spade_length_winners"] == pytest.approx(13.0)
    assert f["side_voids"] == 3 and f["longest_side"] == 0
    assert f["ruff_potential"] == 0  # every spade is a top winner already
    assert f["sure_high_winners"] == pytest.approx(13.0)
    assert f["hcp"] == f["hcp_spades"] == 10
    assert f["guarded_kings"] == 1


def test_void_and_ruffing_hand() -> None:
    # spades 9 8 7 6 5, hearts A K, diamonds A K Q 4 3 2, clubs void
    f = feature_dict(mask("98765.AK.AKQ432.-"), seat=0)
    assert (f["len_c"], f["len_d"], f["len_h"], f["len_s"]) == (0, 6, 2, 5)
    assert f["side_voids"] == 1 and f["side_singletons"] == 0 and f["side_doubletons"] == 1
    assert f["longest_side"] == 6
    # shortness: void 3 + doubleton 1 = 4; spades outside the (empty) top run: 5
    assert f["ruff_potential"] == 4
    assert f["run_s"] == 0 and f["run_h"] == 2 and f["run_d"] == 3 and f["run_c"] == 0
    assert f["side_aces"] == 2
    # hearts A-K in a 2-card suit counts 2; diamonds A-K in a 6-card suit counts only the ace
    assert f["side_sure_winners"] == 3
    assert f["guarded_kings"] == 2
    # hearts: P(round 1 and 2 go round | length 2) = .986 + .863;
    # diamonds: rounds 1..3 | length 6 = .872 + .339 + 0
    assert f["sure_high_winners"] == pytest.approx(0.986 + 0.863 + 0.872 + 0.339, abs=3e-3)
    assert f["hcp"] == 16 and f["hcp_spades"] == 0
    assert f["seat_0"] == 1


def test_unguarded_king_and_singleton() -> None:
    # spades 2, hearts K (singleton), diamonds K 5 4 3 2, clubs K Q J 8 7 6
    f = feature_dict(mask("2.K.K5432.KQJ876"))
    assert f["guarded_kings"] == 2  # the singleton K♥ is unguarded
    assert f["side_singletons"] == 1 and f["side_aces"] == 0
    assert f["ruff_potential"] == 1  # singleton heart (2 short rounds) but only one spade
    assert f["run_c"] == 0  # no ace, so no top run
    assert f["sure_high_winners"] == 0


def test_features_for_accepts_hand_and_int() -> None:
    h = Hand.parse("AKQ2.T98.765.432")
    np.testing.assert_array_equal(features_for(h, 1), features_for(h.mask, 1))
    np.testing.assert_array_equal(features_for(np.uint64(h.mask), 1), features_for(h, 1))


# --- the discount table -----------------------------------------------------------------------


def test_survival_table_shape_and_limits() -> None:
    assert SURVIVAL.shape == (14, 14)
    np.testing.assert_allclose(SURVIVAL[:, 0], 1.0)
    for length in range(14):
        for k in range(1, 14):
            if 3 * k > 13 - length:
                assert SURVIVAL[length, k] == 0.0
        assert np.all(np.diff(SURVIVAL[length]) <= 1e-12)  # harder to survive more rounds
    assert np.all(np.diff(SURVIVAL[:, 2]) <= 1e-12)  # longer own suit -> less survival


def test_length_winner_table() -> None:
    assert LENGTH_WINNERS[0] == 0 and LENGTH_WINNERS[3] == 0  # 10 missing: someone has >= 4
    assert LENGTH_WINNERS[13] == pytest.approx(13)
    assert np.all(np.diff(LENGTH_WINNERS) > -1e-12)
    for length in range(14):  # the longest opponent holds at least a third of the missing cards
        assert LENGTH_WINNERS[length] <= max(0, length - -(-(13 - length) // 3)) + 1e-12


def test_survival_table_matches_simulation() -> None:
    rng = np.random.default_rng(7)
    length, trials = 4, 20000
    missing = 13 - length
    # place the missing cards of the suit among 39 unseen slots, 13 per opponent
    slots = np.argsort(rng.random((trials, 39)), axis=1)[:, :missing] // 13
    counts = np.stack([(slots == o).sum(axis=1) for o in range(3)], axis=1)
    est = (counts.min(axis=1) >= 2).mean()
    assert est == pytest.approx(SURVIVAL[length, 2], abs=0.015)
    # and one exact value by a different route: P(nobody void | 13 missing) via inclusion-exclusion
    total = comb(39, 13)
    p_void = 3 * comb(26, 13) / total - 3 * 1 / total  # one void, minus double counts (two voids)
    assert SURVIVAL[0, 1] == pytest.approx(1 - p_void)


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("masks", "seats", "error", "message"),
    [
        ([mask("AKQ2.T98.765.432") & ~(1 << 51)], [0], ModelError, "12 cards"),
        ([1 << 52 | 0x1FFF], [0], ModelError, "above bit 51"),
        ([mask("AKQ2.T98.765.432")], [4], SeatError, "0..3"),
        ([mask("AKQ2.T98.765.432")], [0, 1], ModelError, "does not match"),
        ([[1, 2]], [0], ModelError, "1-D"),
        ([-1], [0], ModelError, "non-negative"),
    ],
)
def test_errors(masks: list[int], seats: list[int], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message) as info:
        hand_features(np.array(masks), np.array(seats))
    assert isinstance(info.value, ValueError)


def test_scalar_seat_and_default_seat() -> None:
    m = np.array([mask("AKQ2.T98.765.432")] * 3, dtype=np.uint64)
    assert np.all(hand_features(m, 3)[:, COL["seat_3"]] == 1)
    assert np.all(hand_features(m)[:, COL["seat_0"]] == 1)


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(full_hands(), st.integers(0, 3)), min_size=1, max_size=20))
def test_vectorised_matches_per_hand(rows: list[tuple[int, int]]) -> None:
    masks = np.array([m for m, _ in rows], dtype=np.uint64)
    seats = np.array([s for _, s in rows])
    batch = hand_features(masks, seats)
    for i, (m, s) in enumerate(rows):
        np.testing.assert_array_equal(batch[i], features_for(Hand(m), s))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(full_hands(), st.integers(0, 3)), min_size=1, max_size=20))
def test_matches_the_column_by_column_reference(rows: list[tuple[int, int]]) -> None:
    masks = np.array([m for m, _ in rows], dtype=np.uint64)
    seats = np.array([s for _, s in rows])
    np.testing.assert_array_equal(hand_features(masks, seats), reference_features(masks, seats))


def test_matches_the_reference_on_many_random_hands() -> None:
    from callbreak_lab.cards import Deal

    masks = np.array([h.mask for i in range(500) for h in Deal.random(i).hands], dtype=np.uint64)
    seats = np.arange(len(masks)) % 4
    np.testing.assert_array_equal(hand_features(masks, seats), reference_features(masks, seats))


@settings(max_examples=100, deadline=None)
@given(full_hands(), st.integers(0, 3))
def test_consistency_with_cards(m: int, seat: int) -> None:
    h = Hand(m)
    f = feature_dict(h, seat)
    letters = "cdhs"
    for s in range(4):
        assert f[f"len_{letters[s]}"] == h.suit_count(s)
        bits = h.suit_bits(s)
        run = 0
        while run < 13 and bits >> (12 - run) & 1:
            run += 1
        assert f[f"run_{letters[s]}"] == run
    assert sum(f[f"len_{x}"] for x in letters) == 13
    hcp = sum(
        4 * f[f"ace_{x}"] + 3 * f[f"king_{x}"] + 2 * f[f"queen_{x}"] + f[f"jack_{x}"]
        for x in letters
    )
    assert f["hcp"] == hcp
    assert f["spades_ge_q"] <= f["spades_ge_t"] <= f["spades_ge_8"] <= f["len_s"]
    assert 0 <= f["ruff_potential"] <= f["len_s"] - f["run_s"]
    assert f["run_s"] <= f["sure_high_winners"] <= sum(f[f"run_{x}"] for x in letters) + 1e-6
    assert f["side_aces"] <= f["side_sure_winners"] <= 2 * f["side_aces"]
    assert sum(f[f"seat_{i}"] for i in range(4)) == 1 and f[f"seat_{seat}"] == 1


@settings(max_examples=100, deadline=None)
@given(full_hands(), st.sampled_from([(0, 1), (0, 2), (1, 2)]), st.integers(0, 3))
def test_swapping_side_suits_permutes_only_their_columns(
    m: int, pair: tuple[int, int], seat: int
) -> None:
    a, b = pair
    letters = "cdhs"
    f = features_for(m, seat)
    g = features_for(swap_suits(m, a, b), seat)
    expected = f.copy()
    for prefix in PER_SUIT:
        ia, ib = COL[f"{prefix}_{letters[a]}"], COL[f"{prefix}_{letters[b]}"]
        expected[ia], expected[ib] = f[ib], f[ia]
    np.testing.assert_allclose(g, expected, rtol=0, atol=1e-5)


@settings(max_examples=50, deadline=None)
@given(full_hands(), st.integers(0, 3), st.integers(0, 3))
def test_seat_changes_only_seat_columns(m: int, s1: int, s2: int) -> None:
    f, g = features_for(m, s1), features_for(m, s2)
    seat_cols = [COL[f"seat_{i}"] for i in range(4)]
    other = [i for i in range(N_FEATURES) if i not in seat_cols]
    np.testing.assert_array_equal(f[other], g[other])


def test_rename_side_suits_permutes_the_per_suit_columns() -> None:
    from callbreak_lab.bidding.features import SIDE_SUIT_ORDERS, rename_side_suits

    hand = Hand.parse("AKQ2.T98.765.432")  # spades, hearts, diamonds, clubs
    masks = np.array([hand.mask], dtype=np.uint64)
    assert rename_side_suits(masks, (0, 1, 2))[0] == hand.mask
    # clubs -> hearts, diamonds -> clubs, hearts -> diamonds; spades stay
    renamed = Hand(int(rename_side_suits(masks, (2, 0, 1))[0]))
    assert str(renamed) == "AKQ2.432.T98.765"
    base = hand_features(masks)[0]
    col = {name: i for i, name in enumerate(FEATURE_NAMES)}
    for order in SIDE_SUIT_ORDERS:
        f = hand_features(rename_side_suits(masks, order))[0]
        for s, letter in enumerate("cdh"):
            to = "cdh"[order[s]]
            for stem in ("len", "ace", "king", "queen", "jack", "run"):
                assert f[col[f"{stem}_{to}"]] == base[col[f"{stem}_{letter}"]]
        shared = [i for n, i in col.items() if not n.endswith(("_c", "_d", "_h"))]
        assert np.array_equal(f[shared], base[shared])
    with pytest.raises(ModelError, match="permutation"):
        rename_side_suits(masks, (0, 0, 1))
