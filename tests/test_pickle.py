"""The core value types pickle (every protocol), copy and deep-copy to equal objects that behave
the same, and cross process boundaries as they are: joblib's loky workers and a Dask cluster
take deals, positions and rulesets as arguments and hand core objects back."""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callbreak_lab import arena, solver
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.cards import ALL_CARDS, FULL_MASK, Card, Deal, Hand, Suit
from callbreak_lab.errors import DealError
from callbreak_lab.game import DealResult, Match, Position, Trick
from callbreak_lab.rules import PRESETS, Legal, Reason, Ruleset
from callbreak_lab.seat.view import SeatView

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


def _pickled(protocol: int) -> Callable[[Any], Any]:
    return lambda x: pickle.loads(pickle.dumps(x, protocol))


#: every way of making a copy: pickle at each protocol, copy.copy and copy.deepcopy
COPIES: dict[str, Callable[[Any], Any]] = {
    **{f"pickle{p}": _pickled(p) for p in PROTOCOLS},
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
}
each_copy = pytest.mark.parametrize("again", COPIES.values(), ids=COPIES.keys())

RULES = [
    *PRESETS.values(),
    Ruleset.preset("pagat+must_beat+target_score=300"),
    Ruleset.preset("modern+first_trick_spade_ban+win_only+match_deals=none+target_score=100"),
    Ruleset("house", "clockwise", 2, 12, False, "strict", True, "flat", 3, 500),
]


def _position(seed: int, rules: Ruleset, cards: int) -> Position:
    """The position after ``cards`` random legal cards of ``Deal.random(seed)``."""
    pos = Position(Deal.random(seed), rules)
    rng = random.Random(seed)
    while len(pos.history) < cards:
        pos.play(rng.choice(list(pos.legal_cards())))
    return pos


def _same_position(a: Position, b: Position) -> None:
    """``b`` equals ``a``, shows the same, and plays on exactly as ``a`` does (a random line to
    the end and every card taken back), without either changing the other."""
    assert type(b) is Position and b == a and hash(b) == hash(a)
    assert (str(b), repr(b), b.record()) == (str(a), repr(a), a.record())
    assert (b.deal, b.rules, b.hands, b.trick, b.tricks, b.history) == (
        a.deal,
        a.rules,
        a.hands,
        a.trick,
        a.tricks,
        a.history,
    )
    assert (b.leader, b.to_move, b.tricks_won, b.is_over) == (
        a.leader,
        a.to_move,
        a.tricks_won,
        a.is_over,
    )
    assert b.legal_cards() == a.legal_cards()
    if not a.is_over:
        assert b.legal_cards_with_reasons() == a.legal_cards_with_reasons()
    before = a.record()
    start = len(b.history)
    rng = random.Random(len(before))
    while not b.is_over:
        card = rng.choice(list(b.legal_cards()))
        mark = a.record()
        b.play(card)
        assert a.record() == mark  # the copy is independent of the original
        a.play(card)
        assert (b.history, b.tricks, b.tricks_won, b.trick, b.to_move) == (
            a.history,
            a.tricks,
            a.tricks_won,
            a.trick,
            a.to_move,
        )
        assert b.legal_cards() == a.legal_cards() and str(b) == str(a)
    assert a.is_over
    end = a.record()
    while len(b.history) > start:
        b.unplay()
    assert a.record() == end and b.record() == before
    assert b == Position.replay(b.deal, before, b.rules)
    assert str(b) == str(Position.replay(b.deal, before, b.rules))


# --- cards, hands, deals -------------------------------------------------------------------------


@each_copy
def test_cards_and_suits(again: Callable[[Any], Any]) -> None:
    cards = again(list(ALL_CARDS))
    assert cards == list(ALL_CARDS) and all(type(c) is Card for c in cards)
    assert [(str(c), repr(c), c.suit, c.rank) for c in cards] == [
        (str(c), repr(c), c.suit, c.rank) for c in ALL_CARDS
    ]
    for suit in Suit:
        assert again(suit) is suit
    for reason in Reason:
        assert again(reason) is reason


@each_copy
@settings(max_examples=40, deadline=None)
@given(mask=st.integers(0, FULL_MASK))
def test_hands(again: Callable[[Any], Any], mask: int) -> None:
    hand = Hand(mask)
    h = again(hand)
    assert type(h) is Hand and h == hand and hash(h) == hash(hand)
    assert (str(h), repr(h), h.symbols(), h.cards()) == (
        str(hand),
        repr(hand),
        hand.symbols(),
        hand.cards(),
    )
    with pytest.raises(AttributeError, match="immutable"):
        h.mask = 0  # type: ignore[misc]
    assert h.mask == mask


