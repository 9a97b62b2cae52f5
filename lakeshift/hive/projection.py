"""How each group of files (one partition, one physical schema) maps onto the target (pure).

Which rule applies is the table's Hive semantics (``hive.semantics``):

- **Model B** (ORC partitions, Hive 2.1+): the file is read straight into the **table's**
  columns; a table column is the file column of the same name (case-sensitively unless
  configured otherwise) or, for ``_colN`` files and ``orc.force.positional.evolution``, of the
  same position; the partition's declared columns play no part. ORC's conversions apply.
- **Model A** (Hive 1.2; text and Parquet partitions in every version): the partition's own
  columns read the file (an ORC file by position in Hive 1.2, a Parquet file by name, a text
  file's fields in order), then the row is converted to the table's columns **by position**. A
  table column past the end of the partition's columns reads as NULL, even where a file holds it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from lakeshift.errors import RefusedInput
from lakeshift.hive.semantics import (
    DEFAULT_HIVE_VERSION,
    HiveSemantics,
    Int96Reading,
    int96_reading,
)
from lakeshift.hive.types import names_asked, parse_hive_type
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo, TableInventory
from lakeshift.schema_map.model import FieldMapping
from lakeshift.text.layout import TEXT_FORMATS, TextLayout


@dataclass(frozen=True)
class ColumnSource:
    """Where one target column of a file group comes from.

    ``physical_index`` is ``None`` when Hive shows NULL for the column in this group. Under
    model B ``partition_type`` is the table's type: the file is converted straight to it.
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
    # calendar = "proleptic": an ORC file without a calendar field holds proleptic days too
    days_as_written: bool = False
    julian_text: bool = False  # see julian_text()
    into_table: bool = False  # model B: read straight into the table's columns
    case_sensitive: bool = False  # how names are matched (top level and nested)
    hive3_converters: bool = True  # see HiveSemantics.hive3_converters
    orc_sql_dates: bool = True  # see HiveSemantics.orc_sql_dates
    hive4_dates: bool = False  # see HiveSemantics.hive4_dates
    hive1_decimals: bool = False  # see HiveSemantics.hive1_decimals
    # Numbers read as timestamps are shown by the hybrid calendar (calendar = "hive2")
    hybrid_instants: bool = False
    # ORC files naming no writer zone, whose timestamps Hive reads in its JVM's zone: that
    # zone (not UTC), where lakeshift's UTC readers read them otherwise (see file_zone())
    time_zone: str | None = None
    # The zone Hive's JVMs run in where not UTC: its conversions between timestamps and
    # numbers, text and dates take instants there (hive.types.zone_rule)
    hive_zone: str | None = None
    # Parquet files whose INT96 columns hold UTC instants Hive shows in a zone (not UTC):
    # how and those columns (hive.semantics.int96_reading)
    int96: Int96Reading | None = None
    int96_columns: tuple[str, ...] = ()
    # Parquet columns of INT64 timestamps adjusted to UTC, shown in ``hive_zone`` (Hive 4:
    # ``utc_columns``)
    utc_columns: tuple[str, ...] = ()
    # Parquet columns Spark scans as another type (``FileInfo.scanned``: unsigned integers
    # wide enough for their values, nanosecond timestamps as numbers), taken back to Hive's
    # values after the scan (``spark_sql.scanned_sql``)
    scanned: tuple[Column, ...] = ()
    # the user's Hive (how its Parquet reader builds values: parquet_reading.built)
    hive_version: str = DEFAULT_HIVE_VERSION

    @property
    def nested_by_name(self) -> bool:
        """Struct fields inside a column are matched by name (``nested_by_name``)."""
        return nested_by_name(self.format, self.into_table)

    @property
    def paths(self) -> list[str]:
        base = self.location.rstrip("/")
        return [f"{base}/{f}" for f in self.files]


READABLE_FORMATS = ("orc", "parquet", *TEXT_FORMATS)


def nested_by_name(file_format: str, into_table: bool) -> bool:
    """Whether struct fields inside a column are matched by name: ORC's schema evolution
    (``into_table``) matches positionally at the top level only, Parquet always by name;
    Hive 1.2's ORC and text readers go by position at every depth."""
    return into_table or file_format == "parquet"


def by_position(file: FileInfo, semantics: HiveSemantics) -> bool:
    """Whether a file's top-level columns are matched by position (``reads_by_position``)."""
    return reads_by_position(file.format, file.positional, semantics)


def reads_by_position(file_format: str, positional_names: bool, semantics: HiveSemantics) -> bool:
    """Whether a file's top-level columns are matched by position: a text file's fields are
    the partition's columns in order; Hive 1.2 reads ORC files by position; ORC's schema
    evolution does for ``_colN`` files (old writers: ``positional_names``) and when forced;
    Parquet never."""
    if file_format in TEXT_FORMATS:
        return True
    if file_format != "orc":
        return False
    if not semantics.reads_into_table(file_format):
        return True
    return positional_names or semantics.orc_positional


