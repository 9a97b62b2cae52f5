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
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from lakeshift import profiling
from lakeshift.config import Settings
from lakeshift.errors import Interrupted, LakeshiftError, RefusedInput, UsageError
from lakeshift.formats import (
    Backfilled,
    BatchResult,
    CommitRecord,
    FormatServices,
    TargetFormat,
    format_of,
    target_format,
)
from lakeshift.formats.arrow_path import plan_notes
from lakeshift.hive.partition_values import typed_value
from lakeshift.hive.projection import READABLE_FORMATS
from lakeshift.inspect.inspector import inspect_table, save_inventory
from lakeshift.inspect.model import PartitionInfo, TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore import ddl
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.migrate import faults
from lakeshift.migrate.adopt import check_adoptable
from lakeshift.migrate.adopt_run import AdoptionOutcome, adopt, plan_adoption, refuse_copies
from lakeshift.migrate.adoption import ADOPT_NEVER, ADOPT_REQUIRE
from lakeshift.migrate.failures import file_location, root_cause, unreadable_files
from lakeshift.migrate.journal import BACKFILLED, FAILED, SKIPPED, Journal, PartitionEntry
from lakeshift.migrate.planner import REFUSED, Batch, MigrationPlan, build_plan, require_match
from lakeshift.route.router import withdraw
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.schema_map.model import FieldMapping
from lakeshift.validate.canonical import EMPTY
from lakeshift.validate.observed import columns_key

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
    #: Back-fill again unchanged partitions whose latest validation is not ``equal``.
    rebackfill_invalid: bool = False
    #: Back-fill again every partition ``partitions`` selects, even unchanged ones.
    force: bool = False
    #: Skip source files pyarrow cannot read through; their partitions are reported partial.
    quarantine: bool = False
    #: Take the target as it stands, with other writers' commits since lakeshift's last one
    #: (``TargetFormat.accept_foreign_commits``); without it they stop the run (exit 8).
    accept_foreign_commits: bool = False
    #: ``never``, ``auto`` (register the source's own files where proven, copy the rest) or
    #: ``require`` (refuse, exit 7, rather than copy) (``migrate.adoption``).
    adopt_files: str = ADOPT_NEVER


@dataclass(frozen=True)
class MigrateResult:
    run_id: str
    plan: MigrationPlan
    backfilled: list[str]
    failed: dict[str, str]
    refused: dict[str, str]
    rows: int
    seconds: float
    #: Backfilled without the unreadable files ``--quarantine-unreadable`` skipped: partition
    #: -> which files and why. They differ from what Hive shows, so they never validate equal.
    partial: dict[str, str] = field(default_factory=dict)
    #: What ``adopt_files`` did (None when it is ``never``).
    adoption: AdoptionOutcome | None = None

    @property
    def ok(self) -> bool:
        return not self.failed and not self.refused and not self.partial

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "source": self.plan.source,
            "target": self.plan.target,
            "format": self.plan.format,
            "backfilled": self.backfilled,
            "failed": self.failed,
            "refused": self.refused,
            "partial": self.partial,
            "unchanged": [p.name for p in self.plan.partitions if p.state == "unchanged"],
            "rows": self.rows,
            "seconds": round(self.seconds, 2),
            "rows_per_second": round(self.rows / self.seconds, 1) if self.seconds else None,
            "batches": len(self.plan.batches),
            "ok": self.ok,
            **({"adoption": self.adoption.to_json()} if self.adoption else {}),
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


def check_key_reading(
    fmt: TargetFormat, inventory: TableInventory, settings: Settings, target: str
) -> None:
    """Refuse settings that type the source's partition key values otherwise than the rows the
    target holds were typed (another ``hive_version`` or ``hive_time_zone``: a timestamp key
    in a skipped hour, a boolean ``no``): a re-backfill deletes a partition by its key value,
    so it would miss the old rows and duplicate them."""
    stored = fmt.stored_mapping(target) if fmt.exists(target) else None
    if stored is None:
        return
    old, new = stored.semantics, settings.hive
    if (old.version, old.jvm_zone) == (new.version, new.jvm_zone):
        return
    keys = inventory.partition_keys
    for p in inventory.partitions:
        for key, value in zip(keys, p.values):
            was = typed_value(value, key.type, old.version, old.jvm_zone)
            now = typed_value(value, key.type, new.version, new.jvm_zone)
            if was != now and not (was != was and now != now):  # NaN is one value here
                raise RefusedInput(
                    f"target {target} holds {p.name} with key {key.name} = {was}, as Hive "
                    f"{old.version} in {old.time_zone} shows it; the settings (Hive "
                    f"{new.version} in {new.time_zone}) show {now}. A re-backfill would leave "
                    "the rows written under the old settings beside the new ones.",
                    hint=f"Set hive_version and hive_time_zone back to {old.version} and "
                    f"{old.time_zone}, or migrate into a new --target.",
                )


