"""Find the differing rows of a mismatched partition, cheaply first.

Rows are hashed into buckets; only buckets whose fingerprints differ are compared with
``exceptAll`` both ways (which keeps duplicates), on canonical columns (maps as sorted entries:
Spark cannot compare maps in set operations).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lakeshift.validate.canonical import SALTS, row_hash
from lakeshift.validate.model import RowDiff

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

BUCKETS = 16
SAMPLE_ROWS = 5


def comparable(frame: DataFrame) -> DataFrame:
    """Maps become key-sorted entry arrays (recursively at top level), other columns as is."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import MapType

    return frame.select(
        *[
            F.array_sort(F.map_entries(F.col(f.name))).alias(f.name)
            if isinstance(f.dataType, MapType)
            else F.col(f.name)
            for f in frame.schema.fields
        ]
    )


def _bucketed(frame: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    hash_sql = row_hash(frame.schema.fields, SALTS[0])
    return frame.withColumn("__bucket", F.expr(f"pmod({hash_sql}, {BUCKETS})"))


def _bucket_sums(frame: DataFrame) -> dict[int, tuple[int, Any]]:
    from pyspark.sql import functions as F

    hash_sql = row_hash([f for f in frame.schema.fields if f.name != "__bucket"], SALTS[1])
    rows = (
        frame.groupBy("__bucket")
        .agg(F.count(F.lit(1)).alias("n"), F.expr(f"sum({hash_sql})").alias("s"))
        .collect()
    )
    return {int(r["__bucket"]): (int(r["n"]), r["s"]) for r in rows}


def _plain(row: Any) -> dict[str, Any]:
    return {k: v for k, v in row.asDict(recursive=True).items() if k != "__bucket"}


def row_diff(source: DataFrame, target: DataFrame) -> RowDiff:
    """Sample rows present on one side only (duplicates count), via differing buckets."""
    from pyspark.sql import functions as F

    left, right = _bucketed(source), _bucketed(target)
    left_sums, right_sums = _bucket_sums(left), _bucket_sums(right)
    buckets = sorted(
        b for b in set(left_sums) | set(right_sums) if left_sums.get(b) != right_sums.get(b)
    )
    if not buckets:
        return RowDiff([], [], [])
    left_rows = comparable(left.where(F.col("__bucket").isin(buckets)))
    right_rows = comparable(right.where(F.col("__bucket").isin(buckets)))
    return RowDiff(
        only_in_source=[
            _plain(r) for r in left_rows.exceptAll(right_rows).limit(SAMPLE_ROWS).collect()
        ],
        only_in_target=[
            _plain(r) for r in right_rows.exceptAll(left_rows).limit(SAMPLE_ROWS).collect()
        ],
        differing_buckets=buckets,
    )


def partition_diff(
    source: DataFrame, fmt: Any, target: str, inventory: Any, partition: str
) -> RowDiff:
    """``row_diff`` of one partition: ``source`` (a reader's rows of it, any reader) against
    the rows ``fmt`` holds for it in ``target``, generated columns left out."""
    from pyspark.sql import functions as F

    from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN
    from lakeshift.validate.fingerprints import GENERATED

    source = source.drop(PARTITIONPATH_COLUMN)
    target_rows = (
        fmt.frame(target, inventory)
        .where(F.col(PARTITIONPATH_COLUMN) == partition)
        .drop(*GENERATED)
        .select(*source.columns)
    )
    return row_diff(source, target_rows)
