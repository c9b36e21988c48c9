"""The solver resources that outlive a call (``solver.team``): a team has a lifetime, the shared
teams are made under a lock, and two judgements running at once on different threads, sharing
the process's team, give the answers they give one at a time."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from callbreak_lab.analysis.advice import advise, single_dummy_values
from callbreak_lab.cards import Deal
from callbreak_lab.errors import UsageError
from callbreak_lab.game import Position, random_player
from callbreak_lab.solver.team import SolverTeam, team


def _position(seed: int, cards: int) -> Position:
    pos = Position(Deal.random(seed), "online")
    policy = random_player(seed)
    while len(pos.history) < cards:
        pos.play(policy(pos))
    return pos


def _judge(which: int) -> dict[str, Any]:
    """One seeded judgement on a two-thread team (the first: a known deal; the second: at the
    table from one hand)."""
    if which == 0:
        pos = _position(31, 30)
        sd = single_dummy_values(pos, pos.to_move, [3, 4, 2, 3], layouts=12, seed=7,
                                 exact_limit=0, n_jobs=2)  # fmt: skip
    else:
        pos = _position(32, 27)
        hand = pos.hand(pos.to_move)
        sd = advise(hand, pos.record(), "online", [2, 3, 4, 3], layouts=12, seed=8,
                    exact_limit=0, n_jobs=2)  # fmt: skip
    return sd.to_dict()


def test_two_judgements_at_once_give_the_answers_of_one_at_a_time() -> None:
    alone = [_judge(0), _judge(1)]
    for _ in range(2):
        assert _at_once() == alone


def _at_once() -> list[dict[str, Any] | None]:
    """Both judgements started together on two threads."""
    together: list[dict[str, Any] | None] = [None, None]
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def work(i: int) -> None:
        try:
            start.wait()
            together[i] = _judge(i)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert errors == [] and not any(t.is_alive() for t in threads)
    return together


def test_a_team_has_a_lifetime() -> None:
    with SolverTeam(2) as crew:
        gate = threading.Event()
        gate.set()
        futures = [crew.run(lambda eng, i=i: (i, eng.threads), gate) for i in range(6)]
        assert sorted(f.result(timeout=60) for f in futures) == [(i, 2) for i in range(6)]
        assert not crew.closed and "open" in repr(crew)
    assert crew.closed and "closed" in repr(crew)
    with pytest.raises(UsageError, match="closed"):
        crew.run(lambda eng: None, threading.Event())


@pytest.mark.parametrize("bad", [0, 5, True, 2.0, "2"])
def test_a_team_of_a_wrong_size_is_refused(bad: Any) -> None:
    with pytest.raises(UsageError, match=r"threads must be a whole number 1\.\.4"):
        SolverTeam(bad)


def test_the_shared_team_is_one_per_size_and_made_again_once_closed() -> None:
    made: list[SolverTeam] = []

    def get() -> None:
        made.append(team(3))

    threads = [threading.Thread(target=get) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(t) for t in made}) == 1  # made once, under the lock
    first = made[0]
    first.close()
    again = team(3)
    assert again is not first and not again.closed
    again.close()
