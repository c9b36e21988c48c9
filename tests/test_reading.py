"""Card reading (``seat.reading``): each hidden card's chance in each other seat.

The chances are a distribution over the seats for every hidden card and nothing else; what the
rules prove is exact (counted, checked against brute-force enumeration); the plays move the
chances; the answer round-trips through plain data; the CLI and the service show it; and on a
small seeded sample the chances are calibrated and beat the rules alone."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from callbreak_lab.arena.players import make_player
from callbreak_lab.arena.records import Board
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.arena.tournament import tournament_deal
from callbreak_lab.cards import SPADE_MASK, SUIT_MASKS, Card, Suit
from callbreak_lab.cli.main import main
from callbreak_lab.errors import CardError, UsageError
from callbreak_lab.game import parse_record
from callbreak_lab.render.reading import reading_html, reading_svg
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat import Knowledge
from callbreak_lab.seat.layouts import call_log_likelihood, consistent_layouts, play_log_likelihood
from callbreak_lab.seat.reading import (
    READ_PLAY_WEIGHT,
    Reading,
    advice_assumes,
    read_cards,
    rules_reading,
)
from callbreak_lab.service import Settings, create_app

ONLINE = Ruleset.coerce("online")
HEARTS = int(Suit.HEARTS)


@pytest.fixture(scope="module")
def boards() -> list[Board]:
    """Six seeded deals played by the bid model's and the aces-and-kings callers."""
    players = [make_player(p, "online") for p in ("model", "simple", "model", "simple")]
    return [
        play_deal(tournament_deal(7, j), "online", players, seed=7, deal_index=j) for j in range(6)
    ]


def knowledge(board: Board, seat: int, cards: int) -> tuple[Knowledge, np.ndarray]:
    """What ``seat`` knows after ``cards`` cards of ``board``, and every card's true seat."""
    pos = board.position(0)
    history = []
    for c in parse_record(board.plays)[:cards]:
        history.append((pos.to_move, int(c)))
        pos.play(c)
    dealt = [board.deal[s].mask for s in range(4)]
    owner = np.array([next(s for s in range(4) if dealt[s] >> c & 1) for c in range(52)])
    hand = dealt[seat] & ~sum(1 << c for s, c in history if s == seat)
    return Knowledge.from_history(board.rules, seat, hand, history, list(board.calls)), owner


def test_chances_are_a_distribution_over_the_other_seats(boards: list[Board]) -> None:
    k, _ = knowledge(boards[0], 2, 18)
    r = read_cards(k, layouts=256)
    hidden = k.unseen()
    assert (
        r.hidden == hidden
        and len(r.hidden_cards) == hidden.bit_count() == 52 - 18 - k.hand.bit_count()
    )
    for c in range(52):
        row = r.chances[c]
        if hidden >> c & 1:
            assert row.sum() == pytest.approx(1.0, abs=1e-12)
            assert row[k.seat] == 0.0 and (row >= 0).all()
        else:  # the seat's own cards and the cards played: no chance anywhere
            assert (row == 0).all()
    assert r.assumed == "calls and plays" and not r.exact and r.layouts == 256
    assert r.lengths().sum() == pytest.approx(hidden.bit_count())


