"""Validate a migrated table, partition by partition, from cheapest check to dearest.

1. counts: ORC footers vs the target format's metadata (no scan);
2. checksum: count and two hash sums over canonical rows; target by one scan, source from the
   backfill's observed metrics (scanned again when missing or disagreeing);
3. deep: for mismatches only, differing buckets then differing rows;
4. independent: checksum, then a second reader (``validate.independent``) must agree with the
   target and with the backfill's observed checksum; differing rows where they do not.
A partition whose source files changed since its backfill is ``stale``, never ``equal``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from lakeshift import profiling
from lakeshift.config import Settings
from lakeshift.formats import Backfilled, FormatServices, TargetFormat, require_target
from lakeshift.hive.nulled import TRUNCATED, describe, nulled_by_conversion
from lakeshift.hive.source_frame import source_frame
from lakeshift.inspect.archived import skipped_archives
from lakeshift.inspect.inspector import inspect_table
from lakeshift.inspect.model import PartitionInfo, TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.migrate.journal import BACKFILLED, ROLLED_BACK, VALIDATED, Journal, PartitionRecord
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.schema_map.model import FieldMapping
from lakeshift.validate.canonical import Fingerprint
from lakeshift.validate.drilldown import partition_diff
from lakeshift.validate.fingerprints import (
    combined,
    source_fingerprints,
    target_fingerprints,
)
from lakeshift.validate.independent.check import independent_check, truncated
from lakeshift.validate.model import (
    EQUAL,
    EXTRA,
    MISMATCH,
    MISSING,
    NOT_MIGRATED,
    NOT_PROVEN,
    STALE,
    PartitionValidation,
    ValidationReport,
)
from lakeshift.validate.nanoseconds import finer_timestamps
from lakeshift.validate.observed import observed_batches as _observed
from lakeshift.validate.observed import observed_finer

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


def _first_pass(
    p: PartitionInfo, done: Backfilled | None, target_rows: int, level: str, label: str
) -> PartitionValidation:
    """Statuses decided without scanning: refused, missing, stale, count mismatch."""
    base: dict[str, Any] = {
        "partition": p.name,
        "level": level,
        "source_rows": p.footer_rows,  # None when a footer is unreadable: never a wrong count
        "target_rows": target_rows,
        "source_fingerprint": p.fingerprint,
    }
    if not p.migratable:
        return PartitionValidation(status=NOT_MIGRATED, detail=f"not migrated: {p.refusal}", **base)
    if done is None:
        if p.rows == 0 and target_rows == 0:
            return PartitionValidation(status=EQUAL, detail="empty on both sides", **base)
        return PartitionValidation(status=MISSING, detail="not backfilled yet; run migrate", **base)
    if done.fingerprint != p.fingerprint:
        return PartitionValidation(
            status=STALE,
            detail=f"source files changed since the backfill in commit "
            f"{done.commit_id}; run migrate to backfill it again",
            **base,
        )
    if p.rows != target_rows:
        return PartitionValidation(
            status=MISMATCH,
            detail=f"row count differs: source {p.rows:,} (ORC footers), "
            f"target {target_rows:,} ({label} metadata)",
            **base,
        )
    return PartitionValidation(status=EQUAL, detail="row counts match", **base)


def _describe(source: Fingerprint, target: Fingerprint) -> str:
    if source.rows != target.rows:
        return f"row count differs: source {source.rows:,}, target {target.rows:,}"
    return f"same row count ({source.rows:,}) but different row contents (checksums differ)"


def validate_table(
    spark: SparkSession,
    client: CatalogClient,
    catalog: Catalog | None,
    settings: Settings,
    journal: Journal,
    source: str,
    target: str,
    *,
    level: str = "checksum",
    partitions: PartitionFilter | None = None,
) -> ValidationReport:
    """Compare ``source`` with its migrated ``target`` per partition; records results."""
    started = time.monotonic()
    wanted = partitions or PartitionFilter(())
    profiling.attach(spark.sparkContext)
    with profiling.phase("inspect"):
        inventory = inspect_table(client, source, settings, spark=lambda: spark)
    with profiling.phase("read target"):
        fmt = require_target(FormatServices(spark, client, settings, catalog), target, source)
        stored = fmt.stored_mapping(target)
    problems = []
    # The mapping names its table; after cutover the Hive table answers to its legacy name.
    # The rows are judged as the user's Hive reads them now: a target written under other
    # Hive semantics is not validated against them.
    if stored is not None and stored.semantics != settings.hive:
        problems.append(
            f"the target was back-filled reading the table as {stored.semantics.label}, the "
            f"settings now say {settings.hive.label}; run migrate, then validate again"
        )
    elif stored is not None and stored != replace(
        build_mapping(inventory, stored, stored.semantics), table=stored.table
    ):
        problems.append(
            "the Hive schema changed since the backfill; run migrate to evolve the "
            "target, then validate again"
        )
    with profiling.phase("read target"):
        done = fmt.backfilled(target)
        counts = fmt.row_counts(target, inventory)
    chosen = [p for p in inventory.partitions if wanted.matches(p.name)]
    label = fmt.label.split()[0]
    results = {
        p.name: _first_pass(p, done.get(p.name), counts.get(p.name, 0), level, label)
        for p in chosen
    }
    known = {p.name for p in inventory.partitions}
    extra = [
        PartitionValidation(
            n, EXTRA, level, None, rows, detail="in the target but not a partition of the source"
        )
        for n, rows in sorted(counts.items())
        if n not in known and wanted.matches(n)
    ]
    independent_seconds = None
    if problems:
        # The target does not hold the table as the settings read it now (a column added since
        # the backfill): nothing can be proven until migrate evolves it, and scanning the
        # source with the new columns against the old mapping would fail.
        results = {
            n: replace(r, status=NOT_PROVEN, detail=problems[0]) if r.status == EQUAL else r
            for n, r in results.items()
        }
    elif level != "count" and stored is not None:
        with profiling.phase("checksums"):
            results = _checksums(spark, inventory, stored, fmt, target, journal, results, level)
        accept = settings.timestamp_precision == "truncate"
        if level != "independent":  # the independent reader counts them in its own reading
            with profiling.phase("timestamps"):
                counted = observed_finer(journal, inventory, list(results))
                results = _finer_by_scan(spark, inventory, stored, results, accept, counted)
        if level == "independent":
            with profiling.phase("independent"):
                results, independent_seconds = independent_check(
                    spark,
                    inventory,
                    stored,
                    fmt,
                    target,
                    journal,
                    results,
                    accept_truncation=accept,
                )
        with profiling.phase("conversion nulls"):
            results = _with_nulled(spark, inventory, stored, results, accept)
    report = ValidationReport(
        inventory.qualified_name,
        target,
        level,
        tuple([*results.values(), *extra]),
        tuple(problems),
        round(time.monotonic() - started, 2),
        None if independent_seconds is None else round(independent_seconds, 2),
        tuple(skipped_archives(p for p in chosen if p.migratable)),
    )
    with profiling.phase("journal"):
        _record(journal, report)
    return report


def _checksums(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    fmt: TargetFormat,
    target: str,
    journal: Journal,
    results: dict[str, PartitionValidation],
    level: str,
) -> dict[str, PartitionValidation]:
    candidates = [
        n for n, r in results.items() if r.status in (EQUAL, MISMATCH) and r.source_rows is not None
    ]
    if not candidates:
        return results
    batches = _observed(journal, inventory, candidates, spark_only=level == "independent")
    needed = sorted(set(candidates) | {n for _, names, _ in batches.values() for n in names})
    with profiling.phase("target scan"):
        target_fps = target_fingerprints(fmt.frame(target, inventory), inventory, needed)
    # Each row hash includes the partition keys, so a batch whose observed source checksum
    # equals the sum of its partitions' target fingerprints is equal partition by partition.
    proven = {
        n
        for _, names, observed in batches.values()
        if combined([target_fps[n] for n in names]) == observed
        for n in names
    }
    rescan = [n for n in candidates if n not in proven]
    with profiling.phase("source scan"):
        scanned, unreadable = _scan_source(spark, inventory, mapping, rescan, fmt)
    for name in candidates:
        if name in unreadable:
            results[name] = replace(
                results[name],
                status=NOT_PROVEN,
                target_checksum=target_fps[name],
                target_rows=target_fps[name].rows,
                detail="not proven: lakeshift's Spark reader cannot read the source: "
                + unreadable[name],
            )
            continue
        target_fp = target_fps[name]
        source_fp = scanned.get(name, target_fp)
        status = EQUAL if source_fp == target_fp else MISMATCH
        detail = (
            f"{target_fp.rows:,} rows, checksums match"
            if status == EQUAL
            else _describe(source_fp, target_fp)
        )
        results[name] = replace(
            results[name],
            status=status,
            source_checksum=source_fp,
            target_checksum=target_fp,
            target_rows=target_fp.rows,
            source_rescanned=name in scanned,
            detail=detail,
        )
    if level == "deep":
        for name in (n for n in candidates if results[n].status == MISMATCH):
            results[name] = replace(
                results[name],
                diff=partition_diff(
                    source_frame(spark, inventory, mapping, [name], fmt.target_type),
                    fmt,
                    target,
                    inventory,
                    name,
                ),
            )
    return results


def _scan_source(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    names: list[str],
    fmt: TargetFormat,
) -> tuple[dict[str, Fingerprint], dict[str, str]]:
    """The Hive-faithful scan of ``names`` in one job; when a file cannot be read (changed in
    place since the backfill, or damaged), each partition alone, so only those holding such a
    file are left unproven (partition -> the reader's words), never the whole validation."""
    from lakeshift.migrate.failures import root_cause

    if not names:
        return {}, {}
    try:
        return source_fingerprints(spark, inventory, mapping, names, fmt.target_type), {}
    except Exception as e:
        log.warning("the source scan failed (%s); scanning each partition alone", e)
    scanned: dict[str, Fingerprint] = {}
    unreadable: dict[str, str] = {}
    for name in names:
        try:
            scanned.update(source_fingerprints(spark, inventory, mapping, [name], fmt.target_type))
        except Exception as e:
            unreadable[name] = root_cause(e, inventory).text()
    return scanned, unreadable


def _finer_by_scan(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    results: dict[str, PartitionValidation],
    accept: bool,
    counted: dict[str, int],
) -> dict[str, PartitionValidation]:
    """The checksum level reads timestamps as Spark does, in microseconds, so cannot see finer
    digits: the source's timestamps are read again at nanoseconds (``finer_timestamps``), and
    partitions holding any differ (``truncated``); a partition whose file could not be read
    again is not proven equal. Partitions whose writer ``counted`` them while reading the
    same files at nanoseconds (the Arrow path) are not read again."""
    compared = [n for n, r in results.items() if r.status in (EQUAL, MISMATCH)]
    if not compared:
        return results
    scanned = [n for n in compared if n not in counted]
    found, unread = finer_timestamps(spark, inventory, mapping, scanned) if scanned else ({}, {})
    out = dict(results)
    for name, count in found.items():
        said = f"a scan of the source counted {count:,} timestamp value(s)"
        out[name] = truncated(out[name], said, accept)
    for name in compared:
        if counted.get(name):
            said = (
                f"the backfill's reading of the source counted {counted[name]:,} timestamp value(s)"
            )
            out[name] = truncated(out[name], said, accept)
    for name, why in unread.items():
        result = out[name]
        said = f"its timestamps could not be read again at nanoseconds: {why}"
        out[name] = replace(
            result,
            status=NOT_PROVEN if result.status == EQUAL else result.status,
            detail="; ".join(d for d in (result.detail, f"not proven: {said}") if d),
        )
    return out


def _with_nulled(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    results: dict[str, PartitionValidation],
    accept_truncation: bool,
) -> dict[str, PartitionValidation]:
    """Count the values Hive's conversions read as NULL in the partitions compared (a scan of
    the files whose types differ only; none for a table without type drift), and the text and
    numbers read as timestamps finer than a microsecond, which make a partition differ as
    ORC's do."""
    compared = [n for n, r in results.items() if r.status in (EQUAL, MISMATCH)]
    if not compared:
        return results
    nulled, cut, finer = nulled_by_conversion(spark, inventory, mapping, compared)
    for name in sorted(set(nulled) | set(cut) | set(finer)):
        result = results[name]
        said = [result.detail] if result.detail else []
        if name in nulled:
            said.append(describe(nulled[name]))
        if name in cut:
            said.append(describe(cut[name], TRUNCATED))
        results[name] = replace(
            result,
            nulled=nulled.get(name, {}),
            truncated=cut.get(name, {}),
            detail="; ".join(said),
        )
        if name in finer:
            text = describe(finer[name], "read as timestamps with digits")
            results[name] = truncated(results[name], text, accept_truncation)
    return results


def _record(journal: Journal, report: ValidationReport) -> None:
    records = journal.partitions(report.source)
    with journal.transaction():
        _record_each(journal, report, records)


def _record_each(
    journal: Journal, report: ValidationReport, records: dict[str, PartitionRecord]
) -> None:
    for result in report.partitions:
        journal.record_validation(
            report.source,
            result.partition,
            report.target,
            report.level,
            result.status,
            source_fingerprint=result.source_fingerprint,
            source_checksum=result.source_checksum.to_json() if result.source_checksum else None,
            target_checksum=result.target_checksum.to_json() if result.target_checksum else None,
            detail=result.detail,
        )
        record = records.get(result.partition)
        if record and record.status in (BACKFILLED, VALIDATED, ROLLED_BACK):
            if result.ok and record.status == BACKFILLED:
                journal.set_status(report.source, result.partition, VALIDATED)
            elif not result.ok and record.status == VALIDATED:
                journal.set_status(report.source, result.partition, BACKFILLED)
