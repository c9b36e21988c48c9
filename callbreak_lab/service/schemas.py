"""Request and response bodies of the service (pydantic 2), with the OpenAPI text they carry."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "MAX_MONTE_CARLO",
    "AnalyseRequest",
    "BidRequest",
    "BidResponse",
    "CallRow",
    "EvaluateRequest",
    "EvaluateResponse",
    "Health",
    "HelloResponse",
    "LineRequest",
    "MonteCarloCheck",
    "PlayRequest",
    "PlayResponse",
    "PositionInfo",
    "Problem",
    "RulesObject",
    "RulesSpec",
    "SolveRequest",
    "SolveResponse",
]

#: the largest Monte Carlo sample count any configuration accepts (Settings may lower it)
MAX_MONTE_CARLO = 500
_TEXT = 400  # longest hand / record / deal text accepted (a full record is ~190 characters)


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
_RULES_DOC = (
    "a preset name (modern, strict, online, home, pagat; variations like 'pagat+must_beat') "
    "or an object of switches"
)


class Problem(BaseModel):
    """An error that is not about one field (413, 503)."""

    detail: str


class PositionInfo(BaseModel):
    """Where a deal stands after the plays."""

    record: str
    to_move: int
    leader: int
    trick: list[str]
    tricks_won: list[int]
    tricks_left: int
    legal: list[str]


class SolveRequest(BaseModel):
    """A deal (and optionally the cards played so far) to solve double-dummy."""

    model_config = ConfigDict(extra="forbid", strict=True)

    deal: str = Field(
        max_length=_TEXT,
        description="four hands, seats 0..3 (seat 0 leads): dotted hands separated by spaces, "
        "or any hand notation separated by '/' or newlines",
        examples=["AKQ2.T98.765.432 JT98.AKQ.432.765 7654.765.AKQ.T98 3.J432.JT98.AKQJ"],
    )
    rules: RulesSpec = Field("modern", description=_RULES_DOC)
    plays: str = Field("", max_length=_TEXT, description="play record: 'AS 2S 5S KS | QH ...'")
    playout: bool = Field(False, description="also return the self-interested play-out")
    card_values: bool = Field(False, description="also return the mover's value of each card")


class Playout(BaseModel):
    """The self-interested play-out from the position to the end of the deal."""

    cards: list[str]
    record: str
    tricks: list[int]


class SolveResponse(BaseModel):
    """Double-dummy values from the position: ``dd_table[t]`` is the number of the remaining
    tricks seat ``t`` can guarantee; ``totals[t]`` adds the tricks it has already won."""

    deal: str
    rules: str
    position: PositionInfo
    dd_table: list[int]
    totals: list[int]
    playout: Playout | None = None
    card_values: dict[str, int] | None = None
    elapsed_ms: float


class EvaluateRequest(BaseModel):
    """One hand to evaluate for bidding."""

    model_config = ConfigDict(extra="forbid", strict=True)

    hand: str = Field(
        max_length=_TEXT,
        description="13 cards in any notation: 'AKQ2.T98.765.432', '♠AKQ2 ♥T98 ♦765 ♣432', "
        "'AS KS QS ...'",
        examples=["AKQ2.T98.765.432"],
    )
    seat: int = Field(ge=0, le=3, description="seat in the order of play: 0 bids and leads first")
    rules: RulesSpec = Field("modern", description=_RULES_DOC)
    earlier_calls: list[int] | None = Field(
        None,
        max_length=3,
        description="the calls already made by seats 0..seat-1, in seat order (exactly `seat` "
        "of them). A call-conditioned model (today strict's and home/pagat's) uses them; "
        "`calls_used` in the answer says whether it did",
        examples=[[3, 4]],
    )
    monte_carlo: int | None = Field(
        None,
        ge=1,
        le=MAX_MONTE_CARLO,
        description=f"also deal this many layouts around the hand and solve them "
        f"(1..{MAX_MONTE_CARLO}; bounded in time)",
    )


class CallRow(BaseModel):
    """One legal call: its expected score (tenths and points) and the chance it is made."""

    call: int
    expected_tenths: float
    expected_points: float
    make_probability: float


class MonteCarloCheck(BaseModel):
    """The slow reference: layouts dealt around the hand and solved. A sample's solve ranges
    from milliseconds to seconds: no new one is started past the service's Monte Carlo time
    share, so ``samples`` (solved) may be fewer than ``requested`` (``stopped_early``)."""

    samples: int
    requested: int
    stopped_early: bool
    call: int
    distribution: list[float]
    floor_distribution: list[float]
    mean_tricks: float
    mean_floor: float
    elapsed_ms: float


class EvaluateResponse(BaseModel):
    """The call decision for one hand."""

    hand: str
    seat: int
    rules: str
    source: str = Field(description="what produced the distribution (model version or fallback)")
    call: int
    expected_tenths: float
    make_probability: float
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
    calls: list[CallRow]
    monte_carlo: MonteCarloCheck | None = None


class LineRequest(BaseModel):
    """A position and a seat to study: the annotated double-dummy line (or the play-out)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    deal: str = Field(max_length=_TEXT, description="four hands, seats 0..3")
    seat: int = Field(0, ge=0, le=3, description="the studied seat (ignored for the play-out)")
    rules: RulesSpec = Field("modern", description=_RULES_DOC)
    plays: str = Field("", max_length=_TEXT, description="cards played so far (a play record)")
    calls: str | list[int] | None = Field(
        None, description="the four calls, e.g. '3,4,2,3' (optional)"
    )
    playout: bool = Field(False, description="the self-interested play-out instead")


