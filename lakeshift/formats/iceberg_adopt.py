"""Register a Hive partition's own ORC files in an Iceberg table, copying nothing.

Iceberg's ``add_files`` procedure cannot be used: it lists each directory without recursing
(Hive reads ``HIVE_UNION_SUBDIR_*``), fails instead of skipping files already held, and
appends, so a re-run would double the rows. lakeshift names the exact files the inspection
chose and commits them with ``newReplacePartitions``, which replaces what a partition held
before: a re-run registers the same files again, never twice. Each file's statistics are read
from its footer by Iceberg's own ``OrcMetrics`` through the table's name mapping, as its
writers' are.

The adopted files stay the Hive table's: ``gc.enabled=false`` is set on the table (as Iceberg's
``snapshot`` action does) so that no engine's snapshot expiry or orphan removal deletes them;
lakeshift's own maintenance deletes only files under the lake table's location.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol

from lakeshift.errors import RefusedInput
from lakeshift.formats.base import BatchResult, CommitRecord
from lakeshift.formats.commit_metadata import commit_properties
from lakeshift.formats.iceberg_files import java_partitions, partition_fields, partition_json
from lakeshift.formats.iceberg_java import (
    Unboxable,
    _translated_conflict,
    iceberg_hive_type,
    java_items,
)
from lakeshift.hive.partition_values import typed_value
from lakeshift.hive.types import parse_hive_type
from lakeshift.inspect.model import PartitionInfo, TableInventory
from lakeshift.storage import place

if TYPE_CHECKING:
    from pyiceberg.table import Table
    from pyspark.sql import DataFrame, SparkSession

    from lakeshift.hive.semantics import HiveSemantics
    from lakeshift.migrate.adoption import AdoptionDecision
    from lakeshift.schema_map.model import FieldMapping

log = logging.getLogger(__name__)
#: Set on a table holding adopted files: Iceberg's expiry, orphan removal and purge refuse
#: to run (they would delete the Hive table's files).
GC_PROPERTY = "gc.enabled"
#: Marks a lakeshift commit whose files are the source's own (``backfilled`` reads it).
ADOPTED_PROPERTY = "lakeshift.adopted"
#: Files whose metrics one thread reads at least (the next thread pays its own connection).
FILES_PER_THREAD = 32


class IcebergTarget(Protocol):
    """What adoption needs of ``formats.iceberg.IcebergFormat`` (named here, not imported:
    that module imports this one)."""

    @property
    def spark(self) -> SparkSession: ...
    @property
    def spark_catalog(self) -> str: ...
    def ident(self, target: str) -> str: ...
    def table(self, target: str) -> Table | None: ...
    def _require(self, target: str) -> Table: ...
    def stored_mapping(self, target: str) -> FieldMapping | None: ...
    def key_reading(self, target: str) -> HiveSemantics: ...
    def _base_snapshot(self, target: str) -> int | None: ...
    def _landed_through(
        self, target: str, table: Any, base: int | None, record: CommitRecord
    ) -> int | None: ...
    def _as_checked(self, target: str, table: Any) -> None: ...
    def java_table(self, target: str) -> Any: ...


def adopt_partitions(
    fmt: IcebergTarget,
    target: str,
    inventory: TableInventory,
    decisions: Sequence[AdoptionDecision],
    record: CommitRecord,
    workers: int,
) -> BatchResult:
    """One replace-partitions commit holding ``decisions``' files in their partitions, their
    metrics read on ``workers`` threads."""

    clock = [time.monotonic()]

    def took() -> float:
        now = time.monotonic()
        seconds, clock[0] = now - clock[0], now
        return round(seconds, 3)

    base = fmt._base_snapshot(target)
    spark = fmt.spark
    jvm: Any = spark.sparkContext._jvm
    iceberg = jvm.org.apache.iceberg
    table = fmt.java_table(target)
    fmt._as_checked(target, table)
    steps = {"base and table": took()}
    # No file of the source may be referenced by a table whose snapshots an engine could
    # expire, deleting what they no longer reference: the first adoption turns gc off in the
    # same commit as its files (one transaction, one metastore commit: a commit of its own
    # was as long as the files' registration).
    transaction = (
        table.newTransaction() if str(table.properties().get(GC_PROPERTY)) != "false" else None
    )
    if transaction is not None:
        transaction.updateProperties().set(GC_PROPERTY, "false").commit()
    spec, schema = table.spec(), table.schema()
    mapping = iceberg.mapping.NameMappingParser.fromJson(
        table.properties().get("schema.name-mapping.default")
    )
    config = iceberg.MetricsConfig.forTable(table)
    orc_metrics, io = iceberg.orc.OrcMetrics, table.io()
    data_files, orc = iceberg.DataFiles, iceberg.FileFormat.ORC
    hive = fmt.key_reading(target)
    by_name = {p.name: p for p in inventory.partitions}
    sources = [str(schema.findColumnName(f.sourceId())) for f in java_items(spec.fields())]
    keys = {k.name.lower(): k for k in inventory.partition_keys}
    replace = (transaction or table).newReplacePartitions()
    if base is not None:
        replace = replace.validateFromSnapshot(base)
    replace = replace.validateNoConflictingData().validateNoConflictingDeletes()
    for key, value in {**commit_properties(record), ADOPTED_PROPERTY: "true"}.items():
        replace.set(key, value)
    kinds = [str(iceberg_hive_type(parse_hive_type(keys[s.lower()].type))) for s in sources]
    fields = partition_fields(spec)
    steps["setup"] = took()
    as_json: dict[str, str] = {}  # each partition's, parsed by Java all at once
    for decision in decisions:
        partition = by_name[decision.partition]
        values = dict(zip((k.name.lower() for k in inventory.partition_keys), partition.values))
        typed = [
            typed_value(values[s.lower()], keys[s.lower()].type, hive.version, hive.jvm_zone)
            for s in sources
        ]
        try:
            as_json[decision.partition] = partition_json(fields, kinds, typed)
        except Unboxable as e:  # left out: validation then finds it missing, and it is copied
            log.warning("%s: %s is not adopted: %s", target, decision.partition, e)
    datas = dict(zip(as_json, java_partitions(jvm, spec, list(as_json.values()))))
    entries = [
        (adopted_path(by_name[d.partition], relative), size, datas[d.partition])
        for d in decisions
        if d.partition in datas
        for relative, size in _sizes(by_name[d.partition], d.files)
    ]

    def data_file(entry: tuple[str, int, Any]) -> Any:
        path, size, data = entry
        metrics = orc_metrics.fromInputFile(io.newInputFile(path), config, mapping)
        return (
            data_files.builder(spec)
            .withPath(path)
            .withFormat(orc)
            .withFileSizeInBytes(size)
            .withPartition(data)
            .withMetrics(metrics)
            .build()
        )

    # Each file is a footer read by Java and eight calls through py4j: threads overlap them
    # (each Python thread has a JVM thread of its own), as the inspection's footer reads are.
    # A thread's first call opens its own py4j connection (8 files took 0.04 s on 8 threads
    # against 0.02 s on one): one thread for every FILES_PER_THREAD files.
    threads = min(workers, len(entries) // FILES_PER_THREAD)
    if threads > 1:
        with ThreadPoolExecutor(threads, "lakeshift-adopt") as pool:
            built = list(pool.map(data_file, entries))
    else:
        built = [data_file(entry) for entry in entries]
    for made in built:
        replace.addFile(made)
    count = len(built)
    steps["files"] = took()

    def commit_all() -> None:
        replace.commit()  # in a transaction: its manifests only; else the whole commit
        if transaction is not None:
            steps["snapshot"] = took()
            transaction.commitTransaction()

    _translated_conflict(target, commit_all)
    steps["commit"] = took()
    commit = fmt._landed_through(target, table, base, record)
    steps["landing"] = took()
    log.info(
        "%s: adopted %d file(s) of %d partition(s); seconds: %s",
        target, count, len(decisions), steps,
    )  # fmt: skip
    return BatchResult(None, True, commit)


def _sizes(partition: PartitionInfo, files: Sequence[str]) -> list[tuple[str, int]]:
    """``files`` (relative paths the decision chose) with their sizes as inspected."""
    sizes = {f.path: f.size for f in partition.files}
    return [(relative, sizes[relative]) for relative in files]


def adopted_path(partition: PartitionInfo, relative: str) -> str:
    """The path an adopted file is registered under (and Spark's ``_file`` gives back)."""
    return f"{partition.location.rstrip('/')}/{relative}"


def holds_adopted_files(table: Table) -> bool:
    """Whether lakeshift adopted source files into ``table`` (it then keeps gc off)."""
    return table.properties.get(GC_PROPERTY) == "false"


def with_partition_paths(
    spark: SparkSession, frame: DataFrame, inventory: TableInventory
) -> DataFrame:
    """``frame`` with the ``partitionpath`` of adopted rows filled in: the source's files do
    not hold the column (Iceberg v2 has no column defaults), so each row's partition is found
    from the file it was read from (Spark's ``_file``)."""
    from pyspark.sql import functions as F

    from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN

    rows = [(adopted_path(p, f.path), p.name) for p in inventory.partitions for f in p.files]
    if not rows:
        return frame
    lookup = spark.createDataFrame(rows, "`__lakeshift_file` string, `__lakeshift_name` string")
    columns = frame.columns
    joined = frame.select("*", "_file").join(
        F.broadcast(lookup), F.col("_file") == F.col("__lakeshift_file"), "left"
    )
    return joined.select(
        *[
            F.coalesce(F.col(f"`{c}`"), F.col("__lakeshift_name")).alias(c)
            if c == PARTITIONPATH_COLUMN
            else F.col(f"`{c}`")
            for c in columns
        ]
    )


def release_files(fmt: IcebergTarget, target: str, files: Sequence[Mapping[str, Any]]) -> list[str]:
    """Before the legacy table's ``files`` (``path``, ``partition``) are deleted: rewrite
    every partition of ``target`` still holding one of them into the lake table's own
    location (Iceberg's ``rewrite_data_files``, all files of those partitions), so the table
    no longer needs them. Returns the partitions rewritten.

    Raises:
        RefusedInput: when a file is still held afterwards (nothing is to be deleted).
    """
    from lakeshift.hive.spark_sql import string_literal
    from lakeshift.metastore.partition_names import parse_partition_name
    from lakeshift.route.view_sql import partition_predicate

    table = fmt.table(target)
    if table is None or not holds_adopted_files(table):
        return []
    held = _held(table, files)
    if not held:
        return []
    mapping = fmt.stored_mapping(target)
    keys = [(k.name, k.type) for k in mapping.partition_keys] if mapping else []
    values = [tuple(v for _, v in parse_partition_name(name)) for name in sorted(held)]
    predicate = partition_predicate(keys, values)
    db, _, name = target.partition(".")
    log.info("%s: rewriting %d adopted partition(s) into its own location", target, len(held))
    fmt.spark.sql(
        f"CALL {fmt.spark_catalog}.system.rewrite_data_files("
        f"table => {string_literal(f'{db}.{name}')}, where => {string_literal(predicate)}, "
        "options => map('rewrite-all', 'true'))"
    ).collect()
    fmt.spark.sql(f"REFRESH TABLE {fmt.ident(target)}")
    left = _held(fmt._require(target), files)
    if left:
        raise RefusedInput(
            f"{target} still holds {len(left)} of the legacy table's files after rewriting "
            f"their partitions ({', '.join(sorted(left)[:5])}); nothing was deleted.",
            hint="Run the same command again; if it persists, report it with the log.",
        )
    return sorted(held)


def _held(table: Table, files: Sequence[Mapping[str, Any]]) -> set[str]:
    """The partitions of ``files`` whose files ``table``'s current snapshot holds."""
    partitions = {place(str(f["path"])): str(f["partition"]) for f in files}
    if table.current_snapshot() is None:
        return set()
    live = table.inspect.files().column("file_path").to_pylist()
    return {partitions[k] for k in map(place, live) if k in partitions}