def check_adoption(
    fmt: TargetFormat, inventory: TableInventory, settings: Settings, options: MigrateOptions
) -> None:
    """An adopted target (one lakeshift did not create) must be safe to write into."""
    target = options.target
    if fmt.exists(target) and fmt.owner(target) is None:
        check_adoptable(
            fmt,
            target,
            inventory,
            semantics=settings.hive,
            wanted=options.partitions,
        )


def rebackfill_reasons(
    journal: Journal, inventory: TableInventory, options: MigrateOptions
) -> dict[str, str]:
    """Unchanged partitions to back-fill again: partition -> why (``--force`` with a partition
    filter, or ``--rebackfill-invalid``: the latest validation was not equal)."""
    wanted = options.partitions
    if options.force:
        if wanted.is_everything:
            raise UsageError(
                "--force re-backfills the partitions chosen with --partitions; none were chosen.",
                hint="Add --partitions FILTER (e.g. --partitions 'dt=2024-01-0*').",
            )
        return {
            p.name: "re-backfill forced (--force)"
            for p in inventory.partitions
            if wanted.matches(p.name)
        }
    if not options.rebackfill_invalid:
        return {}
    out = {}
    for name, check in journal.validations(inventory.qualified_name).items():
        if check["target"] != options.target or check["status"] in ("equal", "not-migrated"):
            continue
        out[name] = f"re-backfill: last validation {check['status']} ({check['detail']})"
    return out


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
    """The format of ``options.target``: the existing table's (an explicit ``--format`` must
    agree with it), else the requested one, else the ``format`` setting. The setting names the
    format of new targets only: a re-run without ``--format`` (e.g. after the journal, which
    remembers the target, was lost) keeps an existing Delta target's format."""
    requested = options.format
    if requested is None and format_of(services.client, options.target) is None:
        requested = settings.format
    return target_format(services, options.target, requested)


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
    check_adoption(fmt, inventory, settings, options)
    check_key_reading(fmt, inventory, settings, options.target)
    exists = fmt.exists(options.target)
    previous = fmt.stored_mapping(options.target) if exists else None
    mapping = build_mapping(
        inventory,
        previous,
        semantics=settings.hive,
    )
    done = fmt.backfilled(options.target) if exists else {}
    plan = _plan(
        inventory, mapping, fmt, journal, options,
        target_exists=exists, backfilled=done, spark_conf=ctx_spark_conf,
        target_layout=fmt.describe(options.target),
        rebackfill=rebackfill_reasons(journal, inventory, options),
    )  # fmt: skip
    if settings.write_path == "arrow" and fmt.has_arrow_path:
        batches = [b.partitions for b in plan.batches]
        notes = plan_notes(inventory, mapping, batches, fmt.target_type, options.key_mode)
        plan = replace(plan, notes=(*plan.notes, *notes))
    if options.adopt_files != ADOPT_NEVER:
        decisions = plan_adoption(fmt, options.target, inventory, plan, options.adopt_files)
        plan = replace(plan, adoption=tuple(decisions))
    return plan