def test_proven_voids_are_exact() -> None:
    """Seats 1 and 2 are known void in hearts: every heart is seat 3's (chance exactly 1), and
    then seat 3's thirteen cards are all hearts, so it holds no other card (exactly 0)."""
    k = Knowledge(ONLINE, 0, SPADE_MASK, calls=(3, 2, 4, 1))
    k.voids[1].add(HEARTS)
    k.voids[2].add(HEARTS)
    for r in (
        read_cards(k, layouts=128),
        read_cards(k, layouts=128, plays=False),
        rules_reading(k),
    ):
        for c in range(52):
            if SUIT_MASKS[HEARTS] >> c & 1:
                assert r.of(c) == (0.0, 0.0, 0.0, 1.0)
            elif not SPADE_MASK >> c & 1:
                assert r.chance(c, 3) == 0.0 and r.chance(c, 1) + r.chance(c, 2) == 1.0
        assert r.certain() == {Card(c): 3 for c in range(26, 39)}
        assert r.voids() == {1: [HEARTS], 2: [HEARTS], 3: [0, 1]}
        rows = {row["card"]: row for row in r.to_dict()["cards"]}
        assert rows["AH"]["seats"] == [3] and rows["AH"]["certain"]
        assert rows["AC"]["seats"] == [1, 2] and not rows["AC"]["certain"]
        assert "·" in r.text()
    assert rules_reading(k).chance("AC", 1) == 0.5  # the rest split evenly by the rules


def test_a_voided_seat_never_holds_the_suit(boards: list[Board]) -> None:
    for b in boards:
        for seat in range(4):
            k, owner = knowledge(b, seat, 32)
            r = read_cards(k, layouts=128)
            for s in range(4):
                if s == seat:
                    continue
                for c in r.hidden_cards:
                    if k.banned(s) >> c & 1:
                        assert r.chance(c, s) == 0.0
                assert r.possible[s] & k.banned(s) == 0
            for c, s in r.certain().items():  # what the rules prove is the truth
                assert owner[c] == s and r.chance(c, s) == 1.0


def test_counted_and_weighted_chances_match_enumeration(boards: list[Board]) -> None:
    """Late in a deal every consistent layout is enumerated: the rules' chances equal the share
    of layouts, and the weighted reading is exact and equals the layouts' weighted share."""
    k, _ = knowledge(boards[1], 1, 41)
    every = consistent_layouts(k, 100_000)
    assert every is not None and 1 < len(every) <= 4096
    held = np.array([[(row[s] >> np.uint64(c)) & np.uint64(1) for s in range(4)] for row in every
                     for c in range(52)], dtype=np.float64).reshape(len(every), 52, 4)  # fmt: skip
    counted = rules_reading(k)
    hidden = [int(c) for c in counted.hidden_cards]
    np.testing.assert_allclose(counted.chances[hidden], held.mean(axis=0)[hidden], atol=1e-12)
    r = read_cards(k, layouts=4096)
    assert r.exact and r.layouts == len(every) and r.assumed == "calls and plays"
    others = [s for s in range(4) if s != k.seat]
    loglik = call_log_likelihood(every, others, [k.calls[s] for s in others], ONLINE, 2.0)
    loglik = loglik + READ_PLAY_WEIGHT * play_log_likelihood(every, k)
    w = np.exp(loglik - loglik.max())
    want = np.einsum("l,lcs->cs", w / w.sum(), held)
    np.testing.assert_allclose(r.chances[hidden], want[hidden], atol=1e-9)


def test_the_plays_move_the_chances(boards: list[Board]) -> None:
    k, _ = knowledge(boards[2], 0, 32)
    plays, calls = read_cards(k, layouts=512), read_cards(k, layouts=512, plays=False)
    assert (plays.assumed, calls.assumed) == ("calls and plays", "calls")
    assert np.abs(plays.chances - calls.chances).max() > 0.1
    k0, _ = knowledge(boards[2], 0, 0)  # nothing played yet: the plays tell nothing
    assert read_cards(k0, layouts=64).assumed == "calls"
    k0.calls = (None, None, None, None)
    nothing = read_cards(k0, layouts=64)
    assert nothing.assumed == "rules" and nothing.exact
    unseen = next(c for c in range(52) if k0.unseen() >> c & 1)
    assert nothing.of(unseen) == pytest.approx((0, 1 / 3, 1 / 3, 1 / 3))
    assert advice_assumes(k) == "calls" and advice_assumes(k0) == "rules"


