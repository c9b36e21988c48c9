"""The play-out scale (``seat.scale``): the shipped table, the card outcomes on it, the advice,
the hint and the reviews that show it, and its calibration on positions held out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from callbreak_lab import Position
from callbreak_lab.analysis.advice import single_dummy_values
from callbreak_lab.analysis.review import review_play
from callbreak_lab.bidding.datasets import PROFILES
from callbreak_lab.cards import Card, Hand
from callbreak_lab.errors import ModelError
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.outcomes import card_outcomes
from callbreak_lab.seat.scale import (
    GAPS,
    HandGain,
    N,
    cross_check,
    fit_hand_gain,
    fit_profiles,
    gain_features,
    hands_check,
    scale_for,
)

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = ROOT / "benchmarks" / "one_scale" / "positions"
CARD = ROOT / "callbreak_lab" / "models" / "scale_card.json"
SAFETY_DEAL = "J75.T42.JT52.QT3 QT98.5.9843.J642 K3.AKJ9763.AK.95 A642.Q8.Q76.AK87"
SAFETY_PLAYS = (
    "5D 9D KD QD | 6H QH TH 5H | 7C TC JC 9C | 2C 5C 8C QC | JS QS KS AS | 4S 7S 9S 3S | "
    "8D AD 6D 2D | 9H 8H 4H 8S | 4D JH 7D JD | 3C 4C 3H KC | 2S 5S TS 7H"
)


@pytest.mark.parametrize("profile", list(PROFILES))
def test_the_shipped_table_spreads_each_floor_upwards(profile: str) -> None:
    """Every row of the table is a distribution over the floor .. the tricks left: the play-out
    keeps the seat's floor and takes no more tricks than are left."""
    preset = {"home_pagat": "pagat"}.get(profile, profile)
    dist = scale_for(Ruleset.preset(preset)).dist
    t = np.arange(N + 1)
    for left in range(N + 1):
        for gap in range(GAPS):
            for value in range(left + 1):
                row = dist[left, gap, value]
                assert row.sum() == pytest.approx(1.0)
                assert np.all(row[(t < value) | (t > left)] == 0)
    # with the whole deal ahead, a floor of 0 still expects tricks in the play-out
    assert scale_for(Ruleset.preset(preset)).expected(13, 0) > 0.3


def test_card_outcomes_keep_the_floor_and_show_the_playout_scale() -> None:
    """Hand-made layouts: the floor figures are the values' own (as the players judge), the
    shown ones come from the table and never fall below the floor."""
    rules = Ruleset.preset("online")
    values = [{0: 2, 1: 1, 2: 0}, {0: 1, 1: 1, 2: 0}, {0: 3, 1: 2, 2: 1}, {0: 2, 1: 2, 2: 0}]
    w = np.array([1.0, 2.0, 1.0, 1.0])
    out = card_outcomes(values, w, rules, 3, 1, left=5)
    scale = scale_for(rules)
    wn = w / w.sum()
    for c in (0, 1, 2):
        o = out.cards[next(k for k in out.cards if int(k) == c)]
        floor = np.array([v[c] for v in values])
        best = np.array([max(v.values()) for v in values])
        assert o.floor_tricks == pytest.approx(wn @ floor + 1)
        assert o.floor_make == pytest.approx(wn @ (floor + 1 >= 3))
        spread = scale.spread(5, floor, best)
        assert o.tricks == pytest.approx(wn @ (spread @ (np.arange(N + 1) + 1)))
        assert o.make == pytest.approx(wn @ (spread @ (np.arange(N + 1) + 1 >= 3)))
        assert o.tricks >= o.floor_tricks - 1e-9 and (o.make or 0) >= (o.floor_make or 0) - 1e-9
    # the players' choice stays the floor's: card 0 has the best floor
    assert int(out.best()) == 0


