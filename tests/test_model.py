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

from callbreak_lab.bidding import datasets as data
from callbreak_lab.bidding.calls import best_calls
from callbreak_lab.bidding.evaluation import HandSet, fit_model, flatten
from callbreak_lab.bidding.features import FEATURE_NAMES, SIDE_SUIT_ORDERS, rename_side_suits
from callbreak_lab.bidding.learners import FAST_ROWS, fold_splits, full_proba, temper
from callbreak_lab.bidding.model import (
    MODELS_ENV,
    BidModel,
    ModelError,
    default_models_dir,
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
    for proba in (
        model.predict_proba(test.masks, test.seats),
        model.predict_floor_proba(test.masks, test.seats),
    ):
        assert proba.shape == (len(test), 14)
        assert np.all(proba >= 0)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    # tricks never seen in training have probability exactly 0
    unseen = sorted(set(range(14)) - set(train.playout.tolist()))
    assert unseen, "the tiny fixture should miss some trick counts (e.g. 13)"
    assert np.all(model.predict_proba(test.masks, test.seats)[:, unseen] == 0)
    # the one-pass form (one feature computation for both heads) gives the same numbers
    both = model.predict_both(test.masks, test.seats)
    np.testing.assert_array_equal(both[0], model.predict_proba(test.masks, test.seats))
    np.testing.assert_array_equal(both[1], model.predict_floor_proba(test.masks, test.seats))


def test_14_columns_when_training_lacks_many_classes(train: HandSet) -> None:
    low = train.take(train.playout <= 3)
    m = BidModel(**SMALL).fit(low.masks, low.seats, low.playout, low.dd)
    p = m.predict_proba(train.masks[:5], train.seats[:5])
    assert p.shape == (5, 14)
    assert np.all(p[:, 4:] == 0)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


@pytest.mark.parametrize("learner", ["hgb", "logistic", "ordinal"])
def test_each_learner_is_deterministic_and_fast_path_matches(learner: str, train: HandSet) -> None:
    a = BidModel(learner=learner, random_state=3, **SMALL)
    b = clone(a)
    a.fit(train.masks, train.seats, train.playout, train.dd)
    b.fit(train.masks, train.seats, train.playout, train.dd)
    many = np.tile(train.masks, 2)[: FAST_ROWS + 10]  # above the compiled-predictor cut-off
    seats = np.tile(train.seats, 2)[: FAST_ROWS + 10]
    pa = a.predict_proba(many, seats)
    np.testing.assert_array_equal(pa, b.predict_proba(many, seats))
    # the compiled numpy predictor (small batches) agrees with scikit-learn's own
    for i in range(0, 12, 4):
        np.testing.assert_allclose(
            a.predict_proba(many[i : i + 4], seats[i : i + 4]), pa[i : i + 4]
        )
    head = a.playout_
    x = a._features(many[:4], seats[:4])
    np.testing.assert_allclose(
        head.proba(x), temper(full_proba(head.estimator, x), head.temperature)
    )


def test_params_round_trip_and_bad_params(train: HandSet) -> None:
    m = BidModel(learner="logistic", C=0.5, random_state=7)
    assert m.get_params()["C"] == 0.5 and m.get_params()["random_state"] == 7
    m.set_params(C=2.0)
    assert clone(m).C == 2.0
    with pytest.raises(ModelError, match="unknown learner"):
        BidModel(learner="forest").fit(train.masks, train.seats, train.playout, train.dd)
    with pytest.raises(ModelError, match="unknown profile"):
        BidModel(profile="bridge").fit(train.masks, train.seats, train.playout, train.dd)
    with pytest.raises(ModelError, match="shape"):
        BidModel().fit(train.masks, train.seats, train.playout[:-1], train.dd)
    with pytest.raises(ModelError, match=r"0\.\.13"):
        BidModel().fit(train.masks, train.seats, train.playout + 13, train.dd)
    with pytest.raises(ModelError, match="not fitted"):
        BidModel().predict_proba(train.masks[:1], train.seats[:1])
    with pytest.raises(ModelError, match="13-card"):
        BidModel().fit(train.masks >> np.uint64(1), train.seats, train.playout, train.dd)


def test_call_conditioning_head(train: HandSet) -> None:
    m = BidModel(condition_on_calls=True, **SMALL)
    with pytest.raises(ModelError, match="deal_index"):
        m.fit(train.masks, train.seats, train.playout, train.dd)
    m.fit(train.masks, train.seats, train.playout, train.dd, deal_index=train.deal)
    assert m.feature_names_[-3:] == ("prev_calls_n", "prev_calls_sum", "prev_calls_max")
    hand = train.masks[3:4]
    alone = m.predict_proba(hand, [3])
    strong = m.predict_proba(hand, [3], earlier_calls=[[8, 7, 6]])
    weak = m.predict_proba(hand, [3], earlier_calls=[[1, 1, 1]])
    assert not np.allclose(strong, weak)
    np.testing.assert_allclose(alone, m.predict_proba(hand, [3]))
    assert (strong @ np.arange(14))[0] < (weak @ np.arange(14))[0] + 1.0
    with pytest.raises(ModelError, match="earlier call"):
        m.predict_proba(hand, [3], earlier_calls=[[1]])

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
            recommend_call(hand, 1, "modern", model=model, earlier_calls=bad)  # type: ignore[list-item]
    with pytest.raises(CallError, match="sequence of numbers"):
        recommend_call(hand, 1, "modern", model=model, earlier_calls="3")  # type: ignore[arg-type]


def test_side_suit_augmentation_learns_the_symmetry(train: HandSet) -> None:
    plain = BidModel(learner="ordinal", cv=2).fit(train.masks, train.seats, train.playout, train.dd)
    aug = BidModel(learner="ordinal", cv=2, augment_side_suits=True)
    aug.fit(train.masks, train.seats, train.playout, train.dd)
    assert aug.n_train_ == plain.n_train_ == len(train)
    hand, seat = train.masks[:40], train.seats[:40]
    renamed = [aug.predict_proba(rename_side_suits(hand, o), seat) for o in SIDE_SUIT_ORDERS]
    spread = max(float(np.abs(p - renamed[0]).max()) for p in renamed)
    plain_spread = max(
        float(np.abs(plain.predict_proba(rename_side_suits(hand, o), seat) - renamed[0]).max())
        for o in SIDE_SUIT_ORDERS
    )
    # trained on all six namings, a hand and its renamings get (nearly) the same forecast;
    # trained on the deals as dealt they do not
    assert spread < 0.01 < plain_spread
    with pytest.raises(ModelError, match="augment_side_suits must be True or False"):
        BidModel(augment_side_suits="yes").fit(train.masks, train.seats, train.playout, train.dd)  # type: ignore[arg-type]


def test_augmented_call_conditioning_keeps_deals_apart(train: HandSet) -> None:
    m = BidModel(condition_on_calls=True, augment_side_suits=True, learner="ordinal", cv=2)
    m.fit(train.masks, train.seats, train.playout, train.dd, deal_index=train.deal)
    hand = train.masks[3:4]
    strong = m.predict_proba(hand, [3], earlier_calls=[[8, 7, 6]])
    weak = m.predict_proba(hand, [3], earlier_calls=[[1, 1, 1]])
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
        loaded.predict_proba(train.masks[:100], train.seats[:100]),
        model.predict_proba(train.masks[:100], train.seats[:100]),
    )
    card = json.loads(model_paths("modern", models_dir)[1].read_text())
    assert card["profile"] == "modern"
    assert card["feature_names"] == list(FEATURE_NAMES)
    assert card["training_size"] == len(train)
    assert card["dataset_hash"] == "test" and card["metrics"] == {"note": "tiny"}
    assert {"sklearn", "numpy", "python", "model_sha256"} <= set(card)
    assert not list(models_dir.glob(".*"))  # no temporary files left behind
    assert load_model("home", models_dir).profile == "home_pagat"  # presets map to profiles


def test_models_dir_from_env_not_cwd(
    monkeypatch: pytest.MonkeyPatch, models_dir: Path, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(MODELS_ENV, raising=False)
    assert default_models_dir() == Path(__file__).resolve().parent.parent / "models"
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
        batch.call, best_calls(model.predict_proba(test.masks, test.seats), PRESETS["home"]).call
    )


def test_recommend_call_bad_input(model: BidModel) -> None:
    with pytest.raises(HandError):
        recommend_call("AKQ2.T98.765", 0, "modern", model=model)  # 10 cards
    with pytest.raises(SeatError, match="seat"):
        recommend_call("AKQ2.T98.765.432", 4, "modern", model=model)
    with pytest.raises(SeatError, match="seat"):  # a bool is not a seat (the solver agrees)
        recommend_call("AKQ2.T98.765.432", True, "modern", model=model)  # type: ignore[arg-type]
    with pytest.raises(HandError, match="cannot read a hand"):
        recommend_call(None, 0, "modern", model=model)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="unknown ruleset"):
        recommend_call("AKQ2.T98.765.432", 0, "bridge", model=model)
    assert profile_of("pagat") == "home_pagat" and profile_of(PRESETS["strict"]) == "strict"
