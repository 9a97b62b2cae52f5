"""``lakeshift sample load``: the sample table ``sample.click_log``."""

from __future__ import annotations

from pathlib import Path

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.sample.load import load_sample


@click.group()
def sample() -> None:
    """The sample Hive table sample.click_log (see sample_data/README.md)."""


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
