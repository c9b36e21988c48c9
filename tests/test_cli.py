"""The callbreak-lab command line, through main(argv)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from callbreak_lab import Deal
from callbreak_lab.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_seed_001(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "score", "--rules", "modern", "--calls", "3,4,2,3", "--tricks", "5,3,2,3"
    )
    assert (code, out, err) == (0, "3.2 -4 2 3\n", "")


def test_score_home_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "score", "--rules", "home", "--calls", "3,8,2,2", "--tricks", "5,8,0,0"
    )
    assert code == 0 and out == "-3 13 -2 -2\n"
    code, out, _ = run(
        capsys, "--json", "score", "--rules", "pagat", "--calls", "5", "--tricks", "3"
    )
    assert code == 0
    assert json.loads(out) == {
        "rules": "pagat",
        "calls": [5],
        "tricks": [3],
        "scores": ["-5"],
        "scores_tenths": [-50],
    }
    code, out, _ = run(capsys, "score", "--calls", "4", "--tricks", "6", "--json")
    assert (
        json.loads(out)["scores"] == ["4.2"] and json.loads(out)["rules"] == "online"
    )  # the default rules


def test_legal_seed_001_strict_and_online(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "legal", "--rules", "strict", "--hand", "2S KD", "--trick", "AH 6H 4S"
    )
    assert code == 0
    assert out.splitlines() == [
        "legal: 2S",
        "reason: cannot overtrump the 4♠: must still play a spade [losing_spade]",
        "not KD: cannot overtrump the 4♠: must still play a spade",
    ]
    code, out, _ = run(
        capsys, "legal", "--rules", "online", "--hand", "2S KD", "--trick", "AH 6H 4S", "--json"
    )
    data = json.loads(out)
    assert data["legal"] == ["2S", "KD"] and data["reason"] == "free_choice"
    assert data["trick"] == ["AH", "6H", "4S"] and data["hand"] == "2..K."


def test_legal_must_beat_and_first_trick(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "legal", "--hand", "3H KH", "--trick", "QH")
    assert code == 0 and out.splitlines()[0] == "legal: KH"
    assert "must beat the Q♥" in out
    code, out, _ = run(capsys, "legal", "--rules", "strict", "--hand", "♠AK ♥3", "--first-trick")
    assert out.splitlines()[0] == "legal: 3H"
    assert "first trick: no spade lead" in out
    code, out, _ = run(
        capsys, "legal", "--rules", "pagat+must_beat", "--hand", "AH 3H", "--trick", "7H"
    )
    assert out.splitlines()[0] == "legal: AH"


def test_rules_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[0] == "name"
    assert [line.split()[0] for line in lines[1:]] == [
        "modern",
        "strict",
        "online",
        "home",
        "pagat",
    ]
    assert "exact_or_one_bonus" in lines[4] and "2-13" in lines[2]
    code, out, _ = run(capsys, "rules", "--json")
    data = json.loads(out)
    assert [d["name"] for d in data] == ["modern", "strict", "online", "home", "pagat"]
    assert data[1]["first_trick_spade_ban"] is True
    code, out, _ = run(capsys, "--rules", "pagat+flat", "rules")
    assert out.splitlines()[1].split()[0] == "pagat+flat"


def test_deal_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "deal", "--seed", "3")
    assert code == 0 and Deal.parse(out) == Deal.random(3)
    code, out, _ = run(capsys, "deal", "--seed", "3", "--json")
    assert Deal.parse(json.loads(out)["hands"]) == Deal.random(3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "--calls", "3,4,2,3", "--tricks", "5,3,2,2"], "must sum to 13, got 12"),
        (["score", "--calls", "0", "--tricks", "3"], "call 0 is outside online's range 1..13"),
        (["score", "--calls", "3,x", "--tricks", "3,3"], "--calls must be whole numbers"),
        (["score", "--calls", "3,4", "--tricks", "3"], "give 1..4 calls and as many tricks"),
        (["score", "--calls", "3"], "score: the following arguments are required: --tricks"),
        (
            ["score", "--rules", "bridge", "--calls", "3", "--tricks", "3"],
            "unknown ruleset 'bridge'",
        ),
        (["legal", "--hand", "AX"], "unknown suit 'X' in card 'AX'"),
        (
            ["legal", "--hand", "AS", "--trick", "AS"],
            "card AS is both in the hand and in the trick",
        ),
        (["legal", "--hand", "AS", "--trick", "2C 3C 4C 5C"], "0..3 cards, got 4"),
        (["legal", "--hand", "AS", "--trick", "AH | 6H"], "in play order, without '|'"),
        (["legal", "--hand", "AKA2.T98.765.432"], "card AS given twice"),
        (["deal", "--seed", "x"], "invalid int value: 'x'"),
        (["deal", "--seed", "-1"], "seed must be a whole number >= 0"),
        (["score", "--calls", "3,,4", "--tricks", "3,,4"], "--calls has an empty value"),
        (["rules", "--rules", "modern+exact_or_one+flat"], "both set scoring: keep one"),
        # an empty --rules (say "--rules $RULES" with RULES unset) was silently modern
        (["score", "--rules", "", "--calls", "3", "--tricks", "5"], "unknown ruleset ''"),
        (["rules", "--rules", ""], "unknown ruleset ''"),
        (["serve", "--log-level", "bogus"], "argument --log-level: invalid choice: 'bogus'"),
        (["serve", "--workers", "1000000"], "--workers must be 1..256, got 1000000"),
        (["serve", "--http-workers", "1000000"], "--http-workers must be 1..256, got 1000000"),
        ([], "the following arguments are required: COMMAND"),
        (["bogus"], "invalid choice: 'bogus'"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("callbreak-lab: error: ")
    assert message in err
    assert "Traceback" not in err


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "score" in out and "legal" in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("callbreak-lab ")


def test_generate_into_a_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a_file = tmp_path / "data"
    a_file.write_text("")
    code, out, err = run(
        capsys, "generate", "--profile", "modern", "--n", "1", "--out", str(a_file)
    )
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "cannot create the dataset directory" in err and "Traceback" not in err


def test_generate_rules_disagreeing_with_profile_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["generate", "--rules", "strict", "--profile", "modern", "--n", "1"]
    code, out, err = run(capsys, *argv, "--out", str(tmp_path), "--no-progress")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "--rules strict is the strict profile but --profile modern is modern" in err
    assert list(tmp_path.iterdir()) == []  # nothing generated


def test_closed_output_pipe_is_no_traceback() -> None:
    """`callbreak-lab ... | head -1`: the reader goes away; the CLI stops quietly."""
    script = (
        "import os, sys\n"
        "r, w = os.pipe()\n"
        "os.close(r)\n"  # nobody will ever read: every write gets EPIPE
        "os.dup2(w, 1)\n"
        "sys.stdout = open(1, 'w', closefd=False)\n"
        "from callbreak_lab.cli import main\n"
        "sys.exit(main(['--json', 'rules']))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert "Traceback" not in res.stderr and "BrokenPipeError" not in res.stderr, res.stderr
    assert res.returncode == 1


def test_ctrl_c_is_one_line_and_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during a long command (a full-deal solve can take a minute) printed a traceback
    from inside the solver."""
    from callbreak_lab.cli import game

    def interrupted(args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(game, "cmd_score", interrupted)
    try:
        code, out, err = run(capsys, "score", "--calls", "3", "--tricks", "3")
    except KeyboardInterrupt:  # not left to stop the whole test run
        pytest.fail("KeyboardInterrupt escaped main()")
    assert (code, out, err) == (130, "", "callbreak-lab: interrupted\n")
