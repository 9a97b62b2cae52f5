"""``lakeshift interactive DB.TABLE``: the per-table migration as a guided session.

Each step shows what it found and asks before it changes anything. Every step is resumable on
its own, so stopping at any prompt (or Ctrl-C, or the end of scripted input) loses nothing: the
next session starts from what is already done (backfilled partitions are skipped, validated ones
are not validated again, switched ones stay switched).
"""

from __future__ import annotations

import click
from rich.prompt import Confirm, Prompt

from lakeshift.cli.base import CliState, pass_state
from lakeshift.cli.migrate_cmd import migration_options, options_from_flags, render_plan
from lakeshift.cli.render import human_bytes, render_inventory
from lakeshift.cli.schema_cmd import render_mapping
from lakeshift.cli.validate_cmd import render_validation
from lakeshift.context import Context
from lakeshift.errors import PartialFailure, UsageError, ValidationMismatch
from lakeshift.inspect.inspector import inspect_table, save_inventory
from lakeshift.inspect.model import TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.migrate.backfill import MigrateOptions, migrate, plan_migration
from lakeshift.report.collect import write_table_report
from lakeshift.report.plan_markdown import write_plan_report
from lakeshift.route.cutover import cutover, is_cut_over, names_for
from lakeshift.route.router import needs_validation, status, switch
from lakeshift.validate.model import LEVELS
from lakeshift.validate.validator import validate_table

STEPS = 6


class _Stop(Exception):
    """The user chose to stop here."""


class Session:
    """One guided session over one table; ``run`` walks the steps in order."""

    def __init__(self, state: CliState, table: str, options: MigrateOptions) -> None:
        self.state = state
        self.ctx: Context = state.context
        self.out = state.output
        self.table = table
        self.options = options
        self.problems: list[str] = []
        self.inventory: TableInventory | None = None
        self.mismatch = False

    def step(self, number: int, title: str) -> None:
        self.out.message(f"\n[bold cyan]{number}/{STEPS} {title}[/]")

    def confirm(self, question: str, default: bool = True) -> bool:
        return Confirm.ask(question, default=default, console=self.out.console)

    def run(self) -> None:
        inventory = self.inspect()
        self.plan_and_migrate(inventory)
        inventory = self.inventory = inspect_table(
            self.ctx.metastore, self.table, self.ctx.settings
        )
        self.validate(inventory)
        switched = self.switch(inventory)
        self.cutover(inventory, switched)

    def inspect(self) -> TableInventory:
        self.step(1, f"inspect {self.table}")
        route = self.ctx.journal.route(self.table.lower())
        if is_cut_over(route):
            self.out.message(
                f"{self.table} is already cut over to {route['target']}; nothing left to do. "
                f"`lakeshift revert {self.table}` undoes the cutover."
            )
            raise _Stop
        inventory = inspect_table(self.ctx.metastore, self.table, self.ctx.settings)
        save_inventory(inventory, self.ctx.home)
        self.inventory = inventory
        render_inventory(self.out, inventory, limit=10)
        if route or self.ctx.journal.partitions(inventory.qualified_name):
            now = status(self.ctx.metastore, self.ctx.settings, self.ctx.journal, self.table)
            self.out.message(
                "[bold]resuming:[/] "
                + ", ".join(f"{n} {s}" for s, n in sorted(now["by_status"].items()))
                + f"; {now['switched']} served from the lake table"
            )
        return inventory

    def plan_and_migrate(self, inventory: TableInventory) -> None:
        self.step(2, "target schema and plan")
        ctx = self.ctx
        plan = plan_migration(
            ctx.spark_conf(), ctx.formats, inventory, ctx.settings, self.options, ctx.journal
        )
        render_mapping(self.out, plan.mapping, inventory)
        write_plan_report(ctx.home, plan)
        render_plan(self.out, plan, limit=10)
        self.step(3, f"backfill into {plan.target}")
        todo = [p for p in plan.partitions if p.to_backfill]
        if not todo:
            self.out.message("nothing to backfill: every partition is already in the target.")
            return
        question = (
            f"Backfill {len(todo)} partitions ({plan.rows_to_backfill:,} rows, "
            f"{human_bytes(plan.bytes_to_backfill)}) into {plan.target} now?"
        )
        if not self.confirm(question):
            raise _Stop
        with self.out.progress("backfilling", total=0) as advance:
            result = migrate(
                ctx.spark,
                ctx.metastore,
                ctx.formats.catalog,
                ctx.settings,
                ctx.journal,
                self.table,
                self.options,
                progress=advance,
            )
        self.out.message(
            f"{len(result.backfilled)} partitions backfilled ({result.rows:,} rows in "
            f"{result.seconds:.1f}s); {len(result.failed)} failed, {len(result.refused)} refused"
        )
        problems = {**result.failed, **result.refused}
        if problems:
            self.out.table("Not migrated", ["partition", "why"], sorted(problems.items()))
            self.problems.append(f"{len(problems)} partition(s) not migrated")

    def validate(self, inventory: TableInventory) -> None:
        self.step(4, "validate source against target")
        ctx = self.ctx
        todo = needs_validation(
            inventory, ctx.formats, self.options.target, ctx.journal, self.options.partitions
        )
        if not todo:
            self.out.message("nothing to validate: every backfilled partition is validated.")
            return
        if not self.confirm(f"Validate {len(todo)} partitions now?"):
            return
        level = Prompt.ask(
            "Level (count: metadata only; checksum: one scan; deep: + differing rows; "
            "independent: + a second reader of the source)",
            choices=list(LEVELS),
            default="checksum",
            console=self.out.console,
        )
        report = validate_table(
            ctx.spark,
            ctx.metastore,
            ctx.formats.catalog,
            ctx.settings,
            ctx.journal,
            self.table,
            self.options.target,
            level=level,
            partitions=PartitionFilter.exactly(todo),
        )
        render_validation(self.out, report)
        self.mismatch = not report.ok

    def switch(self, inventory: TableInventory) -> list[str]:
        self.step(5, "switch readers, partition by partition")
        ctx = self.ctx
        answer = Prompt.ask(
            "Switch which partitions to the lake table? 'all' (every validated one), 'none', "
            "or a filter such as "
            f"{inventory.partitions[0].name if inventory.partitions else 'key=value'}",
            default="all",
            console=self.out.console,
        ).strip()
        if answer.lower() == "none":
            current = status(ctx.metastore, ctx.settings, ctx.journal, self.table)
            return [r["partition"] for r in current["rows"] if r["served_from"] == "lake"]
        every = answer.lower() == "all"
        change = switch(
            ctx.formats,
            ctx.settings,
            ctx.journal,
            self.table,
            self.options.target,
            partitions=None if every else PartitionFilter.parse(answer),
            all_validated=every,
        )
        self.out.message(
            f"{len(change.changed)} partitions switched; {len(change.switched)} of "
            f"{len(inventory.partitions)} now served from the lake table through "
            f"[bold]{change.view}[/]"
        )
        if change.refused:
            self.out.table("Not switched", ["partition", "why"], sorted(change.refused.items()))
        return change.switched

    def cutover(self, inventory: TableInventory, switched: list[str]) -> None:
        self.step(6, "cutover")
        ctx = self.ctx
        if len(switched) < len(inventory.partitions) or self.mismatch:
            self.out.message(
                f"{len(inventory.partitions) - len(switched)} partitions are still served from "
                "Hive; cutover waits until every partition is switched."
            )
            return
        names = names_for(ctx.journal, self.table, self.options.target, None, None)
        question = (
            f"Every partition is switched. Cut over now (rename {names.source} -> "
            f"{names.legacy}, {names.target} -> {names.source})? Do it once writers write "
            "to the lake table"
        )
        if not self.confirm(question, default=False):
            return
        for step in cutover(ctx.formats, ctx.settings, ctx.journal, names):
            self.out.message(f"- {step}")


