"""Matplotlib charts (Agg backend) rendered to PNG bytes for ipywidgets ``Image`` widgets.

A chart of ``width`` x ``height`` inches is shown at ``SCREEN_DPI`` CSS pixels per inch
(:func:`css_size`) and rendered with ``PIXEL_RATIO`` image pixels per CSS pixel, so it stays sharp
on high-density screens; the views show every chart at exactly its CSS size (never stretched).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

from callbreak_lab.render.style import RED
from callbreak_lab.widgets.after_deal import CardValue
from callbreak_lab.widgets.backend import Forecast

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "HEIGHT",
    "PIXEL_RATIO",
    "SCREEN_DPI",
    "WIDTH",
    "css_size",
    "deal_values_figure",
    "deal_values_png",
    "expected_scores_figure",
    "expected_scores_png",
    "trick_distribution_figure",
    "trick_distribution_png",
]

BLUE = "#2f6db5"
ORANGE = "#e08a1e"
GREY = "#9aa5b1"
#: default chart size in inches
WIDTH, HEIGHT = 5.0, 3.0
#: CSS pixels per inch of figure on the page
SCREEN_DPI = 80
#: image pixels per CSS pixel
PIXEL_RATIO = 2


def css_size(width: float = WIDTH, height: float = HEIGHT) -> tuple[int, int]:
    """The on-page size ``(width, height)`` in CSS pixels of a chart of that many inches."""
    return round(width * SCREEN_DPI), round(height * SCREEN_DPI)


def _figure(width: float, height: float) -> Figure:
    """A new figure of ``width`` x ``height`` inches. Matplotlib (half a second of CPU) is
    imported by the first chart, not with this module: a Voilà page answers its first click
    before it draws a chart."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=SCREEN_DPI * PIXEL_RATIO)
    return buf.getvalue()


def expected_scores_figure(
    forecast: Forecast, width: float = WIDTH, height: float = HEIGHT
) -> Figure:
    """Bar chart: expected score (points) of every legal call, the best call highlighted. A call
    whose expected score is (about) zero has no visible bar, so it gets a flat marker at 0."""
    adv = forecast.advice
    calls = [int(c) for c in adv.calls]
    values = [float(e) / 10 for e in adv.expected]
    colours = [ORANGE if c == adv.call else BLUE for c in calls]
    fig = _figure(width, height)
    ax = fig.add_subplot()
    ax.bar(calls, values, color=colours)
    ax.axhline(0, color="#444", linewidth=0.8)
    span = max([1.0, *(abs(v) for v in values)])
    flat = [i for i, v in enumerate(values) if abs(v) < 0.01 * span]
    if flat:
        ax.scatter(
            [calls[i] for i in flat],
            [0.0] * len(flat),
            marker="_",
            s=140,
            linewidths=3,
            color=[colours[i] for i in flat],
            zorder=3,
        )
    ax.set_xticks(calls)
    ax.set_xlabel("call")
    ax.set_ylabel("expected score")
    ax.set_title(f"Expected score per call (best: {adv.call})", fontsize=10)
    fig.tight_layout()
    return fig


def expected_scores_png(forecast: Forecast, width: float = WIDTH, height: float = HEIGHT) -> bytes:
    """:func:`expected_scores_figure` as PNG bytes."""
    return _png(expected_scores_figure(forecast, width, height))