def name_match_is_case_sensitive(file_format: str, semantics: HiveSemantics) -> bool:
    """ORC's schema evolution honours ``orc.schema.evolution.case.sensitive``; Hive's Parquet
    reader always ignores case."""
    return semantics.case_sensitive and semantics.reads_into_table(file_format)


def file_zone(file: FileInfo, semantics: HiveSemantics) -> str | None:
    """The zone Hive reads a file's timestamps in, where lakeshift's readers (in UTC) would
    read them otherwise: an ORC file naming no writer zone (writers before Hive 1.0), which
    every ORC reader takes as written in its own JVM's zone (``TimestampTreeReader``), read
    by a Hive whose JVMs are not in UTC."""
    if file.format != "orc" or not file.zoneless or semantics.time_zone == "UTC":
        return None
    return semantics.time_zone


def utc_columns(file: FileInfo, semantics: HiveSemantics) -> tuple[str, ...]:
    """A Parquet file's columns of ``INT64`` timestamps adjusted to UTC, which Hive 4 shows as
    the wall clock of its JVM's zone (``ParquetTimestampUtils.getTimestamp``: java.time's
    ``LocalDateTime.ofInstant``), where that zone is not UTC; earlier versions refuse them."""
    if file.format != "parquet" or semantics.version != "4" or not semantics.jvm_zone:
        return ()
    return tuple(name for name, _, utc in file.int64_timestamps if utc)


def parquet_zone(
    file: FileInfo, semantics: HiveSemantics
) -> tuple[Int96Reading | None, tuple[str, ...]]:
    """How Hive shows a Parquet file's INT96 timestamps (in a zone not UTC) and the columns
    holding them, or ``(None, ())`` (``hive.semantics.int96_reading``)."""
    if file.format != "parquet" or not file.int96:
        return None, ()
    reading = int96_reading(
        semantics.jvm_zone, semantics.version, file.writer, file.writer_zone, file.zone_legacy
    )
    return (reading, file.int96) if reading else (None, ())


def hybrid_labels(file: FileInfo, mapping: FieldMapping) -> bool:
    """Whether the reader must show a file's early dates as Hive 2.x does although Spark (like
    Hive 4) reads them by the file's proleptic calendar: Hive 2.x counts every file's days in
    the hybrid calendar."""
    return mapping.calendar == "hive2" and file.format == "orc" and file.calendar == "proleptic"


def proleptic_text(file: FileInfo, mapping: FieldMapping) -> bool:
    """Whether the reader must take a file's dates and timestamps as the text ORC formats them:
    Spark reads an ORC file marked proleptic through the hybrid calendar, which has no
    1582-10-05..14 (they read ten days later), while ORC's own date-to-text conversion, asked
    for the proleptic calendar, gives every day as written. With ``calendar = "proleptic"``
    (Apache Hive 3.1, which shows every ORC file's day numbers as stored) files without a
    calendar field are read so too, ORC told they are proleptic. Only files whose statistics
    show a value before 1582-10-15 (or show nothing) pay for it."""
    as_written = file.calendar == "proleptic" or (
        mapping.calendar == "proleptic" and file.calendar != "hybrid"
    )
    return file.format == "orc" and as_written and file.pre_gregorian is not False


def julian_text(file: FileInfo, mapping: FieldMapping) -> bool:
    """Whether the reader must take a file's dates and timestamps as the text ORC formats them
    in the hybrid calendar and count the labels back to the days stored: under ``calendar =
    "proleptic"`` (Apache Hive 3.1, whose ORC 1.5 ignores the field) for a file whose footer
    says hybrid, which ORC 1.6+ and Spark would otherwise show by their labels."""
    return (
        mapping.calendar == "proleptic"
        and file.format == "orc"
        and file.calendar == "hybrid"
        and file.pre_gregorian is not False
    )


def find_column(physical: Sequence[Column], name: str, case_sensitive: bool) -> int | None:
    """The index of the file column named ``name`` (ignoring letter case unless
    ``case_sensitive``), or ``None``."""
    wanted = name if case_sensitive else name.lower()
    for index, column in enumerate(physical):
        if (column.name if case_sensitive else column.name.lower()) == wanted:
            return index
    return None


