"""Per-partition fingerprints of the source (Hive-faithful read) and of the target (one scan)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeshift.hive.source_frame import TargetType, source_frame
from lakeshift.inspect.model import TableInventory
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN, UUID_COLUMN
from lakeshift.schema_map.model import FieldMapping
from lakeshift.validate.canonical import (
    EMPTY,
    Fingerprint,
    aggregate_sql,
    checksum_fields,
    from_metrics,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

GENERATED = (UUID_COLUMN, PARTITIONPATH_COLUMN)


def _by_partition(frame: DataFrame, data_columns: list[str]) -> dict[str, Fingerprint]:
    from pyspark.sql import functions as F

    fields = checksum_fields(frame.schema.fields, data_columns)
    rows = frame.groupBy(PARTITIONPATH_COLUMN).agg(*[F.expr(e) for e in aggregate_sql(fields)])
    return {r[PARTITIONPATH_COLUMN]: from_metrics(r.asDict()) for r in rows.collect()}


def target_fingerprints(
    frame: DataFrame, inventory: TableInventory, partitions: list[str] | None = None
) -> dict[str, Fingerprint]:
    """One scan of the target's current snapshot (``TargetFormat.frame``); generated columns
    excluded. Missing partitions are EMPTY."""
    from pyspark.sql import functions as F

    if partitions is not None:
        frame = frame.where(F.col(PARTITIONPATH_COLUMN).isin(partitions))
    data_columns = [c.name for c in (*inventory.columns, *inventory.partition_keys)]
    found = _by_partition(frame, data_columns)
    names = partitions if partitions is not None else [p.name for p in inventory.partitions]
    return {**{n: EMPTY for n in names}, **found}


def source_fingerprints(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    target_type: TargetType,
) -> dict[str, Fingerprint]:
    """A Hive-faithful scan of the source partitions, typed as the target holds them."""
    data_columns = [c.name for c in (*inventory.columns, *inventory.partition_keys)]
    found = (
        _by_partition(
            source_frame(spark, inventory, mapping, partitions, target_type), data_columns
        )
        if partitions
        else {}
    )
    return {**{n: EMPTY for n in partitions}, **found}


def combined(fingerprints: list[Fingerprint]) -> Fingerprint:
    """The fingerprint of the union of disjoint row sets (sums add up exactly)."""
    return Fingerprint(
        sum(f.rows for f in fingerprints),
        str(sum(int(f.sum1) for f in fingerprints)),
        str(sum(int(f.sum2) for f in fingerprints)),
    )
