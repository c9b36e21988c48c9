"""Request and response bodies of the service (pydantic 2), with the OpenAPI text they carry.

Every body of every route is here, so the OpenAPI contract reads in one place; the module is
long because the contract is (one class a body, each field described)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

# pydantic needs typing_extensions' TypedDict before Python 3.12 (it comes with pydantic)
from typing_extensions import TypedDict

from callbreak_lab.rules import DEFAULT_RULES

__all__ = [
    "MAX_MONTE_CARLO",
    "AdviceCard",
    "AdviseRequest",
    "AdviseResponse",
    "AnalyseRequest",
    "AnalyseResponse",
    "BidRequest",
    "BidResponse",
    "CallRow",
    "CardReading",
    "CardText",
    "EvaluateRequest",
    "EvaluateResponse",
    "Health",
    "HelloResponse",
    "JudgedCard",
    "LineRequest",
    "LineResponse",
    "LineStep",
    "MatchAdvice",
    "MatchCallRow",
    "ModelCard",
    "MonteCarloCheck",
    "PlayRequest",
    "PlayResponse",
    "PlayerSummary",
    "Playout",
    "PositionInfo",
    "Problem",
    "ReadingCard",
    "ReviewResponse",
    "ReviewStep",
    "ReviewSummary",
    "RulesCatalogue",
    "RulesObject",
    "RulesSpec",
    "RulesetFields",
    "SingleDummyReviewResponse",
    "SolveRequest",
    "SolveResponse",
    "TooLarge",
    "WorkerCounts",
]

#: the largest Monte Carlo sample count any configuration accepts (Settings may lower it)
MAX_MONTE_CARLO = 500
_TEXT = 400  # longest hand / record / deal text accepted (a full record is ~190 characters)

_CARD_PATTERN = r"^[2-9TJQKA][SHDC]$"
#: a card as the answers write it: rank 2-9 T J Q K A, suit S H D C ("AS", "TD", "2C")
CardText = Annotated[str, Field(pattern=_CARD_PATTERN)]
Seat = Annotated[int, Field(ge=0, le=3)]
#: one number per seat 0..3
PerSeat = Annotated[list[int], Field(min_length=4, max_length=4)]
_CALLS = "the four calls given (null: none given)"


class RulesObject(BaseModel):
    """Ruleset switches. Fields left out come from the preset named by ``name`` (default
    ``modern``); ``name`` may carry variations such as ``pagat+must_beat``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str | None = Field(None, max_length=100, examples=["pagat"])
    direction: Literal["clockwise", "anticlockwise"] | None = None
    min_call: int | None = Field(None, ge=1, le=13)
    max_call: int | None = Field(None, ge=1, le=13)
    must_beat: bool | None = None
    void_rule: Literal["strict", "win_only"] | None = None
    first_trick_spade_ban: bool | None = None
    scoring: Literal["tenths", "exact_or_one", "exact_or_one_bonus", "flat"] | None = None
    match_deals: int | None = Field(None, ge=1, le=1000)
    target_score: int | None = Field(None, ge=1, le=100000)


RulesSpec = str | RulesObject

# --- the requests' examples (in the OpenAPI document; the schema tests send them) ----------------
# A deal whose double-dummy solves are quick from its first card, and its first ten tricks under
# the online preset: seat 3 (A642.Q8.Q76.AK87, called 4 of 2,2,2,4) then leads at trick 11
# holding AC 6S 2S with 3 tricks won. Late-deal positions keep the examples' answers fast.
_EX_DEAL = "J75.T42.JT52.QT3 QT98.5.9843.J642 K3.AKJ9763.AK.95 A642.Q8.Q76.AK87"
_EX_PLAYS = (
    "5D 9D KD QD | 6H QH TH 5H | 7C TC JC 9C | 2C 5C 8C QC | JS QS KS AS | 4S 7S 9S 3S | "
    "8D AD 6D 2D | 9H 8H 4H 8S | 4D JH 7D JD | 3C 4C 3H KC"
)
_EX_HAND = "AKQ2.T98.765.432"


def _examples(*bodies: dict[str, Any]) -> ConfigDict:
    """A request model's config: strict, no unknown field, and these example bodies."""
    return ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": list(bodies)})


_RULES_DOC = (
    "a preset name (modern, strict, online, home, pagat; variations like 'pagat+must_beat') "
    f"or an object of switches (default {DEFAULT_RULES})"
)


class Problem(BaseModel):
    """An error that is not about one field (408, 415, 503)."""

    detail: str = Field(description="what went wrong, in a sentence")


class TooLarge(Problem):
    """A request body over the service's cap (413)."""

    limit: int = Field(description="the cap, in bytes")


class PositionInfo(BaseModel):
    """Where a deal stands after the plays."""

    record: str = Field(description="the play record so far (tricks separated by '|')")
    to_move: Seat = Field(description="the seat to play next")
    leader: Seat = Field(description="the seat that led the trick in progress (or leads next)")
    trick: list[CardText] = Field(max_length=3, description="the trick in progress, in order")
    tricks_won: PerSeat = Field(description="tricks won so far per seat")
    tricks_left: int = Field(ge=0, le=13, description="tricks not finished yet")
    legal: list[CardText] = Field(description="the legal cards of the seat to play")