def test_bad_options_are_usage_errors(boards: list[Board]) -> None:
    k, _ = knowledge(boards[0], 0, 8)
    for bad in ({"layouts": 0}, {"seed": -1}, {"plays": "yes"}, {"layouts": 2.5}):
        with pytest.raises(UsageError):
            read_cards(k, **bad)  # type: ignore[arg-type]


def test_plain_data_round_trip_and_pictures(boards: list[Board]) -> None:
    k, _ = knowledge(boards[3], 3, 24)
    r = read_cards(k, layouts=128, seed=4)
    data = json.loads(json.dumps(r.to_dict()))
    assert data["assumed"] == "calls and plays" and data["seat"] == 3
    assert [row["card"] for row in data["cards"]] == [str(c) for c in r.hidden_cards]
    back = Reading.from_dict(data)
    assert back.to_dict() == data and (back.seat, back.hand, back.possible) == (
        r.seat,
        r.hand,
        r.possible,
    )
    np.testing.assert_allclose(back.chances, r.chances, atol=1e-6)
    text = r.text()
    first = r.hidden_cards[0]
    assert text.splitlines()[0].startswith("where the cards seat 3 cannot see are, after 6 tricks")
    assert any(line.strip().startswith(first.symbol()) for line in text.splitlines())
    svg = r._repr_svg_()
    assert svg.startswith("<svg") and svg.count('class="cell"') == 3 * len(r.hidden_cards)
    assert f'data-card="{first}" data-seat=' in svg
    assert svg.count('data-seen="you"') == k.hand.bit_count()
    assert svg.count('data-seen="played"') == 24
    assert r._repr_html_().startswith('<div class="cb-reading"')
    names = ["bot 1", "bot 2", "bot 3", "you"]  # a table's names, as table_svg takes them
    named = reading_html(r, names=names)
    assert "where the cards you cannot see are" in named and not re.search(r"seat \d", named)
    assert all(f">{n}</text>" in named for n in names[:3])
    assert f"{first.symbol()}: bot 1 " in named or f"{first.symbol()}: bot 2 " in named
    with pytest.raises(CardError, match="names"):
        reading_svg(r, names=["you"])
    with pytest.raises(UsageError, match="hand"):
        Reading.from_dict({k: v for k, v in data.items() if k != "hand"})


def test_calibrated_on_a_seeded_sample(boards: list[Board]) -> None:
    """After 8 tricks, in every band of chances with 60 or more, the share of cards the seat
    held is within 0.1 of the mean chance, and the Brier score beats the rules' alone by 0.03
    (a reading with its seats mixed up, or one ignoring the table, fails both)."""
    predicted, held, brier, rules_only = [], [], [], []
    for b in boards:
        for seat in range(4):
            k, owner = knowledge(b, seat, 32)
            r = read_cards(k, layouts=1024, seed=seat)
            brier.append(r.brier(owner))
            rules_only.append(rules_reading(k).brier(owner))
            cards = [int(c) for c in r.hidden_cards]
            others = [s for s in range(4) if s != seat]
            predicted += list(r.chances[np.ix_(cards, others)].ravel())
            held += list((owner[cards][:, None] == np.array(others)[None, :]).ravel())
    p, y = np.array(predicted), np.array(held, dtype=np.float64)
    bands = 0
    for lo, hi in ((0.0, 0.2), (0.2, 0.5), (0.5, 0.8), (0.8, 1.01)):
        sel = (p >= lo) & (p < hi)
        if sel.sum() >= 60:
            bands += 1
            assert abs(p[sel].mean() - y[sel].mean()) < 0.1, (lo, hi, p[sel].mean(), y[sel].mean())
    assert bands >= 3
    assert np.mean(brier) < np.mean(rules_only) - 0.03


# --- the faces ----------------------------------------------------------------------------------


