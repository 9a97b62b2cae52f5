from __future__ import annotations

from html.parser import HTMLParser

from lakeshift.report.html_report import PartitionRow, ReportData, render_html


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_report_is_self_contained_escaped_and_shows_every_partition() -> None:
    hostile = "dt=<script>alert('x')</script>&"
    data = ReportData(
        source="db.t",
        target="db.t_iceberg",
        generated_at="2026-01-01T00:00:00+00:00",
        partitions=[
            PartitionRow(hostile, 10, 10, "switched", "equal", "lake"),
            PartitionRow("dt=2", 5, None, "failed", None, "hive"),
        ],
        anomalies=[("positional-files", "warning", 3)],
        runs=[{"run_id": "r1", "status": "ok", "rows": 15, "rows_per_second": 7.5}],
    )
    page = render_html(data)
    parser = _Collect()
    parser.feed(page)
    assert "script" not in parser.tags  # the partition name is text, not markup
    assert hostile in "".join(parser.text)
    # Bars: 2 partitions x (source, target), 1 run; stacked status (2) and validation (2).
    assert parser.tags.count("svg") == 4 and parser.tags.count("rect") == 2 * 2 + 1 + 2 + 2
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")  # nothing to fetch
    text = " ".join(parser.text)
    assert "positional-files" in text and "failed" in text and "not validated" in text
