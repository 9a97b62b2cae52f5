"""``lakeshift validate DB.TABLE``: source vs target, per partition."""

from __future__ import annotations

import click
from rich.markup import escape

from lakeshift.cli.base import PARTITIONS_HELP, CliState, pass_state
from lakeshift.cli.output import Output
from lakeshift.cli.profile_view import profile_run
from lakeshift.errors import PartialFailure, ValidationMismatch
from lakeshift.inspect.archived import skipped_note
from lakeshift.inspect.inspector import source_table, split_table_name
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.migrate.backfill import resolve_target
from lakeshift.report.files import write_report
from lakeshift.validate.model import EQUAL, LEVELS, NOT_MIGRATED, NOT_PROVEN, ValidationReport
from lakeshift.validate.validator import validate_table

_STYLE = {
    EQUAL: "[green]equal[/]",
    "mismatch": "[bold red]mismatch[/]",
    "stale": "[yellow]stale[/]",
    "missing": "[yellow]missing[/]",
    "extra": "[red]extra[/]",
    NOT_MIGRATED: "[yellow]not-migrated[/]",
    NOT_PROVEN: "[yellow]not-proven[/]",
}


def _rows(value: int | None) -> str:
    """A row count, or ``unknown`` (an unreadable footer): never a number that is not known."""
    return "unknown" if value is None else f"{value:,}"


def render_validation(out: Output, report: ValidationReport, *, show_equal: bool = False) -> None:
    totals = report.to_json()["totals"]
    out.message(
        f"[bold]validate[/] {report.source} → {report.target} at level [bold]{report.level}[/]: "
        + ", ".join(f"{n} {s}" for s, n in totals.items() if n)
        + f" ({report.seconds:.1f}s)"
    )
    if report.independent_seconds is not None:
        out.message(
            f"independent reader: {report.independent_seconds:.1f}s of the "
            f"{report.seconds:.1f}s (its cost over checksum)"
        )
    for problem in report.table_problems:
        out.message(f"[bold red]table:[/] {problem}")
    note = skipped_note(report.archived_skipped)
    if note:  # compared without them, as migrated: say what "equal" leaves out
        out.message(f"[yellow]{escape(note)}[/]")
    for counted, said in (
        (
            "nulled",
            "[yellow]{} source value(s) in {} partition(s) read as NULL by Hive's type "
            "conversions[/]",
        ),
        ("truncated", "{} source string(s) in {} partition(s) cut to their VARCHAR/CHAR width"),
    ):
        found = [p for p in report.partitions if getattr(p, counted)]
        if found:
            total = sum(n for p in found for n in getattr(p, counted).values())
            out.message(
                said.format(f"{total:,}", len(found)) + ", as Hive shows them (per column below)"
            )
    rows = [
        (
            p.partition,
            _STYLE.get(p.status, p.status),
            _rows(p.source_rows),
            _rows(p.target_rows),
            p.detail,
        )
        for p in report.partitions
        if show_equal or not p.ok or p.nulled or p.truncated
    ]
    if rows:
        out.table(
            "Partitions", ["partition", "status", "source rows", "target rows", "detail"], rows
        )
    for p in report.partitions:
        if p.diff and (p.diff.only_in_source or p.diff.only_in_target):
            out.message(
                f"[bold]{p.partition}[/] differing rows (buckets {p.diff.differing_buckets}):"
            )
            for row in p.diff.only_in_source:
                out.message(f"  [red]- only in source:[/] {row}")
            for row in p.diff.only_in_target:
                out.message(f"  [red]+ only in target:[/] {row}")


def _markdown(report: ValidationReport) -> str:
    lines = [
        f"# Validation of `{report.source}` → `{report.target}` ({report.level})",
        "",
        "| partition | status | source rows | target rows | detail |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| `{p.partition}` | {p.status} | {_rows(p.source_rows)} | {_rows(p.target_rows)} "
        f"| {p.detail} |"
        for p in report.partitions
    ]
    lines += [f"\n**Table:** {problem}" for problem in report.table_problems]
    if report.independent_seconds is not None:
        lines.append(f"\nIndependent reader: {report.independent_seconds:.1f}s.")
    note = skipped_note(report.archived_skipped)
    if note:
        lines.append(f"\n**Left out:** {note}")
    return "\n".join(lines) + "\n"