class SolveRequest(BaseModel):
    """A deal (and optionally the cards played so far) to solve double-dummy."""

    model_config = _examples(
        {"deal": _EX_DEAL, "rules": "online"},
        {"deal": _EX_DEAL, "plays": _EX_PLAYS, "rules": "online", "playout": True,
         "card_values": True},
    )  # fmt: skip

    deal: str = Field(
        max_length=_TEXT,
        description="four hands, seats 0..3 (seat 0 leads): dotted hands separated by spaces, "
        "or any hand notation separated by '/' or newlines",
        examples=["AKQ2.T98.765.432 JT98.AKQ.432.765 7654.765.AKQ.T98 3.J432.JT98.AKQJ"],
    )
    rules: RulesSpec = Field(DEFAULT_RULES, description=_RULES_DOC)
    plays: str = Field("", max_length=_TEXT, description="play record: 'AS 2S 5S KS | QH ...'")
    playout: bool = Field(False, description="also return the self-interested play-out")
    card_values: bool = Field(False, description="also return the mover's value of each card")


class Playout(BaseModel):
    """The self-interested play-out from the position to the end of the deal."""

    cards: list[CardText] = Field(description="the cards played from the position, in order")
    record: str = Field(description="the whole deal's play record: the plays, then these cards")
    tricks: PerSeat = Field(description="each seat's tricks for the whole deal at the end")


class SolveResponse(BaseModel):
    """Double-dummy values from the position: ``dd_table[t]`` is the number of the remaining
    tricks seat ``t`` can guarantee; ``totals[t]`` adds the tricks it has already won."""

    deal: str = Field(description="the four hands dealt, seats 0..3")
    rules: str = Field(description="the ruleset's name")
    position: PositionInfo
    dd_table: PerSeat = Field(description="per seat, the remaining tricks it can guarantee")
    totals: PerSeat = Field(description="per seat, tricks won so far plus dd_table")
    playout: Playout | None = Field(None, description="the play-out (null: not asked for)")
    card_values: dict[CardText, int] | None = Field(
        None,
        description="each legal card of the seat to play and the tricks it can then guarantee "
        "of the remaining ones (null: not asked for; {} once the deal is over)",
    )
    elapsed_ms: float = Field(description="time taken to answer")


class EvaluateRequest(BaseModel):
    """One hand to evaluate for bidding."""

    model_config = _examples(
        {"hand": _EX_HAND, "seat": 1, "rules": "modern"},
        {"hand": _EX_HAND, "seat": 2, "rules": "strict", "earlier_calls": [3, 4]},
        {"hand": _EX_HAND, "seat": 0, "layouts": 2},
        {"hand": _EX_HAND, "seat": 2, "rules": "online", "earlier_calls": [3, 4],
         "totals": [4.2, 13.7, 10.6, -3], "deal_of_match": 5},
    )  # fmt: skip

    hand: str = Field(
        max_length=_TEXT,
        description="13 cards in any notation: 'AKQ2.T98.765.432', '♠AKQ2 ♥T98 ♦765 ♣432', "
        "'AS KS QS ...'",
        examples=["AKQ2.T98.765.432"],
    )
    seat: int = Field(ge=0, le=3, description="seat in the order of play: 0 bids and leads first")
    rules: RulesSpec = Field(DEFAULT_RULES, description=_RULES_DOC)
    earlier_calls: list[int] | None = Field(
        None,
        max_length=3,
        description="the calls already made by seats 0..seat-1, in seat order (exactly `seat` "
        "of them). A call-conditioned model (today strict's and home/pagat's) uses them; "
        "`calls_used` in the answer says whether it did",
        examples=[[3, 4]],
    )
    layouts: int | None = Field(
        None,
        ge=1,
        le=MAX_MONTE_CARLO,
        validation_alias=AliasChoices("layouts", "monte_carlo"),
        description=f"also deal this many layouts around the hand and solve them, the answer's "
        f"`monte_carlo` (1..{MAX_MONTE_CARLO}; bounded in time; `monte_carlo` is its former "
        "name)",
    )
    totals: list[float] | None = Field(
        None,
        min_length=4,
        max_length=4,
        description="the match totals in points before this deal, seats 0..3 of this deal "
        "(at most one decimal: 3.1). With `deal_of_match`, the answer's `match` gives the call "
        "with the best chance of winning the match",
        examples=[[0, 0, 3.1, -1.2]],
    )
    deal_of_match: int | None = Field(
        None,
        ge=1,
        le=1000,
        description="which deal of the match this is, 1..match_deals (5 in every preset); 1 "
        "needs no totals",
        examples=[5],
    )
    explain: bool = Field(
        False,
        description="also answer why this call (`explain`): each card's chance of taking a "
        "trick in the play-out, each suit's expected tricks and where the counting rules of "
        "thumb are wrong for the hand (a few milliseconds)",
    )


