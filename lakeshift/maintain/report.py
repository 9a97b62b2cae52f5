"""The maintenance report as Markdown (the JSON is ``MaintainResult.to_json()``)."""

from __future__ import annotations

from collections.abc import Callable

from lakeshift.maintain.run import MaintainResult, TableStats


def summary_rows(result: MaintainResult) -> list[tuple[str, str, str]]:
    """(measure, before, after) for the terminal and Markdown tables."""
    before, after = result.before, result.after
    measures: tuple[tuple[str, Callable[[TableStats], int]], ...] = (
        ("partitions", lambda t: len(t.partitions)),
        ("data files", lambda t: t.files),
        ("bytes", lambda t: t.bytes),
        ("rows", lambda t: t.rows),
        ("snapshots/versions", lambda t: t.versions),
        ("max files in a partition", _max_files),
    )
    return [
        (label, f"{of(before):,}", "" if after is None else f"{of(after):,}")
        for label, of in measures
    ]


def _max_files(stats: TableStats) -> int:
    return max((p.files for p in stats.partitions), default=0)


def partition_rows(result: MaintainResult, limit: int = 50) -> list[tuple[str, str, str, str]]:
    """(partition, files before, files after, bytes after) for partitions that changed."""
    after = {p.partition: p for p in (result.after.partitions if result.after else ())}
    out = []
    for p in result.before.partitions:
        later = after.get(p.partition)
        if later is not None and later.files == p.files:
            continue
        out.append(
            (
                p.partition,
                str(p.files),
                "" if later is None else str(later.files),
                "" if later is None else f"{later.bytes:,}",
            )
        )
    return out[:limit]


def maintenance_markdown(result: MaintainResult) -> str:
    title = "Maintenance plan" if result.dry_run else "Maintenance"
    lines = [
        f"# {title} of `{result.lake_table}` ({result.format})",
        "",
        "| | before | after |",
        "|---|---|---|",
        *[f"| {m} | {b} | {a} |" for m, b, a in summary_rows(result)],
        "",
        f"- partitions compacted{' (candidates)' if result.dry_run else ''}: "
        f"{len(result.compacted)}",
        f"- partitions not compacted (holding files adopted from the Hive source): "
        f"{len(result.not_compacted)}",
        f"- snapshots/versions {'to expire' if result.dry_run else 'expired'}: "
        f"{result.would_expire}; files removed by expiry: {len(result.expired)}",
        f"- orphan files removed: {len(result.orphans)}",
        *[f"- note: {n}" for n in result.notes],
    ]
    changed = partition_rows(result)
    if changed:
        lines += [
            "",
            "| partition | files before | files after | bytes after |",
            "|---|---|---|---|",
        ]
        lines += [f"| `{p}` | {b} | {a} | {s} |" for p, b, a, s in changed]
    return "\n".join(lines) + "\n"
