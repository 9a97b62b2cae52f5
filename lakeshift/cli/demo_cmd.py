"""``lakeshift demo``: the story on the embedded default, as far as lakeshift goes today."""

from __future__ import annotations

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.cli.render import render_inventory
from lakeshift.inspect.inspector import inspect_table, save_inventory
from lakeshift.sample.load import load_sample


@click.command()
@pass_state
def demo(state: CliState) -> None:
    """Start the embedded metastore, load sample.click_log, inspect it and map its schema.

    \b
    Example:
      lakeshift demo
    """
    ctx = state.context
    out = state.output
    out.message(f"[bold]1/4[/] metastore: {ctx.metastore_uri}")
    loaded = load_sample(ctx.metastore, ctx.home)
    out.message(
        f"[bold]2/4[/] sample table {loaded.table}: {loaded.partitions} partitions, "
        f"{loaded.rows:,} rows"
    )
    out.message("[bold]3/3[/] inspect")
    inventory = inspect_table(ctx.metastore, loaded.table, ctx.settings)
    path = save_inventory(inventory, ctx.home)
    render_inventory(out, inventory, limit=0)
    out.message(f"inventory: {path}\nlog: {ctx.settings.log_file}")
    out.result(
        {
            "metastore_uri": ctx.metastore_uri,
            "sample": loaded,
            "inventory": str(path),
            "summary": inventory.summary(),
        }
    )
