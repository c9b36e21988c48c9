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
from callbreak_lab.seat import Knowledge
from callbreak_lab.seat.layouts import (
    OVERSAMPLE,
    PLAY_OVERSAMPLE,
    PLAY_WEIGHT,
    draw,
    play_log_likelihood,
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
    """With the plays weighed the draw still deals consistent layouts and reports the
    weights' effective sample size; a negative weight is refused."""
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
    with pytest.raises(ValueError, match="play_weight"):
        draw(k, 16, 7, play_weight=-1.0)


def test_more_candidates_keep_more_layouts_under_the_plays() -> None:
    """The plays' weights are uneven: weighing ``PLAY_OVERSAMPLE`` candidates a layout keeps
    a larger effective sample than ``OVERSAMPLE``."""
    _, k = lowest_cards(5, 24)
    few = draw(k, 64, 7, play_weight=PLAY_WEIGHT, oversample=OVERSAMPLE)
    many = draw(k, 64, 7, play_weight=PLAY_WEIGHT, oversample=PLAY_OVERSAMPLE)
    assert PLAY_OVERSAMPLE > OVERSAMPLE
    assert many.candidates == 64 * PLAY_OVERSAMPLE
    assert many.ess > few.ess


def test_strong_deals_without_the_plays() -> None:
    """``strong`` (the shipped bot) weighs the layouts by the calls alone: its policy has no
    play weight, and its dealer's candidates are ``OVERSAMPLE`` a layout."""
    from callbreak_lab.arena.players import make_player
    from callbreak_lab.seat import STRONG

    policy = make_player("strong").policy  # type: ignore[attr-defined]
    assert policy == STRONG and policy.oversample == OVERSAMPLE
    assert not hasattr(policy, "play_weight")
