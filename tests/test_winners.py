"""Trick winners of replayed dataset play-outs (``bidding.winners``): every trick has one winning
card, the replays match the dataset's stored play-out counts, files are checked and resumable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from callbreak_lab.bidding import datasets as data
from callbreak_lab.bidding import winners
from callbreak_lab.errors import DataError

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


def test_trick_outcomes_of_a_hand_made_play_out() -> None:
    # the cards in id order: trick t holds cards 4t..4t+3 (the winner rule needs only the
    # cards in play order, not legal play)
    won, tricks = winners.trick_outcomes(np.arange(52))
    assert tricks.sum() == 13
    assert (won > 0).sum() == 13  # one winning card a trick
    # trick 1 is 2C 3C 4C 5C led by seat 0: the 5C (seat 3) wins on its own suit's lead
    assert won[:4].tolist() == [0, 0, 0, winners.LED_SUIT]
    # trick 10 is QH KH AH 2S: the 2S ruffs a heart lead
    assert won[36:40].tolist() == [0, 0, 0, winners.RUFF]
    # trick 11 is 3S..6S, a spade lead: the 6S wins on its own suit's lead, not by a ruff
    assert won[43] == winners.LED_SUIT


def test_trick_outcomes_refuses_a_play_out_without_every_card() -> None:
    with pytest.raises(DataError):
        winners.trick_outcomes(np.zeros(52, dtype=np.int64))


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["strict", "home_pagat"])
def test_replays_match_the_stored_play_out_counts(profile: str, tmp_path: Path) -> None:
    card = winners.generate(profile, data_dir=DATA, out_dir=tmp_path, test=2, train=2, chunk_size=1)
    assert card["complete"] and card["test"] == 2
    source = data.load(profile, DATA, split="all", verify=False)
    for split in ("test", "train"):
        w = winners.load(profile, tmp_path, split)  # type: ignore[arg-type]
        assert data.is_test(w.index).all() == (split == "test")
        rows = np.searchsorted(source.index, w.index)
        np.testing.assert_array_equal(w.playout, source.playout[rows])
        for q in range(4):  # the cards that won are the seat's own, as many as its tricks
            held = (w.masks[:, q : q + 1] >> np.arange(52, dtype=np.uint64)) & np.uint64(1)
            assert ((w.won > 0) & (held == 1)).sum(axis=1).tolist() == w.playout[:, q].tolist()
    # a rerun reuses the chunks; a damaged chunk is solved again, giving the same content
    (tmp_path / profile / "train-0001.npz").write_bytes(b"torn")
    again = winners.generate(
        profile, data_dir=DATA, out_dir=tmp_path, test=2, train=2, chunk_size=1
    )
    assert again["content_hash"] == card["content_hash"]
