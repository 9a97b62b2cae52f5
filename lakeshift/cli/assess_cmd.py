"""``lakeshift assess DB``: which tables can be migrated, what needs attention, how big."""

from __future__ import annotations

from pathlib import Path

import click

from lakeshift.assess import assess_database, bulk_toml
from lakeshift.cli.base import CliState, pass_state
from lakeshift.cli.render import human_bytes
from lakeshift.config import FORMAT_CHOICES
from lakeshift.report.files import write_report


@click.command("assess")
@click.argument("database")
@click.option("--tables", "tables_glob", default="*", show_default=True, help="Table name glob.")
@click.option(
    "--format",
    "target_format",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="Target format written into the bulk file (default: the `format` setting).",
)
@click.option(
    "--bulk-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the bulk file (default: HOME/reports/assess-DB/migration.toml).",
)
@pass_state
def assess_command(
    state: CliState,
    database: str,
    tables_glob: str,
    target_format: str | None,
    bulk_file: Path | None,
) -> None:
    """Assess every table of DATABASE (metastore and file footers only; no Spark).

    Says which tables can be migrated as they are, which need attention and why, which are
    refused, estimates rows, bytes and backfill time, and writes a ready bulk file.

    \b
    Examples:
      lakeshift assess sales
      lakeshift assess sales --tables 'order*' --format delta
      lakeshift --output json assess sales
    """
    ctx = state.context
    settings = ctx.settings
    result = assess_database(
        ctx.metastore,
        ctx.open_catalog,
        settings,
        database,
        tables_glob=tables_glob,
        measured_rate=ctx.journal.overall_throughput(),
        workers=settings.inspect_workers,
    )
    chosen = target_format or settings.format
    path = bulk_file or ctx.home / "reports" / f"assess-{result.database}" / "migration.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(bulk_toml(result, chosen))
    out = state.output
    out.table(
        f"Tables of {result.database}",
        ["table", "verdict", "partitions", "rows", "size", "estimate", "why"],
        [
            (
                t.table,
                t.verdict,
                f"{t.partitions:,}"
                + (f" ({t.refused_partitions} refused)" if t.refused_partitions else ""),
                f"{t.rows:,}",
                human_bytes(t.bytes),
                "" if t.estimated_seconds is None else f"{t.estimated_seconds:,.0f}s",
                "; ".join(t.reasons),
            )
            for t in result.tables
        ],
    )
    basis = "measured here" if result.rate_measured else "assumed until a first migration here"
    out.message(f"estimates at {result.rows_per_second:,.0f} rows/s ({basis}); bulk file: {path}")
    payload = {**result.to_json(), "bulk_file": str(path)}
    write_report(ctx.home, f"assess-{result.database}", "assess", payload, path.read_text())
    out.result(payload)


def _partitions(total: int, refused: int) -> str:
    return f"{total:,}" + (f" ({refused:,} refused)" if refused else "")
