"""Each card's chance of taking a trick in the self-interested play-out, learned from solved deals.

The model (:class:`CardModel`) reads one row per card of a hand (:func:`card_features`) and
forecasts how the card ends in the play-out (every seat playing for itself, RULES.md): it takes
no trick, takes a trick of its own suit's lead, or (a spade) takes a trick of another suit's lead
by a ruff. It is a scikit-learn ``HistGradientBoostingClassifier`` over those three outcomes,
trained on the replayed play-outs of :mod:`callbreak_lab.bidding.winners` (``data/winners/``),
all four legal-card profiles together with the profile as a feature, and shipped in
``callbreak_lab/models/why_cards.joblib`` with its JSON card (``scripts/make_why_model.py``
rebuilds both).

The calls of the seats before the hand change what the other hands hold, so the rows carry
them when known (``calls_known``; in training, half of the hands carry the calls the shipped
bid model makes for the earlier seats of the same deal, the other half none).
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from callbreak_lab.bidding.datasets import PROFILES, profile_of
from callbreak_lab.bidding.features import HCP_TABLE, suit_patterns
from callbreak_lab.errors import ModelError
from callbreak_lab.rules import Ruleset
from callbreak_lab.util.fileio import atomic_open, sha256_file

__all__ = [
    "CARD_FEATURES",
    "CardModel",
    "card_features",
    "hand_cards",
    "load_card_model",
    "save_card_model",
]

#: the columns of :func:`card_features`, in order
CARD_FEATURES = (
    "spade",  # the card is a spade (a trump)
    "rank",  # 0 = deuce .. 12 = ace
    "suit_len",  # cards of its suit in the hand
    "held_above",  # the hand's cards of the suit above it
    "out_above",  # cards of the suit above it held by the other seats
    "held_below",  # the hand's cards of the suit below it
    "spade_len",  # the hand's spades
    "spade_hcp",  # honour points in spades (A 4, K 3, Q 2, J 1)
    "hcp",  # honour points of the hand
    "side_voids",  # side suits without a card
    "side_singletons",
    "side_doubletons",
    "shortest_side",
    "longest_side",
    "seat",  # 0 calls first and leads trick 1
    "calls_known",  # 1: the calls of the seats before are in the next three columns
    "prev_calls_n",
    "prev_calls_sum",
    "prev_calls_max",
    "profile",  # index in datasets.PROFILES
)
#: the outcomes the model forecasts (winners.LOST, LED_SUIT, RUFF)
OUTCOMES = ("lost", "led_suit", "ruff")
MODEL_FILE, CARD_FILE = "why_cards.joblib", "why_cards.json"
CARD_FORMAT = 1


def hand_cards(masks: np.ndarray) -> np.ndarray:
    """``(n, 13)`` the card ids of each 13-card hand, lowest first."""
    bits = ((masks.astype(np.uint64)[:, None] >> np.arange(52, dtype=np.uint64)) & 1).astype(bool)
    if np.any(bits.sum(axis=1) != 13):
        raise ModelError("every hand needs 13 cards")
    return np.argsort(~bits, axis=1, kind="stable")[:, :13]


def card_features(
    masks: npt.ArrayLike,
    seats: npt.ArrayLike,
    earlier_calls: np.ndarray | None,
    profile: str | Ruleset,
) -> tuple[np.ndarray, np.ndarray]:
    """``(cards (n, 13), X (n * 13, len(CARD_FEATURES)))`` for hands ``masks`` in ``seats``.

    ``earlier_calls``: ``None`` (no hand carries calls) or ``(n, 4)`` calls of seats 0..3 of
    each hand's deal with ``-1`` where unknown: a row carries its hand's earlier calls when all
    the seats before it are known (a seat-0 hand always does: there are none)."""
    m = np.asarray(masks, dtype=np.uint64).reshape(-1)
    s = np.asarray(seats, dtype=np.int64).reshape(-1)
    if s.shape != m.shape:
        s = np.broadcast_to(s, m.shape).copy()
    n = len(m)
    cards = hand_cards(m)
    suit, rank = cards // 13, cards % 13
    pats = suit_patterns(m)  # (n, 4)
    bits = ((pats[:, :, None] >> np.arange(13)) & 1).astype(np.int64)  # (n, 4, 13)
    lens = bits.sum(axis=2)
    # cards of the suit above rank r: suffix sums, shifted by one
    ge = np.cumsum(bits[:, :, ::-1], axis=2)[:, :, ::-1]
    above = np.concatenate([ge[:, :, 1:], np.zeros((n, 4, 1), dtype=np.int64)], axis=2)
    rows = np.arange(n)[:, None]
    held_above = above[rows, suit, rank]
    suit_len = lens[rows, suit]
    side = lens[:, :3]
    hcp = HCP_TABLE[pats].sum(axis=1)
    calls_known = np.zeros(n, dtype=np.int64)
    stats = np.zeros((n, 3), dtype=np.int64)
    if earlier_calls is not None:
        table = np.asarray(earlier_calls, dtype=np.int64).reshape(n, 4)
        before = np.arange(4)[None, :] < s[:, None]
        known = np.all(~before | (table >= 0), axis=1)
        shown = np.where(before & known[:, None], table, 0)
        calls_known = known.astype(np.int64)
        stats = np.stack([np.where(known, s, 0), shown.sum(axis=1), shown.max(axis=1)], axis=1)
    hand_cols = np.stack(
        [
            lens[:, 3],
            HCP_TABLE[pats[:, 3]],
            hcp,
            (side == 0).sum(axis=1),
            (side == 1).sum(axis=1),
            (side == 2).sum(axis=1),
            side.min(axis=1),
            side.max(axis=1),
            s,
            calls_known,
            stats[:, 0],
            stats[:, 1],
            stats[:, 2],
            np.full(n, list(PROFILES).index(profile_of(profile))),
        ],
        axis=1,
    )
    card_cols = np.stack(
        [
            (suit == 3).astype(np.int64),
            rank,
            suit_len,
            held_above,
            12 - rank - held_above,
            suit_len - 1 - held_above,
        ],
        axis=2,
    )  # (n, 13, 6)
    x = np.concatenate([card_cols, np.repeat(hand_cols[:, None, :], 13, axis=1)], axis=2)
    return cards, x.reshape(n * 13, len(CARD_FEATURES)).astype(np.float64)


class CardModel:
    """The fitted outcome model: ``predict(X) -> (n, 3)`` probabilities of
    :data:`OUTCOMES` for :func:`card_features` rows."""

    def __init__(self, estimator: Any, info: dict[str, Any] | None = None) -> None:
        from callbreak_lab.bidding.learners import compile_predictor

        self.estimator = estimator
        self.info = dict(info or {})
        # scikit-learn predicts tree by tree (about 0.1 s for one hand's 13 rows on a busy
        # machine); the compiled copy walks every tree at once in numpy
        self.fast = compile_predictor(estimator)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """``(n, 3)``: P(no trick), P(a trick of its own suit's lead), P(a ruff) per row (a
        side-suit card's ruff chance is 0)."""
        if self.fast is not None and len(x) <= 64:
            p = np.asarray(self.fast.proba(x), dtype=np.float64)
        else:
            p = np.asarray(self.estimator.predict_proba(x), dtype=np.float64)
        out = np.zeros((len(x), 3))
        for j, c in enumerate(self.estimator.classes_):
            out[:, int(c)] = p[:, j]
        side = x[:, 0] == 0
        out[side, 0] += out[side, 2]
        out[side, 2] = 0.0
        calib = self.info.get("calibration")
        if calib:  # the chance of a trick recalibrated, its split between lead and ruff kept
            win = 1.0 - out[:, 0]
            new = 1.0 / (1.0 + np.exp(-(calib["a"] * _logit(win) + calib["b"])))
            share = np.where((win > 0)[:, None], out[:, 1:] / np.maximum(win, 1e-12)[:, None], 0.0)
            share[win <= 0, 0] = 1.0
            out[:, 1:] = share * new[:, None]
            out[:, 0] = 1.0 - new
        return out


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-6, 1 - 1e-6)
    out: np.ndarray = np.log(q / (1 - q))
    return out