class AnalyseRequest(BaseModel):
    """A deal and the cards played: each card judged against double-dummy defence, or with
    ``single_dummy`` as its player could see it at the table."""

    model_config = ConfigDict(extra="forbid", strict=True)

    deal: str = Field(max_length=_TEXT, description="four hands, seats 0..3")
    plays: str = Field(max_length=_TEXT, description="the cards played (a play record)")
    rules: RulesSpec = Field("modern", description=_RULES_DOC)
    calls: str | list[int] | None = Field(None, description="the four calls (optional)")
    single_dummy: int | None = Field(
        None,
        ge=1,
        description="judge each card by what its player could see, over this many layouts of "
        "the hidden cards a decision (at most the service's review_layouts_max); the answer "
        "is then the single-dummy review",
    )
    seed: int = Field(0, ge=0, le=2**31 - 1, description="the layouts' seed (single-dummy)")
    seats: list[int] | None = Field(
        None, max_length=4, description="judge only these seats (single-dummy; default all)"
    )


class AdviseRequest(BaseModel):
    """At the table: the seat to play after ``plays`` holds ``hand``; which card should it play,
    knowing only its own cards?"""

    model_config = ConfigDict(extra="forbid", strict=True)

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
    rules: RulesSpec = Field("modern", description=_RULES_DOC)
    calls: str | list[int] | None = Field(
        None, description="the four calls (optional: without them the cards are judged by tricks)"
    )
    layouts: int = Field(
        32, ge=1, description="layouts of the hidden cards (at most the service's "
        "advise_layouts_max)",
    )  # fmt: skip
    seed: int = Field(0, ge=0, le=2**31 - 1, description="the layouts' seed")


class Health(BaseModel):
    """Service status."""

    status: str
    version: str
    models: dict[str, Any]
    bid_source: str
    workers: dict[str, int]


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


class BidRequest(_BotBody):
    """``POST /bid``: our 13 cards (and the context)."""


class PlayRequest(_BotBody):
    """``POST /play``: our hand, the current trick and the finished tricks."""

    played: list[str] = Field(default_factory=list, max_length=3)
    history: list[tuple[int, list[str], int]] = Field(default_factory=list, max_length=13)


class BidResponse(BaseModel):
    """Our call, 1..8."""

    value: int


class PlayResponse(BaseModel):
    """Our card, in the request's notation."""

    value: str


class HelloResponse(BaseModel):
    """Readiness probe answer."""

    value: str
