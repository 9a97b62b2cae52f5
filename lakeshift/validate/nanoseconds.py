"""Timestamps finer than a microsecond in the source files, counted by Spark for the checksum
level.

Spark reads a timestamp in microseconds, as the targets hold it, so the checksum level's own
scans cannot see the digits Hive shows past a microsecond. Footer statistics cannot either:
they give only a column's minimum and maximum, ORC writers before 1.6 (Hive 2.x and 3.1 ship
1.3-1.5) record them to the millisecond, and Parquet keeps none for ``INT96``. So this scan
reads each timestamp a second way, one that keeps the nanoseconds:

- ORC: as ``decimal(38,9)`` seconds, through ORC's schema evolution
  (``DecimalFromTimestampTreeReader`` adds the nanoseconds to the seconds);
- Parquet ``INT96``: as its twelve bytes, the first eight the nanoseconds of the day,
  little-endian (Spark's row reader hands a column asked for as ``binary`` over as stored; its
  vectorized reader refuses, so it is off for this scan);
- Parquet ``INT64`` nanosecond timestamps: as the count they hold (``FileInfo.scanned``).

Every timestamp of the columns the table reads is counted, at any depth, as the independent
level counts them (``task.finer_than_micros``). Hand-written: no library counts a file's
sub-microsecond values in Spark.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from lakeshift.inspect.model import FileInfo, TableInventory
from lakeshift.platform.spark import session_settings
from lakeshift.schema_map.hive_types import HiveType, parse_hive_type
from lakeshift.schema_map.model import FieldMapping
from lakeshift.schema_map.projection import file_groups
from lakeshift.schema_map.reader import DECODED_FILE_PATH, glob_escaped, spark_file_path
from lakeshift.schema_map.spark_sql import quote, spark_type

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_SECONDS = HiveType("decimal", (38, 9))
_BYTES = HiveType("binary")
#: Spark's row reader for Parquet, the one that reads ``INT96`` as bytes
_ROW_READER = {"spark.sql.parquet.enableVectorizedReader": "false"}


def finer_timestamps(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
) -> dict[str, int]:
    """Partition -> timestamp values (non-zero counts) in the columns ``mapping`` reads from
    its ORC and Parquet files that hold digits past a microsecond."""
    scans: dict[tuple[str, tuple[tuple[str, str], ...], str], list[tuple[str, str, str]]]
    scans = defaultdict(list)
    infos = {
        (p.name, f.path): f for p in inventory.partitions if p.name in partitions for f in p.files
    }
    for group in file_groups(inventory, mapping, partitions):
        if group.format not in ("orc", "parquet"):
            continue
        read = {
            group.physical[s.physical_index].name
            for s in group.sources
            if s.physical_index is not None
        }
        for path in group.files:
            info = infos[(group.partition, path)]
            asked = _asked(info, read)
            if asked:
                requested = tuple((name, str(kind)) for name, kind, _ in asked)
                counted = " + ".join(count for _, _, count in asked)
                full = f"{group.location.rstrip('/')}/{path}"
                scans[(group.format, requested, counted)].append(
                    (full, spark_file_path(group.location, path), group.partition)
                )
    found: dict[str, int] = {}
    for (file_format, requested, counted), files in scans.items():
        owner = {key: partition for _, key, partition in files}
        ddl = ", ".join(
            f"{quote(n)} {spark_type(parse_hive_type(t), physical=True)}" for n, t in requested
        )
        reader = spark.read.schema(ddl).format(file_format)
        if file_format == "parquet":  # only timestamps are counted: no calendar checks
            reader = reader.option("datetimeRebaseMode", "CORRECTED")
            reader = reader.option("int96RebaseMode", "CORRECTED")
        frame = (
            reader.load([glob_escaped(full) for full, _, _ in files])
            .selectExpr(f"{DECODED_FILE_PATH} AS file", f"{counted} AS n")
            .groupBy("file")
            .agg({"n": "sum"})
        )
        with session_settings(spark, _ROW_READER if file_format == "parquet" else {}):
            rows = frame.collect()
        for file, n in rows:
            partition = owner.get(file)
            if n and partition is not None:
                found[partition] = found.get(partition, 0) + int(n)
    return found


def _asked(info: FileInfo, read: set[str]) -> list[tuple[str, HiveType, str]]:
    """The columns of ``info`` to scan: name, the type Spark is asked for, and SQL counting one
    row's finer timestamps in it."""
    if info.error or info.format not in ("orc", "parquet"):
        return []
    scanned = {c.name: c.type for c in info.scanned}
    # INT96 columns that hold no INT64 timestamp too (one writer writes one kind)
    int96 = set(info.int96) - {name for name, _, _ in info.int64_timestamps}
    out = []
    for column in info.columns:
        if column.name not in read:
            continue
        stored = parse_hive_type(column.type)
        base = parse_hive_type(scanned.get(column.name, column.type))
        leaf = "seconds" if info.format == "orc" else "bytes" if column.name in int96 else None
        asked, count = _walk(quote(column.name), stored, base, leaf)
        if count is not None:
            out.append((column.name, asked, count))
    return out


def _walk(
    expr: str, stored: HiveType, base: HiveType, leaf: str | None, depth: int = 0
) -> tuple[HiveType, str | None]:
    """The type to ask for in place of ``base`` (the type the file is scanned as; ``stored``
    the Hive type it holds), and SQL counting the finer timestamps in one value ``expr`` of it
    (``None``: none can be). Lambda variables are named by depth, so that files of one schema
    share one query."""
    if stored.kind == "timestamp":
        if base.kind == "bigint":  # an INT64 nanosecond count
            return base, _counted(f"{expr} % 1000 != 0")
        if leaf == "seconds":
            return _SECONDS, _counted(f"{expr} % 0.000001 != 0")
        if leaf == "bytes":
            return _BYTES, _counted(f"{_nanos_of_day(expr)} % 1000 != 0")
        return base, None
    if stored.is_primitive or stored.kind == "uniontype":
        return base, None
    children = [
        _child(expr, stored.kind, name, s, b, leaf, depth)
        for (name, s), (_, b) in zip(stored.fields, base.fields)
    ]
    fields = tuple((name, asked) for (name, _), (asked, _) in zip(base.fields, children))
    counts = [count for _, count in children if count is not None]
    return HiveType(base.kind, base.params, fields), " + ".join(counts) if counts else None


def _child(
    expr: str, kind: str, name: str, stored: HiveType, base: HiveType, leaf: str | None, depth: int
) -> tuple[HiveType, str | None]:
    if kind == "struct":
        return _walk(f"{expr}.{quote(name)}", stored, base, leaf, depth)
    n = depth
    asked, count = _walk(f"stamp{n}", stored, base, leaf, depth + 1)
    if count is None:
        return asked, None
    items = {"array": expr, "map": f"map_keys({expr})"}[kind]
    if kind == "map" and name != "key":
        items = f"map_values({expr})"
    return asked, f"coalesce(aggregate({items}, 0, (found{n}, stamp{n}) -> found{n} + {count}), 0)"


def _counted(predicate: str) -> str:
    return f"CAST(coalesce({predicate}, false) AS INT)"


def _nanos_of_day(expr: str) -> str:
    """SQL: the nanoseconds of the day an ``INT96`` value's twelve bytes hold (its first eight,
    little-endian), as a number."""
    hexed = f"hex({expr})"
    big_endian = ", ".join(f"substr({hexed}, {2 * i + 1}, 2)" for i in reversed(range(8)))
    return f"CAST(conv(concat({big_endian}), 16, 10) AS BIGINT)"
