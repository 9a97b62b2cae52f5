"""``lakeshift inspect DB.TABLE``: what a Hive table really holds."""

from __future__ import annotations

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.cli.render import render_inventory
from lakeshift.inspect.inspector import inspect_table, save_inventory
from lakeshift.inspect.partition_filter import PartitionFilter


@click.command("inspect")
@click.argument("table")
@click.option(
    "--partitions",
    "partitions",
    default=None,
    help="Partition filter: globs, key=FROM..TO ranges or NULL, comma-separated.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="Partitions shown in the per-partition table (0 = all).",
)
@pass_state
def inspect_command(state: CliState, table: str, partitions: str | None, limit: int) -> None:
    """Inspect DB.TABLE: partitions, files, ORC footers, fingerprints and anomalies.

    Reads the metastore and file footers only; writes the inventory JSON under the state
    directory and nothing else.

    \b
    Examples:
      lakeshift inspect sample.click_log
      lakeshift inspect sample.click_log --partitions 'yyyymmdd=20220401..20220410' --limit 0
      lakeshift --output json inspect sample.click_log > inventory.json
    """
    ctx = state.context
    wanted = PartitionFilter.parse(partitions)
    with state.output.progress("inspecting", total=0) as advance:
        inventory = inspect_table(
            ctx.metastore,
            table,
            ctx.settings,
            partition_filter=wanted,
            progress=advance,
            spark=lambda: ctx.spark,
        )
    path = save_inventory(inventory, ctx.home)
    render_inventory(state.output, inventory, limit=limit)
    state.output.message(f"[dim]inventory saved to {path}[/]")
    state.output.result(inventory)
