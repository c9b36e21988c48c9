"""Advice that answers at once and deepens (``advice.deepen``, ``advice.iter_advice``): the
learned card first, then the values over the layouts solved so far, one more each time, and
last the final answer, the same as ``values_from_knowledge`` gives; a time limit that leaves no
layout solved answers the learned card, labelled as such."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from callbreak_lab.analysis.advice import (
    AdviceUpdate,
    deepen,
    iter_advice,
    values_from_knowledge,
)
from callbreak_lab.cards import Deal
from callbreak_lab.errors import UsageError
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat import Knowledge
from callbreak_lab.seat.policy import learned_card


def _knowledge(seed: int, cards: int) -> Knowledge:
    """The seat to move after ``cards`` cards of a random deal played at random (calls 3 each)."""
    rng = np.random.default_rng(seed)
    p = Position(Deal.random(seed), "online")
    while len(p.history) < cards or len(p.legal_cards()) < 2:
        legal = list(p.legal_cards())
        p.play(legal[int(rng.integers(len(legal)))])
    return Knowledge.of_position(p, p.to_move, [3, 3, 3, 3])


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_the_advice_deepens_one_layout_at_a_time_to_the_final_answer(n_jobs: int | None) -> None:
    k = _knowledge(3, 24)
    updates: list[AdviceUpdate] = []
    last = deepen(k, layouts=12, seed=5, exact_limit=0, n_jobs=n_jobs, on_update=updates.append)
    first = updates[0]
    # the first answer comes before any layout is solved: the learned card, no value claimed
    assert first.answer is None and first.source == "learned" and first.solved == 0
    assert first.card == learned_card(k) and not first.final
    assert first.status().startswith("learned card · 0 of ")
    assert first.to_dict()["advice"] is None and "learned" in first.text()
    # then one more layout at each answer, over the layouts solved so far
    assert [u.solved for u in updates[1:-1]] == list(range(1, len(updates) - 1))
    for u in updates[1:-1]:
        assert u.answer is not None and u.answer.distinct == u.solved and not u.final
        assert u.card == u.answer.best and u.status().endswith("…")
    # last the final answer: every layout, as values_from_knowledge gives it
    assert updates[-1] is last and last.final and last.complete
    assert last.solved == last.total == updates[-2].solved
    assert last.status() == f"{last.total} of {last.total} distinct layouts · final"
    whole = values_from_knowledge(k, layouts=12, seed=5, exact_limit=0, n_jobs=n_jobs)
    assert last.answer is not None and last.answer.to_dict() == whole.to_dict()
    assert last.to_dict()["advice"] == whole.to_dict() and last.to_dict()["complete"] is True


def test_an_exact_answer_is_exact_only_when_final() -> None:
    k = _knowledge(1, 44)
    updates: list[AdviceUpdate] = []
    last = deepen(k, layouts=8, seed=0, n_jobs=None, on_update=updates.append)
    assert last.answer is not None and last.answer.exact
    assert all(u.answer is None or not u.answer.exact for u in updates[:-1])


def test_no_layout_solved_in_time_leaves_the_learned_card() -> None:
    k = _knowledge(2, 4)
    stop = threading.Event()
    stop.set()  # no layout is started: as a time limit that ends before the first
    last = deepen(k, layouts=8, seed=0, n_jobs=None, stop=stop)
    assert last.final and last.answer is None and not last.complete
    assert last.card == learned_card(k) and last.source == "learned"
    assert last.status().endswith("final (stopped before the rest)")
    d = last.to_dict()
    assert d["source"] == "learned" and d["best"] == str(learned_card(k)) and d["solved"] == 0
    # with keep_first the first layout is solved whatever the stop (values_from_knowledge's way)
    kept = deepen(k, layouts=8, seed=0, n_jobs=None, stop=stop, keep_first=True)
    assert kept.solved == 1 and kept.answer is not None and kept.answer.stopped_early


def test_iter_advice_yields_the_same_answers_and_stops_when_closed() -> None:
    k = _knowledge(4, 28)
    seen: list[AdviceUpdate] = []
    deepen(k, layouts=10, seed=2, n_jobs=None, on_update=seen.append)
    got = list(iter_advice(k, layouts=10, seed=2, n_jobs=None))
    assert [u.status() for u in got] == [u.status() for u in seen]
    assert got[-1].to_dict() | {"elapsed_ms": 0} == seen[-1].to_dict() | {"elapsed_ms": 0}
    # closed after the first answer: the advice stops and the generator ends
    gen = iter_advice(k, layouts=10, seed=2, n_jobs=None)
    assert next(gen).source == "learned"
    gen.close()
    assert not any(t.name == "callbreak-advice" for t in threading.enumerate())


def test_iter_advice_raises_the_advice_s_errors() -> None:
    k = _knowledge(4, 28)
    with pytest.raises(UsageError, match="layouts"):
        next(iter_advice(k, layouts=0))


def test_the_service_answers_what_was_solved_in_a_short_time_limit() -> None:
    from fastapi.testclient import TestClient

    from callbreak_lab.service import Settings, create_app

    deal = Deal.random(11)
    body = {"hand": str(deal[0]), "plays": "", "rules": "online", "calls": [3, 3, 3, 3],
            "layouts": 8}  # fmt: skip
    k = Knowledge.at_table(deal[0], "", Ruleset.coerce("online"), [3, 3, 3, 3])
    with TestClient(create_app(Settings(workers=1, advise_layouts_max=8))) as client:
        # a time limit no layout fits in: the learned card, labelled, and no value claimed
        r = client.post("/v1/advise", json={**body, "time_limit": 1e-6})
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["source"] == "learned" and d["best"] == str(learned_card(k))
        assert d["solved"] == 0 and d["total"] >= 1 and not d["complete"] and d["cards"] == []
        # without one: every layout, complete
        d = client.post("/v1/advise", json={**body, "plays": "", "layouts": 2}).json()
        assert d["source"] == "layouts" and d["complete"] and d["solved"] == d["total"] >= 1
        assert d["best"] == d["cards"][0]["card"]
        for bad, why in ((1e6, "at most"), (0, "greater than 0")):
            r = client.post("/v1/advise", json={**body, "time_limit": bad})
            assert r.status_code == 422 and "time_limit" in r.text and why in r.text, r.text