class CallRow(BaseModel):
    """One legal call: its expected score (tenths and points) and the chance it is made."""

    call: int = Field(description="the call")
    expected_tenths: float = Field(description="its expected score in tenths")
    expected_points: float = Field(description="its expected score in points")
    make_probability: float = Field(description="the chance of making it")


class MonteCarloCheck(BaseModel):
    """The slow reference: layouts dealt around the hand and solved. A sample's solve ranges
    from milliseconds to seconds: no new one is started past the service's Monte Carlo time
    share, so ``layouts`` (solved) may be fewer than ``requested`` (``stopped_early``)."""

    layouts: int = Field(description="layouts solved")
    requested: int = Field(description="layouts asked for")
    stopped_early: bool = Field(description="the time share ran out before all were solved")
    call: int = Field(description="the best call by the layouts' play-out distribution")
    distribution: list[float] = Field(description="P(play-out tricks = t), t = 0..13")
    floor_distribution: list[float] = Field(description="P(guaranteed tricks = t), t = 0..13")
    mean_tricks: float = Field(description="the play-out's mean tricks")
    mean_floor: float = Field(description="the guaranteed tricks' mean")
    elapsed_ms: float = Field(description="time the check took")


class MatchCallRow(BaseModel):
    """One legal call's chance of winning the match."""

    call: int = Field(description="the call")
    expected_points: float = Field(description="its expected score in points")
    make_probability: float = Field(ge=0, le=1, description="the chance of making it")
    win_probability: float = Field(ge=0, le=1, description="the chance of winning the match")
    win_se: float = Field(ge=0, description="standard error of win_probability")


class MatchAdvice(BaseModel):
    """The call for the match (``bidding.match.MatchCall.to_dict()``): each legal call's chance
    of winning the match from the standing, from the bid model's forecast and the match equity
    of recorded deals (``callbreak_lab.bidding.equity``)."""

    rules: str = Field(description="the ruleset's name")
    seat: Seat
    totals: PerSeat = Field(description="the totals in tenths (31 is 3.1 points)")
    totals_points: list[float] = Field(min_length=4, max_length=4, description="... in points")
    deal_of_match: int = Field(ge=1, description="the deal being called")
    deals_left: int = Field(ge=0, description="deals after this one")
    earlier_calls: list[int] | None = Field(description="the earlier seats' calls given")
    call: int = Field(description="the call for the match: the points-best unless another "
                      "wins the match clearly more often")  # fmt: skip
    points_call: int = Field(description="the call with the best expected score")
    match_best: int = Field(description="the call that wins the match most often")
    gain: float = Field(description="match_best's chance of winning minus points_call's")
    gain_se: float = Field(ge=0, description="standard error of gain")
    reason: str = Field(description="the decision in a sentence")
    deals: int = Field(ge=1, description="recorded deals the equity rests on")
    calls: list[MatchCallRow] = Field(description="every legal call, lowest first")


class CardChanceRow(BaseModel):
    """One card of the hand: its chance of taking a trick and what a counting rule counts."""

    card: str = Field(description="the card, e.g. 'QS'")
    chance: float = Field(ge=0, le=1, description="chance it takes a trick in the play-out")
    ruff: float = Field(ge=0, le=1, description="of that, the chance it takes one by a ruff")
    scaled: float = Field(
        ge=0, le=1, description="the chance shifted so the cards add up to advisor_expected"
    )
    counted: float = Field(ge=0, description="what the counting rule counts for it")
    reason: str = Field(description="why the rule counts it ('' when it counts nothing)")


class SuitTricksRow(BaseModel):
    """One suit's expected tricks."""

    suit: Literal["c", "d", "h", "s"] = Field(description="the suit's letter")
    symbol: str = Field(description="the suit's symbol")
    length: int = Field(ge=0, le=13, description="the hand's cards of the suit")
    expected: float = Field(ge=0, description="expected tricks of the suit's cards")
    high: float = Field(
        ge=0, description="of them: its A K Q (spades: every trick on a spade lead)"
    )
    low: float = Field(ge=0, description="of them: its lower cards (spades: 0)")
    ruffs: float = Field(ge=0, description="spades: tricks on other suits' leads; else 0")
    counted: float = Field(ge=0, description="what the counting rule counts in the suit")


