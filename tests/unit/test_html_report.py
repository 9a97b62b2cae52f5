from __future__ import annotations

import itertools
import json
import math
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from lakeshift.report import palette
from lakeshift.report.charts import MAX_BARS, Series, aggregate
from lakeshift.report.html_report import PartitionRow, ReportData, render_bulk_html, render_html


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend((tag, k, v) for k, v in attrs)
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if not self._in_script:
            self.text.append(data)


def _parse(page: str) -> _Collect:
    parser = _Collect()
    parser.feed(page)
    return parser


def _figures(page: str) -> dict[str, tuple[list[dict[str, Any]], dict[str, Any]]]:
    """Each chart's plotly data and layout, as the page hands them to ``Plotly.newPlot``."""
    decoder = json.JSONDecoder()
    figures = {}
    for match in re.finditer(r'Plotly\.newPlot\(\s*"([^"]+)",\s*', page):
        data, end = decoder.raw_decode(page, match.end())
        layout, _ = decoder.raw_decode(page, page.index("{", end))
        figures[match.group(1)] = (data, layout)
    return figures


def _axis_titles(layout: dict[str, Any]) -> tuple[str, str]:
    return layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]


def _data(partitions: list[PartitionRow], runs: list[dict[str, Any]] | None = None) -> ReportData:
    return ReportData(
        source="db.t",
        target="db.t_iceberg",
        generated_at="2026-01-01T00:00:00+00:00",
        partitions=partitions,
        anomalies=[("positional-files", "warning", 3)],
        runs=runs or [],
    )


def test_report_is_one_offline_file_escaped_with_labelled_charts() -> None:
    hostile = "dt=<script>alert('x')</script>&"
    page = render_html(
        _data(
            [
                PartitionRow(hostile, 10, 10, "switched", "equal", "lake", bytes=900),
                PartitionRow("dt=2", 5, None, "failed", None, "hive", bytes=400),
            ],
            [{"run_id": "r1", "status": "ok", "rows": 15, "rows_per_second": 7.5}],
        )
    )
    parser = _parse(page)
    # Nothing to fetch: no external script, style, image or frame; plotly.js is inline.
    assert not [a for a in parser.attrs if a[1] in ("src", "href") and "//" in (a[2] or "")]
    assert "<script src" not in page and "Plotly.newPlot" in page and len(page) > 3_000_000
    assert hostile in "".join(parser.text)  # the partition name is text, not markup
    assert "<script>alert" not in page
    figures = _figures(page)
    assert set(figures) == {"states", "partition-sizes", "partition-rows", "throughput"}
    for name in ("partition-sizes", "partition-rows", "throughput"):
        x_title, y_title = _axis_titles(figures[name][1])
        assert x_title and y_title, name
        assert figures[name][1]["title"]["text"]
        assert all("hovertemplate" in trace for trace in figures[name][0])
    rows, _ = figures["partition-rows"]
    assert [t["name"] for t in rows] == ["source (ORC footers)", "target (validated)"]
    assert rows[0]["y"] == [10, 5] and rows[1]["y"] == [10, 0]
    assert [t["marker"]["color"] for t in rows] == [palette.SOURCE_ROWS, palette.TARGET_ROWS]
    text = " ".join(parser.text)
    assert "positional-files" in text and "failed" in text and "not validated" in text


def test_many_partitions_are_aggregated_and_the_page_keeps_its_width() -> None:
    partitions = [
        PartitionRow(f"p={i}", 5, 5, "validated", "equal", "hive", bytes=600 + i)
        for i in range(2_000)
    ]
    page = render_html(_data(partitions))
    figures = _figures(page)
    rows, layout = figures["partition-rows"]
    assert len(rows[0]["x"]) <= MAX_BARS and sum(rows[0]["y"]) == 10_000
    assert rows[0]["x"][0] == "p=0 … p=9" and "ranges of up to 10" in _axis_titles(layout)[0]
    sizes, _ = figures["partition-sizes"]
    assert sizes[0]["type"] == "histogram" and len(sizes[0]["x"]) == 2_000
    # No fixed widths: charts follow the window (a 2,000-partition SVG was 24,000 px wide).
    assert all("width" not in layout for _, layout in figures.values())
    assert not [a for a in _parse(page).attrs if a[1] == "width"]
    assert "<details><summary>All 2,000 partitions</summary>" in page


