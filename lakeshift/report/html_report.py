"""A self-contained HTML report (inline CSS and SVG charts; opens offline, no scripts)."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

_COLORS = {
    "switched": "#2e7d32",
    "validated": "#66bb6a",
    "backfilled": "#42a5f5",
    "planned": "#bdbdbd",
    "failed": "#e53935",
    "skipped": "#ffb300",
    "rolled_back": "#8d6e63",
    "equal": "#2e7d32",
    "mismatch": "#e53935",
    "stale": "#ffb300",
    "missing": "#9e9e9e",
    "extra": "#ab47bc",
    "ok": "#2e7d32",
    "cut-over": "#1b5e20",
    "partial": "#ffb300",
}
_CSS = """body{font:14px system-ui,sans-serif;margin:24px;color:#222}h1{font-size:22px}
h2{font-size:17px;margin-top:28px}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f5f5f5}
.tag{display:inline-block;padding:1px 6px;border-radius:3px;color:#fff}
.legend span{margin-right:12px}"""


@dataclass(frozen=True)
class PartitionRow:
    name: str
    source_rows: int
    target_rows: int | None
    status: str
    validation: str | None
    served_from: str
    bytes: int = 0  # on disk, in the source


@dataclass(frozen=True)
class ReportData:
    source: str
    target: str | None
    generated_at: str
    partitions: Sequence[PartitionRow]
    anomalies: Sequence[tuple[str, str, int]]  # code, severity, count
    runs: Sequence[dict[str, Any]] = field(default_factory=list)
    format: str | None = None  # the target's format, as the latest migrate run recorded it


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _bars(
    title: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, str, Sequence[float]]],
    height: int = 180,
) -> str:
    """Grouped vertical bars as inline SVG."""
    count = max(len(labels), 1)
    peak = max([v for _, _, values in series for v in values] + [1])
    width = max(480, count * 6 * len(series) + 60)
    slot = (width - 50) / count
    bar = min(max(slot / (len(series) + 1), 1), 36)  # a lone run is not a wall of colour
    parts = [
        f'<svg role="img" aria-label="{_e(title)}" width="{width}" height="{height + 40}" '
        f'viewBox="0 0 {width} {height + 40}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="0" y="12" font-size="12">{_e(title)} (max {peak:,.0f})</text>',
    ]
    for i, label in enumerate(labels):
        for j, (_, color, values) in enumerate(series):
            h = values[i] / peak * height
            x = 45 + i * slot + j * bar
            parts.append(
                f'<rect x="{x:.1f}" y="{20 + height - h:.1f}" width="{bar:.1f}" '
                f'height="{h:.1f}" fill="{color}"><title>{_e(label)}: '
                f"{values[i]:,.0f}</title></rect>"
            )
    if count <= 12:  # few bars: name them under the axis (many: the tooltip names them)
        for i, label in enumerate(labels):
            text = label if len(label) <= 18 else label[:17] + "…"
            parts.append(
                f'<text x="{45 + i * slot:.1f}" y="{height + 34}" font-size="10">{_e(text)}</text>'
            )
    parts.append("</svg>")
    legend = "".join(
        f'<span><span class="tag" style="background:{c}">&nbsp;</span> {_e(n)}</span>'
        for n, c, _ in series
    )
    return f'<div class="legend">{legend}</div>' + "".join(parts)


def _stacked(title: str, counts: Counter[str], width: int = 480, height: int = 22) -> str:
    """One horizontal bar split by state, as inline SVG (a segment's width is its share)."""
    total = sum(counts.values()) or 1
    parts = [
        f'<svg role="img" aria-label="{_e(title)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">'
    ]
    x = 0.0
    for state, n in sorted(counts.items()):
        w = n / total * width
        parts.append(
            f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="{height}" '
            f'fill="{_COLORS.get(state, "#757575")}"><title>{_e(state)}: {n}</title></rect>'
        )
        x += w
    return "".join(parts) + "</svg>"


def _counts_table(title: str, counts: Counter[str], unit: str = "partitions") -> str:
    rows = "".join(
        f'<tr><td><span class="tag" style="background:{_COLORS.get(k, "#757575")}">'
        f"{_e(k)}</span></td><td>{v}</td></tr>"
        for k, v in sorted(counts.items())
    )
    return (
        f"<h2>{_e(title)}</h2>{_stacked(title, counts)}"
        f"<table><tr><th>state</th><th>{_e(unit)}</th></tr>{rows}</table>"
    )


def render_html(data: ReportData) -> str:
    names = [p.name for p in data.partitions]
    disk = _bars(
        "Bytes on disk per partition (source files)",
        names,
        [("bytes", "#00897b", [float(p.bytes) for p in data.partitions])],
        height=120,
    )
    sizes = _bars(
        "Rows per partition: source vs target",
        names,
        [
            ("source (ORC footers)", "#1e88e5", [p.source_rows for p in data.partitions]),
            ("target", "#43a047", [p.target_rows or 0 for p in data.partitions]),
        ],
    )
    rows = "".join(
        f"<tr><td>{_e(p.name)}</td><td>{p.source_rows:,}</td>"
        f"<td>{'' if p.target_rows is None else f'{p.target_rows:,}'}</td>"
        f'<td><span class="tag" style="background:{_COLORS.get(p.status, "#757575")}">'
        f"{_e(p.status)}</span></td><td>{_e(p.validation or '')}</td>"
        f"<td>{_e(p.served_from)}</td></tr>"
        for p in data.partitions
    )
    anomalies = "".join(
        f"<tr><td>{_e(c)}</td><td>{_e(s)}</td><td>{n}</td></tr>" for c, s, n in data.anomalies
    )
    runs = "".join(
        f"<tr><td>{_e(r.get('run_id'))}</td><td>{_e(r.get('status'))}</td>"
        f"<td>{_e(r.get('rows', ''))}</td><td>{_e(r.get('rows_per_second', ''))}</td>"
        "</tr>"
        for r in data.runs
    )
    throughput = _bars(
        "Throughput per run (rows/s)",
        [str(r.get("run_id")) for r in data.runs],
        [("rows/s", "#8e24aa", [float(r.get("rows_per_second") or 0) for r in data.runs])],
        height=120,
    )
    fmt = f" ({_e(data.format)})" if data.format else ""
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>lakeshift: {_e(data.source)}</title><style>{_CSS}</style></head><body>
<h1>{_e(data.source)} → {_e(data.target or "(no target yet)")}{fmt}</h1>
<p>Generated {_e(data.generated_at)} by lakeshift.</p>
{_counts_table("Migration status", Counter(p.status for p in data.partitions))}
{_counts_table("Validation", Counter(p.validation or "not validated" for p in data.partitions))}
<h2>Partition sizes</h2>{disk}
<h2>Rows per partition</h2>{sizes}
<h2>Throughput</h2>{throughput}
<table><tr><th>run</th><th>status</th><th>rows</th><th>rows/s</th></tr>{runs}</table>
<h2>Anomalies</h2><table><tr><th>code</th><th>severity</th><th>count</th></tr>{anomalies}</table>
<h2>Partitions</h2><table><tr><th>partition</th><th>source rows</th><th>target rows</th>
<th>status</th><th>validation</th><th>served from</th></tr>{rows}</table>
</body></html>
"""


def render_bulk_html(summary: dict[str, Any], generated_at: str) -> str:
    """The bulk run's page: per-table charts and a table linking each table's own report.

    ``summary`` is ``BulkResult.to_json()``; links are relative (``../DB.TABLE/``), so the
    reports directory can be copied elsewhere as a whole.
    """
    tables = summary["tables"]
    names = [t["source"] for t in tables]
    rows_chart = _bars(
        "Rows backfilled in this run, per table",
        names,
        [("rows", "#1e88e5", [float(t["rows_backfilled"]) for t in tables])],
        height=140,
    )
    time_chart = _bars(
        "Seconds per table",
        names,
        [("seconds", "#8e24aa", [float(t["seconds"]) for t in tables])],
        height=100,
    )
    statuses = Counter(str(t["status"]) for t in tables)
    lines = "".join(
        f'<tr><td><a href="../{_e(t["source"])}/report-latest.html">{_e(t["source"])}</a></td>'
        f"<td>{_e(t['target'])}</td>"
        f'<td><span class="tag" style="background:{_COLORS.get(t["status"], "#757575")}">'
        f"{_e(t['status'])}</span></td><td>{t['exit_code']}</td><td>{t['backfilled']}</td>"
        f"<td>{t['unchanged']}</td><td>{t['validated']}</td><td>{t['switched']}</td>"
        f"<td>{t['seconds']}</td><td>{_e(t['error'] or ', '.join(t['steps']))}</td></tr>"
        for t in tables
    )
    mode = " (dry run)" if summary["dry_run"] else ""
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>lakeshift bulk: {_e(summary["file"])}</title><style>{_CSS}</style></head><body>
<h1>Bulk run of {_e(summary["file"])}{mode}</h1>
<p>Generated {_e(generated_at)} by lakeshift: {len(tables)} tables, parallel
{summary["parallel"]}, {summary["seconds"]} s, exit code {summary["exit_code"]}.</p>
{_counts_table("Tables by status", statuses, "tables")}
<h2>Rows</h2>{rows_chart}
<h2>Time</h2>{time_chart}
<h2>Tables</h2><table><tr><th>table</th><th>target</th><th>status</th><th>exit</th>
<th>backfilled</th><th>unchanged</th><th>validated</th><th>switched</th><th>seconds</th>
<th>steps or error</th></tr>{lines}</table>
</body></html>
"""
