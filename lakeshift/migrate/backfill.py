"""``migrate``: create or evolve the target, then backfill partitions batch by batch.

Resumable by construction: the target's snapshot summaries say which partitions were committed
with which source fingerprint; a re-run skips those, and a batch re-run after a crash replaces
its partitions atomically (``overwritePartitions``), so no row is lost or duplicated.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeshift.config import Settings
from lakeshift.errors import Interrupted, LakeshiftError, RefusedInput
from lakeshift.formats import (
    Backfilled,
    BatchResult,
    CommitRecord,
    FormatServices,
    TargetFormat,
    target_format,
)
from lakeshift.inspect.inspector import inspect_table, save_inventory
from lakeshift.inspect.model import TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate import faults
from lakeshift.migrate.journal import BACKFILLED, FAILED, SKIPPED, Journal
from lakeshift.migrate.planner import REFUSED, MigrationPlan, build_plan
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.validate.canonical import EMPTY

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)
Progress = Callable[[int, int, str], None]
DEFAULT_BATCH_ROWS = 5_000_000
DEFAULT_BATCH_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class MigrateOptions:
    target: str
    partitions: PartitionFilter = field(default_factory=lambda: PartitionFilter(()))
    batch_rows: int = DEFAULT_BATCH_ROWS
    batch_bytes: int = DEFAULT_BATCH_BYTES
    key_mode: str = "uuid"
    adopt: bool = False
    break_lease: bool = False
    #: ``iceberg`` or ``delta``; None means the existing target's format, else the default.
    format: str | None = None


@dataclass(frozen=True)
class MigrateResult:
    run_id: str
    plan: MigrationPlan
    backfilled: list[str]
    failed: dict[str, str]
    refused: dict[str, str]
    rows: int
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.failed and not self.refused

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "source": self.plan.source,
            "target": self.plan.target,
            "format": self.plan.format,
            "backfilled": self.backfilled,
            "failed": self.failed,
            "refused": self.refused,
            "unchanged": [p.name for p in self.plan.partitions if p.state == "unchanged"],
            "rows": self.rows,
            "seconds": round(self.seconds, 2),
            "rows_per_second": round(self.rows / self.seconds, 1) if self.seconds else None,
            "batches": len(self.plan.batches),
            "ok": self.ok,
        }


def check_target(fmt: TargetFormat, source: str, target: str, adopt: bool) -> None:
    """Refuse a target lakeshift did not create for this source (unless adopting it)."""
    if not fmt.exists(target):
        return
    owner = fmt.owner(target)
    if owner == source or (owner is None and adopt):
        return
    if owner is None:
        raise RefusedInput(
            f"target {target} exists and was not created by lakeshift.",
            hint="Pick a new --target, or pass --adopt to migrate into it (its schema must match).",
        )
    raise RefusedInput(
        f"target {target} belongs to the migration of {owner}, not {source}.",
        hint="Pick another --target.",
    )


def check_other_targets(
    journal: Journal, services: FormatServices, source: str, fmt: TargetFormat, target: str
) -> None:
    """Refuse to migrate a source into a second format: the journal tracks one migration per
    source, and readers would not know which copy is the truth."""
    for other in sorted({r.target for r in journal.partitions(source).values()} - {target}):
        try:
            other_fmt = target_format(services, other, None)
        except LakeshiftError:
            continue
        if other_fmt.name != fmt.name and other_fmt.exists(other):
            raise RefusedInput(
                f"{source} is already migrated to the {other_fmt.name} table {other}; it "
                f"cannot also be migrated to the {fmt.name} table {target}.",
                hint=f"Go on with --target {other} --format {other_fmt.name}, or drop {other} "
                "and forget its journal entries first.",
            )


def default_target(source: str, format_name: str) -> str:
    """``DB.TABLE_<format>``: the target name when none is given."""
    return f"{source}_{format_name}".lower()


def resolve_target(journal: Journal, source: str, target: str | None, format_name: str) -> str:
    """The target a command means: the one given, else the one this source was migrated to
    (journal), else ``DB.TABLE_<format>``."""
    if target:
        return target.lower()
    route = journal.route(source) or {}
    if route.get("target"):
        return str(route["target"]).lower()
    known = sorted({r.target for r in journal.partitions(source).values() if r.target})
    if len(known) == 1:
        return known[0].lower()
    return default_target(source, format_name)


def open_target(
    services: FormatServices, settings: Settings, options: MigrateOptions
) -> TargetFormat:
    """The format of ``options.target``: the existing table's, else the requested one."""
    return target_format(services, options.target, options.format or settings.format)


