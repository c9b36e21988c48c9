"""A learned play policy: the probability that a seat plays each of its legal cards.

Reading the table needs the answer to one question asked many times: had a seat held *this*
hand, how likely was the card it played? (``seat.layouts`` asks it for every candidate layout
and every card the other seats played.) So the policy is a conditional logit over the legal
cards of one decision: each legal card ``c`` gets a score ``w . f(state, hand, c)`` from a
few dozen features computed with numpy over uint64 masks, and ``P(c) = softmax(score)`` over
the legal cards only. Evaluating it for thousands of hypothetical hands is a handful of vector
operations, no Python loop per hand.

The features of a card (``FEATURE_NAMES``): what kind of play it is (a lead, following suit, a
trump, a discard), its rank, its place among the seat's own cards of its suit (lowest, highest),
the unseen cards above and below it in its suit (a master card has none above), the suit's
length in the hand, whether it wins the trick now and whether it is the cheapest card that
does, the seat's place in the trick, the tricks it still needs for its call and the cards left.
Each is crossed with the kind of play, since a high card means one thing led and another
discarded.

``PlayModel`` is a scikit-learn estimator on rows of candidate cards: ``fit(X, y, groups)``
with ``X`` the features of every legal card of every decision, ``y`` 1 for the card played and
``groups`` the decision of each row; ``predict_proba(X, groups)`` the probability of each row's
card within its decision. ``decisions_from_records`` turns play records into such rows;
``card_proba`` answers for one seat's ``Knowledge``; ``play_log_likelihood`` scores layouts.
The models ship beside the bid models (``callbreak_lab/models/play_<profile>.joblib`` and a
JSON card), built by ``scripts/make_play_models.py`` from the ``strong`` player's own choices.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from callbreak_lab.cards import FULL_MASK, SPADE_MASK, SUIT_MASKS, Card
from callbreak_lab.errors import ModelError, UsageError
from callbreak_lab.rules import Ruleset
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.util.fileio import atomic_open

__all__ = [
    "FEATURE_NAMES",
    "PlayModel",
    "States",
    "card_proba",
    "decisions_from_records",
    "evaluate",
    "features",
    "legal_masks",
    "load_play_model",
    "play_model_paths",
    "record_states",
    "save_play_model",
]

_U = np.uint64
_ONE = _U(1)
_SUIT13 = _U(0x1FFF)
#: ``_ABOVE[c]``: the cards above ``c`` (any suit); ``_ABOVE[52]`` (no card) is every card
_ABOVE = np.array([FULL_MASK & ~((2 << c) - 1) for c in range(52)] + [FULL_MASK], dtype=_U)
_SUITS = np.array(SUIT_MASKS, dtype=_U)
_SPADES = _U(SPADE_MASK)
#: set bits of every 13-bit value (a suit's holding)
_POP13 = np.array([bin(v).count("1") for v in range(1 << 13)], dtype=np.int8)
#: the "need" of a seat whose call is not known
NO_NEED = -99

_BASE = ("one", "rank", "lowest_own", "highest_own", "len", "above_unseen", "below_unseen",
         "master", "suit_unseen_none", "singleton", "doubleton", "suit_unseen", "touch_above",
         "touch_below", "honour", "second")  # fmt: skip
_KINDS = ("lead", "follow", "trump", "discard")
_EXTRA = ("follow_beats", "follow_cheapest_win", "follow_beats_last", "trump_cheapest_win",
          "beats_need", "beats_made", "lead_master_need", "lead_master_made", "lead_spade",
          "lead_longest", "discard_lowest", "need_share", "spade_beats_made", "lead_rank_need",
          "lead_rank_made", "follow_beats_need", "follow_beats_made")  # fmt: skip
#: the feature columns, in order
FEATURE_NAMES: tuple[str, ...] = (
    *(f"{k}_{b}" for k in _KINDS for b in _BASE),
    *_EXTRA,
)


@dataclass(frozen=True)
class States:
    """Decisions as arrays (one entry each): ``hand`` the mover's cards then, ``gone`` every
    card played before, ``led`` the suit led (-1: the mover leads), ``top_led`` / ``top_spade``
    the trick's highest card of the led suit / highest spade (-1: none), ``pos`` cards already
    in the trick, ``first`` the deal's first trick, ``need`` the mover's call minus its tricks
    won (``NO_NEED``: call not known)."""

    hand: np.ndarray
    gone: np.ndarray
    led: np.ndarray
    top_led: np.ndarray
    top_spade: np.ndarray
    pos: np.ndarray
    first: np.ndarray
    need: np.ndarray

    def __len__(self) -> int:
        return len(self.hand)

    def take(self, idx: np.ndarray) -> States:
        """The states at ``idx`` (an index array)."""
        return States(*(getattr(self, f)[idx] for f in self.__dataclass_fields__))

    def with_hands(self, hands: np.ndarray) -> States:
        """The same decisions with other hands."""
        return States(
            hands.astype(_U), *(getattr(self, f) for f in list(self.__dataclass_fields__)[1:])
        )


def _pop(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x.astype(_U)).astype(np.int16)


def legal_masks(rules: Ruleset, s: States) -> np.ndarray:
    """Every state's legal cards (``Ruleset.legal_mask`` over arrays)."""
    must_beat, win_only, ban = rules.kernel_flags()
    hand = s.hand.astype(_U)
    leading = s.led < 0
    led = np.where(leading, 0, s.led)
    follow = hand & _SUITS[led]
    top_spade = np.where(s.top_spade < 0, 52, s.top_spade)
    # following suit: must beat the top card unless the trick is trumped (spades led: top spade)
    top = np.where(
        led == 3, top_spade, np.where(s.top_spade < 0, np.where(s.top_led < 0, 52, s.top_led), -1)
    )
    higher = np.where(top >= 0, follow & _ABOVE[np.maximum(top, 0)], _U(0))
    follows = np.where(higher != 0, higher, follow) if must_beat else follow
    spades = hand & _SPADES
    over = spades & _ABOVE[top_spade]
    void = np.where(
        spades == 0,
        hand,
        np.where(s.top_spade < 0, spades, np.where(over != 0, over, hand if win_only else spades)),
    )
    lead = hand
    if ban:
        side = hand & ~_SPADES
        lead = np.where(s.first & (side != 0), side, hand)
    return np.where(leading, lead, np.where(follow != 0, follows, void))


