"""The bid model: training on solved deals, distributions, persistence with cards, recommendations.

Trained on the small solved fixture datasets in ``tests/data/bid/<profile>/`` (real solver
outputs; regenerate with the command in ``tests/data/bid/README.md``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from callbreak_lab.bidding import datasets as data
from callbreak_lab.bidding.calls import best_calls
from callbreak_lab.bidding.evaluation import HandSet, fit_model, flatten
from callbreak_lab.bidding.features import FEATURE_NAMES, SIDE_SUIT_ORDERS, rename_side_suits
from callbreak_lab.bidding.learners import FAST_ROWS, fold_splits, full_proba, temper
from callbreak_lab.bidding.model import (
    MODELS_ENV,
    NO_CALL,
    X_COLUMNS,
    BidModel,
    ModelError,
    default_models_dir,
    encode_hands,
    load_model,
    model_paths,
    profile_of,
    recommend_call,
    recommend_calls,
    save_model,
)
from callbreak_lab.cards import Hand
from callbreak_lab.errors import CallError, HandError, RulesError, SeatError
from callbreak_lab.rules import PRESETS, Ruleset

FIXTURE = Path(__file__).parent / "data" / "bid"
SMALL: dict[str, Any] = {"max_iter": 15, "max_leaf_nodes": 7, "min_samples_leaf": 5, "cv": 2}


def X(hs: HandSet, earlier_calls: Any = None) -> np.ndarray:
    """The estimator input of a hand set (optionally with the earlier seats' calls)."""
    return encode_hands(hs.masks, hs.seats, earlier_calls)


def Y(hs: HandSet) -> np.ndarray:
    """Both targets of a hand set: play-out tricks, then the floor (double-dummy tricks)."""
    return np.column_stack([hs.playout, hs.dd])


def hands(profile: str, split: str = "train") -> HandSet:
    if not (FIXTURE / profile / "dataset.json").is_file():
        pytest.skip(
            f"solved fixture tests/data/bid/{profile} missing (see tests/data/bid/README.md)"
        )
    return flatten(data.load(profile, FIXTURE, split=split))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def train() -> HandSet:
    return hands("modern")


@pytest.fixture(scope="module")
def model(train: HandSet) -> BidModel:
    return fit_model(train, profile="modern", **SMALL)


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory, model: BidModel) -> Path:
    """A model directory with one tiny model per profile. Only the ``modern`` fixture exists
    (solving full deals is slow), so the other profiles' models are trained on it too: these
    tests check loading and call legality, which do not depend on the training profile."""
    out = tmp_path_factory.mktemp("models")
    save_model(model, out, dataset_hash="test", metrics={"note": "tiny"})
    for profile in ("strict", "online", "home_pagat"):
        save_model(fit_model(hands("modern"), profile=profile, **SMALL), out)
    return out


def test_fixture_is_real_solver_data(train: HandSet) -> None:
    assert len(train) % 4 == 0 and len(train) >= 100
    per_deal = train.playout.reshape(-1, 4)
    assert np.all(per_deal.sum(axis=1) == 13)  # play-out tricks of a deal sum to 13
    assert np.all(train.dd <= train.playout)  # the guarantee is a floor


def test_predict_proba_is_a_distribution_over_14_trick_counts(
    model: BidModel, train: HandSet
) -> None:
    test = hands("modern", "test")
    for proba in (model.predict_proba(X(test)), model.predict_floor_proba(X(test))):
        assert proba.shape == (len(test), 14)
        assert np.all(proba >= 0)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    # tricks never seen in training have probability exactly 0
    unseen = sorted(set(range(14)) - set(train.playout.tolist()))
    assert unseen, "the tiny fixture should miss some trick counts (e.g. 13)"
    assert np.all(model.predict_proba(X(test))[:, unseen] == 0)
    # the one-pass form (one feature computation for both heads) gives the same numbers
    both = model.predict_both(X(test))
    np.testing.assert_array_equal(both[0], model.predict_proba(X(test)))
    np.testing.assert_array_equal(both[1], model.predict_floor_proba(X(test)))
    # predict, expected_tricks and score follow from the distribution
    proba = model.predict_proba(X(test))
    np.testing.assert_array_equal(model.predict(X(test)), proba.argmax(axis=1))
    np.testing.assert_allclose(model.expected_tricks(X(test)), proba @ np.arange(14))
    accuracy = float(np.mean(proba.argmax(axis=1) == test.playout))
    assert model.score(X(test), Y(test)) == model.score(X(test), test.playout) == accuracy