def plan_migration(
    ctx_spark_conf: dict[str, str],
    services: FormatServices,
    inventory: TableInventory,
    settings: Settings,
    options: MigrateOptions,
    journal: Journal,
) -> MigrationPlan:
    """The dry-run plan: writes nothing but what the caller saves as reports."""
    fmt = open_target(services, settings, options)
    check_target(fmt, inventory.qualified_name, options.target, options.adopt)
    check_other_targets(journal, services, inventory.qualified_name, fmt, options.target)
    exists = fmt.exists(options.target)
    previous = fmt.stored_mapping(options.target) if exists else None
    mapping = build_mapping(
        inventory,
        previous,
        mapping_mode=settings.mapping_mode,
        case_sensitive=settings.name_case_sensitive,
    )
    done = fmt.backfilled(options.target) if exists else {}
    return build_plan(
        inventory,
        mapping,
        options.target,
        target_exists=exists,
        backfilled=done,
        wanted=options.partitions,
        batch_rows=options.batch_rows,
        batch_bytes=options.batch_bytes,
        key_mode=options.key_mode,
        throughput=journal.throughput(inventory.qualified_name),
        spark_conf=ctx_spark_conf,
        format=fmt.name,
    )


def migrate(
    spark: SparkSession,
    client: MetastoreClient,
    catalog: Catalog | None,
    settings: Settings,
    journal: Journal,
    source: str,
    options: MigrateOptions,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
) -> MigrateResult:
    """Backfill ``source`` into ``options.target`` (Iceberg or Delta); safe to re-run.

    ``stop`` is asked before each batch; when it answers true the run ends with
    :class:`Interrupted` (committed batches stay; a re-run goes on from there).
    """
    started = time.monotonic()
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
    inventory = inspect_table(client, source, settings)
    save_inventory(inventory, settings.home)
    name = inventory.qualified_name
    services = FormatServices(spark, client, settings, catalog)
    fmt = open_target(services, settings, options)
    journal.acquire_lease(name, f"lakeshift migrate {run_id}", break_lease=options.break_lease)
    journal.start_run(run_id, name, options.target, "migrate")
    try:
        check_target(fmt, name, options.target, options.adopt)
        check_other_targets(journal, services, name, fmt, options.target)
        ddl.ensure_database(client, options.target.partition(".")[0])
        synced = fmt.sync(options.target, inventory, source=name)
        done = fmt.backfilled(options.target)
        _reconcile(journal, name, options.target, done)
        plan = build_plan(
            inventory,
            synced.mapping,
            options.target,
            target_exists=not synced.created,
            backfilled=done,
            wanted=options.partitions,
            batch_rows=options.batch_rows,
            batch_bytes=options.batch_bytes,
            key_mode=options.key_mode,
            throughput=journal.throughput(name),
            spark_conf={},
            format=fmt.name,
        )
        result = _run_batches(
            fmt, journal, inventory, plan, done, run_id, options, progress, started, stop
        )
    except BaseException as e:
        journal.finish_run(run_id, "failed", {"error": str(e)})
        journal.release_lease(name)
        raise
    journal.finish_run(run_id, "ok" if result.ok else "partial", result.to_json())
    journal.release_lease(name)
    return result


def _reconcile(journal: Journal, source: str, target: str, done: dict[str, Backfilled]) -> None:
    """Record commits the journal missed (e.g. killed right after a commit)."""
    known = journal.partitions(source)
    for name, record in done.items():
        entry = known.get(name)
        if (
            entry is None
            or entry.source_fingerprint != record.fingerprint
            or entry.status == FAILED
        ):
            journal.record(
                source,
                name,
                target,
                BACKFILLED,
                fingerprint=record.fingerprint,
                rows=record.rows,
                snapshot_id=record.commit_id,
                run_id=record.run_id,
            )
            log.info("reconciled %s from commit %s", name, record.commit_id)


