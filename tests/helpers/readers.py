"""Both of lakeshift's readers of one Hive table, for tests that hold them against Hive."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lakeshift.config import Settings
from lakeshift.formats.iceberg import iceberg_hive_type
from lakeshift.hive.nulled import nulled_by_conversion
from lakeshift.hive.reader import read_partitions
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.validate.independent import independent_frame, independent_reading


def both_readers(
    spark: Any, client: MetastoreClient, table: str, settings: Settings
) -> dict[str, Any]:
    """The table's rows as the Spark reader (``spark``) and the independent reader
    (``independent``) read them under ``settings``' Hive semantics (DataFrames)."""
    inventory = inspect_table(client, table, settings)
    mapping = build_mapping(inventory, None, settings.hive)
    names = [p.name for p in inventory.partitions]
    return {
        "spark": read_partitions(spark, inventory, mapping),
        "independent": independent_frame(spark, inventory, mapping, names, iceberg_hive_type),
    }


def finer_counts(
    spark: Any, client: MetastoreClient, table: str, settings: Settings
) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """The timestamp values each validation level counts as finer than a microsecond: the
    checksum level's scan per partition and column, the independent reader's per partition."""
    inventory = inspect_table(client, table, settings)
    mapping = build_mapping(inventory, None, settings.hive)
    names = [p.name for p in inventory.partitions]
    _, _, by_column = nulled_by_conversion(spark, inventory, mapping, names)
    reading = independent_reading(spark, inventory, mapping, names, iceberg_hive_type)
    return by_column, reading.finer


def by_partition(
    rows: list[Any], columns: list[str], shown: Callable[[str, Any], Any] | None = None
) -> dict[str, dict[str, list[Any]]]:
    """Per partition (``dt``), each column's values in ``rid`` order, as ``shown(column,
    value)`` gives them (columns all NULL in a partition left out): the rows of a reader, a
    lake table or a Hive query side by side."""
    out: dict[str, dict[str, list[Any]]] = {}
    for row in sorted(rows, key=lambda r: (r["dt"], r["rid"])):
        values = out.setdefault(row["dt"], {c: [] for c in columns})
        for column in columns:
            value = row[column]
            values[column].append(shown(column, value) if shown else value)
    return {
        dt: {c: v for c, v in values.items() if any(x is not None for x in v)}
        for dt, values in out.items()
    }
