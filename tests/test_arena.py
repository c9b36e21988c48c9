"""The arena: the referee enforces every preset's legal cards and replaces faulty answers, the
view shows one seat's information only, duplicate tournaments are symmetric and reproducible,
board records open in the lab's tools, the command line prints the table or the JSON object."""

from __future__ import annotations

import gc
import json
import shlex
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from callbreak_lab import arena
from callbreak_lab.arena.players import SimplePlayer, make_player, simple_call, simple_card
from callbreak_lab.arena.records import Board, load_record
from callbreak_lab.arena.referee import play_deal
from callbreak_lab.cards import Card, Deal, Hand, lowest_card
from callbreak_lab.cli import main
from callbreak_lab.errors import UsageError
from callbreak_lab.game import Position, random_player
from callbreak_lab.rules import PRESETS, Ruleset
from callbreak_lab.seat import Knowledge
from callbreak_lab.seat.knowledge import inference
from callbreak_lab.seat.layouts import uniform_layouts
from callbreak_lab.seat.view import SeatView

# docs/rules.md's worked examples as deals (hands in spades.hearts.diamonds.clubs order)
#: 000 must beat: seat 0 leads 5H, seat 1 plays QH, seat 2 holds K3 of hearts and must play KH
MUST_BEAT = Deal.parse("AKQJ.5.AKQJ.AKQJ T98.Q.T987.T9876 765.K3.6543.5432 432.AJT987642.2.-")
#: 001 losing spade: AH led, 6H, 4S (void); seat 3 (void, only 2S 3S below it) must still trump
LOSING_SPADE = Deal.parse(
    "765.AKQJT98.-.AKQ -.765432.-.JT98765 AKQJT984.-.AQJT9.- 32.-.K8765432.432"
)
EVERY_PRESET = list(PRESETS)


def _cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


class Scripted:
    """Plays the scripted card at the given card index of the deal, else its lowest legal card;
    calls ``call`` (by default the lowest call). Keeps every view it was shown."""

    def __init__(self, name: str, script: dict[int, Any] | None = None, call: Any = None) -> None:
        self.name = name
        self.script = script or {}
        self._call = call
        self.views: list[SeatView] = []

    def call(self, view: SeatView) -> Any:
        self.views.append(view)
        if isinstance(self._call, Exception):
            raise self._call
        return view.rules.min_call if self._call is None else self._call

    def play(self, view: SeatView) -> Any:
        self.views.append(view)
        if len(view.history) in self.script:
            answer = self.script[len(view.history)]
            if isinstance(answer, Exception):
                raise answer
            if callable(answer):
                return answer()
            return answer
        return lowest_card(view.legal_cards())


def _table(script: dict[int, dict[int, Any]], calls: Any = None) -> list[Scripted]:
    return [Scripted(f"p{s}", script.get(s), calls) for s in range(4)]


def _fault_kinds(board: Board) -> list[tuple[int, str, str]]:
    return [(f.seat, f.decision, f.kind) for f in board.faults]


# --- the referee enforces each preset's legal cards ----------------------------------------------


@pytest.mark.parametrize("preset", EVERY_PRESET)
def test_must_beat_under_every_preset(preset: str) -> None:
    rules = Ruleset.preset(preset)
    players = _table({0: {0: "5H"}, 2: {2: "3H"}})
    board = play_deal(MUST_BEAT, rules, players)
    cards = board.position().history
    assert cards[0][1] == Card.parse("5H") and cards[1][1] == Card.parse("QH")
    if rules.must_beat:  # modern, strict, online: 3H is refused, KH (the one legal card) played
        assert _fault_kinds(board) == [(2, "play", "illegal")]
        assert "must beat the Q♥" in board.faults[0].message
        assert board.faults[0].replaced_by == "KH" and cards[2][1] == Card.parse("KH")
    else:  # home, pagat: any heart may follow
        assert board.faults == () and cards[2][1] == Card.parse("3H")
    assert len(cards) == 52 and sum(board.tricks) == 13  # the deal went on to its end


