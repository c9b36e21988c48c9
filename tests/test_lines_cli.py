"""The ``line`` and ``analyse`` CLI commands (run in-process)."""

from __future__ import annotations

import json

import pytest

from callbreak_lab import Deal, Position, random_player
from callbreak_lab.cli import main


def _game(seed: int = 5, rules: str = "modern", cards: int = 40) -> tuple[str, str]:
    pos = Position(Deal.random(seed), rules)
    policy = random_player(seed)
    while len(pos.history) < cards:
        pos.play(policy(pos))
    return str(pos.deal), pos.record()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_line_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    deal, plays = _game()
    code, out, err = run(capsys, "line", "--rules", "modern", deal, "--seat", "2",
                         "--plays", plays, "--calls", "3,4,2,3")  # fmt: skip
    assert code == 0 and not err
    assert out.startswith("Double-dummy line for seat 2 (modern, from trick 11")
    assert "T13" in out and "Legend" in out and "Result:" in out and "/4" in out
    code, out, _ = run(capsys, "line", deal, "--seat", "2", "--plays", plays, "--json")
    data = json.loads(out)
    assert code == 0 and data["kind"] == "line" and data["seat"] == 2
    assert len(data["steps"]) == 12 and sum(data["tricks"]) == 13
    assert data["value"] == data["tricks"][2]
    code, out, _ = run(capsys, "line", deal, "--plays", plays, "--playout", "--brief")
    assert code == 0 and out.startswith("Self-interested play-out")
    code, out, _ = run(capsys, "--json", "line", deal, "--plays", plays, "--playout")
    assert json.loads(out)["kind"] == "playout"


@pytest.mark.slow
def test_line_and_analyse_text_name_cards_in_letters_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The rules word their reasons with suit symbols (``must beat the 5♦``); the CLI's text and
    JSON name every card in letters, so one output never mixes ``JD`` and ``6♦``."""
    from callbreak_lab.cards import letters

    assert letters("must follow diamonds (cannot beat the T♦), not A♠ or 2♣/9♥") == (
        "must follow diamonds (cannot beat the TD), not AS or 2C/9H"
    )
    deal, plays = _game(seed=7, cards=36)
    outputs = []
    for argv in (
        ["line", deal, "--seat", "0", "--plays", plays],
        ["line", deal, "--playout", "--plays", plays],
        ["line", deal, "--seat", "0", "--plays", plays, "--json"],
        ["analyse", deal, "--plays", _game(seed=7, cards=52)[1]],
    ):
        code, out, _ = run(capsys, *argv)
        assert code == 0
        outputs.append(out)
    text = "".join(outputs)
    assert "forced: must" in text and "beats the" in text  # the reasons name cards
    assert not any(sym in text for sym in "♣♦♥♠"), text


def test_line_with_empty_plays_starts_the_deal(capsys: pytest.CaptureFixture[str]) -> None:
    deal = "AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    code, out, _ = run(capsys, "line", deal, "--seat", "0", "--plays", "", "--json")
    assert code == 0 and json.loads(out)["start"] == "" and len(json.loads(out)["steps"]) == 52
    code, out, _ = run(capsys, "line", "--help")
    assert code == 0 and "from the start of the deal" in " ".join(out.split())


def test_analyse(capsys: pytest.CaptureFixture[str]) -> None:
    deal, plays = _game(cards=52, rules="online")
    code, out, err = run(capsys, "analyse", "--rules", "online", deal, "--plays", plays,
                         "--calls", "3,3,3,3")  # fmt: skip
    assert code == 0 and not err
    assert out.startswith("Review (online): 52 cards") and "Summary:" in out
    code, out, _ = run(capsys, "analyse", "--rules", "online", deal, "--plays", plays, "--json")
    data = json.loads(out)
    assert len(data["steps"]) == 52 and sum(data["tricks"]) == 13
    assert set(data["summary"]) >= {"flagged", "lost", "tricks"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["line", "AKQ", "--seat", "0"], "deal"),
        (["line", "{deal}", "--seat", "5", "--plays", "{plays}"], "seat must be 0..3"),
        (["line", "{deal}"], "give --seat"),
        (["line", "{deal}", "--seat", "1", "--playout"], "exclude each other"),
        (["line", "{deal}", "--seat", "1", "--plays", "XX"], "card 1"),
        (["line", "{deal}", "--seat", "1", "--calls", "3,4"], "calls need one value per seat"),
        (["line", "{deal}", "--seat", "1", "--plays", "{all}"], "finish the deal"),
        (["analyse", "{deal}"], "--plays"),
        (["analyse", "{deal}", "--plays", "AS 2S | 3S"], "trick 1 of the play record"),
        (["analyse", "{deal}", "--plays", "{bad}"], "card 1"),
        (["analyse", "{deal}", "--plays", ""], "analyse: --plays is empty"),
        (["analyse", "{deal}", "--plays", " "], "analyse: --plays is empty"),
        (["line", "--rules", "nope", "{deal}", "--seat", "0"], "unknown ruleset"),
    ],
)
def test_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    deal, plays = _game()
    _, full = _game(cards=52)
    pos = Position(Deal.parse(deal), "modern")
    bad = next(str(c) for c in pos.hands[1])  # seat 1's card: seat 0 cannot lead it
    fill = {"deal": deal, "plays": plays, "all": full, "bad": bad}
    args = [a.format(**fill) for a in argv]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("callbreak-lab: error:")
    assert message in lines[0]
