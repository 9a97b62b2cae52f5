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
from lakeshift.errors import Interrupted, LakeshiftError, NotFound, RefusedInput
from lakeshift.inspect.inspector import inspect_table, save_inventory
from lakeshift.inspect.model import TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate import faults
from lakeshift.migrate.iceberg_writer import delete_partition, spark_identifier, write_batch
from lakeshift.migrate.journal import BACKFILLED, FAILED, SKIPPED, Journal
from lakeshift.migrate.planner import REFUSED, MigrationPlan, build_plan
from lakeshift.migrate.target_state import (
    TARGET_SOURCE_PROPERTY,
    Backfilled,
    backfilled_partitions,
    snapshot_properties,
)
from lakeshift.schema_map.iceberg_schema import stored_mapping
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.schema_map.sync import sync_iceberg_target

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table
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


def load_target(catalog: Catalog, target: str) -> Table | None:
    from pyiceberg.exceptions import NoSuchTableError

    try:
        return catalog.load_table(target)
    except NoSuchTableError:
        return None


def require_target(catalog: Catalog, target: str, source: str) -> Table:
    """The target table, or :class:`NotFound` saying to migrate first."""
    table = load_target(catalog, target)
    if table is None:
        raise NotFound(
            f"target {target} does not exist.",
            hint=f"Run `lakeshift migrate {source} --target {target}` first.",
        )
    return table


def check_target(table: Table | None, source: str, target: str, adopt: bool) -> None:
    """Refuse a target lakeshift did not create for this source (unless adopting it)."""
    if table is None:
        return
    owner = table.properties.get(TARGET_SOURCE_PROPERTY)
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


def plan_migration(
    ctx_spark_conf: dict[str, str],
    catalog: Catalog,
    inventory: TableInventory,
    settings: Settings,
    options: MigrateOptions,
    journal: Journal,
) -> MigrationPlan:
    """The dry-run plan: writes nothing but what the caller saves as reports."""
    table = load_target(catalog, options.target)
    check_target(table, inventory.qualified_name, options.target, options.adopt)
    previous = stored_mapping(table) if table is not None else None
    mapping = build_mapping(
        inventory,
        previous,
        mapping_mode=settings.mapping_mode,
        case_sensitive=settings.name_case_sensitive,
    )
    done = backfilled_partitions(table) if table is not None else {}
    return build_plan(
        inventory,
        mapping,
        options.target,
        target_exists=table is not None,
        backfilled=done,
        wanted=options.partitions,
        batch_rows=options.batch_rows,
        batch_bytes=options.batch_bytes,
        key_mode=options.key_mode,
        throughput=journal.throughput(inventory.qualified_name),
        spark_conf=ctx_spark_conf,
    )


def migrate(
    spark: SparkSession,
    client: MetastoreClient,
    catalog: Catalog,
    settings: Settings,
    journal: Journal,
    source: str,
    options: MigrateOptions,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
) -> MigrateResult:
    """Backfill ``source`` into the Iceberg table ``options.target``; safe to re-run.

    ``stop`` is asked before each batch; when it answers true the run ends with
    :class:`Interrupted` (committed batches stay; a re-run goes on from there).
    """
    started = time.monotonic()
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
    inventory = inspect_table(client, source, settings)
    save_inventory(inventory, settings.home)
    name = inventory.qualified_name
    journal.acquire_lease(name, f"lakeshift migrate {run_id}", break_lease=options.break_lease)
    journal.start_run(run_id, name, options.target, "migrate")
    try:
        table = load_target(catalog, options.target)
        check_target(table, name, options.target, options.adopt)
        ddl.ensure_database(client, options.target.partition(".")[0])
        synced = sync_iceberg_target(
            catalog,
            options.target,
            inventory,
            home=settings.home,
            mapping_mode=settings.mapping_mode,
            case_sensitive=settings.name_case_sensitive,
            properties={TARGET_SOURCE_PROPERTY: name},
        )
        spark.sql(f"REFRESH TABLE {spark_identifier(options.target)}")
        done = backfilled_partitions(synced.table)
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
        )
        result = _run_batches(
            spark, catalog, journal, inventory, plan, done, run_id, options, progress, started, stop
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
                snapshot_id=record.snapshot_id,
                run_id=record.run_id,
            )
            log.info("reconciled %s from snapshot %s", name, record.snapshot_id)


def _run_batches(
    spark: SparkSession,
    catalog: Catalog,
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
        props = snapshot_properties(
            run_id,
            batch.index,
            source,
            {n: (by_name[n].fingerprint, by_name[n].rows) for n in names},
        )
        try:
            faults.crash_point("before-commit", batch.index)
            result = write_batch(
                spark,
                target,
                inventory,
                plan.mapping,
                names,
                key_mode=options.key_mode,
                snapshot_properties=props,
            )
            faults.crash_point("after-commit", batch.index)
            for name in names:
                if by_name[name].rows == 0 and name in done:
                    delete_partition(spark, target, inventory, by_name[name].values)
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
        snapshot_id = _snapshot_of(catalog, target, run_id, batch.index)
        batch_id = f"{run_id}:{batch.index}"
        if result.committed:
            journal.record_batch(
                batch_id,
                source,
                target,
                {n: by_name[n].fingerprint for n in names},
                result.checksum.to_json(),
                snapshot_id,
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
                snapshot_id=snapshot_id,
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


def _snapshot_of(catalog: Catalog, target: str, run_id: str, batch: int) -> int | None:
    table = load_target(catalog, target)
    snapshot = table.current_snapshot() if table is not None else None
    if snapshot is None or snapshot.summary is None:
        return None
    props = dict(getattr(snapshot.summary, "additional_properties", {}))
    if props.get("lakeshift.run-id") == run_id and props.get("lakeshift.batch") == str(batch):
        return int(snapshot.snapshot_id)
    return None
