"""Run a bulk migration: each table's inspect → migrate → validate → switch (→ cutover).

Tables run concurrently in threads that share one Spark application (FAIR scheduling, one pool
and job group per table); each thread has its own metastore connection, lake formats and
journal connection. A table's failure is caught and reported with its exit code; the other
tables go on. Every step is resumable on its own (see ``migrate``), so re-running the same file
finishes what an interrupted run left: backfilled partitions are skipped, partitions validated
at their current source fingerprint are not validated again, switching is idempotent and a
finished cutover is detected.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from lakeshift.bulk.spec import HIVE_KEYS, SWITCH_CUTOVER, SWITCH_NONE, BulkSpec, TableSpec
from lakeshift.context import Context
from lakeshift.errors import (
    EXIT_BEHIND,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_VALIDATION,
    Interrupted,
    LakeshiftError,
    from_task,
)
from lakeshift.follow.loop import follow
from lakeshift.follow.passes import FollowOptions, PassReport
from lakeshift.inspect.inspector import inspect_table, save_inventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.maintain import MaintainOptions, maintain_table, maintenance_markdown
from lakeshift.migrate.backfill import MigrateOptions, migrate, plan_migration
from lakeshift.report.collect import write_table_report
from lakeshift.report.files import write_report
from lakeshift.report.plan_markdown import write_plan_report
from lakeshift.route.cutover import cutover, is_cut_over, names_for
from lakeshift.route.router import needs_validation, switch
from lakeshift.validate.validator import validate_table

log = logging.getLogger(__name__)

#: (source table, step, done, total) -> None; called from worker threads.
BulkProgress = Callable[[str, str, int, int], None]

OK, PLANNED, PARTIAL, MISMATCH, FAILED, CUT_OVER, INTERRUPTED, BEHIND = (
    "ok",
    "planned",
    "partial",
    "mismatch",
    "failed",
    "cut-over",
    "interrupted",
    "behind",
)


@dataclass
class TableOutcome:
    """What happened to one table in a bulk run (``status`` and ``exit_code`` say how it ended)."""

    source: str
    target: str
    status: str = OK
    exit_code: int = EXIT_OK
    steps: list[str] = field(default_factory=list)
    partitions: int = 0
    backfilled: int = 0
    unchanged: int = 0
    rows_backfilled: int = 0
    not_migrated: dict[str, str] = field(default_factory=dict)
    validated: int = 0
    validation_problems: dict[str, str] = field(default_factory=dict)
    # Whether a validation problem is a difference (exit 4), not only partitions held back or
    # not proven (exit 3).
    validation_differs: bool = False
    switched: int = 0
    cutover: bool = False
    planned_rows: int | None = None
    planned_batches: int | None = None
    seconds: float = 0.0
    error: str | None = None
    html_report: str | None = None
    maintenance: str | None = None
    #: a followed table: passes made and the last one's lag and partitions behind
    follow: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == EXIT_OK


@dataclass(frozen=True)
class BulkResult:
    spec: BulkSpec
    dry_run: bool
    tables: tuple[TableOutcome, ...]
    seconds: float

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.tables)

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.ok else EXIT_PARTIAL

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(self.spec.path),
            "dry_run": self.dry_run,
            "parallel": self.spec.parallel,
            "ok": self.ok,
            "exit_code": self.exit_code,
            "seconds": round(self.seconds, 2),
            "tables": [
                {**vars(t), "ok": t.ok, "seconds": round(t.seconds, 2)} for t in self.tables
            ],
        }


def run_bulk(
    ctx: Context,
    spec: BulkSpec,
    *,
    dry_run: bool = False,
    parallel: int | None = None,
    progress: BulkProgress | None = None,
    once: bool = False,
    stopping: threading.Event | None = None,
) -> BulkResult:
    """Migrate every table of ``spec``; ``parallel`` overrides the file's ``[bulk] parallel``.

    Followed tables (``follow = true``) make one pass each with ``once``, else passes until
    ``stopping`` is set (Ctrl-C)."""
    started = time.monotonic()
    workers = max(1, parallel or spec.parallel)
    # The result (JSON, Markdown, HTML) reports the parallelism the run really had.
    spec = replace(spec, parallel=workers)
    report = progress or (lambda source, step, done, total: None)
    if not ctx.uses_glue:  # on Glue there is no metastore to start
        ctx.metastore_uri  # noqa: B018 - start the embedded metastore once, before the threads
    if not dry_run:
        ctx.spark  # noqa: B018 - one Spark application for every table
    stopping = stopping or threading.Event()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bulk")
    try:
        futures = [
            pool.submit(_run_table, ctx, table, spec.maintain, dry_run, report, stopping, once)
            for table in spec.tables
        ]
        outcomes = tuple(f.result() for f in futures)
    except KeyboardInterrupt:
        # Tables not started do not start; running ones stop before their next batch or step,
        # and their current Spark jobs are cancelled (nothing half-committed: each batch is one
        # atomic commit). Their threads record how they ended, then this re-raises.
        stopping.set()
        if not dry_run:
            ctx.spark.sparkContext.cancelAllJobs()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return BulkResult(spec, dry_run, outcomes, time.monotonic() - started)


def _run_table(
    base: Context,
    spec: TableSpec,
    maintenance: MaintainOptions | None,
    dry_run: bool,
    progress: BulkProgress,
    stopping: threading.Event,
    once: bool = False,
) -> TableOutcome:
    outcome = TableOutcome(spec.source, spec.target)
    started = time.monotonic()
    settings = base.settings
    chosen = {
        key: getattr(spec, key)
        for key in HIVE_KEYS
        if getattr(spec, key) is not None and getattr(spec, key) != ""
    }
    settings = replace(settings, **chosen)
    if spec.hudi_table_version:
        settings = replace(settings, hudi_table_version=spec.hudi_table_version)
    ctx = base.worker(settings)
    threading.current_thread().name = f"bulk:{spec.source}"
    try:
        if dry_run:
            _plan(ctx, spec, outcome)
        else:
            sc = ctx.spark.sparkContext
            sc.setLocalProperty("spark.scheduler.pool", spec.source)
            sc.setJobGroup(spec.source, f"lakeshift bulk {spec.source}", interruptOnCancel=True)
            if spec.follow:
                _follow(ctx, spec, outcome, progress, stopping, once)
            else:
                _migrate(ctx, spec, outcome, progress, stopping)
            if maintenance is not None and spec.maintain:
                if stopping.is_set():
                    raise Interrupted(f"stopped {spec.source} before maintenance.")
                progress(spec.source, "maintain", 0, 1)
                _maintain(ctx, spec, maintenance, outcome)
    except Interrupted as e:
        outcome.status, outcome.exit_code, outcome.error = INTERRUPTED, e.exit_code, str(e)
    except LakeshiftError as e:
        outcome.status, outcome.exit_code, outcome.error = FAILED, e.exit_code, str(e)
        log.warning("bulk: %s failed: %s", spec.source, e)
    except Exception as e:  # isolate the table: the others go on; the log has the trace
        carried = from_task(e)  # a lakeshift error raised inside a Spark task
        outcome.status, outcome.exit_code = FAILED, carried.exit_code if carried else 1
        outcome.error = str(carried) if carried else f"internal error: {e!r} (see the log)"
        log.exception("bulk: %s failed", spec.source)
    finally:
        outcome.seconds = time.monotonic() - started
        progress(spec.source, outcome.status, 1, 1)
        ctx.close()
    return outcome


def _follow(
    ctx: Context,
    spec: TableSpec,
    outcome: TableOutcome,
    progress: BulkProgress,
    stopping: threading.Event,
    once: bool,
) -> None:
    """``lakeshift follow`` of one table of the file: passes until the run stops."""
    options = FollowOptions(
        target=spec.target,
        format=spec.format,
        switch=spec.switch != SWITCH_NONE,
        level=spec.validate if spec.validate in ("checksum", "independent") else "checksum",
        quiet_seconds=spec.follow_quiet_seconds or ctx.settings.follow_quiet_seconds,
        key_mode=spec.key,
        batch_rows=spec.batch_rows,
        adopt_files=spec.adopt_files,
    )

    def on_pass(report: PassReport) -> None:
        progress(spec.source, f"follow pass {report.number}", 0, 0)

    result = follow(
        ctx,
        spec.source,
        options,
        interval=spec.follow_interval or ctx.settings.follow_interval,
        once=once,
        stop=stopping.is_set,
        on_pass=on_pass,
    )
    outcome.steps.append(f"follow {result.passes} pass(es)")
    last = result.last
    outcome.follow = result.to_json()
    inventory = inspect_table(ctx.metastore, spec.source, ctx.settings)
    outcome.html_report = str(write_table_report(ctx.home, inventory, ctx.journal))
    if last is None:
        outcome.status, outcome.exit_code = FAILED, EXIT_BEHIND
        outcome.error = "; ".join(result.errors[-1:]) or "no pass finished"
        return
    outcome.partitions = len(last.changes.seen) if last.changes else 0
    outcome.backfilled = len(last.backfilled)
    outcome.switched = len(last.switched)
    outcome.not_migrated = dict(last.refused)
    if last.behind:
        outcome.status, outcome.exit_code = BEHIND, EXIT_BEHIND
    elif last.refused:
        outcome.status, outcome.exit_code = PARTIAL, EXIT_PARTIAL


def _maintain(
    ctx: Context, spec: TableSpec, options: MaintainOptions, outcome: TableOutcome
) -> None:
    """The file's ``[maintain]`` on this table's lake table, with its own report."""
    result = maintain_table(ctx.formats, ctx.journal, spec.source, options)
    write_report(
        ctx.home, result.source, "maintain", result.to_json(), maintenance_markdown(result)
    )
    after = result.after or result.before
    outcome.maintenance = (
        f"compacted {len(result.compacted)} partition(s), files {result.before.files} -> "
        f"{after.files}; expired {len(result.expired)} file(s); "
        f"{len(result.orphans)} orphan(s) removed"
    )
    outcome.steps.append("maintain")


def _options(spec: TableSpec) -> MigrateOptions:
    return MigrateOptions(
        target=spec.target,
        partitions=spec.partition_filter,
        batch_rows=spec.batch_rows,
        key_mode=spec.key,
        format=spec.format,
        quarantine=spec.quarantine,
        adopt_files=spec.adopt_files,
    )


def _plan(ctx: Context, spec: TableSpec, outcome: TableOutcome) -> None:
    inventory = inspect_table(ctx.metastore, spec.source, ctx.settings, spark=lambda: ctx.spark)
    save_inventory(inventory, ctx.home)
    plan = plan_migration(
        ctx.spark_conf(), ctx.formats, inventory, ctx.settings, _options(spec), ctx.journal
    )
    write_plan_report(ctx.home, plan)
    outcome.status = PLANNED
    outcome.steps.append("plan")
    outcome.partitions = len(plan.partitions)
    outcome.unchanged = plan.count("unchanged")
    outcome.not_migrated = {p.name: p.reason for p in plan.partitions if p.state == "refused"}
    outcome.planned_rows = plan.rows_to_backfill
    outcome.planned_batches = len(plan.batches)


def _migrate(
    ctx: Context,
    spec: TableSpec,
    outcome: TableOutcome,
    progress: BulkProgress,
    stopping: threading.Event,
) -> None:
    def checkpoint(step: str) -> None:
        if stopping.is_set():
            raise Interrupted(f"stopped {spec.source} before {step}.")
        progress(spec.source, step, 0, 1)

    route = ctx.journal.route(spec.source)
    if is_cut_over(route):
        outcome.status, outcome.cutover = CUT_OVER, True
        outcome.switched = len(route["switched"])
        outcome.steps.append("already cut over")
        return
    db, name = spec.source.split(".")
    if route and spec.switch == SWITCH_CUTOVER and not ctx.metastore.table_exists(db, name):
        # Killed between the two renames of a cutover: finish it (it checks the names).
        names = names_for(ctx.journal, spec.source, spec.target, None, None)
        cutover(ctx.formats, ctx.settings, ctx.journal, names)
        outcome.status, outcome.cutover = CUT_OVER, True
        outcome.steps.append("finished an interrupted cutover")
        return

    def on_batch(done: int, total: int, note: str = "") -> None:
        progress(spec.source, "migrate", done, total)

    progress(spec.source, "migrate", 0, 0)
    result = migrate(
        ctx.spark,
        ctx.metastore,
        ctx.formats.catalog,
        ctx.settings,
        ctx.journal,
        spec.source,
        _options(spec),
        progress=on_batch,
        stop=stopping.is_set,
    )
    outcome.steps.append("migrate")
    outcome.partitions = len(result.plan.partitions)
    outcome.backfilled = len(result.backfilled)
    outcome.unchanged = result.plan.count("unchanged")
    outcome.rows_backfilled = result.rows
    outcome.not_migrated = {**result.failed, **result.refused, **result.partial}

    checkpoint("validate")
    inventory = inspect_table(ctx.metastore, spec.source, ctx.settings, spark=lambda: ctx.spark)
    todo = needs_validation(inventory, ctx.formats, spec.target, ctx.journal, spec.partition_filter)
    if todo:
        report = validate_table(
            ctx.spark,
            ctx.metastore,
            ctx.formats.catalog,
            ctx.settings,
            ctx.journal,
            spec.source,
            spec.target,
            level=spec.validate,
            partitions=PartitionFilter.exactly(todo),
        )
        outcome.steps.append(f"validate {len(todo)} ({spec.validate})")
        outcome.validated = sum(1 for p in report.partitions if p.ok)
        outcome.validation_problems = {
            p.partition: f"{p.status}: {p.detail}".rstrip(": ")
            for p in report.partitions
            if not p.ok
        }
        if report.table_problems:
            outcome.validation_problems["(table)"] = "; ".join(report.table_problems)
        outcome.validation_differs = bool(report.differences or report.table_problems)

    if spec.switch != SWITCH_NONE and not outcome.validation_problems.get("(table)"):
        checkpoint("switch")
        change = switch(
            ctx.formats,
            ctx.settings,
            ctx.journal,
            spec.source,
            spec.target,
            partitions=None,
            all_validated=True,
        )
        outcome.steps.append(f"switch {len(change.changed)}")
        outcome.switched = len(change.switched)
        everything = outcome.switched == len(inventory.partitions)
        if spec.switch == SWITCH_CUTOVER and everything and not outcome.validation_problems:
            checkpoint("cutover")
            steps = cutover(
                ctx.formats,
                ctx.settings,
                ctx.journal,
                names_for(ctx.journal, spec.source, spec.target, None, None),
            )
            outcome.steps.append("cutover")
            outcome.cutover = bool(steps)
    outcome.html_report = str(write_table_report(ctx.home, inventory, ctx.journal))
    if outcome.validation_differs:
        outcome.status, outcome.exit_code = MISMATCH, EXIT_VALIDATION
    elif outcome.not_migrated or outcome.validation_problems:
        outcome.status, outcome.exit_code = PARTIAL, EXIT_PARTIAL
    elif outcome.cutover:
        outcome.status = CUT_OVER
