"""Held-out evaluation (tables, plots) and the ``evaluate`` / ``evaluate-model`` commands.

Uses the small solved fixture datasets in ``tests/data/bid/`` (see its README).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from callbreak_lab.bidding import datasets as data
from callbreak_lab.bidding.evaluation import (
    evaluate_model,
    fit_model,
    flatten,
    log_loss,
    paired_gap,
    parse_hand_line,
    reliability,
    score_row,
)
from callbreak_lab.bidding.model import MODELS_ENV, BidModel, ModelError, save_model
from callbreak_lab.cli import main
from callbreak_lab.errors import HandError, NotationError, SeatError
from callbreak_lab.rules import PRESETS

FIXTURE = Path(__file__).parent / "data" / "bid"
SMALL: dict[str, Any] = {"max_iter": 15, "max_leaf_nodes": 7, "min_samples_leaf": 5, "cv": 2}
PNG = b"\x89PNG\r\n\x1a\n"


def _need_fixture() -> None:
    if not (FIXTURE / "modern" / "dataset.json").is_file():
        pytest.skip("solved fixture tests/data/bid/modern missing (see tests/data/bid/README.md)")


@pytest.fixture(scope="module")
def model() -> BidModel:
    _need_fixture()
    return fit_model(flatten(data.load("modern", FIXTURE, split="train")), **SMALL)


@pytest.fixture
def models_env(
    tmp_path_factory: pytest.TempPathFactory, model: BidModel, monkeypatch: pytest.MonkeyPatch
) -> Path:
    out = tmp_path_factory.mktemp("models")
    save_model(model, out)
    monkeypatch.setenv(MODELS_ENV, str(out))
    return out


# --- scoring helpers ------------------------------------------------------------------------------


def test_score_row_uses_the_ruleset_scoring() -> None:
    calls, tricks = np.array([3, 4, 2, 3]), np.array([5, 3, 2, 3])
    row = score_row("x", calls, tricks, PRESETS["strict"])  # seed 001: 3.2, -4, 2, 3
    assert row.mean_score == pytest.approx((3.2 - 4 + 2 + 3) / 4)
    assert row.made_rate == 0.75 and row.mean_call == 3.0 and row.n == 4
    home = score_row("x", np.array([8, 8, 3]), np.array([9, 10, 4]), PRESETS["home"])
    assert home.mean_score == pytest.approx((13 - 8 + 3) / 3)


def test_paired_gap_clusters_by_deal() -> None:
    a = np.array([3.0, 1.0, 2.0, 5.0])
    b = np.array([1.0, 1.0, 1.0, 1.0])
    d = a - b  # 2, 0, 1, 4
    # one hand per deal: the ordinary standard error of the mean difference
    m, se = paired_gap(a, b, np.array([0, 1, 2, 3]))
    assert m == pytest.approx(1.75) and se == pytest.approx(d.std(ddof=1) / 2)
    # two deals of two hands: the error of the per-deal sums (2, 5 around 2 * 1.75 each)
    m, se = paired_gap(a, b, np.array([7, 7, 9, 9]))
    assert m == pytest.approx(1.75)
    assert se == pytest.approx(np.sqrt(2 / 1 * ((2 - 3.5) ** 2 + (5 - 3.5) ** 2)) / 4)
    # identical callers: no difference, no error; one deal: no error estimate
    assert paired_gap(a, a, np.arange(4)) == (0.0, 0.0)
    assert np.isnan(paired_gap(a, b, np.zeros(4))[1])


def test_log_loss_and_reliability() -> None:
    y = np.array([0, 1, 1, 2])
    p = np.zeros((4, 14))
    p[np.arange(4), y] = 1.0
    assert log_loss(p, y) == pytest.approx(0.0, abs=1e-12)
    p2 = np.full((4, 14), 1 / 14)
    assert log_loss(p2, y) == pytest.approx(np.log(14))
    f, o, n = reliability(p2, y, 1)  # forecast 13/14 for every hand, observed 3/4
    assert f == pytest.approx([13 / 14]) and o == pytest.approx([0.75]) and list(n) == [4]


def test_parse_hand_line() -> None:
    hand, seat = parse_hand_line("AKQ2.T98.765.432 3")
    assert str(hand) == "AKQ2.T98.765.432" and seat == 3
    assert parse_hand_line("♠AKQ2 ♥T98 ♦765 ♣432")[1] == 0
    # a tab (or several spaces) before the seat, as in a tab-separated file
    assert parse_hand_line("AKQ2.T98.765.432\t2") == (hand, 2)
    assert parse_hand_line(" AKQ2.T98.765.432 \t 1\t") == (hand, 1)
    assert parse_hand_line("AS KS QS 2S TH 9H 8H 7D 6D 5D 4C 3C 2C\t3") == (hand, 3)
    with pytest.raises(SeatError, match=r"seat must be 0\.\.3"):
        parse_hand_line("AKQ2.T98.765.432 7")
    with pytest.raises(HandError, match="13 cards, got 3"):
        parse_hand_line("AS KS QS")
    with pytest.raises(HandError, match="dotted hand"):
        parse_hand_line("AKQ2.T98.765")
    # a negative seat is named as a seat; a digit int() cannot read is a NotationError (it was
    # a bare ValueError that stopped `evaluate --file` at that line)
    with pytest.raises(SeatError, match=r"seat must be 0\.\.3, got -1"):
        parse_hand_line("AKQ2.T98.765.432 -1")
    with pytest.raises(NotationError):
        parse_hand_line("AKQ2.T98.765.432 \u00b2")


# --- the report -----------------------------------------------------------------------------------


def test_evaluate_model_tables_and_pngs(model: BidModel, tmp_path: Path) -> None:
    report = evaluate_model(
        "modern", FIXTURE, model=model, out_dir=tmp_path, learning_fractions=(0.5, 1.0)
    )
    names = [r.name for r in report.playout_table]
    assert names == [
        "model",
        "count_aces_kings",
        "count_with_support",
        "fractional_honours",
        "clairvoyant",
    ]
    assert [r.name for r in report.floor_table] == names
    test = flatten(data.load("modern", FIXTURE, split="test"))
    assert report.test_hands == len(test)
    best = report.playout_table[-1]  # clairvoyant: calls its tricks (at least the lowest call)
    assert best.mean_score >= max(r.mean_score for r in report.playout_table)
    assert best.made_rate == pytest.approx(np.mean(test.playout >= 1))
    assert set(report.log_loss) == {"playout", "floor"}
    assert [n for n, _, _ in report.learning][-1] == len(flatten(data.load("modern", FIXTURE)))
    for key in ("calibration_png", "learning_curve_png"):
        assert Path(report.files[key]).read_bytes()[:8] == PNG
    saved = json.loads(Path(report.files["json"]).read_text())
    assert saved["playout_table"][0]["name"] == "model"
    # the record names its plots beside it, not by this machine's absolute path
    here = Path(report.files["json"]).parent
    for key in ("calibration_png", "learning_curve_png"):
        assert not Path(saved["files"][key]).is_absolute()
        assert (here / saved["files"][key]).read_bytes()[:8] == PNG
    text = report.format()
    for heading in ("Outcome = play-out tricks", "guaranteed tricks", "log loss", "learning"):
        assert heading in text
    # paired gaps: the model's mean score minus each baseline's, on the same hands
    rows = {r.name: r.mean_score for r in report.playout_table}
    assert set(report.model_gaps) == set(names[1:-1])
    for name, (gap, se) in report.model_gaps.items():
        assert gap == pytest.approx(rows["model"] - rows[name])
        assert se >= 0 and f"model - {name}: {gap:+.3f}" in text
    assert (
        saved["model_gaps"]["fractional_honours"][0] == report.model_gaps["fractional_honours"][0]
    )


@pytest.mark.slow
def test_evaluate_model_monte_carlo_table(model: BidModel) -> None:
    from callbreak_lab.analysis.montecarlo import mc_distribution

    seen: list[tuple[int, int]] = []
    report = evaluate_model(
        "modern", FIXTURE, model=model, mc_hands=2, mc_layouts=1, learning_fractions=None,
        mc_distribution=mc_distribution, progress=lambda d, t: seen.append((d, t)),
    )  # fmt: skip
    assert seen == [(1, 2), (2, 2)]  # progress(done, total) after each Monte Carlo hand
    assert [r.name for r in report.mc_table][:2] == ["model", "monte_carlo"]
    assert all(r.n == 2 for r in report.mc_table)
    assert set(report.mc_gap) >= {"model_minus_mc", "se"}
    assert "Monte Carlo subsample (2 hands)" in report.format()
    with pytest.raises(ModelError, match="mc_hands needs mc_distribution"):
        evaluate_model("modern", FIXTURE, model=model, mc_hands=2, learning_fractions=None)


def test_evaluate_model_under_bonus_scoring(model: BidModel) -> None:
    rules = "modern+exact_or_one_bonus+min_call=2"  # home's scoring and calls, modern's play
    report = evaluate_model(rules, FIXTURE, model=model, learning_fractions=None)
    assert "exact_or_one_bonus" in report.rules and report.profile == "modern"
    assert all(r.mean_call >= 2 for r in report.playout_table)


# --- command line ---------------------------------------------------------------------------------


def test_cli_evaluate_one_hand(models_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--rules", "modern", "AKQ2.T98.765.432", "--seat", "2"]) == 0
    out = capsys.readouterr().out
    assert "suggested call:" in out and "floor" in out and "expected" in out
    assert main(["evaluate", "--rules", "modern", "--json", "AKQ2.T98.765.432"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["seat"] == 0 and len(got["distribution"]) == 14 and len(got["floor"]) == 14
    assert got["expected"][str(got["call"])] == max(got["expected"].values())


def test_cli_evaluate_after_earlier_calls(
    models_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the seat defaults to the number of earlier calls; the fixture model ignores them
    assert (
        main(
            [
                "evaluate",
                "--rules",
                "modern",
                "AKQ2.T98.765.432",
                "--earlier-calls",
                "3,4",
                "--json",
            ]
        )
        == 0
    )
    got = json.loads(capsys.readouterr().out)
    assert (got["seat"], got["earlier_calls"], got["calls_used"]) == (2, [3, 4], False)
    assert (
        main(["evaluate", "--rules", "modern", "AKQ2.T98.765.432", "--earlier-calls", "3 4"]) == 0
    )
    assert "earlier calls: 3, 4 (this model does not use them)" in capsys.readouterr().out
    assert (
        main(
            [
                "evaluate",
                "--rules",
                "modern",
                "AKQ2.T98.765.432",
                "--seat",
                "1",
                "--earlier-calls",
                "3,4",
            ]
        )
        == 2
    )
    assert "takes 1 earlier call(s), got 2" in capsys.readouterr().err
    assert (
        main(["evaluate", "--rules", "modern", "AKQ2.T98.765.432", "--earlier-calls", "3,x"]) == 2
    )
    assert "whole numbers" in capsys.readouterr().err
    args = ["evaluate", "--rules", "strict", "AKQ2.T98.765.432", "--earlier-calls", "1"]
    assert main(args) == 2
    assert "whole number 2..13, got 1" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_evaluate_with_monte_carlo(
    models_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["evaluate", "--rules", "modern", "AKQ2.T98.765.432", "--layouts", "3", "--json"]) == 0
    )
    got = json.loads(capsys.readouterr().out)
    assert got["monte_carlo"]["layouts"] == 3 and len(got["monte_carlo"]["distribution"]) == 14
    # the same layouts and answers when they are solved in two worker processes
    args = ["evaluate", "--rules", "modern", "AKQ2.T98.765.432", "--layouts", "3", "--n-jobs", "2"]
    args.append("--json")
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == got


def test_cli_evaluate_file_json_lines_and_bad_line(
    models_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "hands.txt"
    f.write_text("AKQ2.T98.765.432\nnot a hand\n\nKQJ.AK2.QJ3.5432 2\n", encoding="utf-8")
    rules = "modern+exact_or_one_bonus+min_call=2"  # home's scoring and calls, modern's play
    code = main(["evaluate", "--rules", rules, "--file", str(f), "--json"])
    captured = capsys.readouterr()
    assert code == 2
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [(r["hand"], r["seat"]) for r in rows] == [
        ("AKQ2.T98.765.432", 0),
        ("KQJ.AK2.QJ3.5432", 2),
    ]
    for r in rows:
        assert set(r) == {"hand", "seat", "call", "expected", "distribution"}
        assert 2 <= r["call"] <= 13 and len(r["distribution"]) == 14
    assert captured.err.count("\n") == 1 and "line 2:" in captured.err
    f.write_text("AKQ2.T98.765.432 1\n", encoding="utf-8")
    assert main(["evaluate", "--rules", "modern", "--file", str(f)]) == 0
    assert "seat 1: call" in capsys.readouterr().out
    capsys.readouterr()
    assert main(["evaluate", "--rules", "modern", "--file", str(f), "--earlier-calls", "3"]) == 2
    assert "one hand, not with --file" in capsys.readouterr().err
    f.write_text("AKQ2.T98.765.432\t3\n", encoding="utf-8")  # tab-separated
    assert main(["evaluate", "--rules", "modern", "--file", str(f)]) == 0
    assert "seat 3: call" in capsys.readouterr().out


def test_cli_evaluate_file_with_a_line_that_is_not_utf8(
    models_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One bad byte is one malformed line (it made the whole file unreadable)."""
    f = tmp_path / "hands.txt"
    f.write_bytes(b"AKQ2.T98.765.432 1\nAKQ2.T98.765.43\xff\nAKQ2.T98.765.432 2\n")
    assert main(["evaluate", "--rules", "modern", "--file", str(f)]) == 2
    captured = capsys.readouterr()
    assert [line.split(":")[0] for line in captured.out.splitlines()] == [
        "AKQ2.T98.765.432 seat 1",
        "AKQ2.T98.765.432 seat 2",
    ]
    assert captured.err.count("\n") == 1 and "line 2:" in captured.err
    # a byte-order mark is not part of line 1 (it was: "unknown rank '\\ufeff'")
    f.write_bytes(b"\xef\xbb\xbfAKQ2.T98.765.432 1\n")
    assert main(["evaluate", "--rules", "modern", "--file", str(f)]) == 0
    assert capsys.readouterr().out.startswith("AKQ2.T98.765.432 seat 1: call")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "AS KS QS"], "13 cards, got 3"),
        (["evaluate", "AKQ2.T98"], "dotted hand"),
        (["evaluate", "AKQ2.T98.765.432", "--seat", "4"], "seat"),
        (["evaluate"], "give a hand or --file"),
        (["evaluate", "--file", "/nonexistent/hands.txt"], "cannot read"),
        (["evaluate", "--file", "hands.txt", "--seat", "2"], "--seat works with one hand"),
        (["evaluate", "--rules", "nope", "AKQ2.T98.765.432"], "unknown ruleset"),
    ],
)
def test_cli_evaluate_bad_input(
    models_env: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_cli_evaluate_model(
    models_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate-model", "--rules", "modern", "--data", str(FIXTURE), "--out", str(tmp_path)]
    assert main([*argv, "--no-learning-curve"]) == 0
    out = capsys.readouterr().out
    assert "Outcome = play-out tricks" in out and "fractional_honours" in out
    assert (tmp_path / "calibration-modern.png").read_bytes()[:8] == PNG
    assert main(["evaluate-model", "--rules", "modern", "--data", str(tmp_path / "none")]) == 2
    assert "no complete dataset" in capsys.readouterr().err
    for flag in ("--models", "--data", "--out"):  # "" is not the working directory
        assert main([*argv, flag, ""]) == 2
        assert f"evaluate-model: {flag} is empty" in capsys.readouterr().err


def test_evaluate_model_checks_out_dir_first(tmp_path: Path) -> None:
    a_file = tmp_path / "report"
    a_file.write_text("")
    with pytest.raises(ModelError, match="cannot create the output directory"):
        evaluate_model("modern", tmp_path / "no-data", out_dir=a_file)
    # "" is not the working directory (the report and PNGs were written there)
    for kw in ({"out_dir": ""}, {"models_dir": " "}):
        with pytest.raises(ModelError, match="is empty"):
            evaluate_model("modern", FIXTURE, **kw)  # type: ignore[arg-type]
    with pytest.raises(ModelError, match="data_dir is empty"):
        evaluate_model("modern", "")


def test_plots_are_written_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure while saving leaves the previous file whole (temp file, then rename)."""
    from matplotlib.figure import Figure

    from callbreak_lab.bidding.evaluation import plot_calibration

    out = tmp_path / "calibration.png"
    out.write_bytes(b"previous")

    def torn_savefig(self: Figure, fname: Any, **kwargs: Any) -> None:
        if isinstance(fname, str | Path):
            Path(fname).write_bytes(b"half a PNG")
        else:
            fname.write(b"half a PNG")
        raise OSError("disk full")

    monkeypatch.setattr(Figure, "savefig", torn_savefig)
    proba = np.full((4, 14), 1 / 14)
    with pytest.raises(OSError, match="disk full"):
        plot_calibration(proba, np.array([0, 1, 2, 3]), out)
    assert out.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["calibration.png"]
