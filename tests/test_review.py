"""Single-dummy reviews (``callbreak_lab.analysis.review``): of played deals, arena records and the
recorded Bhoos requests; the ``analyse --layouts`` command and ``/v1/analyse``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from callbreak_lab.analysis.review import analyse_play, review_play
from callbreak_lab.arena import make_player, play_deal
from callbreak_lab.arena.bhoos import read_requests, review_bhoos
from callbreak_lab.arena.records import load_record, write_record
from callbreak_lab.cards import Deal
from callbreak_lab.cli import main
from callbreak_lab.errors import IllegalPlayError, UsageError

DATA = Path(__file__).parent / "data"
SAFETY_DEAL = "J75.T42.JT52.QT3 QT98.5.9843.J642 K3.AKJ9763.AK.95 A642.Q8.Q76.AK87"
SAFETY_PLAYS = (
    "5D 9D KD QD | 6H QH TH 5H | 7C TC JC 9C | 2C 5C 8C QC | JS QS KS AS | 4S 7S 9S 3S | "
    "8D AD 6D 2D | 9H 8H 4H 8S | 4D JH 7D JD | 3C 4C 3H KC | 2S 5S TS 7H"
)
CARD_KEYS = {"index", "seat", "card", "dd_value", "sd_expected", "sd_best_card",
             "sd_best_expected", "cost"}  # fmt: skip


def test_the_costly_card_of_a_known_position_is_the_biggest_mistake() -> None:
    """Seat 3 leads the 2♠ at trick 11 needing one trick, where the A♣ makes the call in every
    layout (tests/test_advice.py): the review finds that card and its cost."""
    rv = review_play(SAFETY_DEAL, SAFETY_PLAYS, "online", calls=[2, 2, 2, 4], seats=[3], first=40)
    card = rv.cards[40]
    assert (card.seat, str(card.card), str(card.sd_best_card)) == (3, "2S", "AC")
    assert card.cost > 2.0 and card.sd.exact  # type: ignore[union-attr]
    assert rv.mistakes()[0] is card
    assert all(c.sd is None for c in rv.cards[:40])  # before ``first``: listed, not judged
    seat3 = rv.players[0]
    assert seat3.seat == 3 and seat3.play_cost == pytest.approx(card.cost)
    assert "2S" in rv.text() and "Biggest mistakes" in rv.text()


@pytest.mark.slow
def test_a_whole_arena_board_reviewed_with_the_issue_s_json() -> None:
    board = play_deal(Deal.random(4), "online", [make_player(p) for p in ("simple", "pimc") * 2])
    rv = review_play(board.deal, board.plays, board.rules, calls=board.calls, layouts=4, seed=1)
    d = rv.to_dict()
    assert {"deal", "rules", "calls", "cards", "players"} <= set(d)
    assert len(d["cards"]) == 52 and all(set(c) >= CARD_KEYS for c in d["cards"])
    assert [p["seat"] for p in d["players"]] == [0, 1, 2, 3]
    dd = analyse_play(board.deal, board.plays, board.rules, calls=board.calls)
    for c, e in zip(rv.cards, dd.entries, strict=True):
        assert c.dd_value == e.after  # the played card's double-dummy deal total
        assert c.cost >= 0
        if c.forced:
            assert c.sd is None and c.cost == 0
        else:
            assert c.sd_best_expected is not None and c.sd_expected is not None
            assert c.cost == pytest.approx(c.sd_best_expected - c.sd_expected)
    for p in rv.players:
        mine = [c.cost for c in rv.cards if c.seat == p.seat]
        assert p.play_cost == pytest.approx(sum(mine))
        assert p.call == board.calls[p.seat] and p.call_cost is not None and p.call_cost >= 0
    again = review_play(board.deal, board.plays, board.rules, calls=board.calls, layouts=4, seed=1)
    assert again.to_dict() == d  # seeded: reproducible


def test_arena_record_files_and_time_limits(tmp_path: Path) -> None:
    board = play_deal(Deal.random(9), "modern", [make_player("simple")] * 4)
    path = write_record(tmp_path, board)
    seen: list[tuple[int, int]] = []
    rv = load_record(path).review(layouts=2, seats=[1], progress=lambda d, t: seen.append((d, t)))
    assert rv.calls == board.calls and len(rv.players) == 1 and rv.players[0].seat == 1
    assert seen == [(i, 52) for i in range(1, 53)]  # progress(done, total) after each card
    assert all(c.sd is None for c in rv.cards if c.seat != 1)
    short = review_play(
        board.deal, board.plays, "modern", calls=board.calls, layouts=2, time_limit=1e-6
    )
    assert short.stopped_early and len(short.cards) < 52
    assert "time limit" in short.text()


@pytest.mark.slow
def test_a_decision_cut_by_the_time_limit_ends_the_review(monkeypatch: pytest.MonkeyPatch) -> None:
    """The decision running when the time is up is cut short (it keeps the layouts solved by
    then) and is the review's last card."""
    import callbreak_lab.analysis.review as review

    board = play_deal(Deal.random(9), "modern", [make_player("simple")] * 4)
    real = review.single_dummy_values
    limits: list[float | None] = []

    def cut_third(*args: Any, **kw: Any) -> Any:
        limits.append(kw.get("time_limit"))
        if len(limits) == 3:  # the time runs out inside the third judged decision
            kw["time_limit"] = 1e-9
        return real(*args, **kw)

    monkeypatch.setattr(review, "single_dummy_values", cut_third)
    rv = review_play(
        board.deal, board.plays, "modern", calls=board.calls, layouts=4, time_limit=600
    )
    judged = [c for c in rv.cards if c.sd is not None]
    assert rv.stopped_early and len(judged) == 3 and rv.cards[-1] is judged[-1]
    assert judged[-1].sd is not None and judged[-1].sd.stopped_early
    assert all(x is not None and 0 < x <= 600 for x in limits)  # each gets the time left


