"""The arena measures real differences: the double-dummy ``cheater`` beats ``simple`` and the
sampling player ``pimc`` beats ``random`` by a wide margin on a few deals, under every preset
for ``pimc``. Deterministic players and seeded deals, so these are fixed outcomes, not flaky."""

from __future__ import annotations

import pytest

from callbreak_lab import arena
from callbreak_lab.rules import PRESETS


@pytest.mark.slow
def test_cheater_beats_simple() -> None:
    report = arena.run(
        ["cheater", "simple", "simple", "simple"], "online", 10, seed=0, progress=False
    )
    m = report.margin("cheater", "simple")
    assert m.margin > 0.5 and m.margin > 3 * m.se, m
    assert report.player("cheater").made > 0.9  # it calls the tricks it can guarantee
    assert report.player("cheater").faults == 0


@pytest.mark.slow
def test_pimc_beats_random() -> None:
    report = arena.run(["pimc", "random", "random", "random"], "online", 8, seed=0, progress=False)
    m = report.margin("pimc", "random")
    assert m.margin > 1.0 and m.margin > 5 * m.se, m
    assert report.player("pimc").faults == 0


@pytest.mark.parametrize("preset", [p for p in PRESETS if p != "online"])
def test_pimc_plays_every_preset(preset: str) -> None:
    report = arena.run(["pimc", "random", "random", "random"], preset, 2, seed=1, progress=False)
    assert report.player("pimc").faults == 0
    assert report.margin("pimc", "random").margin > 0