def test_14_columns_when_training_lacks_many_classes(train: HandSet) -> None:
    low = train.take(train.playout <= 3)
    m = BidModel(**SMALL).fit(X(low), Y(low))
    p = m.predict_proba(X(train)[:5])
    assert p.shape == (5, 14)
    assert np.all(p[:, 4:] == 0)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


@pytest.mark.parametrize("learner", ["hgb", "logistic", "ordinal"])
def test_each_learner_is_deterministic_and_fast_path_matches(learner: str, train: HandSet) -> None:
    a = BidModel(learner=learner, random_state=3, **SMALL)
    b = clone(a)
    a.fit(X(train), Y(train))
    b.fit(X(train), Y(train))
    many = np.tile(X(train), (2, 1))[: FAST_ROWS + 10]  # above the compiled-predictor cut-off
    pa = a.predict_proba(many)
    np.testing.assert_array_equal(pa, b.predict_proba(many))
    # the compiled numpy predictor (small batches) agrees with scikit-learn's own
    for i in range(0, 12, 4):
        np.testing.assert_allclose(a.predict_proba(many[i : i + 4]), pa[i : i + 4])
    head = a.playout_
    x = a._features(many[:4])
    np.testing.assert_allclose(
        head.proba(x), temper(full_proba(head.estimator, x), head.temperature)
    )


def test_params_round_trip_and_bad_params(train: HandSet) -> None:
    m = BidModel(learner="logistic", C=0.5, random_state=7)
    assert m.get_params()["C"] == 0.5 and m.get_params()["random_state"] == 7
    m.set_params(C=2.0)
    assert clone(m).C == 2.0
    x, y = X(train), Y(train)
    with pytest.raises(ModelError, match="unknown learner"):
        BidModel(learner="forest").fit(x, y)
    with pytest.raises(ModelError, match="unknown profile"):
        BidModel(profile="bridge").fit(x, y)
    with pytest.raises(ModelError, match=r"cv \(calibration folds\) must be a whole number"):
        BidModel(cv=1).fit(x, y)
    with pytest.raises(ModelError, match="shape"):
        BidModel().fit(x, y[:-1])
    with pytest.raises(ModelError, match="shape"):
        BidModel().fit(x, np.column_stack([y, y]))
    with pytest.raises(ModelError, match=r"0\.\.13"):
        BidModel().fit(x, y + 13)
    with pytest.raises(ModelError, match=r"y\[:, 1\] \(floor tricks\) must be integer"):
        BidModel().fit(x, np.column_stack([train.playout, train.dd - 1]))
    with pytest.raises(ModelError, match="target y is None"):
        BidModel().fit(x, None)  # type: ignore[arg-type]
    with pytest.raises(ModelError, match="Unknown label type"):
        BidModel().fit(x, train.playout + 0.5)
    with pytest.raises(ModelError, match="random_state must be"):
        BidModel(random_state="seven").fit(x, y)  # type: ignore[arg-type]
    short = X(train)
    short[:, 0] >>= 1  # 12-card hands (and some with 11 or 13)
    with pytest.raises(ModelError, match="13-card"):
        BidModel().fit(short, y)


def test_not_fitted_is_sklearns_error_and_a_model_error(train: HandSet) -> None:
    fresh = BidModel()
    for method in ("predict_proba", "predict", "predict_floor_proba", "predict_both"):
        with pytest.raises(NotFittedError, match="not fitted"):
            getattr(fresh, method)(X(train)[:1])
    with pytest.raises(ModelError, match="not fitted"):
        fresh.predict_proba(X(train)[:1])
    with pytest.raises(NotFittedError):
        check_is_fitted(fresh)


@pytest.mark.slow
def test_random_state_takes_an_int_a_randomstate_or_none(train: HandSet) -> None:
    small = {**SMALL, "learner": "hgb"}
    x, y = X(train), Y(train)
    by_int = BidModel(random_state=5, **small).fit(x, y).predict_proba(x)
    again = BidModel(random_state=5, **small).fit(x, y).predict_proba(x)
    np.testing.assert_array_equal(by_int, again)
    # two RandomStates in the same state give the same model; one generator, used twice, moves on
    a = BidModel(random_state=np.random.RandomState(1), **small).fit(x, y).predict_proba(x)
    b = BidModel(random_state=np.random.RandomState(1), **small).fit(x, y).predict_proba(x)
    np.testing.assert_array_equal(a, b)
    shared = BidModel(random_state=np.random.RandomState(1), **small)
    first = shared.fit(x, y).predict_proba(x)
    assert not np.array_equal(first, shared.fit(x, y).predict_proba(x))
    unseeded = BidModel(random_state=None, **small).fit(x, y)
    np.testing.assert_allclose(unseeded.predict_proba(x).sum(axis=1), 1.0)


