"""Model selection for the shipped models (callbreak_lab.bidding.training, used by
scripts/make_models.py): pooling the other profiles' training deals, without leaks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from callbreak_lab.bidding import datasets as data
from callbreak_lab.bidding.evaluation import HandSet, flatten
from callbreak_lab.bidding.training import POOL_DEAL_OFFSET, pooled, select_params

FIXTURE = Path(__file__).parent / "data" / "bid"


@pytest.fixture(scope="module")
def train() -> HandSet:
    if not (FIXTURE / "modern" / "dataset.json").is_file():
        pytest.skip("solved fixture tests/data/bid/modern missing (see tests/data/bid/README.md)")
    return flatten(data.load("modern", FIXTURE, split="train"))


def test_pooled_shifts_deals_apart_and_drops_excluded_copies(train: HandSet) -> None:
    deals = np.unique(train.deal)
    exclude = deals[:3]
    out = pooled(train, [train, train], exclude=exclude)
    n, k = len(train), int(np.isin(train.deal, exclude).sum())
    assert len(out) == n + 2 * (n - k)
    # the own hands come first, untouched (the excluded deals stay: they are its validation)
    assert np.array_equal(out.deal[:n], train.deal)
    assert np.array_equal(out.masks[:n], train.masks)
    others = out.deal[n:]
    assert set(np.unique(others // POOL_DEAL_OFFSET)) == {1, 2}
    assert not np.isin(others % POOL_DEAL_OFFSET, exclude).any()
    # every pooled deal number is one source's deal: no two sources share a number
    assert len(np.unique(out.deal)) == len(deals) + 2 * (len(deals) - 3)


def test_select_params_measures_pooling_on_unleaked_validation(train: HandSet) -> None:
    # the "other profile" is the same deals with the outcomes of a far weaker player: pooling
    # with it must make the validation log loss worse, so it is measured and refused
    other = HandSet(train.masks, train.seats, np.zeros_like(train.playout), train.dd, train.deal)
    params, table = select_params(train, "modern", 0, ["ordinal"], others=[other])
    pooling = table["pooling"]
    assert params["pool"] is False and pooling["kept"] is False
    assert pooling["log_loss"] > table["ordinal"]["log_loss"]
    # the other profile's copies of the validation deals were left out of the pooled fit
    val_deals = table["validation_hands"] // 4
    assert pooling["fit_hands"] == table["fit_hands"] + len(train) - 4 * val_deals
