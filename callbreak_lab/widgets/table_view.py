"""ipywidgets view of "play a match against the bots" (wiring only; the state is
``table_controller.PlayTable``).

The person's cards are clicked in the pictured hand: the table's SVG sits in an HTML widget
whose click handler (an inline ``onclick``, which ipywidgets' HTML widget keeps) writes the
clicked card's letters (``data-card``, e.g. ``TS``) into a hidden text box of the same table,
whose value the kernel observes (``PlayTableView.clicked``). Every card in the page reads in
the library's notation (``Card.symbol()``, e.g. ``T♠``), the picture's faces included.
"""

from __future__ import annotations

from html import escape
from typing import Any

import ipywidgets as W

from callbreak_lab.cards import Card
from callbreak_lab.render.reading import reading_html
from callbreak_lab.render.svg import table_svg
from callbreak_lab.rules import Ruleset
from callbreak_lab.widgets import views as v
from callbreak_lab.widgets.after_deal_view import AfterDealView
from callbreak_lab.widgets.table_controller import OPPONENTS, PlayTable

__all__ = ["PlayTableView", "play_against_bots"]

#: the click handler of the table's picture: a card of the bottom hand (``data-side="s"``)
#: goes to the table's hidden box as "<card> <time>" (the time makes a second click on the
#: same card a change too)
CLICK_JS = (
    "var g = event.target.closest('g.seat[data-side=s] g.card'); if (!g) return;"
    " var t = event.currentTarget.closest('.cb-play-against-bots');"
    " var box = t && t.querySelector('.cb-card-click input'); if (!box) return;"
    " box.value = g.dataset.card + ' ' + Date.now();"
    " box.dispatchEvent(new Event('input', {bubbles: true}));"
)
CLICK_CSS = (
    "<style>.cb-play-table g.seat[data-side=s] g.card {cursor: pointer}"
    " .cb-play-table g.seat[data-side=s] g.card:hover rect:first-of-type {stroke: #1f5fbf;"
    " stroke-width: 2}</style>"
)


def _cost(sd: Any, card: Card) -> str:
    if card == sd.best:
        return "best"
    cost = sd.cost(card)
    return "0.00 (as good)" if cost < 0.005 else f"-{cost:.2f}"