def test_encode_hands_builds_the_documented_columns(train: HandSet) -> None:
    masks, seats = train.masks[:4], np.array([0, 1, 2, 3])
    plain = encode_hands(masks, seats)
    assert plain.dtype == np.int64 and plain.shape == (4, len(X_COLUMNS)) == (4, 6)
    assert X_COLUMNS == ("hand", "seat", "calls_known", "call_seat_0", "call_seat_1", "call_seat_2")
    assert plain[:, 0].tolist() == [int(m) for m in masks] and plain[:, 1].tolist() == [0, 1, 2, 3]
    assert np.all(plain[:, 2] == 0) and np.all(plain[:, 3:] == NO_CALL)
    table = np.array([[5, 4, 3, 2]] * 4)  # every seat's call: only the earlier seats' are kept
    per_hand = [[], [5], [5, 4], [5, 4, 3]]
    for calls in (table, per_hand):
        x = encode_hands(masks, seats, calls)
        assert np.all(x[:, 2] == 1)
        assert x[:, 3:].tolist() == [[-1, -1, -1], [5, -1, -1], [5, 4, -1], [5, 4, 3]]
    assert encode_hands(masks, 2)[:, 1].tolist() == [2] * 4  # one seat for all
    with pytest.raises(ModelError, match="seat 2, so 2 earlier call"):
        encode_hands(masks, seats, [[], [5], [5], [5, 4, 3]])
    with pytest.raises(ModelError, match=r"shape \(4, 4\)"):
        encode_hands(masks, seats, table[:, :3])
    with pytest.raises(ModelError, match="13-card"):
        encode_hands(masks >> np.uint64(1), seats)


def test_X_is_checked(model: BidModel, train: HandSet) -> None:
    x = X(train)[:4]
    np.testing.assert_array_equal(model.predict_proba(x.tolist()), model.predict_proba(x))
    np.testing.assert_array_equal(  # any integer dtype that holds the masks
        model.predict_proba(x.astype(np.uint64)), model.predict_proba(x)
    )

    def changed(x: np.ndarray, column: int, value: int) -> np.ndarray:
        out = x.copy()
        out[:, column] = value
        return out

    one = train.masks[:1]
    cases: list[tuple[Any, str]] = [
        (x[:, :2], "X has 2 feature"),
        (x[0], "Expected 2D array"),
        (x.astype(np.float64), "X must hold integers"),
        (changed(x, 1, 4), "seats are 0..3, got 4"),
        (changed(x, 2, 2), "calls_known column"),
        # calls_known 0 with a call given; calls_known 1 with a call missing or out of range
        (changed(encode_hands(one, [2]), 3, 4), "call_seat_0 must be -1 \\(no call\\), got 4"),
        (changed(encode_hands(one, [2], [[3, 4]]), 4, -1), "call_seat_1 must be a call 0..13"),
        (encode_hands(one, [1], [[14]]), "call_seat_0 must be a call 0..13, got 14"),
        (changed(encode_hands(one, [1], [[3]]), 5, 5), "call_seat_2 must be -1"),
    ]
    for bad, message in cases:
        with pytest.raises(ModelError, match=message):
            model.predict_proba(bad)
    with pytest.raises(ModelError, match="fit takes hands without earlier calls"):
        BidModel(**SMALL).fit(X(train, np.zeros((len(train), 4), dtype=int)), Y(train))


def test_play_out_targets_alone_train_no_floor_head(train: HandSet) -> None:
    one = BidModel(learner="ordinal", cv=2).fit(X(train), train.playout)
    both = BidModel(learner="ordinal", cv=2).fit(X(train), Y(train))
    assert one.floor_ is None and both.floor_ is not None
    np.testing.assert_array_equal(one.predict_proba(X(train)), both.predict_proba(X(train)))
    with pytest.raises(ModelError, match="no floor head"):
        one.predict_floor_proba(X(train))
    with pytest.raises(ModelError, match="no floor head"):
        recommend_call("AKQ2.T98.765.432", 0, "modern", model=one)
    assert recommend_calls(train.masks, train.seats, "modern", model=one).call.shape == (
        len(train),
    )