@each_copy
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_deals(again: Callable[[Any], Any], seed: int) -> None:
    deal = Deal.random(seed)
    d = again(deal)
    assert type(d) is Deal and d == deal and hash(d) == hash(deal)
    assert (str(d), repr(d), d.hands) == (str(deal), repr(deal), deal.hands)
    assert all(type(h) is Hand for h in d)
    assert [d.seat_of(c) for c in ALL_CARDS] == [deal.seat_of(c) for c in ALL_CARDS]
    with pytest.raises(AttributeError, match="immutable"):
        d.hands = deal.hands  # type: ignore[misc]


def test_an_unpickled_deal_is_checked_again() -> None:
    """A deal is rebuilt by its constructor: a pickle whose hands do not form a deal (here seat
    1's mask replaced by seat 0's) is refused, not loaded as a broken deal."""
    deal = Deal.random(3)
    data = pickle.dumps(deal, 0)  # protocol 0 writes the masks as decimal text
    a, b = (str(h.mask).encode() for h in deal.hands[:2])
    bad = data.replace(b, a, 1)
    assert bad != data
    with pytest.raises(DealError, match="both seat 0 and seat 1"):
        pickle.loads(bad)


# --- rules and positions -------------------------------------------------------------------------


@each_copy
@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_rulesets(again: Callable[[Any], Any], rules: Ruleset) -> None:
    r = again(rules)
    assert type(r) is Ruleset and r == rules and hash(r) == hash(rules)
    assert (repr(r), r.to_dict(), r.kernel_flags()) == (
        repr(rules),
        rules.to_dict(),
        rules.kernel_flags(),
    )
    hand, trick = Hand.parse("AK2.QJ.T98.5432"), "7H 9S"
    assert r.legal_cards(hand, trick) == rules.legal_cards(hand, trick)
    assert [r.score(3, t) for t in range(14)] == [rules.score(3, t) for t in range(14)]


@each_copy
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rules=st.sampled_from(RULES),
    cards=st.integers(0, 52),
)
def test_positions_mid_play(
    again: Callable[[Any], Any], seed: int, rules: Ruleset, cards: int
) -> None:
    pos = _position(seed, rules, cards)
    _same_position(pos, again(pos))


@each_copy
def test_a_position_under_other_rules_with_the_same_switches(again: Callable[[Any], Any]) -> None:
    """``under`` keeps the played cards and takes rules that differ only in scoring: the copy
    has those rules too."""
    pos = _position(8, Ruleset.preset("online"), 21).under("online+flat")
    p = again(pos)
    assert p.rules == Ruleset.preset("online+flat")
    _same_position(pos, p)


# --- matches and the value types built on cards --------------------------------------------------


def _match() -> Match:
    m = Match("modern", players=["Asha", "Bikash", "Chirag", "Dipa"])
    m.record_deal([3, 4, 2, 3], [4, 4, 2, 3])
    m.record_deal([2, 2, 5, 1], [1, 3, 6, 3])
    m.start_deal([1, 2, 3, 4])
    return m


@each_copy
def test_matches(again: Callable[[Any], Any]) -> None:
    match = _match()
    m = again(match)
    assert type(m) is Match and m == match and m is not match
    assert (repr(m), m.names, m.deals, m.totals, m.places(), m.dealer) == (
        repr(match),
        match.names,
        match.deals,
        match.totals,
        match.places(),
        match.dealer,
    )
    # playing on: the same results, and the original is left as it was
    assert m.record_deal(None, [2, 2, 5, 4]) == match.record_deal(None, [2, 2, 5, 4])
    m.record_deal([1, 1, 1, 1], [13, 0, 0, 0])
    assert len(match.deals) == 3 and m != match


def test_a_match_is_equal_to_another_with_the_same_deals_only() -> None:
    assert _match() == _match()
    other = _match()
    other.pending_calls = None
    assert other != _match() and Match("modern") != Match("strict")
    with pytest.raises(TypeError, match="unhashable"):
        hash(_match())


