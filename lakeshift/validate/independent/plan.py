"""What the independent reader reads: per data file, where each table column comes from (pure).

Hive's rules, restated for the table's Hive semantics. Hive 2.1+ reads an ORC file straight
into the table's columns (schema evolution): by name, with ORC's case rule, or by position when
the writer named the columns ``_col0.._colN`` or positional evolution is forced; nested struct
fields by name. Otherwise (Hive 1.2; text and Parquet partitions) a partition is read with its
own columns: an ORC file's by position (Hive 1.2), a Parquet file's by name ignoring case, a
text file's fields in order; the partition's row then meets the table's columns by position: a
table column past the end of the partition's columns reads as NULL, even where a file holds it.
Partition values come from the metastore as text and are read as the key's type.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lakeshift.hive.partition_values import typed_value
from lakeshift.hive.semantics import DEFAULT_HIVE_VERSION
from lakeshift.hive.types import HiveType, names_asked, parse_hive_type
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo, TableInventory
from lakeshift.schema_map.model import FieldMapping

_POSITIONAL = re.compile(r"_col\d+")
TEXT_FILES = ("text", "sequence")  # lines of text, or SequenceFile values
DATA_FORMATS = ("orc", "parquet", *TEXT_FILES)


@dataclass(frozen=True)
class ColumnPlan:
    """One output column of one file: ``file_index`` is None when Hive shows NULL."""

    name: str
    file_index: int | None
    file_type: str | None
    partition_type: str | None
    table_type: str
    target_type: str


@dataclass(frozen=True)
class KeyPlan:
    name: str
    value: Any  # as the user's Hive shows the metastore's text (``typed_value``); None: NULL
    key_type: str
    target_type: str


@dataclass(frozen=True)
class FileTask:
    """One data file and how its rows become the target's rows."""

    partition: str
    path: str
    format: str
    file_columns: tuple[str, ...]  # names as written, to check the file still has them
    by_name: bool  # nested struct fields matched by name
    case_sensitive: bool
    columns: tuple[ColumnPlan, ...]
    keys: tuple[KeyPlan, ...]
    # A text file: its declared column types and its SerDe (and table) parameters.
    text_types: tuple[str, ...] = ()
    text_parameters: tuple[tuple[str, str], ...] = ()
    # An ORC file whose footer does not say "proleptic": Java readers count its days as hybrid.
    hybrid_days: bool = False
    hive3_converters: bool = True  # Hive 3.0+'s converters (booleans, dates, timestamps)
    orc_sql_dates: bool = True  # ORC reads strings as dates by java.sql (HiveSemantics)
    hive4_dates: bool = False  # text read as dates by Hive 4's rules (HiveSemantics)
    hive1_decimals: bool = False  # text read as decimals by Hive 1.2's rule (HiveSemantics)
    # numbers read as timestamps shown by the hybrid calendar (java.sql: calendar = "hive2")
    hybrid_instants: bool = False
    # calendar = "proleptic" (Apache Hive 3.1): day numbers shown as stored, also those ORC
    # 1.3-1.5's java.sql conversions count in the hybrid calendar
    stored_days: bool = False
    # An ORC file naming no writer zone: the zone Hive reads its timestamps in (its JVM's)
    time_zone: str | None = None
    # The zone Hive's JVMs run in where not UTC (conversions: hive.types.zone_rule)
    hive_zone: str | None = None
    hive_version: str = DEFAULT_HIVE_VERSION  # the user's Hive (INT96: int96_reading)


TargetType = Callable[[HiveType], HiveType]


def _zoneless(file: FileInfo) -> bool:
    """An ORC file naming no writer zone: pyarrow reads it in this host's zone, Hive in its
    JVM's (``zones.zoned`` reads it as Hive does, even where Hive runs in UTC)."""
    return file.format == "orc" and bool(file.zoneless)


def _positional(file: FileInfo) -> bool:
    return bool(file.columns) and all(_POSITIONAL.fullmatch(c.name) for c in file.columns)