@pytest.mark.parametrize("preset", EVERY_PRESET)
def test_must_trump_under_every_preset(preset: str) -> None:
    # seat 0 leads AC; seat 3 has no club and holds spades: a diamond discard is illegal
    players = _table({0: {0: "AC"}, 3: {3: "2D"}})
    board = play_deal(MUST_BEAT, preset, players)
    assert _fault_kinds(board) == [(3, "play", "illegal")]
    assert "must trump" in board.faults[0].message
    assert board.faults[0].replaced_by == "2S"
    assert board.position().history[3][1] == Card.parse("2S")


@pytest.mark.parametrize("preset", EVERY_PRESET)
def test_losing_spade_under_every_preset(preset: str) -> None:
    rules = Ruleset.preset(preset)
    players = _table({0: {0: "AH"}, 1: {1: "6H"}, 2: {2: "4S"}, 3: {3: "KD"}})
    board = play_deal(LOSING_SPADE, rules, players)
    fourth = board.position().history[3][1]
    if rules.void_rule == "strict":  # modern, strict: the 2S is compulsory though it loses
        assert _fault_kinds(board) == [(3, "play", "illegal")]
        assert "must still play a spade" in board.faults[0].message
        assert fourth == Card.parse("2S")
    else:
        assert board.faults == () and fourth == Card.parse("KD")


@pytest.mark.parametrize("preset", EVERY_PRESET)
def test_first_trick_spade_lead(preset: str) -> None:
    rules = Ruleset.preset(preset)
    board = play_deal(MUST_BEAT, rules, _table({0: {0: "AS"}}))
    lead = board.position().history[0][1]
    if rules.first_trick_spade_ban:  # strict
        assert _fault_kinds(board) == [(0, "play", "illegal")]
        assert lead == Card.parse("5H")  # the lowest legal card: the lowest non-spade
    else:
        assert board.faults == () and lead == Card.parse("AS")


def test_a_card_not_held_is_refused() -> None:
    board = play_deal(MUST_BEAT, "online", _table({1: {1: "AS"}}))
    assert _fault_kinds(board) == [(1, "play", "illegal")]
    assert "does not hold" in board.faults[0].message


# --- faults are counted and the game goes on -----------------------------------------------------