class CallExplanationModel(BaseModel):
    """Why this call: the cards' chances, the suits' tricks, the counting rules' view."""

    hand: str = Field(description="the hand")
    seat: int = Field(ge=0, le=3, description="its seat")
    rules: str = Field(description="the ruleset's name")
    earlier_calls: list[int] | None = Field(description="the earlier calls used (null: none)")
    call: int = Field(description="the call explained (the match's call when totals are given)")
    total: float = Field(ge=0, le=13, description="the cards' chances added up")
    advisor_expected: float = Field(
        ge=0, le=13, description="the call advisor's expected tricks (the bid model's)"
    )
    cards: list[CardChanceRow] = Field(description="the 13 cards, spades hearts clubs diamonds")
    suits: list[SuitTricksRow] = Field(description="the four suits, spades first")
    baseline: str = Field(description="the counting rule compared with")
    baseline_total: float = Field(description="what it counts for the hand")
    baseline_counts: dict[str, float] = Field(description="every counting rule's count")
    disagreements: list[str] = Field(
        description="the cards where the rule and the chance differ by a third of a trick "
        "or more, largest first"
    )


class EvaluateResponse(BaseModel):
    """The call decision for one hand."""

    hand: str = Field(description="the hand, in dotted form (spades first)")
    seat: int = Field(description="the seat in the order of play")
    rules: str = Field(description="the ruleset's name")
    source: str = Field(description="what produced the distribution (model version or fallback)")
    call: int = Field(description="the suggested call: the best expected score")
    expected_tenths: float = Field(description="its expected score in tenths")
    make_probability: float = Field(description="the chance of making it")
    distribution: list[float] = Field(description="P(play-out tricks = t), t = 0..13")
    floor_distribution: list[float] | None = Field(
        description="P(guaranteed tricks = t), t = 0..13 (null when the source has none)"
    )
    earlier_calls: list[int] | None = Field(
        None, description="the earlier seats' calls that were given (null: none given)"
    )
    calls_used: bool = Field(
        False, description="whether the forecast conditioned on `earlier_calls`"
    )
    calls: list[CallRow] = Field(description="every legal call, lowest first")
    monte_carlo: MonteCarloCheck | None = Field(None, description="null: not asked for")
    match: MatchAdvice | None = Field(
        None, description="the call for the match (null: no totals or deal_of_match given)"
    )
    explain: CallExplanationModel | None = Field(
        None, description="why this call (null: `explain` not asked for)"
    )


class LineRequest(BaseModel):
    """A position and a seat to study: the annotated double-dummy line (or the play-out)."""

    model_config = _examples(
        {"deal": _EX_DEAL, "plays": _EX_PLAYS, "rules": "online", "seat": 3,
         "calls": "2,2,2,4"},
        {"deal": _EX_DEAL, "plays": _EX_PLAYS + " | 2S", "rules": "online", "playout": True},
    )  # fmt: skip

    deal: str = Field(max_length=_TEXT, description="four hands, seats 0..3")
    seat: int = Field(0, ge=0, le=3, description="the studied seat (ignored for the play-out)")
    rules: RulesSpec = Field(DEFAULT_RULES, description=_RULES_DOC)
    plays: str = Field("", max_length=_TEXT, description="cards played so far (a play record)")
    calls: str | list[int] | None = Field(
        None, description="the four calls, e.g. '3,4,2,3' (optional)"
    )
    playout: bool = Field(False, description="the self-interested play-out instead")


class AnalyseRequest(BaseModel):
    """A deal and the cards played: each card judged against double-dummy defence, or with
    ``layouts`` as its player could see it at the table (single-dummy)."""

    model_config = _examples(
        {"deal": _EX_DEAL, "plays": _EX_PLAYS, "rules": "online", "calls": "2,2,2,4"},
        {"deal": _EX_DEAL, "plays": "5D 9D KD QD | 6H QH", "rules": "online",
         "calls": [2, 2, 2, 4], "layouts": 4, "seats": [3, 0]},
        {"deal": _EX_DEAL, "plays": "5D 9D", "rules": "online", "layouts": 2},
    )  # fmt: skip

    deal: str = Field(max_length=_TEXT, description="four hands, seats 0..3")
    plays: str = Field(max_length=_TEXT, description="the cards played (a play record)")
    rules: RulesSpec = Field(DEFAULT_RULES, description=_RULES_DOC)
    calls: str | list[int] | None = Field(None, description="the four calls (optional)")
    layouts: int | None = Field(
        None,
        ge=1,
        validation_alias=AliasChoices("layouts", "single_dummy"),
        description="judge each card by what its player could see, over this many layouts of "
        "the hidden cards a decision (at most the service's review_layouts_max); the answer "
        "is then the single-dummy review (`single_dummy` is its former name)",
    )
    seed: int = Field(0, ge=0, le=2**31 - 1, description="the layouts' seed (single-dummy)")
    seats: list[int] | None = Field(
        None, max_length=4, description="judge only these seats (single-dummy; default all)"
    )


