from __future__ import annotations

from html.parser import HTMLParser

from lakeshift.report.html_report import PartitionRow, ReportData, render_bulk_html, render_html


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
    # Bars: 2 partitions x (bytes, source rows, target rows), 1 run; stacked status (2) and
    # validation (2).
    assert parser.tags.count("svg") == 5 and parser.tags.count("rect") == 2 * 3 + 1 + 2 + 2
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")  # nothing to fetch
    text = " ".join(parser.text)
    assert "positional-files" in text and "failed" in text and "not validated" in text


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
    parser = _Collect()
    parser.feed(page)
    assert "b" not in parser.tags  # the error text is text, not markup
    assert 'href="../db.a/report-latest.html"' in page
    assert "<b>db.b</b> missing" in "".join(parser.text)
    # Status bar (2 segments), rows and seconds per table (2 bars each).
    assert parser.tags.count("svg") == 3 and parser.tags.count("rect") == 2 + 2 + 2
