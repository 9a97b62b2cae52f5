"""``lakeshift follow``: keep the lake table in step while writers keep writing to Hive."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.config import FORMAT_CHOICES
from lakeshift.errors import Behind, LakeshiftError, PartialFailure
from lakeshift.follow.loop import follow
from lakeshift.follow.passes import FollowOptions, PassReport
from lakeshift.inspect.inspector import source_table, split_table_name
from lakeshift.migrate.adoption import ADOPT_FILES, ADOPT_NEVER
from lakeshift.migrate.backfill import resolve_target


@contextmanager
def _stop_on_signals() -> Iterator[threading.Event]:
    """SIGINT or SIGTERM ends ``follow`` after the pass under way (a scheduler's stop); a
    second one interrupts at once."""
    stopping = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stopping
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if stopping.is_set():
            raise KeyboardInterrupt
        stopping.set()

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stopping
    finally:
        for s, before in previous.items():
            signal.signal(s, before)


def pass_line(report: PassReport) -> str:
    """One line per pass for the terminal."""
    changes = report.changes
    seen = (
        f"{len(changes.added)} added, {len(changes.changed)} changed, "
        f"{len(changes.dropped)} dropped" + (", columns changed" if changes.schema_changed else "")
        if changes
        else "nothing read"
    )
    did = [
        f"{len(report.withdrawn)} back on Hive" if report.withdrawn else "",
        f"{len(report.deleted)} deleted" if report.deleted else "",
        f"{len(report.backfilled)} copied" if report.backfilled else "",
        f"{len(report.validated)} validated" if report.validated else "",
        f"{len(report.switched)} switched" if report.switched else "",
    ]
    done = ", ".join(d for d in did if d) or "nothing to do"
    step = (
        "[green]in step[/]"
        if report.in_step
        else f"[yellow]{len(report.behind)} behind, lag {report.lag_seconds:.0f}s[/]"
    )
    return f"pass {report.number}: {seen}; {done}; {step} ({report.seconds:.1f}s)"


@click.command("follow")
@click.argument("table")
@click.option("--target", default=None, help="The lake table (default: the one migrated to).")
@click.option(
    "--format",
    "target_format",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="Format of a target follow creates (default: the `format` setting).",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds between pass starts (default: the follow_interval setting, 60).",
)
@click.option(
    "--quiet-seconds",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Copy and switch a partition only once unchanged this long "
    "(default: follow_quiet_seconds, 300).",
)
@click.option("--once", is_flag=True, help="One pass, then exit (cron, schedulers).")
@click.option(
    "--max-passes",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many passes.",
)
@click.option("--no-switch", is_flag=True, help="Copy and validate only; never switch.")
@click.option(
    "--level",
    type=click.Choice(["checksum", "independent"]),
    default="checksum",
    show_default=True,
    help="Validation level that proves a partition before it is switched.",
)
@click.option(
    "--adopt-files",
    type=click.Choice(ADOPT_FILES),
    default=ADOPT_NEVER,
    show_default=True,
    help="Iceberg: hold a settled partition's own ORC files where proven to read as Hive "
    "does, instead of copying it (as migrate --adopt-files).",
)
@click.option("--break-lease", is_flag=True, help="Take over from a follow that is gone.")
@pass_state
def follow_command(
    state: CliState,
    table: str,
    target: str | None,
    target_format: str | None,
    interval: float | None,
    quiet_seconds: float | None,
    once: bool,
    max_passes: int | None,
    no_switch: bool,
    level: str,
    adopt_files: str,
    break_lease: bool,
) -> None:
    """Keep the lake table in step with a Hive table that writers keep writing.

    Each pass: a switched partition whose source changed (files added, replaced or removed,
    INSERT OVERWRITE, its location or format altered) is served from Hive again first, in
    one view update; partitions Hive dropped leave the view and the lake table; new and
    changed partitions are copied once unchanged for the quiet period, validated and
    switched; added columns evolve the target. Runs until Ctrl-C or SIGTERM (after the pass
    under way) or until the table is cut over.

    Exit codes: 0 in step; 10 partitions still behind (run again later); 3 only partitions
    lakeshift does not migrate are left on Hive; 6 the source table is gone; 8 another
    writer committed to the target.

    \b
    Examples:
      lakeshift follow sales.orders --interval 60
      lakeshift follow sales.orders --once --quiet-seconds 600
    """
    ctx = state.context
    out = state.output
    db, name = split_table_name(table)
    source = f"{db}.{name}"
    source_table(ctx.metastore, source)  # a missing table fails before Spark starts
    settings = ctx.settings
    options = FollowOptions(
        target=resolve_target(ctx.journal, source, target, target_format or settings.format),
        format=target_format,
        switch=not no_switch,
        level=level,
        quiet_seconds=quiet_seconds or settings.follow_quiet_seconds,
        adopt_files=adopt_files,
    )
    every = interval or settings.follow_interval
    if not once:
        out.message(
            f"following [bold]{source}[/] into {options.target}: a pass every {every:g}s, "
            f"quiet period {options.quiet_seconds:g}s (Ctrl-C stops after the pass)"
        )
    with _stop_on_signals() as stopping:
        result = follow(
            ctx,
            source,
            options,
            interval=every,
            once=once,
            stop=stopping.is_set,
            on_pass=lambda report: out.message(pass_line(report)),
            on_error=lambda e: out.message(f"[red]pass failed[/]: {e} (trying again)"),
            max_passes=max_passes,
            break_lease=break_lease,
        )
    last = result.last
    if last is not None and last.behind:
        rows = sorted(last.behind.items())[:20]
        out.table("Behind", ["partition", "why"], rows)
    if last is not None and last.refused:
        out.table("Not migrated (served from Hive)", ["partition", "why"],
                  sorted(last.refused.items())[:20])  # fmt: skip
    # The last pass's own listing: listing the source again for the report would double
    # what an unchanged pass costs on an object store. After a failed pass, the source as it
    # is now; a report that cannot be written (the service still away) does not hide the run.
    listed = last.inventory if last is not None and not result.last_failed else None
    try:
        state.html_report(source, listed)
    except LakeshiftError as e:
        out.message(f"[yellow]HTML report not written[/]: {e}")
    out.result(result)
    if last is None:
        return
    if last.behind:
        raise Behind(
            f"{len(last.behind)} partition(s) of {source} are not served from the lake at "
            f"their current source yet (lag {last.lag_seconds:.0f}s).",
            hint="Run follow again (or keep it running); partitions that keep changing stay "
            "on Hive until they are quiet.",
        )
    if last.refused:
        raise PartialFailure(
            f"{len(last.refused)} partition(s) of {source} are not migrated and stay on Hive.",
            hint="See each reason; fix the partition in Hive and follow picks it up.",
        )