def test_a_call_the_floor_never_makes_still_tells_the_cards_apart() -> None:
    """Seat 0 called 7 with 10 tricks left: on every layout the floor misses the call, so on
    the floor every card scores -7.00 and makes 0 %. On the play-out scale the cards whose
    floors differ differ (the 07 hint's all-equal list)."""
    rules = Ruleset.preset("online")
    values = [{0: 6, 1: 5, 2: 3, 3: 4}, {0: 5, 1: 5, 2: 4, 3: 3}, {0: 6, 1: 4, 2: 3, 3: 3}]
    out = card_outcomes(values, np.ones(3), rules, 7, 0, left=10)
    for o in out.cards.values():
        assert o.floor_expected == pytest.approx(-7.0) and o.floor_make == 0
    shown = [o.expected for o in out.cards.values()]
    assert len({round(x or 0.0, 6) for x in shown}) >= 2
    best = max(out.cards, key=lambda c: out.cards[c].expected or 0.0)
    assert int(best) == 0 and (out.cards[best].make or 0.0) > 0.0


def test_a_card_that_takes_too_many_tricks_misses_a_window_call() -> None:
    """Home scores a call made only at the call or one more: a card whose floor is two over
    the call misses there (a negative score) and makes under online; the play-out scale's make
    chance is its mass where the score is positive, the same rule as the call advisor's."""
    values = [{0: 5, 1: 3}, {0: 5, 1: 3}]
    for preset, five in (("home", 0.0), ("online", 1.0)):
        rules = Ruleset.preset(preset)
        floor = card_outcomes(values, np.ones(2), rules, 3, 0)
        assert floor.cards[Card(0)].floor_make == five
        assert floor.cards[Card(1)].floor_make == 1.0
        out = card_outcomes(values, np.ones(2), rules, 3, 0, left=10)
        spread = scale_for(rules).spread(10, np.array([5, 5]), np.array([5, 5]))
        t = np.arange(N + 1)
        made = np.array([rules.score(3, int(x)) > 0 for x in t])
        assert out.cards[Card(0)].make == pytest.approx(float((spread @ made).mean()))
    # the window's make chance is below the open-ended one for the same spread
    home = card_outcomes(values, np.ones(2), Ruleset.preset("home"), 3, 0, left=10)
    online = card_outcomes(values, np.ones(2), Ruleset.preset("online"), 3, 0, left=10)
    assert (home.cards[Card(0)].make or 0.0) < (online.cards[Card(0)].make or 0.0)


def test_single_dummy_advice_speaks_the_playout_scale_and_names_the_floor() -> None:
    """A known position at trick 11 (every consistent layout: exact): the numbers are the
    play-out scale's (the text shows them), the floor's are beside them in the dict, which names
    the scale."""
    full = Position.replay(
        SAFETY_DEAL, " ".join(SAFETY_PLAYS.replace("|", "").split()[:40]), "online"
    )
    assert full.to_move == 3
    sd = single_dummy_values(full, full.to_move, [2, 2, 2, 4], n_jobs=1)
    d = sd.to_dict()
    assert d["scale"] == "playout"
    for card in d["cards"]:
        assert {"floor_expected", "floor_tricks", "floor_make"} <= set(card)
        assert card["tricks"] >= card["floor_tricks"] - 1e-9
    best = sd.outcomes[sd.best]
    assert sd.value(sd.best) == pytest.approx(best.expected)
    assert f"tricks {best.tricks:5.2f}" in sd.text()


def test_a_review_charges_costs_on_the_playout_scale() -> None:
    """The costly 2♠ of tests/test_review.py: its cost is the difference of the best card's and
    its own expected scores on the play-out scale, from the solver's values and the table."""
    rv = review_play(SAFETY_DEAL, SAFETY_PLAYS, "online", calls=[2, 2, 2, 4], seats=[3], first=40)
    card = rv.cards[40]
    sd = card.sd
    assert sd is not None and str(card.card) == "2S"
    best, played = sd.outcomes[sd.best], sd.outcomes[card.card]
    assert card.cost == pytest.approx((best.expected or 0) - (played.expected or 0))
    # the floor charges the whole swing (make against miss); the play-out scale no more than it
    floor_cost = (best.floor_expected or 0) - (played.floor_expected or 0)
    assert 0 < card.cost <= floor_cost + 1e-9
    assert rv.players[0].play_cost == pytest.approx(card.cost)