@pytest.mark.slow
def test_the_recorded_bhoos_games_are_reviewed_for_the_bot_s_cards() -> None:
    requests = list(read_requests((DATA / "bhoos" / "play_requests.json").read_text()))
    reviews = review_bhoos(requests, calls=[3, 3, 3, 3], layouts=4)
    assert len(reviews) == 6  # the requests' deals, grouped by the bot's 13 cards
    judged = 0
    for rv in reviews:
        (seat,) = rv.seats
        assert rv.deal is None and all(c.dd_value is None for c in rv.cards)
        assert all(c.sd is None for c in rv.cards if c.seat != seat)
        judged += sum(c.sd is not None for c in rv.cards)
        assert rv.unit == "points"
    assert judged >= 40
    plain = review_bhoos(requests[:13], layouts=2)  # no calls in these requests: judged by tricks
    assert plain[0].unit == "tricks" and plain[0].players[0].call_cost is None


def test_bad_reviews_are_refused() -> None:
    with pytest.raises(IllegalPlayError, match="does not hold"):
        review_play(SAFETY_DEAL, "5D 9D KD 2H", "online", layouts=2)
    with pytest.raises(UsageError, match="layouts"):
        review_play(SAFETY_DEAL, "5D", "online", layouts=0)
    with pytest.raises(UsageError, match="first"):
        review_play(SAFETY_DEAL, "5D", "online", first=3)
    with pytest.raises(UsageError, match="time_limit"):
        review_play(SAFETY_DEAL, "5D", "online", time_limit=-1)


def test_analyse_single_dummy_command(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["analyse", SAFETY_DEAL, "--rules", "online", "--plays", SAFETY_PLAYS, "--calls",
            "2,2,2,4", "--layouts", "8", "--seats", "3", "--from-trick", "11", "--quiet",
            "--json"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"deal", "rules", "calls", "cards", "players"} <= set(out)
    assert out["calls"] == [2, 2, 2, 4] and out["players"][0]["seat"] == 3
    two = next(c for c in out["cards"] if c["index"] == 40)
    assert two["card"] == "2S" and two["sd_best_card"] == "AC" and two["cost"] > 2
    assert out["mistakes"][0] == 40
    assert main(["analyse", "--bhoos", str(DATA / "bhoos" / "play_requests.json"),
                 "--single-dummy", "2", "--quiet", "--json"]) == 0  # fmt: skip
    games = json.loads(capsys.readouterr().out)["games"]
    assert len(games) == 6 and games[0]["unit"] == "tricks"
    assert main(["analyse", "--bhoos", "nowhere.json", "--single-dummy", "2"]) == 2
    assert "--bhoos nowhere.json" in capsys.readouterr().err
    assert main(["analyse", "--layouts", "2"]) == 2
    assert "give one of DEAL" in capsys.readouterr().err
    assert main(["analyse", SAFETY_DEAL, "--plays", "5D", "--seats", "1"]) == 2
    assert "need --layouts N" in capsys.readouterr().err


@pytest.mark.slow
def test_the_service_reviews_single_dummy_within_its_cap() -> None:
    from fastapi.testclient import TestClient

    from callbreak_lab.service import Settings, create_app

    body = {"deal": SAFETY_DEAL, "plays": SAFETY_PLAYS, "rules": "online", "calls": "2,2,2,4"}
    with TestClient(create_app(Settings(workers=1, review_layouts_max=4))) as client:
        r = client.post("/v1/analyse", json={**body, "layouts": 5})
        assert r.status_code == 422 and "at most 4 layouts" in r.text
        r = client.post("/v1/analyse", json={**body, "seats": [3]})
        assert r.status_code == 422 and "give layouts too" in r.text
        r = client.post("/v1/analyse", json={**body, "single_dummy": 4, "seats": [3]})  # old name
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["kind"] == "single-dummy review" and d["players"][0]["seat"] == 3
        assert all(set(c) >= CARD_KEYS for c in d["cards"]) and len(d["cards"]) == 44
        assert client.post("/v1/analyse", json=body).json()["kind"] == "review"
