"""``lakeshift schema DB.TABLE``: the target schema with field IDs and how files map onto it."""

from __future__ import annotations

from collections import Counter

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.cli.output import Output
from lakeshift.hive.projection import file_groups
from lakeshift.inspect.inspector import inspect_table, save_inventory
from lakeshift.inspect.model import TableInventory
from lakeshift.schema_map.mapping import build_mapping, load_mapping, save_mapping
from lakeshift.schema_map.model import FieldMapping


def render_mapping(out: Output, mapping: FieldMapping, inventory: TableInventory) -> None:
    out.message(
        f"[bold]{mapping.table}[/] target schema: {len(mapping.fields)} columns, last field ID "
        f"{mapping.last_id}, read as [bold]{mapping.semantics.label}[/], "
        f"CHAR values {'padded' if mapping.char_padding == 'pad' else 'as stored'}"
    )
    role = {f.id: "partition key" for f in mapping.partition_keys}
    role.update({f.id: "generated" for f in mapping.generated})
    out.table(
        "Fields",
        ["id", "name", "type", "role", "earlier names"],
        [
            (f.id, f.name, f.type, role.get(f.id, "data"), ", ".join(f.lineage[:-1]))
            for f in mapping.fields
        ],
    )
    groups = file_groups(inventory, mapping)
    shapes = Counter(
        (
            g.format,
            "position" if g.by_position else "name",
            len(g.physical),
            sum(s.physical_index is None for s in g.sources),
        )
        for g in groups
    )
    out.table(
        "File groups",
        ["format", "matched by", "physical columns", "NULL columns", "groups"],
        [(*shape, count) for shape, count in sorted(shapes.items())],
    )
    if mapping.retired:
        out.message(
            "retired IDs (never reused): "
            + ", ".join(f"{f.id} ({f.name})" for f in mapping.retired)
        )


@click.command("schema")
@click.argument("table")
@pass_state
def schema_command(state: CliState, table: str) -> None:
    """Show DB.TABLE's target schema: stable field IDs, earlier names, file-group mapping.

    Builds the mapping from a fresh inspection, reusing the IDs of the mapping saved under the
    state directory, and saves it there. Writes nothing else.

    \b
    Examples:
      lakeshift schema sample.click_log
      lakeshift --output json schema sample.click_log
    """
    ctx = state.context
    inventory = inspect_table(ctx.metastore, table, ctx.settings)
    save_inventory(inventory, ctx.home)
    previous = load_mapping(ctx.home, inventory.qualified_name)
    mapping = build_mapping(
        inventory,
        previous,
        semantics=ctx.settings.hive,
    )
    path = save_mapping(mapping, ctx.home)
    render_mapping(state.output, mapping, inventory)
    state.output.message(f"[dim]mapping saved to {path}[/]")
    state.output.result(mapping)