class AdviseRequest(BaseModel):
    """At the table: the seat to play after ``plays`` holds ``hand``; which card should it play,
    knowing only its own cards?"""

    model_config = _examples(
        {"hand": "A642.Q8.Q76.AK87", "plays": _EX_PLAYS, "rules": "online",
         "calls": [2, 2, 2, 4], "layouts": 8, "cards": True},
        {"hand": "AC 6S 2S", "plays": _EX_PLAYS, "rules": "online", "layouts": 8, "seed": 1},
    )  # fmt: skip

    hand: str = Field(
        max_length=_TEXT,
        description="the cards of the seat to play: those it holds now, or the 13 it was dealt",
    )
    plays: str = Field(
        "",
        max_length=_TEXT,
        description="the cards played so far from the deal's start (a play record; seat 0 led "
        "the first trick, each trick's winner the next)",
    )
    seat: int | None = Field(
        None,
        ge=0,
        le=3,
        description="whose hand it is (optional): refused unless it is the seat to play after "
        "plays; without it the hand is taken as the seat to play's",
    )
    rules: RulesSpec = Field(DEFAULT_RULES, description=_RULES_DOC)
    calls: str | list[int] | None = Field(
        None, description="the four calls (optional: without them the cards are judged by tricks)"
    )
    layouts: int = Field(
        32, ge=1, description="layouts of the hidden cards (at most the service's "
        "advise_layouts_max)",
    )  # fmt: skip
    seed: int = Field(0, ge=0, le=2**31 - 1, description="the layouts' seed")
    time_limit: float | None = Field(
        None,
        gt=0,
        description="seconds the advice may take (default and most: the service's time "
        "bound's share for analysis): the answer covers the layouts solved by then, the "
        "likeliest first (solved of total, complete false); with none solved, best is the "
        "learned play policy's card (source learned) and cards is empty",
    )
    cards: bool = Field(
        False,
        description="also where the hidden cards are (reading): each card's chance in each other "
        "seat, from the calls and the cards played (the learned play policy's reading)",
    )


class ModelCard(BaseModel):
    """The card of a shipped bid model (``models/bid_<profile>.json``); a key the card lacks is
    null."""

    model_file: str | None = Field(description="the model's file in models/")
    model_sha256: str | None = Field(description="SHA-256 of the model file")
    sklearn: str | None = Field(description="the scikit-learn version that pickled it")
    training_size: int | None = Field(description="deals it was trained on")
    dataset_hash: str | None = Field(description="hash of its training dataset")


class WorkerCounts(BaseModel):
    """The solver worker pool."""

    size: int = Field(ge=0, description="worker processes the pool keeps")
    alive: int = Field(ge=0, description="worker processes running now")
    idle: int = Field(ge=0, description="workers waiting for a job")
    killed: int = Field(ge=0, description="workers killed at a time bound since the start")
    completed: int = Field(ge=0, description="jobs completed since the start")


class Health(BaseModel):
    """Service status."""

    status: Literal["ok"]
    version: str = Field(description="the callbreak_lab package version")
    models: dict[str, ModelCard | str] = Field(
        description="per bid-model profile (modern, strict, online, home_pagat) its model card, "
        'or "absent" when no model is shipped; {"error": "..."} when the model code cannot load'
    )
    bid_source: str = Field(description="what produces the online preset's call forecasts")
    workers: WorkerCounts


class RulesetFields(BaseModel):
    """Every switch of a ruleset (``Ruleset.to_dict()``)."""

    name: str
    direction: Literal["clockwise", "anticlockwise"]
    min_call: int = Field(ge=1, le=13)
    max_call: int = Field(ge=1, le=13)
    must_beat: bool
    void_rule: Literal["strict", "win_only"]
    first_trick_spade_ban: bool
    scoring: Literal["tenths", "exact_or_one", "exact_or_one_bonus", "flat"]
    match_deals: int | None = Field(ge=1, description="deals in a match (null: played to a score)")
    target_score: int | None = Field(ge=1, description="the score ending a match, in tenths")


class RulesCatalogue(BaseModel):
    """The rule presets and the switches a rules object may set."""

    presets: dict[str, RulesetFields] = Field(description="each preset by name")
    switches: dict[str, list[str] | str] = Field(
        description="each switch: its values, or a phrase saying what it takes"
    )
    variations: str = Field(description="how a preset name carries variations")


# --- the answers of /v1/line, /v1/advise and /v1/analyse (the library's to_dict forms) ------------


class LineStep(TypedDict):
    """One card of a line: who played what, each legal card's value and why the choice was
    narrowed (``lines.Step.to_dict()``). ``winner`` and ``tricks`` are present only on the card
    that completes a trick.

    A TypedDict, not a model: a key that is left out is not the same as a null one."""

    seat: Annotated[Seat, Field(description="the seat playing the card")]
    card: Annotated[CardText, Field(description="the card played")]
    trick: Annotated[int, Field(ge=1, le=13, description="the trick's number in the deal")]
    values: Annotated[
        dict[CardText, int],
        Field(
            description="each legal card of the mover and its value: the deal total of tricks "
            "of the studied seat (a play-out or a review: of the mover), spades first, high "
            "cards first"
        ),
    ]
    best: Annotated[
        int,
        Field(
            description="the best value for the mover: the most when the values are its own, "
            "the fewest when they are the studied seat's and it is an opponent"
        ),
    ]
    forced: Annotated[
        str | None,
        Field(description="why the card was the only legal one (null: the mover had a choice)"),
    ]
    restriction: Annotated[
        str | None,
        Field(description="the rule narrowing the mover's choice (null: a free choice)"),
    ]
    winner: NotRequired[
        Annotated[Seat, Field(description="on a trick's last card: the seat winning the trick")]
    ]
    tricks: NotRequired[
        Annotated[
            PerSeat,
            Field(description="on a trick's last card: the tricks won by each seat so far"),
        ]
    ]


