"""Write one batch of partitions into the Iceberg target: one Spark job, one atomic commit.

``overwritePartitions`` replaces exactly the partitions present in the written frame, so a
re-run of a batch after a crash replaces instead of duplicating. Each partition's source
fingerprint is observed during the same pass (``DataFrame.observe``); the snapshot summary
records the partitions and their source fingerprints (known before the write).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeshift.inspect.model import TableInventory
from lakeshift.migrate.keys import add_record_key
from lakeshift.schema_map.hive_types import HiveType, parse_hive_type
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN, UUID_COLUMN
from lakeshift.schema_map.model import FieldMapping
from lakeshift.schema_map.reader import SOURCE_FILE, read_batch
from lakeshift.schema_map.spark_sql import quote, spark_type, string_literal
from lakeshift.validate.canonical import EMPTY, Fingerprint, aggregate_sql, from_values

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)


def iceberg_hive_type(hive: HiveType) -> HiveType:
    """The Hive type as the Iceberg target holds it (no 8/16-bit ints, no CHAR/VARCHAR)."""
    if hive.kind in ("tinyint", "smallint"):
        return HiveType("int")
    if hive.kind in ("char", "varchar"):
        return HiveType("string")
    if hive.fields:
        return HiveType(
            hive.kind, hive.params, tuple((n, iceberg_hive_type(t)) for n, t in hive.fields)
        )
    return hive


def target_select(inventory: TableInventory, extra: list[str]) -> list[str]:
    """SELECT list casting the reader's Hive-typed columns to the target's types."""
    exprs = []
    for column in (*inventory.columns, *inventory.partition_keys):
        hive = parse_hive_type(column.type)
        target = iceberg_hive_type(hive)
        name = quote(column.name)
        exprs.append(name if target == hive else f"CAST({name} AS {spark_type(target)}) AS {name}")
    return exprs + [quote(e) for e in extra]


def spark_identifier(target: str) -> str:
    db, _, table = target.partition(".")
    return f"spark_catalog.{quote(db)}.{quote(table)}"


@dataclass(frozen=True)
class BatchResult:
    """The batch's source checksum (every row hash includes its partition keys, so equal batch
    sums mean equal multisets per partition too) and whether anything was committed."""

    checksum: Fingerprint
    committed: bool


def source_frame(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    key_mode: str = "uuid",
) -> DataFrame:
    """Partitions as the target will hold them (with ``partitionpath``), before the key."""
    deterministic = key_mode == "deterministic"
    frame = read_batch(spark, inventory, mapping, partitions, with_file_path=deterministic)
    extra = [PARTITIONPATH_COLUMN, *([SOURCE_FILE] if deterministic else [])]
    return frame.selectExpr(*target_select(inventory, extra))


def write_batch(
    spark: SparkSession,
    target: str,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    *,
    key_mode: str,
    snapshot_properties: dict[str, str],
) -> BatchResult:
    """Backfill ``partitions`` in one Spark job and one commit, observing the source checksum."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    data_columns = [c.name for c in (*inventory.columns, *inventory.partition_keys)]
    by_name = {p.name: p for p in inventory.partitions}
    readable = [
        n for n in partitions if any(f.format in ("orc", "parquet") for f in by_name[n].files)
    ]
    if not readable:
        return BatchResult(EMPTY, committed=False)  # an empty scan's Observation never reports
    frame = source_frame(spark, inventory, mapping, readable, key_mode)
    fields = [f for f in frame.schema.fields if f.name in set(data_columns)]
    # Unique per batch: bulk runs observe several tables' batches at once in one session.
    observation = Observation(f"lakeshift_batch_{uuid.uuid4().hex}")
    frame = frame.observe(observation, *[F.expr(e) for e in aggregate_sql(fields)])
    frame = add_record_key(frame, key_mode, data_columns)
    frame = frame.select(*[quote(c) for c in (*data_columns, UUID_COLUMN, PARTITIONPATH_COLUMN)])
    writer = frame.writeTo(spark_identifier(target))
    for key, value in snapshot_properties.items():
        writer = writer.option(f"snapshot-property.{key}", value)
    writer.overwritePartitions()
    metrics = observation.get
    return BatchResult(from_values(metrics["rows"], metrics["sum1"], metrics["sum2"]), True)


def delete_partition(
    spark: SparkSession, target: str, inventory: TableInventory, values: tuple[str | None, ...]
) -> None:
    """Remove a partition from the target (its source became empty)."""
    predicates = []
    for key, value in zip(inventory.partition_keys, values):
        key_type = spark_type(iceberg_hive_type(parse_hive_type(key.type)))
        literal = "NULL" if value is None else f"CAST({string_literal(value)} AS {key_type})"
        predicates.append(f"{quote(key.name)} <=> {literal}")
    spark.sql(f"DELETE FROM {spark_identifier(target)} WHERE {' AND '.join(predicates)}")
