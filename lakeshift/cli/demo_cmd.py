"""``lakeshift demo``: the story on the embedded default, as far as lakeshift goes today."""

from __future__ import annotations

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.cli.migrate_cmd import render_plan
from lakeshift.cli.render import render_inventory
from lakeshift.cli.schema_cmd import render_mapping
from lakeshift.cli.validate_cmd import render_validation
from lakeshift.config import FORMAT_CHOICES
from lakeshift.inspect.inspector import inspect_table, load_inventory, save_inventory
from lakeshift.migrate.backfill import MigrateOptions, migrate, plan_migration, resolve_target
from lakeshift.report.collect import write_table_report
from lakeshift.report.plan_markdown import write_plan_report
from lakeshift.route.cutover import DONE, cutover, is_cut_over, names_for
from lakeshift.route.router import switch
from lakeshift.sample.load import load_sample
from lakeshift.validate.validator import validate_table

SAMPLE_TABLE = "sample.click_log"


@click.command()
@click.option(
    "--format",
    "target_format",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="Target format (default: the `format` setting, iceberg).",
)
@click.option("--target", default=None, help="Lake table to create (default: DB.TABLE_<format>).")
@pass_state
def demo(state: CliState, target_format: str | None, target: str | None) -> None:
    """Load sample.click_log, inspect, map, plan, migrate, validate, switch, cut over.

    Runs on the embedded metastore and a local Spark; safe to run again (it resumes, and once
    the cutover is done it says so). `lakeshift revert sample.click_log` undoes the cutover.

    \b
    Examples:
      lakeshift demo
      lakeshift --home .lakeshift-delta demo --format delta
    """
    ctx = state.context
    out = state.output
    chosen = target_format or ctx.settings.format
    target = resolve_target(ctx.journal, SAMPLE_TABLE, target, chosen)
    route = ctx.journal.route(SAMPLE_TABLE)
    if is_cut_over(route):
        html_file = write_table_report(
            ctx.home, load_inventory(ctx.home, SAMPLE_TABLE), ctx.journal
        )
        out.message(
            f"{SAMPLE_TABLE} is already cut over: the name now reads the lake table and the "
            f"Hive table is {route['legacy'] or SAMPLE_TABLE + '_hive_legacy'}. "
            f"`lakeshift revert {SAMPLE_TABLE}` undoes it; then `make demo` runs again.\n"
            f"[bold]HTML report: {html_file}[/]"
        )
        out.result({"cutover": DONE, "html_report": str(html_file)})
        return
    out.message(f"[bold]1/8[/] metastore: {ctx.metastore_uri}")
    loaded = load_sample(ctx.metastore, ctx.home)
    out.message(
        f"[bold]2/8[/] sample table {loaded.table}: {loaded.partitions} partitions, "
        f"{loaded.rows:,} rows"
    )
    out.message("[bold]3/8[/] inspect")
    inventory = inspect_table(ctx.metastore, loaded.table, ctx.settings)
    inventory_file = save_inventory(inventory, ctx.home)
    render_inventory(out, inventory, limit=0)
    options = MigrateOptions(target=target, batch_rows=30_000, format=target_format)
    plan = plan_migration(
        ctx.spark_conf(), ctx.formats, inventory, ctx.settings, options, ctx.journal
    )
    out.message("[bold]4/8[/] target schema and plan")
    render_mapping(out, plan.mapping, inventory)
    _, plan_file = write_plan_report(ctx.home, plan)
    render_plan(out, plan, limit=5)
    out.message(f"[bold]5/8[/] migrate to {plan.format} table {target}")
    with out.progress("backfilling", total=0) as advance:
        result = migrate(
            ctx.spark,
            ctx.metastore,
            ctx.formats.catalog,
            ctx.settings,
            ctx.journal,
            loaded.table,
            options,
            progress=advance,
        )
    out.message(
        f"{len(result.backfilled)} partitions backfilled ({result.rows:,} rows in "
        f"{result.seconds:.1f}s), {result.plan.count('unchanged')} already done, "
        f"{len(result.refused)} refused"
    )
    out.message("[bold]6/8[/] validate (row counts and checksums, per partition)")
    report = validate_table(
        ctx.spark,
        ctx.metastore,
        ctx.formats.catalog,
        ctx.settings,
        ctx.journal,
        loaded.table,
        target,
    )
    render_validation(out, report)
    out.message("[bold]7/8[/] switch readers to every validated partition")
    change = switch(
        ctx.formats,
        ctx.settings,
        ctx.journal,
        loaded.table,
        target,
        partitions=None,
        all_validated=True,
    )
    out.message(
        f"{len(change.switched)} partitions now served from {target} through the view "
        f"[bold]{change.view}[/]"
    )
    out.message(f"[bold]8/8[/] cut over: {loaded.table} becomes the {plan.format} table")
    steps = cutover(
        ctx.formats,
        ctx.settings,
        ctx.journal,
        names_for(ctx.journal, loaded.table, target, None, None),
    )
    for step in steps:
        out.message(f"- {step}")
    out.message(f"`lakeshift revert {loaded.table}` gives the name back to the Hive table.")
    html_file = write_table_report(ctx.home, inventory, ctx.journal)
    out.message(
        f"inventory: {inventory_file}\nplan: {plan_file}\n"
        f"journal: {ctx.home / 'journal.sqlite'}\nlog: {ctx.settings.log_file.resolve()}\n"
        f"[bold]HTML report: {html_file}[/]"
    )
    out.result(
        {
            "metastore_uri": ctx.metastore_uri,
            "sample": loaded,
            "inventory": str(inventory_file),
            "plan": str(plan_file),
            "migrate": result,
            "validation": report,
            "switched": change.switched,
            "view": change.view,
            "cutover": steps,
            "html_report": str(html_file),
        }
    )