def test_aggregate_sums_consecutive_labels_into_named_ranges() -> None:
    bars = aggregate(
        [f"p={i}" for i in range(7)], [Series("rows", "#000000", [1, 2, 3, 4, 5, 6, 7])], 3
    )
    assert bars.labels == ["p=0 … p=2", "p=3 … p=5", "p=6"]
    assert list(bars.series[0].values) == [6, 15, 7] and bars.covers == [3, 3, 1]
    few = aggregate(["a", "b"], [Series("rows", "#000000", [1, 2])], 3)
    assert few.labels == ["a", "b"] and few.covers == [1, 1]


def test_nothing_to_chart_is_said_in_a_sentence_not_drawn() -> None:
    empty = render_html(_data([]))
    assert _figures(empty) == {}
    assert "No partitions yet: nothing to chart." in empty
    assert "No migrate run has backfilled rows yet" in empty
    # A run with no work (every partition unchanged) draws no empty throughput chart.
    idle = render_html(
        _data(
            [PartitionRow("dt=1", 5, 5, "validated", "equal", "hive", bytes=10)],
            [{"run_id": "r2", "status": "ok", "rows": 0, "rows_per_second": 0.0}],
        )
    )
    assert "throughput" not in _figures(idle)
    assert "No migrate run has backfilled rows yet" in idle
    assert "max 1" not in idle


# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
_CVD = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}  # fmt: skip


def _rgb(color: str) -> tuple[int, ...]:
    return tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))


def _seen(color: str, matrix: tuple[tuple[float, ...], ...]) -> tuple[float, ...]:
    def linear(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    def encoded(v: float) -> float:
        v = min(max(v, 0.0), 1.0)
        return 255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055)

    lin = [linear(c) for c in _rgb(color)]
    return tuple(encoded(sum(m * x for m, x in zip(row, lin))) for row in matrix)


def _closest(group: dict[str, str]) -> float:
    """The smallest difference between two states' colours, as anyone may see them."""
    return min(
        min(
            [math.dist(_rgb(a), _rgb(b))]
            + [math.dist(_seen(a, m), _seen(b, m)) for m in _CVD.values()]
        )
        for a, b in itertools.combinations(group.values(), 2)
    )


@pytest.mark.parametrize("group", ["MIGRATION", "VALIDATION", "RUNS"])
def test_every_state_has_its_own_colour_under_colour_blindness(group: str) -> None:
    # The former greens (switched #2e7d32 vs failed #e53935 under deuteranopia) differed by 24.
    assert _closest(getattr(palette, group)) >= 50


def test_tags_put_dark_text_on_light_colours() -> None:
    page = render_html(_data([PartitionRow("dt=1", 5, None, "skipped", "stale", "hive")]))
    assert f"background:{palette.YELLOW};color:#000000" in page
    assert f"background:{palette.RED};color:#FFFFFF" not in page  # not shown: no failure
    assert palette.text_color(palette.INDIGO) == "#FFFFFF"


def test_bulk_page_links_each_table_and_escapes_errors() -> None:
    def table(source: str, status: str, error: str | None) -> dict[str, object]:
        return {
            "source": source,
            "target": f"{source}_iceberg",
            "status": status,
            "exit_code": 0 if error is None else 6,
            "backfilled": 2,
            "unchanged": 1,
            "validated": 2,
            "switched": 3,
            "rows_backfilled": 40,
            "seconds": 1.5,
            "steps": ["migrate", "switch 2"],
            "error": error,
        }

    summary = {
        "file": "m.toml",
        "dry_run": False,
        "parallel": 2,
        "seconds": 3.0,
        "exit_code": 3,
        "tables": [table("db.a", "ok", None), table("db.b", "failed", "<b>db.b</b> missing")],
    }
    page = render_bulk_html(summary, "2026-01-01T00:00:00+00:00")
    parser = _parse(page)
    assert "b" not in parser.tags  # the error text is text, not markup
    assert 'href="../db.a/report-latest.html"' in page
    assert "<b>db.b</b> missing" in "".join(parser.text)
    figures = _figures(page)
    assert set(figures) == {"tables", "rows", "seconds"}
    assert figures["rows"][0][0]["y"] == [40, 40] and _axis_titles(figures["rows"][1]) == (
        "table",
        "rows",
    )
    statuses = {t["name"]: t["marker"]["color"] for t in figures["tables"][0]}
    assert statuses == {"ok": palette.RUNS["ok"], "failed": palette.RUNS["failed"]}
