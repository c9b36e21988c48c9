"""The arena measures real differences: the double-dummy ``cheater`` beats ``simple`` and the
sampling player ``pimc`` beats ``random`` by a wide margin on a few deals, under every preset
for ``pimc``. Deterministic players and seeded deals, so these are fixed outcomes, not flaky."""

from __future__ import annotations

import pytest

from callbreak_lab import arena, solver
from callbreak_lab.arena.referee import seat_view
from callbreak_lab.cards import Deal
from callbreak_lab.game import Position
from callbreak_lab.rules import PRESETS, Ruleset

ONLINE = Ruleset.preset("online")


@pytest.mark.slow
def test_cheater_beats_simple() -> None:
    report = arena.run(["cheater", "simple", "simple", "simple"], "online", deals=10, seed=0)
    m = report.margin("cheater", "simple")
    assert m.margin > 0.5 and m.margin > 3 * m.se, m
    assert report.player("cheater").made > 0.9  # it calls the tricks it can guarantee
    assert report.player("cheater").faults == 0


@pytest.mark.slow
def test_pimc_beats_random() -> None:
    report = arena.run(["pimc", "random", "random", "random"], "online", deals=8, seed=0)
    m = report.margin("pimc", "random")
    assert m.margin > 1.0 and m.margin > 5 * m.se, m
    assert report.player("pimc").faults == 0


@pytest.mark.parametrize("preset", [p for p in PRESETS if p != "online"])
def test_pimc_plays_every_preset(preset: str) -> None:
    report = arena.run(["pimc", "random", "random", "random"], preset, deals=2, seed=1)
    assert report.player("pimc").faults == 0
    assert report.margin("pimc", "random").margin > 0


@pytest.mark.slow
def test_cheater_with_the_model_calls_differs_from_model_only_in_play() -> None:
    from callbreak_lab.arena.players import CheaterPlayer

    def cheater_model() -> CheaterPlayer:
        return CheaterPlayer("model")

    report = arena.run(
        [cheater_model, "model", "model", "model"],
        "online",
        deals=3,
        seed=2,
    )
    cheat, field = report.player("cheater_model"), report.player("model")
    assert cheat.mean_call == field.mean_call  # duplicate boards: every hand called once by each
    assert cheat.mean_tricks > field.mean_tricks
    assert report.margin("cheater_model", "model").margin > 0
    assert cheat.faults == 0


def test_the_cheater_calls_its_floor_or_the_model_s_call() -> None:
    from callbreak_lab.arena.players import CheaterPlayer, make_player
    from callbreak_lab.errors import UsageError

    assert make_player("cheater").calls == "floor"  # type: ignore[attr-defined]
    assert CheaterPlayer("model").calls == "model"
    for gone in ("cheater:model", "cheater:playout"):
        with pytest.raises(UsageError, match="unknown player"):
            make_player(gone)
    for bad in ("playout", "psychic"):
        with pytest.raises(UsageError, match="call is"):
            CheaterPlayer(call=bad)


def test_a_budgeted_cheater_plays_the_learned_card_when_its_solve_is_stopped() -> None:
    """The first-lead card values of ``Deal.random(1416)`` take over ten million nodes (checked
    in test_solver_time_limit.py): under a 0.1 s time limit the solve is stopped, and the cheater
    plays the learned play policy's card instead of answering late."""
    from callbreak_lab.arena.players import CheaterPlayer
    from callbreak_lab.seat import Knowledge
    from callbreak_lab.seat.policy import LEARNED

    deal = Deal.random(1416)
    view = seat_view(Position.replay(deal, [], ONLINE), 0, (3, 3, 3, 3))
    cheater = CheaterPlayer("model", time_limit=0.1)
    cheater.prepare(ONLINE)
    cheater.reveal(deal)  # type: ignore[attr-defined]
    card = cheater.play(view)
    assert cheater.last_how == "learned (solve stopped)"  # type: ignore[attr-defined]
    assert card == LEARNED.instant_card(Knowledge.of_view(view))
    assert card in view.legal_cards()


def test_a_budgeted_cheater_that_solves_in_time_plays_the_unbudgeted_card() -> None:
    """With ten tricks played the solve ends well within a minute: the same card as without a
    time limit; a time limit that is not a positive number of seconds is refused."""
    from callbreak_lab.arena.players import CheaterPlayer
    from callbreak_lab.errors import UsageError

    deal = Deal.random(5)
    record = solver.playout(deal, ONLINE).cards[:40]  # ten tricks played: a quick solve
    pos = Position.replay(deal, record, ONLINE)
    view = seat_view(pos, pos.to_move, (3, 3, 3, 3))
    plain, timed = CheaterPlayer("model"), CheaterPlayer("model", time_limit=60.0)
    for p in (plain, timed):
        p.reveal(deal)
    assert timed.play(view) == plain.play(view)
    assert timed.last_how == "solve"
    with pytest.raises(UsageError, match="time_limit"):
        CheaterPlayer(time_limit=0)