def _beat_masks(s: States) -> np.ndarray:
    """The cards that would win each state's trick now (none when leading)."""
    led = np.where(s.led < 0, 0, s.led)
    top_spade = np.where(s.top_spade < 0, 52, s.top_spade)
    top_led = np.where(s.top_led < 0, 52, s.top_led)
    untrumped = (_ABOVE[top_led] & _SUITS[led]) | _SPADES
    beat = np.where(s.top_spade < 0, untrumped, _ABOVE[top_spade] & _SPADES)
    return np.where(s.led < 0, _U(0), beat)


def _lowest_bit(x: np.ndarray) -> np.ndarray:
    return x & (~x + _ONE)


def _expand(legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(row, card)`` of every legal card of every state, by state."""
    bits = ((legal[:, None] >> np.arange(52, dtype=_U)[None, :]) & _ONE).astype(bool)
    rows, cards = np.nonzero(bits)
    return rows, cards


Columns = tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]


def features(s: States, rows: np.ndarray, cards: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The ``FEATURE_NAMES`` columns (float32) of card ``cards[j]`` in state ``rows[j]``."""
    kind, base, extra = _columns(s, rows, cards, legal)
    cols = [np.where(kind == k, b, 0.0) for k in range(len(_KINDS)) for b in base]
    return np.stack([np.asarray(x, dtype=np.float32) for x in cols + extra], axis=1)


def _scores(
    coef: np.ndarray, s: States, rows: np.ndarray, cards: np.ndarray, legal: np.ndarray
) -> np.ndarray:
    """``features(...) @ coef`` without building the feature matrix (the dealer's hot path:
    each base feature meets the weight of its row's kind of play)."""
    kind, base, extra = _columns(s, rows, cards, legal)
    n_base = len(_KINDS) * len(_BASE)
    per_kind = coef[:n_base].reshape(len(_KINDS), len(_BASE))[kind]
    score = np.zeros(len(rows))
    for j, b in enumerate(base):
        score += per_kind[:, j] * b
    for w, x in zip(coef[n_base:], extra, strict=True):
        score += w * x
    return score


def _columns(s: States, rows: np.ndarray, cards: np.ndarray, legal: np.ndarray) -> Columns:
    """The kind of play of each row (``_KINDS``), the base features (crossed with the kind in
    ``FEATURE_NAMES``) and the extra ones."""
    hand = s.hand[rows].astype(_U)
    gone = s.gone[rows].astype(_U)
    led = s.led[rows]
    c = cards.astype(np.int64)
    suit, rank = c // 13, c % 13
    shift = (13 * suit).astype(_U)
    own = ((hand >> shift) & _SUIT13).astype(np.int64)
    unseen = ((_U(FULL_MASK) & ~(hand | gone)) >> shift & _SUIT13).astype(np.int64)
    below = (1 << rank) - 1
    length = _POP13[own]
    above_unseen = _POP13[unseen >> (rank + 1)]
    kind = np.where(led < 0, 0, np.where(suit == led, 1, np.where(suit == 3, 2, 3)))
    base: list[np.ndarray] = [
        np.ones(len(c)),
        rank / 12.0,
        (own & below) == 0,
        (own >> (rank + 1)) == 0,
        length / 13.0,
        above_unseen / 12.0,
        _POP13[unseen & below] / 12.0,
        above_unseen == 0,
        unseen == 0,
        length == 1,
        length == 2,
        _POP13[unseen] / 13.0,
        ((own >> (rank + 1)) & 1) == 1,
        ((own << 1 >> rank) & 1) == 1,
        rank >= 9,
        above_unseen == 1,
    ]
    bit = _ONE << c.astype(_U)
    beat = _beat_masks(s)[rows]
    beats = (beat & bit) != 0
    winners = legal[rows] & beat
    side_win = winners & ~_SPADES
    cheapest = _lowest_bit(np.where(side_win != 0, side_win, winners))
    is_cheapest = beats & (cheapest == bit)
    need = s.need[rows]
    known = need != NO_NEED
    needs = known & (need > 0)
    made = known & (need <= 0)
    left = _pop(hand)
    master = above_unseen == 0
    hand_side = hand & ~_SPADES
    longest = np.max(
        np.stack(
            [_POP13[((hand_side >> _U(13 * x)) & _SUIT13).astype(np.int64)] for x in range(3)]
        ),
        axis=0,
    )
    non_spade_legal = legal[rows] & ~_SPADES
    lowest_side = _lowest_bit(np.where(non_spade_legal != 0, non_spade_legal, legal[rows]))
    extra: list[np.ndarray] = [
        (kind == 1) & beats,
        (kind == 1) & is_cheapest,
        (kind == 1) & beats & (s.pos[rows] == 3),
        (kind == 2) & is_cheapest,
        beats & needs,
        beats & made,
        (kind == 0) & master & needs,
        (kind == 0) & master & made,
        (kind == 0) & (suit == 3),
        (kind == 0) & (suit < 3) & (length == longest),
        (kind == 3) & (lowest_side == bit),
        np.where(needs, np.minimum(need, left) / np.maximum(left, 1), 0.0),
        (suit == 3) & beats & made,
        np.where((kind == 0) & needs, rank / 12.0, 0.0),
        np.where((kind == 0) & made, rank / 12.0, 0.0),
        (kind == 1) & beats & needs,
        (kind == 1) & beats & made,
    ]
    return kind, base, extra


def _group_softmax(scores: np.ndarray, groups: np.ndarray, n: int) -> np.ndarray:
    """Softmax of ``scores`` within each group (groups ``0..n-1``, each non-empty when sorted)."""
    if len(groups) and np.all(groups[1:] >= groups[:-1]) and groups[-1] == n - 1:
        starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
        if len(starts) == n:
            e = np.exp(scores - np.maximum.reduceat(scores, starts)[groups])
            return np.asarray(e / np.add.reduceat(e, starts)[groups])
    top = np.full(n, -np.inf)
    np.maximum.at(top, groups, scores)
    e = np.exp(scores - top[groups])
    total = np.zeros(n)
    np.add.at(total, groups, e)
    return np.asarray(e / total[groups])


class PlayModel(BaseEstimator):  # type: ignore[misc]
    """Conditional logit over a decision's legal cards (see the module docstring).

    ``alpha``: L2 penalty on the weights, per decision; ``max_iter``: L-BFGS iterations;
    ``random_state``: seeds the starting weights (a small normal draw), so a fit is
    reproducible with a seed."""

    def __init__(self, alpha: float = 1e-4, max_iter: int = 500, random_state: int | None = 0):
        self.alpha = alpha
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: np.ndarray, groups: np.ndarray) -> PlayModel:
        """Fit on candidate rows ``X`` (features), ``y`` (1: the card played; one a group) and
        ``groups`` (the decision of each row, ``0..n-1``)."""
        x = np.asarray(X, dtype=np.float64)
        chosen = np.asarray(y, dtype=np.float64)
        g = np.asarray(groups, dtype=np.int64)
        n = int(g.max()) + 1 if len(g) else 0
        if n == 0 or not np.allclose(np.bincount(g, weights=chosen, minlength=n), 1.0):
            raise UsageError("every decision needs exactly one card played (y == 1)")
        rng = np.random.default_rng(self.random_state)
        w0 = rng.normal(0.0, 0.01, x.shape[1])

        def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
            p = _group_softmax(x @ w, g, n)
            nll = -float(np.sum(chosen * np.log(np.maximum(p, 1e-300)))) / n
            grad = x.T @ (p - chosen) / n
            return nll + 0.5 * self.alpha * float(w @ w), grad + self.alpha * w

        res = minimize(loss, w0, jac=True, method="L-BFGS-B", options={"maxiter": self.max_iter})
        self.coef_ = np.asarray(res.x, dtype=np.float64)
        self.n_features_in_ = x.shape[1]
        self.n_decisions_ = n
        self.converged_ = bool(res.success)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """The score of each candidate row."""
        check_is_fitted(self, "coef_")
        return np.asarray(np.asarray(X, dtype=np.float64) @ self.coef_)

    def predict_proba(self, X: np.ndarray, groups: np.ndarray) -> np.ndarray:
        """The probability of each row's card within its decision (sums to one per group)."""
        g = np.asarray(groups, dtype=np.int64)
        return _group_softmax(self.decision_function(X), g, int(g.max()) + 1 if len(g) else 0)

    # --- the seat-level answers ---------------------------------------------------------------

    def state_proba(self, rules: Ruleset, s: States) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(row, card, probability)`` of every legal card of every state of ``s``."""
        check_is_fitted(self, "coef_")
        legal = legal_masks(rules, s)
        rows, cards = _expand(legal)
        p = _group_softmax(_scores(self.coef_, s, rows, cards, legal), rows, len(s))
        return rows, cards, p


def card_proba(model: PlayModel, k: Knowledge) -> dict[Card, float]:
    """The policy's probability of each legal card of ``k.seat`` (to play) now."""
    s = _knowledge_state(k)
    _, cards, p = model.state_proba(k.rules, s)
    return {Card(int(c)): float(q) for c, q in zip(cards, p, strict=True)}


