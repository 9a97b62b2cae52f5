"""``lakeshift retire DB.TABLE``: drop the legacy Hive table after cutover and probation."""

from __future__ import annotations

import sys

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.errors import UsageError
from lakeshift.inspect.inspector import split_table_name
from lakeshift.report.files import write_report
from lakeshift.route.retire import RetirePlan, RetireResult, prepare_retire, retire


def _typed_confirmation(plan: RetirePlan, confirm: str | None) -> None:
    """Deleting files needs the table's name typed (or given with --confirm); --yes is not
    enough for that."""
    if confirm is not None:
        db, name = split_table_name(confirm)
        if f"{db}.{name}" != plan.source:
            raise UsageError(
                f"--confirm names {confirm}, not {plan.source}; no file was deleted.",
                hint=f"Pass --confirm {plan.source} to delete the legacy table's files.",
            )
        return
    if not sys.stdin.isatty():
        raise UsageError(
            f"deleting the files of {plan.legacy or plan.source + ' (legacy)'} needs the table "
            "name typed, and there is no terminal to ask on.",
            hint=f"Pass --confirm {plan.source} from a script.",
        )
    try:
        typed = click.prompt(
            f"This deletes the data files of the legacy Hive table {plan.legacy}. "
            f"Type {plan.source} to confirm",
            default="",
            show_default=False,
        )
    except click.Abort:
        typed = ""
    if typed.strip().lower() != plan.source:
        raise UsageError("the table name was not typed; nothing was dropped or deleted.")


def _confirm_drop(plan: RetirePlan, yes: bool) -> None:
    if yes or plan.legacy is None:
        return
    if not sys.stdin.isatty():
        raise UsageError(
            f"retiring {plan.legacy} needs confirmation and there is no terminal to ask on.",
            hint="Pass --yes to drop its metastore entry from a script (files are kept).",
        )
    try:
        agreed = click.confirm(f"Drop the metastore entry of {plan.legacy} (files are kept)?")
    except click.Abort:
        agreed = False
    if not agreed:
        raise UsageError("retire not confirmed (pass --yes in scripts)")


def _markdown(result: RetireResult) -> str:
    data = result.to_json()
    lines = [
        f"# Retirement of `{result.legacy}` (legacy of `{result.source}`)",
        "",
        f"- metastore entry dropped: {'yes' if result.dropped else 'no'}"
        + (" (already retired)" if result.already_retired else ""),
    ]
    if data["validation"]:
        totals = ", ".join(f"{n} {s}" for s, n in data["validation"]["totals"].items() if n)
        lines.append(f"- fresh checksum validation: {totals}")
    lines += [
        f"- manifest: `{result.manifest}` ({result.files} files, {result.bytes:,} bytes)",
        f"- files deleted: {len(result.deleted)}; changed since the manifest (kept): "
        f"{len(result.kept_changed)}; already absent: {len(result.absent)}",
    ]
    return "\n".join(lines) + "\n"


@click.command("retire")
@click.argument("table")
@click.option(
    "--probation-days",
    type=click.FloatRange(min=0),
    default=None,
    help="Days that must pass after the cutover (default: setting retire_probation_days, 7).",
)
@click.option(
    "--delete-files",
    is_flag=True,
    help="Also delete the legacy table's data files (needs the table name typed, or --confirm).",
)
@click.option(
    "--confirm",
    "confirm",
    default=None,
    metavar="DB.TABLE",
    help="With --delete-files, from scripts: the table's name, as typed confirmation.",
)
@click.option("--yes", is_flag=True, help="Do not ask before dropping the metastore entry.")
@pass_state
def retire_command(
    state: CliState,
    table: str,
    probation_days: float | None,
    delete_files: bool,
    confirm: str | None,
    yes: bool,
) -> None:
    """Drop the legacy Hive table after cutover, probation and a fresh validation.

    The only command that touches source data, and only on request. After the cutover and its
    probation period, every partition of the legacy Hive table is validated afresh against the
    lake table (checksums; the source is scanned again). Only when all are equal is the legacy
    table's metastore entry dropped; its files are kept and listed in a manifest under
    HOME/retired/. With --delete-files (and the table's name typed, or --confirm DB.TABLE) the
    files listed in that manifest are deleted too. Refused before cutover or probation (exit 7)
    and when validation finds a difference (exit 4, nothing dropped).

    \b
    Examples:
      lakeshift retire shop.orders --yes
      lakeshift retire shop.orders --probation-days 0 --yes
      lakeshift retire shop.orders --delete-files --confirm shop.orders
    """
    if confirm is not None and not delete_files:
        raise UsageError("--confirm goes with --delete-files (it confirms deleting files)")
    ctx = state.context
    out = state.output
    plan = prepare_retire(
        ctx.formats, ctx.settings, ctx.journal, table, probation_days=probation_days
    )
    if delete_files:
        _typed_confirmation(plan, confirm)
    else:
        _confirm_drop(plan, yes)
    result = retire(
        ctx.formats,
        ctx.settings,
        ctx.journal,
        plan,
        delete_files=delete_files,
        progress=out.message,
    )
    write_report(ctx.home, result.source, "retire", result.to_json(), _markdown(result))
    if result.already_retired:
        out.message(f"{result.legacy} was already retired.")
    else:
        out.message(
            f"[bold]{result.legacy}[/] dropped from the metastore after a fresh validation of "
            f"every partition; {result.source} is the lake table ({result.files} files, "
            f"{result.bytes:,} bytes listed in {result.manifest})"
        )
    if result.extra_partitions:
        out.message(
            f"{len(result.extra_partitions)} partition(s) exist only in the lake table "
            "(written after the cutover)."
        )
    if delete_files:
        out.message(
            f"{len(result.deleted)} file(s) deleted"
            + (
                f"; {len(result.kept_changed)} changed since the manifest and kept"
                if result.kept_changed
                else ""
            )
            + (f"; {len(result.absent)} already absent" if result.absent else "")
        )
    elif result.manifest:
        out.message(f"files kept; delete them later with --delete-files --confirm {result.source}")
    out.result(result)