class LineResponse(BaseModel):
    """The double-dummy line for a seat, or the self-interested play-out, from the position to
    the end of the deal (``lines.Line.to_dict()``)."""

    kind: Literal["line", "playout"] = Field(
        description="line: the studied seat maximises its tricks against the three others; "
        "playout: each mover maximises its own"
    )
    rules: str = Field(description="the ruleset's name")
    deal: str = Field(description="the four hands dealt, seats 0..3")
    start: str = Field(description="the play record before the line's first card")
    seat: Seat | None = Field(description="the studied seat (null for a play-out)")
    value: int | None = Field(
        ge=0, le=13, description="the studied seat's tricks at the end (null for a play-out)"
    )
    calls: PerSeat | None = Field(description=_CALLS)
    steps: list[LineStep] = Field(description="the cards of the line, in play order")
    tricks: PerSeat = Field(description="each seat's tricks for the whole deal at the end")


class AdviceCard(BaseModel):
    """One legal card over the layouts of the hidden cards: its expected score, tricks and make
    chance when every seat plays for itself (the play-out scale, the call advisor's measure),
    and the same on the double-dummy floor (``floor_*``: the tricks the seat keeps when the
    other three play together against it)."""

    card: CardText
    expected: float | None = Field(description="expected score in points (null without the calls)")
    se: float | None = Field(description="standard error of expected (null without the calls)")
    tricks: float = Field(description="expected tricks for the whole deal")
    tricks_se: float = Field(description="standard error of tricks (0 over every layout)")
    make: float | None = Field(
        ge=0, le=1, description="chance of making the seat's call (null without the calls)"
    )
    floor_expected: float | None = Field(
        description="expected score on the floor in points (null without the calls)"
    )
    floor_tricks: float = Field(description="expected tricks the seat keeps on the floor")
    floor_make: float | None = Field(
        ge=0, le=1, description="chance the floor makes the call (null without the calls)"
    )
    cost: float = Field(
        ge=0, description="what the card gives up against the best card, in the unit"
    )
    cost_se: float = Field(ge=0, description="standard error of cost (paired on the layouts)")


#: the evidence a card reading weighs besides the rules (``seat.reading.Assumed``)
Assumed = Literal["calls and plays", "calls", "plays", "rules"]


class ReadingCard(BaseModel):
    """One hidden card: the chance each seat holds it."""

    card: CardText
    chances: list[Annotated[float, Field(ge=0, le=1)]] = Field(
        min_length=4, max_length=4,
        description="the chance seat 0..3 holds it (0 for the seat reading it; exactly 0 where "
        "the rules prove a seat cannot hold it, exactly 1 where only one seat can)",
    )  # fmt: skip
    seats: list[Seat] = Field(
        min_length=1, max_length=3, description="the seats the rules let hold it"
    )
    certain: bool = Field(description="the rules place it in one seat")


class CardReading(BaseModel):
    """Where the cards the seat cannot see are (``seat.reading.Reading.to_dict()``)."""

    seat: Seat = Field(description="the seat reading the table")
    hand: list[CardText] = Field(description="the cards the seat holds now")
    assumed: Assumed = Field(
        description="the evidence weighed besides the rules: the calls and the cards played "
        "(under the learned play policy), the calls, the plays, or the rules alone"
    )
    layouts: int = Field(ge=1, description="layouts weighed (every consistent one when exact)")
    ess: float = Field(description="effective sample size of the layouts' weights")
    exact: bool = Field(description="every layout consistent with what the seat saw was weighed")
    cards_played: int = Field(ge=0, le=52, description="cards on the table when read")
    rules: str = Field(description="the ruleset's name")
    cards: list[ReadingCard] = Field(
        description="the hidden cards (spades, hearts, clubs, diamonds; high first)"
    )


