"""The models shipped in ``callbreak_lab/models/``: they load (card checked), were trained on the
dataset shipped in ``data/``, and give sensible calls under every preset of their profile.

Profiles without a shipped model are listed in the README; their parameters skip here with that
reason, so a model that lands is tested at once.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from callbreak_lab.bidding.datasets import PRESET_PROFILE, PROFILES
from callbreak_lab.bidding.model import (
    encode_hands,
    load_model,
    model_paths,
    read_card,
    recommend_call,
)

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "callbreak_lab" / "models"
EVALUATION = ROOT / "benchmarks" / "evaluation"
DATA = ROOT / "data"

STRONG = "AKQJT.AK.AK.AK32"  # spades first; near-certain tricks
WEAK = "2.5432.5432.5432"


def _shipped(profile: str) -> bool:
    return model_paths(profile, MODELS)[0].is_file()


@pytest.mark.parametrize("profile", PROFILES)
def test_shipped_model(profile: str) -> None:
    if not _shipped(profile):
        pytest.skip(f"no model shipped for profile {profile!r} yet (see README, Current state)")
    model = load_model(profile, MODELS, cache=False)
    card = read_card(profile, MODELS)
    # provenance: the card names the shipped dataset of the same profile
    dataset = json.loads((DATA / profile / "dataset.json").read_text())
    assert card["dataset_hash"] == dataset["content_hash"]
    rng = np.random.default_rng(0)
    masks = np.array([sum(1 << int(c) for c in rng.permutation(52)[:13]) for _ in range(64)])
    proba = model.predict_proba(encode_hands(masks.astype(np.uint64), rng.integers(0, 4, 64)))
    assert proba.shape == (64, 14)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    for preset, prof in PRESET_PROFILE.items():
        if prof != profile:
            continue
        strong = recommend_call(STRONG, 1, preset, model=model)
        weak = recommend_call(WEAK, 1, preset, model=model)
        assert strong.call > weak.call, (preset, strong.call, weak.call)
        assert strong.distribution @ np.arange(14) > 8 > weak.distribution @ np.arange(14)


@pytest.mark.parametrize("preset", list(PRESET_PROFILE))
def test_shipped_model_reproduces_its_held_out_report(preset: str) -> None:
    """The held-out numbers in ``benchmarks/evaluation/evaluation-<preset>.json`` come out again
    from the shipped file (log losses of both heads, the model's mean score and, for a
    conditioned model, its score with the earlier seats' calls)."""
    from callbreak_lab.bidding import datasets as data
    from callbreak_lab.bidding.calls import best_calls
    from callbreak_lab.bidding.estimator import deal_calls
    from callbreak_lab.bidding.evaluation import flatten, log_loss, score_row
    from callbreak_lab.rules import Ruleset

    profile = PRESET_PROFILE[preset]
    report_path = EVALUATION / f"evaluation-{preset}.json"
    if not _shipped(profile) or not report_path.is_file():
        pytest.skip(f"no model or no held-out report shipped for {preset!r}")
    report = json.loads(report_path.read_text())
    model = load_model(profile, MODELS, cache=False)
    test = flatten(data.load(profile, DATA, split="test"))
    rules = Ruleset.preset(preset)
    x = encode_hands(test.masks, test.seats)
    proba = model.predict_proba(x)
    assert len(test) == report["test_hands"]
    assert log_loss(proba, test.playout) == pytest.approx(report["log_loss"]["playout"], abs=1e-12)
    floor = log_loss(model.predict_floor_proba(x), test.dd)
    assert floor == pytest.approx(report["log_loss"]["floor"], abs=1e-12)
    shipped_row = next(r for r in report["playout_table"] if r["name"] == "model")
    row = score_row("model", best_calls(proba, rules).call, test.playout, rules)
    assert row.mean_score == pytest.approx(shipped_row["mean_score"], abs=1e-12)
    if model.conditioned_ is not None:
        table = deal_calls(proba, test.deal, test.seats, model.call_rules_)
        cond = model.predict_proba(encode_hands(test.masks, test.seats, table))
        cond_row = score_row("conditioned", best_calls(cond, rules).call, test.playout, rules)
        shipped_cond = next(r for r in report["conditioning"] if r["name"] == "conditioned")
        assert cond_row.mean_score == pytest.approx(shipped_cond["mean_score"], abs=1e-12)
