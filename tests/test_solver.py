"""The solver's values against a plain exhaustive minimax (tests/test_solver_brute.py) on random
endings: every rule-switch combination, trick boundaries and mid-trick, first-trick ban."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_solver_brute as brute

from callbreak_lab.cards import Card, Deal, Hand
from callbreak_lab.solver import api
from callbreak_lab.solver._consts import (
    N_OPTS,
    OPT_QUICK,
    OPT_SIBLING,
    default_opts,
)
from callbreak_lab.solver._engine import Engine, split_masks
from callbreak_lab.solver._moves import lead_replies
from callbreak_lab.solver._stats import Counters
from callbreak_lab.solver._table import (
    DEEP,
    TOPK,
    _scan_word,
    bucket_of,
    check_of,
    codes_after_trick,
    length_word,
    new_table,
    suit_codes,
    tt_lookup,
    tt_store,
)

SWITCHES = [(mb, vr) for mb in (0, 1) for vr in (0, 1)]


def _root(hands: brute.Hands, trick: list[int], leader: int, mb: int, vr: int, ban: int,
          first: bool = False) -> api.Root:  # fmt: skip
    masks = tuple(sum(1 << c for c in h) for h in hands)
    return api.Root(masks, tuple(trick), leader, first, (0, 0, 0, 0), (mb, vr, ban))  # type: ignore[arg-type]


def _endings(seed: int, count: int, sizes: tuple[int, ...]) -> list[tuple]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        mb, vr = SWITCHES[i % 4]
        n = rng.choice(sizes)
        hands, trick, leader = brute.random_ending(rng, n, mb, vr, mid_trick=rng.random() < 0.5)
        out.append((hands, trick, leader, mb, vr))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_values_match_exhaustive_minimax(seed: int) -> None:
    for hands, trick, leader, mb, vr in _endings(seed, 40, (2, 3, 3, 4)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            want = brute.value([set(h) for h in hands], list(trick), leader, t, mb, vr, 0)
            got = api.value_of(root, t)
            assert got == want, (hands, trick, leader, t, mb, vr)


@pytest.mark.slow
def test_values_match_on_five_card_endings() -> None:
    for hands, trick, leader, mb, vr in _endings(99, 3, (5,)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            want = brute.value([set(h) for h in hands], list(trick), leader, t, mb, vr, 0)
            assert api.value_of(root, t) == want, (hands, trick, leader, t, mb, vr)


@pytest.mark.slow
def test_first_trick_spade_ban() -> None:
    rng = random.Random(7)
    checked = 0
    for i in range(48):
        mb, vr = SWITCHES[i % 4]
        hands, _, leader = brute.random_ending(rng, rng.choice((2, 3, 3, 4)), mb, vr, False)
        for ban in (0, 1):
            root = _root(hands, [], leader, mb, vr, ban, first=True)
            assert root.ban == ban
            for t in range(4):
                want = brute.value([set(h) for h in hands], [], leader, t, mb, vr, ban)
                assert api.value_of(root, t) == want, (hands, leader, t, mb, vr, ban)
                checked += 1
    assert checked == 384


@pytest.mark.slow
@pytest.mark.parametrize("switch", range(N_OPTS))
def test_every_technique_switch_keeps_values(switch: int) -> None:
    opts = default_opts()
    opts[switch] = 0
    eng = Engine(log2_slots=14, opts=opts)
    for hands, trick, leader, mb, vr in _endings(100 + switch, 40, (2, 3, 4)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            want = brute.value([set(h) for h in hands], list(trick), leader, t, mb, vr, 0)
            assert api.value_of(root, t, eng) == want


def test_sibling_skipping_fires_and_keeps_values() -> None:
    """Skipping a card because a sibling's result did not rely on either card's rank is used
    on these endings (the counter moves) and every value still matches the minimax."""
    on = Engine(log2_slots=14)
    off_opts = default_opts()
    off_opts[OPT_SIBLING] = 0
    off = Engine(log2_slots=14, opts=off_opts)
    for hands, trick, leader, mb, vr in _endings(500, 40, (3, 4)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            want = brute.value([set(h) for h in hands], list(trick), leader, t, mb, vr, 0)
            assert api.value_of(root, t, on) == want, (hands, trick, leader, t, mb, vr)
            assert api.value_of(root, t, off) == want
    assert on.counters().sibling_skips > 100
    assert off.counters().sibling_skips == 0


def _cards(text: str) -> list[int]:
    return [int(Card.parse(c)) for c in text.split()]


@pytest.mark.parametrize(("mb", "vr"), SWITCHES)
def test_a_fixed_trick_winner_and_the_spade_margin_settle_a_probe_at_once(mb: int, vr: int) -> None:
    """Mid-trick, nobody still to play can beat the A♥: seat 1 wins the trick whatever comes.
    Seat 0 holds the only spades left, so it takes the last two tricks: ">= 2" is settled at the
    first node, where before every card still to come was tried. Seat 0 still to play (it must
    follow hearts) keeps its spades too; the check counts them without the lowest, ">= 1"."""
    played = [set(_cards(h)) for h in ("AS KS", "3C 4C", "3H 5C 6C", "4H 7C 8C")]
    trick = _cards("2H AH")  # seat 0 led the 2♥, seat 1 topped it
    still = [set(_cards(h)) for h in ("5H AS KS", "3C 4C", "5C 6C", "7C 8C")]
    trick_led_by_1 = _cards("AH 3H 4H")  # seat 0, last to play, must follow hearts
    off = default_opts()
    off[OPT_QUICK] = 0
    for hands, cards, leader, k in ((played, trick, 0, 2), (still, trick_led_by_1, 1, 1)):
        want = brute.value([set(h) for h in hands], cards, leader, 0, mb, vr, 0)
        assert want >= k
        root = _root(hands, cards, leader, mb, vr, 0)
        eng = Engine(log2_slots=14)
        assert eng.at_least(root, 0, k)
        assert eng.counters().nodes == 1
        without = Engine(log2_slots=14, opts=off)
        assert without.at_least(root, 0, k)
        assert without.counters().nodes > 1
        assert api.value_of(root, 0, eng) == want


@pytest.mark.slow
def test_all_switches_off_and_tiny_table() -> None:
    eng = Engine(log2_slots=6, opts=np.zeros(N_OPTS, dtype=np.int64))
    for hands, trick, leader, mb, vr in _endings(200, 40, (2, 3, 4)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            want = brute.value([set(h) for h in hands], list(trick), leader, t, mb, vr, 0)
            assert api.value_of(root, t, eng) == want


@pytest.mark.slow  # full-deal card values: in make test, not in the two-minute loop
@pytest.mark.parametrize("seed", range(3))
def test_card_values_match_children(seed: int) -> None:
    for hands, trick, leader, mb, vr in _endings(300 + seed, 40, (2, 3, 4)):
        root = _root(hands, trick, leader, mb, vr, 0)
        mover = root.mover
        for t in range(4):
            vals = api.values_of(root, t)
            legal = brute.legal(hands[mover], trick, mb, vr, 0)
            assert sorted(vals) == legal
            for c, v in vals.items():
                assert v == brute.child_value(hands, trick, leader, t, mb, vr, c)
            best = max(vals.values()) if mover == t else min(vals.values())
            assert best == api.value_of(root, t)


@pytest.mark.parametrize("seed", range(2))
def test_playout_matches_exhaustive(seed: int) -> None:
    for hands, trick, leader, mb, vr in _endings(400 + seed, 30, (2, 3, 4)):
        root = _root(hands, trick, leader, mb, vr, 0)
        res = api.playout_of(root)
        cards, won = brute.playout(hands, trick, leader, mb, vr, 0)
        assert [int(c) for c in res.cards] == cards
        assert list(res.tricks) == won


def test_lead_replies_counts_each_run_of_legal_cards_once() -> None:
    """The mobility used to order the target's leads: the other seats' distinct legal answers.
    Seat 1 holds H K Q 3 (K and Q are one run), seat 2 no hearts but S 2, seat 3 H 4."""
    hands = split_masks([Hand.parse(s).mask for s in (".A5.2.", ".KQ3..", "2..KQ.", ".4..AK")])
    live = np.array([int(np.bitwise_or.reduce(hands[:, s])) for s in range(4)], dtype=np.int64)
    out = np.zeros(4, dtype=np.int64)

    def replies(card: str, mb: int, vr: int) -> int:
        return int(lead_replies(hands, 0, int(Card.parse(card)), mb, vr, live, out))

    for vr in (0, 1):  # a void seat holding a spade that wins must trump under both void rules
        assert replies("5H", 1, vr) == 1 + 1 + 1  # must beat: K/Q only
        assert replies("5H", 0, vr) == 2 + 1 + 1  # K/Q or the 3
        assert replies("AH", 1, vr) == 2 + 1 + 1  # nobody can beat the A: any heart
        assert replies("2D", 1, vr) == 2 + 1 + 2  # seat 1 discards a heart, seat 3 a heart or club


@given(st.lists(st.integers(0, 127), min_size=8, max_size=8), st.integers(1, 127))
@settings(max_examples=300, deadline=None)
def test_fingerprint_word_scan_agrees_with_a_byte_by_byte_scan(lanes: list[int], fp: int) -> None:
    word = sum(b << (8 * j) for j, b in enumerate(lanes))
    cand, stop = _scan_word(word, fp * 0x0101010101010101)
    want_stop = next((j for j, b in enumerate(lanes) if b == 0), 8)
    assert stop == want_stop
    flagged = {j for j in range(8) if (cand >> (8 * j + 7)) & 1}
    # every slot of the group before the first empty one is flagged (extra flags only cost a key
    # check), and nothing at or after the first empty slot
    assert {j for j in range(want_stop) if lanes[j] == fp} <= flagged
    assert all(j < want_stop for j in flagged)


@given(
    st.integers(0, (1 << 62) - 1),
    st.integers(0, 15),
    st.lists(st.integers(0, (1 << 26) - 1), min_size=4, max_size=4),
    st.sampled_from([TOPK, DEEP]),
)
@settings(max_examples=200, deadline=None)
def test_the_group_hash_is_the_same_with_and_without_the_jit(
    w0: int, tflags: int, codes: list[int], level: int
) -> None:
    # a hash that let int64 products wrap differed between the two (and between call sites)
    arr = np.array(codes, dtype=np.int64)
    base, fp = bucket_of(w0, tflags, arr, 1 << 21, level)
    assert (int(base), int(fp)) == tuple(
        int(x) for x in bucket_of.py_func(w0, tflags, arr, 1 << 21, level)
    )
    assert base % 128 == 0 and 0 <= base < 1 << 21 and 1 <= fp <= 127


@given(st.integers(0, 2**32 - 1), st.integers(0, 11))
@settings(max_examples=200, deadline=None)
def test_suit_codes_carried_across_a_trick_equal_recomputed_ones(seed: int, tricks: int) -> None:
    # any four cards, one from each hand, cut out of the codes give the codes of what is left
    rng = random.Random(seed)
    hands = split_masks([h.mask for h in Deal.random(seed).hands])
    for _ in range(tricks + 1):
        before = np.zeros(4, dtype=np.int64)
        suit_codes(hands, before)
        tc = np.zeros(4, dtype=np.int64)
        for j in range(4):
            held = [s * 13 + r for s in range(4) for r in range(13) if (hands[j, s] >> r) & 1]
            c = rng.choice(held)
            hands[j, c // 13] ^= 1 << (c % 13)
            tc[j] = c
        carried = np.zeros(4, dtype=np.int64)
        codes_after_trick(hands, tc, 0, before, carried)
        fresh = np.zeros(4, dtype=np.int64)
        suit_codes(hands, fresh)
        assert carried.tolist() == fresh.tolist()


def test_entries_are_found_at_both_hashing_levels() -> None:
    # an entry whose pattern holds the top DEEP cards of every suit is filed in the deep chain,
    # a shallower one in the TOPK chain; a lookup of either position finds it
    table = new_table(16)
    nslots = table.gens.shape[0]
    deep_seen_shallow = 0
    for seed in range(40):
        hands = split_masks([h.mask for h in Deal.random(seed).hands])
        codes = np.zeros(4, dtype=np.int64)
        suit_codes(hands, codes)
        w0 = length_word(hands, seed % 4)
        deep = seed % 2 == 1
        rel = (1 << 52) - 1 if deep else 1 << 51  # every card, or the ace of spades alone
        tt_store(table, 1, w0, 2, 3, codes, hands, rel, 13, 5, 13, -1)
        found = {}
        for level in (TOPK, DEEP):
            base, fp = bucket_of(w0, 2 * 4 + 3, codes, nslots, level)
            found[level] = int(tt_lookup(table, base, fp, w0, 2, 3, codes, 5)[0])
        assert found[DEEP if deep else TOPK] == 1, seed
        deep_seen_shallow += deep and found[TOPK] == 1
    # a deep entry is in the TOPK scan only when both chains share a block of buckets (1 in 16)
    assert deep_seen_shallow <= 8


@pytest.mark.slow
def test_values_hold_when_the_table_is_full_and_entries_are_replaced() -> None:
    # the smallest table, one spill chain, never emptied: full after a few solves, so every later
    # store replaces an entry and every lookup scans a full chain. Small endings against the
    # exhaustive minimax, then larger ones (which fill the table) against a roomy table
    tiny = Engine(log2_slots=6, max_fill=None)
    for hands, trick, leader, mb, vr in _endings(300, 20, (3, 4)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            want = brute.value([set(h) for h in hands], list(trick), leader, t, mb, vr, 0)
            assert api.value_of(root, t, tiny) == want, (hands, trick, leader, t, mb, vr)
    roomy = Engine(log2_slots=16)
    for hands, trick, leader, mb, vr in _endings(301, 120, (6, 7)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            want = api.value_of(root, t, roomy)
            assert api.value_of(root, t, tiny) == want, (hands, trick, leader, t, mb, vr)
    assert (tiny.table.gens > 0).all()
    assert tiny.counters().tt_stores > 2 * tiny.table.gens.size


def test_a_table_past_its_fill_limit_is_emptied_before_the_next_search() -> None:
    """A long run empties its table instead of filling every chain; values stay exact, and an
    engine told never to empty its table fills it instead."""
    emptied = Engine(log2_slots=6)
    emptied.new_deal_share = None  # each ending is another deal: only the fill limit empties
    kept = Engine(log2_slots=6, max_fill=None)
    for hands, trick, leader, mb, vr in _endings(302, 120, (6, 7)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            want = api.value_of(root, t, kept)
            assert api.value_of(root, t, emptied) == want, (hands, trick, leader, t, mb, vr)
    assert emptied.clears > 0
    assert kept.clears == 0
    assert (kept.table.gens > 0).all()
    emptied.clear()
    assert not emptied.table.fps.any() and not emptied.table.gens.any()


def test_a_new_deal_empties_the_table_and_the_same_deal_keeps_it() -> None:
    """``Engine.note_deal``: positions later in the same deal (cards played, a trick in
    progress) keep the table; the first position of another deal empties it, once enough was
    stored; values stay those of a fresh engine throughout."""
    from callbreak_lab.game import Position

    eng = Engine(log2_slots=16, max_fill=1.0)  # 1,024 stores: a new deal empties the table
    first = Position(Deal.random(31), "modern")
    values = [api.value_of(api.make_root(first), t, eng) for t in range(4)]
    assert eng.counters().tt_stores > 1024 and eng.deal_clears == 0
    later = first.copy()
    for _ in range(6):  # a trick and a half later: the same deal
        later.play(later.legal_cards().lowest())
    filled = int(np.count_nonzero(eng.table.fps.view(np.uint8)))
    api.value_of(api.make_root(later), 0, eng)
    assert eng.deal_clears == 0
    assert int(np.count_nonzero(eng.table.fps.view(np.uint8))) >= filled
    other = Position(Deal.random(32), "modern")
    got = [api.value_of(api.make_root(other), t, eng) for t in range(4)]
    assert eng.deal_clears == 1
    fresh = Engine(log2_slots=16)
    assert got == [api.value_of(api.make_root(other), t, fresh) for t in range(4)]
    assert values == [api.value_of(api.make_root(first), t, fresh) for t in range(4)]
    api.value_of(api.make_root(first), 0, eng)  # back to the first deal: a new deal again
    assert eng.deal_clears == 2


@pytest.mark.parametrize("bad", [0.0, -0.5, 1.5])
def test_an_impossible_table_fill_limit_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="max_fill"):
        Engine(log2_slots=6, max_fill=bad)


def _one_and_two(**settings: float) -> tuple[Engine, Engine]:
    """A one-thread engine and a two-thread one with ``settings`` (its attributes) changed."""
    one = Engine(log2_slots=16)
    two = Engine(log2_slots=16, threads=2)
    for name, value in settings.items():
        setattr(two, name, value)
    return one, two


def test_two_threads_on_one_table_give_the_same_values() -> None:
    """An engine whose helper thread joins every search at once (no delay, any size) against a
    one-thread engine, on positions 6-8 tricks from the end of every rule-switch combination:
    equal values, and the helper both joined and answered first some of the time."""
    one, two = _one_and_two(helper_delay=0.0, helper_min_left=0)
    for hands, trick, leader, mb, vr in _endings(303, 60, (6, 8)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            want = api.value_of(root, t, one)
            assert api.value_of(root, t, two) == want, (hands, trick, leader, t, mb, vr)
    helper = two._helper
    assert helper is not None and helper.joined > 0


def test_a_closed_helper_gate_keeps_the_helper_out_until_it_opens() -> None:
    """``Engine.helper_gate``: while the gate is shut the engine searches alone (no search
    joined, no list shared out, ``parallel`` False) and its values are one thread's; once it
    opens, the helper joins searches again and the values stay the same. A search that
    started behind a shut gate is joined when the gate opens while it runs."""
    import threading

    one, two = _one_and_two(helper_delay=0.0, helper_min_left=0)
    two.helper_gate = threading.Event()
    assert not two.parallel
    ends = list(_endings(307, 12, (6, 8)))
    for hands, trick, leader, mb, vr in ends:
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            assert api.value_of(root, t, two) == api.value_of(root, t, one)
            assert api.values_of(root, t, two) == api.values_of(root, t, one)
    helper = two._helper
    assert helper is not None and helper.joined == 0 and helper.pools == 0
    two.helper_gate.set()
    assert two.parallel
    for hands, trick, leader, mb, vr in ends:
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            assert api.value_of(root, t, two) == api.value_of(root, t, one)
    assert helper.joined > 0
    # a long search begun behind the shut gate: the helper joins it once the gate opens
    two.helper_gate.clear()
    joined = helper.joined
    root = api.make_root(Deal.random(7), "online")  # a few tenths of a second on one thread
    two.clear()
    timer = threading.Timer(0.02, two.helper_gate.set)
    timer.start()
    try:
        assert api.value_of(root, 0, two) == api.value_of(root, 0, one)
    finally:
        timer.cancel()
    assert helper.joined > joined


def test_the_named_counters_agree_with_each_other_and_add_the_helpers() -> None:
    """``Engine.counters``: the named counts are consistent with each other (each name reads its
    own slot of the stats array), and with two threads the helper thread's counts are added."""
    one, two = _one_and_two(helper_delay=0.0, helper_min_left=0)
    for hands, trick, leader, mb, vr in _endings(306, 12, (6, 7)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in range(4):
            assert api.value_of(root, t, two) == api.value_of(root, t, one)
    c = one.counters()
    assert c.nodes > c.tt_hits + c.quick_cuts and c.nodes >= c.probes > 0 and c.tt_stores > 0
    assert c.tt_hits > 0 and c.quick_cuts > 0 and c.sibling_skips > 0
    helper = two._helper
    assert helper is not None
    if not helper.joined:  # a loaded machine may finish every ending before the helper starts
        assert api.value_of(api.make_root(Deal.random(7), "online"), 0, two) >= 0
    assert helper.joined > 0
    own = two.counters(helper=False)
    assert two.counters().nodes == own.nodes + Counters(helper.stats).nodes
    assert own.nodes == Counters(two.stats).nodes


def test_the_helpers_value_is_used_when_it_finishes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's own search held back until the helper has finished: every value comes from
    the helper (whose replies are reversed at the first plies) and equals one thread's."""
    from callbreak_lab.solver import _engine

    real = _engine.search

    def held_back(eng: Engine, ctl: np.ndarray, job: int, *rest: object) -> int:
        deadline = time.perf_counter() + 5.0
        while ctl[0] == job and time.perf_counter() < deadline:
            time.sleep(0.0002)
        return real(eng, ctl, job, *rest)  # type: ignore[arg-type]

    one = Engine(log2_slots=16)
    roots = [_root(*ending, 0) for ending in _endings(305, 24, (5, 7))]
    want = [api.value_of(root, t, one) for root in roots for t in range(4)]
    monkeypatch.setattr(_engine, "search", held_back)
    two = Engine(log2_slots=16, threads=2)
    two.helper_delay = 0.0
    two.helper_min_left = 0
    assert [api.value_of(root, t, two) for root in roots for t in range(4)] == want
    helper = two._helper
    assert helper is not None and helper.answered == helper.joined == len(want)


def test_two_threads_sharing_a_list_of_searches_give_the_same_values() -> None:
    """``Engine.values`` on two threads (each takes the next search, then joins the other's last
    one): the four seats' values and every card's value as on one thread, in input order, with
    None standing for an empty position."""
    one, two = _one_and_two(helper_min_left=0)  # every list through the pool, however small
    for hands, trick, leader, mb, vr in _endings(404, 40, (6, 8)):
        root = _root(hands, trick, leader, mb, vr, 0)
        assert api.table_of(root, two) == api.table_of(root, one), (hands, trick, leader)
        for t in (0, 3):
            assert api.values_of(root, t, two) == api.values_of(root, t, one)
    jobs = [api.job_of(root, t, two) for t in range(4)]
    assert two.values([None, *jobs, None]) == [0, *api.table_of(root, one), 0]
    helper = two._helper
    assert helper is not None and helper.pools > 0


def test_children_searched_before_their_root_give_the_same_card_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``values_of`` with the root's value unknown, on two threads from any size: the children
    are searched at once from the root's estimate (no proof of the root first). Every card's
    value as one thread's root-first search, for the mover (children bounded above) and another
    seat (bounded below), with no bounds and with true bounds around the value, at trick
    boundaries and mid-trick."""
    estimates = []
    real = api.estimate_of

    def counted(root: api.Root, seat: int) -> int:
        estimates.append(seat)
        return real(root, seat)

    monkeypatch.setattr(api, "estimate_of", counted)
    one, two = _one_and_two(helper_min_left=0, children_first_left=0)
    for hands, trick, leader, mb, vr in _endings(505, 40, (5, 7)):
        root = _root(hands, trick, leader, mb, vr, 0)
        for t in (root.mover, (root.mover + 1) % 4):
            v = api.value_of(root, t, one)
            want = api.values_of(root, t, one)
            assert api.values_of(root, t, two) == want, (hands, trick, leader, t, mb, vr)
            for lo, hi in ((v - 1, v + 1), (v, v + 1), (v - 1, v)):
                lo, hi = max(0, lo), min(root.left, hi)
                assert api.values_of(root, t, two, lo=lo, hi=hi) == want, (lo, hi)
    assert len(estimates) >= 100  # the path was taken (not only for single-card roots)


@pytest.mark.parametrize("where", ["main", pytest.param("any", marks=pytest.mark.slow)])
def test_a_failing_search_in_a_list_raises_and_the_engine_recovers(
    monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A search that fails in ``Engine.values`` ends it with an error instead of hanging: the
    caller's own exception (an interrupt stays an interrupt) when the engine's thread failed,
    a RuntimeError when the helper's did. The engine answers correctly afterwards."""
    import threading

    from callbreak_lab.solver import _threads

    real = _threads.search
    armed = [True]

    def flaky(eng: Engine, ctl: np.ndarray, job: int, *rest: object) -> int:
        main = threading.current_thread() is threading.main_thread()
        if armed[0] and (main if where == "main" else job == 3):
            armed[0] = False
            raise ZeroDivisionError("boom")
        return real(eng, ctl, job, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(_threads, "search", flaky)
    two = Engine(log2_slots=12, threads=2)
    root = api.make_root(Deal.random(5), "modern")
    jobs = [api.job_of(root, t, two) for t in range(4)]
    errors = (ZeroDivisionError,) if where == "main" else (ZeroDivisionError, RuntimeError)
    with pytest.raises(errors):
        two.values(jobs)
    assert not armed[0]
    assert two.values(jobs) == list(api.table_of(root, Engine(log2_slots=12)))


def test_a_torn_table_entry_reads_as_a_miss_and_is_rewritten() -> None:
    """An entry whose data no longer agrees with its check word (as when another thread was
    writing it) is never believed; storing the same key again writes it afresh."""
    table = new_table(16)
    info = table.info
    nslots = table.gens.shape[0]
    hands = split_masks([h.mask for h in Deal.random(7).hands])
    codes = np.zeros(4, dtype=np.int64)
    suit_codes(hands, codes)
    w0 = length_word(hands, 1)
    base, fp = bucket_of(w0, 2 * 4 + 3, codes, nslots, TOPK)
    tt_store(table, 1, w0, 2, 3, codes, hands, 1 << 51, 13, 5, 13, -1)
    assert int(tt_lookup(table, base, fp, w0, 2, 3, codes, 5)[0]) == 1
    slot = int(np.flatnonzero(info[1])[0])
    info[0, slot] ^= 0b1010  # another lower bound, the check not yet written
    assert int(tt_lookup(table, base, fp, w0, 2, 3, codes, 5)[0]) == -1
    tt_store(table, 1, w0, 2, 3, codes, hands, 1 << 51, 13, 4, 13, -1)
    assert int(tt_lookup(table, base, fp, w0, 2, 3, codes, 4)[0]) == 1
    assert int(tt_lookup(table, base, fp, w0, 2, 3, codes, 5)[0]) == -1
    assert np.count_nonzero(info[1]) == 1  # the same slot, rewritten


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, (1 << 62) - 1), min_size=4, max_size=4))
def test_the_check_word_is_the_same_with_and_without_the_jit(words: list[int]) -> None:
    w0, k1, k2, d = words
    assert int(check_of(w0, k1, k2, d)) == int(check_of.py_func(w0, k1, k2, d))


def test_an_impossible_thread_count_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="threads"):
        Engine(log2_slots=6, threads=3)
    monkeypatch.setenv("CALLBREAK_LAB_SOLVER_THREADS", "4")
    with pytest.raises(ValueError, match="CALLBREAK_LAB_SOLVER_THREADS"):
        api.default_threads()
    monkeypatch.setenv("CALLBREAK_LAB_SOLVER_THREADS", "1")
    assert api.default_threads() == 1