def _knowledge_state(k: Knowledge) -> States:
    gone = 0
    for c in k.record:
        gone |= 1 << c
    led = k.trick[0] // 13 if k.trick else -1
    top_led = max((c for c in k.trick if c // 13 == led), default=-1)
    top_spade = max((c for c in k.trick if c >= 39), default=-1)
    call = k.calls[k.seat]
    need = NO_NEED if call is None else call - k.won
    return _states([(k.hand, gone, led, top_led, top_spade, len(k.trick), k.first_trick, need)])


def _states(rows: Sequence[tuple[int, int, int, int, int, int, bool, int]]) -> States:
    cols = list(zip(*rows, strict=True)) if rows else [()] * 8
    kinds = (_U, _U, np.int8, np.int8, np.int8, np.int8, bool, np.int16)
    return States(*(np.array(col, dtype=t) for col, t in zip(cols, kinds, strict=True)))


def record_states(
    record: Sequence[int], calls: Sequence[int | None]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, States]:
    """Every decision of a play ``record`` (from the deal's start, seat 0 leading) without the
    hands: ``(mover, card, played_before, states)``, where ``played_before[i]`` is the mask of
    the cards the mover had played before decision ``i`` (its hand then is the hand it was dealt
    minus those) and ``states.hand`` is zero."""
    from callbreak_lab.rules import trick_winner

    won = [0, 0, 0, 0]
    played = [0, 0, 0, 0]
    gone, leader = 0, 0
    trick: list[int] = []
    movers, cards, before, rows = [], [], [], []
    for card in record:
        mover = (leader + len(trick)) % 4
        led = trick[0] // 13 if trick else -1
        top_led = max((c for c in trick if c // 13 == led), default=-1)
        top_spade = max((c for c in trick if c >= 39), default=-1)
        call = calls[mover]
        need = NO_NEED if call is None else int(call) - won[mover]
        rows.append((0, gone, led, top_led, top_spade, len(trick), gone.bit_count() < 4, need))
        movers.append(mover)
        cards.append(int(card))
        before.append(played[mover])
        played[mover] |= 1 << card
        gone |= 1 << card
        trick.append(int(card))
        if len(trick) == 4:
            leader = (leader + trick_winner(trick)) % 4
            won[leader] += 1
            trick = []
    return (np.array(movers, dtype=np.int64), np.array(cards, dtype=np.int64),
            np.array(before, dtype=_U), _states(rows))  # fmt: skip


def decisions_from_records(
    rules: Ruleset, hands: np.ndarray, calls: np.ndarray, plays: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training rows ``(X, y, groups)`` from deals (``hands`` ``(d, 4)`` masks as dealt,
    ``calls`` ``(d, 4)``, ``plays`` ``(d, 52)`` records): every decision with more than one
    legal card."""
    parts: list[States] = []
    played: list[np.ndarray] = []
    for h, cl, rec in zip(hands, calls, plays, strict=True):
        movers, cards, before, s = record_states([int(c) for c in rec], [int(x) for x in cl])
        parts.append(s.with_hands(h.astype(_U)[movers] & ~before))
        played.append(cards)
    s = States(
        *(np.concatenate([getattr(p, f) for p in parts]) for f in States.__dataclass_fields__)
    )
    card = np.concatenate(played)
    legal = legal_masks(rules, s)
    keep = np.flatnonzero(_pop(legal) > 1)
    s, card, legal = s.take(keep), card[keep], legal[keep]
    rows, cards = _expand(legal)
    x = features(s, rows, cards, legal)
    return x, (cards == card[rows]).astype(np.int8), rows


def evaluate(model: PlayModel, X: np.ndarray, y: np.ndarray, groups: np.ndarray) -> dict[str, Any]:
    """Held-out ``top1`` agreement (the likeliest card is the one played), ``log_loss`` (mean
    -log P(card played)) and ``decisions``."""
    p = model.predict_proba(X, groups)
    n = int(groups.max()) + 1
    best = np.full(n, -1.0)
    np.maximum.at(best, groups, p)
    chosen = y == 1
    top1 = float(np.mean(p[chosen] >= best[groups[chosen]] - 1e-12))
    return {
        "decisions": n,
        "top1": round(top1, 4),
        "log_loss": round(float(-np.mean(np.log(np.maximum(p[chosen], 1e-300)))), 4),
    }


# --- the shipped models ------------------------------------------------------------------------

CARD_KIND = "callbreak_lab.PlayModel"


def play_model_paths(profile: str, models_dir: str | Path | None = None) -> tuple[Any, Any]:
    """``(model file, card file)`` of a profile's play model, ``play_<profile>.joblib`` /
    ``.json`` beside the bid models (``bidding.model.default_models_dir``)."""
    from callbreak_lab.bidding.model import default_models_dir

    base = default_models_dir() if models_dir is None else Path(models_dir)
    return base.joinpath(f"play_{profile}.joblib"), base.joinpath(f"play_{profile}.json")


def save_play_model(
    model: PlayModel, profile: str, models_dir: str | Path, card: dict[str, Any]
) -> tuple[Path, Path]:
    """Write a fitted play model and its JSON ``card`` (data, training, held-out figures; the
    feature names, library versions and the model file's SHA-256 are added) atomically."""
    import joblib
    import sklearn

    check_is_fitted(model, "coef_")
    model_path, card_path = (Path(p) for p in play_model_paths(profile, models_dir))
    with atomic_open(model_path, ".joblib") as f:
        joblib.dump(model, f, compress=3)
    full = {
        "kind": CARD_KIND,
        "profile": profile,
        "feature_names": list(FEATURE_NAMES),
        "sklearn": sklearn.__version__,
        "numpy": np.__version__,
        **card,
        "model_file": model_path.name,
        "model_sha256": hashlib.sha256(model_path.read_bytes()).hexdigest(),
    }
    with atomic_open(card_path, ".json") as f:
        f.write((json.dumps(full, indent=2, sort_keys=True) + "\n").encode())
    return model_path, card_path


@functools.lru_cache(maxsize=8)
def _load(profile: str, folder: str | None) -> PlayModel:
    from importlib import resources

    import joblib

    model_path, card_path = play_model_paths(profile, folder)
    if not model_path.is_file() or not card_path.is_file():
        raise ModelError(f"no play model for {profile!r}: {model_path} is missing "
                         "(scripts/make_play_models.py builds it)")  # fmt: skip
    card = json.loads(card_path.read_text(encoding="utf-8"))
    data = model_path.read_bytes()
    if card.get("kind") != CARD_KIND or card.get("feature_names") != list(FEATURE_NAMES):
        raise ModelError(f"play model card {card_path} does not match this version's features")
    if card.get("model_sha256") != hashlib.sha256(data).hexdigest():
        raise ModelError(f"play model file {model_path} does not match its card")
    with resources.as_file(model_path) as path:
        model = joblib.load(path)
    if not isinstance(model, PlayModel):
        raise ModelError(f"{model_path} does not hold a PlayModel")
    check_is_fitted(model, "coef_")
    return model


def load_play_model(rules: Ruleset | str, models_dir: str | Path | None = None) -> PlayModel:
    """The shipped play model of ``rules``' legal-card profile (a ruleset, a preset or a profile
    name; cached), checked against its card; a ``ModelError`` when missing or damaged."""
    from callbreak_lab.bidding.model import profile_of

    profile = profile_of(rules)
    return _load(profile, None if models_dir is None else str(Path(models_dir).resolve()))
