"""ipywidgets views of the play-line viewer and the calling trainer (wiring only)."""

from __future__ import annotations

import threading
from html import escape
from typing import Any

import ipywidgets as W

from callbreak_lab.arena.records import Board
from callbreak_lab.cards import Card, Deal
from callbreak_lab.errors import CallbreakLabError
from callbreak_lab.render.style import PLAYED, suit_color
from callbreak_lab.render.svg import table_svg
from callbreak_lab.rules import DEFAULT_RULES, PRESETS, Ruleset, format_tenths
from callbreak_lab.widgets import charts
from callbreak_lab.widgets.deepening import Teller
from callbreak_lab.widgets.play_controllers import FOCUS, CallingTrainer, PlayLineViewer, Round
from callbreak_lab.widgets.views import (
    chart_image,
    error_html,
    make_button,
    make_call_entry,
    make_html,
    set_if_changed,
    with_classes,
)

__all__ = ["CallingTrainerView", "PlayLineView", "calling_trainer", "play_line_viewer"]


class PlayLineView:
    """The card table (``callbreak_lab.render.svg.table_svg``, the studied seat at the bottom)
    with the legal cards raised and labelled with their values, calls, tricks and the line's result
    at the side; previous / next / slider to step; a button per legal card to branch and see its
    cost; a box showing where the hidden cards are for the studied seat (the grid of seats by
    cards)."""

    def __init__(self, controller: PlayLineViewer) -> None:
        self.controller = c = controller
        c.deepening = True  # the single-dummy judgement answers at once and deepens
        self.slider = with_classes(
            W.IntSlider(value=0, min=0, max=c.length, description="card", continuous_update=False),
            "cb-step",
        )
        self.slider.observe(lambda ch: c.go(ch["new"]), names="value")
        self.prev_button = prev = make_button("◀ previous", "cb-prev", on_click=c.prev)
        self.next_button = nxt = make_button("next ▶", "cb-next", on_click=c.next)
        self.trick_button = trick = make_button(
            "next trick ▶▶", "cb-next-trick", on_click=c.next_trick
        )
        self.main_button = make_button(
            "back to the main line", "cb-main-line", on_click=c.back_to_main
        )
        for b in (prev, nxt, trick, self.main_button):
            b.layout.width = "auto"  # the whole label, never cut off
        self.table = make_html("cb-table-layout")
        self.info = make_html("cb-step-info")
        self.cards = with_classes(
            W.HBox([], layout=W.Layout(flex_flow="row wrap")), "cb-legal-cards"
        )
        self.cards_label = make_html("cb-legal-label")
        self.branch_note = make_html("cb-branch-note")
        self.judgement = with_classes(
            W.ToggleButtons(
                options=[("double-dummy (every hand seen)", "double"),
                         ("single-dummy (as seen at the table)", "single")],
                value=c.judgement,
                description="judge",
                style={"button_width": "auto"},
            ),
            "cb-judgement",
        )  # fmt: skip
        self.judgement.observe(lambda ch: c.set_judgement(ch["new"]), names="value")
        self.single_note = make_html("cb-single-note")
        self.show_cards = with_classes(
            W.Checkbox(value=c.show_cards, description="where the hidden cards are",
                       indent=False),
            "cb-show-cards",
        )  # fmt: skip
        self.show_cards.observe(lambda ch: c.set_show_cards(ch["new"]), names="value")
        self.reading = make_html("cb-line-reading")
        self.widget = with_classes(
            W.VBox(
                [
                    W.HBox([prev, self.slider, nxt, trick, self.main_button]),
                    self.judgement,
                    self.table,
                    self.info,
                    W.HBox([self.cards_label, self.cards], layout=W.Layout(align_items="center")),
                    self.single_note,
                    self.branch_note,
                    self.show_cards,
                    self.reading,
                ]
            ),
            "cb-play-line",
        )
        c.observe(self.refresh)
        self.refresh()
        if c.calls_pending:  # the table is drawn: its calls come on a thread of their own
            tell = Teller(self._calls_came)

            def fetch() -> None:
                c.fetch_calls()
                tell(always=True)

            threading.Thread(target=fetch, name="callbreak-line-calls", daemon=True).start()

    def _calls_came(self) -> None:
        """Put the calls just computed on the lines and redraw (the kernel's own thread)."""
        self.controller.resolve_calls()
        self.refresh()

    def _card_button(self, card: Card, value: int, played: bool, sd: Any = None) -> W.Button:
        """A legal card and its value (with single-dummy advice: its expected score too); the
        line's own card is bold on light yellow with a blue frame (the table's outline colour),
        the others on white: every label stays readable."""
        text = f"{card.symbol()} → {value}"
        if sd is not None:
            text += f" · {sd.value(card):+.2f}" + (" ★" if card == sd.best else "")
        b = W.Button(
            description=text,
            tooltip=(
                f"the line plays {card.symbol()}: seat {self.controller.decision.target} ends "
                f"with {value} tricks"
                if played
                else f"branch: play {card.symbol()} instead (seat "
                f"{self.controller.decision.target} ends with {value} tricks)"
            ),
            layout=W.Layout(
                width="92px" if sd is None else "150px",
                border=f"2px solid {PLAYED}" if played else "1px solid #aaa",
            ),
        )
        b.style.button_color = "#fff3b0" if played else "#ffffff"
        b.style.text_color = suit_color(card.suit)
        b.style.font_weight = "bold" if played else "normal"
        with_classes(b, "cb-legal", f"cb-legal-{card}", *(["cb-played"] if played else []))
        if not played:
            b.on_click(lambda _b, cc=card: self.controller.branch(cc))
        return b

    def table_svg(self) -> str:
        """The table at the current step: the studied seat (a play-out: seat 0) at the bottom,
        the decision's legal cards with their values, the line's final tricks at the side."""
        c = self.controller
        line = c.line
        d = c.decision
        bottom = line.seat if line.seat is not None else 0
        if line.seat is not None:
            notes = [
                f"Seat {line.seat} is studied: it maximises its tricks, the other three "
                "minimise them."
            ]
        else:
            notes = ["Self-interested play-out: each seat plays its best card for itself."]
        if d is not None:
            whose = f"seat {d.target}'s" if line.seat is not None else "the mover's own"
            notes.append(
                f"Numbers over the raised cards: {whose} tricks for the deal after each card "
                "(green: the best for the mover); framed in blue: the line's card."
            )
        notes.append("line: each seat's tricks at the end of the line shown.")
        if c.calls_pending:
            notes.append("The calls are being worked out…")
        return table_svg(
            c.position,
            bottom,
            dict(d.values) if d is not None else None,
            played=d.card if d is not None else None,
            best=d.best if d is not None else None,
            calls=line.calls,
            result=line.tricks,
            result_label="line",
            notes=notes,
        )

    def refresh(self) -> None:
        """Redraw the table, the decision and the branch result. Everything is computed first
        and the widgets are then set together, the step's readout last, so the readout never
        runs ahead of the note and the buttons. The single-dummy judgement deepens on its own
        thread: this redraws as it does, its status ("12 of 32 layouts…", "· final") beside
        the note."""
        c = self.controller
        try:
            u = c.single_update()
        except CallbreakLabError as exc:  # bad options (cannot happen from the view)
            u, c.message = None, str(exc)
        sd = None if u is None else u.answer
        buttons = [self._card_button(*item, sd=sd) for item in c.legal_values()]
        info = escape(c.describe())
        won = c.last_winner()
        if won is not None:
            info = (
                f"seat {won[0]} won the last trick (tricks {'-'.join(map(str, won[1]))}) · {info}"
            )
        label = "<b>Legal cards</b>, click one to branch:&nbsp;" if buttons else ""
        if sd is not None and buttons:
            unit = "points" if sd.unit == "points" else "tricks"
            label = (
                f"<b>Legal cards</b> (double-dummy tricks · expected {unit} at the table, "
                "★ best), click one to branch:&nbsp;"
            )
        single = c.single_note()
        if c.judgement == "single" and not single and c.decision is not None:
            who = c.line.seat if c.line.seat is not None else c.decision.seat
            single = f"<i>single-dummy advice is for seat {who}'s decisions with a choice</i>"
        elif single:
            kind = "cb-single-text" if sd is not None else "cb-single-learned"
            single = f'<div class="{kind}">{escape(single)}</div>'
        if u is not None:
            single += (
                f'<div class="cb-advice-status" data-final="{str(u.final).lower()}" '
                f'data-solved="{u.solved}" style="color:#555">{escape(u.status())}</div>'
            )
        # the step the note belongs to, for a reader (or a test) that waits for this step's note
        single = f'<span class="cb-note-step" data-step="{c.step}"></span>{single}'
        table = self.table_svg()
        reading = c.cards()

        set_if_changed(self.slider, "max", c.length)
        set_if_changed(self.table, "value", table)
        self.main_button.disabled = c.line is c.main
        self.prev_button.disabled = c.step <= 0
        self.next_button.disabled = self.trick_button.disabled = c.step >= c.length
        set_if_changed(self.info, "value", f"<div>{info}</div>")
        set_if_changed(self.judgement, "value", c.judgement)
        self.cards.children = buttons
        set_if_changed(self.single_note, "value", single)
        set_if_changed(self.cards_label, "value", label)
        set_if_changed(self.branch_note, "value", self._branch_note())
        set_if_changed(self.show_cards, "value", c.show_cards)
        set_if_changed(self.reading, "value", "" if reading is None else reading._repr_html_())
        set_if_changed(self.slider, "value", c.step)

    def _branch_note(self) -> str:
        """The branch's result against the main line, an error, or what a click does."""
        c = self.controller
        if c.message:
            return error_html(c.message)
        if c.cost is not None:
            cost = c.cost
            verb = "gains" if cost > 0 else ("costs" if cost < 0 else "changes nothing:")
            amount = f" {abs(cost)} trick(s)" if cost else " same trick count"
            tricks = "-".join(map(str, c.line.tricks))
            return (
                f'<b class="cb-branch-cost">this branch {verb}{amount}</b> '
                f"(tricks {tricks}, main line {'-'.join(map(str, c.main.tricks))})"
            )
        return "<i>click another legal card to branch</i>" if c.decision else ""