class AdviseResponse(BaseModel):
    """The single-dummy values of the legal cards of the seat to play, best first
    (``advice.SingleDummy.to_dict()``)."""

    seat: Seat = Field(description="the seat to play")
    calls: PerSeat | None = Field(description=_CALLS)
    unit: Literal["points", "tricks"] = Field(
        description="what the cards are judged by: expected score (with the calls) or tricks"
    )
    scale: Literal["playout"] = Field(
        description="the measure of expected, tricks and make: each seat playing for itself "
        "(the call advisor's); the floor's figures are floor_expected, floor_tricks, floor_make"
    )
    best: CardText = Field(
        description="the best card over the layouts solved (source learned: the learned play "
        "policy's card)"
    )
    layouts: int = Field(ge=0, description="layouts the values are over (repeats included)")
    distinct: int = Field(ge=0, description="different layouts solved")
    exact: bool = Field(description="every layout consistent with what the seat saw was taken")
    stopped_early: bool = Field(description="the time bound stopped it before every layout")
    ess: float = Field(description="effective sample size of the layouts' weights")
    cards: list[AdviceCard] = Field(
        description="the legal cards, best first (empty when no layout was solved in time)"
    )
    source: Literal["layouts", "learned"] = Field(
        description="where best comes from: the layouts solved, or (none solved within the "
        "time limit) the learned play policy, with no value claimed"
    )
    solved: int = Field(ge=0, description="different layouts solved within the time limit")
    total: int = Field(ge=0, description="different layouts drawn to solve")
    complete: bool = Field(
        description="every layout drawn was solved: the answer without a time limit"
    )
    assumed: Assumed = Field(
        description="the reading of the hidden cards the values assumed: the layouts are "
        "weighted by the other seats' calls (calls; rules without calls), not by the plays"
    )
    reading: CardReading | None = Field(
        None, description="where the hidden cards are (asked for with cards: true)"
    )


class ReviewStep(LineStep):
    """A played card judged against double-dummy defence: the line step (values: the player's
    own deal totals) plus what the card kept."""

    before: Annotated[int, Field(description="the tricks the player could guarantee before")]
    after: Annotated[int, Field(description="... and after the card")]
    lost: Annotated[int, Field(ge=0, description="tricks the card gave away (before - after)")]
    flagged: Annotated[bool, Field(description="the card lost at least one trick")]
    better: Annotated[
        list[CardText], Field(description="the cards that would have kept more, best first")
    ]


class ReviewSummary(BaseModel):
    """Cards flagged and tricks lost per seat."""

    cards: int = Field(ge=1, le=52, description="cards reviewed")
    complete: bool = Field(description="all 52 cards were reviewed")
    flagged: PerSeat = Field(description="flagged cards per seat")
    lost: PerSeat = Field(description="tricks lost against double-dummy defence per seat")
    tricks: PerSeat = Field(description="tricks won by the cards reviewed per seat")
    calls: PerSeat | None = Field(description=_CALLS)


class ReviewResponse(BaseModel):
    """Each card played judged against double-dummy defence (``review.Review.to_dict()``)."""

    kind: Literal["review"]
    rules: str = Field(description="the ruleset's name")
    deal: str = Field(description="the four hands dealt, seats 0..3")
    calls: PerSeat | None = Field(description=_CALLS)
    steps: list[ReviewStep] = Field(description="the cards played, in order")
    tricks: PerSeat = Field(description="tricks won per seat by the cards reviewed")
    summary: ReviewSummary


class JudgedCard(BaseModel):
    """One played card judged single-dummy, by what its player could see. The ``sd_`` fields
    and ``layouts`` are null when the card was forced or its seat is not judged."""

    index: int = Field(ge=0, le=51, description="its place in the play record, from 0")
    trick: int = Field(ge=1, le=13, description="the trick's number")
    seat: Seat = Field(description="the seat that played it")
    card: CardText = Field(description="the card played")
    forced: bool = Field(description="it was the only legal card")
    dd_value: int = Field(ge=0, le=13, description="its double-dummy deal total for its player")
    sd_expected: float | None = Field(
        description="its expected score in points (tricks without the calls)"
    )
    sd_best_card: CardText | None = Field(description="the best card by that measure")
    sd_best_expected: float | None = Field(description="the best card's expected score")
    cost: float = Field(ge=0, description="sd_best_expected - sd_expected (0 when not judged)")
    cost_se: float = Field(ge=0, description="standard error of cost")
    layouts: int | None = Field(description="layouts of the hidden cards it was judged over")


class PlayerSummary(BaseModel):
    """A judged seat: its call against the best call for its hand, and its cards' cost."""

    seat: Seat
    call: int | None = Field(description="its call (null without the calls)")
    best_call: int | None = Field(description="the bid model's best call (null without calls)")
    call_cost: float | None = Field(description="points its call gave up in expectation")
    play_cost: float = Field(ge=0, description="the cost of its judged cards, summed")
    judged: int = Field(ge=0, description="its cards judged")
    mistakes: int = Field(ge=0, description="its judged cards that cost more than 0.05")


class SingleDummyReviewResponse(BaseModel):
    """Each card played judged by what its player could see at the table
    (``review.SingleDummyReview.to_dict()``)."""

    kind: Literal["single-dummy review"]
    deal: str = Field(description="the four hands dealt, seats 0..3")
    rules: str = Field(description="the ruleset's name")
    calls: PerSeat | None = Field(description=_CALLS)
    unit: Literal["points", "tricks"] = Field(
        description="expected scores in points (with the calls) or expected tricks"
    )
    cards: list[JudgedCard] = Field(
        description="the cards played, in order (up to where the time bound stopped it)"
    )
    players: list[PlayerSummary] = Field(description="the judged seats")
    mistakes: list[int] = Field(
        max_length=3, description="indices of the costliest cards (at most 3), costliest first"
    )
    layouts: int = Field(ge=1, description="layouts a decision")
    seed: int = Field(description="the layouts' seed")
    seats: list[Seat] = Field(min_length=1, max_length=4, description="the seats judged")
    stopped_early: bool = Field(description="the time bound stopped it before the last card")


