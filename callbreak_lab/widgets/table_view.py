"""ipywidgets view of "play a deal against the bots" (wiring only; the state is
``table_controller.PlayTable``)."""

from __future__ import annotations

from html import escape
from typing import Any

import ipywidgets as W

from callbreak_lab.cards import Card
from callbreak_lab.render.style import suit_color
from callbreak_lab.render.svg import table_svg
from callbreak_lab.rules import Ruleset
from callbreak_lab.widgets import views as v
from callbreak_lab.widgets.table_controller import PlayTable

__all__ = ["PlayTableView", "play_against_bots"]


def _cost(sd: Any, card: Card) -> str:
    if card == sd.best:
        return "best"
    cost = sd.cost(card)
    return "0.00 (as good)" if cost < 0.005 else f"-{cost:.2f}"


def _percent(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


class PlayTableView:
    """The table (the person's seat at the bottom, the bots' hands face down), a call box, a
    button per legal card, a hint button (single-dummy values of the legal cards), a button
    showing where the hidden cards are (the grid of seats by cards), the bots' moves, and at
    the end the result, a review button and the next deal."""

    def __init__(self, controller: PlayTable) -> None:
        self.controller = c = controller
        self.table = v.make_html("cb-play-table")
        self.status = v.make_html("cb-play-status")
        self.call, self.call_button = v.make_call_entry(
            c.rules.min_call, 0, ("cb-play-call", "cb-play-call-button"), self._call
        )
        self.cards = v.with_classes(
            W.HBox([], layout=W.Layout(flex_flow="row wrap")), "cb-play-cards"
        )
        self.hint_button = v.make_button("hint: what would a good player play?", "cb-hint",
                                       on_click=self._hint)  # fmt: skip
        self.hint = v.make_html("cb-hint-text")
        self.reading_button = v.make_button("where are the hidden cards?", "cb-cards",
                                          on_click=self._reading)  # fmt: skip
        self.reading = v.make_html("cb-cards-out")
        self.progress = v.with_classes(
            W.IntProgress(value=0, min=0, max=1, layout=W.Layout(width="240px")), "cb-progress"
        )
        self.progress.layout.visibility = "hidden"
        self.review_button = v.make_button("review my play", "cb-review", on_click=self._review)
        self.next_button = v.make_button("next deal", "cb-next-deal", on_click=c.new_deal)
        self.review = v.make_html("cb-review-out")
        self.log = v.make_html("cb-play-log")
        self.widget = v.with_classes(
            W.VBox(
                [
                    self.table,
                    self.status,
                    W.HBox([self.call, self.call_button]),
                    self.cards,
                    W.HBox([self.hint_button, self.reading_button, self.progress]),
                    self.hint,
                    self.reading,
                    W.HBox([self.review_button, self.next_button]),
                    self.review,
                    self.log,
                ]
            ),
            "cb-play-against-bots",
        )
        c.observe(self.refresh)
        self.refresh()

    def _tick(self, done: int, total: int) -> None:
        self.progress.max = max(total, 1)
        self.progress.value = done

    def _busy(self, on: bool) -> None:
        self.progress.value = 0
        self.progress.layout.visibility = "visible" if on else "hidden"

    def _call(self) -> None:
        self.controller.call(self.call.value)

    def _hint(self) -> None:
        self._busy(True)
        try:
            self.controller.hint(progress=self._tick)
        finally:
            self._busy(False)

    def _reading(self) -> None:
        self.controller.cards()

    def _review(self) -> None:
        self._busy(True)
        try:
            self.controller.review(progress=self._tick)
        finally:
            self._busy(False)

    def _card_button(self, card: Card) -> W.Button:
        b = W.Button(description=card.symbol(), tooltip=f"play {card.symbol()}",
                     layout=W.Layout(width="56px", border="1px solid #aaa"))  # fmt: skip
        b.style.text_color = suit_color(card.suit)
        b.style.button_color = "#ffffff"
        v.with_classes(b, "cb-play-card", f"cb-play-{card}")
        b.on_click(lambda _b, cc=card: self.controller.play(cc))
        return b

    def _hint_html(self) -> str:
        sd = self.controller.last_hint
        if sd is None:
            return ""
        unit = "points" if sd.unit == "points" else "tricks"
        rows = "".join(
            f"<tr><td>{escape(c.symbol())}</td><td>{sd.value(c):+.2f}</td>"
            f"<td>{_percent(sd.outcomes[c].make)}</td>"
            f"<td>{_cost(sd, c)}</td></tr>"
            for c in sd.ranked()
        )
        how = "every layout that fits" if sd.exact else f"{sd.layouts} layouts"
        if sd.stopped_early:
            how += " (all that fitted in the hint's time)"
        return (
            f'<div class="cb-hint-table"><b>Hint:</b> {escape(sd.best.symbol())} '
            f"(expected {unit} over {how} of the hidden cards, weighted by the calls)"
            f"<table><tr><th>card</th><th>expected</th><th>makes</th><th>cost</th></tr>"
            f"{rows}</table></div>"
        )

    def refresh(self) -> None:
        """Redraw everything from the controller's state."""
        c = self.controller
        over = c.phase == "over"
        hidden = () if over else tuple(s for s in range(4) if s != c.seat)
        svg = table_svg(
            c.position,
            c.seat,
            calls=c.calls if len(c.calls) == 4 else None,
            names=["you" if s == c.seat else f"seat {s}" for s in range(4)],
            notes=[f"You play seat {c.seat} against three {c.opponents} players."],
            hidden=hidden,
        )
        v.set_if_changed(self.table, "value", svg)
        status = escape(c.status())
        if c.message:
            status += "<br>" + v.error_html(c.message)
        v.set_if_changed(self.status, "value", f"<div>{status}</div>")
        calling = c.phase == "call"
        self.call.disabled = self.call_button.disabled = not calling
        self.call.layout.display = self.call_button.layout.display = None if calling else "none"
        playing = c.phase == "play"
        legal = (
            sorted(c.position.legal_cards(), key=lambda x: (-x.suit, -x.rank)) if playing else []
        )
        self.cards.children = [self._card_button(x) for x in legal]
        self.hint_button.disabled = not playing
        v.set_if_changed(self.hint, "value", self._hint_html() if playing else "")
        self.reading_button.disabled = not playing
        cards = c.last_cards
        v.set_if_changed(self.reading, "value", cards._repr_html_() if cards and playing else "")
        self.review_button.disabled = not over
        self.next_button.disabled = not over
        rv = c.last_review
        v.set_if_changed(self.review, "value", rv._repr_html_() if rv is not None and over else "")
        recent = "<br>".join(escape(x) for x in c.log[-8:])
        v.set_if_changed(self.log, "value", f'<div style="color:#555">{recent}</div>')


def play_against_bots(
    rules: Ruleset | str | None = None, seat: int = 0, *, seed: int = 0, opponents: str = "strong"
) -> W.Widget:
    """Play deals at ``seat`` against three ``opponents`` (arena players by name) under ``rules``
    (None: ``rules.DEFAULT_RULES``)."""
    return PlayTableView(PlayTable(rules, seat, seed=seed, opponents=opponents)).widget