@click.command("validate")
@click.argument("table")
@click.option(
    "--target",
    default=None,
    help="The migrated table (default: the one this source was migrated to).",
)
@click.option(
    "--level",
    type=click.Choice(LEVELS),
    default="checksum",
    show_default=True,
    help="count: metadata only; checksum: + one target scan; deep: + differing rows; "
    "independent: + a second reader of the source that must agree with both sides.",
)
@click.option("--partitions", default=None, help=PARTITIONS_HELP)
@click.option("--all", "show_all", is_flag=True, help="List equal partitions too.")
@click.option(
    "--profile",
    is_flag=True,
    help="Show and keep where the run's time went (phases, Spark jobs) as a profile report.",
)
@pass_state
def validate_command(
    state: CliState,
    table: str,
    target: str | None,
    level: str,
    partitions: str | None,
    show_all: bool,
    profile: bool,
) -> None:
    """Compare DB.TABLE with its migrated target, partition by partition.

    Exit code 4 when any partition differs, is stale (source changed since its backfill),
    missing or extra; 3 when every migrated partition matches but some were not migrated
    (refused by the inspector, listed with the reason).

    \b
    Examples:
      lakeshift validate sample.click_log
      lakeshift validate sample.click_log --level deep --partitions 'yyyymmdd=202204*'
      lakeshift --output json validate sample.click_log --level count
      lakeshift validate sample.click_log --profile
    """
    ctx = state.context
    db, name = split_table_name(table)
    source_table(ctx.metastore, table)  # a missing table is reported before Spark starts
    target = resolve_target(ctx.journal, f"{db}.{name}", target, ctx.settings.format)
    with profile_run(state, profile, "validate", f"{db}.{name}"):
        report = validate_table(
            ctx.formats.spark,
            ctx.metastore,
            ctx.formats.catalog,
            ctx.settings,
            ctx.journal,
            table,
            target,
            level=level,
            partitions=PartitionFilter.parse(partitions),
        )
    write_report(ctx.home, report.source, "validate", report.to_json(), _markdown(report))
    render_validation(state.output, report, show_equal=show_all)
    state.html_report(table)
    state.output.result(report)
    _raise_unless_ok(report)


def _names(names: list[str]) -> str:
    return ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")


def _raise_unless_ok(report: ValidationReport) -> None:
    """Exit 4 when the target differs; exit 3 when partitions were only held back (refused) or
    not proven (a reader could not read their source)."""
    if report.ok:
        return
    bad = report.differences
    held = [p.partition for p in report.partitions if p.status == NOT_MIGRATED]
    unproven = [p.partition for p in report.partitions if p.status == NOT_PROVEN]
    notes = []
    if held:
        notes.append(
            f"{len(held)} partition(s) not migrated (refused by the inspector): {_names(held)}"
        )
    if unproven:
        notes.append(
            f"{len(unproven)} partition(s) not proven (a file of their source could not be "
            f"read; see each partition's detail): {_names(unproven)}"
        )
    held_text = "; ".join(notes)
    if bad or report.table_problems:
        raise ValidationMismatch(
            f"{len(bad)} partition(s) of {report.source} do not match {report.target}"
            + (f": {_names(bad)}" if bad else "")
            + ("; " + "; ".join(report.table_problems) if report.table_problems else "")
            + (f"; {held_text}" if held_text else "")
            + ".",
            hint=f"Repair them with `lakeshift migrate {report.source} --rebackfill-invalid` "
            "(stale partitions are back-filled by a plain re-run), then validate again; use "
            "--level deep to see differing rows.",
        )
    raise PartialFailure(
        f"{held_text}; every other partition of {report.source} matches {report.target}.",
        hint="Fix what each partition's detail names (see `lakeshift inspect`), then migrate "
        "and validate again; a partition the independent reader cannot read can be proven at "
        "--level checksum.",
    )
