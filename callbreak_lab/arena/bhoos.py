"""Conversion from the Bhoos bot protocol (described in docs/bhoos-protocol.md).

Cards are rank then suit with ``1`` for the ace (``1S``), optionally followed by a deck suffix
(``1C/0``). A ``history`` entry is ``[start index, [four cards in play order starting from the
player at start index], winner index]``, indices into ``playerIds``; the player at index
``(start + k) % 4`` plays the ``k``-th card. The protocol's game uses the ``online`` rules.

Seat mapping: deal seat 0 is the player who led the first trick, so deal seat ``s`` is protocol
index ``(first_start + s) % 4`` (``BhoosGame.seat_of`` / ``index_of``). The converted play record
(``BhoosGame.record``) is in the play-record notation of ``game.parse_record``.

The protocol stops here: ``knowledge_of_request`` reads a ``/play`` request into the seat
layer's ``Knowledge`` (what the service's bot and the arena's players judge from) and
``review_bhoos`` reads a bot's requests into the plays that ``analysis.review.review_seat``
judges; the layers below take those objects and know nothing of the protocol.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from callbreak_lab.cards import Card, Hand, check_seat
from callbreak_lab.errors import (
    CardError,
    HandError,
    IllegalPlayError,
    NotationError,
    RecordError,
    StandingError,
    check_int,
)
from callbreak_lab.rules import Ruleset, tenths_of_points, trick_winner
from callbreak_lab.seat.knowledge import Knowledge
from callbreak_lab.util.progress import Progress

if TYPE_CHECKING:
    from callbreak_lab.analysis.review import SingleDummyReview

__all__ = [
    "BhoosGame",
    "BhoosTrick",
    "bid_standing",
    "card_to_bhoos",
    "convert_request",
    "earlier_calls",
    "history_from_record",
    "knowledge_of_request",
    "parse_bhoos_card",
    "parse_history",
    "player_id",
    "read_requests",
    "review_bhoos",
]

_CARD = re.compile(r"^([2-9TJQK1])([SHDC])(?:/(\d+))?$")


def parse_bhoos_card(text: object) -> Card:
    """``1S`` -> the ace of spades; ``TD/0`` -> ten of diamonds (deck suffix ignored)."""
    if not isinstance(text, str):
        raise CardError(f"a Bhoos card is a string like '1S' or 'TD/0', got {text!r}")
    m = _CARD.match(text.strip().upper())
    if not m:
        raise CardError(
            f"bad Bhoos card {text!r}: rank 2-9 T J Q K or 1 (ace), suit S H D C, optional '/n'"
        )
    rank, suit = m.group(1), m.group(2)
    return Card.parse(("A" if rank == "1" else rank) + suit)


def card_to_bhoos(card: Card | int | str, suffix: bool = True) -> str:
    """The Bhoos text of a card: ``1S/0`` (``suffix=False``: ``1S``)."""
    c = Card.parse(card)
    text = ("1" if c.rank == 12 else c.rank_char) + "CDHS"[c.suit]
    return text + "/0" if suffix else text


@dataclass(frozen=True)
class BhoosTrick:
    """One history entry: the start index, four cards in play order, the winner index."""

    start: int
    cards: tuple[Card, Card, Card, Card]
    winner: int

    def to_json(self, suffix: bool = True) -> list[Any]:
        """Back to the protocol's ``[start, [cards], winner]`` form."""
        return [self.start, [card_to_bhoos(c, suffix) for c in self.cards], self.winner]


def _index(value: object, what: str) -> int:
    """A protocol player index 0..3 (checked like a seat: a SeatError naming ``what``)."""
    return check_seat(value, f"{what} (a player index)")