def test_every_kind_of_fault_is_counted_logged_and_replaced(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def slow() -> Card:
        time.sleep(0.6)  # past the 0.5 s budget; the others answer at once, far within it
        return Card.parse("AD")

    players = [
        Scripted("bad-call", {0: "nonsense"}, call=14),
        Scripted("crash", {1: RuntimeError("boom")}, call=RuntimeError("no call")),
        Scripted("slow", {2: slow}, call="three"),
        Scripted("none", {3: None}, call=2),
    ]
    with caplog.at_level("WARNING", logger="callbreak_lab.arena"):
        board = play_deal(MUST_BEAT, "online", players, time_limit=0.5)
    kinds = _fault_kinds(board)
    assert kinds[:3] == [
        (0, "call", "illegal"),
        (1, "call", "exception"),
        (2, "call", "unparsable"),
    ]
    assert board.calls == (1, 1, 1, 2)  # faulty calls became the minimum call
    assert (0, "play", "unparsable") in kinds
    assert (1, "play", "exception") in kinds
    assert (2, "play", "timeout") in kinds
    assert (3, "play", "unparsable") in kinds
    crash = next(f for f in board.faults if f.kind == "exception" and f.decision == "play")
    assert "RuntimeError: boom" in crash.message and "seat 1" in crash.request["view"]
    assert len(caplog.records) == len(board.faults)
    assert len(board.position().history) == 52 and sum(board.tricks) == 13
    report = arena.summarise([board])
    assert [p.faults for p in report.players] == [2, 2, 2, 1]


def test_a_late_answer_is_a_fault_only_with_a_budget() -> None:
    def slow() -> Card:
        time.sleep(0.4)  # past the 0.3 s budget; the other answers come at once
        return lowest_card(Hand.parse("AKQJ...AKQJ"))

    players = _table({0: {8: slow}})
    assert play_deal(MUST_BEAT, "online", players).faults == ()
    board = play_deal(MUST_BEAT, "online", _table({0: {8: slow}}), time_limit=0.3)
    assert _fault_kinds(board) == [(0, "play", "timeout")]


def test_prepare_runs_before_each_deal_outside_the_clock() -> None:
    """A player's start-up (``prepare``: loading a model, the solver's kernels) is not timed."""

    class SlowStart(Scripted):
        def __init__(self) -> None:
            super().__init__("slow-start", {}, call=2)
            self.prepared: list[str] = []

        def prepare(self, rules: Ruleset) -> None:
            time.sleep(0.4)  # past the 0.3 s budget, were it timed
            self.prepared.append(rules.name)

    players = [SlowStart(), *_table({})[1:]]
    board = play_deal(MUST_BEAT, "online", players, time_limit=0.3)
    assert board.faults == ()
    assert players[0].prepared == ["online"]


def test_built_in_players_answer_their_first_decisions_within_a_budget() -> None:
    """The first call and the first search of a fresh ``strong`` player stay inside the
    budget: the model's load and the solver's kernels (3 s in a new process) are ``prepare``'s
    (2 s: room for a loaded machine; the player itself keeps within 0.8 of it)."""
    players = [arena.make_player("strong", "online", time_limit=2.0)] + [
        arena.make_player("simple", "online") for _ in range(3)
    ]
    board = play_deal(MUST_BEAT, "online", players, time_limit=2.0)
    assert board.faults == ()


# --- what a player sees --------------------------------------------------------------------------


def _reachable(root: object) -> Iterator[object]:
    """Every object reachable from ``root`` through containers and instance attributes (not
    through classes, modules or functions, which are shared code, not data)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, type) or callable(obj) or type(obj).__name__ == "module":
            continue
        stack.extend(gc.get_referents(obj))


def test_the_view_gives_no_access_to_other_hands() -> None:
    spy = Scripted("spy")
    players: list[Any] = [spy, SimplePlayer(), SimplePlayer(), SimplePlayer()]
    deal = Deal.random(11)
    play_deal(deal, "modern", players)
    assert len(spy.views) == 14  # its call and 13 cards
    for view in spy.views:
        assert not hasattr(view, "__dict__")  # slots: nothing can be attached to it
        with pytest.raises(AttributeError):
            view.hand = deal[1]  # type: ignore[misc]
        public = view.hand | view.seen()
        reachable = list(_reachable(view))
        assert view.hand in reachable and view.rules in reachable  # the walk sees the data
        for obj in reachable:
            assert not isinstance(obj, Deal | Position | np.ndarray), type(obj)
            assert not (callable(obj) and not isinstance(obj, type)), obj
            if isinstance(obj, Hand):
                assert obj.issubset(public), (obj, public)
        # and it holds exactly the seat's own cards
        assert view.hand == Position.replay(deal, [c for _, c in view.history], "modern").hand(0)


def test_the_view_shows_the_table() -> None:
    spy = Scripted("spy")
    players: list[Any] = [SimplePlayer(), spy, SimplePlayer(), SimplePlayer()]
    board = play_deal(Deal.random(3), "online", players, deal_number=3, totals=(10, -20, 5, 0))
    call_view = spy.views[0]
    assert call_view.calling and call_view.calls == board.calls[:1] and call_view.seat == 1
    last = spy.views[-1]
    assert last.calls == board.calls and last.totals == (10, -20, 5, 0)
    assert last.deal_number == 3 and last.trick_index == 12
    pos = board.position(len(last.history))
    assert last.trick == pos.trick and last.tricks_won == pos.tricks_won
    assert last.legal_cards() == pos.legal_cards()


# --- the simple player ---------------------------------------------------------------------------


def test_simple_follows_the_documented_strategy() -> None:
    online = PRESETS["online"]
    hand = Hand.parse("2S KD AH 9C KC 4C 7H 5H 3H")
    assert simple_call(hand, online) == 3  # AH, KD, KC
    assert simple_call(Hand.parse("2S 3S"), PRESETS["strict"]) == 2  # clamped to strict's 2..
    # following: the lowest card that beats the trick, else the lowest
    assert simple_card(hand, _cards("8C TC"), online, False) == Card.parse("KC")
    assert simple_card(hand, _cards("8C AC"), online, False) == Card.parse("4C")
    # void: the lowest spade that wins, else the lowest card
    assert simple_card(hand, _cards("QD AD"), PRESETS["pagat"], False) == Card.parse("KD")
    void = Hand.parse("2S 9S 5H 3D")
    assert simple_card(void, _cards("4C"), online, False) == Card.parse("2S")
    assert simple_card(void, _cards("4C TS"), online, False) == Card.parse("2S")  # lowest
    void = Hand.parse("9S 5H 3D")
    assert simple_card(void, _cards("4C TS"), online, False) == Card.parse("3D")
    # leading: the highest card of the longest side suit
    assert simple_card(hand, (), online, False) == Card.parse("AH")
    # the nearest legal card where the preset forbids the heuristic's: under strict the void
    # player must still play a spade although it cannot win
    assert simple_card(void, _cards("4C TS"), PRESETS["strict"], False) == Card.parse("9S")
    spades = Hand.parse("AKQ2.5..")
    assert simple_card(spades, (), PRESETS["strict"], True) == Card.parse("5H")


# --- what the table tells (every preset) ---------------------------------------------------------


@pytest.mark.parametrize("preset", EVERY_PRESET)
def test_table_inferences_are_sound_and_layouts_replay(preset: str) -> None:
    rules = Ruleset.preset(preset)
    for seed in range(6):
        deal = Deal.random(100 + seed)
        pos = Position(deal, rules)
        policy = random_player(seed)
        stop = 8 + 6 * seed
        while len(pos.history) < stop:
            pos.play(policy(pos))
        for seat in range(4):
            k = Knowledge.from_history(rules, seat, pos.hand(seat).mask, pos.history)
            for other in range(4):  # sound: the true hands hold nothing excluded
                assert pos.hand(other).mask & k.excluded[other] == 0
                for suit in k.voids[other]:
                    assert pos.hand(other).suit_count(suit) == 0
            layouts = uniform_layouts(k, 8, seed)
            assert len(layouts) > 0
            for row in layouts:  # sufficient: every layout replays without an illegal card
                layout = Position.replay(Deal([Hand(int(m)) for m in row]), k.record, rules)
                assert layout.hand(seat) == pos.hand(seat)


def test_strict_void_and_first_trick_inferences() -> None:
    strict = PRESETS["strict"]
    voids, excluded = inference(strict, _cards("AH 6H 4S"), Card.parse("KD"))
    assert voids == {2, 3} and excluded & Hand.parse("AKQJT98765432...").mask
    voids, _ = inference(PRESETS["online"], _cards("AH 6H 4S"), Card.parse("KD"))
    assert voids == {2}  # win_only: only no spade above the 4S
    voids, _ = inference(strict, (), Card.parse("2S"), first_trick=True)
    assert voids == {0, 1, 2}  # a first-trick spade lead under the ban: only spades held


# --- tournaments ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("player", "preset"), [("simple", "online"), ("random", "strict")])
def test_four_copies_of_a_deterministic_player_have_zero_margins(player: str, preset: str) -> None:
    report = arena.run([f"{x}={player}" for x in "abcd"], preset, deals=3, seed=5)
    assert len(report.boards) == 12 and len(report.margins) == 6
    for m in report.margins:
        assert m.margin == 0.0 and m.se == 0.0
    scores = {p.mean_score for p in report.players}
    assert len(scores) == 1


def _plain(report: arena.Report) -> list[dict[str, Any]]:
    return [{k: v for k, v in b.to_dict().items() if k != "ms"} for b in report.boards]


def test_the_same_seed_gives_the_same_boards_and_results() -> None:
    players = ["simple", "random", "honours", "random"]
    one = arena.run(players, "pagat", deals=6, seed=9)
    two = arena.run(players, "pagat", deals=6, seed=9)
    assert _plain(one) == _plain(two)
    other = arena.run(players, "pagat", deals=6, seed=10)
    assert [b.deal for b in other.boards] != [b.deal for b in one.boards]
    # duplicate: each deal four times, every player holding every hand once
    for j in range(6):
        boards = [b for b in one.boards if b.deal_index == j]
        assert len({b.deal for b in boards}) == 1
        for label in ("simple", "honours"):
            assert sorted(b.players.index(label) for b in boards) == [0, 1, 2, 3]
    # matches of five deals: running totals, the players' match seats fixed
    b5 = next(b for b in one.boards if b.deal_index == 4 and b.rotation == 0)
    assert b5.deal_number == 5 and b5.totals_before != (0, 0, 0, 0)
    assert next(b for b in one.boards if b.deal_index == 5).deal_number == 1


@pytest.mark.slow
def test_parallel_processes_give_the_same_result() -> None:
    players = ["simple", "random", "model", "honours"]
    one = arena.run(players, "online", deals=6, seed=2)
    seen: list[tuple[int, int]] = []
    two = arena.run(players, deals=6, seed=2, n_jobs=2, progress=lambda d, t: seen.append((d, t)))
    assert _plain(one) == _plain(two) and two.rules.name == "online"  # None: DEFAULT_RULES
    assert one.to_dict()["margins"] == two.to_dict()["margins"]
    # progress(done, total) as the boards come in, a match and rotation at a time
    assert seen[-1] == (24, 24) and [d for d, _ in seen] == sorted({d for d, _ in seen})


def test_report_figures() -> None:
    report = arena.run(["simple", "random", "random", "random"], "online", deals=4)
    simple, rnd = report.player("simple"), report.player("random")
    assert (simple.seats, rnd.seats) == (1, 3) and (simple.boards, rnd.boards) == (16, 48)
    assert rnd.mean_call == 1.0  # the lowest call
    boards = report.boards
    mine = [
        (b.calls[s], b.tricks[s], b.scores[s])
        for b in boards
        for s in range(4)
        if b.players[s] == "simple"
    ]
    assert simple.mean_score == pytest.approx(np.mean([x[2] for x in mine]) / 10)
    assert simple.made == pytest.approx(np.mean([t >= c for c, t, _ in mine]))
    assert simple.tricks_minus_call == pytest.approx(np.mean([t - c for c, t, _ in mine]))
    per_deal = [
        np.mean(
            [
                b.scores[s]
                for b in boards
                for s in range(4)
                if b.deal_index == j and b.players[s] == name
            ]
        )
        / 10
        for name in ("simple", "random")
        for j in range(4)
    ]
    diffs = np.array(per_deal[:4]) - np.array(per_deal[4:])
    m = report.margin("simple", "random")
    assert m.margin == pytest.approx(diffs.mean())
    assert m.se == pytest.approx(diffs.std(ddof=1) / 2)
    assert report.margin("random", "simple").margin == pytest.approx(-m.margin)
    data = report.to_dict()
    assert {"rules", "deals", "boards", "seed", "players", "margins"} <= set(data)
    keys = {
        "name",
        "seats",
        "mean_score",
        "mean_call",
        "mean_tricks",
        "made",
        "faults",
        "ms_p50",
        "ms_max",
    }
    assert keys <= set(data["players"][0]) and {"a", "b", "margin", "se"} <= set(data["margins"][0])
    json.dumps(data)


def test_bad_tournaments_are_refused() -> None:
    with pytest.raises(UsageError, match="unknown player"):
        arena.run(["simple", "nobody", "simple", "simple"], deals=1)
    with pytest.raises(UsageError, match="online preset"):
        arena.run(["http:127.0.0.1:9", "simple", "simple", "simple"], "modern", deals=1)
    with pytest.raises(UsageError, match="four players"):
        arena.run(["simple"] * 3, deals=1)
    with pytest.raises(UsageError, match="deals"):
        arena.run(["simple"] * 4, deals=0)
    with pytest.raises(UsageError, match="backend"):
        arena.run(["simple"] * 4, deals=1, backend="spark")
    with pytest.raises(UsageError):
        make_player("http:")


# --- records -------------------------------------------------------------------------------------


def test_records_open_in_analyse_and_are_not_overwritten(tmp_path: Path) -> None:
    players = ["simple", "random", "simple", "random"]
    report = arena.run(players, "modern", deals=1, seed=4, records=tmp_path)
    files = sorted(tmp_path.glob("board-*.json"))
    assert [f.name for f in files] == [f"board-00000-r{r}.json" for r in range(4)]
    board = load_record(files[2])
    assert board == report.boards[2] and board.rules == PRESETS["modern"]
    assert board.position().is_over and board.position().tricks_won == board.tricks
    # the record's command reviews the board with the command line
    argv = shlex.split(board.analyse_command())
    assert argv[:2] == ["callbreak-lab", "analyse"]
    assert main([*argv[1:], "--json"]) == 0
    # the same tournament again: the same boards, rewritten; another one: refused, untouched
    arena.run(players, "modern", deals=1, seed=4, records=tmp_path)
    assert load_record(files[0]).identity() == report.boards[0].identity()
    before = files[0].read_bytes()
    with pytest.raises(UsageError, match="another board"):
        arena.run(players, "modern", deals=1, seed=5, records=tmp_path)
    assert files[0].read_bytes() == before
    assert not list(tmp_path.glob(".tmp-*"))


# --- the command line ----------------------------------------------------------------------------


def test_cli_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--players", "simple,random,random,random", "--deals", "2", "--seed", "1"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "2 deals x 4 rotations = 8 boards" in text and "simple over random" in text
    assert main([*argv, "--json", "--rules", "pagat"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "pagat" and data["boards"] == 8 and data["seed"] == 1
    assert [p["name"] for p in data["players"]] == ["simple", "random"]
    assert data["players"][1]["seats"] == 3
    assert main(["arena", "--players", "simple,simple", "--deals", "1"]) == 2
    assert (
        main(["arena", "--players", "http:127.0.0.1:9,simple,simple,simple", "--rules", "home"])
        == 2
    )
    assert "online preset" in capsys.readouterr().err


# --- matches -------------------------------------------------------------------------------------


def test_identical_players_share_the_matches_exactly() -> None:
    """Duplicate symmetry: four copies of one deterministic player, told apart by labels, win
    exactly a quarter of the matches each (one over the number of distinct players), and every
    margin in matches is zero."""
    report = arena.run([f"{x}=simple" for x in "abcd"], "modern", deals=10, seed=2)
    assert report.match_count == 8 and report.match_deals == 5
    for m in report.matches:
        assert m.share == 1 / 4 and m.matches == 8 and m.se == 0.0
    for mm in report.match_margins:
        assert mm.margin == 0.0 and mm.se == 0.0 and mm.groups == 2
    two = arena.run(["x=simple", "x=simple", "y=simple", "y=simple"], "online", deals=5)
    assert [m.share for m in two.matches] == [0.25, 0.25]  # a share per seat held
    assert two.match_margin("x", "y").margin == 0.0


def test_a_stronger_player_wins_more_matches() -> None:
    report = arena.run(["honours", "random", "random", "random"], "online", deals=15, seed=1)
    honours, rnd = report.match("honours"), report.match("random")
    assert honours.share > 0.5 and rnd.share < 0.2
    assert honours.share + 3 * rnd.share == pytest.approx(1)  # every match has its winner
    m = report.match_margin("honours", "random")
    assert (
        m.margin == pytest.approx(honours.share - rnd.share)
        and m.margin > 2 * m.se
        and m.margin > 0.3
    )
    assert report.match_margin("random", "honours").margin == -m.margin


def test_match_shares_are_counted_from_the_boards() -> None:
    """The report's shares against a count by hand: the final totals of every match (one
    rotation's five consecutive deals), the win shared by the seats level on top."""
    report = arena.run(["simple", "random", "honours", "random"], "pagat", deals=10, seed=3)
    wins: dict[str, list[float]] = {"simple": [], "random": [], "honours": []}
    for first in (0, 5):
        for rotation in range(4):
            boards = [b for b in report.boards if b.rotation == rotation and
                      first <= b.deal_index < first + 5]  # fmt: skip
            last = max(boards, key=lambda b: b.deal_number)
            finals = [last.totals_before[s] + last.scores[s] for s in range(4)]
            top = max(finals)
            for s in range(4):
                share = 1 / finals.count(top) if finals[s] == top else 0.0
                wins[last.players[s]].append(share)
    for name, shares in wins.items():
        assert report.match(name).share == pytest.approx(np.mean(shares))
    data = report.to_dict()["matches"]
    assert data["deals"] == 5 and data["played"] == 8
    assert {m["name"] for m in data["players"]} == set(wins)
    json.dumps(data)


def test_only_whole_matches_count() -> None:
    short = arena.run(["simple", "random", "random", "random"], "online", deals=3)
    assert short.match_count == 0 and short.matches == ()
    assert "no whole match (3 deals; a match is 5)" in short.text()
    with pytest.raises(UsageError, match="no matches"):
        short.match("simple")
    seven = arena.run(["simple", "random", "random", "random"], "online", deals=7)
    assert seven.match_count == 4 and seven.match("simple").matches == 4
    assert "4 matches of 5 deals" in seven.text() and "matches won" in seven.text()
    # a variation with three-deal matches: two whole matches of three deals in seven deals
    three = arena.run(["simple", "random", "random", "random"], "online+match_deals=3", deals=7)
    assert three.match_deals == 3 and three.match_count == 8


def test_a_match_aware_caller_plays_in_the_arena() -> None:
    from callbreak_lab.arena.matchcall import MatchModelPlayer

    report = arena.run([MatchModelPlayer, "model", "model", "model"], "online", deals=5, seed=4)
    assert sum(len(b.faults) for b in report.boards) == 0
    # in the first deal of every match it calls as model does, seat by seat of the same deal
    firsts = {(b.deal_index, b.players.index("model:match")): b.calls for b in report.boards}
    plain = arena.run(["model"] * 4, "online", deals=5, seed=4)
    for b in plain.boards:
        if b.deal_number == 1:
            for s in range(4):
                if (b.deal_index, s) in firsts:
                    assert firsts[b.deal_index, s][s] == b.calls[s]
    assert report.match("model:match").matches == 4


def test_cli_shows_the_matches(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--players", "honours,random,random,random", "--deals", "5", "--seed", "1"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "matches won" in text and "4 matches of 5 deals" in text
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["matches"]
    assert data["played"] == 4 and [m["name"] for m in data["players"]] == ["honours", "random"]
    assert data["margins"][0]["a"] == "honours"


def test_margins_pair_by_deal_across_tournaments_on_one_seed() -> None:
    """Two players each against the same field on one seed's deals: the paired difference is
    the difference of their margins, deal by deal, and is refused across seeds."""
    field = ["simple", "simple", "simple"]
    honours = arena.run(["honours", *field], "online", deals=4, seed=3)
    rand = arena.run(["random", *field], "online", deals=4, seed=3)
    mh, mr = honours.margin("honours", "simple"), rand.margin("random", "simple")
    assert [i for i, _ in mh.by_deal] == [0, 1, 2, 3] and mh.seed == 3
    assert np.mean([m for _, m in mh.by_deal]) == pytest.approx(mh.margin)
    d = mh.minus(mr)
    assert (d.a, d.b, d.deals) == ("honours", "random", 4)
    assert d.margin == pytest.approx(mh.margin - mr.margin)
    per_deal = [a - b for (_, a), (_, b) in zip(mh.by_deal, mr.by_deal, strict=True)]
    assert [m for _, m in d.by_deal] == pytest.approx(per_deal)
    assert d.se == pytest.approx(np.std(per_deal, ddof=1) / 2)
    same = mh.minus(mh)
    assert same.margin == 0.0 and same.se == 0.0
    flipped = honours.margin("simple", "honours")
    assert [m for _, m in flipped.by_deal] == [-m for _, m in mh.by_deal]
    assert honours.to_dict()["margins"][0]["by_deal"][0][0] == 0
    other = arena.run(["random", *field], "online", deals=4, seed=4)
    with pytest.raises(UsageError, match="different seeds"):
        mh.minus(other.margin("random", "simple"))
    with pytest.raises(UsageError, match="a margin is subtracted"):
        mh.minus(0.5)  # type: ignore[arg-type]
