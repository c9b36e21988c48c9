"""The analysis board's controller (``widgets.board_controller``): a pasted deal and record,
refused text named by its box, the link's round trip, branches and a review's mistake tried
again. The page itself is driven in ``test_browser_board.py``."""

from __future__ import annotations

import pytest

from callbreak_lab import Deal, Hand, Position, Ruleset, play_out, random_player
from callbreak_lab.analysis.lines import judged_step
from callbreak_lab.errors import FieldError
from callbreak_lab.widgets.board_controller import AnalysisBoard, BoardSpec
from callbreak_lab.widgets.page import page_query, page_url

RULES = Ruleset.preset("online")
DEAL = Deal.seeded(3, 0)
#: a whole deal played by seeded random cards (mistakes to find)
RECORD = play_out(Position(DEAL, RULES), random_player(1)).record()
CALLS = "3,4,2,3"
#: the deal with seat 0's first card swapped for one of seat 1's: a card in two hands
TWICE = " ".join(
    str(h) for h in (Hand.from_cards([*list(DEAL[0])[1:], next(iter(DEAL[1]))]), *DEAL.hands[1:])
)


def _board(step: int | None = None) -> AnalysisBoard:
    return AnalysisBoard(BoardSpec.parse(str(DEAL), RECORD, CALLS, "online", step=step))


def test_a_pasted_deal_and_record_give_the_records_positions() -> None:
    # any notation: the deal by '/'-separated symbol hands, the record without '|'
    spec = BoardSpec.parse(DEAL.symbols(), RECORD.replace(" | ", " "), " 3, 4,2,3 ", "online")
    assert spec.deal == DEAL and len(spec.record) == 52 and spec.calls == (3, 4, 2, 3)
    assert spec.step == 52  # no step given: the record's end
    assert spec.record_text == RECORD
    board = AnalysisBoard(replace_step(spec, 44))
    assert board.position == Position.replay(DEAL, spec.record[:44], RULES)
    st = board.values()
    assert st is not None and st.card == spec.record[44] and st.seat == board.position.to_move
    assert set(st.values) == set(board.position.legal_cards())
    board.next()
    assert board.step == 45 and board.position == Position.replay(DEAL, spec.record[:45], RULES)
    board.go(99)
    assert board.step == 52 and board.values() is None and "deal over" in board.describe()


def replace_step(spec: BoardSpec, step: int) -> BoardSpec:
    from dataclasses import replace

    return replace(spec, step=step)


@pytest.mark.parametrize(
    ("boxes", "field", "words"),
    [
        ({"deal": ""}, "deal", "empty"),
        ({"deal": "AKQ.J.T.9"}, "deal", "four hands"),
        ({"deal": TWICE}, "deal", "in both seat 0 and seat 1"),
        ({"record": "AS KS"}, "record", "does not hold"),
        ({"record": "6H 8H 5H | QH"}, "record", "'|' must separate complete tricks"),
        ({"record": "6H 8H ZZ"}, "record", "card 3"),
        ({"calls": "3,4"}, "calls", "one value per seat"),
        ({"calls": "3,4,2,99"}, "calls", "seat 3 called 99"),
        ({"rules": "nope"}, "rules", "unknown ruleset"),
        ({"step": "53"}, "step", "0..52"),
        ({"step": "x"}, "step", "step"),
    ],
)
def test_bad_text_is_refused_naming_its_box(boxes: dict[str, str], field: str, words: str) -> None:
    args = {"deal": str(DEAL), "record": RECORD, "calls": CALLS, "rules": "online"}
    args.update(boxes)
    step = args.pop("step", None)
    with pytest.raises(FieldError) as err:
        BoardSpec.parse(args["deal"], args["record"], args["calls"], args["rules"], step=step)
    assert err.value.loc == (field,)
    assert str(err.value).startswith(f"{field}: ") and words in str(err.value)
    # the board says the same and keeps what it showed
    board = _board(step=44)
    assert not board.load(args["deal"], args["record"], args["calls"], args["rules"], step=step)
    assert board.message == str(err.value) and board.step == 44


def test_the_link_round_trips_the_position_and_step() -> None:
    board = _board(step=41)
    query = board.current_spec().to_query()  # type: ignore[union-attr]
    assert "%" not in query  # nothing escaped: a link a person can read
    assert query.startswith("deal=") and "&step=41" in query and "&calls=3,4,2,3&" in query
    again = AnalysisBoard()
    assert again.open_query("?" + query)
    assert again.spec == board.spec and again.step == 41
    assert again.position == board.position
    link = board.link("http://127.0.0.1:8866/voila/render/09_analysis_board.ipynb")
    assert link == "http://127.0.0.1:8866/voila/render/09_analysis_board.ipynb?" + query
    # a link without calls and with extra keys Voilà may add
    spec = BoardSpec.parse(str(DEAL), "6H 8H 5H QH", None, "modern", step=2)
    assert BoardSpec.from_query(spec.to_query() + "&voila-template=lab") == spec
    assert not again.open_query("record=6H")
    assert again.message.startswith("deal: the link has no deal") and again.step == 41


