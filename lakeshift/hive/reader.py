"""The Hive-faithful reader: partitions as Hive users see them, as one Spark DataFrame.

Each file group (one partition, one physical schema) is read with its full physical schema,
projected onto the table's columns with Hive's conversions, given its partition values from the
metastore as typed literals (NULL partition included), and the groups are unioned.
``spark.table(hive_table)`` is never used: Spark's Hive path does not apply these rules.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import reduce
from typing import TYPE_CHECKING, Any

from lakeshift.hive.calendar_sql import hybrid_text_as_stored
from lakeshift.hive.parquet_reading import built_type, unsigned_nulls
from lakeshift.hive.partition_values import typed_value
from lakeshift.hive.projection import FileGroup, file_groups
from lakeshift.hive.spark_sql import (
    convert,
    java_maps,
    nested_sql,
    parquet_built,
    quote,
    scanned_sql,
    spark_type,
    zoned_instants,
    zoned_read,
)
from lakeshift.hive.types import (
    HiveType,
    counts_instants,
    holds_instant,
    parse_hive_type,
    second_step,
)
from lakeshift.inspect.model import Column, TableInventory
from lakeshift.schema_map.model import FieldMapping
from lakeshift.text.fields import text_type
from lakeshift.text.scan import text_frame

SOURCE_FILE = "__lakeshift_source_file"
FILE_KEY = "__lakeshift_file"
PARTITION_COLUMN = "partitionpath"
#: SQL: the path of a row's file, as ``spark_file_path`` spells it. Spark reports it
#: URI-encoded; ``url_decode`` decodes forms, where '+' means a space, but a path keeps '+'
#: literally (a partition value '+12' is the directory 'k=+12'), so '+' is protected first.
DECODED_FILE_PATH = "url_decode(replace(_metadata.file_path, '+', '%2B'))"

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def output_schema_ddl(inventory: TableInventory) -> str:
    """Spark DDL of what the reader returns: table columns, then partition keys."""
    columns = [*inventory.columns, *inventory.partition_keys]
    return ", ".join(f"{quote(c.name)} {spark_type(parse_hive_type(c.type))}" for c in columns)


def column_conversions(
    group: FileGroup, inventory: TableInventory, mapping: FieldMapping
) -> list[tuple[str, str | None, str]]:
    """Per table column of a group: (name, physical column expression or ``None`` when Hive
    shows NULL, the expression converting it as Hive does)."""
    return [(n, p, t) for n, p, _, t in column_steps(group, inventory, mapping)]


def first_step(group: FileGroup, table_type: HiveType, instant: bool = False) -> dict[str, Any]:
    """``convert``'s options reading a group's file column as the partition's declared type
    (the first of Hive's two steps) for a column the table declares ``table_type``
    (``instant``: the value stays an instant for the second step, ``holds_instant``)."""
    return {
        "by_name": group.nested_by_name,
        "case_sensitive": group.case_sensitive,
        "src_physical": True,
        "orc_file": group.format == "orc",
        "text_file": group.text_layout is not None,
        "hybrid_labels": group.hybrid_labels,
        "hive3_converters": group.hive3_converters,
        "orc_sql_dates": group.orc_sql_dates,
        "hive4_dates": group.hive4_dates,
        "hive1_decimals": group.hive1_decimals,
        "hybrid_instants": group.hybrid_instants and not counts_instants(table_type),
        "stored_days": group.days_as_written,
        # ORC 1.3-1.5 count a timestamp's seconds from the file's own instant, which is the
        # hybrid instant of the wall clock shown for a hybrid file (or under hive2, for any)
        "hybrid_seconds": group.format == "orc"
        and group.orc_sql_dates
        and (group.hybrid_instants or not group.proleptic_text)
        and not group.julian_text,
        "zone": None if instant else group.hive_zone,
    }


def column_steps(
    group: FileGroup, inventory: TableInventory, mapping: FieldMapping
) -> list[tuple[str, str | None, str | None, str]]:
    """``column_conversions`` with the step between: (name, physical column expression or
    ``None``, the expression reading it as the partition's declared type or ``None``, the
    expression converting that to the table's type as Hive does)."""
    out: list[tuple[str, str | None, str | None, str]] = []
    for source, table_column in zip(group.sources, inventory.columns):
        table_type = parse_hive_type(source.table_type)
        where = f"{inventory.qualified_name} partition {group.partition} column {source.target}"
        if source.physical_index is None or source.partition_type is None:
            null = f"CAST(NULL AS {spark_type(table_type)})"
            out.append((table_column.name, None, None, null))
            continue
        physical = group.physical[source.physical_index]
        partition_type = parse_hive_type(source.partition_type)
        file_type = physical_type(group, physical)
        scanned = quote(physical.name)
        if group.format == "parquet":  # as Hive's Parquet reader builds it for the table
            scanned = parquet_built(scanned, file_type, table_type, group.hive_version)
            file_type = built_type(file_type, table_type, group.hive_version)
        instant = holds_instant(file_type, partition_type, table_type)
        as_partition = convert(
            scanned,
            file_type,
            partition_type,
            where=where,
            **first_step(group, table_type, instant),
        )
        as_table = convert(
            as_partition, partition_type, table_type, where=where, **second_step(group, instant)
        )
        out.append((table_column.name, quote(physical.name), as_partition, as_table))
    return out


def physical_type(group: FileGroup, column: Column) -> HiveType:
    """The type the scan gives a file column (a text file gives text; see ``text_type``)."""
    declared = parse_hive_type(column.type)
    return text_type(declared) if group.text_layout is not None else declared


def group_select_exprs(
    group: FileGroup, inventory: TableInventory, mapping: FieldMapping
) -> list[str]:
    """The SELECT list that turns a group's physical rows into Hive's view of the table columns."""
    return [
        f"{expr} AS {quote(name)}"
        for name, _, expr in column_conversions(group, inventory, mapping)
    ]


def glob_escaped(path: str) -> str:
    """Spark globs paths; a literal ``{``, ``[``, ``*``... must be escaped for Hadoop's glob."""
    return re.sub(r"([{}\[\]*?\\])", r"\\\1", path)


def spark_file_path(location: str, relative: str) -> str:
    """A file's path as Spark reports it in ``DECODED_FILE_PATH``."""
    base = location.rstrip("/")
    scheme, sep, rest = base.partition(":")
    if not sep or len(scheme) == 1 or scheme.lower() == "file":
        path = rest if sep else base
        return "file:/" + path.lstrip("/") + "/" + relative
    return f"{base}/{relative}"


def signature(group: FileGroup) -> tuple[object, ...]:
    """Groups with one signature are read in one scan with one projection."""
    return (
        group.format,
        group.physical,
        group.by_position,
        group.sources,
        group.text_layout,
        group.hybrid_labels,
        group.proleptic_text,
        group.days_as_written,
        group.julian_text,
        group.into_table,
        group.case_sensitive,
        group.hive3_converters,
        group.orc_sql_dates,
        group.hive4_dates,
        group.hive1_decimals,
        group.hybrid_instants,
        group.time_zone,
        group.hive_zone,
        group.int96,
        group.int96_columns,
        group.scanned,
        group.utc_columns,
        group.hive_version,
    )


def scan_groups(spark: SparkSession, groups: list[FileGroup]) -> DataFrame:
    """The physical rows of the files of groups sharing one projection, with each row's file
    in ``FILE_KEY`` (as :func:`spark_file_path` spells it)."""
    first = groups[0]
    if first.text_layout is not None:
        files = [
            (f"{g.location.rstrip('/')}/{f}", spark_file_path(g.location, f))
            for g in groups
            for f in g.files
        ]
        return text_frame(spark, files, first.text_layout, first.physical, FILE_KEY)
    types = [parse_hive_type(c.type) for c in first.physical]
    as_text = first.proleptic_text or first.julian_text
    scanned = [_dates_as_text(t) if as_text else t for t in types]
    # Parquet columns Spark scans as another type (unsigned integers, nanosecond timestamps)
    scanned_as = {c.name: parse_hive_type(c.type) for c in first.scanned}
    physical_ddl = ", ".join(
        f"{quote(c.name)} {spark_type(scanned_as.get(c.name, t), physical=True)}"
        for c, t in zip(first.physical, scanned)
    )
    paths = [glob_escaped(p) for g in groups for p in g.paths]
    reader = spark.read.schema(physical_ddl).format(first.format)
    if first.format == "parquet":
        # Hive (2.x, and 4 by default) counts a Parquet file's days as hybrid unless the file
        # says otherwise, as Spark's LEGACY mode does for files it did not write, and shows an
        # INT96 value by its Julian day's label (NanoTimeUtils: jodd's Julian-calendar fields
        # set into a hybrid or, in Hive 4, proleptic GMT calendar). Apache Hive 3.1 takes a
        # DATE's days as stored (ETypeConverter: new DateWritableV2(days)) and shows an INT96
        # value's instant (the hybrid calendar's millis as a proleptic LocalDateTime): both as
        # Spark's CORRECTED mode reads them.
        mode = "CORRECTED" if first.days_as_written else "LEGACY"
        reader = reader.option("datetimeRebaseMode", mode).option("int96RebaseMode", mode)
    if first.proleptic_text:
        # ORC's schema evolution formats each date and timestamp as text in the calendar asked
        # for: the proleptic one, the file's. Cast back, they are the days as written.
        reader = reader.option("orc.proleptic.gregorian", "true")
        if first.days_as_written:  # files without a calendar field: proleptic too (Hive 3.1)
            reader = reader.option("orc.proleptic.gregorian.default", "true")
    if first.julian_text:
        # a footer saying hybrid: the labels ORC formats in that calendar, counted back to the
        # days stored (Apache Hive 3.1 shows those)
        reader = reader.option("orc.proleptic.gregorian", "false")
    scan = reader.load(paths)
    columns = []
    for c, t, read in zip(first.physical, types, scanned):
        expr = quote(c.name)
        if c.name in scanned_as:  # as Hive reads them (unsigned: signed, or NULL from 3.1)
            expr = scanned_sql(expr, t, scanned_as[c.name], unsigned_nulls(first.hive_version))
        expr = java_maps(expr, read)  # Hive's Java maps: a repeated key's last entry
        if t != read:
            expr = _from_text(expr, t, first.julian_text)
        if first.time_zone:  # a file naming no writer zone, read as Hive's JVM zone reads it
            expr = zoned_read(expr, t, first.time_zone)
        if first.int96 and c.name in first.int96_columns:  # UTC instants Hive shows in a zone
            expr = zoned_instants(expr, t, first.int96.zone, first.int96.java_util)
        if first.hive_zone and c.name in first.utc_columns:  # Hive 4's INT64 UTC instants
            expr = zoned_instants(expr, t, first.hive_zone, java_util=False)
        columns.append(expr if expr == quote(c.name) else f"{expr} AS {quote(c.name)}")
    return scan.selectExpr(*columns, f"{DECODED_FILE_PATH} AS {quote(FILE_KEY)}")


def _from_text(expr: str, hive: HiveType, julian: bool) -> str:
    """SQL reading back ``expr``, a ``hive`` value whose dates and timestamps were read as text
    (``_dates_as_text``): cast, or for ``julian`` text counted back to its stored days."""
    if not julian:
        return f"CAST({expr} AS {spark_type(hive, physical=True)})"
    if hive.kind in ("date", "timestamp"):
        return hybrid_text_as_stored(expr, hive.kind)
    if hive.kind in ("struct", "array", "map"):
        return nested_sql(expr, hive, lambda e, kind: _from_text(e, kind, julian))
    return expr


def _dates_as_text(hive: HiveType) -> HiveType:
    """``hive`` with every date and timestamp, at any depth, read as a string."""
    if hive.kind in ("date", "timestamp"):
        return HiveType("string")
    if hive.fields:
        return replace(hive, fields=tuple((n, _dates_as_text(t)) for n, t in hive.fields))
    return hive


def _read_signature(
    spark: SparkSession,
    groups: list[FileGroup],
    inventory: TableInventory,
    mapping: FieldMapping,
    with_file_path: bool,
) -> DataFrame:
    """One scan for every file of groups that share a projection; partition values joined in
    by file path (a row whose file is not matched fails the job: nothing can go missing)."""
    from pyspark.sql import functions as F

    first = groups[0]
    projected = scan_groups(spark, groups).selectExpr(
        *group_select_exprs(first, inventory, mapping), quote(FILE_KEY)
    )
    keys = list(inventory.partition_keys)
    files: list[tuple[object, ...]] = []
    zone = mapping.semantics.jvm_zone
    for group in groups:
        # Key values as the user's Hive shows the metastore's text (Java's parsers, not CAST).
        typed = [
            typed_value(v, k.type, mapping.hive_version, zone) for v, k in zip(group.values, keys)
        ]
        files.extend(
            (spark_file_path(group.location, f), group.partition, *typed) for f in group.files
        )
    key_ddl = "".join(f", {quote(k.name)} {spark_type(parse_hive_type(k.type))}" for k in keys)
    lookup = spark.createDataFrame(
        files, f"{quote(FILE_KEY)} STRING, {PARTITION_COLUMN} STRING" + key_ddl
    )
    joined = projected.join(F.broadcast(lookup), on=FILE_KEY, how="left")
    guard = F.expr(
        f"CASE WHEN {PARTITION_COLUMN} IS NULL THEN raise_error(concat("
        f"'lakeshift: file not matched to a partition: ', {quote(FILE_KEY)})) "
        f"ELSE {PARTITION_COLUMN} END"
    )
    joined = joined.withColumn(PARTITION_COLUMN, guard)
    columns = [quote(c.name) for c in (*inventory.columns, *keys)] + [PARTITION_COLUMN]
    if with_file_path:
        columns.append(f"{quote(FILE_KEY)} AS {quote(SOURCE_FILE)}")
    return joined.selectExpr(*columns)


def read_batch(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str] | None = None,
    *,
    with_file_path: bool = False,
) -> DataFrame:
    """Rows of ``partitions`` as Hive shows them, plus ``partitionpath`` (the partition name).

    Files of all chosen partitions that share a projection are read in one scan, so a batch of
    thousands of small partitions is a handful of scans, not thousands of plan branches.
    """
    by_signature: dict[tuple[object, ...], list[FileGroup]] = {}
    for group in file_groups(inventory, mapping, partitions):
        by_signature.setdefault(signature(group), []).append(group)
    frames = [
        _read_signature(spark, groups, inventory, mapping, with_file_path)
        for groups in by_signature.values()
    ]
    if not frames:
        ddl = f"{output_schema_ddl(inventory)}, {PARTITION_COLUMN} STRING"
        if with_file_path:
            ddl += f", {quote(SOURCE_FILE)} STRING"
        return spark.createDataFrame([], ddl)
    return reduce(lambda a, b: a.unionByName(b), frames)


def read_partitions(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str] | None = None,
) -> DataFrame:
    """Rows of ``partitions`` (default: all) exactly as Hive users see them."""
    return read_batch(spark, inventory, mapping, partitions).drop(PARTITION_COLUMN)