def parse_history(history: object, check_voids: bool = True) -> list[BhoosTrick]:
    """Validate and read a ``history`` list.

    Checks: each entry is ``[start, [4 cards], winner]`` and no card appears twice (else a
    NotationError); each trick after the first is led by the previous winner, the recorded winner
    is the rules' trick winner and, with ``check_voids``, nobody follows a suit it showed void in
    (else an IllegalPlayError).
    """
    if not isinstance(history, list):
        raise NotationError(f"history must be a list of tricks, got {type(history).__name__}")
    if len(history) > 13:
        raise NotationError(f"history has {len(history)} tricks; a deal has 13")
    out: list[BhoosTrick] = []
    seen: dict[Card, int] = {}
    void: dict[int, set[int]] = {i: set() for i in range(4)}
    for k, entry in enumerate(history):
        where = f"history trick {k + 1}"
        start, cards, winner = _read_entry(entry, where)
        for c in cards:
            if c in seen:
                raise NotationError(f"{where}: card {c} was already played in trick {seen[c] + 1}")
            seen[c] = k
        if out and start != out[-1].winner:
            raise IllegalPlayError(
                f"{where}: starts at index {start} but index {out[-1].winner} won the last trick"
            )
        expected = (start + trick_winner(cards)) % 4
        if winner != expected:
            shown = " ".join(str(c) for c in cards)
            raise IllegalPlayError(
                f"{where} ({shown}, started by index {start}): recorded winner index {winner}, "
                f"but the rules give index {expected} ({cards[trick_winner(cards)]} wins)"
            )
        led = cards[0].suit
        for i, c in enumerate(cards):
            player = (start + i) % 4
            if check_voids and c.suit in void[player]:
                raise IllegalPlayError(
                    f"{where}: index {player} plays {c} after showing void in {c.suit.plural}"
                )
            if i and c.suit != led:
                void[player].add(led)
        out.append(BhoosTrick(start, cards, winner))
    return out


def _read_entry(entry: object, where: str) -> tuple[int, tuple[Card, Card, Card, Card], int]:
    """``(start, cards, winner)`` of one ``history`` entry, its shape and values checked (the
    checks across tricks are ``parse_history``'s)."""
    if not isinstance(entry, list | tuple) or len(entry) != 3:
        raise NotationError(f"{where}: expected [start, [4 cards], winner], got {entry!r}")
    start = _index(entry[0], f"{where}: start")
    raw = entry[1]
    if not isinstance(raw, list | tuple) or len(raw) != 4:
        raise NotationError(f"{where}: expected a list of 4 cards, got {raw!r}")
    try:
        c0, c1, c2, c3 = (parse_bhoos_card(c) for c in raw)
    except CardError as e:
        raise CardError(f"{where}: {e}") from None
    return start, (c0, c1, c2, c3), _index(entry[2], f"{where}: winner")


