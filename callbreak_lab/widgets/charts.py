"""Matplotlib charts (Agg backend) rendered to PNG bytes for ipywidgets ``Image`` widgets."""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg", force=False)
from matplotlib.figure import Figure

from callbreak_lab.widgets.backend import Forecast

__all__ = ["bar_png", "expected_scores_png", "trick_distribution_png"]

BLUE = "#2f6db5"
ORANGE = "#e08a1e"
GREY = "#9aa5b1"


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    return buf.getvalue()


def expected_scores_png(forecast: Forecast, width: float = 4.6, height: float = 2.6) -> bytes:
    """Bar chart: expected score (points) of every legal call, the best call highlighted."""
    adv = forecast.advice
    calls = [int(c) for c in adv.calls]
    values = [float(e) / 10 for e in adv.expected]
    colours = [ORANGE if c == adv.call else BLUE for c in calls]
    fig = Figure(figsize=(width, height))
    ax = fig.add_subplot()
    ax.bar(calls, values, color=colours)
    ax.axhline(0, color="#444", linewidth=0.8)
    ax.set_xticks(calls)
    ax.set_xlabel("call")
    ax.set_ylabel("expected score")
    ax.set_title(f"Expected score per call (best: {adv.call})", fontsize=10)
    fig.tight_layout()
    return _png(fig)


def trick_distribution_png(
    forecast: Forecast,
    overlay: Forecast | None = None,
    call: int | None = None,
    width: float = 4.6,
    height: float = 2.6,
) -> bytes:
    """Histogram of P(tricks = t); an optional second forecast (the simulation) is overlaid as a
    step line, the floor (guaranteed tricks) as a grey outline, and ``call`` as a dashed line."""
    t = list(range(14))
    fig = Figure(figsize=(width, height))
    ax = fig.add_subplot()
    ax.bar(t, forecast.dist, color=BLUE, alpha=0.8, label=forecast.source)
    if forecast.floor is not None:
        ax.step(
            t, forecast.floor, where="mid", color=GREY, linewidth=1.2, label="floor (guaranteed)"
        )
    if overlay is not None:
        ax.step(t, overlay.dist, where="mid", color=ORANGE, linewidth=2, label=overlay.source)
    if call is not None:
        ax.axvline(call - 0.5, color="#c0392b", linestyle="--", linewidth=1, label=f"call {call}")
    ax.set_xticks(t)
    ax.set_xlim(-0.6, 13.6)
    ax.set_xlabel("tricks")
    ax.set_ylabel("probability")
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    return _png(fig)


def bar_png(
    labels: Sequence[str],
    values: Sequence[float],
    title: str,
    ylabel: str = "",
    width: float = 4.6,
    height: float = 2.4,
) -> bytes:
    """A plain bar chart (used by the trainer and the deal explorer)."""
    fig = Figure(figsize=(width, height))
    ax = fig.add_subplot()
    ax.bar(list(labels), list(values), color=BLUE)
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)
    fig.tight_layout()
    return _png(fig)
