"""Markdown rendering of a migration plan."""

from __future__ import annotations

from pathlib import Path

from lakeshift.migrate.planner import MigrationPlan
from lakeshift.report.files import write_report


def plan_markdown(plan: MigrationPlan) -> str:
    totals = plan.to_json()["totals"]
    m = plan.mapping
    lines = [
        f"# Migration plan: `{plan.source}` → `{plan.target}` ({plan.format})",
        "",
        f"- target {'exists' if plan.target_exists else 'will be created'} "
        f"({plan.target_layout or plan.format}, partitioned by "
        f"{', '.join(f.name for f in m.partition_keys) or 'nothing'})",
        f"- read as **{m.semantics.label}** (setting `hive_version`); record key "
        f"`uuid` ({plan.key_mode}); `partitionpath` column",
        f"- partitions: {totals['new']} new, {totals['changed']} changed, "
        f"{totals['unchanged']} unchanged, {totals['refused']} refused",
        f"- to backfill: {totals['rows_to_backfill']:,} rows, {totals['bytes_to_backfill']:,} "
        f"bytes in {totals['batches']} batches, ~{totals['estimated_output_files']} output files",
        "- estimated duration: "
        + (
            f"{totals['estimated_seconds']} s (measured throughput "
            f"{plan.throughput_rows_per_second:,} rows/s)"
            if totals["estimated_seconds"] is not None
            else "unknown until a first batch has run"
        ),
        "",
        "## Target schema",
        "",
        "| id | column | Hive type | earlier names |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {f.id} | `{f.name}` | `{f.type}` | {', '.join(f.lineage[:-1])} |" for f in m.fields
    ]
    lines += ["", "## Batches", "", "| batch | partitions | rows | bytes |", "|---|---|---|---|"]
    lines += [
        f"| {b.index} | {b.partitions[0]} … {b.partitions[-1]} ({len(b.partitions)}) | "
        f"{b.rows:,} | {b.bytes:,} |"
        for b in plan.batches
    ]
    lines += [
        "",
        "## Partitions",
        "",
        "| partition | state | rows | files | reason |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| `{p.name}` | {p.state} | {p.rows:,} | {p.files} | {p.reason} |" for p in plan.partitions
    ]
    if plan.anomalies:
        lines += ["", "## Anomalies", "", "| code | count |", "|---|---|"]
        lines += [f"| {code} | {count} |" for code, count in sorted(plan.anomalies.items())]
    lines += ["", "## Spark configuration", "", "| key | value |", "|---|---|"]
    lines += [f"| `{k}` | `{v}` |" for k, v in sorted(plan.spark_conf.items())]
    lines += ["", *[f"> {note}" for note in plan.notes]]
    return "\n".join(lines) + "\n"


def write_plan_report(home: Path, plan: MigrationPlan) -> tuple[Path, Path]:
    """Save the plan as ``plan-*.json`` and ``plan-*.md`` under the table's reports."""
    return write_report(home, plan.source, "plan", plan.to_json(), plan_markdown(plan))
