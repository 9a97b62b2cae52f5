"""The Hive-faithful reader: partitions as Hive users see them, as one Spark DataFrame.

Each file group (one partition, one physical schema) is read with its full physical schema,
projected onto the table's columns with Hive's conversions, given its partition values from the
metastore as typed literals (NULL partition included), and the groups are unioned.
``spark.table(hive_table)`` is never used: Spark's Hive path does not apply these rules.
"""

from __future__ import annotations

from functools import reduce
from typing import TYPE_CHECKING

from lakeshift.inspect.model import TableInventory
from lakeshift.schema_map.hive_types import parse_hive_type
from lakeshift.schema_map.model import FieldMapping
from lakeshift.schema_map.projection import FileGroup, file_groups
from lakeshift.schema_map.spark_sql import convert, quote, spark_type, string_literal

SOURCE_FILE = "__lakeshift_source_file"

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def output_schema_ddl(inventory: TableInventory) -> str:
    """Spark DDL of what the reader returns: table columns, then partition keys."""
    columns = [*inventory.columns, *inventory.partition_keys]
    return ", ".join(f"{quote(c.name)} {spark_type(parse_hive_type(c.type))}" for c in columns)


def group_select_exprs(
    group: FileGroup, inventory: TableInventory, mapping: FieldMapping
) -> list[str]:
    """The SELECT list that turns a group's physical rows into Hive's view of them."""
    exprs = []
    for source, table_column in zip(group.sources, inventory.columns):
        table_type = parse_hive_type(source.table_type)
        where = f"{inventory.qualified_name} partition {group.partition} column {source.target}"
        if source.physical_index is None or source.partition_type is None:
            exprs.append(f"CAST(NULL AS {spark_type(table_type)}) AS {quote(table_column.name)}")
            continue
        physical = group.physical[source.physical_index]
        partition_type = parse_hive_type(source.partition_type)
        as_partition = convert(
            quote(physical.name),
            parse_hive_type(physical.type),
            partition_type,
            by_name=not group.by_position,
            case_sensitive=mapping.case_sensitive,
            src_physical=True,
            where=where,
        )
        as_table = convert(as_partition, partition_type, table_type, by_name=False, where=where)
        exprs.append(f"{as_table} AS {quote(table_column.name)}")
    for key, value in zip(inventory.partition_keys, group.values):
        literal = "NULL" if value is None else string_literal(value)
        key_type = spark_type(parse_hive_type(key.type))
        exprs.append(f"CAST({literal} AS {key_type}) AS {quote(key.name)}")
    return exprs


def read_group(
    spark: SparkSession,
    group: FileGroup,
    inventory: TableInventory,
    mapping: FieldMapping,
    with_file_path: bool = False,
) -> DataFrame:
    physical_ddl = ", ".join(
        f"{quote(c.name)} {spark_type(parse_hive_type(c.type), physical=True)}"
        for c in group.physical
    )
    frame = spark.read.schema(physical_ddl).format(group.format).load(group.paths)
    exprs = group_select_exprs(group, inventory, mapping)
    if with_file_path:
        exprs.append(f"_metadata.file_path AS {quote(SOURCE_FILE)}")
    return frame.selectExpr(*exprs)


def read_partitions(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str] | None = None,
    *,
    with_file_path: bool = False,
) -> DataFrame:
    """Rows of ``partitions`` (default: all) exactly as Hive users see them.

    ``with_file_path`` adds each row's source file (for deterministic record keys).
    """
    frames = [
        read_group(spark, g, inventory, mapping, with_file_path)
        for g in file_groups(inventory, mapping, partitions)
    ]
    if not frames:
        ddl = output_schema_ddl(inventory)
        if with_file_path:
            ddl += f", {quote(SOURCE_FILE)} STRING"
        return spark.createDataFrame([], ddl)
    return reduce(lambda a, b: a.unionByName(b), frames)