def migrate(
    spark: SparkSession,
    client: CatalogClient,
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
    profiling.attach(spark.sparkContext)
    with profiling.phase("inspect"):
        inventory = inspect_table(client, source, settings, spark=lambda: spark)
        require_match(inventory, options.partitions)
        save_inventory(inventory, settings.home)
    name = inventory.qualified_name
    services = FormatServices(spark, client, settings, catalog)
    with profiling.phase("prepare"):
        fmt = open_target(services, settings, options)
        journal.acquire_lease(name, f"lakeshift migrate {run_id}", break_lease=options.break_lease)
        journal.start_run(run_id, name, options.target, "migrate")
    try:
        with profiling.phase("prepare"):
            # The target's database is created when missing, for every format alike (the
            # formats place a new table under its location, so it must exist before the target
            # is looked at).
            ddl.ensure_database(client, options.target.partition(".")[0])
            check_target(fmt, name, options.target, options.adopt)
            check_other_targets(journal, services, name, fmt, options.target)
            check_adoption(fmt, inventory, settings, options)
            check_key_reading(fmt, inventory, settings, options.target)
            rebackfill = rebackfill_reasons(journal, inventory, options)
            if options.accept_foreign_commits and fmt.exists(options.target):
                fmt.accept_foreign_commits(options.target)
        with profiling.phase("sync target"):
            synced = fmt.sync(options.target, inventory, source=name)
            # Refused before anything is planned; each commit checks again (a writer may
            # commit at any point of the run).
            fmt.check_no_foreign_commits(options.target)
        with profiling.phase("read commits"):
            done = fmt.backfilled(options.target)
            _reconcile(journal, name, options.target, done)
        with profiling.phase("plan"):
            plan = _plan(
                inventory, synced.mapping, fmt, journal, options,
                target_exists=not synced.created, backfilled=done,
                target_layout=fmt.describe(options.target), rebackfill=rebackfill,
            )  # fmt: skip
        with profiling.phase("protect readers"):
            _protect_readers(services, journal, inventory, plan, options.target)
        adoption = None
        if options.adopt_files != ADOPT_NEVER:
            adoption, plan, done = _adopt_first(
                spark, client, catalog, settings, journal, fmt, inventory, plan, run_id, options,
                rebackfill,
            )  # fmt: skip
        result = _run_batches(
            fmt, journal, inventory, plan, done, run_id, options, progress, started, stop
        )
        result = replace(result, adoption=adoption)
    except Interrupted as e:
        # What landed is what the target's commits say (a batch may commit while the stop
        # is being handled): record it, and say it.
        committed = [n for n, r in fmt.backfilled(options.target).items() if r.run_id == run_id]
        _reconcile(journal, name, options.target, fmt.backfilled(options.target))
        journal.finish_run(run_id, "failed", {"error": str(e), "backfilled": committed})
        journal.release_lease(name)
        raise Interrupted(
            f"{e.message} {len(committed)} partition(s) were committed in this run"
            + (
                f" ({', '.join(sorted(committed)[:10])}{' ...' if len(committed) > 10 else ''})"
                if committed
                else ""
            )
            + "; the rest were not written.",
            hint=e.hint or "Re-run the same command to go on.",
        ) from None
    except BaseException as e:
        journal.finish_run(run_id, "failed", {"error": str(e)})
        journal.release_lease(name)
        raise
    with profiling.phase("finish"):
        journal.finish_run(run_id, "ok" if result.ok else "partial", result.to_json())
        journal.release_lease(name)
    return result


def _adopt_first(
    spark: SparkSession,
    client: CatalogClient,
    catalog: Catalog | None,
    settings: Settings,
    journal: Journal,
    fmt: TargetFormat,
    inventory: TableInventory,
    plan: MigrationPlan,
    run_id: str,
    options: MigrateOptions,
    rebackfill: dict[str, str],
) -> tuple[AdoptionOutcome, MigrationPlan, dict[str, Backfilled]]:
    """Adopt what can be, prove it, and plan the copy of everything else (``adopt_run``)."""
    from lakeshift.validate.model import EQUAL
    from lakeshift.validate.validator import validate_table

    def validate(names: list[str]) -> dict[str, tuple[bool, str]]:
        report = validate_table(
            spark, client, catalog, settings, journal, inventory.qualified_name, options.target,
            level="independent", partitions=PartitionFilter.exactly(names),
        )  # fmt: skip
        return {r.partition: (r.status == EQUAL, r.detail or r.status) for r in report.partitions}

    decisions = plan_adoption(fmt, options.target, inventory, plan, options.adopt_files)
    outcome = adopt(fmt, journal, inventory, options.target, decisions, run_id, validate)
    if options.adopt_files == ADOPT_REQUIRE:
        refuse_copies(outcome.differed, options.target)
    with profiling.phase("read commits"):
        done = fmt.backfilled(options.target)
    copies = _plan(
        inventory, plan.mapping, fmt, journal, options,
        target_exists=True, backfilled=done, target_layout=plan.target_layout,
        # (--force chose the adopted ones too: proven now, they are not copied over)
        rebackfill={
            **{n: why for n, why in rebackfill.items() if n not in outcome.proven},
            **outcome.copied,
        },
    )  # fmt: skip
    return outcome, replace(copies, adoption=tuple(decisions)), done


def _plan(
    inventory: TableInventory,
    mapping: FieldMapping,
    fmt: TargetFormat,
    journal: Journal,
    options: MigrateOptions,
    *,
    target_exists: bool,
    backfilled: dict[str, Backfilled],
    target_layout: str,
    rebackfill: dict[str, str],
    spark_conf: dict[str, str] | None = None,
) -> MigrationPlan:
    """The plan of ``options`` over ``inventory`` (the dry run, a run, and a run's copies
    after adoption plan alike)."""
    return build_plan(
        inventory,
        mapping,
        options.target,
        target_exists=target_exists,
        backfilled=backfilled,
        wanted=options.partitions,
        batch_rows=options.batch_rows,
        batch_bytes=options.batch_bytes,
        key_mode=options.key_mode,
        throughput=journal.throughput(inventory.qualified_name),
        spark_conf=spark_conf or {},
        format=fmt.name,
        target_layout=target_layout,
        rebackfill=rebackfill,
    )


def _protect_readers(
    services: FormatServices,
    journal: Journal,
    inventory: TableInventory,
    plan: MigrationPlan,
    target: str,
) -> None:
    """Serve from Hive, before their backfill starts, the switched partitions this run writes
    again: their lake copy is older than their source, and the new one is not proven until
    validated (invariant 2). One view update for all of them."""
    route = journal.route(inventory.qualified_name)
    if not route or route.get("cutover") == "done" or not route.get("switched"):
        return
    rewriting = {name for batch in plan.batches for name in batch.partitions}
    stale = sorted(rewriting & set(route["switched"]))
    if stale:
        change = withdraw(services, journal, inventory, target, stale)
        log.info(
            "served %d partition(s) from Hive again before their backfill: %s",
            len(change.changed),
            ", ".join(change.changed[:10]),
        )


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
    wanted = set(names)  # the batch's partitions only: the table's would be 100,000 entries
    by_name = {p.name: p for p in inventory.partitions if p.name in wanted}
    readable = [n for n in names if any(f.format in READABLE_FORMATS for f in by_name[n].files)]
    result = BatchResult(EMPTY, committed=False)
    faults.crash_point("before-commit", record.batch)
    if readable:  # an empty scan's Observation never reports, so empty batches skip the write
        with profiling.phase("write"):
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
        with profiling.phase("delete emptied"):
            fmt.delete_partitions(options.target, inventory, emptied)
    return result


@dataclass
class _Run:
    """What one ``migrate`` run has done so far (shared by a batch and its halves)."""

    fmt: TargetFormat
    journal: Journal
    inventory: TableInventory
    plan: MigrationPlan
    done: dict[str, Backfilled]
    run_id: str
    options: MigrateOptions
    stop: Callable[[], bool] | None
    backfilled: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    partial: dict[str, str] = field(default_factory=dict)
    rows: int = 0

    @cached_property
    def by_name(self) -> dict[str, PartitionInfo]:
        """The run's partitions by name, made once: each batch and half looks its own up (a
        new map of the whole table each time held several at once, 5 MB each at 100,000
        partitions, and cost a pass over the table per look)."""
        return {p.name: p for p in self.inventory.partitions}

    def stopping(self) -> bool:
        return self.stop is not None and self.stop()


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
    run = _Run(fmt, journal, inventory, plan, done, run_id, options, stop)
    by_name = run.by_name
    refused = {p.name: p.reason for p in plan.partitions if p.state == REFUSED}
    journal.record_many(
        [
            PartitionEntry(
                source,
                name,
                target,
                SKIPPED,
                fingerprint=by_name[name].fingerprint,
                run_id=run_id,
                error=reason,
            )
            for name, reason in refused.items()
        ]
    )
    for number, batch in enumerate(plan.batches, start=1):
        if run.stopping():
            raise Interrupted(f"stopped {source} before batch {number} of {len(plan.batches)}.")
        with profiling.phase("batch"):
            _attempt(run, batch, list(batch.partitions), "")
            journal.heartbeat(source)
        if progress:
            rate = run.rows / max(time.monotonic() - started, 1e-6)
            progress(number, len(plan.batches), f"{run.rows:,} rows, {rate:,.0f} rows/s")
        faults.crash_point("between-batches", batch.index)
    return MigrateResult(
        run_id,
        plan,
        run.backfilled,
        run.failed,
        refused,
        run.rows,
        time.monotonic() - started,
        run.partial,
    )


def _attempt(
    run: _Run,
    batch: Batch,
    names: list[str],
    part: str,
    inventory: TableInventory | None = None,
    quarantined: dict[str, str] | None = None,
) -> None:
    """Write ``names`` in one commit. When a source file cannot be read, the batch is split in
    halves and each is tried again, so one unreadable partition does not hold back the others
    of its batch; the partition left alone fails with the root cause (or, with quarantine, is
    written without its unreadable files)."""
    source, target = run.inventory.qualified_name, run.options.target
    if part and run.stopping():
        raise Interrupted(f"stopped {source} during batch {batch.index}.")
    by_name = run.by_name
    started = time.monotonic()
    record = CommitRecord(
        run.run_id,
        batch.index,
        source,
        {n: (by_name[n].fingerprint, by_name[n].rows) for n in names},
    )
    try:
        result = _write(
            run.fmt, inventory or run.inventory, run.plan, names, run.done, run.options, record
        )
    except LakeshiftError:
        raise
    except Exception as e:  # a failed Spark job: nothing of this attempt was committed
        if run.stopping():
            raise Interrupted(f"stopped {source} during batch {batch.index}.") from e
        cause = root_cause(e, run.inventory)
        log.exception("batch %s%s failed: %s", batch.index, part, cause.text())
        if len(names) > 1 and cause.file is not None:
            half = len(names) // 2
            log.info("splitting batch %s%s to isolate %s", batch.index, part, cause.file)
            _attempt(run, batch, names[:half], f"{part}.1")
            _attempt(run, batch, names[half:], f"{part}.2")
            return
        if run.options.quarantine and quarantined is None and len(names) == 1:
            partition = by_name[names[0]]
            skipped = _quarantine(partition)
            if skipped and len(skipped) < len(partition.files):
                _attempt(
                    run,
                    batch,
                    names,
                    part,
                    _without(run.inventory, partition.name, skipped),
                    skipped,
                )
                return
            if skipped:  # nothing readable is left: writing would empty the partition
                cause = replace(cause, message=f"{cause.message} (every file is unreadable)")
        for name in names:
            run.failed[name] = cause.text()
        run.journal.record_many(
            [
                PartitionEntry(
                    source,
                    name,
                    target,
                    FAILED,
                    fingerprint=by_name[name].fingerprint,
                    run_id=run.run_id,
                    error=cause.text(),
                )
                for name in names
            ]
        )
        return
    seconds = time.monotonic() - started
    with profiling.phase("journal"):
        _record(run, batch, names, part, result, seconds, quarantined)


def _record(
    run: _Run,
    batch: Batch,
    names: list[str],
    part: str,
    result: BatchResult,
    seconds: float,
    quarantined: dict[str, str] | None,
) -> None:
    """Write a committed batch into the journal."""
    source, target = run.inventory.qualified_name, run.options.target
    by_name = run.by_name
    batch_id = f"{run.run_id}:{batch.index}{part}"
    observed = result.committed and result.checksum is not None and not quarantined
    if result.committed and result.checksum is not None:
        run.journal.record_batch(
            batch_id,
            source,
            target,
            {n: by_name[n].fingerprint for n in names},
            {
                **result.checksum.to_json(),
                "columns": columns_key(run.inventory),
                "observed_by": result.observed_by,
                # (only where the writer counted them: validation counts the rest itself)
                **({} if result.finer is None else {"finer": result.finer}),
            },
            result.commit_id,
        )
    rows = sum(by_name[n].rows for n in names)
    note = None
    if quarantined:
        note = "partial: skipped unreadable files: " + "; ".join(
            f"{path} ({why})" for path, why in quarantined.items()
        )
        for name in names:
            run.partial[name] = note
    run.journal.record_many(
        [
            PartitionEntry(
                source,
                name,
                target,
                BACKFILLED,
                fingerprint=by_name[name].fingerprint,
                rows=by_name[name].rows,
                # a partial write's observed checksum is not the source's: never offered as proof
                checksum={"batch": batch_id} if observed else None,
                snapshot_id=result.commit_id,
                run_id=run.run_id,
                error=note,
                seconds=seconds * (rows and by_name[name].rows / rows),
            )
            for name in names
        ]
    )
    run.backfilled.extend(names)
    run.rows += rows


def _quarantine(partition: PartitionInfo) -> dict[str, str]:
    """The partition's files that pyarrow cannot read through: path -> why."""
    return unreadable_files(partition.location, [(f.path, f.format) for f in partition.files])


def _without(inventory: TableInventory, name: str, skipped: dict[str, str]) -> TableInventory:
    """``inventory`` with partition ``name``'s ``skipped`` files left out (read by no one)."""
    partitions = []
    for p in inventory.partitions:
        if p.name == name:
            kept = tuple(f for f in p.files if file_location(p.location, f.path) not in skipped)
            p = replace(p, files=kept)
        partitions.append(p)
    return replace(inventory, partitions=tuple(partitions))
