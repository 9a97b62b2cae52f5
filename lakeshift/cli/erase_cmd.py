"""``lakeshift erase DB.TABLE``: delete records, purge what still holds them, audit."""

from __future__ import annotations

from pathlib import Path

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.erase import EraseRequest, erase_records
from lakeshift.erase.report import unreachable, write_erasure_report
from lakeshift.errors import UsageError


@click.command("erase")
@click.argument("table")
@click.option("--where", "predicate", default=None, help="SQL predicate over the columns.")
@click.option(
    "--keys",
    "keys_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File of record keys (uuid values), one per line.",
)
@click.option("--dry-run", is_flag=True, help="Find and count the rows; change nothing.")
@click.option(
    "--lake-only",
    is_flag=True,
    help="Also erase from partitions still served from Hive (the Hive source is not changed).",
)
@click.option("--all-matching", is_flag=True, help="Allow a predicate matching every row.")
@pass_state
def erase_command(
    state: CliState,
    table: str,
    predicate: str | None,
    keys_file: Path | None,
    dry_run: bool,
    lake_only: bool,
    all_matching: bool,
) -> None:
    """Erase records from the lake table: delete, purge old versions and files, audit.

    Rows are deleted by record key in one commit; then snapshots/versions and files that still
    hold them are purged, and every file under the table location is read to prove they are
    gone. A killed erasure is finished by running the same command again. The Hive source is
    never modified: its matching rows are counted in the report.

    \b
    Examples:
      lakeshift erase sample.click_log --where "user_id = 42" --dry-run
      lakeshift erase shop.orders --where "customer = 'c-17'"
      lakeshift --output json erase shop.orders --keys keys.txt
    """
    if (predicate is None) == (keys_file is None):
        raise UsageError("say which rows: --where PREDICATE or --keys FILE (one of them)")
    if keys_file is not None and not keys_file.is_file():
        raise UsageError(f"--keys {keys_file}: no such file.", hint="One record key per line.")
    ctx = state.context
    out = state.output
    request = EraseRequest(table, predicate, keys_file, dry_run, lake_only, all_matching)
    result = erase_records(ctx.formats, ctx.journal, request, progress=out.message)
    rows = sum(result.matched.values())
    if not rows:
        out.message(f"nothing in {result.lake_table} matches {request.selector!r}.")
    out.table(
        "Rows to erase" if dry_run else "Rows erased",
        ["partition", "rows"],
        [(p, f"{n:,}") for p, n in sorted(result.matched.items())],
    )
    for line in unreachable(result):
        out.message(f"[yellow]{line}[/]")
    if not dry_run and rows:
        audit = result.audit
        out.message(
            f"[bold]{rows:,} rows erased[/] from {result.lake_table} (commit {result.commit_id}); "
            f"{len(result.purged)} files purged; audit [bold green]passed[/]: "
            f"{audit['data_files']} data files and {audit['metadata_files']} metadata/log "
            "files hold none of them."
        )
    html = write_erasure_report(ctx.home, result)
    out.message(f"[dim]erasure report: {html}[/]")
    out.result({**result.to_json(), "html_report": str(html)})