@click.command("interactive")
@click.argument("table")
@migration_options
@pass_state
def interactive_command(
    state: CliState,
    table: str,
    target: str | None,
    target_format: str | None,
    partitions: str | None,
    batch_rows: int,
    key_mode: str,
    adopt: bool,
    adopt_files: str,
) -> None:
    """Migrate one table step by step: inspect, plan, backfill, validate, switch, cut over.

    Asks before each step that changes anything. Stop at any prompt (answer no, press Ctrl-C,
    or end the input) and run the same command later: it continues from what is done.

    \b
    Examples:
      lakeshift interactive sample.click_log
      lakeshift interactive shop.orders --partitions 'dt=2024-01-*'
      printf 'y\\ny\\nchecksum\\nall\\nn\\n' | lakeshift interactive shop.orders
    """
    if state.output.json_mode:
        raise UsageError(
            "interactive asks questions and cannot write JSON.",
            hint="Use the per-step commands (migrate, validate, switch) with --output json.",
        )
    options = options_from_flags(
        state,
        table,
        target,
        target_format,
        partitions,
        batch_rows,
        key_mode,
        adopt,
        adopt_files=adopt_files,
    )
    session = Session(state, table, options)
    stopped = f"stopped; what is done stays done. Run `lakeshift interactive {table}` to continue."
    try:
        session.run()
    except _Stop:
        state.output.message(stopped)
    except (KeyboardInterrupt, EOFError):
        state.output.message("\n" + stopped)
        raise click.exceptions.Exit(130) from None
    finally:
        if session.inventory is not None:
            path = write_table_report(state.context.home, session.inventory, state.context.journal)
            state.output.message(f"HTML report: [bold]{path}[/]")
    if session.mismatch:
        raise ValidationMismatch(
            f"some partitions of {table} did not validate.",
            hint="See the table above; re-run migrate for stale partitions, or validate --level "
            "deep to see differing rows.",
        )
    if session.problems:
        raise PartialFailure("; ".join(session.problems) + ".", hint="Fix them and run again.")