def test_call_conditioning_head(train: HandSet) -> None:
    m = BidModel(condition_on_calls=True, **SMALL)
    with pytest.raises(ModelError, match="deal_index"):
        m.fit(X(train), Y(train))
    m.fit(X(train), Y(train), deal_index=train.deal)
    assert m.feature_names_[-3:] == ("prev_calls_n", "prev_calls_sum", "prev_calls_max")
    hand = train.masks[3:4]
    alone = m.predict_proba(encode_hands(hand, [3]))
    strong = m.predict_proba(encode_hands(hand, [3], [[8, 7, 6]]))
    weak = m.predict_proba(encode_hands(hand, [3], [[1, 1, 1]]))
    assert not np.allclose(strong, weak)
    np.testing.assert_allclose(alone, m.predict_proba(encode_hands(hand, [3])))
    assert (strong @ np.arange(14))[0] < (weak @ np.arange(14))[0] + 1.0
    with pytest.raises(ModelError, match="earlier call"):
        encode_hands(hand, [3], [[1]])
    # rows with and without calls mix: each row gets its own head
    mixed = np.vstack([encode_hands(hand, [3], [[8, 7, 6]]), encode_hands(hand, [3])])
    np.testing.assert_allclose(m.predict_proba(mixed), np.vstack([strong, alone]))

    # recommend_call passes the earlier calls through and says that it used them
    text = str(Hand(int(hand[0])))
    after_strong = recommend_call(text, 3, "modern", model=m, earlier_calls=[8, 7, 6])
    assert after_strong.calls_used and after_strong.earlier_calls == (8, 7, 6)
    np.testing.assert_allclose(after_strong.distribution, strong[0])
    plain = recommend_call(text, 3, "modern", model=m)
    assert not plain.calls_used and plain.earlier_calls is None
    np.testing.assert_allclose(plain.distribution, alone[0])
    assert json.loads(json.dumps(after_strong.to_dict()))["earlier_calls"] == [8, 7, 6]


def test_earlier_calls_are_checked_and_ignored_by_an_unconditioned_model(
    model: BidModel,
) -> None:
    hand = "AKQ2.T98.765.432"
    rec = recommend_call(hand, 2, "modern", model=model, earlier_calls=[3, 4])
    assert rec.earlier_calls == (3, 4) and not rec.calls_used
    np.testing.assert_allclose(
        rec.distribution, recommend_call(hand, 2, "modern", model=model).distribution
    )
    assert recommend_call(hand, 0, "modern", model=model, earlier_calls=[]).earlier_calls == ()
    with pytest.raises(CallError, match="takes 2 earlier call"):
        recommend_call(hand, 2, "modern", model=model, earlier_calls=[3])
    with pytest.raises(CallError, match=r"whole number 2\.\.13, got 1"):  # strict calls >= 2
        recommend_call(hand, 1, "strict", model=model, earlier_calls=[1])
    for bad in ([14], [0], [2.5], [True], ["3"]):
        with pytest.raises(CallError, match="earlier call must be a whole number"):
            recommend_call(hand, 1, "modern", model=model, earlier_calls=bad)  # type: ignore[arg-type]
    with pytest.raises(CallError, match="sequence of numbers"):
        recommend_call(hand, 1, "modern", model=model, earlier_calls="3")  # type: ignore[arg-type]


def test_side_suit_augmentation_learns_the_symmetry(train: HandSet) -> None:
    plain = BidModel(learner="ordinal", cv=2).fit(X(train), Y(train))
    aug = BidModel(learner="ordinal", cv=2, augment_side_suits=True).fit(X(train), Y(train))
    assert aug.n_train_ == plain.n_train_ == len(train)
    hand, seat = train.masks[:40], train.seats[:40]
    namings = [encode_hands(rename_side_suits(hand, o), seat) for o in SIDE_SUIT_ORDERS]
    renamed = [aug.predict_proba(x) for x in namings]
    spread = max(float(np.abs(p - renamed[0]).max()) for p in renamed)
    plain_spread = max(float(np.abs(plain.predict_proba(x) - renamed[0]).max()) for x in namings)
    # trained on all six namings, a hand and its renamings get (nearly) the same forecast;
    # trained on the deals as dealt they do not
    assert spread < 0.01 < plain_spread
    with pytest.raises(ModelError, match="augment_side_suits must be True or False"):
        BidModel(augment_side_suits="yes").fit(X(train), Y(train))  # type: ignore[arg-type]


