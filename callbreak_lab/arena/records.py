"""Board records: one played deal of the arena (deal, rules, players, calls, play record, result,
faults, decision times), as an object and as a JSON file.

A record holds what ``callbreak-lab analyse`` and the play-line viewer take: the deal, the
ruleset's name, the four calls and the play record (``Board.analyse_command``,
``Board.viewer``, ``Board.position``, ``Board.analyse``). Files are written atomically
(``fileio.atomic_open``) and an existing record file is replaced only by the same board (same
deal, rules, players, seed, deal index and rotation), never by another tournament's board.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from callbreak_lab.analysis.review import (
    Review,
    SingleDummyReview,
    analyse_play,
    review_play,
)
from callbreak_lab.cards import Deal
from callbreak_lab.errors import RecordError, UsageError
from callbreak_lab.game import Position
from callbreak_lab.rules import Ruleset, format_tenths
from callbreak_lab.util.fileio import atomic_open
from callbreak_lab.util.progress import Progress

__all__ = [
    "FORMAT",
    "Board",
    "Fault",
    "board_identity",
    "check_record_slot",
    "load_record",
    "record_name",
    "write_record",
]

FORMAT = "callbreak_lab.arena.board/1"


@dataclass(frozen=True)
class Fault:
    """A player's answer that did not count: who, on which decision (``call``/``play``), what
    kind (``illegal``, ``unparsable``, ``exception``, ``timeout``), why, the request it was
    answering, its raw answer and what replaced it."""

    seat: int
    player: str
    decision: str
    kind: str
    message: str
    request: Any
    answer: str | None
    replaced_by: str

    def text(self) -> str:
        """One line for logs."""
        return (
            f"seat {self.seat} ({self.player}) {self.decision}: {self.kind}: {self.message}; "
            f"replaced by {self.replaced_by}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "player": self.player,
            "decision": self.decision,
            "kind": self.kind,
            "message": self.message,
            "request": self.request,
            "answer": self.answer,
            "replaced_by": self.replaced_by,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fault:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__})


def _four(x: Any) -> tuple[int, int, int, int]:
    v = [int(i) for i in x]
    if len(v) != 4:
        raise RecordError(f"a board record needs four values per seat, got {x!r}")
    return (v[0], v[1], v[2], v[3])


@dataclass(frozen=True)
class Board:
    """One played deal. Seats are the deal's (seat 0 called first and led); ``players`` are the
    labels of the players at seats 0..3; ``scores`` and ``totals_before`` are tenths; ``ms``
    the milliseconds of each seat's decisions (its call, then its cards). ``deal_index`` and
    ``rotation`` place the board in its tournament (the deal's number and which rotation of
    the hands over the players); ``deal_number`` is the deal's number in its match (1..)."""

    deal: Deal
    rules: Ruleset
    players: tuple[str, str, str, str]
    calls: tuple[int, int, int, int]
    plays: str
    tricks: tuple[int, int, int, int]
    scores: tuple[int, int, int, int]
    faults: tuple[Fault, ...] = ()
    ms: tuple[tuple[float, ...], ...] = ((), (), (), ())
    deal_index: int = 0
    rotation: int = 0
    deal_number: int = 1
    totals_before: tuple[int, int, int, int] = (0, 0, 0, 0)
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    # --- opening it with the lab's tools -----------------------------------------------------
    def position(self, cards: int | None = None) -> Position:
        """The position after the first ``cards`` cards of the play (all of them by default)."""
        from callbreak_lab.game import parse_record

        played = parse_record(self.plays)
        return Position.replay(self.deal, played if cards is None else played[:cards], self.rules)

    def analyse(self) -> Review:
        """The double-dummy review of every card played (``analysis.review.analyse_play``)."""
        return analyse_play(self.deal, self.plays, self.rules, calls=list(self.calls))

    def review(
        self,
        *,
        layouts: int = 32,
        seed: int = 0,
        seats: Iterable[int] | None = None,
        time_limit: float | None = None,
        progress: Progress | None = None,
    ) -> SingleDummyReview:
        """The single-dummy review of every card played (``analysis.review.review_play``; its
        viewer in a notebook: ``widgets.board_viewer``)."""
        return review_play(
            self.deal, self.plays, self.rules, calls=self.calls, layouts=layouts, seed=seed,
            seats=seats, time_limit=time_limit, progress=progress,
        )  # fmt: skip

    def analyse_command(self) -> str:
        """The ``callbreak-lab analyse`` command line that reviews this board."""
        calls = ",".join(map(str, self.calls))
        return (
            f"callbreak-lab analyse --rules {shlex.quote(self.rules.name)} "
            f"{shlex.quote(str(self.deal))} --plays {shlex.quote(self.plays)} --calls {calls}"
        )

    # --- text and JSON -------------------------------------------------------------------------
    def text(self) -> str:
        """A few lines: the deal, who sat where, calls, tricks, scores and faults."""
        rows = [
            f"board: deal {self.deal_index} rotation {self.rotation} ({self.rules.name}): "
            f"{self.deal}"
        ]
        for s in range(4):
            rows.append(
                f"  seat {s} {self.players[s]}: call {self.calls[s]}, tricks {self.tricks[s]}, "
                f"score {format_tenths(self.scores[s])}"
            )
        rows.append(f"  plays: {self.plays}")
        rows += [f"  fault: {f.text()}" for f in self.faults]
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the record file's content."""
        return {
            "format": FORMAT,
            "deal": str(self.deal),
            "rules": self.rules.name,
            "ruleset": self.rules.to_dict(),
            "players": list(self.players),
            "calls": list(self.calls),
            "plays": self.plays,
            "tricks": list(self.tricks),
            "scores": [format_tenths(x) for x in self.scores],
            "scores_tenths": list(self.scores),
            "faults": [f.to_dict() for f in self.faults],
            "ms": [list(m) for m in self.ms],
            "deal_index": self.deal_index,
            "rotation": self.rotation,
            "deal_number": self.deal_number,
            "totals_before_tenths": list(self.totals_before),
            "seed": self.seed,
            "analyse": self.analyse_command(),
            **self.extra,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Board:
        """A board from ``to_dict``'s content (a RecordError when it is not one)."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f"not an arena board record (format {FORMAT})")
        try:
            rules = Ruleset.from_dict(data["ruleset"])
            board = cls(
                deal=Deal.parse(data["deal"]),
                rules=rules,
                players=tuple(str(p) for p in data["players"]),  # type: ignore[arg-type]
                calls=_four(data["calls"]),
                plays=str(data["plays"]),
                tricks=_four(data["tricks"]),
                scores=_four(data["scores_tenths"]),
                faults=tuple(Fault.from_dict(f) for f in data["faults"]),
                ms=tuple(tuple(float(x) for x in m) for m in data["ms"]),
                deal_index=int(data["deal_index"]),
                rotation=int(data["rotation"]),
                deal_number=int(data["deal_number"]),
                totals_before=_four(data["totals_before_tenths"]),
                seed=int(data["seed"]),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise RecordError(f"a board record with a missing or bad field: {e}") from None
        if len(board.players) != 4:
            raise RecordError("a board record names four players")
        board.position()  # the play record replays under the rules
        return board

    def identity(self) -> tuple[Any, ...]:
        """What makes it the same board of the same tournament (the result may differ)."""
        return board_identity(
            self.deal, self.rules, self.players, self.seed, self.deal_index, self.rotation
        )


def board_identity(
    deal: Deal,
    rules: Ruleset,
    players: tuple[str, ...],
    seed: int,
    deal_index: int,
    rotation: int,
) -> tuple[Any, ...]:
    """The identity of a board (``Board.identity``), also for a board not played yet."""
    return (str(deal), rules, tuple(players), int(seed), int(deal_index), int(rotation))


def record_name(deal_index: int, rotation: int) -> str:
    """The record file's name: ``board-00012-r3.json``."""
    return f"board-{deal_index:05d}-r{rotation}.json"


def load_record(path: str | Path) -> Board:
    """A board record file (a RecordError when it cannot be read as one)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RecordError(f"cannot read the board record {path}: {e}") from None
    return Board.from_dict(data)


def check_record_slot(directory: Path, identity: tuple[Any, ...]) -> Path:
    """The path the record of the board with ``identity`` (``board_identity``) goes to; a
    UsageError when a record of another board is there already."""
    path = directory / record_name(identity[4], identity[5])
    if path.exists():
        try:
            old: Board | None = load_record(path)
        except RecordError:
            old = None
        if old is None or old.identity() != identity:
            raise UsageError(
                f"{path} holds another board (another tournament's); use another records "
                "directory or remove it"
            )
    return path


def write_record(directory: str | Path, board: Board) -> Path:
    """Write ``board``'s record into ``directory`` atomically; returns its path."""
    path = check_record_slot(Path(directory), board.identity())
    text = json.dumps(board.to_dict(), ensure_ascii=False, indent=1) + "\n"
    with atomic_open(path, suffix=".json") as f:
        f.write(text.encode("utf-8"))
    return path