def column_pairs(
    declared: Sequence[Column],
    physical: Sequence[Column],
    positional: bool,
    table_columns: Sequence[Column],
    *,
    into_table: bool = False,
    case_sensitive: bool = False,
    table_names: bool = False,
) -> list[tuple[int | None, Column | None]]:
    """Per table column, the index of the file column Hive reads it from (None: NULL) and the
    column that reads it: the table's under model B (``into_table``), else the partition's
    (``declared``) at the same position (None past the partition's columns). ``table_names``
    (Parquet files, ``asks_table_names``): the file column is found by the table's name, and
    struct fields inside by the table's (``hive.types.names_asked``), read as the partition
    declares."""
    out: list[tuple[int | None, Column | None]] = []
    for position, table_column in enumerate(table_columns):
        if into_table:
            wanted = table_column
        elif position < len(declared):
            wanted = declared[position]
            if table_names:
                wanted = asked(wanted, table_column)
        else:
            out.append((None, None))
            continue
        if positional:
            index = position if position < len(physical) else None
        else:
            index = find_column(physical, wanted.name, case_sensitive)
        out.append((index, wanted))
    return out


def asked(declared: Column, table_column: Column) -> Column:
    """The partition's ``declared`` column as Hive's Parquet reader asks a file for it: by
    the table's name, struct fields inside by the table's (``hive.types.names_asked``)."""
    return Column(table_column.name, _names_asked(declared.type, table_column.type))


@lru_cache(maxsize=4096)
def _names_asked(declared: str, table: str) -> str:
    try:
        return str(names_asked(parse_hive_type(declared), parse_hive_type(table)))
    except RefusedInput:  # refused where the partition is read
        return declared


def asks_table_names(file_format: str) -> bool:
    """Whether Hive finds a file's columns by the table's names while reading them as the
    partition declares them: its Parquet reader does, in every version read (2.2, 2.3, 3.1,
    4; checked against Hive 2.3.9)."""
    return file_format == "parquet"


def project(
    partition: PartitionInfo,
    physical: tuple[Column, ...],
    positional: bool,
    table_columns: tuple[Column, ...],
    mapping: FieldMapping,
    *,
    into_table: bool = False,
    case_sensitive: bool = False,
    table_names: bool = False,
) -> tuple[ColumnSource, ...]:
    """The source of every target data column for files with this physical schema
    (``into_table``: model B, the table's columns read the file directly; ``table_names``:
    see ``column_pairs``)."""
    pairs = column_pairs(
        partition.columns,
        physical,
        positional,
        table_columns,
        into_table=into_table,
        case_sensitive=case_sensitive,
        table_names=table_names,
    )
    return tuple(
        ColumnSource(
            target.name, target.id, index, wanted.type if wanted else None, table_column.type
        )
        for (index, wanted), table_column, target in zip(pairs, table_columns, mapping.columns)
    )


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
        by_schema: dict[
            tuple[
                str, tuple[Column, ...], bool, bool, bool, bool, str | None,
                Int96Reading | None, tuple[str, ...], tuple[Column, ...], tuple[str, ...],
            ],
            list[str],
        ]  # fmt: skip
        by_schema = defaultdict(list)
        semantics = mapping.semantics
        for file in partition.files:
            if file.format not in READABLE_FORMATS or not file.columns:
                continue
            positional = by_position(file, semantics)
            relabel = hybrid_labels(file, mapping)
            as_text = proleptic_text(file, mapping)
            key = (
                file.format,
                file.columns,
                positional,
                relabel,
                as_text,
                julian_text(file, mapping),
                file_zone(file, semantics),
                *parquet_zone(file, semantics),
                file.scanned,
                utc_columns(file, semantics),
            )
            by_schema[key].append(file.path)
        for key, paths in by_schema.items():
            fmt, physical, positional, relabel, as_text, julian, zone = key[:7]
            int96, instants, scanned, in_utc = key[7:]
            into_table = semantics.reads_into_table(fmt)
            sensitive = name_match_is_case_sensitive(fmt, semantics)
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
                    by_position=positional,
                    files=tuple(paths),
                    sources=project(
                        partition,
                        physical,
                        positional,
                        inventory.columns,
                        mapping,
                        into_table=into_table,
                        case_sensitive=sensitive,
                        table_names=asks_table_names(fmt),
                    ),
                    text_layout=layout,
                    hybrid_labels=relabel,
                    proleptic_text=as_text,
                    days_as_written=mapping.calendar == "proleptic",
                    julian_text=julian,
                    into_table=into_table,
                    case_sensitive=sensitive,
                    hive3_converters=semantics.hive3_converters,
                    orc_sql_dates=semantics.orc_sql_dates,
                    hive4_dates=semantics.hive4_dates,
                    hive1_decimals=semantics.hive1_decimals,
                    hybrid_instants=mapping.calendar == "hive2",
                    time_zone=zone,
                    hive_zone=semantics.jvm_zone,
                    int96=int96,
                    int96_columns=instants,
                    scanned=scanned,
                    utc_columns=in_utc,
                    hive_version=semantics.version,
                )
            )
    return groups