def test_cli_advise_cards(capsys: pytest.CaptureFixture[str]) -> None:
    plays = _example_plays()
    args = ["advise", "A642.Q8.Q76.AK87", "--plays", plays, "--calls", "2,2,2,4",
            "--layouts", "4", "--quiet", "--cards"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "judged with the hidden cards read from the calls (" in out
    assert "read from the calls and plays" in out
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["assumed"] == "calls"
    assert data["reading"]["assumed"] == "calls and plays" and data["reading"]["seat"] == 3
    assert main(args[:-1]) == 0
    assert "read from the calls and plays" not in capsys.readouterr().out


def test_service_cards_field_is_checked() -> None:
    c = TestClient(create_app(Settings(workers=1)))  # no `with`: no worker pool started
    body: dict[str, Any] = {"hand": "A642.Q8.Q76.AK87", "plays": _example_plays(), "cards": "maybe"}
    resp = c.post("/v1/advise", json=body)
    assert resp.status_code == 422
    assert resp.json()["detail"][0]["loc"] == ["body", "cards"]
    schema = c.get("/openapi.json").json()["components"]["schemas"]
    assert "reading" in schema["AdviseResponse"]["properties"]
    assert schema["CardReading"]["properties"]["assumed"]["enum"] == [
        "calls and plays", "calls", "plays", "rules"
    ]  # fmt: skip


def _example_plays() -> str:
    from callbreak_lab.service.schemas import _EX_PLAYS

    return _EX_PLAYS


def test_play_table_shows_the_reading_on_a_click() -> None:
    """In the play-against-the-bots table, the button draws the grid of the person's seat; it is
    disabled while calling and gone after the person's next card."""
    from callbreak_lab.widgets.table_controller import PlayTable
    from callbreak_lab.widgets.table_view import PlayTableView

    table = PlayTable("online", 1, seed=3, opponents="simple", time_limit=None)
    view = PlayTableView(table)
    assert view.reading_button.disabled and view.reading.value == ""
    view.call.value = 3
    view.call_button.click()
    view.clicked(str(next(iter(table.position.legal_cards()))))  # the person's first card
    # (clicked in the pictured hand); the bots play to its next turn
    assert table.phase == "play" and not view.reading_button.disabled
    view.reading_button.click()
    r = table.last_cards
    assert r is not None and r.seat == 1 and r.assumed == "calls and plays"
    assert r.cards_played == len(table.position.history)
    assert 'class="cb-reading-svg"' in view.reading.value
    assert view.reading.value.count('class="cell"') == 3 * len(r.hidden_cards)
    assert "where the cards you cannot see are" in view.reading.value  # the table's names
    assert not re.search(r"seat \d", view.reading.value) and "bot " in view.reading.value
    view.clicked(str(next(iter(table.position.legal_cards()))))
    assert table.last_cards is None and view.reading.value == ""


def test_line_viewer_shows_the_studied_seat_s_reading() -> None:
    """The line viewer's box draws the studied seat's reading at each step; unticked, none."""
    from callbreak_lab.cards import Deal
    from callbreak_lab.game import Position, play_out, random_player
    from callbreak_lab.widgets.play_controllers import PlayLineViewer
    from callbreak_lab.widgets.play_views import PlayLineView

    deal = Deal.random(11)
    pos = play_out(Position(deal, ONLINE), random_player(5))
    record = " | ".join(" ".join(str(c) for c in t.cards) for t in pos.tricks[:10])
    view = PlayLineView(PlayLineViewer(deal, 2, ONLINE, calls=[3, 2, 4, 3], record=record))
    assert view.reading.value == ""
    view.show_cards.value = True  # the person ticks the box
    first = view.controller.cards()
    assert first is not None and first.seat == 2 and first.cards_played == 40
    assert first.assumed == "calls and plays" and first.exact
    assert view.reading.value.count('class="cell"') == 3 * len(first.hidden_cards)
    view.next_button.click()
    assert view.controller.cards().cards_played == 41
    view.show_cards.value = False
    assert view.reading.value == "" and view.controller.cards() is None