def history_from_record(
    cards: Sequence[Card | int | str], first_start: int, suffix: bool = True
) -> list[list[Any]]:
    """Complete tricks of a play (deal seat order, cards in play order) as a protocol
    ``history``, with deal seat 0 at protocol index ``first_start``."""
    start = _index(first_start, "first_start")
    cs = [Card.parse(c) for c in cards]
    out: list[list[Any]] = []
    leader = 0
    for k in range(len(cs) // 4):
        trick = cs[4 * k : 4 * k + 4]
        winner = (leader + trick_winner(trick)) % 4
        out.append(
            BhoosTrick(
                (leader + start) % 4, (trick[0], trick[1], trick[2], trick[3]),
                (winner + start) % 4,
            ).to_json(suffix)
        )  # fmt: skip
        leader = winner
    return out


@dataclass(frozen=True)
class BhoosGame:
    """A converted request: the play so far in deal seats, plus the seat mapping."""

    player_ids: tuple[str, ...]
    first_start: int  # protocol index of deal seat 0 (the first trick's leader)
    tricks: tuple[BhoosTrick, ...]
    played: tuple[Card, ...]  # the trick in progress, in play order
    me: int | None  # protocol index of the requesting bot, when known
    hand: Hand | None  # its current hand, when given

    def seat_of(self, index: int) -> int:
        """Deal seat of protocol index ``index``."""
        return (_index(index, "index") - self.first_start) % 4

    def index_of(self, seat: int) -> int:
        """Protocol index of deal seat ``seat``."""
        return (_index(seat, "seat") + self.first_start) % 4

    @property
    def seat_map(self) -> dict[int, int]:
        """``{protocol index: deal seat}``."""
        return {i: self.seat_of(i) for i in range(4)}

    @property
    def cards(self) -> list[Card]:
        """Every card played so far in play order (finished tricks, then the current one)."""
        return [c for t in self.tricks for c in t.cards] + list(self.played)

    @property
    def record(self) -> str:
        """The play so far as a play record (``AS 2S 5S KS | QH ...``)."""
        cs = [str(c) for c in self.cards]
        return " | ".join(" ".join(cs[i : i + 4]) for i in range(0, len(cs), 4))

    @property
    def my_seat(self) -> int | None:
        """Deal seat of the requesting bot."""
        return None if self.me is None else self.seat_of(self.me)

    def original_hand(self) -> Hand | None:
        """The requesting bot's 13 cards: its current hand plus the cards it has played."""
        if self.hand is None or self.me is None:
            return None
        me = self.me
        mine = [c for t in self.tricks for i, c in enumerate(t.cards) if (t.start + i) % 4 == me]
        return self.hand | Hand.from_cards(mine)

    def check_own_plays(self, rules: Ruleset | str = "online") -> None:
        """Raise IllegalPlayError unless each card the requesting bot played was legal from its
        known hand under ``rules`` (the other hands are unknown, so only its own plays)."""
        r = Ruleset.coerce(rules)
        hand = self.original_hand()
        if hand is None:
            raise NotationError("the request has no playerId or cards: the bot's hand is unknown")
        if len(hand) != 13:
            raise HandError(f"the bot's cards plus its plays make {len(hand)} cards, not 13")
        for k, t in enumerate(self.tricks):
            i = (self.me - t.start) % 4 if self.me is not None else 0
            legal = r.legal_cards_with_reasons(hand, t.cards[:i], k == 0)
            c = t.cards[i]
            if c not in legal.legal:
                raise IllegalPlayError(
                    f"history trick {k + 1}: the bot's {c} is not legal under {r.name}: "
                    f"{legal.excluded[c]}"
                )
            hand = hand - c

    def history(self, suffix: bool = True) -> list[list[Any]]:
        """The finished tricks back in protocol form (round-trips ``parse_history``)."""
        return [t.to_json(suffix) for t in self.tricks]


def convert_request(request: Mapping[str, Any]) -> BhoosGame:
    """Convert one ``/play`` request body (``history``, ``played``, optional ``playerIds``,
    ``playerId``, ``cards``) into a ``BhoosGame``. With no finished trick, the first trick's
    leader is the player who played the first ``played`` card: index
    ``(me - len(played)) % 4`` (needs ``playerId``), else 0."""
    if not isinstance(request, Mapping):
        raise NotationError(f"a request is a JSON object, got {type(request).__name__}")
    ids, me_id, me = _read_players(request)
    tricks = parse_history(request.get("history", []))
    done = {c for t in tricks for c in t.cards}
    played = _read_played(request.get("played", []), done)
    hand = _read_hand(request["cards"], {*done, *played}) if "cards" in request else None
    if tricks:
        first = tricks[0].start
    elif me is not None:
        first = (me - len(played)) % 4
    else:
        first = 0
    if me is not None:
        leader = tricks[-1].winner if tricks else first
        if (leader + len(played)) % 4 != me:
            raise IllegalPlayError(
                f"it is index {(leader + len(played)) % 4}'s turn, not {me} ({me_id})"
            )
    return BhoosGame(ids, first, tuple(tricks), played, me, hand)


def _read_players(request: Mapping[str, Any]) -> tuple[tuple[str, ...], object, int | None]:
    """``(playerIds, the playerId given or None, its index or None)`` of a request."""
    ids_raw = request.get("playerIds", ["0", "1", "2", "3"])
    if not isinstance(ids_raw, list) or len(ids_raw) != 4:
        raise NotationError(f"playerIds must list 4 players, got {ids_raw!r}")
    ids = tuple(str(x) for x in ids_raw)
    me_id = player_id(request)
    me = ids.index(str(me_id)) if me_id is not None and str(me_id) in ids else None
    if me_id is not None and me is None:
        raise NotationError(f"playerId {me_id!r} is not in playerIds {list(ids)}")
    return ids, me_id, me


def _read_played(raw: object, done: set[Card]) -> tuple[Card, ...]:
    """The cards of the trick in progress (``played``), none of them in ``done`` or twice."""
    if not isinstance(raw, list) or len(raw) > 3:
        raise NotationError(f"played must list 0..3 cards, got {raw!r}")
    try:
        played = tuple(parse_bhoos_card(c) for c in raw)
    except CardError as e:
        raise CardError(f"played: {e}") from None
    again = [c for c in played if c in done]
    if again or len(set(played)) != len(played):
        raise NotationError(f"played: card {(again or list(played))[0]} appears twice")
    return played


def _read_hand(raw: object, gone: set[Card]) -> Hand:
    """The bot's hand (``cards``), none of it among the cards ``gone`` (already played)."""
    if not isinstance(raw, list):
        raise HandError(f"cards: a list of Bhoos cards, got {raw!r}")
    try:
        hand = Hand.from_cards(parse_bhoos_card(c) for c in raw)
    except NotationError as e:
        raise HandError(f"cards: {e}") from None
    clash = hand & Hand.from_cards(gone)
    if clash:
        raise HandError(f"cards: {clash.card_list()} held but already played")
    return hand


def read_requests(text: str) -> Iterator[dict[str, Any]]:
    """JSON objects written one after another (``}{``), as in the recorded traffic."""
    dec = json.JSONDecoder()
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return
        try:
            obj, i = dec.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise NotationError(f"bad JSON at character {e.pos}: {e.msg}") from None
        if not isinstance(obj, dict):
            raise NotationError(
                f"expected a JSON object at character {i}, got {type(obj).__name__}"
            )
        yield obj


# --- the request's context: who we are, the calls made, the standing ---------------------------


def player_id(request: Mapping[str, Any]) -> Any:
    """The requesting player's id: ``playerId``, else ``id`` (older bodies); None without
    either."""
    pid = request.get("playerId")
    return pid if pid is not None else request.get("id")


def _context_players(request: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``context.players`` ({player id: info}) of a request, None when it has none."""
    ctx = request.get("context")
    players = ctx.get("players") if isinstance(ctx, Mapping) else None
    return players if isinstance(players, Mapping) else None


def _bid_of(info: object) -> int | None:
    """The call a context player has made: None while it has not (``bid`` missing, 0 or not a
    number: online calls are at least 1), the call when ``bid`` is a whole number above 0, -1
    for a positive number that is not whole (a call no ruleset allows)."""
    bid = info.get("bid") if isinstance(info, Mapping) else None
    if isinstance(bid, bool) or not isinstance(bid, int | float) or not bid > 0:
        return None
    return int(bid) if float(bid).is_integer() else -1


def earlier_calls(request: Mapping[str, Any]) -> list[int]:
    """The calls the other players have already made (``context.players[*].bid``, see
    ``_bid_of``), in the order the context lists them, at most three; without a context, none.
    Their number is the requesting player's calling seat; only their number, sum and largest
    value reach the bid model, so their order does not matter."""
    players = _context_players(request)
    if players is None:
        return []
    me = player_id(request)
    found = [_bid_of(info) for pid, info in players.items() if pid != me]
    return [b for b in found if b is not None][:3]


def bid_standing(body: Mapping[str, Any]) -> tuple[tuple[int, int, int, int], int] | None:
    """The match standing of a ``/bid`` request's ``context``: the four totals in tenths by
    calling seat of this deal, and the deal's number (``round``), or None when the context
    does not carry them (no ``round``, or not every player's ``totalPoints``).

    The calling seats follow the bids already made, as the bot reads them: the players whose
    ``bid`` is above 0 called first (seats ``0..``, in the order the context lists them), then
    the bot, then the others. Totals are points (``4.199999999999999`` is read as 4.2). A
    ``round`` or a total that is there but not a number of the right kind is a
    ``StandingError``."""
    ctx = body.get("context")
    if not isinstance(ctx, Mapping) or "round" not in ctx:
        return None
    players = _context_players(body)
    me = player_id(body)
    if players is None or me not in players or len(players) != 4:
        return None
    infos = list(players.items())
    if not all(isinstance(info, Mapping) and "totalPoints" in info for _, info in infos):
        return None
    number = check_int(ctx["round"], "context.round", error=StandingError)
    order = [
        *(pid for pid, info in infos if pid != me and _bid_of(info) is not None),
        me,
        *(pid for pid, info in infos if pid != me and _bid_of(info) is None),
    ]
    t = [
        tenths_of_points(players[pid]["totalPoints"], f"context.players.{pid}.totalPoints")
        for pid in order
    ]
    return (t[0], t[1], t[2], t[3]), number


# --- the protocol read into the seat's and the review's objects -----------------------------------


def _standing(
    request: Mapping[str, Any], seat_of: Any, rules: Ruleset
) -> tuple[tuple[int, int, int, int] | None, int | None]:
    """The match totals (tenths, by library seat) and the deals left after this one from a
    Bhoos request's ``context`` (``round`` 1.., ``players[id].totalPoints``); None for what it
    does not say in full."""
    ctx = request.get("context")
    ids = request.get("playerIds")
    if not isinstance(ctx, Mapping) or not isinstance(ids, list) or len(ids) != 4:
        return None, None
    players = _context_players(request)
    totals: list[int] = [0, 0, 0, 0]
    known = players is not None
    for p, pid in enumerate(ids):
        info = players.get(pid) if players is not None else None
        points = info.get("totalPoints") if isinstance(info, Mapping) else None
        try:
            totals[seat_of(p)] = tenths_of_points(points)
        except StandingError:  # a total that is not a number of tenths: the standing is unknown
            known = False
            break
    round_ = ctx.get("round")
    left = None
    if (
        rules.match_deals is not None
        and isinstance(round_, int)
        and not isinstance(round_, bool)
        and 1 <= round_ <= rules.match_deals
    ):
        left = rules.match_deals - round_
    return ((totals[0], totals[1], totals[2], totals[3]) if known else None), left


def knowledge_of_request(
    request: Mapping[str, Any],
    rules: Ruleset | str | None = None,
    *,
    game: BhoosGame | None = None,
) -> Knowledge:
    """What the requesting bot knows from a Bhoos ``/play`` request body (``cards``,
    ``history``, ``played``, ``playerIds``, ``playerId``, ``context``): seats are the
    deal's (seat 0 led the first trick, ``convert_request``), the calls those of
    ``context.players[id].bid`` (1..13; others unknown), the standing that of ``context``
    (``round``, ``players[id].totalPoints``). ``rules``: default ``rules.DEFAULT_RULES``
    (``online``, the protocol's game). A ``NotationError`` (or one of its kind) names the field
    that does not add up. ``game``: the request already converted (``convert_request``), so
    that it is read once."""
    r = Ruleset.coerce(rules)
    game = convert_request(request) if game is None else game
    hand = game.original_hand()
    if hand is None or game.me is None or game.hand is None:
        raise RecordError("the request does not say which player we are (playerId, cards)")
    seat = game.seat_of(game.me)
    calls: list[int | None] = [None] * 4
    ids = request.get("playerIds")
    players = _context_players(request)
    if isinstance(ids, list) and players is not None:
        for p, pid in enumerate(ids):
            bid = _bid_of(players.get(pid))
            if bid is not None and 1 <= bid <= 13:
                calls[game.seat_of(p)] = bid
    history = []
    for t in game.tricks:
        start = game.seat_of(t.start)
        history += [((start + i) % 4, c) for i, c in enumerate(t.cards)]
    leader = game.seat_of(game.tricks[-1].winner) if game.tricks else 0
    history += [((leader + i) % 4, c) for i, c in enumerate(game.played)]
    k = Knowledge.from_history(r, seat, game.hand.mask, history, calls)
    k.totals, k.deals_left = _standing(request, game.seat_of, r)
    return k


def _context_calls(request: Mapping[str, Any], ids: Sequence[str], first: int) -> list[int] | None:
    """The calls of a request's ``context.bids`` (by player id) in deal seats, if all four."""
    ctx = request.get("context")
    bids = ctx.get("bids") if isinstance(ctx, Mapping) else None
    if not isinstance(bids, Mapping):
        return None
    try:
        by_index = [int(bids[pid]) for pid in ids]
    except (KeyError, TypeError, ValueError):
        return None
    return [by_index[(s + first) % 4] for s in range(4)]


def review_bhoos(
    requests: Sequence[Mapping[str, Any]],
    *,
    calls: Iterable[int] | str | None = None,
    layouts: int = 32,
    seed: int = 0,
    progress: Progress | None = None,
) -> list[SingleDummyReview]:
    """Reviews of the games in Bhoos ``/play`` requests (as a game server sent them to one bot):
    the requests are grouped into deals by the bot's 13 cards, and each deal's latest request
    gives the play so far; the bot's own cards are judged (``analysis.review.review_seat``: the
    other hands are never known in full, so double-dummy values are None). ``calls`` (deal
    seats: seat 0 led the first trick) override the requests' ``context.bids``; with neither,
    the cards are judged by tricks. ``progress(done, total)`` is called after each judged card
    of a deal."""
    from callbreak_lab.analysis.review import review_seat

    latest: dict[int, tuple[BhoosGame, Mapping[str, Any]]] = {}  # by the bot's 13 cards
    for i, req in enumerate(requests):
        game = convert_request(req)
        hand = game.original_hand()
        if hand is None or len(hand) != 13:
            raise RecordError(f"request {i + 1}: no playerId and cards: the bot's hand is unknown")
        key = int(hand.mask)
        if key not in latest or len(game.cards) >= len(latest[key][0].cards):
            latest[key] = (game, req)  # dicts keep the order of the deals' first requests
    out = []
    for key, (game, req) in latest.items():
        seat = game.my_seat
        assert seat is not None and game.hand is not None
        given = (
            calls if calls is not None else _context_calls(req, game.player_ids, game.first_start)
        )
        out.append(
            review_seat(
                game.cards, seat, Hand(key), calls=given, rules="online", layouts=layouts,
                seed=seed, progress=progress,
            )
        )  # fmt: skip
    return out