def _calibration(oof: np.ndarray, won: np.ndarray, folds: int) -> dict[str, Any]:
    """The map from out-of-fold chances to observed shares: ``sigmoid(a * logit(p) + b)``
    (Platt scaling; two numbers, smooth; an isotonic map fitted the held-out deals worse)."""
    from sklearn.linear_model import LogisticRegression

    lr = LogisticRegression(C=1e6).fit(_logit(oof)[:, None], won)
    return {
        "kind": "platt",
        "folds": folds,
        "a": float(lr.coef_[0, 0]),
        "b": float(lr.intercept_[0]),
    }


def fit_card_model(
    x: np.ndarray, y: np.ndarray, groups: np.ndarray | None = None, cv: int = 5, **params: Any
) -> CardModel:
    """A :class:`CardModel` fitted on rows ``x`` and outcome codes ``y`` (0, 1, 2).

    With ``cv`` folds (rows of one ``groups`` value, a deal, kept in one fold) the chance of a
    trick is then recalibrated by Platt scaling fitted on the out-of-fold chances (boosted
    trees on a few hundred deals are overconfident: their high chances too high, their low ones
    too low), the split between a trick on the suit's lead and a ruff kept."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import GroupKFold

    settings = {
        "max_iter": 400,
        "learning_rate": 0.05,
        "max_leaf_nodes": 15,
        "min_samples_leaf": 80,
        "l2_regularization": 1.0,
        "early_stopping": True,
        "validation_fraction": 0.1,
        "n_iter_no_change": 20,
        "random_state": 0,
    }
    settings.update(params)
    info: dict[str, Any] = {"params": settings, "n_rows": len(x), "calibration": None}
    if cv > 1:
        g = np.arange(len(x)) // 52 if groups is None else np.asarray(groups)
        oof = np.zeros(len(x))
        for train, test in GroupKFold(n_splits=cv).split(x, y, g):
            est = HistGradientBoostingClassifier(**settings).fit(x[train], y[train])
            part = CardModel(est).predict(x[test])
            oof[test] = 1.0 - part[:, 0]
        info["calibration"] = _calibration(oof, (y > 0).astype(np.int64), cv)
    est = HistGradientBoostingClassifier(**settings)
    est.fit(x, y)
    return CardModel(est, info)


def save_card_model(
    model: CardModel, models_dir: str | Path, card: dict[str, Any]
) -> tuple[Path, Path]:
    """Write the model and its JSON card (``card`` plus versions and the file's hash)."""
    import joblib
    import sklearn

    folder = Path(models_dir)
    model_path, card_path = folder / MODEL_FILE, folder / CARD_FILE
    with atomic_open(model_path, ".joblib") as f:
        joblib.dump(model.estimator, f, compress=3)
    full = {
        "format": CARD_FORMAT,
        "kind": "callbreak_lab.CardModel",
        "features": list(CARD_FEATURES),
        "outcomes": list(OUTCOMES),
        "sklearn": sklearn.__version__,
        "model_file": MODEL_FILE,
        "model_sha256": sha256_file(model_path),
        **model.info,
        **card,
    }
    with atomic_open(card_path, ".json") as f:
        f.write((json.dumps(full, indent=2, sort_keys=True) + "\n").encode())
    return model_path, card_path


_LOCK = threading.Lock()


@functools.lru_cache(maxsize=4)
def _load(folder: str) -> CardModel:
    import joblib
    import sklearn

    base = Path(folder) if folder else resources.files("callbreak_lab").joinpath("models")
    model_path, card_path = base.joinpath(MODEL_FILE), base.joinpath(CARD_FILE)
    if not model_path.is_file() or not card_path.is_file():
        raise ModelError(
            f"no card-chance model in {base} ({MODEL_FILE}); run scripts/make_why_model.py"
        )
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ModelError(f"{card_path}: unreadable card ({e})") from None
    problems = []
    if card.get("format") != CARD_FORMAT or card.get("features") != list(CARD_FEATURES):
        problems.append("its features differ from this package's")
    minor = ".".join(sklearn.__version__.split(".")[:2])
    if ".".join(str(card.get("sklearn", "")).split(".")[:2]) != minor:
        problems.append(f"trained with scikit-learn {card.get('sklearn')}, running {minor}")
    if card.get("model_sha256") != sha256_file(model_path):
        problems.append("the model file does not match its card")
    if problems:
        raise ModelError(f"card-chance model in {base}: " + "; ".join(problems))
    with resources.as_file(model_path) as path:
        est = joblib.load(path)
    return CardModel(est, card)


def load_card_model(models_dir: str | Path | None = None) -> CardModel:
    """The shipped card-chance model (``models_dir``: another folder), card checked, cached."""
    import os

    from callbreak_lab.bidding.model import MODELS_ENV

    folder = str(models_dir) if models_dir is not None else os.environ.get(MODELS_ENV, "")
    with _LOCK:
        return _load(folder)


def outcome_labels(cards: np.ndarray, won: np.ndarray) -> np.ndarray:
    """``(n * 13,)`` outcome codes of the hands' cards from per-deal ``won`` codes (n, 52)."""
    rows = np.arange(len(cards))[:, None]
    out: np.ndarray = won[rows, cards].reshape(-1).astype(np.int64)
    return out


def bid_model_calls(masks: np.ndarray, profile: str) -> np.ndarray:
    """``(n, 4)`` the calls the shipped bid model makes for the four hands of each deal
    (``masks`` (n, 4)), under the preset the bid model conditions its profile's calls on."""
    from callbreak_lab.bidding.model import load_model, recommend_calls

    model = load_model(profile_of(profile))
    preset = model.call_rules_
    flat = masks.reshape(-1).astype(np.uint64)
    seats = np.tile(np.arange(4), len(masks))
    calls: np.ndarray = recommend_calls(flat, seats, preset, model=model).call.reshape(
        len(masks), 4
    )
    return calls


def deal_rows(
    masks: np.ndarray, won: np.ndarray | None, profile: str, calls_share: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Every hand of deals ``masks`` (n, 4) as card rows: ``(cards (4n, 13), X, outcome codes
    or None)``. A share ``calls_share`` of the hands (drawn with ``seed``) carries the bid
    model's calls of the seats before it; the others carry none."""
    n = len(masks)
    calls = bid_model_calls(masks, profile)
    table = np.repeat(calls, 4, axis=0)  # hand (deal d, seat q) -> row 4d + q
    rng = np.random.default_rng(seed)
    hidden = rng.random(4 * n) >= calls_share
    table[hidden] = -1
    seats = np.tile(np.arange(4), n)
    cards, x = card_features(masks.reshape(-1), seats, table, profile)
    y = None
    if won is not None:
        y = outcome_labels(cards, np.repeat(won, 4, axis=0))
    return cards, x, y


def shift_to(p: np.ndarray, target: npt.ArrayLike) -> np.ndarray:
    """Each row of chances ``p`` (n, k) moved by one common step in log-odds so that it adds up
    to its ``target`` (n,) (bisection; a target out of the row's reach gives the nearest end).
    This is how the card chances are put on the bid model's expected tricks ("scaled")."""
    q = np.clip(np.atleast_2d(np.asarray(p, dtype=np.float64)), 1e-4, 1 - 1e-4)
    t = np.asarray(target, dtype=np.float64).reshape(-1, 1)
    z = np.log(q / (1 - q))
    lo, hi = np.full_like(t, -20.0), np.full_like(t, 20.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        below = (1 / (1 + np.exp(-(z + mid)))).sum(axis=1, keepdims=True) < t
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    out: np.ndarray = 1 / (1 + np.exp(-(z + (lo + hi) / 2)))
    return out


def index_hash(index: np.ndarray) -> str:
    """``sha256:<hex>`` of deal indices (little-endian int64): names the deals a model saw."""
    return (
        "sha256:" + hashlib.sha256(np.ascontiguousarray(index, dtype="<i8").tobytes()).hexdigest()
    )


def calibration(p: np.ndarray, won: np.ndarray, bins: int = 10) -> list[dict[str, float]]:
    """Predicted against observed in each tenth of the predictions (``p`` the chances, ``won``
    0/1): one row per non-empty bin with ``low``, ``high``, ``cards``, ``predicted`` (mean
    chance), ``observed`` (share that took a trick) and ``gap`` (observed - predicted)."""
    p = np.asarray(p, dtype=np.float64)
    won = np.asarray(won, dtype=np.float64)
    which = np.minimum((p * bins).astype(np.int64), bins - 1)
    rows = []
    for b in range(bins):
        sel = which == b
        if not sel.any():
            continue
        pred, obs = float(p[sel].mean()), float(won[sel].mean())
        rows.append(
            {
                "low": b / bins,
                "high": (b + 1) / bins,
                "cards": int(sel.sum()),
                "predicted": pred,
                "observed": obs,
                "gap": obs - pred,
            }
        )
    return rows


def held_out_check(
    model: CardModel, winners_dir: str | Path, profile: str, seed: int = 0
) -> dict[str, Any]:
    """The model on a profile's held-out replays (``data/winners``'s test split): the
    calibration tenths of the trick chances (every hand of every deal, half carrying the bid
    model's earlier calls) and the per-hand sums against the play-out's tricks and the bid
    model's expected tricks."""
    from callbreak_lab.bidding import winners
    from callbreak_lab.bidding.estimator import encode_hands
    from callbreak_lab.bidding.model import load_model

    w = winners.load(profile, winners_dir, "test", verify=False)
    _, x, y = deal_rows(w.masks, w.won, profile, 0.5, seed)
    assert y is not None
    proba = model.predict(x)
    p = 1.0 - proba[:, 0]
    sums = p.reshape(-1, 13).sum(axis=1)
    tricks = w.playout.reshape(-1).astype(np.float64)
    bid = load_model(profile)
    dist = bid.predict_proba(encode_hands(w.masks.reshape(-1), np.tile(np.arange(4), len(w))))
    expected = dist @ np.arange(dist.shape[1])
    scaled = shift_to(p.reshape(-1, 13), expected)
    won = (y > 0).astype(np.float64)
    return {
        "deals": len(w),
        "hands": len(sums),
        "tenths": calibration(p, won),
        "scaled_tenths": calibration(scaled.reshape(-1), won),
        "sum_gap": float(sums.mean() - tricks.mean()),
        "sum_abs_error": float(np.abs(sums - tricks).mean()),
        "bid_model_gap": float(np.abs(sums - expected).mean()),
        "bid_model_abs_error": float(np.abs(expected - tricks).mean()),
    }


def summary(check: dict[str, Any], min_cards: int = 100) -> dict[str, Any]:
    """The figures of :func:`held_out_check` a card keeps: the worst tenth's gap (tenths with
    ``min_cards`` or more) and the per-hand sums."""
    gaps = [abs(r["gap"]) for r in check["tenths"] if r["cards"] >= min_cards]
    scaled = [abs(r["gap"]) for r in check["scaled_tenths"] if r["cards"] >= min_cards]
    return {
        "deals": check["deals"],
        "worst_tenth_gap": round(max(gaps), 4),
        "scaled_worst_tenth_gap": round(max(scaled), 4),
        "sum_gap": round(check["sum_gap"], 4),
        "sum_abs_error": round(check["sum_abs_error"], 3),
        "bid_model_gap": round(check["bid_model_gap"], 3),
        "bid_model_abs_error": round(check["bid_model_abs_error"], 3),
    }
