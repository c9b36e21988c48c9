"""The one exception family: every library error is a ``CallbreakLabError`` leaf."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable
from typing import Any

import pytest

import callbreak_lab
from callbreak_lab import errors
from callbreak_lab.cards import Card, Deal, Hand
from callbreak_lab.cli import main
from callbreak_lab.errors import (
    CallbreakLabError,
    CallError,
    CardError,
    DataError,
    HandError,
    IllegalPlayError,
    ModelError,
    NotationError,
    RulesError,
    SeatError,
    SolverInputError,
    UsageError,
)
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset

#: exceptions that are not about bad input: the service pool's control flow, a widget's missing
#: source of numbers, a solver search stopped by its time limit (they must not pass for input
#: errors either)
NOT_INPUT_ERRORS = {
    "callbreak_lab.solver._threads.SearchTimeout",
    "callbreak_lab.service.pool.JobError",
    "callbreak_lab.service.pool.JobTimeout",
    "callbreak_lab.service.pool.PoolBusy",
    "callbreak_lab.widgets.backend.SourceUnavailable",
}

DEAL = Deal.random(5)
SPADES = Hand.parse("AKQJT98765432...")


def _package_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of the package, by qualified name."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(callbreak_lab.__path__, "callbreak_lab."):
        if info.name.endswith("__main__"):  # runs the command line when imported
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == info.name:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


#: the exception classes of errors.py (its ``__all__`` also holds the whole-number check)
_FAMILY = [name for name in errors.__all__ if isinstance(getattr(errors, name), type)]


def test_every_exception_of_the_package_is_a_callbreak_lab_error() -> None:
    found = _package_exceptions()
    assert {f"callbreak_lab.errors.{name}" for name in _FAMILY} <= set(found)
    assert set(NOT_INPUT_ERRORS) <= set(found)  # the exclusions still exist under these names
    strays = [
        name
        for name, cls in found.items()
        if name not in NOT_INPUT_ERRORS and not issubclass(cls, CallbreakLabError)
    ]
    assert strays == []
    for name in NOT_INPUT_ERRORS:
        assert not issubclass(found[name], ValueError), name
    # the family itself: every leaf is in errors.py and re-exported by the package
    for name in _FAMILY:
        cls = getattr(errors, name)
        assert issubclass(cls, CallbreakLabError) and getattr(callbreak_lab, name) is cls
    assert issubclass(CallbreakLabError, ValueError)


def test_family_tree() -> None:
    for leaf in (errors.CardError, errors.HandError, errors.DealError, errors.RecordError):
        assert issubclass(leaf, NotationError)
    assert issubclass(CallError, IllegalPlayError) and issubclass(DataError, ModelError)
    direct = (
        NotationError,
        SeatError,
        RulesError,
        IllegalPlayError,
        ModelError,
        SolverInputError,
        UsageError,
        errors.FieldError,
        errors.StandingError,
    )
    assert all(leaf.__bases__ == (CallbreakLabError,) for leaf in direct)


def _solver_at_least() -> Any:
    from callbreak_lab import solver

    return solver.card_values(Position(DEAL, "modern"), 0, at_least=14)


def _duck_position() -> Any:
    from types import SimpleNamespace

    from callbreak_lab import solver

    hands = [Hand(0b11), Hand(0b110), Hand(0b110000), Hand(0b11000000)]  # 2D at seats 0 and 1
    duck = SimpleNamespace(
        hands=hands, trick=(), leader=0, is_first_trick=False, tricks_won=(0, 0, 0, 0)
    )
    return solver.solve(duck, 0, "modern")  # type: ignore[arg-type]


def _profile() -> Any:
    from callbreak_lab.bidding.model import profile_of

    return profile_of("nope")


def _dataset_profile() -> Any:
    from callbreak_lab.bidding.datasets import profile_of

    return profile_of("nope")


def _features() -> Any:
    from callbreak_lab.bidding.features import hand_features

    return hand_features([Hand.parse("AS KS").mask], [0])


def _bhoos_card() -> Any:
    from callbreak_lab.arena.bhoos import parse_bhoos_card

    return parse_bhoos_card("ZZ")


def _voids() -> Any:
    from callbreak_lab.seat.dealing import deal_around

    return deal_around(SPADES, 0, 5, voids={1: "H", 2: "H", 3: "H"})


def _settings() -> Any:
    from callbreak_lab.service import Settings

    return Settings(workers=0)


def _standing() -> Any:
    from callbreak_lab.bidding.equity import match_equity

    return match_equity((0, 1.5, 0, 0), 1, "online")


def _illegal_card() -> Any:
    p = Position(DEAL, "modern")
    return p.play(next(iter(DEAL[1])))  # seat 0 is to play


@pytest.mark.parametrize(
    ("call", "leaf", "names"),
    [
        (lambda: Card.parse("1Z"), CardError, "'1Z'"),
        (lambda: Hand.parse("AKQ.T98"), HandError, "'AKQ.T98'"),
        (lambda: Ruleset.preset("bridge"), RulesError, "unknown ruleset 'bridge'"),
        (lambda: Ruleset.preset("modern+overtake"), RulesError, "variation 'overtake'"),
        (lambda: Ruleset.coerce(None, default="pagat+x"), RulesError, "variation 'x'"),
        (_illegal_card, IllegalPlayError, "seat 0 does not hold"),
        (lambda: Ruleset.preset("home").check_call(1), CallError, "call 1 is outside home"),
        (_profile, ModelError, "no bid model for 'nope'"),
        (_dataset_profile, DataError, "unknown profile 'nope'"),
        (_features, ModelError, "has 2 cards"),
        (_solver_at_least, SolverInputError, "at_least (14)"),
        (_duck_position, SolverInputError, "holds cards another seat holds too"),
        (_voids, SolverInputError, "void in hearts"),
        (_bhoos_card, CardError, "'ZZ'"),
        (_settings, UsageError, "Settings.workers"),
        (_standing, errors.StandingError, "seat 1's total must be a whole number of tenths"),
    ],
    ids=lambda x: x.__name__ if isinstance(x, type) else None,
)
def test_bad_input_raises_a_leaf_naming_the_problem(
    call: Callable[[], Any], leaf: type[CallbreakLabError], names: str
) -> None:
    with pytest.raises(CallbreakLabError) as info:
        call()
    assert type(info.value) is not CallbreakLabError  # a leaf, not the bare base
    assert isinstance(info.value, leaf)
    assert names in str(info.value)


def _seat_calls() -> list[Callable[[], Any]]:
    from callbreak_lab import solver
    from callbreak_lab.analysis import lines
    from callbreak_lab.bidding.model import recommend_call
    from callbreak_lab.seat import dealing

    hand = DEAL[0]
    return [
        lambda: DEAL[7],
        lambda: Position(DEAL, "modern").hand(7),
        lambda: Deal.random_with({7: "AS"}, seed=1),
        lambda: dealing.deal_around(hand, 7, 5),
        lambda: lines.play_line(DEAL, 7, "modern"),
        lambda: solver.solve(DEAL, 7, "modern"),
        lambda: solver.values_and_playouts([DEAL], 7, "modern"),
        lambda: recommend_call(hand, 7, "modern"),  # before any model is loaded
    ]


def test_a_bad_seat_is_one_error_everywhere() -> None:
    for call in _seat_calls():
        with pytest.raises(SeatError, match=re.escape("seat must be 0..3, got 7")):
            call()


@pytest.mark.parametrize(
    "argv",
    [
        ["legal", "--hand", "1Z"],
        ["score", "--rules", "bridge", "--calls", "3", "--tricks", "3"],
        ["score", "--calls", "0", "--tricks", "3"],
        ["line", str(DEAL), "--seat", "7"],
        ["evaluate", str(DEAL[0]), "--seat", "7"],
        ["deal", "--seed", "-1"],
    ],
)
def test_the_cli_prints_one_line_and_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("callbreak-lab: error: ")
    assert "Traceback" not in err


def test_check_int_takes_whole_numbers_in_range_and_names_what_is_wrong() -> None:
    import numpy as np

    assert errors.check_int(3, "layouts", low=1) == 3
    assert type(errors.check_int(np.int64(5), "n", low=0, high=5)) is int
    assert errors.check_int(-7, "anything") == -7
    for bad in (True, 2.0, "2", None, np.bool_(True)):
        with pytest.raises(UsageError, match=r"^layouts must be a whole number >= 1, got "):
            errors.check_int(bad, "layouts", low=1)
    with pytest.raises(UsageError, match=r"^layouts must be a whole number >= 1, got 0$"):
        errors.check_int(0, "layouts", low=1)
    with pytest.raises(SolverInputError, match=r"^cards must be a whole number 0\.\.52"):
        errors.check_int(53, "cards", low=0, high=52, error=SolverInputError)
    with pytest.raises(UsageError, match=r"^n must be a whole number <= 3, got 4$"):
        errors.check_int(4, "n", high=3)


def test_deal_i_of_seed_s_is_one_deal() -> None:
    import numpy as np

    assert Deal.seeded(7, 3) == Deal.random(np.random.default_rng([7, 3]))
    assert Deal.seeded(np.int64(7), 3) == Deal.seeded(7, 3) != Deal.seeded(7, 4)
    for bad in ((-1, 0), (0, -1), (True, 0), (0, 1.0)):
        with pytest.raises(errors.DealError, match="must be a whole number >= 0"):
            Deal.seeded(*bad)  # type: ignore[arg-type]
