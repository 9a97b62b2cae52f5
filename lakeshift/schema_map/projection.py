"""How each group of files (one partition, one physical schema) maps onto the target (pure).

Hive reads a partition with the partition's own columns: ORC columns are found by name (or by
position for ``_colN`` files and in ``position`` mode) and converted to the partition's types;
the row is then converted to the table's columns **by position**. A table column past the end
of the partition's columns reads as NULL, even where a file holds it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from lakeshift.inspect.model import Column, FileInfo, PartitionInfo, TableInventory
from lakeshift.schema_map.model import FieldMapping
from lakeshift.text.layout import TEXT_FORMATS, TextLayout


@dataclass(frozen=True)
class ColumnSource:
    """Where one target column of a file group comes from.

    ``physical_index`` is ``None`` when Hive shows NULL for the column in this group.
    """

    target: str
    field_id: int
    physical_index: int | None
    partition_type: str | None
    table_type: str


@dataclass(frozen=True)
class FileGroup:
    """Files of one partition that share one physical schema, and their projection."""

    partition: str
    values: tuple[str | None, ...]
    location: str
    format: str  # orc, parquet, text or sequence
    physical: tuple[Column, ...]
    by_position: bool
    files: tuple[str, ...]  # relative to the partition location
    sources: tuple[ColumnSource, ...]
    text_layout: TextLayout | None = None  # how a text group's lines split into values
    hybrid_labels: bool = False  # see hybrid_labels()
    proleptic_text: bool = False  # see proleptic_text()

    @property
    def paths(self) -> list[str]:
        base = self.location.rstrip("/")
        return [f"{base}/{f}" for f in self.files]


READABLE_FORMATS = ("orc", "parquet", *TEXT_FORMATS)


def _by_position(file: FileInfo, mode: str) -> bool:
    """ORC files map by position when old writers named them _colN or the table says so;
    a text file's fields are the partition's columns in order."""
    if file.format in TEXT_FORMATS:
        return True
    return file.format == "orc" and (file.positional or mode == "position")


def hybrid_labels(file: FileInfo, mapping: FieldMapping) -> bool:
    """Whether the reader must show a file's early dates as Hive 2.x does although Spark (like
    Hive 3.1+) reads them by the file's proleptic calendar: Hive 2.x counts every file's days
    in the hybrid calendar."""
    return mapping.calendar == "hive2" and file.format == "orc" and file.calendar == "proleptic"


def proleptic_text(file: FileInfo) -> bool:
    """Whether the reader must take a file's dates and timestamps as the text ORC formats them:
    Spark reads an ORC file marked proleptic through the hybrid calendar, which has no
    1582-10-05..14 (they read ten days later), while ORC's own date-to-text conversion, asked
    for the proleptic calendar, gives every day as written. Only files whose statistics show
    a value before 1582-10-15 (or show nothing) pay for it."""
    return file.format == "orc" and file.calendar == "proleptic" and file.pre_gregorian is not False


def _find(physical: tuple[Column, ...], name: str, case_sensitive: bool) -> int | None:
    wanted = name if case_sensitive else name.lower()
    for index, column in enumerate(physical):
        if (column.name if case_sensitive else column.name.lower()) == wanted:
            return index
    return None


def project(
    partition: PartitionInfo,
    physical: tuple[Column, ...],
    by_position: bool,
    table_columns: tuple[Column, ...],
    mapping: FieldMapping,
) -> tuple[ColumnSource, ...]:
    """The source of every target data column for files with this physical schema."""
    sources = []
    for position, (table_column, target) in enumerate(zip(table_columns, mapping.columns)):
        if position >= len(partition.columns):
            sources.append(ColumnSource(target.name, target.id, None, None, table_column.type))
            continue
        declared = partition.columns[position]
        if by_position:
            index = position if position < len(physical) else None
        else:
            index = _find(physical, declared.name, mapping.case_sensitive)
        sources.append(
            ColumnSource(target.name, target.id, index, declared.type, table_column.type)
        )
    return tuple(sources)


def file_groups(
    inventory: TableInventory, mapping: FieldMapping, partitions: list[str] | None = None
) -> list[FileGroup]:
    """Every file group of the chosen (default: all migratable) partitions, in name order."""
    wanted = set(partitions) if partitions is not None else None
    groups: list[FileGroup] = []
    for partition in inventory.partitions:
        if wanted is not None and partition.name not in wanted:
            continue
        if not partition.migratable:
            continue
        by_schema: dict[tuple[str, tuple[Column, ...], bool, bool, bool], list[str]]
        by_schema = defaultdict(list)
        for file in partition.files:
            if file.format not in READABLE_FORMATS or not file.columns:
                continue
            by_position = _by_position(file, mapping.mapping_mode)
            relabel = hybrid_labels(file, mapping)
            key = (file.format, file.columns, by_position, relabel, proleptic_text(file))
            by_schema[key].append(file.path)
        for (fmt, physical, by_position, relabel, as_text), paths in by_schema.items():
            layout = (
                TextLayout.from_parameters(partition.serde_parameters, inventory.parameters, fmt)
                if fmt in TEXT_FORMATS
                else None
            )
            groups.append(
                FileGroup(
                    partition=partition.name,
                    values=partition.values,
                    location=partition.location,
                    format=fmt,
                    physical=physical,
                    by_position=by_position,
                    files=tuple(paths),
                    sources=project(partition, physical, by_position, inventory.columns, mapping),
                    text_layout=layout,
                    hybrid_labels=relabel,
                    proleptic_text=as_text,
                )
            )
    return groups