def trick_distribution_figure(
    forecast: Forecast,
    overlay: Forecast | None = None,
    call: int | None = None,
    width: float = WIDTH,
    height: float = HEIGHT,
) -> Figure:
    """Histogram of P(tricks = t); an optional second forecast (the simulation) is overlaid as a
    step line, the floor (guaranteed tricks) as a grey outline, and ``call`` as a dashed line.
    The legend sits above the plot, clear of the bars."""
    t = list(range(14))
    fig = _figure(width, height)
    ax = fig.add_subplot()
    ax.bar(t, forecast.dist, color=BLUE, alpha=0.8, label=forecast.source)
    if forecast.floor is not None:
        ax.step(
            t, forecast.floor, where="mid", color=GREY, linewidth=1.2, label="floor (guaranteed)"
        )
    if overlay is not None:
        ax.step(t, overlay.dist, where="mid", color=ORANGE, linewidth=2, label=overlay.source)
    if call is not None:
        ax.axvline(call - 0.5, color=RED, linestyle="--", linewidth=1, label=f"call {call}")
    ax.set_xticks(t)
    ax.set_xlim(-0.6, 13.6)
    ax.set_xlabel("tricks")
    ax.set_ylabel("probability")
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i] != forecast.source)  # bars first
    ax.legend(
        [handles[i] for i in order],
        [labels[i] for i in order],
        loc="lower left",
        bbox_to_anchor=(0.0, 1.0),
        ncol=2,
        fontsize=8,
        frameon=False,
        borderaxespad=0.2,
        handlelength=1.5,
        columnspacing=1.0,
    )
    fig.tight_layout()
    return fig


def trick_distribution_png(
    forecast: Forecast,
    overlay: Forecast | None = None,
    call: int | None = None,
    width: float = WIDTH,
    height: float = HEIGHT,
) -> bytes:
    """:func:`trick_distribution_figure` as PNG bytes."""
    return _png(trick_distribution_figure(forecast, overlay, call, width, height))


# --- after a deal: the studied seat's expected score card by card (widgets.after_deal) -----------


def deal_values_figure(
    values: Sequence[CardValue],
    *,
    unit: str = "points",
    final: float | None = None,
    at_trick: int | None = None,
    width: float = 6.0,
    height: float = HEIGHT,
) -> Figure:
    """Line chart over the tricks of a deal: the single-dummy expected score of each card the
    seat played and of the best card (hollow where they differ), the double-dummy score of its
    call after the card, ``final`` (its score at the end) as a dashed line and ``at_trick`` (the
    replay's trick) as a grey band."""
    fig = _figure(width, height)
    ax = fig.add_subplot()
    tricks = [v.trick for v in values]
    sd = [(v.trick, v.played) for v in values if v.played is not None]
    dd = [(v.trick, v.dd) for v in values if v.dd is not None]
    if dd:
        ax.step([t for t, _ in dd], [y for _, y in dd], where="post", color=GREY, linewidth=1.5,
                label="double dummy (every hand seen)")  # fmt: skip
    if sd:
        ax.plot([t for t, _ in sd], [y for _, y in sd], "o-", color=BLUE, linewidth=2,
                markersize=5, label="your card (single dummy)")  # fmt: skip
    worse = [
        (v.trick, v.best)
        for v in values
        if v.played is not None and v.best is not None and v.played < v.best - 0.005
    ]
    if worse:
        ax.scatter([t for t, _ in worse], [y for _, y in worse], s=40, facecolors="none",
                   edgecolors=ORANGE, linewidths=1.8, zorder=3, label="the best card")  # fmt: skip
    if final is not None:
        ax.axhline(final, color=RED, linestyle="--", linewidth=1, label=f"final: {final:g}")
    if at_trick is not None:
        ax.axvspan(at_trick - 0.5, at_trick + 0.5, color="#dddddd", alpha=0.6, zorder=0)
    ax.set_xlim(0.5, 13.5)
    ax.set_xticks(range(1, 14))
    ax.set_xlabel("trick (your card)")
    ax.set_ylabel("expected score" if unit == "points" else "expected tricks")
    if not tricks:
        ax.text(7, 0.5, "no values yet", ha="center", va="center", color=GREY)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, fontsize=8, frameon=False,
              borderaxespad=0.2, handlelength=1.5, columnspacing=1.0)  # fmt: skip
    fig.tight_layout()
    return fig


def deal_values_png(
    values: Sequence[CardValue],
    *,
    unit: str = "points",
    final: float | None = None,
    at_trick: int | None = None,
    width: float = 6.0,
    height: float = HEIGHT,
) -> bytes:
    """:func:`deal_values_figure` as PNG bytes."""
    return _png(deal_values_figure(values, unit=unit, final=final, at_trick=at_trick,
                                   width=width, height=height))  # fmt: skip
