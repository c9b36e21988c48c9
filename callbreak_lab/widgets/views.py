"""ipywidgets views: they only wire controls to the controllers in ``controllers``.

Every control carries stable CSS classes (``cb-...``) so browser tests can find it, e.g. the card
button ``cb-card-AS``, the advise button ``cb-advise`` and the suggested call ``cb-call``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any

import ipywidgets as W

from callbreak_lab.cards import Card
from callbreak_lab.render.html import deal_html
from callbreak_lab.render.style import RED, suit_color
from callbreak_lab.rules import DEFAULT_RULES, PRESETS, Ruleset
from callbreak_lab.util.progress import Progress
from callbreak_lab.widgets import charts
from callbreak_lab.widgets.controllers import (
    MAX_CARDS,
    SUIT_ORDER,
    CallAdvisor,
    DealExplorer,
    HandPicker,
)

__all__ = [
    "CallAdvisorView",
    "DealExplorerView",
    "HandPickerView",
    "call_advisor",
    "deal_explorer",
    "hand_picker",
]

HELD = "#bcd7ff"  # background of a picked card (keeps red and black text readable)


def with_classes(widget: W.Widget, *names: str) -> W.Widget:
    """``widget`` with the CSS classes ``names`` added (the browser tests find widgets by them)."""
    for name in names:
        widget.add_class(name)
    return widget


def make_html(*classes: str, value: str = "") -> W.HTML:
    """An HTML widget showing ``value``, with the CSS ``classes``."""
    return with_classes(W.HTML(value=value), *classes)


def error_html(text: str) -> str:
    """``text`` escaped and shown in red (empty text: nothing)."""
    return f'<span style="color:{RED}">{escape(text)}</span>' if text else ""


def set_if_changed(widget: W.Widget, name: str, value: Any) -> None:
    """Assign only when different (each assignment is a message to the browser)."""
    if getattr(widget, name) != value:
        setattr(widget, name, value)


def bar_progress(bar: W.IntProgress) -> Progress:
    """A ``progress(done, total)`` callback that moves ``bar``."""

    def progress(done: int, total: int) -> None:
        bar.max = max(int(total), 1)
        bar.value = int(done)

    return progress


def make_button(text: str, *classes: str, on_click: Callable[[], object], **kw: Any) -> W.Button:
    """A button labelled ``text`` with the CSS ``classes``, calling ``on_click()`` when clicked.
    It is as wide as its label (ipywidgets' fixed default width cuts longer labels off)."""
    kw.setdefault("layout", W.Layout(width="auto"))
    b = with_classes(W.Button(description=text, **kw), *classes)
    b.on_click(lambda _b: on_click())
    return b


def make_text(*classes: str, description: str, continuous: bool = False, **kw: Any) -> W.Text:
    """A text box labelled ``description`` with the CSS ``classes`` that reports its value when
    the entry is done (Enter, or leaving the box), not at each key; ``continuous=True``: at each
    key (its owner then takes the entry on Enter, see ``on_enter``)."""
    box = W.Text(description=description, continuous_update=continuous, **kw)
    return with_classes(box, *classes)


def on_enter(box: W.Text, action: Callable[[], object]) -> None:
    """Call ``action()`` when Enter is pressed in ``box`` (the browser's "submit" message)."""

    def handle(_widget: W.Widget, content: dict[str, Any], _buffers: object) -> None:
        if isinstance(content, dict) and content.get("event") == "submit":
            action()

    box.on_msg(handle)


def make_call_entry(
    value: int, low: int, classes: tuple[str, str], on_call: Callable[[], object]
) -> tuple[W.BoundedIntText, W.Button]:
    """A "your call" box (``low``..13, showing ``value``) and its "call" button, which calls
    ``on_call()``; ``classes``: the CSS class of each."""
    box = W.BoundedIntText(value=value, min=low, max=13, description="your call")
    button = make_button("call", classes[1], on_click=on_call, button_style="primary")
    return with_classes(box, classes[0]), button


def chart_image(
    *classes: str, width: float = charts.WIDTH, height: float = charts.HEIGHT
) -> W.Image:
    """An empty PNG image widget for a chart of ``width`` x ``height`` inches, shown at exactly
    its CSS size (``charts.css_size``): never stretched by its box, sharp on dense screens."""
    w, h = charts.css_size(width, height)
    layout = W.Layout(width=f"{w}px", height=f"{h}px", min_width=f"{w}px", align_self="flex-start")
    return with_classes(W.Image(format="png", layout=layout), "cb-chart", *classes)


# ---------------------------------------------------------------------------------------------
# Hand picker
# ---------------------------------------------------------------------------------------------


class HandPickerView:
    """52 card buttons by suit plus a text box accepting every hand notation, kept in sync."""

    def __init__(self, controller: HandPicker | None = None) -> None:
        self.controller = controller or HandPicker()
        self.buttons: dict[Card, W.Button] = {}
        rows = []
        for suit in SUIT_ORDER:
            colour = suit_color(suit)
            row = [make_html("cb-suit-label", value=f'<b style="color:{colour}">{suit.symbol}</b>')]
            for rank in range(12, -1, -1):
                card = Card.of(suit, rank)
                b = W.Button(
                    description=card.symbol(),
                    tooltip=str(card),
                    layout=W.Layout(width="42px", height="30px", padding="0"),
                )
                b.style.text_color = colour
                with_classes(b, "cb-card", f"cb-card-{card}")
                b.on_click(lambda _b, c=card: self._toggle(c))
                self.buttons[card] = b
                row.append(b)
            rows.append(W.HBox(row, layout=W.Layout(align_items="center")))
        # the box reports each key: the count and any problem follow the typing (``preview``);
        # the hand is taken on Enter, or when a button needs it (``commit``)
        self.text = make_text(
            "cb-hand-text",
            description="hand",
            continuous=True,
            placeholder="e.g. AKQ2.T98.765.432 or ♠AKQ2 ♥T98 ♦765 ♣432",
            layout=W.Layout(width="460px"),
        )
        self.text.observe(self._on_typing, names="value")
        on_enter(self.text, self.commit)
        self.status = make_html("cb-hand-status")
        clear = make_button("clear", "cb-clear", on_click=self.controller.clear)
        fill = make_button("random fill", "cb-fill", on_click=self._fill)
        self.widget = with_classes(
            W.VBox([*rows, W.HBox([self.text, clear, fill]), self.status]), "cb-hand-picker"
        )
        self._syncing = False
        self.controller.observe(self.refresh)
        self.refresh()

    def _on_typing(self, change: dict[str, Any]) -> None:
        """A key in the box: show the count and any problem of the text so far."""
        if not self._syncing:
            count, problem = self.controller.preview(change["new"])
            self._show_status(count, problem)

    def commit(self) -> None:
        """Take the typed text as the hand (Enter, or before a button uses the hand)."""
        if self.text.value != self.controller.text:
            self.controller.set_text(self.text.value)

    def _toggle(self, card: Card) -> None:
        self.commit()
        self.controller.toggle(card)

    def _fill(self) -> None:
        self.commit()
        self.controller.random_fill()

    def _show_status(self, count: int, message: str) -> None:
        msg = f" · {error_html(message)}" if message else ""
        full = " ✓" if count == MAX_CARDS else ""
        set_if_changed(self.status, "value", f"<b>{count}</b> of 13 cards{full}{msg}")

    def refresh(self) -> None:
        """Redraw buttons, text and status from the controller."""
        c = self.controller
        for card, b in self.buttons.items():
            held = card in c.hand
            set_if_changed(b.style, "button_color", HELD if held else None)
            set_if_changed(b.style, "font_weight", "bold" if held else "")
            if held:
                b.add_class("cb-held")
            else:
                b.remove_class("cb-held")
        self._syncing = True
        try:
            set_if_changed(self.text, "value", c.text)
        finally:
            self._syncing = False
        self._show_status(c.count, c.message)


def hand_picker(hand: str | None = None) -> W.Widget:
    """A hand picker widget (display it in a notebook)."""
    return HandPickerView(HandPicker(hand)).widget


# ---------------------------------------------------------------------------------------------
# Call advisor
# ---------------------------------------------------------------------------------------------


#: the advisor's words in one line each (shown under its results)
ADVISOR_HELP = (
    "<b>bid model (modern)</b>: the quick forecast, a model trained on solved random deals; in "
    "brackets the play rules it was trained for (presets that play alike share one).",
    "<b>floor</b>: the tricks the hand takes even when the other three play against it, every "
    "card seen; it depends on where the other cards lie (the grey outline of the chart).",
    "<b>Monte Carlo</b> (check with simulation): the other 39 cards dealt at random many times, "
    "each layout played out; slower, the reference the model is checked against.",
)


def _seat_label(seat: int) -> str:
    return f"seat {seat}" + (" (bids first, leads)" if seat == 0 else "")


class CallAdvisorView:
    """Hand picker, preset and seat, the suggested call with charts, and a simulation check."""

    #: rows of the call table shown until "show all calls" is ticked
    TOP_CALLS = 5

    def __init__(self, controller: CallAdvisor | None = None) -> None:
        self.controller = c = controller or CallAdvisor()
        self.picker = HandPickerView(c.picker)
        self.preset = with_classes(
            W.Dropdown(options=list(PRESETS), value=c.preset, description="rules"), "cb-preset"
        )
        self.seat = with_classes(
            W.Dropdown(
                options=[(_seat_label(s), s) for s in range(4)],
                value=c.seat,
                description="seat",
            ),
            "cb-seat",
        )
        # (CSS class, label, value, placeholder, tooltip) of the two context boxes
        boxes = (
            ("cb-earlier", "calls before", c.earlier_text, "e.g. 3,4",
             "the calls already made by the seats before you; they set your seat"),
            ("cb-totals", "totals", c.totals_text, "e.g. 3, 0, 6.2, -1",
             "every seat's total in points before this deal, seat 0 first"),
        )  # fmt: skip
        self.earlier, self.totals = (
            make_text(css, description=label, value=value, placeholder=hint, tooltip=tip)
            for css, label, value, hint, tip in boxes
        )
        # the deals of a match under the presets offered (five in each)
        deals = max(Ruleset.preset(name).match_deals or 0 for name in PRESETS)
        # 0 stands for "not in a match" (a Dropdown shows no label for the value None)
        options = [("not in a match", 0)] + [
            (f"deal {k} of {deals}", k) for k in range(1, deals + 1)
        ]
        self.deal_of_match = with_classes(
            W.Dropdown(
                options=options,
                value=c.deal_of_match or 0,
                description="match",
            ),
            "cb-deal-of-match",
        )
        self._syncing = False  # True while refresh() copies the controller's state to a control
        self.preset.observe(lambda ch: c.set_preset(ch["new"]), names="value")
        for box in (self.totals, self.deal_of_match):
            box.observe(lambda _ch: self._standing_changed(), names="value")
        self.seat.observe(lambda ch: self._unless_syncing(c.set_seat, ch["new"]), names="value")
        self.earlier.observe(
            lambda ch: self._unless_syncing(c.set_earlier_calls, ch["new"]), names="value"
        )
        self.advise = make_button(
            "Suggest a call", "cb-advise", on_click=self._advise, button_style="primary"
        )
        self.simulate = make_button(
            "check with simulation",
            "cb-simulate",
            on_click=self._simulate,
            tooltip=f"deal the other 39 cards {c.layouts} times and solve every layout",
        )
        self.progress = with_classes(
            W.IntProgress(value=0, min=0, max=c.layouts, description="simulation"),
            "cb-progress",
        )
        self.progress.layout.visibility = "hidden"
        self.call = make_html("cb-call")
        self.match = make_html("cb-match")
        self.explain = make_html("cb-explain")
        self.why = make_html("cb-why-call")  # why this call: the hand shaded by each card's chance
        self.table = make_html("cb-table")
        self.all_calls = with_classes(
            W.Checkbox(value=False, description="show all calls", indent=False),
            "cb-all-calls",
        )
        self.all_calls.observe(lambda _ch: self.refresh(), names="value")
        self.all_calls.layout.display = "none"
        self.sim_note = make_html("cb-sim-note")
        self.help = make_html(
            "cb-help",
            value='<div style="font-size:12px;color:#666">' + "<br>".join(ADVISOR_HELP) + "</div>",
        )
        self.expected_chart = chart_image("cb-chart-expected")
        self.dist_chart = chart_image("cb-chart-dist")
        self.charts_run = make_html("cb-charts-run")  # data-run of the charts shown (a test hook)
        self.charts = W.HBox(
            [self.expected_chart, self.dist_chart, self.charts_run],
            layout=W.Layout(flex_flow="row wrap"),
        )
        self.charts.layout.display = "none"
        self.widget = with_classes(
            W.VBox(
                [
                    self.picker.widget,
                    W.HBox([self.preset, self.seat, self.earlier]),
                    W.HBox([self.deal_of_match, self.totals]),
                    W.HBox([self.advise, self.simulate, self.progress]),
                    self.call,
                    self.match,
                    self.explain,
                    self.why,
                    self.charts,
                    self.table,
                    self.all_calls,
                    self.sim_note,
                    self.help,
                ]
            ),
            "cb-call-advisor",
        )
        self._drawn: tuple[int, int] | None = None
        c.observe(self.refresh)
        self.refresh()

    def _unless_syncing(self, action: Callable[[Any], object], value: Any) -> None:
        """Forward a person's change to the controller; ignore the echo of refresh()."""
        if not self._syncing:
            action(value)

    def _standing_changed(self) -> None:
        """A person changed the totals or the deal of the match."""
        if not self._syncing:
            self.controller.set_standing(self.totals.value, self.deal_of_match.value or None)

    def _match_html(self) -> str:
        """The call for the match (the decision in a sentence and each call's chance of winning
        the match), or why the standing is refused; '' without a standing."""
        c = self.controller
        if c.match_error:
            return error_html(f"match: {c.match_error}")
        m = c.match
        if m is None or m.totals is None:
            return ""
        shown = sorted(m.rows, key=lambda r: -(r.win or 0.0))[: self.TOP_CALLS]
        bold = ' style="font-weight:bold"'
        rows = "".join(
            f"<tr{bold if r.call == m.call else ''}><td>{r.call}</td>"
            f"<td>{100 * (r.win or 0.0):.1f}%</td><td>{r.expected:+.2f}</td></tr>"
            for r in sorted(shown, key=lambda r: r.call)
        )
        return (
            f'<div class="cb-match-call" style="font-size:14px">For the match: call '
            f"<b>{m.call}</b>. {escape(m.reason)}</div>"
            '<table class="cb-match-table" style="font-size:12px"><tr><th>call</th>'
            f"<th>wins the match</th><th>expected points</th></tr>{rows}</table>"
        )

    def _why_html(self) -> str:
        """Why this call: the hand shaded by each card's chance of taking a trick, the suits'
        tricks and where the counting rule is wrong for the hand (the run number as data-run)."""
        c = self.controller
        if c.why is None:
            return error_html(c.why_error) if c.why_error else ""
        return (
            f'<div class="cb-why-run" data-run="{c.runs}" data-call="{c.why.call}">'
            f"{c.why._repr_html_()}</div>"
        )

    def _advise(self) -> None:
        """The hand as typed (Enter not needed), then the advice."""
        self.picker.commit()
        self.controller.advise()

    def _simulate(self) -> None:
        self.picker.commit()
        c = self.controller
        self.progress.max = c.layouts
        self.progress.value = 0
        self.progress.layout.visibility = "visible"

        try:
            c.check_with_simulation(progress=bar_progress(self.progress))
        finally:  # the bar shows a running simulation only
            self.progress.layout.visibility = "hidden"

    def refresh(self) -> None:
        """Show the controller's state: the controls' values, then the call, the charts and the
        table; with an error (a refused entry stays in its box), the error and no result."""
        c = self.controller
        fc = c.forecast
        self._syncing = True
        try:  # the earlier calls may have moved the seat; a refused entry is shown as typed
            set_if_changed(self.seat, "value", c.seat)
            set_if_changed(self.earlier, "value", c.earlier_text)
            set_if_changed(self.totals, "value", c.totals_text)
        finally:
            self._syncing = False
        set_if_changed(self.match, "value", self._match_html())
        if fc is None:
            set_if_changed(self.call, "value", error_html(c.error) if c.error else "")
            set_if_changed(self.explain, "value", "")
            set_if_changed(self.why, "value", "")
            set_if_changed(self.table, "value", "")
            set_if_changed(self.sim_note, "value", "")
            self.charts.layout.display = "none"
            self.all_calls.layout.display = "none"
            self.progress.layout.visibility = "hidden"
            self._drawn = None
            return
        self.call.value = (
            f'<div class="cb-call-value" data-run="{c.runs}" style="font-size:20px">'
            f"Call <b>{fc.call}</b> <span style='font-size:12px;color:#666'>"
            f"({escape(fc.source)}, {escape(c.preset)}, seat {c.seat})</span></div>"
        )
        set_if_changed(self.explain, "value", f"<i>{escape(c.explanation)}</i>")
        set_if_changed(self.why, "value", self._why_html())
        sim = c.simulation
        key = (id(fc), id(sim))
        if key != self._drawn:
            self._drawn = key
            self.expected_chart.value = charts.expected_scores_png(fc)
            overlay = sim.forecast if sim else None
            self.dist_chart.value = charts.trick_distribution_png(fc, overlay, call=fc.call)
            self.charts.layout.display = "flex"
            self.charts_run.value = f'<span data-run="{c.runs}"></span>'
        shown = c.table(None if self.all_calls.value else self.TOP_CALLS)
        n_calls = len(fc.advice.calls)
        bold = ' style="font-weight:bold"'
        rows = "".join(
            f"<tr{bold if call == fc.call else ''}><td>{call}</td><td>{p}</td><td>{e}</td></tr>"
            for call, p, e in shown
        )
        caption = (
            f"all {n_calls} calls"
            if len(shown) == n_calls
            else f"the {len(shown)} calls of highest expected score (of {n_calls})"
        )
        set_if_changed(
            self.table,
            "value",
            f'<div style="font-size:12px;color:#666">{caption}</div>'
            '<table class="cb-call-table" style="font-size:12px"><tr><th>call</th>'
            f"<th>P(made)</th><th>expected score</th></tr>{rows}</table>",
        )
        self.all_calls.layout.display = "flex" if n_calls > self.TOP_CALLS else "none"
        if sim is None:
            set_if_changed(self.sim_note, "value", error_html(c.error) if c.error else "")
        else:
            verdict = "agrees" if sim.agrees else f"suggests call {sim.forecast.call} instead"
            set_if_changed(
                self.sim_note,
                "value",
                f'<span class="cb-sim-result">{escape(sim.forecast.source)}: mean '
                f"{sim.forecast.mean:.2f} tricks; the simulation {verdict}.</span>",
            )


def call_advisor(hand: str | None = None, rules: str | None = None, seat: int = 0) -> W.Widget:
    """The call advisor widget (display it in a notebook); ``rules``: a preset name (None:
    ``rules.DEFAULT_RULES``)."""
    preset = rules or DEFAULT_RULES
    return CallAdvisorView(CallAdvisor(HandPicker(hand), preset=preset, seat=seat)).widget


# ---------------------------------------------------------------------------------------------
# Deal explorer
# ---------------------------------------------------------------------------------------------


class DealExplorerView:
    """Enter or deal (seeded) a full deal and see the double-dummy table of the four seats."""

    def __init__(self, controller: DealExplorer | None = None) -> None:
        self.controller = c = controller or DealExplorer()
        self.text = with_classes(
            W.Textarea(
                placeholder="four hands: dotted, separated by spaces; or any notation by '/'",
                layout=W.Layout(width="560px", height="60px"),
                continuous_update=False,
            ),
            "cb-deal-text",
        )
        self.text.observe(self._on_text, names="value")
        self.seed = with_classes(
            W.IntText(value=1, description="seed", layout=W.Layout(width="160px")), "cb-seed"
        )
        self.preset = with_classes(
            W.Dropdown(options=list(PRESETS), value=c.preset, description="rules"), "cb-preset"
        )
        self.preset.observe(lambda ch: c.set_preset(ch["new"]), names="value")
        deal = make_button("deal", "cb-deal", on_click=lambda: c.deal_random(self.seed.value))
        solve = make_button("solve", "cb-solve", on_click=c.solve, button_style="primary")
        self.board = make_html("cb-board")
        self.result = make_html("cb-dd-table")
        self.widget = with_classes(
            W.VBox(
                [W.HBox([self.seed, deal, self.preset, solve]), self.text, self.board, self.result]
            ),
            "cb-deal-explorer",
        )
        self._syncing = False
        c.observe(self.refresh)
        self.refresh()

    def _on_text(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"].strip():
            self.controller.set_text(change["new"])

    def refresh(self) -> None:
        """Redraw the deal and its table."""
        c = self.controller
        self._syncing = True
        try:
            set_if_changed(self.text, "value", c.text)
        finally:
            self._syncing = False
        board = deal_html(c.deal, c.rules.direction) if c.deal is not None else ""
        set_if_changed(self.board, "value", board)
        if c.message:
            set_if_changed(self.result, "value", error_html(c.message))
        elif c.table is not None:
            play: Sequence[int | None] = c.playout or [None] * 4
            rows = "".join(
                f"<tr><td>seat {s}</td><td><b>{v}</b></td><td>{play[s]}</td></tr>"
                for s, v in enumerate(c.table)
            )
            set_if_changed(
                self.result,
                "value",
                '<table class="cb-dd" style="font-size:13px"><tr><th></th>'
                "<th>guaranteed (double dummy)</th><th>self-interested play-out</th></tr>"
                f"{rows}<tr><td>sum</td><td>{sum(c.table)}</td>"
                f"<td>{sum(p for p in play if p is not None)}</td></tr></table>",
            )
        else:
            set_if_changed(self.result, "value", "")


def deal_explorer(deal: str | None = None, rules: str | None = None) -> W.Widget:
    """The deal explorer widget; ``rules``: a preset name (None: ``rules.DEFAULT_RULES``)."""
    c = DealExplorer(preset=rules or DEFAULT_RULES)
    if deal:
        c.set_text(deal)
    return DealExplorerView(c).widget
