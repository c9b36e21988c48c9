"""The dealer's inference from the cards played (``seat.layouts.draw(play_weight=...)``,
``play_log_likelihood``) under the shipped play policy."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from callbreak_lab.cards import Deal
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat import Knowledge, SearchPolicy
from callbreak_lab.seat.layouts import (
    OVERSAMPLE,
    PLAY_OVERSAMPLE,
    PLAY_WEIGHT,
    draw,
    effective_size,
    play_log_likelihood,
    tempered,
)


def lowest_cards(seed: int, cards: int) -> tuple[Position, Knowledge]:
    """``Deal.random(seed)`` (online) after ``cards`` of everyone's lowest legal card, and what
    the seat to move knows then with calls of 3, 4, 2 and 5."""
    pos = Position(Deal.random(seed), Ruleset.coerce("online"))
    for _ in range(cards):
        pos.play(min(pos.legal_cards()))
    return pos, Knowledge.of_position(pos, pos.to_move, calls=[3, 4, 2, 5])


def _loglik(rules: Ruleset, seat: int, record: str, *layouts: list[str]) -> list[float]:
    """The play log-likelihood of each layout (four dotted hands as dealt) for ``seat``."""
    deal = Deal.parse(" ".join(layouts[0]))
    k = Knowledge.of_position(Position.replay(deal, record, rules), seat, calls=[3, 3, 3, 3])
    rows = np.array(
        [[Deal.parse(" ".join(h))[s].mask for s in range(4)] for h in layouts], dtype=np.uint64
    )
    return list(play_log_likelihood(rows, k))


def test_a_layout_that_contradicts_a_lead_is_less_likely() -> None:
    """Seat 0 led the 2♣ to the first trick: a layout that gives it the A♦ (the best diamond
    left, which it would have led: the ``strong`` player cashes a side suit's best card first)
    is less likely than one where the A♦ is seat 1's."""
    rules = Ruleset.coerce("online")
    fits = ["AKQ.KQJ.JT2.5432", "JT9.A32.AK98.AKT", "8765.T98.Q76.QJ9", "432.7654.543.876"]
    contradicts = ["AKQ.KQJ.AT2.5432", "JT9.A32.KJ98.AKT", *fits[2:]]
    a, b = _loglik(rules, 3, "2C", fits, contradicts)
    assert a > b


def test_a_layout_where_the_last_seat_ducked_with_the_ace_is_less_likely() -> None:
    """Home rules (no need to beat): seat 3, last to the trick, played the 2♥ under the K♥.
    A layout where it held the A♥ (a sure trick it gave away) is less likely than one where the
    A♥ is seat 1's, who then won the trick with the cheaper of its two top hearts."""
    rules = Ruleset.coerce("home")
    fits = ["AKQ.QJ.AKQJ2.543", "JT9.AK54.T987.AK", "8765.T9876.54.QJ", "432.32.63.T98762"]
    contradicts = [fits[0], "JT9.K54.T9876.AK", fits[2], "432.A32.3.T98762"]
    a, b = _loglik(rules, 2, "QH KH 6H 2H", fits, contradicts)
    assert a > b


def _digest(drawn: object) -> str:
    rows = drawn.rows  # type: ignore[attr-defined]
    weights = drawn.weights  # type: ignore[attr-defined]
    return hashlib.sha256(rows.tobytes() + weights.tobytes()).hexdigest()[:16]


def _rows_digest(drawn: object) -> str:
    rows = np.ascontiguousarray(drawn.rows, dtype=np.uint64)  # type: ignore[attr-defined]
    return hashlib.sha256(rows.tobytes()).hexdigest()[:16]


#: ``draw(k, 16, 7, **kw)`` of the dealer before the play policy (recorded from the code of
#: main at 2817e65): the play weight off must deal exactly these layouts, with these weights
#: (floats, compared within a tolerance: their last bits depend on the CPU's vector units)
BEFORE = json.loads((Path(__file__).parent / "reference" / "draw_before.json").read_text())
DRAWS = {"default": {}, "exact_limit=2000": {"exact_limit": 2000}, "beta=0": {"beta": 0.0}}


@pytest.mark.parametrize(
    ("preset", "seed", "cards"),
    [("online", 3, 0), ("modern", 4, 17), ("strict", 5, 30), ("home", 6, 41)],
)
def test_draw_with_the_play_weight_off_deals_as_before(preset: str, seed: int, cards: int) -> None:
    rules = Ruleset.coerce(preset)
    pos = Position(Deal.random(seed), rules)
    for _ in range(cards):
        pos.play(min(pos.legal_cards()))
    k = Knowledge.of_position(pos, pos.to_move, calls=[3, 4, 2, 5])
    for name, kw in DRAWS.items():
        before = BEFORE[f"{preset} {seed} {cards} {name}"]
        for drawn in (draw(k, 16, 7, play_weight=0.0, **kw), draw(k, 16, 7, **kw)):  # type: ignore[arg-type]
            assert _rows_digest(drawn) == before["rows"], name
            np.testing.assert_allclose(drawn.weights, before["weights"], rtol=1e-9, err_msg=name)


def test_draw_with_the_play_weight_on() -> None:
    """With the plays weighed the draw still deals consistent layouts, reports the weights'
    effective sample size, and the policy's field turns it on."""
    rules = Ruleset.coerce("online")
    pos = Position(Deal.random(21), rules)
    for _ in range(22):
        pos.play(min(pos.legal_cards()))
    k = Knowledge.of_position(pos, pos.to_move, calls=[3, 4, 2, 5])
    on = draw(k, 16, 7, play_weight=1.0)
    off = draw(k, 16, 7)
    assert 0 < on.ess <= on.candidates and on.candidates == off.candidates
    assert _digest(on) != _digest(off)
    for row in on.rows:
        assert int(row[k.seat]) == k.hand | k.played_by[k.seat]
        for s in range(4):
            assert int(row[s]) & k.played_by[s] == k.played_by[s]
            assert int(row[s]) & ~k.played_by[s] & k.banned(s) == 0
    policy = SearchPolicy(layouts=8, play_weight=1.0)
    assert policy.choose(k, seed=1).card in pos.legal_cards()
    with pytest.raises(ValueError, match="play_weight"):
        SearchPolicy(play_weight=-1.0)


def test_the_likeliest_distinct_layouts_instead_of_a_resample() -> None:
    """``resample=False``: as many distinct layouts as asked for (the resample repeats the few
    the plays favour), the likeliest first, consistent with the table, weighted by their
    likelihood scaled to their number; the same candidates and ESS as the resample."""
    pos, k = lowest_cards(23, 26)
    resampled = draw(k, 32, 3, play_weight=PLAY_WEIGHT, oversample=PLAY_OVERSAMPLE)
    top = draw(k, 32, 3, play_weight=PLAY_WEIGHT, oversample=PLAY_OVERSAMPLE, resample=False)
    assert len(resampled) < 32 == len(top)  # the resample repeats layouts; the top does not
    assert (top.candidates, top.ess) == (resampled.candidates, resampled.ess)
    assert len(np.unique(top.rows, axis=0)) == 32
    assert np.all(np.diff(top.weights) <= 1e-12) and top.weights.sum() == pytest.approx(32)
    for row in top.rows:
        assert int(row[k.seat]) == k.hand | k.played_by[k.seat]
        for s in range(4):
            assert int(row[s]) & k.played_by[s] == k.played_by[s]
            assert int(row[s]) & ~k.played_by[s] & k.banned(s) == 0
    # the resample's likeliest layout is the top's first
    assert any((top.rows[0] == r).all() for r in resampled.rows[:3])
    from callbreak_lab.arena.players import make_player

    top_policy = make_player("strong:infer:top").policy  # type: ignore[attr-defined]
    policy = make_player("strong:infer").policy  # type: ignore[attr-defined]
    assert top_policy.resample is False and top_policy.play_weight == PLAY_WEIGHT
    pos, k = lowest_cards(23, 28)  # a decision of 6 legal cards
    assert len(pos.legal_cards()) == 6
    assert top_policy.choose(k, seed=1).distinct == 64 > policy.choose(k, seed=1).distinct


def test_tempering_keeps_the_effective_sample_size_the_judgement_asks_for() -> None:
    """``tempered`` lowers the plays' weight just enough that the weights keep ``min_ess``
    (never under the calls' own effective size): the bisection's answer is the largest such
    weight, and a goal the full weight already meets leaves it alone."""
    rng = np.random.default_rng(3)
    base = rng.normal(0.0, 0.5, 400)
    extra = rng.normal(0.0, 4.0, 400)

    def ess(w: float) -> float:
        return effective_size(np.exp(base + w * extra - (base + w * extra).max()))

    assert ess(1.5) < 20
    w = tempered(base, extra, 1.5, 60.0)
    assert 0 < w < 1.5
    assert ess(w) >= 60.0 > ess(w + 1.5 / 2048)
    assert tempered(base, extra, 1.5, 0.0) == 1.5
    assert tempered(base, extra, 1.5, ess(1.5) - 1) == 1.5
    # a goal above what the calls alone give: the plays weigh only as much as keeps that
    w = tempered(base, extra, 1.5, 10_000.0)
    assert w < 0.05 and ess(w) >= ess(0.0)


def test_draw_with_a_least_effective_size() -> None:
    rules = Ruleset.coerce("online")
    pos = Position(Deal.random(21), rules)
    for _ in range(30):
        pos.play(min(pos.legal_cards()))
    k = Knowledge.of_position(pos, pos.to_move, calls=[3, 4, 2, 5])
    sharp = draw(k, 32, 7, play_weight=1.5)
    kept = draw(k, 32, 7, play_weight=1.5, min_ess=sharp.ess * 2)
    assert kept.ess >= sharp.ess * 2 - 1e-6
    assert len(kept) >= len(sharp)


def test_more_candidates_keep_more_layouts_under_the_plays() -> None:
    """The plays' weights are uneven: the ``strong:infer`` dealer weighs ``PLAY_OVERSAMPLE``
    candidates a layout, which keeps a larger effective sample than ``OVERSAMPLE``."""
    _, k = lowest_cards(5, 24)
    few = draw(k, 64, 7, play_weight=PLAY_WEIGHT, oversample=OVERSAMPLE)
    many = draw(k, 64, 7, play_weight=PLAY_WEIGHT, oversample=PLAY_OVERSAMPLE)
    assert PLAY_OVERSAMPLE > OVERSAMPLE
    assert many.candidates == 64 * PLAY_OVERSAMPLE
    assert many.ess > few.ess


def test_the_inference_variants_of_strong() -> None:
    """``strong:infer`` weighs the plays with ``PLAY_OVERSAMPLE`` candidates a layout,
    ``strong:infer:soft`` tempers them to ``PLAY_MIN_ESS``; ``strong`` leaves them out."""
    from callbreak_lab.arena.players import make_player
    from callbreak_lab.seat.layouts import PLAY_MIN_ESS

    plain = make_player("strong").policy  # type: ignore[attr-defined]
    infer = make_player("strong:infer").policy  # type: ignore[attr-defined]
    soft = make_player("strong:infer:soft").policy  # type: ignore[attr-defined]
    assert plain.play_weight == 0 and plain.oversample == OVERSAMPLE
    assert infer.play_weight == PLAY_WEIGHT and infer.oversample == PLAY_OVERSAMPLE
    assert infer.min_ess == 0 and soft.min_ess == PLAY_MIN_ESS
    assert soft.replace(min_ess=0.0) == infer
    with pytest.raises(ValueError, match="min_ess"):
        soft.replace(min_ess=-1.0)