def _find(columns: tuple[Column, ...], name: str, case_sensitive: bool) -> int | None:
    folded = name if case_sensitive else name.lower()
    matches = [
        i for i, c in enumerate(columns) if (c.name if case_sensitive else c.name.lower()) == folded
    ]
    return matches[0] if matches else None


def _columns(
    partition: PartitionInfo,
    file: FileInfo,
    by_name: bool,
    inventory: TableInventory,
    case_sensitive: bool,
    target_type: TargetType,
    into_table: bool,
) -> tuple[ColumnPlan, ...]:
    out = []
    for position, table_column in enumerate(inventory.columns):
        target = str(target_type(parse_hive_type(table_column.type)))
        if into_table:  # the table's own column reads the file; partition columns play no part
            declared = table_column
        elif position < len(partition.columns):
            declared = partition.columns[position]
            if file.format == "parquet":  # Hive's Parquet reader asks for the table's names
                asked = names_asked(
                    parse_hive_type(declared.type), parse_hive_type(table_column.type)
                )
                declared = Column(table_column.name, str(asked))
        else:
            out.append(ColumnPlan(table_column.name, None, None, None, table_column.type, target))
            continue
        if by_name:
            index = _find(file.columns, declared.name, case_sensitive)
        else:
            index = position if position < len(file.columns) else None
        out.append(
            ColumnPlan(
                table_column.name,
                index,
                None if index is None else file.columns[index].type,
                declared.type,
                table_column.type,
                target,
            )
        )
    return tuple(out)


def plan_files(
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    target_type: TargetType,
) -> list[FileTask]:
    """Every data file of the chosen migratable partitions (empty files hold no rows)."""
    wanted = set(partitions)
    tasks = []
    semantics = mapping.semantics
    for partition in inventory.partitions:
        if partition.name not in wanted or not partition.migratable:
            continue
        keys = tuple(
            KeyPlan(
                k.name,
                typed_value(v, k.type, semantics.version, semantics.jvm_zone),
                k.type,
                str(target_type(parse_hive_type(k.type))),
            )
            for k, v in zip(inventory.partition_keys, partition.values, strict=True)
        )
        for file in partition.files:
            if file.format not in DATA_FORMATS or not file.columns:
                continue
            into_table = semantics.schema_evolution and file.format == "orc"
            by_name = file.format == "parquet" or (
                into_table and not (_positional(file) or semantics.orc_positional)
            )
            case_sensitive = into_table and semantics.case_sensitive
            text = file.format in TEXT_FILES
            tasks.append(
                FileTask(
                    partition=partition.name,
                    path=f"{partition.location.rstrip('/')}/{file.path}",
                    format=file.format,
                    file_columns=tuple(c.name for c in file.columns),
                    by_name=by_name or into_table,
                    case_sensitive=case_sensitive,
                    columns=_columns(
                        partition, file, by_name, inventory, case_sensitive, target_type, into_table
                    ),
                    hive3_converters=semantics.hive3_converters,
                    orc_sql_dates=semantics.orc_sql_dates,
                    hive4_dates=semantics.hive4_dates,
                    hive1_decimals=semantics.hive1_decimals,
                    keys=keys,
                    text_types=tuple(c.type for c in file.columns) if text else (),
                    # Java readers count days as hybrid unless the footer says proleptic;
                    # Hive 2.x counts every file's days as hybrid.
                    hybrid_days=(file.format == "parquet" and mapping.calendar != "proleptic")
                    or (
                        file.format == "orc"
                        and mapping.calendar != "proleptic"
                        and (file.calendar != "proleptic" or mapping.calendar == "hive2")
                    ),
                    hybrid_instants=mapping.calendar == "hive2",
                    stored_days=mapping.calendar == "proleptic",
                    time_zone=semantics.time_zone
                    if file.format == "orc" and file.zoneless
                    else None,
                    hive_zone=semantics.jvm_zone,
                    hive_version=semantics.version,
                    text_parameters=tuple(
                        {**inventory.parameters, **partition.serde_parameters}.items()
                    )
                    if text
                    else (),
                )
            )
    return tasks
