"""The driver side: run the independent reader inside Spark tasks, where the data is.

Each data file is one unit of work: ``spark.range(files)`` spread over the cluster, and
``mapInArrow`` reads the files its task is given with pyarrow. Fingerprints come back as
per-file sums (text: exact beyond 64 bits) and are added per partition on the driver.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pyarrow as pa

from lakeshift.errors import LakeshiftError, RefusedInput, in_task
from lakeshift.hive.types import parse_hive_type
from lakeshift.inspect.model import TableInventory
from lakeshift.schema_map.model import FieldMapping
from lakeshift.validate.canonical import EMPTY, Fingerprint
from lakeshift.validate.independent.arrow_types import schema_ddl
from lakeshift.validate.independent.plan import FileTask, TargetType, plan_files
from lakeshift.validate.independent.task import PARTITION_COLUMN, file_fingerprint, file_rows

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)
_SUMS_DDL = "partition STRING, rows BIGINT, sum1 STRING, sum2 STRING, error STRING, finer BIGINT"


@dataclass(frozen=True)
class IndependentReading:
    """Per partition, the independent reader's fingerprint of its rows; and the partitions it
    could not read, each with why (their fingerprints are not to be trusted)."""

    fingerprints: dict[str, Fingerprint]
    unreadable: dict[str, str] = field(default_factory=dict)
    # Per partition: timestamps the source holds finer than the microseconds targets keep.
    finer: dict[str, int] = field(default_factory=dict)


def _spread(spark: SparkSession, tasks: list[FileTask]) -> DataFrame:
    slices = max(1, min(len(tasks), spark.sparkContext.defaultParallelism * 4))
    return spark.range(0, len(tasks), 1, slices)


def _fingerprint_batches(
    tasks: list[FileTask],
) -> Callable[[Iterable[pa.RecordBatch]], Iterable[pa.RecordBatch]]:
    @in_task
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index in batch.column(0).to_pylist():
                task = tasks[index]
                try:
                    (found, finer), error = file_fingerprint(task), None
                except LakeshiftError as e:  # this file's partition is not proven; go on
                    found, finer, error = EMPTY, 0, str(e)
                yield pa.RecordBatch.from_pydict(
                    {
                        "partition": [task.partition],
                        "rows": pa.array([found.rows], pa.int64()),
                        "sum1": [found.sum1],
                        "sum2": [found.sum2],
                        "error": pa.array([error], pa.string()),
                        "finer": pa.array([finer], pa.int64()),
                    }
                )

    return run


def independent_reading(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    target_type: TargetType,
) -> IndependentReading:
    """Per partition, the canonical fingerprint of its rows read by the independent reader; a
    file it cannot read leaves its partition unreadable (the others are read)."""
    tasks = plan_files(inventory, mapping, partitions, target_type)
    out = {name: EMPTY for name in partitions}
    if not tasks:
        return IndependentReading(out)
    log.info("independent reader: %d file(s) of %d partition(s)", len(tasks), len(partitions))
    rows = _spread(spark, tasks).mapInArrow(_fingerprint_batches(tasks), _SUMS_DDL).collect()
    totals: dict[str, list[int]] = {}
    unreadable: dict[str, str] = {}
    finer: dict[str, int] = {}
    for row in rows:
        if row["error"] is not None:
            unreadable.setdefault(row["partition"], row["error"])
            continue
        if row["finer"]:
            finer[row["partition"]] = finer.get(row["partition"], 0) + int(row["finer"])
        sums = totals.setdefault(row["partition"], [0, 0, 0])
        sums[0] += int(row["rows"])
        sums[1] += int(row["sum1"])
        sums[2] += int(row["sum2"])
    for name, (count, sum1, sum2) in totals.items():
        out[name] = Fingerprint(count, str(sum1), str(sum2))
    return IndependentReading(out, unreadable, finer)


def independent_fingerprints(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    target_type: TargetType,
) -> dict[str, Fingerprint]:
    """Per partition, the canonical fingerprint of its rows read by the independent reader
    (raises ``RefusedInput`` naming the first partition it cannot read)."""
    reading = independent_reading(spark, inventory, mapping, partitions, target_type)
    for name, why in reading.unreadable.items():
        raise RefusedInput(f"partition {name}: the independent reader cannot read it: {why}")
    return reading.fingerprints


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

    @in_task
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index in batch.column(0).to_pylist():
                yield from file_rows(tasks[index]).to_batches()

    return _spread(spark, tasks).mapInArrow(run, ddl)