def test_augmented_call_conditioning_keeps_deals_apart(train: HandSet) -> None:
    m = BidModel(condition_on_calls=True, augment_side_suits=True, learner="ordinal", cv=2)
    m.fit(X(train), Y(train), deal_index=train.deal)
    hand = train.masks[3:4]
    strong = m.predict_proba(encode_hands(hand, [3], [[8, 7, 6]]))
    weak = m.predict_proba(encode_hands(hand, [3], [[1, 1, 1]]))
    assert not np.allclose(strong, weak)


def test_grouped_folds_keep_copies_together() -> None:
    groups = np.tile(np.arange(10), 6)
    splits = fold_splits(60, 3, 0, groups)
    assert len(splits) == 3
    seen = np.concatenate([test for _, test in splits])
    assert sorted(seen.tolist()) == list(range(60))
    for train_rows, test_rows in splits:
        assert not set(groups[train_rows]) & set(groups[test_rows])
        assert len(train_rows) + len(test_rows) == 60
    assert [len(t) for _, t in fold_splits(7, 2, 0)] in ([4, 3], [3, 4])


# --- persistence ----------------------------------------------------------------------------------


def test_save_load_round_trip(model: BidModel, models_dir: Path, train: HandSet) -> None:
    loaded = load_model("modern", models_dir)
    assert loaded is load_model("modern", models_dir)  # cached in-process
    assert load_model("modern", models_dir, cache=False) is not loaded
    np.testing.assert_array_equal(
        loaded.predict_proba(X(train)[:100]), model.predict_proba(X(train)[:100])
    )
    card = json.loads(model_paths("modern", models_dir)[1].read_text())
    assert card["profile"] == "modern"
    assert card["feature_names"] == list(FEATURE_NAMES)
    assert card["training_size"] == len(train)
    assert card["dataset_hash"] == "test" and card["metrics"] == {"note": "tiny"}
    assert {"sklearn", "numpy", "python", "model_sha256"} <= set(card)
    assert not list(models_dir.glob(".*"))  # no temporary files left behind
    assert load_model("home", models_dir).profile == "home_pagat"  # presets map to profiles