def play_line_viewer(
    deal: Deal | str,
    seat: int | None = 0,
    rules: Ruleset | str | None = None,
    *,
    calls: Any = None,
    record: str = "",
) -> W.Widget:
    """The play-line viewer for ``deal`` from the position after ``record`` (``seat=None``: the
    self-interested play-out instead of seat ``seat``'s double-dummy line)."""
    return PlayLineView(PlayLineViewer(deal, seat, rules, calls=calls, record=record)).widget


def board_viewer(board: Board, seat: int | None = 0, cards: int = 0) -> W.Widget:
    """The play-line viewer of an arena board (``arena.records.Board``) from the position
    after its first ``cards`` cards, for ``seat`` (None: the play-out)."""
    record = board.position(cards).record()
    return play_line_viewer(
        board.deal, seat, board.rules.name, calls=list(board.calls), record=record
    )


class CallingTrainerView:
    """A random hand, a box for the call, then the model's call, the distribution and the score."""

    def __init__(self, controller: CallingTrainer) -> None:
        self.controller = c = controller
        self.focus = with_classes(
            W.Dropdown(options=list(FOCUS), value=c.focus, description="focus"), "cb-focus"
        )
        self.focus.observe(lambda ch: c.set_focus(ch["new"]), names="value")
        self.preset = with_classes(
            W.Dropdown(options=list(PRESETS), value=c.preset, description="rules"), "cb-preset"
        )
        self.preset.observe(lambda ch: c.set_preset(ch["new"]), names="value")
        self.hand = make_html("cb-trainer-hand")
        self.call, self.submit = make_call_entry(
            c.rules.min_call, 1, ("cb-your-call", "cb-submit"), self._submit
        )
        self.next = make_button("next hand", "cb-next-hand", on_click=c.new_hand)
        self.table = with_classes(
            W.Checkbox(
                value=c.table,
                description="also play it out at a table of four strong players (slower)",
                indent=False,
                layout=W.Layout(width="auto"),
            ),
            "cb-trainer-table",
        )
        self.table.observe(lambda ch: c.set_table(ch["new"]), names="value")
        self.result = make_html("cb-trainer-result")
        self.chart = chart_image("cb-trainer-chart")  # its CSS size: never stretched
        self.chart.layout.display = "none"
        self.score = make_html("cb-trainer-score")
        self.why = make_html("cb-trainer-why")  # why the model's call: the hand shaded by chance
        self.widget = with_classes(
            W.VBox(
                [
                    W.HBox([self.focus, self.preset]),
                    self.table,
                    self.hand,
                    W.HBox([self.call, self.submit, self.next]),
                    self.result,
                    self.chart,
                    self.why,
                    self.score,
                ]
            ),
            "cb-trainer",
        )
        c.observe(self.refresh)
        self.refresh()

    def _submit(self) -> None:
        self.controller.answer(self.call.value)

    def refresh(self) -> None:
        """Show the hand, and after a call the comparison and the running score."""
        c = self.controller
        r = c.current
        if r is not None:
            set_if_changed(
                self.hand,
                "value",
                f"<div>seat {r.seat} ({c.preset}, calls {c.rules.min_call}..{c.rules.max_call})"
                f"</div>{r.hand._repr_html_()}",
            )
        answered = r is not None and r.call is not None and r.forecast is not None
        self.submit.disabled = answered
        if c.message:
            set_if_changed(self.result, "value", error_html(c.message))
        elif answered and r is not None and r.forecast is not None:
            set_if_changed(self.result, "value", f"<div>{escape(c.verdict())}</div>")
        else:
            set_if_changed(self.result, "value", "")
        if answered and r is not None and r.forecast is not None:
            overlay = r.simulation
            self.chart.value = charts.trick_distribution_png(r.forecast, overlay, call=r.call)
            self.chart.layout.display = "block"
        else:
            self.chart.layout.display = "none"
        set_if_changed(self.why, "value", _trainer_why_html(r) if answered and r else "")
        you, model = c.totals if c.history else (0, 0)
        set_if_changed(
            self.score,
            "value",
            f'<div class="cb-score" data-hands="{len(c.history)}">{escape(c.summary())}</div>'
            if c.history
            else f"<div>score: you {format_tenths(you)}, model {format_tenths(model)}</div>",
        )


def _trainer_why_html(r: Round) -> str:
    """After a call: why the model calls what it calls (the hand shaded by each card's chance
    of taking a trick, where the counting rule is wrong) and the tricks this deal's play-out
    gave the hand."""
    if r.why is None or r.forecast is None:
        return ""
    took = "" if r.tricks is None else f" This deal's play-out gave the hand {r.tricks} tricks."
    return (
        f'<div class="cb-trainer-why-head" data-call="{r.forecast.call}" style="margin-top:6px">'
        f"<b>Why the model calls {r.forecast.call}</b>: the cards are expected to take "
        f"{r.why.total:.1f} tricks.{escape(took)}</div>{r.why._repr_html_()}"
    )


def calling_trainer(
    rules: str | None = None, *, seed: int = 0, focus: str = "any hand"
) -> W.Widget:
    """The calling trainer widget; ``rules``: a preset name (None: ``rules.DEFAULT_RULES``)."""
    preset = rules or DEFAULT_RULES
    return CallingTrainerView(CallingTrainer(preset=preset, seed=seed, focus=focus)).widget
