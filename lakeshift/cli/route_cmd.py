"""``lakeshift switch | rollback | status | cutover | revert``."""

from __future__ import annotations

import sys

import click

from lakeshift.cli.base import PARTITIONS_HELP, CliState, pass_state
from lakeshift.cli.follow_cmd import pass_line
from lakeshift.errors import PartialFailure, UsageError
from lakeshift.follow.loop import catch_up
from lakeshift.inspect.inspector import split_table_name
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.migrate.backfill import resolve_target
from lakeshift.route.cutover import Names, cutover, names_for, revert
from lakeshift.route.router import rollback, status, switch

_TARGET = click.option(
    "--target",
    default=None,
    help="The migrated lake table (default: the one this source was migrated to).",
)
_VIEW = click.option(
    "--view", default=None, help="Routing view readers use (default: DB.TABLE_routed)."
)


def _target(state: CliState, table: str, target: str | None) -> str:
    db, name = split_table_name(table)
    ctx = state.context
    return resolve_target(ctx.journal, f"{db}.{name}", target, ctx.settings.format)


@click.command("switch")
@click.argument("table")
@_TARGET
@_VIEW
@click.option("--partitions", default=None, help=PARTITIONS_HELP)
@click.option("--all-validated", is_flag=True, help="Switch every partition that is switchable.")
@pass_state
def switch_command(
    state: CliState,
    table: str,
    target: str | None,
    view: str | None,
    partitions: str | None,
    all_validated: bool,
) -> None:
    """Serve partitions from the lake table through the routing view (one atomic update).

    Right before switching, each partition's source fingerprint is checked against the one it
    was backfilled and validated at; a partition that changed is not switched (and one already
    switched goes back to Hive). Every partition asked for (with --all-validated: every
    partition) that is not served from the lake table afterwards is listed with its reason,
    and the exit code is then 3.

    \b
    Examples:
      lakeshift switch sample.click_log --partitions 'yyyymmdd=20220401'
      lakeshift switch sample.click_log --all-validated
    """
    if not partitions and not all_validated:
        raise UsageError("say which partitions: --partitions FILTER or --all-validated")
    ctx = state.context
    change = switch(
        ctx.formats,
        ctx.settings,
        ctx.journal,
        table,
        _target(state, table, target),
        partitions=PartitionFilter.parse(partitions),
        all_validated=all_validated,
        view=view,
    )
    held = f"; {len(change.refused)} held back (below)" if change.refused else ""
    state.output.message(
        f"{len(change.changed)} partition(s) switched; {len(change.switched)} "
        f"now served from the lake table through [bold]{change.view}[/]{held}"
    )
    if change.refused:
        state.output.table("Not switched", ["partition", "why"], sorted(change.refused.items()))
    state.html_report(table)
    state.output.result(change)
    if change.refused:
        raise PartialFailure(
            f"{len(change.refused)} partition(s) of {change.source} were not switched "
            f"(listed with the reason{'s' if len(change.refused) > 1 else ''}).",
            hint="Migrate and validate them as each reason says, then switch again.",
        )


@click.command("rollback")
@click.argument("table")
@_TARGET
@_VIEW
@click.option("--partitions", required=True, help=PARTITIONS_HELP)
@pass_state
def rollback_command(
    state: CliState, table: str, target: str | None, view: str | None, partitions: str
) -> None:
    """Serve partitions from the Hive table again (one atomic update of the view).

    \b
    Example:
      lakeshift rollback sample.click_log --partitions 'yyyymmdd=20220401'
    """
    ctx = state.context
    change = rollback(
        ctx.formats,
        ctx.settings,
        ctx.journal,
        table,
        _target(state, table, target),
        partitions=PartitionFilter.parse(partitions),
        view=view,
    )
    state.output.message(
        f"{len(change.changed)} partition(s) rolled back to Hive; "
        f"{len(change.switched)} still served from the lake table"
    )
    state.html_report(table)
    state.output.result(change)


