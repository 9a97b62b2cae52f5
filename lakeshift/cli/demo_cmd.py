"""``lakeshift demo``: the story on the embedded default, as far as lakeshift goes today."""

from __future__ import annotations

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.cli.migrate_cmd import render_plan
from lakeshift.cli.render import render_inventory
from lakeshift.cli.schema_cmd import render_mapping
from lakeshift.cli.validate_cmd import render_validation
from lakeshift.inspect.inspector import inspect_table, save_inventory
from lakeshift.migrate.backfill import MigrateOptions, migrate, plan_migration
from lakeshift.report.collect import collect_report
from lakeshift.report.files import write_html, write_report
from lakeshift.report.html_report import render_html
from lakeshift.report.plan_markdown import plan_markdown
from lakeshift.route.router import switch
from lakeshift.sample.load import load_sample
from lakeshift.validate.validator import validate_table

DEMO_TARGET = "sample.click_log_iceberg"


@click.command()
@click.option("--target", default=DEMO_TARGET, show_default=True, help="Iceberg table to create.")
@pass_state
def demo(state: CliState, target: str) -> None:
    """Load sample.click_log, inspect, map, plan, migrate to Iceberg, validate and switch.

    Runs on the embedded metastore and a local Spark; safe to run again (it resumes and then
    has nothing left to do).

    \b
    Example:
      lakeshift demo
    """
    ctx = state.context
    out = state.output
    out.message(f"[bold]1/7[/] metastore: {ctx.metastore_uri}")
    loaded = load_sample(ctx.metastore, ctx.home)
    out.message(
        f"[bold]2/7[/] sample table {loaded.table}: {loaded.partitions} partitions, "
        f"{loaded.rows:,} rows"
    )
    out.message("[bold]3/7[/] inspect")
    inventory = inspect_table(ctx.metastore, loaded.table, ctx.settings)
    inventory_file = save_inventory(inventory, ctx.home)
    render_inventory(out, inventory, limit=0)
    options = MigrateOptions(target=target, batch_rows=30_000)
    plan = plan_migration(
        ctx.spark_conf(), ctx.catalog, inventory, ctx.settings, options, ctx.journal
    )
    out.message("[bold]4/7[/] target schema and plan")
    render_mapping(out, plan.mapping, inventory)
    _, plan_file = write_report(ctx.home, plan.source, "plan", plan.to_json(), plan_markdown(plan))
    render_plan(out, plan, limit=5)
    out.message(f"[bold]5/7[/] migrate to Iceberg table {target}")
    with out.progress("backfilling", total=0) as advance:
        result = migrate(
            ctx.spark,
            ctx.metastore,
            ctx.catalog,
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
    out.message("[bold]6/7[/] validate (row counts and checksums, per partition)")
    report = validate_table(
        ctx.spark, ctx.metastore, ctx.catalog, ctx.settings, ctx.journal, loaded.table, target
    )
    render_validation(out, report)
    out.message("[bold]7/7[/] switch readers to every validated partition")
    change = switch(
        ctx.metastore,
        ctx.catalog,
        ctx.settings,
        ctx.journal,
        loaded.table,
        target,
        partitions=None,
        all_validated=True,
    )
    out.message(
        f"{len(change.switched)} partitions now served from {target} through the view "
        f"[bold]{change.view}[/]; `lakeshift cutover {loaded.table}` gives it the "
        "public name."
    )
    html_file = write_html(
        ctx.home, loaded.table, render_html(collect_report(inventory, ctx.journal))
    )
    out.message(
        f"inventory: {inventory_file}\nplan: {plan_file}\n"
        f"journal: {ctx.home / 'journal.sqlite'}\nlog: {ctx.settings.log_file}\n"
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
            "html_report": str(html_file),
        }
    )
