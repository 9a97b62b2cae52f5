"""Report charts as HTML fragments drawn by plotly.js, which the page inlines once (offline).

Every chart has a title, axis titles, a legend and hover labels. Many bars are aggregated: past
``MAX_BARS`` partitions (or tables), consecutive ones are summed into ranges, so a report of
10,000 partitions stays one screen wide. A chart with nothing to show is a sentence instead.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lakeshift.report.palette import UNKNOWN

MAX_BARS = 200
_CONFIG = {"responsive": True, "displaylogo": False, "modeBarButtonsToRemove": ["toImage"]}
_FONT = {"family": "system-ui, sans-serif", "size": 12, "color": "#222"}


@dataclass(frozen=True)
class Series:
    """One set of bars: its legend name, colour and one value per label."""

    name: str
    color: str
    values: Sequence[float]


@dataclass(frozen=True)
class Aggregated:
    """Bars after aggregation: labels, the series' values, and what each bar covers."""

    labels: list[str]
    series: list[Series]
    covers: list[int]  # how many original labels each bar sums


def aggregate(labels: Sequence[str], series: Sequence[Series], max_bars: int) -> Aggregated:
    """Sum consecutive labels into at most ``max_bars`` ranges named ``first … last``."""
    if len(labels) <= max_bars:
        return Aggregated(list(labels), list(series), [1] * len(labels))
    size = math.ceil(len(labels) / max_bars)
    starts = range(0, len(labels), size)
    names = [
        labels[i] if i == min(i + size, len(labels)) - 1 else f"{labels[i]} … {labels[j - 1]}"
        for i, j in ((i, min(i + size, len(labels))) for i in starts)
    ]
    summed = [
        Series(s.name, s.color, [float(sum(s.values[i : i + size])) for i in starts])
        for s in series
    ]
    return Aggregated(names, summed, [min(size, len(labels) - i) for i in starts])


def plotly_script() -> str:
    """plotly.js inline (about 4.8 MB): the page draws its charts with no network access."""
    from plotly.offline import get_plotlyjs

    return f'<script type="text/javascript">{get_plotlyjs()}</script>'


def sentence(text: str) -> str:
    return f'<p class="empty">{html.escape(text)}</p>'


def _fragment(figure: Any, chart_id: str) -> str:
    import plotly.io as pio

    fragment: str = pio.to_html(
        figure,
        include_plotlyjs=False,
        full_html=False,
        config=_CONFIG,
        div_id=chart_id,
        validate=False,
    )
    return fragment


def _layout(title: str, x_title: str, y_title: str, height: int) -> dict[str, Any]:
    return {
        "title": {"text": html.escape(title), "x": 0, "font": {"size": 14}},
        "xaxis": {"title": {"text": html.escape(x_title)}, "automargin": True},
        "yaxis": {"title": {"text": html.escape(y_title)}, "automargin": True},
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 60, "b": 40},
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"},
        "template": "plotly_white",
        "font": _FONT,
        "autosize": True,
        "bargap": 0.15,
    }


def bar_chart(
    chart_id: str,
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    *,
    x_title: str,
    y_title: str,
    unit: str,
    empty: str,
    items: str = "partitions",
    height: int = 340,
) -> str:
    """Vertical bars per label (grouped by series); ranges of labels past ``MAX_BARS``."""
    import plotly.graph_objects as go

    if not labels or not any(v for s in series for v in s.values):
        return sentence(empty)
    bars = aggregate(labels, series, MAX_BARS)
    if any(n > 1 for n in bars.covers):
        x_title = f"{x_title}, summed in ranges of up to {max(bars.covers):,} in order"
    figure = go.Figure(
        [
            go.Bar(
                x=[html.escape(label) for label in bars.labels],
                y=list(s.values),
                name=html.escape(s.name),
                marker={"color": s.color, "line": {"width": 0}},
                customdata=[
                    f"<br>{n:,} {html.escape(items)} summed" if n > 1 else "" for n in bars.covers
                ],
                hovertemplate=(
                    "%{x}<br>%{fullData.name}: %{y:,}" + f" {html.escape(unit)}"
                    "%{customdata}<extra></extra>"
                ),
            )
            for s in bars.series
        ],
        _layout(title, x_title, y_title, height),
    )
    many = len(bars.labels) > 8
    figure.update_xaxes(type="category", tickangle=-45 if many else 0, nticks=30 if many else None)
    # A lone bar is not a wall of colour: few bars keep wide gaps.
    figure.update_layout(
        barmode="group",
        bargap=0.6 if len(bars.labels) <= 3 else 0.15,
        showlegend=len(series) > 1 or None,
    )
    return _fragment(figure, chart_id)


def state_chart(
    chart_id: str,
    title: str,
    groups: Sequence[tuple[str, Counter[str], Mapping[str, str]]],
    *,
    unit: str,
    empty: str,
) -> str:
    """One horizontal bar per group (``name, counts, palette``), split into its states."""
    import plotly.graph_objects as go

    if not any(sum(counts.values()) for _, counts, _ in groups):
        return sentence(empty)
    traces = []
    for group, counts, palette in groups:
        for state, count in sorted(counts.items(), key=lambda kv: _order(palette, kv[0])):
            traces.append(
                go.Bar(
                    x=[count],
                    y=[html.escape(group)],
                    orientation="h",
                    name=html.escape(state),
                    legendgroup=html.escape(group),
                    legendgrouptitle={"text": html.escape(group)},
                    marker={"color": palette.get(state, UNKNOWN), "line": {"width": 0}},
                    text=[f"{html.escape(state)} {count:,}"],
                    textposition="inside",
                    insidetextanchor="middle",
                    hovertemplate=f"{html.escape(group)}: %{{fullData.name}} %{{x:,}} "
                    f"{html.escape(unit)}<extra></extra>",
                )
            )
    layout = _layout(title, unit, "", 200 + 50 * len(groups))
    layout["legend"] = {
        "orientation": "h",
        "y": -0.35 - 0.05 * len(groups),
        "yanchor": "top",
        "groupclick": "toggleitem",
        "traceorder": "grouped",
    }
    layout["margin"] = {"l": 60, "r": 20, "t": 50, "b": 20}
    figure = go.Figure(traces, layout)
    figure.update_layout(barmode="stack", uniformtext={"minsize": 9, "mode": "hide"})
    figure.update_yaxes(autorange="reversed")
    return _fragment(figure, chart_id)


def _order(palette: Mapping[str, str], state: str) -> tuple[int, str]:
    keys = list(palette)
    return (keys.index(state) if state in keys else len(keys), state)


def histogram(
    chart_id: str, title: str, values: Sequence[float], *, x_title: str, color: str, empty: str
) -> str:
    """How many items fall in each range of ``values`` (e.g. partitions by size)."""
    import plotly.graph_objects as go

    if not values or not any(values):
        return sentence(empty)
    figure = go.Figure(
        [
            go.Histogram(
                x=list(values),
                nbinsx=40,
                marker={"color": color, "line": {"width": 0}},
                hovertemplate="%{x}: %{y:,} partitions<extra></extra>",
                name="partitions",
            )
        ],
        _layout(title, x_title, "partitions", 320),
    )
    return _fragment(figure, chart_id)