@click.command("status")
@click.argument("table")
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="Partitions listed (0 = all).",
)
@pass_state
def status_command(state: CliState, table: str, limit: int) -> None:
    """Where each partition is served from, its migration status and last validation.

    \b
    Example:
      lakeshift status sample.click_log
    """
    ctx = state.context
    report = status(ctx.metastore, ctx.settings, ctx.journal, table)
    out = state.output
    out.message(
        f"[bold]{report['source']}[/]: {report['switched']} of {report['partitions']} "
        f"partitions served from the lake table via {report['view'] or '(no view yet)'}; "
        + ", ".join(f"{n} {s}" for s, n in sorted(report["by_status"].items()))
        + (f"; cutover {report['cutover']}" if report["cutover"] else "")
    )
    follow = report["follow"]
    if follow:
        out.message(
            f"followed: {follow['passes']} pass(es); "
            + (
                "[green]in step[/]"
                if follow["in_step"]
                else f"[yellow]{follow['behind']} partition(s) behind, lag "
                f"{follow['lag_seconds']:.0f}s[/]"
            )
            + f"; longest a reader could see a stale copy: {follow['stale_seconds_max']:.1f}s"
        )
    rows = report["rows"] if limit <= 0 else report["rows"][:limit]
    out.table(
        "Partitions",
        ["partition", "served from", "status", "validation", "source changed"],
        [
            (
                r["partition"],
                r["served_from"],
                r["status"],
                r["validation"] or "",
                "yes" if r["source_changed"] else "",
            )
            for r in rows
        ],
    )
    out.result(report)


def _confirmed(question: str) -> bool:
    try:
        return click.confirm(question)
    except click.Abort:  # end of input at the prompt: the same as answering no
        return False


@click.command("cutover")
@click.argument("table")
@_TARGET
@_VIEW
@click.option(
    "--legacy-name", default=None, help="Name the Hive table keeps (default: DB.TABLE_hive_legacy)."
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@pass_state
def cutover_command(
    state: CliState,
    table: str,
    target: str | None,
    view: str | None,
    legacy_name: str | None,
    yes: bool,
) -> None:
    """Give DB.TABLE's name to the lake table; the Hive table keeps a legacy name.

    Only when every partition is switched and valid, and once writers write to the lake table.
    No data file is touched; safe to re-run after a crash; `lakeshift revert` undoes it.

    \b
    Example:
      lakeshift cutover sample.click_log --yes
    """
    if not yes and not sys.stdin.isatty():
        raise UsageError(
            f"cutover of {table} needs confirmation and there is no terminal to ask on.",
            hint="Pass --yes to cut over from a script or pipeline.",
        )
    ctx = state.context
    names = names_for(ctx.journal, table, target, legacy_name, view, ctx.settings.format)
    if not yes and not _confirmed(
        f"Rename {names.source} -> {names.legacy} and {names.target} -> {names.source}?"
    ):
        raise UsageError("cutover not confirmed (pass --yes in scripts)")
    caught_up = catch_up(ctx, names.source, names.target)
    if caught_up is not None:
        state.output.message(f"last catch-up before the cutover: {pass_line(caught_up)}")
    steps = cutover(ctx.formats, ctx.settings, ctx.journal, names)
    for step in steps:
        state.output.message(f"- {step}")
    state.output.message(f"[bold]{names.source}[/] is now the lake table")
    _report_after_cutover(state, names)
    state.output.result({"steps": steps, "names": names})


def _report_after_cutover(state: CliState, names: Names) -> None:
    """The report under the source's name, read from the Hive table at its legacy name."""
    from dataclasses import replace

    from lakeshift.inspect.inspector import inspect_table, save_inventory
    from lakeshift.report.collect import write_table_report

    ctx = state.context
    database, table = split_table_name(names.source)
    inventory = replace(
        inspect_table(ctx.metastore, names.legacy, ctx.settings), database=database, table=table
    )
    save_inventory(inventory, ctx.home)
    path = write_table_report(ctx.home, inventory, ctx.journal)
    state.output.message(f"[dim]HTML report: {path}[/]")


@click.command("revert")
@click.argument("table")
@_TARGET
@_VIEW
@click.option("--legacy-name", default=None, help="The Hive table's legacy name.")
@pass_state
def revert_command(
    state: CliState, table: str, target: str | None, view: str | None, legacy_name: str | None
) -> None:
    """Undo a cutover: the Hive table gets its name back, the view routes again.

    \b
    Example:
      lakeshift revert sample.click_log
    """
    ctx = state.context
    names = names_for(ctx.journal, table, target, legacy_name, view, ctx.settings.format)
    steps = revert(ctx.formats, ctx.settings, ctx.journal, names)
    for step in steps:
        state.output.message(f"- {step}")
    state.html_report(names.source)
    state.output.result({"steps": steps, "names": names})
