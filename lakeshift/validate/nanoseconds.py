"""Timestamps finer than a microsecond in the source files, counted for the checksum level.

Spark reads a timestamp in microseconds, as the targets hold it, so the checksum level's own
scans cannot see the digits Hive shows past a microsecond. Footer statistics cannot either:
they give only a column's minimum and maximum, ORC writers before 1.6 (Hive 2.x and 3.1 ship
1.3-1.5) record them to the millisecond, and Parquet keeps none for ``INT96``. So each ORC and
Parquet file's timestamp columns are read again, with pyarrow inside Spark tasks (one per
core, as the independent reader runs), at nanoseconds:

- ORC at nanoseconds (pyorc, value by value, for a file with a timestamp outside
  1677..2262, which pyarrow cannot hold at nanoseconds: ``orc_wide.finer_in_wide_orc``);
- Parquet ``INT96`` read twice (``int96.int96_finer``: nanoseconds wrap past 2262);
- Parquet ``INT64`` nanosecond timestamps as written.

Spark itself can read them too (ORC timestamps as ``decimal(38,9)`` through ORC's schema
evolution, ``INT96`` as bytes through its row reader), but at about a microsecond of task CPU
a value, four times this reading on the benchmark's two million rows, and seconds more for a
thousand small files. Every timestamp of the columns the table reads is counted, at any depth,
as the independent level counts them: whatever the table reads it as, lakeshift's readers take
it in microseconds first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq

from lakeshift.errors import LakeshiftError, in_task
from lakeshift.hive.projection import file_groups
from lakeshift.hive.types import holds_kind, parse_hive_type
from lakeshift.inspect.model import FileInfo, TableInventory
from lakeshift.schema_map.model import FieldMapping
from lakeshift.storage import filesystem_for
from lakeshift.validate.independent.int96 import int96_finer
from lakeshift.validate.independent.orc_wide import beyond_nanoseconds, finer_in_wide_orc
from lakeshift.validate.independent.zones import finer_than_micros

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_COUNTS_DDL = "partition STRING, finer BIGINT, error STRING"


@dataclass(frozen=True)
class FileCount:
    """One file's columns to count: ``int96`` those read twice (Parquet ``INT96``)."""

    partition: str
    path: str
    format: str
    columns: tuple[str, ...]
    int96: tuple[str, ...] = ()


def finer_timestamps(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
) -> tuple[dict[str, int], dict[str, str]]:
    """Partition -> timestamp values (non-zero counts) in the columns ``mapping`` reads from
    its ORC and Parquet files that hold digits past a microsecond; and partition -> why a file
    of it could not be read (its count is unknown)."""
    files = counted_files(inventory, mapping, partitions)
    if not files:
        return {}, {}
    # one task per core: each task costs a Python worker, and most files are read in a blink
    slices = max(1, min(len(files), spark.sparkContext.defaultParallelism))
    rows = spark.range(0, len(files), 1, slices).mapInArrow(_counting(files), _COUNTS_DDL)
    found: dict[str, int] = {}
    unread: dict[str, str] = {}
    for partition, finer, error in rows.collect():
        if error is not None:
            unread.setdefault(partition, error)
        elif finer:
            found[partition] = found.get(partition, 0) + int(finer)
    return found, unread


def counted_files(
    inventory: TableInventory, mapping: FieldMapping, partitions: list[str]
) -> list[FileCount]:
    """The files of ``partitions`` that can hold timestamps finer than a microsecond in the
    columns the mapping reads, and those columns."""
    infos = {
        (p.name, f.path): f for p in inventory.partitions if p.name in partitions for f in p.files
    }
    out = []
    for group in file_groups(inventory, mapping, partitions):
        if group.format not in ("orc", "parquet"):
            continue
        read = {
            group.physical[s.physical_index].name
            for s in group.sources
            if s.physical_index is not None
        }
        base = group.location.rstrip("/")
        for path in group.files:
            counted = file_columns(infos[(group.partition, path)], read)
            if counted is not None:
                columns, int96 = counted
                out.append(
                    FileCount(group.partition, f"{base}/{path}", group.format, columns, int96)
                )
    return out


def file_columns(info: FileInfo, read: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Of ``read``, the columns of ``info`` that can hold timestamps finer than a microsecond,
    and of those the ``INT96`` ones (``None``: none can)."""
    if info.error:
        return None
    stamped = [
        c.name
        for c in info.columns
        if c.name in read and holds_kind(parse_hive_type(c.type), "timestamp")
    ]
    if info.format == "parquet":
        nanos = {name for name, unit, _ in info.int64_timestamps if unit == "nanos"}
        # a column of INT96 and INT64 timestamps both (no writer writes one) is read once
        int96 = set(info.int96) - {name for name, _, _ in info.int64_timestamps}
        stamped = [c for c in stamped if c in nanos or c in info.int96]
        columns = tuple(stamped)
        return (columns, tuple(c for c in columns if c in int96)) if columns else None
    return (tuple(stamped), ()) if stamped else None


def _counting(
    files: list[FileCount],
) -> Callable[[Iterable[pa.RecordBatch]], Iterable[pa.RecordBatch]]:
    @in_task
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:  # one row per file, one batch out per batch in
            partitions, counts, errors = [], [], []
            for index in batch.column(0).to_pylist():
                file = files[index]
                try:
                    found, error = count(file), None
                except (LakeshiftError, OSError, pa.ArrowException) as e:  # go on: one unknown
                    found, error = 0, f"{file.path}: {e}"
                partitions.append(file.partition)
                counts.append(found)
                errors.append(error)
            yield pa.RecordBatch.from_pydict(
                {
                    "partition": pa.array(partitions, pa.string()),
                    "finer": pa.array(counts, pa.int64()),
                    "error": pa.array(errors, pa.string()),
                }
            )

    return run


def count(file: FileCount) -> int:
    """The timestamps in ``file``'s columns, at any depth, with digits past a microsecond."""
    fs, local = filesystem_for(file.path)
    with fs.open_input_file(local) as handle:
        if file.format == "orc":
            try:
                table = orc.ORCFile(handle).read(columns=list(file.columns))
            except pa.ArrowInvalid as e:
                if not beyond_nanoseconds(e):
                    raise
                return finer_in_wide_orc(handle, list(file.columns), file.path)
            return finer_than_micros(table)
        once = [c for c in file.columns if c not in file.int96]
        found = finer_than_micros(pq.ParquetFile(handle).read(columns=once)) if once else 0
    if file.int96:
        found += int96_finer(file.path, list(file.int96))
    return found
