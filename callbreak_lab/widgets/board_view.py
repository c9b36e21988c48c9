"""ipywidgets view of the analysis board (wiring only; the state is
``board_controller.AnalysisBoard``).

The boxes take a deal, a play record, the calls and the rules (or a seeded random deal); the
table (``render.svg.table_svg``) shows the position at the step with each legal card's value;
the buttons below it step, and a legal card's button plays it (branching away from the record,
or extending the record at its end). "link to this position" is the page's address with the
board's query (``widgets.page.page_url``). "review the play" lists the review's mistakes, each a
button that opens its position to try again; "study the double-dummy line from here" opens the
play-line viewer (``play_views.PlayLineView``) on the position shown.
"""

from __future__ import annotations

import threading
from html import escape

import ipywidgets as W

from callbreak_lab.cards import Card
from callbreak_lab.render.style import PLAYED, suit_color
from callbreak_lab.render.svg import table_svg
from callbreak_lab.rules import PRESETS
from callbreak_lab.widgets import views as v
from callbreak_lab.widgets.board_controller import AnalysisBoard
from callbreak_lab.widgets.page import page_query, page_url

__all__ = ["AnalysisBoardView", "analysis_board"]

#: the review's seats: all four, or one
REVIEW_SEATS = [("all four seats", -1)] + [(f"seat {s}", s) for s in range(4)]


