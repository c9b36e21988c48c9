"""ipywidgets view of "after a deal" (wiring only; the state is ``after_deal.AfterDeal``).

The four hands face up around the table at the replay's step, buttons and a slider to step
through the tricks card by card or trick by trick, the tricks as text (the current one in bold)
and, once a single-dummy review of the studied seat is set, the chart of its expected score
across the deal (``charts.deal_values_png``) with the replay's trick marked.
"""

from __future__ import annotations

from html import escape

import ipywidgets as W

from callbreak_lab.render.svg import table_svg
from callbreak_lab.widgets import charts
from callbreak_lab.widgets import views as v
from callbreak_lab.widgets.after_deal import AfterDeal

__all__ = ["AfterDealView"]

CHART_W, CHART_H = 6.0, 3.0


class AfterDealView:
    """Replays an ``AfterDeal``: ``widget`` is the box to show (see the module docstring).
    ``note``: what the chart's place says while there is no review (e.g. which button draws
    it)."""

    def __init__(self, controller: AfterDeal, *, note: str = "") -> None:
        self.controller = c = controller
        self.note = note
        self.title = v.make_html("cb-after-title")
        self.table = v.make_html("cb-after-table")
        nav = [
            ("« start", "cb-replay-start", lambda: c.go(0)),
            ("◀◀ trick", "cb-replay-prev-trick", c.prev_trick),
            ("◀ card", "cb-replay-prev", c.prev),
            ("card ▶", "cb-replay-next", c.next),
            ("trick ▶▶", "cb-replay-next-trick", c.next_trick),
            ("end »", "cb-replay-end", lambda: c.go(c.length)),
        ]
        self.buttons = [v.make_button(text, cls, on_click=fn) for text, cls, fn in nav]
        self.slider = v.with_classes(
            W.IntSlider(value=c.step, min=0, max=c.length, description="cards played",
                        continuous_update=False, style={"description_width": "initial"}),
            "cb-replay-step",
        )  # fmt: skip
        self.slider.observe(lambda ch: c.go(ch["new"]), names="value")
        self.where = v.make_html("cb-replay-where")
        self.tricks = v.make_html("cb-replay-tricks")
        self.chart = v.chart_image("cb-deal-chart", width=CHART_W, height=CHART_H)
        self.chart.layout.display = "none"
        self.chart_note = v.make_html("cb-deal-chart-note")
        self._chart_key: tuple[object, ...] | None = None
        self.widget = v.with_classes(
            W.VBox(
                [
                    self.title,
                    self.table,
                    W.HBox(
                        [*self.buttons[:3], self.slider, *self.buttons[3:]],
                        layout=W.Layout(flex_flow="row wrap"),
                    ),
                    self.where,
                    W.HBox([self.chart, self.tricks]),
                    self.chart_note,
                ]
            ),
            "cb-after-deal",
        )
        c.observe(self.refresh)
        self.refresh()

    def _tricks_html(self) -> str:
        c = self.controller
        current = (c.step - 1) // 4 if c.step else -1
        rows = []
        for i, line in enumerate(c.trick_lines()):
            text = escape(line)
            rows.append(f"<b>{text}</b>" if i == current else text)
        return (
            '<div style="font-size:12px;line-height:1.4;margin-left:12px">'
            + "<br>".join(rows)
            + f'<div style="margin-top:4px;color:#555">{escape(c.summary())}</div></div>'
        )

    def _draw_chart(self) -> None:
        c = self.controller
        values = c.values()
        at = (c.step - 1) // 4 + 1 if c.step else None
        key = (id(c.review), at)
        if key == self._chart_key:
            return
        self._chart_key = key
        if not values:
            self.chart.layout.display = "none"
            empty = f'<div style="font-size:12px;color:#555">{escape(self.note)}</div>'
            v.set_if_changed(self.chart_note, "value", empty if self.note else "")
            return
        self.chart.value = charts.deal_values_png(
            values, unit=c.unit, final=c.final_score(), at_trick=at, width=CHART_W, height=CHART_H
        )
        self.chart.layout.display = "block"
        who = escape(c.names[c.seat])
        note = (
            f"Expected score of {who} after each of its cards: single dummy (the hands {who} "
            "could not see dealt in every way that fits the calls and the cards played), and "
            "double dummy (every hand seen). The grey band is the replay's trick."
        )
        html = f'<div style="font-size:12px;color:#555">{note}</div>'
        v.set_if_changed(self.chart_note, "value", html)

    def refresh(self) -> None:
        """Redraw from the controller's state."""
        c = self.controller
        v.set_if_changed(self.title, "value", f"<b>{escape(c.title)}</b>" if c.title else "")
        svg = table_svg(
            c.position, c.seat, highlight=(), calls=list(c.calls) if c.calls else None,
            names=c.names, turn_text="next",
        )  # fmt: skip
        v.set_if_changed(self.table, "value", svg)
        self.slider.max = c.length
        v.set_if_changed(self.slider, "value", c.step)
        for b in self.buttons[:3]:
            b.disabled = c.step == 0
        for b in self.buttons[3:]:
            b.disabled = c.step == c.length
        v.set_if_changed(self.where, "value", escape(c.describe()))
        v.set_if_changed(self.tricks, "value", self._tricks_html())
        self._draw_chart()
