"""The learned play policy (``seat.playmodel``): legal cards, probabilities, training, the
shipped models."""

from __future__ import annotations

import numpy as np
import pytest

from callbreak_lab.cards import Card, Deal, Hand
from callbreak_lab.game import Position
from callbreak_lab.rules import PRESETS, Ruleset
from callbreak_lab.seat import PIMC, STRONG, Knowledge, SearchPolicy, cheap_card
from callbreak_lab.seat.playmodel import (
    FEATURE_NAMES,
    PlayModel,
    card_proba,
    decisions_from_records,
    legal_masks,
    load_play_model,
    record_states,
)
from callbreak_lab.seat.policy import LEARNED, learned_card


def random_records(rules: Ruleset, deals: int, seed: int) -> tuple[np.ndarray, ...]:
    """``deals`` random play-outs: hands as dealt, calls, records."""
    rng = np.random.default_rng(seed)
    hands, calls, plays = [], [], []
    for i in range(deals):
        d = Deal.random(seed * 1000 + i)
        pos = Position(d, rules)
        while not pos.is_over:
            legal = list(pos.legal_cards())
            pos.play(legal[int(rng.integers(len(legal)))])
        hands.append([d[s].mask for s in range(4)])
        calls.append([int(x) for x in rng.integers(1, 6, 4)])
        plays.append([int(c) for _, c in pos.history])
    return np.array(hands, dtype=np.uint64), np.array(calls), np.array(plays)


@pytest.mark.parametrize("preset", ["online", "modern", "strict", "home"])
def test_legal_masks_are_the_rules(preset: str) -> None:
    """The vectorised legal cards equal ``Ruleset.legal_mask`` at every card of random deals."""
    rules = Ruleset.coerce(preset)
    hands, _, plays = random_records(rules, 6, 3)
    for h, rec in zip(hands, plays, strict=True):
        movers, _, before, states = record_states(list(rec), [None] * 4)
        legal = legal_masks(rules, states.with_hands(h[movers] & ~before))
        pos = Position(Deal([Hand(int(m)) for m in h]), rules)
        for i, c in enumerate(rec):
            assert int(legal[i]) == pos.legal_cards().mask
            pos.play(Card(int(c)))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_shipped_policy_loads_and_gives_legal_probabilities(preset: str) -> None:
    """Every preset's play model loads from the package, and its probabilities cover exactly
    the legal cards and sum to one, at every card of a deal."""
    rules = Ruleset.coerce(preset)
    model = load_play_model(rules)
    assert model.coef_.shape == (len(FEATURE_NAMES),)
    pos = Position(Deal.random(11), rules)
    while not pos.is_over:
        k = Knowledge.of_position(pos, pos.to_move, calls=[3, 2, 4, 3])
        proba = card_proba(model, k)
        assert set(proba) == set(pos.legal_cards())
        assert sum(proba.values()) == pytest.approx(1.0)
        assert all(p > 0 for p in proba.values())
        pos.play(max(proba, key=lambda c: proba[c]))


def test_training_is_reproducible_with_a_seed() -> None:
    """Two fits with one seed give the same weights; the fit learns to follow the data."""
    rules = Ruleset.coerce("online")
    x, y, groups = decisions_from_records(rules, *random_records(rules, 4, 5))
    a = PlayModel(random_state=3).fit(x, y, groups)
    b = PlayModel(random_state=3).fit(x, y, groups)
    assert np.array_equal(a.coef_, b.coef_)
    p = a.predict_proba(x, groups)
    assert np.allclose(np.bincount(groups, weights=p), 1.0)
    with pytest.raises(Exception, match="fitted"):
        PlayModel().predict_proba(x, groups)


@pytest.mark.parametrize("preset", ["online", "modern", "home"])
def test_the_learned_policy_plays_its_likeliest_legal_card(preset: str) -> None:
    """``LEARNED`` (the ``learned`` player's policy) and ``learned_card`` answer the legal card
    with the highest probability, ties to the lowest; ``strong`` plays it without search
    (``STRONG.fallback``), ``pimc`` keeps the cheap card."""
    rules = Ruleset.coerce(preset)
    model = load_play_model(rules)
    pos = Position(Deal.random(4), rules)
    no_search = STRONG.replace(search_cards=0)
    while not pos.is_over:
        k = Knowledge.of_position(pos, pos.to_move, calls=[3, 2, 4, 3])
        proba = card_proba(model, k)
        top = max(proba.values())
        best = min(c for c, p in proba.items() if p == top)
        choice = LEARNED.choose(k, 0.001 * (1 + len(k.record) % 3), seed=len(k.record))
        legal = pos.legal_cards()
        assert choice.card == best or len(legal) == 1
        assert choice.how == ("forced" if len(legal) == 1 else "learned")
        assert learned_card(k) == best
        assert no_search.choose(k, seed=1).card == choice.card
        if len(legal) > 1:
            assert no_search.choose(k, seed=1).how == "learned"
            assert PIMC.replace(search_cards=0).instant_card(k) == cheap_card(
                rules, k.hand, k.trick, k.record
            )
        pos.play(choice.card)
    assert STRONG.fallback == "learned" and PIMC.fallback == "cheap"
    with pytest.raises(ValueError, match="fallback"):
        SearchPolicy(fallback="random")  # type: ignore[arg-type]


def test_the_learned_player_in_the_arena() -> None:
    """``learned`` is a built-in player; four of them play a legal deal, twice the same."""
    from callbreak_lab.arena.players import LearnedPlayer, make_player
    from callbreak_lab.arena.referee import play_deal

    player = make_player("learned", "online")
    assert isinstance(player, LearnedPlayer)
    a = play_deal(Deal.random(8), "online", [make_player("learned") for _ in range(4)], seed=2)
    b = play_deal(Deal.random(8), "online", [make_player("learned") for _ in range(4)], seed=2)
    assert a.plays == b.plays and len(a.plays.replace("|", " ").split()) == 52