AnalyseResponse = Annotated[ReviewResponse | SingleDummyReviewResponse, Field(discriminator="kind")]


# --- the tournament bot protocol ------------------------------------------------------------------

_ID = Field(None, max_length=200)


class _BotBody(BaseModel):
    model_config = ConfigDict(extra="allow")

    playerId: str | None = _ID
    id: str | None = _ID
    playerIds: list[str] | None = Field(None, min_length=4, max_length=4)
    cards: list[str] = Field(max_length=13, description="our hand, e.g. ['1S', 'TH', 'QS']")
    context: dict[str, Any] | None = None
    timeBudget: float | None = Field(
        None,
        ge=0,
        le=600_000,
        allow_inf_nan=False,
        description="milliseconds left to answer (default 1000)",
    )

    @field_validator("playerIds")
    @classmethod
    def _four_players(cls, ids: list[str] | None) -> list[str] | None:
        """The four ids name four players: a repeated id leaves a seat unknown."""
        if ids is not None:
            seen: set[str] = set()
            for pid in ids:
                if pid in seen:
                    raise ValueError(f"{pid!r} appears twice: the four players need four ids")
                seen.add(pid)
        return ids


#: the example bid's 13 cards in the Bhoos notation (``1`` is the ace)
_EX_BID_CARDS = ["1S", "9S", "8S", "4S", "KH", "JH", "9H", "5H", "6C", "3C", "2C", "TD", "5D"]

#: the example deal's first ten tricks (``_EX_PLAYS``) as a Bhoos history: leader, cards, winner
_EX_HISTORY = [
    [0, ["5D", "9D", "KD", "QD"], 2], [2, ["6H", "QH", "TH", "5H"], 3],
    [3, ["7C", "TC", "JC", "9C"], 1], [1, ["2C", "5C", "8C", "QC"], 0],
    [0, ["JS", "QS", "KS", "1S"], 3], [3, ["4S", "7S", "9S", "3S"], 1],
    [1, ["8D", "1D", "6D", "2D"], 2], [2, ["9H", "8H", "4H", "8S"], 1],
    [1, ["4D", "JH", "7D", "JD"], 0], [0, ["3C", "4C", "3H", "KC"], 3],
]  # fmt: skip


def _bid_example(context: dict[str, Any]) -> dict[str, Any]:
    """A ``/bid`` request of the example bid's cards with ``context``."""
    return {"id": "P0", "cards": _EX_BID_CARDS, "context": context, "timeBudget": 446}


def _play_example(seat: int, cards: list[str], played: list[str]) -> dict[str, Any]:
    """A ``/play`` request of ``seat`` after the example deal's first ten tricks."""
    return {
        "playerId": f"P{seat}",
        "playerIds": ["P0", "P1", "P2", "P3"],
        "cards": cards,
        "history": _EX_HISTORY,
        "played": played,
        "timeBudget": 300,
    }


class BidRequest(_BotBody):
    """``POST /bid``: our 13 cards (and the context)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                _bid_example({"players": {"P0": {"bid": 0}, "Bot-1": {"bid": 3},
                                           "Bot-2": {"bid": 4}, "Bot-3": {"bid": 1}}}),
                # the match's last deal, 2.3 points behind: the call for the match
                _bid_example({"round": 5, "players": {
                    "P0": {"bid": 0, "totalPoints": 11.4},
                    "Bot-1": {"bid": 3, "totalPoints": 4.2},
                    "Bot-2": {"bid": 4, "totalPoints": 13.7},
                    "Bot-3": {"bid": 0, "totalPoints": 11.5}}}),
            ]
        },
    )  # fmt: skip


class PlayRequest(_BotBody):
    """``POST /play``: our hand, the current trick and the finished tricks."""

    # the example deal after ten tricks (``_EX_PLAYS``; ``1`` is the ace): seat 3 to lead
    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                _play_example(3, ["6S", "2S", "1C"], []),
                _play_example(0, ["5S", "2H", "TD"], ["2S"]),  # after seat 3 led the 2S
            ]
        },
    )  # fmt: skip

    played: list[str] = Field(default_factory=list, max_length=3)
    history: list[tuple[int, list[str], int]] = Field(default_factory=list, max_length=13)


class BidResponse(BaseModel):
    """Our call, 1..8."""

    value: int = Field(ge=1, le=8, description="our call")


class PlayResponse(BaseModel):
    """Our card, in the request's notation."""

    value: str = Field(description="a legal card of `cards`, written as the request wrote it")


class HelloResponse(BaseModel):
    """Readiness probe answer."""

    value: Literal["hello"]
