"""The models shipped in ``models/``: they load (card checked), were trained on the dataset shipped
beside them in ``data/``, and give sensible calls under every preset of their profile.

Profiles without a shipped model are listed in the README; their parameters skip here with that
reason, so a model that lands is tested at once.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from callbreak_lab.bidding.datasets import PRESET_PROFILE, PROFILES
from callbreak_lab.bidding.model import load_model, model_paths, read_card, recommend_call

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
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
    proba = model.predict_proba(masks.astype(np.uint64), rng.integers(0, 4, 64))
    assert proba.shape == (64, 14)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    for preset, prof in PRESET_PROFILE.items():
        if prof != profile:
            continue
        strong = recommend_call(STRONG, 1, preset, model=model)
        weak = recommend_call(WEAK, 1, preset, model=model)
        assert strong.call > weak.call, (preset, strong.call, weak.call)
        assert strong.distribution @ np.arange(14) > 8 > weak.distribution @ np.arange(14)
