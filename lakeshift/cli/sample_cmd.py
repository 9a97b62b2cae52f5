"""``lakeshift sample load``: the sample table ``sample.click_log``."""

from __future__ import annotations

from pathlib import Path

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.inspect.inspector import split_table_name
from lakeshift.sample.generate_table import generate_table
from lakeshift.sample.load import load_sample


@click.group()
def sample() -> None:
    """Sample tables: the bundled sample.click_log, or a generated table of your own."""


@sample.command("load")
@click.option("--replace", is_flag=True, help="Drop and re-register the table, re-copying files.")
@click.option(
    "--source",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Directory with manifest.json (default: the bundled sample_data/click_log).",
)
@pass_state
def load(state: CliState, replace: bool, source: Path | None) -> None:
    """Register sample.click_log (external ORC table) in the metastore.

    \b
    Examples:
      lakeshift sample load
      lakeshift sample load --replace
    """
    result = load_sample(
        state.context.metastore, state.context.home, replace=replace, source=source
    )
    verb = "loaded" if result.created else "already loaded"
    state.output.message(
        f"{verb} [bold]{result.table}[/]: {result.partitions} partitions, "
        f"{result.rows:,} rows at {result.location}"
    )
    state.output.result(result)


@sample.command("generate")
@click.argument("table")
@click.option("--partitions", type=click.IntRange(1, 100_000), default=30, show_default=True)
@click.option(
    "--rows",
    "rows_per_partition",
    type=click.IntRange(1),
    default=2_000,
    show_default=True,
    help="About this many rows per partition (sizes vary by up to a quarter).",
)
@click.option(
    "--files", "files_per_partition", type=click.IntRange(1), default=2, show_default=True
)
@click.option("--drift", is_flag=True, help="Add a column half-way (ADD COLUMNS without CASCADE).")
@click.option("--seed", type=int, default=7, show_default=True, help="Same seed, same rows.")
@click.option(
    "--text-partitions",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Keep the oldest N partitions as Hive text files (LazySimpleSerDe).",
)
@click.option(
    "--location",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Where the ORC files go (default: HOME/generated/DB/TABLE).",
)
@pass_state
def generate(
    state: CliState,
    table: str,
    partitions: int,
    rows_per_partition: int,
    files_per_partition: int,
    drift: bool,
    seed: int,
    text_partitions: int,
    location: Path | None,
) -> None:
    """Create a Hive external ORC table of your own (orders by day) to migrate.

    \b
    Examples:
      lakeshift sample generate shop.orders --partitions 60 --rows 5000 --drift
      lakeshift sample generate shop.returns --partitions 10 --location /data/returns
      lakeshift sample generate shop.legacy --partitions 20 --text-partitions 5
    """
    ctx = state.context
    db, name = split_table_name(table)
    result = generate_table(
        ctx.metastore,
        f"{db}.{name}",
        (location or ctx.home / "generated" / db / name).resolve(),
        partitions=partitions,
        rows_per_partition=rows_per_partition,
        files_per_partition=files_per_partition,
        drift=drift,
        seed=seed,
        text_partitions=text_partitions,
    )
    state.output.message(
        f"created [bold]{result.table}[/]: {result.partitions} partitions, {result.files} data "
        f"files, {result.rows:,} rows at {result.location}"
        + (f"; column channel added from dt={result.drift_from}" if result.drift_from else "")
    )
    state.output.result(result)
