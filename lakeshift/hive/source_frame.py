"""The source as the target will hold it: the Hive-faithful read cast to the target's types.

``migrate`` writes this frame and ``validate`` fingerprints it, so both see the same rows and
the same types; each target format says how it holds each Hive type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lakeshift.hive.reader import SOURCE_FILE, read_batch
from lakeshift.hive.spark_sql import quote, spark_type
from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.inspect.model import TableInventory
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN
from lakeshift.schema_map.model import FieldMapping

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

TargetType = Callable[[HiveType], HiveType]


def target_select(
    inventory: TableInventory, extra: list[str], target_type: TargetType
) -> list[str]:
    """SELECT list casting the reader's Hive-typed columns to the target's types."""
    exprs = []
    for column in (*inventory.columns, *inventory.partition_keys):
        hive = parse_hive_type(column.type)
        target = target_type(hive)
        name = quote(column.name)
        exprs.append(name if target == hive else f"CAST({name} AS {spark_type(target)}) AS {name}")
    return exprs + [quote(e) for e in extra]


def source_frame(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    target_type: TargetType,
    key_mode: str = "uuid",
) -> DataFrame:
    """Partitions as the target will hold them (with ``partitionpath``), before the key."""
    deterministic = key_mode == "deterministic"
    frame = read_batch(spark, inventory, mapping, partitions, with_file_path=deterministic)
    extra = [PARTITIONPATH_COLUMN, *([SOURCE_FILE] if deterministic else [])]
    return frame.selectExpr(*target_select(inventory, extra, target_type))
