"""Terminal renderings of lakeshift records."""

from __future__ import annotations

from collections import defaultdict

from lakeshift.cli.output import Output
from lakeshift.inspect.model import SEVERITY_ERROR, SEVERITY_WARNING, Anomaly, TableInventory
from lakeshift.listing import first_few

_SEVERITY_STYLE = {SEVERITY_ERROR: "[bold red]error[/]", SEVERITY_WARNING: "[yellow]warning[/]"}


def human_bytes(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def _grouped(anomalies: list[Anomaly]) -> list[tuple[Anomaly, list[str]]]:
    groups: dict[str, list[Anomaly]] = defaultdict(list)
    for anomaly in anomalies:
        groups[anomaly.code].append(anomaly)
    rows = []
    for items in groups.values():
        partitions = [a.partition for a in items if a.partition]
        rows.append((items[0], partitions))
    order = {SEVERITY_ERROR: 0, SEVERITY_WARNING: 1}
    return sorted(rows, key=lambda r: order.get(r[0].severity, 2))


def _partition_list(names: list[str], show: int = 3) -> str:
    if not names:
        return "table"
    return first_few(names, show)


def render_inventory(out: Output, inv: TableInventory, *, limit: int = 50) -> None:
    summary = inv.summary()
    out.message(
        f"[bold]{inv.qualified_name}[/] ({inv.table_type}, {inv.format}) at {inv.location}\n"
        f"{summary['partitions']} partitions, {summary['files']} files, {summary['rows']:,} rows, "
        f"{human_bytes(summary['bytes'])}, {summary['physical_schemas']} physical schemas; "
        f"inspected in {inv.seconds:.2f}s"
        + (
            "\nnot read, as Hive does not read them: "
            + ", ".join(f"{n:,} {kind}" for kind, n in sorted(summary["skipped"].items()))
            if summary["skipped"]
            else ""
        )
    )
    out.table(
        "Anomalies",
        ["code", "where", "what, and what lakeshift does"],
        [
            (
                f"{_SEVERITY_STYLE.get(a.severity, a.severity)} {a.code}",
                _partition_list(parts, 1),
                (a.message if len(parts) <= 1 else a.message.split(":")[0])
                + f" [dim]→ {a.action}[/]",
            )
            for a, parts in _grouped(inv.all_anomalies)
        ],
    )
    shown = inv.partitions if limit <= 0 else inv.partitions[:limit]
    out.table(
        "Partitions",
        ["partition", "rows", "files", "size", "format", "columns", "anomalies"],
        [
            (
                p.name,
                f"{p.rows:,}",
                len(p.files),
                human_bytes(p.bytes),
                p.format,
                len(p.columns),
                ", ".join(sorted({a.code for a in p.anomalies})),
            )
            for p in shown
        ],
    )
    if len(shown) < len(inv.partitions):
        out.message(
            f"[dim]{len(inv.partitions) - len(shown)} more partitions; --limit 0 shows all[/]"
        )