def _values() -> list[Any]:
    """One of each frozen value type holding hands, deals, cards or rules."""
    rules = Ruleset.preset("online")
    pos = _position(11, rules, 14)
    view = SeatView(
        seat=pos.to_move,
        hand=pos.hand(pos.to_move),
        rules=rules,
        calls=(2, 3, 4, 1),
        history=tuple(pos.history),
        trick=pos.trick,
        leader=pos.leader,
        tricks_won=pos.tricks_won,
    )
    board = play_deal(pos.deal, rules, [_Lowest() for _ in range(4)], seed=4)
    return [
        pos.tricks[0],
        pos.legal_cards_with_reasons(),
        DealResult(3, (2, 3, 4, 1), (3, 3, 4, 3), (21, 30, 40, 12)),
        solver.PlayoutResult(pos.trick, (1, 2, 3, 4)),
        view,
        board,
        (pos.deal, pos.hands, rules),
    ]


class _Lowest:
    """A referee player (``arena.players.Player``): the lowest call, the lowest legal card."""

    name = "lowest"

    def call(self, view: SeatView) -> int:
        return view.rules.min_call

    def play(self, view: SeatView) -> Card:
        return view.legal_cards().lowest()


@each_copy
def test_value_types_holding_core_objects(again: Callable[[Any], Any]) -> None:
    values = _values()
    copies = again(values)
    assert [type(x) for x in copies] == [type(x) for x in values]
    assert copies == values
    trick, legal = copies[0], copies[1]
    assert type(trick) is Trick and type(legal) is Legal
    assert legal.why(next(iter(legal.legal))) == values[1].text
    board = copies[5]
    assert board.position() == values[5].position()


# --- across processes ----------------------------------------------------------------------------


def _late_position(seed: int, rules: Ruleset) -> Position:
    """A position three tricks from the end, a card into the trick (a quick solve)."""
    return _position(seed, rules, 41)


def _work(deal: Deal, position: Position, rules: Ruleset) -> dict[str, Any]:
    """What a worker process computes from the objects it was handed, and core objects back:
    its double-dummy table, the position after its lowest legal card, and the objects as it
    received them (with its process id)."""
    table = solver.dd_table(position, rules)
    after = position.copy()
    after.play(after.legal_cards().lowest())
    return {
        "pid": os.getpid(),
        "table": table,
        "legal": position.legal_cards(),
        "after": after,
        "deal": deal,
        "rules": rules,
        "start": Position(deal, rules),
        "match": Match(rules),
    }


def _expected(deal: Deal, position: Position, rules: Ruleset) -> dict[str, Any]:
    """``_work`` in this process (equal to a worker's, so the comparison is exact)."""
    return _work(deal, position.copy(), rules)


def _cases() -> list[tuple[Deal, Position, Ruleset]]:
    out = []
    for seed, name in [(1, "online"), (2, "strict"), (3, "pagat+must_beat")]:
        rules = Ruleset.preset(name)
        pos = _late_position(seed, rules)
        out.append((pos.deal, pos, rules))
    return out


def _check_returned(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got.pop("pid") != want.pop("pid")  # computed in another process
    assert got == want
    _same_position(want["after"], got["after"])
    assert type(got["deal"]) is Deal and type(got["legal"]) is Hand


@pytest.mark.slow
def test_a_loky_worker_takes_and_returns_core_objects() -> None:
    from joblib import Parallel, delayed

    cases = _cases()
    got = Parallel(n_jobs=2, backend="loky")(delayed(_work)(*case) for case in cases)
    for case, out in zip(cases, got, strict=True):
        _check_returned(out, _expected(*case))


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    """A Dask client of a one-process local cluster (one worker process, one thread)."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.mark.slow
def test_a_dask_worker_process_takes_and_returns_core_objects(dask_client: Any) -> None:
    cases = _cases()
    futures = [dask_client.submit(_work, *case, pure=False) for case in cases]
    for case, out in zip(cases, dask_client.gather(futures), strict=True):
        _check_returned(out, _expected(*case))


def _results(report: Any) -> tuple[dict[str, Any], list[Any]]:
    """A tournament's report and boards without the decision times."""
    data = report.to_dict()
    del data["seconds"]
    for p in data["players"]:
        del p["ms_p50"], p["ms_p99"], p["ms_max"]
    return data, [dataclasses.replace(b, ms=()) for b in report.boards]


def test_a_tournament_on_dask_hands_its_boards_back_as_they_are(dask_client: Any) -> None:
    """The arena's tasks take their deals and rules and return their boards as objects: the
    same boards and report as in this process."""
    players = ["simple", "random", "honours", "random"]
    here = arena.run(players, "online", deals=2, seed=6)
    there = arena.run(players, "online", deals=2, seed=6, backend="dask", client=dask_client)
    assert _results(there) == _results(here)
    assert all(type(b.deal) is Deal and type(b.rules) is Ruleset for b in there.boards)
