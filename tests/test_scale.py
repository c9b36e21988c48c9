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
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.outcomes import card_outcomes
from callbreak_lab.seat.scale import GAPS, N, cross_check, fit_profiles, scale_for

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