class AnalysisBoardView:
    """The analysis board's page (see the module docstring)."""

    def __init__(self, controller: AnalysisBoard, base: str = "") -> None:
        self.controller = c = controller
        #: the page's address, the links' base ('' in Jupyter: the link is its query)
        self.base = base
        spec = c.spec
        self.deal = v.with_classes(
            W.Textarea(
                value="" if spec is None else str(spec.deal),
                description="deal",
                placeholder="four hands, seats 0..3: AKQ2.T98.765.432 …, or one per line",
                layout=W.Layout(width="96%", height="64px"),
            ),
            "cb-board-deal",
        )
        self.record = v.with_classes(
            W.Textarea(
                value="" if spec is None else spec.record_text,
                description="record",
                placeholder="cards played from the start, seat 0 leading: 6H 8H 5H QH | 7C …",
                layout=W.Layout(width="96%", height="64px"),
            ),
            "cb-board-record",
        )
        self.calls = v.make_text(
            "cb-board-calls",
            description="calls",
            value="" if spec is None or spec.calls is None else ",".join(map(str, spec.calls)),
            placeholder="e.g. 3,4,2,3 (optional)",
        )
        self.rules = v.with_classes(
            W.Dropdown(
                options=list(PRESETS),
                value=spec.rules.name if spec is not None else "online",
                description="rules",
            ),
            "cb-board-rules",
        )
        self.open_button = v.make_button(
            "open", "cb-board-open", on_click=self._open, button_style="primary"
        )
        self.seed = v.with_classes(
            W.BoundedIntText(value=1, min=0, max=10**9, description="seed"), "cb-board-seed"
        )
        self.seed.layout.width = "180px"
        self.random_button = v.make_button(
            "random deal", "cb-board-random", on_click=lambda: c.random_deal(self.seed.value)
        )
        self.message = v.make_html("cb-board-message")

        self.prev_button = v.make_button("◀ previous", "cb-board-prev", on_click=c.prev)
        self.next_button = v.make_button("next ▶", "cb-board-next", on_click=c.next)
        self.slider = v.with_classes(
            W.IntSlider(value=0, min=0, max=0, description="card", continuous_update=False),
            "cb-board-step",
        )
        self.slider.observe(lambda ch: c.go(ch["new"]), names="value")
        self.record_button = v.make_button(
            "back to the record", "cb-board-back", on_click=c.back_to_record
        )
        self.bottom = v.with_classes(
            W.Dropdown(options=[(f"seat {s}", s) for s in range(4)], value=0, description="bottom"),
            "cb-board-bottom",
        )
        self.bottom.layout.width = "160px"
        self.bottom.observe(lambda _ch: self.refresh(), names="value")
        self.table = v.make_html("cb-board-table")
        self.info = v.make_html("cb-board-info")
        self.cards_label = v.make_html("cb-board-cards-label")
        self.cards = v.with_classes(
            W.HBox([], layout=W.Layout(flex_flow="row wrap")), "cb-board-cards"
        )
        self.note = v.make_html("cb-board-note")
        self.link = v.make_html("cb-board-link")
        self.link.layout.width = "100%"

        self.review_seats = v.with_classes(
            W.Dropdown(options=REVIEW_SEATS, value=-1, description="review"),
            "cb-board-review-seats",
        )
        self.review_from = v.with_classes(
            W.BoundedIntText(value=1, min=1, max=13, description="from trick"),
            "cb-board-review-from",
        )
        self.review_from.layout.width = "160px"
        self.review_button = v.make_button(
            "review the play", "cb-board-review", on_click=self._review
        )
        self.progress = v.with_classes(
            W.IntProgress(value=0, min=0, max=1, layout=W.Layout(width="240px")),
            "cb-board-progress",
        )
        self.progress.layout.visibility = "hidden"
        self.mistakes_label = v.make_html("cb-board-mistakes-label")
        self.mistakes = v.with_classes(W.VBox([]), "cb-board-mistakes")
        self.line_button = v.make_button(
            "study the double-dummy line from here", "cb-board-line-open", on_click=self._line
        )
        self.line_box = v.with_classes(W.VBox([]), "cb-board-line")
        self.after_button = v.make_button(
            "after the deal: the hands replayed and the expected score",
            "cb-board-after-open",
            on_click=self._after,
        )
        self.after_box = v.with_classes(W.VBox([]), "cb-board-after")

        review_row = [self.review_seats, self.review_from, self.review_button, self.progress]
        step_row = [self.prev_button, self.slider, self.next_button, self.record_button]
        self.widget = v.with_classes(
            W.VBox(
                [
                    self.deal,
                    self.record,
                    W.HBox([self.calls, self.rules, self.open_button]),
                    W.HBox([self.seed, self.random_button]),
                    self.message,
                    W.HBox([*step_row, self.bottom]),
                    self.table,
                    self.info,
                    W.HBox([self.cards_label, self.cards], layout=W.Layout(align_items="center")),
                    self.note,
                    self.link,
                    W.HBox(review_row),
                    self.mistakes_label,
                    self.mistakes,
                    self.after_button,
                    self.after_box,
                    self.line_button,
                    self.line_box,
                ]
            ),
            "cb-analysis-board",
        )
        self._shown = spec
        c.observe(self.refresh)
        self.refresh()

    # --- actions ------------------------------------------------------------------------------
    def _open(self) -> None:
        self.controller.load(self.deal.value, self.record.value, self.calls.value, self.rules.value)

    def _review(self) -> None:
        c = self.controller
        seat = self.review_seats.value
        self.progress.value = 0
        self.progress.layout.visibility = "visible"

        progress = v.bar_progress(self.progress)
        try:
            spec = c.spec
            first = 4 * (self.review_from.value - 1)
            first = min(first, len(spec.record)) if spec is not None else 0
            c.review(seats=None if seat < 0 else [seat], first=first, progress=progress)
        finally:
            self.progress.layout.visibility = "hidden"
        if self.after_box.children:  # shown: now with the review's expected scores
            self._after()

    def _after(self) -> None:
        """The record replayed, four hands face up (``after_deal_view.AfterDealView``): the
        reviewed seat at the bottom when the review judged one seat, else the bottom seat; its
        expected score across the deal is charted once the review judged its cards."""
        from callbreak_lab.widgets.after_deal_view import AfterDealView

        c = self.controller
        r = c.reviewed
        seat = r.seats[0] if r is not None and len(r.seats) == 1 else self.bottom.value
        after = c.after_deal(seat)
        self.after_box.children = [] if after is None else [AfterDealView(after).widget]

    def _line(self) -> None:
        """The play-line viewer on the position shown: the double-dummy line of the seat to
        move (its values and branches are the viewer's own)."""
        from callbreak_lab.widgets.play_controllers import PlayLineViewer
        from callbreak_lab.widgets.play_views import PlayLineView

        c = self.controller
        if c.spec is None or c.position.is_over:
            return
        pos = c.position
        viewer = PlayLineViewer(
            c.spec.deal, pos.to_move, c.spec.rules, calls=c.spec.calls, record=pos.record()
        )
        self.line_box.children = [
            v.make_html(
                value=f"<b>The double-dummy line of seat {pos.to_move} from card "
                f"{c.step + 1}</b> (it maximises its tricks, the other three minimise them):"
            ),
            PlayLineView(viewer).widget,
        ]

    # --- drawing ---------------------------------------------------------------------------------
    def _card_button(self, card: Card, value: int, shown: bool, best: bool) -> W.Button:
        """A legal card and its value; the card shown at the step framed in blue, a best card
        marked ★."""
        c = self.controller
        text = f"{card.symbol()} → {value}" + (" ★" if best else "")
        if c.at_record_end():
            tip = f"play {card.symbol()}: the record goes on with it"
        elif shown:
            tip = f"the card played here: step on with {card.symbol()}"
        else:
            tip = f"play {card.symbol()} instead: the deal is played on from it"
        b = W.Button(
            description=text,
            tooltip=tip,
            layout=W.Layout(
                width="104px", border=f"2px solid {PLAYED}" if shown else "1px solid #aaa"
            ),
        )
        b.style.button_color = "#fff3b0" if shown else "#ffffff"
        b.style.text_color = suit_color(card.suit)
        b.style.font_weight = "bold" if shown else "normal"
        v.with_classes(
            b, "cb-board-card", f"cb-board-card-{card}", *(["cb-played"] if shown else [])
        )
        b.on_click(lambda _b, cc=card: c.play(cc))
        return b

    def _mistake_button(self, index: int) -> W.Button:
        c = self.controller
        j = next(m for m in c.mistakes(k=52) if m.index == index)
        assert j.sd is not None and c.reviewed is not None
        unit = c.reviewed.unit
        text = (
            f"card {j.index + 1} (trick {j.trick}): seat {j.seat} played {j.card.symbol()}, "
            f"costs {j.cost:.2f} {unit} (best {j.sd.best.symbol()}) · try again"
        )
        b = v.make_button(
            text, "cb-board-mistake", f"cb-board-mistake-{index}", f"cb-board-best-{j.sd.best}",
            on_click=lambda: c.open_mistake(index),
        )  # fmt: skip
        return b

    def _table_svg(self) -> str:
        c = self.controller
        if c.spec is None:
            return ""
        st = c.values()
        notes = []
        if st is not None:
            notes.append(
                f"Numbers over the raised cards: seat {st.seat}'s tricks for the deal after "
                "each card, every hand seen (green: the best); framed in blue: the card played."
            )
        return table_svg(
            c.position,
            self.bottom.value,
            st.values if st is not None else None,
            played=st.card if st is not None and not c.at_record_end() else None,
            best=st.best if st is not None else None,
            calls=c.spec.calls,
            notes=notes,
        )

    def _link_html(self) -> str:
        """The link to the position shown, as a link and as text to copy ('' before a deal)."""
        link = self.controller.link(self.base)
        if not link:
            return ""
        short = link if len(link) < 90 else link[:87] + "…"
        return (
            f'<div>link to this position: <a class="cb-board-link-a" href="{escape(link)}" '
            f'target="_blank">{escape(short)}</a><input class="cb-board-link-text" readonly '
            f'value="{escape(link)}" style="width:100%;box-sizing:border-box" '
            'onclick="this.select()"></div>'
        )

    def _review_html(self, any_mistake: bool) -> str:
        """The heading of the review's mistakes ('' before a review)."""
        r = self.controller.reviewed
        if r is None:
            return ""
        if any_mistake:
            return (
                f"<b>The review's mistakes</b> ({r.layouts} layouts a decision; click one to go "
                "there and try another card):"
            )
        return (
            '<span class="cb-board-no-mistakes">No card of the review cost more than '
            f"{r.threshold:.2f} {r.unit}.</span>"
        )

    def _note_html(self) -> str:
        """What the last card tried is worth, or the mistake being tried again."""
        c = self.controller
        if c.note:
            return f'<div class="cb-board-note-text">{escape(c.note)}</div>'
        if c.trying is not None:
            return (
                f'<i class="cb-board-trying">card {c.trying.index + 1} again: seat '
                f"{c.trying.seat} to play, which card would you play?</i>"
            )
        return ""

    def _sync_boxes(self) -> None:
        """After a deal is opened (a link, a random deal, a card added to the record) the
        boxes say what it is."""
        spec = self.controller.spec
        if spec is None or spec is self._shown:
            return
        self._shown = spec
        self.after_box.children = self.line_box.children = []  # of the deal shown before
        v.set_if_changed(self.deal, "value", str(spec.deal))
        v.set_if_changed(self.record, "value", spec.record_text)
        calls = "" if spec.calls is None else ",".join(map(str, spec.calls))
        v.set_if_changed(self.calls, "value", calls)
        if spec.rules.name in PRESETS:
            v.set_if_changed(self.rules, "value", spec.rules.name)

    def refresh(self) -> None:
        """Redraw from the controller: everything is computed first, then the widgets set, the
        step's readout (``data-step``) last."""
        c = self.controller
        spec = c.spec
        st = c.values() if spec is not None else None
        buttons = []
        if st is not None:
            for card, value in sorted(st.values.items(), reverse=True):
                shown = card == st.card and not c.at_record_end()
                buttons.append(self._card_button(card, value, shown, value == st.best))
        if c.at_record_end() and buttons:
            label = "<b>Next card</b> (click one to add it to the record):&nbsp;"
        elif buttons:
            label = "<b>Legal cards</b> (click another to branch):&nbsp;"
        else:
            label = ""
        table = self._table_svg()
        mistakes = [self._mistake_button(m.index) for m in c.mistakes()]
        info = f'<div class="cb-board-at" data-step="{c.step}">{escape(c.describe())}</div>'

        self._sync_boxes()
        v.set_if_changed(self.message, "value", v.error_html(c.message))
        if spec is not None:
            v.set_if_changed(self.slider, "max", c.length)
        v.set_if_changed(self.table, "value", table)
        self.prev_button.disabled = spec is None or c.step <= 0
        self.next_button.disabled = spec is None or c.step >= c.length
        self.record_button.disabled = c.branch is None
        self.cards.children = buttons
        v.set_if_changed(self.cards_label, "value", label)
        v.set_if_changed(self.note, "value", self._note_html())
        v.set_if_changed(self.link, "value", self._link_html())
        v.set_if_changed(self.mistakes_label, "value", self._review_html(bool(mistakes)))
        self.mistakes.children = mistakes
        self.review_button.disabled = spec is None or not spec.record
        self.line_button.disabled = spec is None or c.position.is_over
        self.after_button.disabled = spec is None or not spec.record
        if spec is not None:
            v.set_if_changed(self.slider, "value", c.step)
        v.set_if_changed(self.info, "value", info)


def analysis_board(query: str | None = None, *, layouts: int = 16) -> W.Widget:
    """The analysis board, opened from ``query`` (a link's query; None: the page's own,
    ``widgets.page.page_query``, '' in Jupyter), ``layouts`` layouts a decision of its review.
    A refused link leaves the board empty with the reason shown."""
    board = AnalysisBoard(layouts=layouts)
    q = page_query() if query is None else query
    if q.strip("?"):
        board.open_query(q)
    if board.spec is None:
        # the first values need the solver's compiled kernels: load them while the page draws
        # and the player pastes a deal, not after the first click
        from callbreak_lab import solver

        threading.Thread(target=solver.warm_up, name="warm solver", daemon=True).start()
    return AnalysisBoardView(board, base=page_url()).widget