def _positions(profile: str) -> dict[str, np.ndarray]:
    """The positions the shipped table was fitted from (the chunks its card names)."""
    names = json.loads(CARD.read_text())["profiles"][profile]["chunks"]
    parts = [np.load(POSITIONS / profile / name) for name in names]
    return {
        f: np.concatenate([p[f] for p in parts])
        for f in ("index", "left", "value", "best", "playout")
    }


def test_the_table_is_calibrated_on_positions_held_out() -> None:
    """Every position predicted by tables fitted without its deal (5 folds by deal,
    ``seat.scale.cross_check``): the mean tricks match, the expected tricks err far less than
    the floor does, and the chance of more tricks than the floor matches the observed one in
    every tenth of the predictions holding 100 positions or more (the positions of one deal go
    together, so a tenth holds few deals: a loose bound); the shipped table is the fit on all
    of them, and its card records the same check."""
    every = {p: _positions(p) for p in PROFILES}
    card = json.loads(CARD.read_text())
    checks = cross_check(every, prior=card["prior"])
    body = json.loads((ROOT / "callbreak_lab" / "models" / "scale.json").read_text())
    tables = fit_profiles(every, prior=card["prior"])
    for profile, check in checks.items():
        assert check["rows"] >= 500
        assert abs(check["predicted"] - check["observed"]) < 0.1
        assert check["mae"] < 0.7 * check["floor_mae"]
        for b in check["more_than_floor"]:
            if b["n"] >= 100:
                assert abs(b["predicted"] - b["observed"]) < 0.25, (profile, b)
        assert card["profiles"][profile]["held_out"] == check
        assert tables[profile] == body["tables"][profile]


# --- the hand the first trick's scale sees ---------------------------------------------------

#: kings and queens without an ace, and four aces without a king or queen
COURT = Hand.parse("KQ32.KQ2.KQ2.K32").mask
ACES = Hand.parse("A432.A32.A32.A32").mask


def test_the_hand_tilts_the_first_trick_the_way_the_solved_deals_say() -> None:
    """Two hands, the same floors on the same layouts: at the first trick the hand of kings and
    queens expects more tricks than the hand of aces (in the solved deals' training split of
    the online profile, at a floor of 3 / 4 / 5 a hand with at most one ace and five kings and
    queens or more gains 1.42 / 1.26 / 1.26 tricks over it in the play-out, one with three aces
    or more and two kings and queens at most 0.95 / 0.97 / 1.06). The floor's figures, and so
    the players' card, are the same."""
    rules = Ruleset.preset("online")
    values = [{0: 4, 1: 3, 2: 2}, {0: 3, 1: 3, 2: 2}, {0: 5, 1: 4, 2: 4}, {0: 4, 1: 4, 2: 3}]
    w = np.ones(4)
    court = card_outcomes(values, w, rules, 4, 0, left=13, hand=COURT)
    aces = card_outcomes(values, w, rules, 4, 0, left=13, hand=ACES)
    table = card_outcomes(values, w, rules, 4, 0, left=13)
    for c in court.cards:
        a, b = court.cards[c], aces.cards[c]
        assert a.floor_tricks == b.floor_tricks == table.cards[c].floor_tricks
        assert a.floor_make == b.floor_make
        assert a.tricks > b.tricks + 0.2, c
        assert (a.make or 0) > (b.make or 0)
        assert b.tricks >= b.floor_tricks - 1e-9
    assert court.best() == aces.best() == table.best()


