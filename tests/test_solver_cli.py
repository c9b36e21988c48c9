"""``callbreak-lab solve``: the table, --plays, --seat, --cards, --playout, --file/--json."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from callbreak_lab import solver
from callbreak_lab.cards import Deal
from callbreak_lab.cli import main
from callbreak_lab.game import Position

DEAL = Deal.random(11)


def _plays(n: int) -> str:
    rng = random.Random(5)
    p = Position(DEAL, "modern")
    for _ in range(n):
        p.play(rng.choice(list(p.legal_cards())))
    return p.record()


PLAYS = _plays(38)  # 14 cards left, mid-trick
PLAYS_B = _plays(40)  # 3 tricks left, at a trick boundary


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_table_after_plays(capsys: pytest.CaptureFixture[str]) -> None:
    pos = Position.replay(DEAL, PLAYS, "modern")
    code, out, _ = run(capsys, "solve", "--rules", "modern", str(DEAL), "--plays", PLAYS)
    assert code == 0
    values = solver.dd_table(pos)
    rows = out.splitlines()
    assert rows[1].split() == ["guaranteed", *(str(v) for v in values)]
    assert rows[2].split() == ["won", *(str(w) for w in pos.tricks_won)]
    left = 13 - pos.trick_index
    assert f"of the {left} tricks left" in rows[3] and "double-dummy" in rows[3]
    code, out, _ = run(capsys, "--json", "solve", str(DEAL), "--plays", PLAYS)
    data = json.loads(out)
    assert data["tricks"] == list(values) and data["plays"] == pos.record()


def test_seat_cards_playout(capsys: pytest.CaptureFixture[str]) -> None:
    pos = Position.replay(DEAL, PLAYS_B, "online")
    code, out, _ = run(capsys, "solve", "--rules", "online", str(DEAL), "--plays", PLAYS_B,
                       "--seat", "2", "--cards", "--playout")  # fmt: skip
    assert code == 0
    assert f"seat 2: {solver.solve(pos, 2)} of the remaining tricks" in out
    code, out, _ = run(capsys, "--json", "solve", "--rules", "online", str(DEAL), "--plays",
                       PLAYS_B, "--cards", "--playout")  # fmt: skip
    data = json.loads(out)
    values = solver.card_values(pos, pos.to_move)
    assert data["card_values"] == {str(c): v for c, v in values.items()}
    res = solver.playout(pos)
    assert data["playout"] == list(res.tricks) and data["cards"] == [str(c) for c in res.cards]
    assert sum(data["playout"]) == 13


def test_file_with_bad_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "deals.txt"
    f.write_text(
        f"# a comment\n\n{DEAL} @ {PLAYS_B}\nnot a deal\n{DEAL} @ {PLAYS}  # trailing\n"
        f"{DEAL} @ 2C 3C\n"
    )
    code, out, err = run(capsys, "--json", "solve", "--file", str(f), "--playout")
    assert code == 2
    lines = [json.loads(x) for x in out.splitlines()]
    assert len(lines) == 2
    p1 = Position.replay(DEAL, PLAYS_B, "modern")
    assert lines[0]["deal"] == str(DEAL) and lines[0]["tricks"] == list(solver.dd_table(p1))
    assert lines[0]["playout"] == list(solver.playout(p1).tricks)
    assert "line 4:" in err and "line 6:" in err and "line 5" not in err
    good = tmp_path / "good.txt"
    good.write_text(f"{DEAL} @ {PLAYS}\n")
    code, out, _ = run(capsys, "solve", "--file", str(good))
    assert code == 0 and out.startswith(str(DEAL))


def test_file_with_a_line_that_is_not_utf8(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """One bad byte is one bad line (it made the whole file unreadable: no line was solved)."""
    f = tmp_path / "deals.txt"
    good = f"{DEAL} @ {PLAYS_B}\n".encode()
    f.write_bytes(good + str(DEAL).encode() + b" \xff\n" + good)
    code, out, err = run(capsys, "solve", "--file", str(f))
    assert code == 2 and len(out.splitlines()) == 2
    assert err.count("\n") == 1 and "line 2:" in err


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve")
    assert code == 2 and "give a deal or --file" in err
    code, _, err = run(capsys, "solve", str(DEAL), "--plays", "AS AS")
    assert code == 2 and "error" in err
    code, _, err = run(capsys, "solve", str(DEAL), "--plays", PLAYS, "--seat", "7")
    assert code == 2 and "seat" in err