def _write(
    fmt: TargetFormat,
    inventory: TableInventory,
    plan: MigrationPlan,
    names: list[str],
    done: dict[str, Backfilled],
    options: MigrateOptions,
    record: CommitRecord,
) -> BatchResult:
    """One batch: its readable partitions in one commit, then emptied partitions removed."""
    by_name = {p.name: p for p in inventory.partitions}
    readable = [n for n in names if any(f.format in ("orc", "parquet") for f in by_name[n].files)]
    result = BatchResult(EMPTY, committed=False)
    faults.crash_point("before-commit", record.batch)
    if readable:  # an empty scan's Observation never reports, so empty batches skip the write
        result = fmt.write_batch(
            options.target,
            inventory,
            plan.mapping,
            readable,
            key_mode=options.key_mode,
            record=record,
        )
    faults.crash_point("after-commit", record.batch)
    emptied = [n for n in names if by_name[n].rows == 0 and n in done]
    if emptied:
        fmt.delete_partitions(options.target, inventory, emptied)
    return result


def _run_batches(
    fmt: TargetFormat,
    journal: Journal,
    inventory: TableInventory,
    plan: MigrationPlan,
    done: dict[str, Backfilled],
    run_id: str,
    options: MigrateOptions,
    progress: Progress | None,
    started: float,
    stop: Callable[[], bool] | None = None,
) -> MigrateResult:
    source, target = inventory.qualified_name, options.target
    by_name = {p.name: p for p in inventory.partitions}
    refused = {p.name: p.reason for p in plan.partitions if p.state == REFUSED}
    for name, reason in refused.items():
        journal.record(
            source,
            name,
            target,
            SKIPPED,
            fingerprint=by_name[name].fingerprint,
            run_id=run_id,
            error=reason,
        )
    backfilled: list[str] = []
    failed: dict[str, str] = {}
    rows_done = 0
    for number, batch in enumerate(plan.batches, start=1):
        if stop is not None and stop():
            raise Interrupted(
                f"stopped {source} before batch {number} of {len(plan.batches)}; "
                f"{len(backfilled)} partitions were backfilled in this run.",
                hint="Re-run the same command to go on.",
            )
        names = list(batch.partitions)
        batch_started = time.monotonic()
        record = CommitRecord(
            run_id,
            batch.index,
            source,
            {n: (by_name[n].fingerprint, by_name[n].rows) for n in names},
        )
        try:
            result = _write(fmt, inventory, plan, names, done, options, record)
        except LakeshiftError:
            raise
        except Exception as e:  # a failed Spark job: nothing of this batch was committed
            message = f"{type(e).__name__}: {str(e).splitlines()[0][:500]}"
            log.exception("batch %s failed", batch.index)
            for name in names:
                failed[name] = message
                journal.record(
                    source,
                    name,
                    target,
                    FAILED,
                    fingerprint=by_name[name].fingerprint,
                    run_id=run_id,
                    error=message,
                )
            continue
        seconds = time.monotonic() - batch_started
        batch_id = f"{run_id}:{batch.index}"
        if result.committed:
            journal.record_batch(
                batch_id,
                source,
                target,
                {n: by_name[n].fingerprint for n in names},
                result.checksum.to_json(),
                result.commit_id,
            )
        for name in names:
            journal.record(
                source,
                name,
                target,
                BACKFILLED,
                fingerprint=by_name[name].fingerprint,
                rows=by_name[name].rows,
                checksum={"batch": batch_id} if result.committed else None,
                snapshot_id=result.commit_id,
                run_id=run_id,
                seconds=seconds * (batch.rows and by_name[name].rows / batch.rows),
            )
        backfilled.extend(names)
        rows_done += batch.rows
        journal.heartbeat(source)
        if progress:
            rate = rows_done / max(time.monotonic() - started, 1e-6)
            progress(number, len(plan.batches), f"{rows_done:,} rows, {rate:,.0f} rows/s")
        faults.crash_point("between-batches", batch.index)
    return MigrateResult(
        run_id, plan, backfilled, failed, refused, rows_done, time.monotonic() - started
    )