def test_model_file_naming_a_missing_module_is_a_model_error(
    model: BidModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose classes live in a module that does not exist (a model pickled by another
    layout of the package) is refused with ModelError, saying the file cannot be loaded."""
    import sys

    from callbreak_lab.bidding import estimator

    with monkeypatch.context() as patch:
        patch.setattr(BidModel, "__module__", "callbreak_lab.model_estimator")
        patch.setitem(sys.modules, "callbreak_lab.model_estimator", estimator)
        save_model(model, tmp_path)
    assert "callbreak_lab.model_estimator" not in sys.modules
    with pytest.raises(ModelError, match=r"cannot be loaded.*callbreak_lab\.model_estimator"):
        load_model("modern", tmp_path, cache=False)


def test_models_dir_from_env_not_cwd(
    monkeypatch: pytest.MonkeyPatch, models_dir: Path, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(MODELS_ENV, raising=False)
    assert (
        default_models_dir() == Path(__file__).resolve().parent.parent / "callbreak_lab" / "models"
    )
    monkeypatch.setenv(MODELS_ENV, str(models_dir))
    assert default_models_dir() == models_dir.resolve()
    assert load_model("online").profile == "online"


def test_empty_models_dir_is_an_error(
    monkeypatch: pytest.MonkeyPatch, models_dir: Path, model: BidModel
) -> None:
    monkeypatch.chdir(models_dir)  # "" was the working directory: it loaded from here
    for empty in ("", "  "):
        with pytest.raises(ModelError, match="models_dir is empty"):
            load_model("modern", empty, cache=False)
        with pytest.raises(ModelError, match="models_dir is empty"):
            save_model(model, empty)
        with pytest.raises(ModelError, match="models_dir is empty"):
            model_paths("modern", empty)


def _copy(models_dir: Path, tmp_path: Path) -> Path:
    for path in model_paths("modern", models_dir):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    return tmp_path


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("feature_names", [*FEATURE_NAMES[:-1], "seat_9"], "feature names differ"),
        ("sklearn", "0.1.0", "scikit-learn 0.1.0"),
        ("profile", "strict", "profile 'strict'"),
        ("format", 99, "card format 99"),
    ],
)
def test_mismatched_card_fails_clearly(
    models_dir: Path, tmp_path: Path, field: str, value: object, message: str
) -> None:
    d = _copy(models_dir, tmp_path)
    card_path = model_paths("modern", d)[1]
    card = json.loads(card_path.read_text())
    card[field] = value
    card_path.write_text(json.dumps(card))
    with pytest.raises(ModelError, match=message):
        load_model("modern", d)


def test_damaged_files_fail_clearly(models_dir: Path, tmp_path: Path) -> None:
    d = _copy(models_dir, tmp_path)
    model_path, card_path = model_paths("modern", d)
    card_text = card_path.read_text()
    card_path.write_text(card_text[:40])
    with pytest.raises(ModelError, match="not valid JSON"):
        load_model("modern", d)
    card_path.unlink()
    with pytest.raises(ModelError, match=r"card .* is missing"):
        load_model("modern", d)
    card_path.write_text(card_text)
    blob = model_path.read_bytes()
    model_path.write_bytes(blob[: len(blob) // 2])  # truncated
    with pytest.raises(ModelError, match="does not match its card"):
        load_model("modern", d)
    # a truncated file whose card was (wrongly) updated still fails cleanly on unpickling
    card = json.loads(card_text)
    import hashlib

    card["model_sha256"] = hashlib.sha256(model_path.read_bytes()).hexdigest()
    card_path.write_text(json.dumps(card))
    with pytest.raises(ModelError, match="cannot be loaded"):
        load_model("modern", d)
    model_path.unlink()
    with pytest.raises(ModelError, match="missing"):
        load_model("modern", d)
    with pytest.raises(ModelError, match="no bid model"):
        load_model("pagat+strict", d)
    # a Ruleset is named by its name, not its whole repr (which made a 300-character CLI line)
    with pytest.raises(ModelError, match=r"^no bid model for 'modern\+no_must_beat': ruleset"):
        load_model(Ruleset.preset("modern+no_must_beat"), d)


# --- recommendations ------------------------------------------------------------------------------

VARIATIONS = [*PRESETS, "modern+exact_or_one", "pagat+flat", "home+min_call=1", "pagat+must_beat"]


@pytest.mark.parametrize("rules", VARIATIONS)
def test_recommend_call_is_legal_for_every_preset_and_seat(
    rules: str, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MODELS_ENV, str(models_dir))
    ruleset = Ruleset.preset(rules)
    hand = Hand.parse("AKQ2.T98.765.432")
    for seat in range(4):
        rec = recommend_call(hand, seat, rules)
        assert ruleset.min_call <= rec.call <= ruleset.max_call
        assert list(rec.expected) == list(range(ruleset.min_call, ruleset.max_call + 1))
        assert rec.expected[rec.call] == max(rec.expected.values())
        assert all(0 <= p <= 1 for p in rec.make_probability.values())
        assert rec.floor.shape == (14,) and abs(rec.floor.sum() - 1) < 1e-9
        # the expected scores follow the ruleset's own scoring
        manual = sum(rec.distribution[t] * ruleset.score(rec.call, t) for t in range(14)) / 10
        assert rec.expected[rec.call] == pytest.approx(manual)
        assert json.loads(json.dumps(rec.to_dict()))["call"] == rec.call


def test_recommend_calls_batch_matches_single(model: BidModel) -> None:
    test = hands("modern", "test")
    batch = recommend_calls(test.masks, test.seats, "home", model=model)
    for i in range(0, len(test), 7):
        one = recommend_call(int(test.masks[i]), int(test.seats[i]), "home", model=model)
        assert one.call == batch.call[i]
    # the array elements themselves (a uint64 mask, an int64 seat) work as well
    raw = recommend_call(test.masks[0], test.seats[0], "home", model=model)
    assert raw.call == batch.call[0] and type(raw.seat) is int
    np.testing.assert_array_equal(
        batch.call, best_calls(model.predict_proba(X(test)), PRESETS["home"]).call
    )


def test_recommend_call_bad_input(model: BidModel) -> None:
    with pytest.raises(HandError):
        recommend_call("AKQ2.T98.765", 0, "modern", model=model)  # 10 cards
    with pytest.raises(SeatError, match="seat"):
        recommend_call("AKQ2.T98.765.432", 4, "modern", model=model)
    with pytest.raises(SeatError, match="seat"):  # a bool is not a seat (the solver agrees)
        recommend_call("AKQ2.T98.765.432", True, "modern", model=model)
    with pytest.raises(HandError, match="cannot read a hand"):
        recommend_call(None, 0, "modern", model=model)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="unknown ruleset"):
        recommend_call("AKQ2.T98.765.432", 0, "bridge", model=model)
    assert profile_of("pagat") == "home_pagat" and profile_of(PRESETS["strict"]) == "strict"
