"""The driver side: run the independent reader inside Spark tasks, where the data is.

Each data file is one unit of work: ``spark.range(files)`` spread over the cluster, and
``mapInArrow`` reads the files its task is given with pyarrow. Fingerprints come back as
per-file sums (text: exact beyond 64 bits) and are added per partition on the driver.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

import pyarrow as pa

from lakeshift.inspect.model import TableInventory
from lakeshift.schema_map.hive_types import parse_hive_type
from lakeshift.schema_map.model import FieldMapping
from lakeshift.validate.canonical import EMPTY, Fingerprint
from lakeshift.validate.independent.arrow_types import schema_ddl
from lakeshift.validate.independent.plan import FileTask, TargetType, plan_files
from lakeshift.validate.independent.task import PARTITION_COLUMN, file_fingerprint, file_rows

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)
_SUMS_DDL = "partition STRING, rows BIGINT, sum1 STRING, sum2 STRING"


def _spread(spark: SparkSession, tasks: list[FileTask]) -> DataFrame:
    slices = max(1, min(len(tasks), spark.sparkContext.defaultParallelism * 4))
    return spark.range(0, len(tasks), 1, slices)


def _fingerprint_batches(
    tasks: list[FileTask],
) -> Callable[[Iterable[pa.RecordBatch]], Iterable[pa.RecordBatch]]:
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index in batch.column(0).to_pylist():
                task = tasks[index]
                found = file_fingerprint(task)
                yield pa.RecordBatch.from_pydict(
                    {
                        "partition": [task.partition],
                        "rows": pa.array([found.rows], pa.int64()),
                        "sum1": [found.sum1],
                        "sum2": [found.sum2],
                    }
                )

    return run


def independent_fingerprints(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    target_type: TargetType,
) -> dict[str, Fingerprint]:
    """Per partition, the canonical fingerprint of its rows read by the independent reader."""
    tasks = plan_files(inventory, mapping, partitions, target_type)
    out = {name: EMPTY for name in partitions}
    if not tasks:
        return out
    log.info("independent reader: %d file(s) of %d partition(s)", len(tasks), len(partitions))
    rows = _spread(spark, tasks).mapInArrow(_fingerprint_batches(tasks), _SUMS_DDL).collect()
    totals: dict[str, list[int]] = {}
    for row in rows:
        sums = totals.setdefault(row["partition"], [0, 0, 0])
        sums[0] += int(row["rows"])
        sums[1] += int(row["sum1"])
        sums[2] += int(row["sum2"])
    for name, (count, sum1, sum2) in totals.items():
        out[name] = Fingerprint(count, str(sum1), str(sum2))
    return out


def independent_frame(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    target_type: TargetType,
) -> DataFrame:
    """The rows of ``partitions`` read by the independent reader, with ``partitionpath``
    (to show differing rows; the fingerprints never build this frame)."""
    tasks = plan_files(inventory, mapping, partitions, target_type)
    columns = [
        (c.name, target_type(parse_hive_type(c.type)))
        for c in (*inventory.columns, *inventory.partition_keys)
    ]
    ddl = f"{schema_ddl(columns)}, {PARTITION_COLUMN} STRING"
    if not tasks:
        return spark.createDataFrame([], ddl)

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index in batch.column(0).to_pylist():
                yield from file_rows(tasks[index]).to_batches()

    return _spread(spark, tasks).mapInArrow(run, ddl)
