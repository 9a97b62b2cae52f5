"""``lakeshift report DB.TABLE``: render the table's HTML report again from the journal."""

from __future__ import annotations

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.errors import NotFound
from lakeshift.inspect.inspector import inspect_table, load_inventory, save_inventory
from lakeshift.report.collect import write_table_report


@click.command("report")
@click.argument("table")
@click.option(
    "--refresh", is_flag=True, help="Inspect the source again instead of using the saved inventory."
)
@pass_state
def report_command(state: CliState, table: str, refresh: bool) -> None:
    """Write a self-contained HTML report (charts, statuses, validation, anomalies).

    \b
    Examples:
      lakeshift report sample.click_log
      lakeshift report sample.click_log --refresh
    """
    ctx = state.context
    try:
        inventory = None if refresh else load_inventory(ctx.home, table.lower())
    except NotFound:
        inventory = None
    if inventory is None:
        inventory = inspect_table(ctx.metastore, table, ctx.settings)
        save_inventory(inventory, ctx.home)
    path = write_table_report(ctx.home, inventory, ctx.journal)
    state.output.message(f"HTML report: [bold]{path}[/]")
    state.output.result({"html": str(path)})
