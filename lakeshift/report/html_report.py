"""A self-contained HTML report: one file, charts drawn by plotly.js inlined in it (offline)."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lakeshift.report import palette
from lakeshift.report.charts import (
    MAX_BARS,
    Series,
    bar_chart,
    histogram,
    plotly_script,
    state_chart,
)

_CSS = """body{font:14px system-ui,sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;
color:#222}h1{font-size:22px;overflow-wrap:anywhere}h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0;max-width:100%}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;overflow-wrap:anywhere}
th{background:#f5f5f5}.tag{display:inline-block;padding:1px 6px;border-radius:3px}
.empty{color:#555;font-style:italic}"""


@dataclass(frozen=True)
class PartitionRow:
    name: str
    source_rows: int
    target_rows: int | None
    status: str
    validation: str | None
    served_from: str
    bytes: int = 0  # on disk, in the source
    detail: str = ""  # why it failed, was refused, or is partial (the journal's error)


@dataclass(frozen=True)
class ReportData:
    source: str
    target: str | None
    generated_at: str
    partitions: Sequence[PartitionRow]
    anomalies: Sequence[tuple[str, str, int]]  # code, severity, count
    runs: Sequence[dict[str, Any]] = field(default_factory=list)
    format: str | None = None  # the target's format, as the latest migrate run recorded it
    cutover: str | None = None  # "done" or "reverted" once cutover or revert ran
    legacy: str | None = None  # the Hive table's name after a cutover
    profile: dict[str, Any] | None = None  # the latest ``--profile`` breakdown, if any
    follow: dict[str, Any] | None = None  # ``FollowState.summary``, once the table is followed
    skipped: Mapping[str, int] = field(default_factory=dict)  # objects not read, per class


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _tag(state: str, group: Mapping[str, str]) -> str:
    color = palette.state_color(state, dict(group))
    return (
        f'<span class="tag" style="background:{color};color:{palette.text_color(color)}">'
        f"{_e(state)}</span>"
    )


def _counts_table(counts: Counter[str], group: Mapping[str, str], unit: str) -> str:
    rows = "".join(
        f"<tr><td>{_tag(k, group)}</td><td>{v:,}</td></tr>"
        for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f"<table><tr><th>state</th><th>{_e(unit)}</th></tr>{rows}</table>"


def _page(title: str, body: str) -> str:
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)}</title><style>{_CSS}</style>{plotly_script()}</head><body>
{body}
</body></html>
"""


def _partition_charts(data: ReportData) -> str:
    names = [p.name for p in data.partitions]
    none = "No partitions yet: nothing to chart."
    if len(names) > MAX_BARS:
        sizes = histogram(
            "partition-sizes",
            f"Partitions by size on disk ({len(names):,} partitions)",
            [float(p.bytes) for p in data.partitions],
            x_title="bytes on disk per partition (source files)",
            color=palette.BYTES,
            empty="Every partition is empty: no bytes on disk.",
        )
    else:
        sizes = bar_chart(
            "partition-sizes",
            "Bytes on disk per partition (source files)",
            names,
            [Series("bytes on disk", palette.BYTES, [float(p.bytes) for p in data.partitions])],
            x_title="partition",
            y_title="bytes",
            unit="bytes",
            empty=none if not names else "Every partition is empty: no bytes on disk.",
        )
    rows = bar_chart(
        "partition-rows",
        "Rows per partition: source vs target",
        names,
        [
            Series(
                "source (ORC footers)",
                palette.SOURCE_ROWS,
                [float(p.source_rows) for p in data.partitions],
            ),
            Series(
                "target (validated)",
                palette.TARGET_ROWS,
                [float(p.target_rows or 0) for p in data.partitions],
            ),
        ],
        x_title="partition",
        y_title="rows",
        unit="rows",
        empty=none if not names else "Every partition is empty: no rows in source or target.",
    )
    return f"<h2>Partition sizes</h2>{sizes}<h2>Rows per partition</h2>{rows}"


def _throughput(runs: Sequence[dict[str, Any]]) -> str:
    working = [r for r in runs if float(r.get("rows") or 0) > 0]
    return bar_chart(
        "throughput",
        "Throughput per migrate run that backfilled rows",
        [str(r.get("run_id")) for r in working],
        [
            Series(
                "rows/s",
                palette.THROUGHPUT,
                [float(r.get("rows_per_second") or 0) for r in working],
            )
        ],
        x_title="run",
        y_title="rows per second",
        unit="rows/s",
        empty="No migrate run has backfilled rows yet: no throughput to show.",
        items="runs",
        height=300,
    )


def _partition_table(partitions: Sequence[PartitionRow]) -> str:
    rows = "".join(
        f"<tr><td>{_e(p.name)}</td><td>{p.source_rows:,}</td>"
        f"<td>{'' if p.target_rows is None else f'{p.target_rows:,}'}</td>"
        f"<td>{_tag(p.status, palette.MIGRATION)}</td>"
        f"<td>{_tag(p.validation, palette.VALIDATION) if p.validation else ''}</td>"
        f"<td>{_e(p.served_from)}</td><td>{_e(p.detail)}</td></tr>"
        for p in partitions
    )
    table = (
        "<table><tr><th>partition</th><th>source rows</th><th>target rows</th>"
        f"<th>status</th><th>validation</th><th>served from</th><th>why</th></tr>{rows}</table>"
    )
    if len(partitions) <= MAX_BARS:
        return table
    return f"<details><summary>All {len(partitions):,} partitions</summary>{table}</details>"


def _profile(profile: dict[str, Any] | None) -> str:
    """Where the latest profiled run's time went: each phase's own time, split into Spark jobs
    and the driver's share, and the whole breakdown as a table."""
    if not profile:
        return ""
    phases = profile["phases"]
    chart = bar_chart(
        "profile",
        f"{profile['label']}, started {profile.get('started_at', '?')}: "
        f"{profile['wall_seconds']} s",
        [p["phase"] for p in phases],
        [
            Series("in Spark jobs", palette.SPARK_JOBS, [p["spark_seconds"] for p in phases]),
            Series("driver", palette.DRIVER, [p["driver_seconds"] for p in phases]),
        ],
        x_title="phase (own time, without nested phases)",
        y_title="seconds",
        unit="s",
        empty="The profiled run recorded no phases.",
        items="phases",
    )
    columns = (
        "phase",
        "calls",
        "seconds",
        "own_seconds",
        "spark_jobs",
        "spark_seconds",
        "driver_seconds",
        "tasks",
        "task_cpu_seconds",
        "gc_seconds",
        "input_mb",
        "output_mb",
    )
    head = "".join(f"<th>{_e(c.replace('_', ' '))}</th>" for c in columns)
    rows = "".join(
        "<tr>" + "".join(f"<td>{_e(p[c])}</td>" for c in columns) + "</tr>" for p in phases
    )
    return (
        f"<h2>Where the time went</h2>{chart}<table><tr>{head}</tr>{rows}</table>"
        f"<p>{profile['outside_phases_seconds']} s outside named phases.</p>"
    )


def _cutover(data: ReportData) -> str:
    if data.cutover == "done":
        return (
            f"<p>{_tag('cut-over', palette.RUNS)} {_e(data.source)} is now the lake table; "
            f"the Hive table is {_e(data.legacy or '(legacy name)')}.</p>"
        )
    if data.cutover == "reverted":
        return f"<p>Cutover reverted: {_e(data.source)} is the Hive table again.</p>"
    return ""


def _follow(follow: dict[str, Any] | None) -> str:
    """A followed table: lag and the stale window per pass, and what each pass changed."""
    if not follow:
        return ""
    recent = follow["recent"]
    labels = [f"pass {p['pass']}" for p in recent]
    chart = bar_chart(
        "follow-lag",
        "Per pass: lag (oldest change the lake table had not caught up with) and the longest "
        "a reader could see a stale copy",
        labels,
        [
            Series("lag", palette.LAG, [float(p["lag_seconds"] or 0) for p in recent]),
            Series("stale window", palette.STALE, [float(p["stale_seconds"] or 0) for p in recent]),
        ],
        x_title="pass",
        y_title="seconds",
        unit="s",
        empty="Every recent pass was in step with no stale window: nothing to chart.",
        items="passes",
        height=300,
    )
    columns = ("pass", "added", "changed", "dropped", "withdrawn", "backfilled", "switched",
               "behind", "seconds")  # fmt: skip
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    rows = "".join(
        "<tr>" + "".join(f"<td>{_e(p.get(c, ''))}</td>" for c in columns) + "</tr>"
        for p in reversed(recent)
    )
    state = "in step" if follow["in_step"] else f"{follow['behind']} partition(s) behind"
    return (
        f"<h2>Live table</h2><p>{follow['passes']:,} pass(es); last pass: {_e(state)}, lag "
        f"{float(follow['lag_seconds'] or 0):.0f} s.</p>{chart}<table><tr>{head}</tr>{rows}</table>"
    )


def _skipped(skipped: Mapping[str, int]) -> str:
    """Objects lakeshift did not read because Hive does not (``inspect`` names them)."""
    if not skipped:
        return ""
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{n:,}</td></tr>" for k, n in sorted(skipped.items()))
    return (
        "<h3>Objects not read, as Hive does not read them</h3>"
        f"<table><tr><th>class</th><th>objects</th></tr>{rows}</table>"
    )


def render_html(data: ReportData) -> str:
    migration = Counter(p.status for p in data.partitions)
    validation = Counter(p.validation or "not validated" for p in data.partitions)
    states = state_chart(
        "states",
        f"Partitions by state ({len(data.partitions):,} partitions)",
        [
            ("migration", migration, palette.MIGRATION),
            ("validation", validation, palette.VALIDATION),
        ],
        unit="partitions",
        empty="No partitions yet: nothing to chart.",
    )
    runs = "".join(
        f"<tr><td>{_e(r.get('run_id'))}</td><td>{_tag(str(r.get('status')), palette.RUNS)}</td>"
        f"<td>{_e(r.get('rows', ''))}</td><td>{_e(r.get('rows_per_second', ''))}</td></tr>"
        for r in data.runs
    )
    anomalies = "".join(
        f"<tr><td>{_e(c)}</td><td>{_e(s)}</td><td>{n}</td></tr>" for c, s, n in data.anomalies
    )
    fmt = f" ({_e(data.format)})" if data.format else ""
    body = f"""<h1>{_e(data.source)} → {_e(data.target or "(no target yet)")}{fmt}</h1>
<p>Generated {_e(data.generated_at)} by lakeshift.</p>{_cutover(data)}
<h2>Status</h2>{states}{_follow(data.follow)}
<h3>Migration status</h3>{_counts_table(migration, palette.MIGRATION, "partitions")}
<h3>Validation</h3>{_counts_table(validation, palette.VALIDATION, "partitions")}
{_partition_charts(data)}
<h2>Throughput</h2>{_throughput(data.runs)}
<table><tr><th>run</th><th>status</th><th>rows</th><th>rows/s</th></tr>{runs}</table>
<h2>Anomalies</h2><table><tr><th>code</th><th>severity</th><th>count</th></tr>{anomalies}</table>
{_skipped(data.skipped)}
<h2>Partitions</h2>{_partition_table(data.partitions)}{_profile(data.profile)}"""
    return _page(f"lakeshift: {data.source}", body)


def render_bulk_html(summary: dict[str, Any], generated_at: str) -> str:
    """The bulk run's page: per-table charts and a table linking each table's own report.

    ``summary`` is ``BulkResult.to_json()``; links are relative (``../DB.TABLE/``), so the
    reports directory can be copied elsewhere as a whole.
    """
    tables = summary["tables"]
    names = [t["source"] for t in tables]
    statuses = Counter(str(t["status"]) for t in tables)
    status_chart = state_chart(
        "tables",
        f"Tables by status ({len(tables):,} tables)",
        [("tables", statuses, palette.RUNS)],
        unit="tables",
        empty="No tables in this run.",
    )
    rows_chart = bar_chart(
        "rows",
        "Rows backfilled in this run, per table",
        names,
        [Series("rows", palette.SOURCE_ROWS, [float(t["rows_backfilled"]) for t in tables])],
        x_title="table",
        y_title="rows",
        unit="rows",
        empty="No rows were backfilled in this run.",
        items="tables",
    )
    time_chart = bar_chart(
        "seconds",
        "Seconds per table",
        names,
        [Series("seconds", palette.SECONDS, [float(t["seconds"]) for t in tables])],
        x_title="table",
        y_title="seconds",
        unit="s",
        empty="No table took measurable time in this run.",
        items="tables",
        height=300,
    )
    lines = "".join(
        f'<tr><td><a href="../{_e(t["source"])}/report-latest.html">{_e(t["source"])}</a></td>'
        f"<td>{_e(t['target'])}</td><td>{_tag(str(t['status']), palette.RUNS)}</td>"
        f"<td>{t['exit_code']}</td><td>{t['backfilled']}</td>"
        f"<td>{t['unchanged']}</td><td>{t['validated']}</td><td>{t['switched']}</td>"
        f"<td>{t['seconds']}</td><td>{_e(t['error'] or ', '.join(t['steps']))}</td></tr>"
        for t in tables
    )
    mode = " (dry run)" if summary["dry_run"] else ""
    body = f"""<h1>Bulk run of {_e(summary["file"])}{mode}</h1>
<p>Generated {_e(generated_at)} by lakeshift: {len(tables)} tables, parallel
{summary["parallel"]}, {summary["seconds"]} s, exit code {summary["exit_code"]}.</p>
<h2>Tables by status</h2>{status_chart}{_counts_table(statuses, palette.RUNS, "tables")}
<h2>Rows</h2>{rows_chart}
<h2>Time</h2>{time_chart}
<h2>Tables</h2><table><tr><th>table</th><th>target</th><th>status</th><th>exit</th>
<th>backfilled</th><th>unchanged</th><th>validated</th><th>switched</th><th>seconds</th>
<th>steps or error</th></tr>{lines}</table>"""
    return _page(f"lakeshift bulk: {summary['file']}", body)