def test_the_tilt_gives_the_best_card_the_hands_gain_and_keeps_the_gap() -> None:
    """At the first trick the best card's row averages its floor plus the hand model's gain; a
    card a trick below the best still gains more over its own floor than the best card does
    (the table's gap), and takes fewer tricks in all; later in the deal the table stands."""
    scale = scale_for(Ruleset.preset("online"))
    assert scale.gain is not None
    t = np.arange(N + 1)
    for hand in (COURT, ACES):
        for floor in range(1, 7):
            row = scale.spread(N, np.array([floor]), np.array([floor]), hand=hand)[0]
            gain = scale.gain.extra(
                np.array([hand], dtype=np.uint64), np.zeros(1, dtype=np.int64), [floor]
            )
            assert row @ t - floor == pytest.approx(float(gain[0]), abs=1e-3)
            assert np.all(row[:floor] == 0) and row.sum() == pytest.approx(1.0)
            below = scale.spread(N, np.array([floor - 1]), np.array([floor]), hand=hand)[0]
            assert below @ t - (floor - 1) > row @ t - floor
            assert below @ t < row @ t
        for left in (12, 8, 3):
            v, b = np.array([0, 1, 2]), np.array([2, 2, 2])
            assert np.array_equal(scale.spread(left, v, b, hand=hand), scale.spread(left, v, b))


def test_the_hand_model_refuses_bad_input() -> None:
    """A hand that is not 13 cards, a floor outside 0..13, a model of other features and
    play-outs below the floor are the library's errors (under ValueError)."""
    scale = scale_for(Ruleset.preset("online"))
    twelve = COURT & ~(COURT & -COURT)  # its lowest card taken away
    with pytest.raises(ModelError, match="13-card"):
        gain_features(
            np.array([twelve], dtype=np.uint64), np.zeros(1, dtype=np.int64), np.array([3])
        )
    with pytest.raises(ModelError, match="floors"):
        gain_features(
            np.array([COURT], dtype=np.uint64), np.zeros(1, dtype=np.int64), np.array([14])
        )
    with pytest.raises(ModelError, match="13-card"):
        scale.spread(N, np.array([3]), np.array([3]), hand=twelve, seat=1)
    assert scale.gain is not None
    body = scale.gain.to_json()
    assert HandGain.from_json(body).coef == pytest.approx(scale.gain.coef)
    with pytest.raises(ModelError, match="features"):
        HandGain.from_json({**body, "features": body["features"][:-1]})
    with pytest.raises(ModelError, match="below the floor"):
        fit_hand_gain(np.array([COURT], dtype=np.uint64), np.zeros(1, dtype=np.int64), [4], [3])


@pytest.mark.slow
@pytest.mark.parametrize("profile", list(PROFILES))
def test_the_shipped_scale_is_calibrated_on_held_out_deals(profile: str) -> None:
    """The solved deals of the test split (never fitted on): each hand's play-out tricks after
    its best card at the first trick, on the scale with the hand, are as many as observed on
    average, err far less than the floor and less than the table alone, match observed in every
    rounded count of predicted tricks holding 100 hands or more, and the chance of making the
    bid model's call matches the observed rate within 8 points in every tenth holding 100 hands
    or more; the card records the same check."""
    from callbreak_lab.bidding.cardchances import bid_model_calls
    from callbreak_lab.bidding.datasets import load

    test = load(profile, ROOT / "data", "test")
    seats = np.tile(np.arange(4), len(test))
    calls = bid_model_calls(test.masks, profile).reshape(-1)
    preset = {"home_pagat": "pagat"}.get(profile, profile)
    check = hands_check(
        scale_for(Ruleset.preset(preset)), test.masks.reshape(-1), seats,
        test.dd.reshape(-1), test.playout.reshape(-1), calls,
    )  # fmt: skip
    hand, table = check["hand"], check["table"]
    assert abs(hand["predicted"] - hand["observed"]) < 0.05
    assert hand["mae"] < 0.55 * hand["floor_mae"] and hand["mae"] < table["mae"] - 0.1
    for k, b in check["by_predicted"].items():
        if b["n"] >= 100:
            assert abs(b["predicted"] - b["observed"]) < 0.1, (k, b)
    for b in hand["make"]:
        if b["n"] >= 100:
            assert abs(b["predicted"] - b["observed"]) < 0.08, b
    recorded = json.loads(CARD.read_text())["profiles"][profile]["hands"]["test"]
    assert recorded["hand"]["mae"] == pytest.approx(hand["mae"], abs=1e-3)
    assert recorded["hand"]["make"] == hand["make"]
