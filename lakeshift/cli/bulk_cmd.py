"""``lakeshift bulk migration.toml``: many tables from one file, concurrently, resumable."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click

from lakeshift.bulk.runner import BulkResult, run_bulk
from lakeshift.bulk.spec import load_bulk_spec
from lakeshift.cli.base import CliState, pass_state
from lakeshift.context import Context
from lakeshift.errors import PartialFailure
from lakeshift.report.files import write_html, write_report
from lakeshift.report.html_report import render_bulk_html

_STYLE = {
    "ok": "[green]ok[/]",
    "cut-over": "[green]cut over[/]",
    "planned": "planned",
    "partial": "[yellow]partial[/]",
    "mismatch": "[bold red]mismatch[/]",
    "failed": "[bold red]failed[/]",
    "interrupted": "[yellow]interrupted[/]",
}


def _detail(t: Any) -> str:
    if t.error:
        return str(t.error).splitlines()[0]
    problems = {**t.not_migrated, **t.validation_problems}
    if problems:
        name, why = next(iter(problems.items()))
        return f"{len(problems)} partition(s) with problems, e.g. {name}: {why}"
    return ", ".join(t.steps)


def _markdown(result: BulkResult) -> str:
    lines = [
        f"# Bulk run of `{result.spec.path}`" + (" (dry run)" if result.dry_run else ""),
        "",
        f"{len(result.tables)} tables, parallel {result.spec.parallel}, "
        f"{result.seconds:.1f} s, {'all ok' if result.ok else 'NOT all ok'}.",
        "",
        "| table | target | status | exit | backfilled | unchanged | validated | switched | "
        "seconds | detail |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in result.tables:
        lines.append(
            f"| `{t.source}` | `{t.target}` | {t.status} | {t.exit_code} | {t.backfilled} "
            f"| {t.unchanged} | {t.validated} | {t.switched} | {t.seconds:.1f} | "
            f"{_detail(t).replace('|', '/')} |"
        )
    return "\n".join(lines) + "\n"


@click.command("bulk")
@click.argument("bulk_file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Plan every table (reports only); change nothing.")
@click.option(
    "--parallel",
    type=click.IntRange(min=1),
    default=None,
    help="Tables migrated at once (default: the file's [bulk] parallel, else 2).",
)
@click.option(
    "--once",
    is_flag=True,
    help="Tables with follow = true make one follow pass each (else passes until Ctrl-C).",
)
@pass_state
def bulk_command(
    state: CliState, bulk_file: Path, dry_run: bool, parallel: int | None, once: bool
) -> None:
    """Migrate many tables listed in a TOML file; re-run the same command to resume.

    Per table: migrate (backfill), validate what is not yet validated, switch validated
    partitions and, with switch = "cutover", cut over once every partition is switched.
    Tables with follow = true are followed instead (`lakeshift follow`'s passes) until
    Ctrl-C, or for one pass with --once; exit 3 then also means one is still behind.
    Tables run concurrently in one Spark application; a table that fails does not stop the
    others. Exit code 3 when any table did not finish (the summary says why).

    \b
    Examples:
      lakeshift bulk examples/migration.toml --dry-run
      lakeshift bulk examples/migration.toml --parallel 3
      lakeshift --output json bulk examples/migration.toml
    """
    spec = load_bulk_spec(bulk_file)
    ctx = state.context
    if spec.catalog:  # the file's [catalog] chooses the catalog of this run
        ctx = Context(replace(ctx.settings, **spec.catalog))  # type: ignore[arg-type]
    out = state.output
    out.message(
        f"[bold]bulk[/] {bulk_file}: {len(spec.tables)} tables, parallel "
        f"{parallel or spec.parallel}" + (" (dry run)" if dry_run else "")
    )
    with out.task_board([t.source for t in spec.tables]) as update:
        result = run_bulk(ctx, spec, dry_run=dry_run, parallel=parallel, progress=update, once=once)
    json_path, md_path = write_report(
        ctx.home, f"bulk-{spec.name}", "bulk", result.to_json(), _markdown(result)
    )
    if dry_run:
        columns = ["table", "status", "to backfill", "unchanged", "refused", "time"]
        rows: list[tuple[Any, ...]] = [
            (
                t.source,
                _STYLE.get(t.status, t.status),
                f"{t.planned_rows or 0:,} rows / {t.planned_batches or 0} batches",
                t.unchanged,
                len(t.not_migrated),
                f"{t.seconds:.1f}s",
            )
            for t in result.tables
        ]
    else:
        columns = ["table", "status", "backfilled", "unchanged", "validated", "switched", "time"]
        rows = [
            (
                t.source,
                _STYLE.get(t.status, t.status),
                f"{t.backfilled} ({t.rows_backfilled:,} rows)",
                t.unchanged,
                t.validated,
                t.switched,
                f"{t.seconds:.1f}s",
            )
            for t in result.tables
        ]
    out.table("Tables", columns, rows)
    problems = [(t.source, _detail(t)) for t in result.tables if not t.ok]
    if problems:
        out.table("Problems", ["table", "what happened"], problems)
    html_path = write_html(
        ctx.home,
        f"bulk-{spec.name}",
        render_bulk_html(
            result.to_json(), datetime.now(timezone.utc).isoformat(timespec="seconds")
        ),
    )
    out.message(f"[dim]summary: {md_path} and {json_path}[/]")
    out.message(f"HTML report: [bold]{html_path}[/]")
    out.result(result)
    failed = [t for t in result.tables if not t.ok]
    if failed:
        raise PartialFailure(
            f"{len(failed)} of {len(result.tables)} tables did not finish: "
            + ", ".join(f"{t.source} ({t.status}, exit {t.exit_code})" for t in failed)
            + ".",
            hint="Fix what the summary says and re-run the same command; finished work is skipped.",
        )
