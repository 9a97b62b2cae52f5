"""``lakeshift maintain DB.TABLE``: compaction, expiry and orphan removal, with a report."""

from __future__ import annotations

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.maintain import MaintainOptions, maintain_table, maintenance_markdown
from lakeshift.maintain.report import partition_rows, summary_rows
from lakeshift.maintain.run import DEFAULT_TARGET_FILE_SIZE
from lakeshift.report.files import write_report


@click.command("maintain")
@click.argument("table")
@click.option("--compact", is_flag=True, help="Rewrite partitions holding two or more small files.")
@click.option(
    "--target-file-size",
    type=click.IntRange(min=1),
    default=DEFAULT_TARGET_FILE_SIZE,
    show_default=True,
    help="Bytes per file when compacting (files under 75% of it are small).",
)
@click.option(
    "--expire",
    "expire_days",
    type=float,
    default=None,
    metavar="DAYS",
    help="Expire snapshots/versions older than DAYS (the current one is always kept).",
)
@click.option(
    "--orphans",
    "orphan_hours",
    type=float,
    default=None,
    metavar="HOURS",
    help="Remove files no snapshot references that are older than HOURS (at least 1).",
)
@click.option("--dry-run", is_flag=True, help="Show what would be done; change nothing.")
@click.option("--break-lease", is_flag=True, help="Take over a lease whose holder is gone.")
@pass_state
def maintain_command(
    state: CliState,
    table: str,
    compact: bool,
    target_file_size: int,
    expire_days: float | None,
    orphan_hours: float | None,
    dry_run: bool,
    break_lease: bool,
) -> None:
    """Compact small files, expire old snapshots/versions, remove orphan files.

    Works on the lake table of DB.TABLE (the public name after cutover, else its target).
    Holds the table's lease, so it never runs during a migration or erasure of the same table
    (exit 8); the current snapshot and every file it references are always kept, so the
    routing view reads the same rows afterwards. Reports files per partition, bytes and
    snapshots/versions before and after (JSON and Markdown under HOME/reports/DB.TABLE/).

    \b
    Examples:
      lakeshift maintain shop.orders --compact --dry-run
      lakeshift maintain shop.orders --compact --target-file-size 134217728
      lakeshift maintain shop.orders --expire 7 --orphans 72
    """
    options = MaintainOptions(
        compact=compact,
        target_file_size=target_file_size,
        expire_days=expire_days,
        orphan_hours=orphan_hours,
        dry_run=dry_run,
        break_lease=break_lease,
    )
    ctx = state.context
    out = state.output
    result = maintain_table(ctx.formats, ctx.journal, table, options, progress=out.message)
    kind = "maintain-plan" if dry_run else "maintain"
    json_path, _ = write_report(
        ctx.home, result.source, kind, result.to_json(), maintenance_markdown(result)
    )
    out.table(
        f"{'Maintenance plan' if dry_run else 'Maintenance'} of {result.lake_table}",
        ["", "before", "after"],
        summary_rows(result),
    )
    if dry_run:
        out.message(
            f"would compact {len(result.compacted)} partition(s) and expire "
            f"{result.would_expire} snapshot(s)/version(s); nothing changed"
        )
        out.table(
            "Partitions to compact",
            ["partition", "files", "", ""],
            [r for r in partition_rows(result) if r[0] in set(result.compacted)][:20],
        )
    else:
        out.message(
            f"compacted {len(result.compacted)} partition(s); expiry removed "
            f"{len(result.expired)} file(s); {len(result.orphans)} orphan file(s) removed"
        )
    for note in result.notes:
        out.message(f"[dim]{note}[/]")
    out.message(f"[dim]report: {json_path}[/]")
    out.result({**result.to_json(), "report": str(json_path)})
