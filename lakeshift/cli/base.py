"""The ``lakeshift`` command group: global options, settings, error-to-exit-code translation."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lakeshift import __version__, storage
from lakeshift.cli.output import Output, make_output
from lakeshift.config import OUTPUT_CHOICES, Settings, load_settings, parse_conf_pairs
from lakeshift.context import Context
from lakeshift.errors import EXIT_INTERNAL, LakeshiftError, from_task
from lakeshift.logs import configure_file_logging, keep_records_off_the_terminal
from lakeshift.metastore.client import lost_metastore

if TYPE_CHECKING:
    from lakeshift.inspect.model import TableInventory

log = logging.getLogger(__name__)


@dataclass
class CliState:
    """What every command receives: settings, output, and the lazily built context."""

    settings: Settings
    output: Output
    _context: Context | None = field(default=None, repr=False)

    @property
    def context(self) -> Context:
        if self._context is None:
            self._context = Context(self.settings)
        return self._context

    def html_report(self, table: str, inventory: TableInventory | None = None) -> Path:
        """Write the table's HTML report from the source as it is now (or as ``inventory``,
        a listing the command just made, shows it) and the journal."""
        from lakeshift.inspect.inspector import inspect_table, save_inventory
        from lakeshift.report.collect import write_table_report

        ctx = self.context
        if inventory is None:
            inventory = inspect_table(ctx.metastore, table, ctx.settings)
            save_inventory(inventory, ctx.home)
        path = write_table_report(ctx.home, inventory, ctx.journal)
        self.output.message(f"[dim]HTML report: {path}[/]")
        return path


pass_state = click.make_pass_decorator(CliState)

#: ``--partitions``' help wherever it takes a filter (the rules: docs/reference/commands.md).
PARTITIONS_HELP = (
    "Partition filter: comma-separated terms, each a glob on the partition name "
    "(yyyymmdd=202204*), an inclusive range on the last key (yyyymmdd=20220401..20220410) or "
    "NULL (docs/reference/commands.md, 'Partition filters')."
)


class LakeshiftGroup(click.Group):
    """Turns lakeshift errors into their exit codes and a one-paragraph message."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            value = super().invoke(ctx)
        except LakeshiftError as e:
            _fail(ctx, str(e), e.exit_code, e)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            _fail(ctx, "interrupted; re-run the same command to resume.", 130, None)
        except Exception as e:
            carried = from_task(e)  # a lakeshift error raised inside a Spark task
            if carried is not None:
                _fail(ctx, str(carried), carried.exit_code, e, carried.hint)
            stored = storage.translate(e)  # an object store refused, or has no such bucket
            if stored is not None:
                _fail(ctx, stored.message, stored.exit_code, e, stored.hint)
            lost = lost_metastore(e)  # pyiceberg's or Spark's Hive client lost the metastore
            if lost is not None:
                _fail(ctx, lost.message, lost.exit_code, e, lost.hint)
            _fail(
                ctx,
                f"internal error: {e!r}. This is a bug; please report it with the log.",
                EXIT_INTERNAL,
                e,
            )
        else:
            state = ctx.find_object(CliState)
            if state is not None:
                state.output.flush()
            return value


def _fail(
    ctx: click.Context,
    message: str,
    code: int,
    error: BaseException | None,
    hint: str | None = None,
) -> None:
    state = ctx.find_object(CliState)
    output = state.output if state else make_output("text")
    log_file = state.settings.log_file.resolve() if state else None
    if error is not None:
        if state is not None and state.settings.home.is_dir():
            _log_to_file(state.settings.log_file)
        log.error("failed: %s", message, exc_info=error)
    if log_file is not None and not log_file.exists():
        log_file = None
    output.error(message, code=code, log_file=log_file, hint=hint or getattr(error, "hint", None))
    ctx.exit(code)


def _log_to_file(log_file: Path) -> None:
    """Make sure a failure's traceback reaches the log file, even before the context built it."""
    try:
        configure_file_logging(log_file)
    except OSError as e:
        # The failure is being reported already; a log file we cannot write must not hide it.
        log.debug("cannot write the log file %s: %s", log_file, e)


@click.group(cls=LakeshiftGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    type=click.Path(path_type=Path),
    default=None,
    help="State directory (journal, logs, embedded metastore). Default ./.lakeshift; "
    "env LAKESHIFT_HOME.",
)
@click.option(
    "--metastore-uri",
    default=None,
    help="thrift://host:9083 of your Hive Metastore. Default: the embedded one.",
)
@click.option(
    "--metastore-port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port of the embedded metastore (0 = any free port).",
)
@click.option("--spark-master", default=None, help="Spark master, e.g. local[4], yarn.")
@click.option("--conf", "conf", multiple=True, help="Extra Spark conf key=value (repeatable).")
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="TOML config file. Default HOME/lakeshift.toml if present.",
)
@click.option(
    "--output",
    type=click.Choice(OUTPUT_CHOICES),
    default=None,
    help="text (default) or json for scripts.",
)
@click.version_option(__version__, prog_name="lakeshift")
@click.pass_context
def cli(
    ctx: click.Context,
    home: Path | None,
    metastore_uri: str | None,
    metastore_port: int | None,
    spark_master: str | None,
    conf: tuple[str, ...],
    config_file: Path | None,
    output: str | None,
) -> None:
    """Migrate Hive ORC tables into lake tables, one validated partition at a time.

    \b
    Examples:
      lakeshift metastore start
      lakeshift sample load
      lakeshift inspect sample.click_log
      lakeshift --metastore-uri thrift://hms:9083 --output json inspect db.events
    """
    keep_records_off_the_terminal()
    flags = {
        "home": home,
        "metastore_uri": metastore_uri,
        "metastore_port": metastore_port,
        "spark_master": spark_master,
        "output": output,
        "spark_conf": parse_conf_pairs(list(conf)) if conf else None,
    }
    try:
        settings = load_settings(flags, config_file=config_file)
    except LakeshiftError as e:
        make_output(output or "text").error(str(e), code=e.exit_code, log_file=None, hint=e.hint)
        ctx.exit(e.exit_code)
    ctx.obj = CliState(settings=settings, output=make_output(settings.output))
    ctx.call_on_close(lambda: ctx.obj.context.close() if ctx.obj._context else None)