def _percent(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


class PlayTableView:
    """A match against the bots: the match's heading (deal, dealer, first leader, seed) with a
    choice of opponents and a seed to replay; the table (the person's seat at the bottom, its
    cards clicked to play them, the bots' hands face down); the calls phase with a call box and
    the call advice; a hint (single-dummy values of the legal cards) and where the hidden cards
    are; the match's standing; after each deal the result, a review and the deal replayed with
    the chart of the person's expected score (``AfterDealView``), and the next deal."""

    def __init__(self, controller: PlayTable) -> None:
        self.controller = c = controller
        self.heading = v.make_html("cb-match-heading")
        self.opponents = v.with_classes(
            W.Dropdown(options=list(OPPONENTS), value=c.opponents, description="opponents",
                       layout=W.Layout(width="200px")),
            "cb-opponents",
        )  # fmt: skip
        self.seed = v.with_classes(
            W.Text(value="", placeholder="new seed", description="seed",
                   layout=W.Layout(width="170px"), continuous_update=False),
            "cb-seed",
        )  # fmt: skip
        self.new_match_button = v.make_button("new match", "cb-new-match",
                                              on_click=self._new_match)  # fmt: skip
        self.table = v.make_html("cb-play-table")
        self.click_box = v.with_classes(W.Text(value=""), "cb-card-click")
        self.click_box.layout.display = "none"
        self.click_box.observe(self._clicked, names="value")
        self.status = v.make_html("cb-play-status")
        self.call, self.call_button = v.make_call_entry(
            c.rules.min_call, 0, ("cb-play-call", "cb-play-call-button"), self._call
        )
        self.call_advice_button = v.make_button("suggest a call", "cb-call-advice",
                                                on_click=c.call_advice)  # fmt: skip
        self.call_advice = v.make_html("cb-call-advice-out")
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
        self.standing = v.make_html("cb-standing")
        self.review_button = v.make_button("review my play", "cb-review", on_click=self._review)
        self.next_button = v.make_button("next deal", "cb-next-deal", on_click=c.new_deal,
                                         button_style="primary")  # fmt: skip
        self.review = v.make_html("cb-review-out")
        self.after = v.with_classes(W.VBox([]), "cb-after-box")
        self.after_pick = v.with_classes(
            W.Dropdown(options=[("deal 1", 1)], value=1, description="replay",
                       layout=W.Layout(width="200px", display="none")),
            "cb-after-pick",
        )  # fmt: skip
        self._picking = False  # the options being replaced: no redraw for each change
        self.after_pick.observe(self._picked, names="value")
        self._after_view: AfterDealView | None = None
        self.log = v.make_html("cb-play-log")
        self.calling_row = W.HBox([self.call, self.call_button, self.call_advice_button])
        self.playing_row = W.HBox([self.hint_button, self.reading_button, self.progress])
        self.over_row = W.HBox([self.next_button, self.review_button, self.after_pick])
        self.widget = v.with_classes(
            W.VBox(
                [
                    self.heading,
                    W.HBox([self.opponents, self.seed, self.new_match_button]),
                    self.table,
                    self.click_box,
                    self.status,
                    self.calling_row,
                    self.call_advice,
                    self.playing_row,
                    self.hint,
                    self.reading,
                    self.over_row,
                    self.standing,
                    self.review,
                    self.after,
                    self.log,
                ]
            ),
            "cb-play-against-bots",
        )
        c.observe(self.refresh)
        self.refresh()

    # --- actions ----------------------------------------------------------------------------
    def _busy(self, on: bool) -> None:
        self.progress.value = 0
        self.progress.layout.visibility = "visible" if on else "hidden"

    def _call(self) -> None:
        self.controller.call(self.call.value)

    def _clicked(self, change: dict[str, Any]) -> None:
        """A card clicked in the picture ("<card letters> <time>" in the hidden box)."""
        text = str(change["new"]).split()
        if text:
            self.clicked(text[0])

    def clicked(self, card: str) -> bool:
        """Play ``card`` (its letters, as the picture's ``data-card``), as a click on it does."""
        return self.controller.play(card)

    def _new_match(self) -> None:
        c = self.controller
        try:
            c.new_match(self.seed.value.strip() or None, opponents=self.opponents.value)
        except ValueError as exc:  # a seed that is not a whole number >= 0
            c.message = str(exc)
            self.refresh()
            return
        self.seed.value = ""

    def _hint(self) -> None:
        self.controller.start_hint()  # answers at once, then deepens on its own thread

    def _reading(self) -> None:
        self.controller.cards()

    def _review(self) -> None:
        self._busy(True)
        try:
            self.controller.review(progress=v.bar_progress(self.progress))
        finally:
            self._busy(False)

    def _hint_html(self) -> str:
        u = self.controller.hint_update
        status = ""
        if u is not None:
            status = (
                f'<div class="cb-advice-status" data-final="{str(u.final).lower()}" '
                f'data-solved="{u.solved}" style="color:#555">{escape(u.status())}</div>'
            )
        sd = self.controller.last_hint
        if sd is None and u is not None:
            return (
                f'<div class="cb-hint-table"><b>Hint:</b> {escape(u.card.symbol())} (the '
                f"learned play policy's card: no layout of the hidden cards solved yet)"
                f"{status}</div>"
            )
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
            f"{rows}</table>{status}</div>"
        )

    def _call_advice_html(self) -> str:
        a = self.controller.last_call_advice
        if a is None:
            return ""
        bold = ' style="font-weight:700"'
        rows = "".join(
            f"<tr{bold if call == a.call else ''}><td>{call}</td>"
            f"<td>{expected:+.1f}</td><td>{_percent(make)}</td></tr>"
            for call, expected, make in a.rows
            if make > 0.005 or call <= a.call
        )
        return (
            f'<div class="cb-call-advice-text">{escape(a.text())}'
            '<table style="font-size:12px"><tr><th>call</th><th>expected</th><th>made</th></tr>'
            f"{rows}</table></div>"
        )

    def _table_html(self) -> str:
        c = self.controller
        over = c.phase == "over"
        hidden = () if over else tuple(s for s in range(4) if s != c.seat)
        svg = table_svg(
            c.position,
            c.seat,
            calls=c.calls if len(c.calls) == 4 else None,
            names=c.names,
            notes=[c.deal_heading(), f"You play against three {c.opponents} bots."],
            hidden=hidden,
            calling=len(c.calls) if c.phase == "call" else None,
        )
        click = escape(CLICK_JS)
        return f'{CLICK_CSS}<div class="cb-clickable-hand" onclick="{click}">{svg}</div>'

    def _picked(self, _change: dict[str, Any]) -> None:
        if not self._picking:
            self._show_after()

    def _show_after(self) -> None:
        """The replay of the deal just over (or of an earlier deal of the match, chosen)."""
        c = self.controller
        pick = self.after_pick
        if c.phase != "over":
            pick.layout.display = "none"
            if self._after_view is not None:
                self._after_view = None
                self.after.children = ()
            return
        options = [(f"deal {n}", n) for n in range(1, len(c.finished) + 1)]
        if list(pick.options) != options:
            self._picking = True
            try:
                pick.options = options
                pick.value = len(options)  # the deal just over
            finally:
                self._picking = False
        pick.layout.display = None if len(options) > 1 else "none"
        after = c.after_deal(pick.value)
        if self._after_view is None or self._after_view.controller is not after:
            note = (
                "" if after.review is not None
                else "“review my play” draws your expected score across the deal here."
            )  # fmt: skip
            self._after_view = AfterDealView(after, note=note)
            self.after.children = (self._after_view.widget,)

    def refresh(self) -> None:
        """Redraw everything from the controller's state."""
        c = self.controller
        over = c.phase == "over"
        v.set_if_changed(self.heading, "value", f"<b>{escape(c.deal_heading())}</b>")
        v.set_if_changed(self.opponents, "value", c.opponents)
        v.set_if_changed(self.table, "value", self._table_html())
        status = escape(c.status())
        if c.message:
            status += "<br>" + v.error_html(c.message)
        v.set_if_changed(self.status, "value", f"<div>{status}</div>")
        calling = c.phase == "call"
        self.call.disabled = self.call_button.disabled = not calling
        self.calling_row.layout.display = None if calling else "none"
        v.set_if_changed(self.call_advice, "value", self._call_advice_html() if calling else "")
        playing = c.phase == "play"
        self.playing_row.layout.display = None if playing else "none"
        self.hint_button.disabled = not playing
        v.set_if_changed(self.hint, "value", self._hint_html() if playing else "")
        self.reading_button.disabled = not playing
        cards = c.last_cards
        grid = reading_html(cards, names=c.names) if cards and playing else ""  # the table's names
        v.set_if_changed(self.reading, "value", grid)
        self.over_row.layout.display = None if over else "none"
        self.review_button.disabled = not over
        self.next_button.description = "new match" if c.match_over else "next deal"
        standing = c.standing() if c.match.deals else ""
        table = c.match._repr_html_() if c.match.deals else ""
        v.set_if_changed(self.standing, "value", f"<div><b>{escape(standing)}</b>{table}</div>")
        rv = c.last_review
        v.set_if_changed(self.review, "value", rv._repr_html_() if rv is not None and over else "")
        self._show_after()
        recent = "<br>".join(escape(x) for x in c.log[-8:])
        v.set_if_changed(self.log, "value", f'<div style="color:#555">{recent}</div>')


def play_against_bots(
    rules: Ruleset | str | None = None,
    seat: int = 0,
    *,
    seed: int | None = None,
    opponents: str = "strong",
) -> W.Widget:
    """A match at table seat ``seat`` against three ``opponents`` (``simple``, ``model`` or
    ``strong``) under ``rules`` (None: ``rules.DEFAULT_RULES``); ``seed`` None deals a fresh
    match (its seed is shown on the page, to replay it)."""
    return PlayTableView(PlayTable(rules, seat, seed=seed, opponents=opponents)).widget