def test_the_page_query_and_address_come_from_voilas_variables() -> None:
    env = {
        "QUERY_STRING": "deal=x&step=3",
        "VOILA_REQUEST_URL": "http://h:1/voila/render/09_analysis_board.ipynb?deal=x&step=3",
    }
    assert page_query(env) == "deal=x&step=3"
    assert page_url(env) == "http://h:1/voila/render/09_analysis_board.ipynb"
    assert page_query({}) == "" and page_url({}) == ""


def test_a_branch_plays_on_from_another_card_and_its_link_reopens_it() -> None:
    board = _board(step=40)
    st = board.values()
    assert st is not None
    other = next(c for c in sorted(st.values) if c != st.card)
    assert board.play(other)
    b = board.branch
    assert b is not None and b.at == 40 and b.card == other
    assert board.cards[:40] == board.spec.record[:40] and board.cards[40] == other  # type: ignore[union-attr]
    assert board.length == 52 and board.step == 41
    assert "on a branch from card 41" in board.describe()
    assert board.note.startswith(other.symbol())
    value = st.values[other]
    good = "a best card" in board.note or "as good as the best" in board.note
    assert good == (value == st.best)
    # the branch's decisions carry the play-out's values; the last card ends the deal
    board.go(51)
    last = board.values()
    assert last is not None and last.card == board.cards[51]
    # its link reopens the branch's cards as a record at the same step
    again = AnalysisBoard()
    assert again.open_query(board.current_spec().to_query())  # type: ignore[union-attr]
    assert again.position == board.position and again.cards == board.cards
    # an illegal card is refused with the reason; back to the record
    board.go(41)
    held = board.position.hand(board.position.to_move)
    foreign = next(c for c in DEAL[(board.position.to_move + 1) % 4] if c not in held)
    assert not board.play(foreign) and "does not hold" in board.message
    board.back_to_record()
    assert board.branch is None and board.cards == board.spec.record  # type: ignore[union-attr]


def test_a_card_played_at_the_records_end_extends_it() -> None:
    board = AnalysisBoard()
    assert board.random_deal(5, 2, "online")
    assert board.spec is not None and board.spec.deal == Deal.seeded(5, 2)
    assert board.at_record_end() and board.values() is not None
    for _ in range(5):
        st = board.values()
        assert st is not None
        board.play(st.card)
    assert len(board.spec.record) == 5 and board.step == 5 and board.branch is None


@pytest.mark.slow  # the review solves every card of the record double-dummy
def test_a_reviewed_mistake_opens_its_position_and_judges_the_card_tried() -> None:
    board = _board()
    board.layouts = 8
    first = 40  # the last three tricks: quick to judge
    # the record holds a double-dummy mistake there: the review finds a costly card
    pos = Position.replay(DEAL, board.spec.record[:first], RULES)  # type: ignore[union-attr]
    lost = []
    for i, card in enumerate(board.spec.record[first:], first):  # type: ignore[union-attr]
        st = judged_step(pos, i, card)
        lost.append(st.best - st.value)
    assert max(lost) >= 1
    review = board.review(first=first)
    assert review is not None and board.message == ""
    mistakes = board.mistakes()
    assert mistakes and all(m.index >= first and m.cost > review.threshold for m in mistakes)
    m = mistakes[0]
    assert board.open_mistake(m.index)
    assert board.step == m.index and board.branch is None and board.trying == m
    assert board.position == Position.replay(DEAL, board.spec.record[: m.index], RULES)  # type: ignore[union-attr]
    assert m.sd is not None
    best = m.sd.best
    assert board.play(best)
    assert board.note.startswith(f"{best.symbol()} is the best card at the table")
    assert board.branch is not None and board.branch.at == m.index
    # again, with the card that was played: not the best
    assert board.open_mistake(m.index)
    assert board.play(m.card)
    assert "is not the best" in board.note and f"{m.cost:.2f}" in board.note
    # after the deal: the record replayed, the mistake's seat's expected score from the review
    after = board.after_deal(m.seat)
    assert after is not None and after.length == 52 and after.review is review
    assert [cv.index for cv in after.values()] == [
        j.index for j in review.cards if j.seat == m.seat
    ]
    assert not board.open_mistake(3)  # not judged (before ``first``)
    assert "was not judged" in board.message
