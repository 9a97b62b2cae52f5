"""``lakeshift plan`` and ``lakeshift migrate``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

import click
from rich.markup import escape

from lakeshift.cli.base import PARTITIONS_HELP, CliState, pass_state
from lakeshift.cli.interrupts import stop_on_interrupt
from lakeshift.cli.output import Output
from lakeshift.cli.profile_view import profile_run
from lakeshift.cli.render import human_bytes
from lakeshift.config import CALENDAR_RULES, FORMAT_CHOICES
from lakeshift.errors import PartialFailure
from lakeshift.inspect.archived import skipped_note, skipped_totals
from lakeshift.inspect.inspector import (
    inspect_table,
    save_inventory,
    source_table,
    split_table_name,
)
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.migrate.adoption import ADOPT_FILES, ADOPT_NEVER
from lakeshift.migrate.backfill import MigrateOptions, migrate, plan_migration, resolve_target
from lakeshift.migrate.keys import KEY_MODES
from lakeshift.migrate.planner import MigrationPlan
from lakeshift.report.files import write_report
from lakeshift.report.plan_markdown import write_plan_report


def migration_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--target",
            default=None,
            help="Target table DB.NAME (default: the table this source was migrated to, "
            "else DB.TABLE_<format>).",
        ),
        click.option(
            "--format",
            "target_format",
            type=click.Choice(FORMAT_CHOICES),
            default=None,
            help="Target format of a new target (default: the `format` setting, iceberg). "
            "An existing target keeps its own.",
        ),
        click.option("--partitions", default=None, help=PARTITIONS_HELP),
        click.option(
            "--batch-rows",
            type=click.IntRange(min=1),
            default=5_000_000,
            show_default=True,
            help="Rows per batch (one Spark job, one commit).",
        ),
        click.option(
            "--key",
            "key_mode",
            type=click.Choice(KEY_MODES),
            default="uuid",
            show_default=True,
            help="uuid: random record keys; deterministic: derived from source file "
            "and row, identical across re-runs.",
        ),
        click.option(
            "--adopt", is_flag=True, help="Migrate into an existing table lakeshift did not create."
        ),
        click.option(
            "--adopt-files",
            type=click.Choice(ADOPT_FILES),
            default=ADOPT_NEVER,
            show_default=True,
            help="Iceberg: register the source's own ORC files where Iceberg provably reads "
            "them as Hive does, copying nothing (auto: copy the rest; require: exit 7 "
            "instead of copying).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def repair_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Flags that back-fill unchanged partitions again (``plan`` shows what they would do)."""
    options = [
        click.option(
            "--rebackfill-invalid",
            is_flag=True,
            help="Also back-fill again partitions whose latest validation was not equal "
            "(mismatch, missing), replacing them atomically.",
        ),
        click.option(
            "--force",
            is_flag=True,
            help="Back-fill again every partition chosen with --partitions, even unchanged "
            "ones (atomic replace).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def options_from_flags(
    state: CliState,
    table: str,
    target: str | None,
    target_format: str | None,
    partitions: str | None,
    batch_rows: int,
    key_mode: str,
    adopt: bool,
    break_lease: bool = False,
    *,
    adopt_files: str = ADOPT_NEVER,
    rebackfill_invalid: bool = False,
    force: bool = False,
    quarantine: bool = False,
) -> MigrateOptions:
    db, name = split_table_name(table)
    ctx = state.context
    chosen = target_format or ctx.settings.format
    return MigrateOptions(
        target=resolve_target(ctx.journal, f"{db}.{name}", target, chosen),
        format=target_format,
        partitions=PartitionFilter.parse(partitions),
        batch_rows=batch_rows,
        key_mode=key_mode,
        adopt=adopt,
        break_lease=break_lease,
        rebackfill_invalid=rebackfill_invalid,
        force=force,
        quarantine=quarantine,
        adopt_files=adopt_files,
    )


#: Anomalies whose rows depend on the chosen Hive version: the plan names them every time.
VERSION_NOTES = {
    "name-case-differs": "partition(s) with file columns whose names differ from the table's "
    "only in letter case",
    "partition-values-collide": "group(s) of partitions that Hive shows with one key value",
    "key-precision-lost": "timestamp key value(s) finer than the microseconds targets keep",
    "key-version-sensitive": "table(s) with partition key values that Hive 1.2/2.x, 3.1 and 4 "
    "show differently",
    "timestamp-nanoseconds": "partition(s) with timestamps finer than the microseconds "
    "targets keep (validation reports them unless timestamp_precision = truncate)",
    "writer-zone-missing": "partition(s) with ORC files naming no writer time zone, whose "
    "timestamps are read in hive_time_zone as Hive in that zone reads them",
    "hive-zone-sensitive": "partition(s) whose timestamps Hive shows differently by the "
    "time zone its JVMs run in (read as Hive in hive_time_zone shows them)",
    "timestamp-from-number": "partition(s) with numbers read as timestamps, whose digits past "
    "a microsecond Hive shows and the targets do not keep (validation counts them in "
    "top-level columns)",
}


def render_plan(out: Output, plan: MigrationPlan, limit: int = 20) -> None:
    totals = plan.to_json()["totals"]
    out.message(
        f"[bold]plan[/] {plan.source} → {plan.target} ({plan.format}, "
        f"{'exists' if plan.target_exists else 'will be created'}"
        f"{': ' + plan.target_layout if plan.target_layout else ''}); key {plan.key_mode}\n"
        f"read as [bold]{plan.mapping.semantics.label}[/] (setting hive_version)\n"
        f"{totals['new']} new, {totals['changed']} changed, {totals['unchanged']} unchanged, "
        f"{totals['refused']} refused; {totals['rows_to_backfill']:,} rows "
        f"({human_bytes(totals['bytes_to_backfill'])}) in {totals['batches']} batches, "
        f"~{totals['estimated_output_files']} output files; estimated "
        + (
            f"{totals['estimated_seconds']} s"
            if totals["estimated_seconds"] is not None
            else "duration unknown until a first batch ran"
        )
    )
    early = plan.anomalies.get("calendar-before-1582", 0)
    if early:
        rules = CALENDAR_RULES[plan.mapping.calendar]
        shifted = plan.anomalies.get("calendar-shifted-dates", 0)
        out.message(
            f"calendar: {early} partition(s) hold dates or timestamps before 1582-10-15, read "
            f"as {rules} reads them (setting [bold]calendar[/] = {plan.mapping.calendar})"
            + (
                f"; {shifted} of them from proleptic writers that Hive reads shifted "
                "(anomaly calendar-shifted-dates)"
                if shifted
                else ""
            )
        )
    for note in plan.notes:
        out.message(f"[yellow]{note}[/]")
    for code, what in VERSION_NOTES.items():
        if plan.anomalies.get(code):
            out.message(f"[yellow]{plan.anomalies[code]} {what} (anomaly {code})[/]")
    shown = [p for p in plan.partitions if p.state != "unchanged"][: max(limit, 0) or None]
    how = {d.partition: "adopt" if d.adopt else f"copy: {d.reason}" for d in plan.adoption}
    columns = ["partition", "state", "rows", "files", "reason"]
    if how:
        adopted = len(plan.adopted)
        out.message(
            f"adopt_files: {adopted} partition(s) adopted in place (the source's own ORC "
            f"files, then proven), {len(how) - adopted} copied"
        )
        columns.append("adopt or copy")
    out.table(
        "Partitions",
        columns,
        [
            (
                p.name,
                p.state,
                f"{p.rows:,}",
                p.files,
                p.reason,
                *([how.get(p.name, "")] if how else []),
            )
            for p in shown
        ],
    )


@click.command("plan")
@click.argument("table")
@migration_options
@repair_options
@pass_state
def plan_command(
    state: CliState,
    table: str,
    target: str | None,
    target_format: str | None,
    partitions: str | None,
    batch_rows: int,
    key_mode: str,
    adopt: bool,
    adopt_files: str,
    rebackfill_invalid: bool,
    force: bool,
) -> None:
    """Dry run: what `migrate` would do, written as JSON and Markdown reports; nothing else.

    \b
    Examples:
      lakeshift plan sample.click_log --target sample.click_log_iceberg
      lakeshift plan sample.click_log --format delta
      lakeshift --output json plan sample.click_log --partitions 'yyyymmdd=202204*'
    """
    ctx = state.context
    inventory = inspect_table(ctx.metastore, table, ctx.settings, spark=lambda: ctx.spark)
    options = options_from_flags(
        state,
        table,
        target,
        target_format,
        partitions,
        batch_rows,
        key_mode,
        adopt,
        adopt_files=adopt_files,
        rebackfill_invalid=rebackfill_invalid,
        force=force,
    )
    save_inventory(inventory, ctx.home)
    plan = plan_migration(
        ctx.spark_conf(), ctx.formats, inventory, ctx.settings, options, ctx.journal
    )
    json_path, md_path = write_plan_report(ctx.home, plan)
    render_plan(state.output, plan)
    state.output.message(f"[dim]plan saved to {md_path} and {json_path}[/]")
    state.output.result(plan)


@click.command("migrate")
@click.argument("table")
@migration_options
@repair_options
@click.option(
    "--quarantine-unreadable",
    "quarantine",
    is_flag=True,
    help="Skip source files that cannot be read (checked with pyarrow when a partition "
    "fails) and back-fill the rest; such partitions are reported partial, never switched.",
)
@click.option("--dry-run", is_flag=True, help="Same as `lakeshift plan`.")
@click.option(
    "--accept-foreign-commits",
    "accept_foreign",
    is_flag=True,
    help="Take the target as it stands, with commits another writer made to it since "
    "lakeshift's last one (recorded in the target); without it they stop the run (exit 8).",
)
@click.option(
    "--break-lease",
    is_flag=True,
    help="Take over the table's lease from a migrator that is gone for good.",
)
@click.option(
    "--profile",
    is_flag=True,
    help="Show and keep where the run's time went (phases, Spark jobs) as a profile report.",
)
@pass_state
@click.pass_context
def migrate_command(
    click_ctx: click.Context,
    state: CliState,
    table: str,
    target: str | None,
    target_format: str | None,
    partitions: str | None,
    batch_rows: int,
    key_mode: str,
    adopt: bool,
    adopt_files: str,
    rebackfill_invalid: bool,
    force: bool,
    quarantine: bool,
    dry_run: bool,
    accept_foreign: bool,
    break_lease: bool,
    profile: bool,
) -> None:
    """Backfill DB.TABLE into an Iceberg or Delta table, batch by batch; safe to re-run.

    Creates the target (Iceberg: format v2; Delta: column mapping; Parquet files, identity
    partitions, stable field IDs) in the same metastore, then writes each batch of partitions
    in one Spark job and one atomic commit, adding `uuid` and `partitionpath` columns.
    Unchanged, already backfilled partitions are skipped; partitions whose source changed are
    replaced atomically.

    \b
    Examples:
      lakeshift migrate sample.click_log --target sample.click_log_iceberg
      lakeshift migrate sample.click_log --format delta
      lakeshift migrate sample.click_log --partitions 'yyyymmdd=202204*' --batch-rows 20000
      lakeshift migrate sample.click_log --rebackfill-invalid
      lakeshift migrate sample.click_log --force --partitions yyyymmdd=20220401
      lakeshift --output json migrate db.events --key deterministic
      lakeshift migrate sample.click_log --profile
    """
    if dry_run:
        click_ctx.invoke(
            plan_command,
            table=table,
            target=target,
            target_format=target_format,
            partitions=partitions,
            batch_rows=batch_rows,
            key_mode=key_mode,
            adopt=adopt,
            adopt_files=adopt_files,
            rebackfill_invalid=rebackfill_invalid,
            force=force,
        )
        return
    ctx = state.context
    source_table(ctx.metastore, table)  # a missing table is reported before Spark starts
    options = options_from_flags(
        state,
        table,
        target,
        target_format,
        partitions,
        batch_rows,
        key_mode,
        adopt,
        break_lease,
        adopt_files=adopt_files,
        rebackfill_invalid=rebackfill_invalid,
        force=force,
        quarantine=quarantine,
    )
    options = replace(options, accept_foreign_commits=accept_foreign)

    # Spark first: PySpark installs its own SIGINT handler when it starts (it cancels jobs
    # from inside the interrupted py4j call), and ours must be the one in place.
    spark = ctx.spark

    def cancel_jobs() -> None:
        spark.sparkContext.cancelAllJobs()

    with (
        profile_run(state, profile, "migrate", ".".join(split_table_name(table))),
        stop_on_interrupt(cancel_jobs) as stopping,
        state.output.progress("backfilling", total=0) as advance,
    ):
        result = migrate(
            spark,
            ctx.metastore,
            ctx.formats.catalog,
            ctx.settings,
            ctx.journal,
            table,
            options,
            progress=advance,
            stop=stopping.is_set,
        )
    summary = result.to_json()
    summary.update(_archived_skipped(result.plan, set(result.backfilled)))
    write_report(ctx.home, result.plan.source, "migrate", summary, _markdown(summary))
    out = state.output
    out.message(
        f"[bold]{result.plan.source} → {result.plan.target}[/]: {len(result.backfilled)} "
        f"partitions backfilled ({result.rows:,} rows in {result.seconds:.1f}s), "
        f"{len(summary['unchanged'])} unchanged, {len(result.failed)} failed, "
        f"{len(result.refused)} refused"
        + (f", {len(result.partial)} partial" if result.partial else "")
        + (
            f"; {len(result.adoption.proven)} adopted in place and proven, "
            f"{len(result.adoption.copied)} copied"
            if result.adoption
            else ""
        )
    )
    note = skipped_note(result.plan.archived_skipped)
    if note:
        out.message(f"[yellow]{escape(note)}[/]")
    problems = [(n, "failed", r) for n, r in result.failed.items()]
    problems += [(n, "refused", r) for n, r in result.refused.items()]
    problems += [(n, "partial", r) for n, r in result.partial.items()]
    if problems:
        out.table("Not migrated", ["partition", "why", "detail"], problems)
    state.html_report(table)
    out.result(summary)
    if not result.ok:
        raise PartialFailure(
            f"{len(problems)} partition(s) of {result.plan.source} were not migrated.",
            hint="Fix what the table above says and re-run the same command; finished "
            "partitions are skipped.",
        )


def _archived_skipped(plan: MigrationPlan, backfilled: set[str]) -> dict[str, Any]:
    """The archived objects this run left out of the partitions it backfilled (``skip``)."""
    skipped = [s for s in plan.archived_skipped if s.partition in backfilled]
    return {
        "archived_skipped": [asdict(s) for s in skipped],
        "archived_skipped_totals": skipped_totals(skipped),
    }


def _markdown(summary: dict[str, Any]) -> str:
    lines = [
        f"# Migration run {summary['run_id']}",
        "",
        f"`{summary['source']}` → `{summary['target']}`: {len(summary['backfilled'])} "
        f"partitions backfilled, {summary['rows']:,} rows in {summary['seconds']} s "
        f"({summary['rows_per_second']} rows/s), {len(summary['unchanged'])} unchanged.",
        "",
    ]
    for kind in ("failed", "refused", "partial"):
        if summary[kind]:
            lines += [f"## {kind.title()}", "", "| partition | reason |", "|---|---|"]
            lines += [f"| `{n}` | {r} |" for n, r in summary[kind].items()]
    if summary.get("archived_skipped"):
        lines += ["## Archived objects left out", "", "| partition | objects | rows | paths |"]
        lines += ["|---|---|---|---|"]
        lines += [
            f"| `{s['partition']}` | {s['objects']} | {s['rows'] if s['rows'] is not None else '?'}"
            f" | {', '.join(s['paths'])} |"
            for s in summary["archived_skipped"]
        ]
    return "\n".join(lines) + "\n"
