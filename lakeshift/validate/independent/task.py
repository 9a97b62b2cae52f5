"""The executor side: read one data file with pyarrow and give its rows as the target holds
them, or their canonical fingerprint. Imports only pyarrow, numpy and this package's rules."""

from __future__ import annotations

from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as orc
import pyarrow.parquet as pq

from lakeshift.errors import CorruptFile, LakeshiftError, RefusedInput
from lakeshift.hive.parquet_reading import built_type, unsigned_nulls
from lakeshift.hive.semantics import int96_reading
from lakeshift.hive.types import (
    HiveType,
    Step,
    child_type,
    counts_instants,
    digits_counted,
    holds_instant,
    keys_may_merge,
    nested_leaves,
    parse_hive_type,
    second_step,
    text_counted,
)
from lakeshift.inspect.footers import (
    int64_timestamps,
    int96_columns,
    parquet_leaves,
    writer_zone,
    zone_legacy,
)
from lakeshift.storage import filesystem_for
from lakeshift.validate.canonical import Fingerprint
from lakeshift.validate.independent.arrow_hash import compact, fingerprint
from lakeshift.validate.independent.arrow_types import arrow_type
from lakeshift.validate.independent.calendar import has_dates, holds, hybrid_dates
from lakeshift.validate.independent.casts import number_finer
from lakeshift.validate.independent.convert import (
    convert,
    java_maps,
    kept_entries,
    leaf,
    repeat,
)
from lakeshift.validate.independent.int96 import int96_finer
from lakeshift.validate.independent.orc_wide import (
    beyond_nanoseconds,
    finer_in_wide_orc,
    read_orc_microseconds,
)
from lakeshift.validate.independent.parquet_values import built_values, hive_leaves
from lakeshift.validate.independent.plan import TEXT_FILES, ColumnPlan, FileTask
from lakeshift.validate.independent.text_read import read_text_file, text_file_type
from lakeshift.validate.independent.zones import (
    finer_than_micros,
    has_timestamps,
    int96_shown,
    zoned,
)

PARTITION_COLUMN = "partitionpath"


class TargetColumn(NamedTuple):
    """One output column: its values as the target holds them, the target's Hive type, and
    the file's values read as the partition's declared type (the first of Hive's two steps;
    ``None`` for a column the file lacks and for partition keys)."""

    name: str
    values: pa.Array
    hive: HiveType
    as_partition: pa.Array | None = None


def _read(task: FileTask) -> pa.Table:
    try:
        return _read_file(task)
    except LakeshiftError:
        raise
    except Exception as e:  # any reader error: this file cannot be read here, say which
        first = next((line for line in str(e).splitlines() if line.strip()), "")
        raise CorruptFile(
            f"{task.path}: the independent reader cannot read it ({type(e).__name__}: "
            f"{first[:300]}).",
            hint="Check the file (Hive reads it only if it is whole); the checksum level's "
            "verdict stands meanwhile.",
        ) from e


def _read_file(task: FileTask) -> pa.Table:
    if task.format in TEXT_FILES:
        declared = [parse_hive_type(t) for t in task.text_types]
        return read_text_file(
            task.path,
            dict(task.text_parameters),
            list(zip(task.file_columns, declared)),
            sequence=task.format == "sequence",
        )
    fs, path = filesystem_for(task.path)
    wanted = sorted({c.file_index for c in task.columns if c.file_index is not None})
    # Parquet columns of UTC instants Hive shows in a zone: the zone and whether by java.util's
    # rules (INT96 per int96_reading; INT64 adjusted to UTC in Hive 4, by java.time)
    zoned_as: dict[str, tuple[str, bool]] = {}
    with fs.open_input_file(path) as handle:
        if task.format == "orc":
            reader = orc.ORCFile(handle)
            names = tuple(reader.schema.names)
            columns = [names[i] for i in wanted if i < len(names)]
            table = _read_orc(reader, handle, columns, task.path) if columns else None
            rows = reader.nrows
        else:
            # INT96 timestamps at microseconds: nanoseconds end in 1677 and 2262.
            parquet = pq.ParquetFile(handle, coerce_int96_timestamp_unit="us")
            names = tuple(parquet.schema_arrow.names)
            columns = [names[i] for i in wanted if i < len(names)]
            table = parquet.read(columns=columns) if columns else None
            if table is not None:  # Arrow-only types, unsigned integers, fixed-size binaries
                table = hive_leaves(table, unsigned_nulls(task.hive_version))
            rows = parquet.metadata.num_rows
            meta = parquet.metadata
            shown_in = int96_reading(
                task.hive_zone,
                task.hive_version,
                meta.created_by,
                writer_zone(meta),
                zone_legacy(meta),
            )
            leaves = parquet_leaves(parquet)
            if shown_in is not None:
                zoned_as = dict.fromkeys(int96_columns(leaves), (shown_in.zone, shown_in.java_util))
            if task.hive_version == "4" and task.hive_zone:  # LocalDateTime.ofInstant
                utc = [name for name, _, adjusted in int64_timestamps(leaves) if adjusted]
                zoned_as |= dict.fromkeys(utc, (task.hive_zone, False))
    if table is not None:
        table = _java_maps(table)
    if table is not None and zoned_as:  # UTC instants shown in a zone
        for index, field in enumerate(table.schema):
            if field.name in zoned_as:
                shown = int96_shown(table.column(index), *zoned_as[field.name])
                table = table.set_column(index, field, shown)
    if table is not None and task.time_zone is not None:
        for index, field in enumerate(table.schema):
            if has_timestamps(field.type):
                table = table.set_column(index, field, zoned(table.column(index), task.time_zone))
    if table is not None and task.hybrid_days:
        for index, field in enumerate(table.schema):
            if has_dates(field.type):  # other columns are left as read, never copied
                table = table.set_column(index, field, hybrid_dates(table.column(index)))
    if names != task.file_columns:
        raise RefusedInput(
            f"{task.path}: its columns changed since the table was inspected "
            f"({list(task.file_columns)} then, {list(names)} now).",
            hint="Run migrate to back-fill the partition again, then validate.",
        )
    out = {name: table.column(name) for name in columns} if table is not None else {}
    return pa.table(out) if out else pa.table({"__rows": pa.nulls(rows)})


def _java_maps(table: pa.Table) -> pa.Table:
    """``table`` with every map as Hive holds it (``java_maps``: a repeated key's last entry)."""
    for index, field in enumerate(table.schema):
        column = table.column(index)
        kept = java_maps(column)
        if kept is not column:
            table = table.set_column(index, field, kept)
    return table


def _read_orc(reader: orc.ORCFile, handle: Any, columns: list[str], path: str) -> pa.Table:
    try:
        return reader.read(columns=columns)
    except pa.ArrowInvalid as e:
        if not beyond_nanoseconds(e):
            raise
        # A timestamp outside pyarrow's nanosecond range: the whole file through pyorc.
        return read_orc_microseconds(handle, columns, reader.schema, path)


_STRING_KINDS = ("string", "varchar", "char")
#: a fraction of a second whose 7th, 8th or 9th digit is not 0 (Hive keeps nanoseconds)
_SUB_MICRO = r"\.\d{6}\d{0,2}[1-9]"


def _finer_text(task: FileTask, table: pa.Table, columns: list[TargetColumn]) -> int:
    """Text values read as timestamps (a text file's fields, a string column Hive converts)
    whose digits go past a microsecond, counted where the target holds a value."""
    found = 0
    for column, out in zip(task.columns, columns):
        if column.file_index is None or column.partition_type is None:
            continue
        raw_type = parse_hive_type(column.file_type or "")
        text = task.format in TEXT_FILES or raw_type.kind in _STRING_KINDS
        declared = parse_hive_type(column.partition_type)
        counted = text_counted(declared, parse_hive_type(column.table_type))
        if not text or not counted or not raw_type.is_primitive:
            continue
        raw = table.column(task.file_columns[column.file_index]).combine_chunks()
        if not pa.types.is_string(raw.type) and not pa.types.is_large_string(raw.type):
            continue
        finer = pc.and_(pc.match_substring_regex(raw, _SUB_MICRO), pc.is_valid(out.values))
        found += int(pc.sum(finer.fill_null(False).cast(pa.int64())).as_py() or 0)
    return found


def _file_type(task: FileTask, column: ColumnPlan) -> HiveType:
    """The type the reader gives a file column (a text file gives text)."""
    file_type = parse_hive_type(column.file_type or "")
    return text_file_type(file_type) if task.format in TEXT_FILES else file_type


def _as_partition(task: FileTask, column: ColumnPlan, table: pa.Table) -> pa.Array:
    """A file column's values read as the partition's declared type (the first of Hive's
    two steps; ``target_columns`` takes them on to the table's type and the target's)."""
    file_type = _file_type(task, column)
    declared = parse_hive_type(column.partition_type or "")
    table_type = parse_hive_type(column.table_type)
    values = table.column(task.file_columns[column.file_index or 0]).combine_chunks()
    if task.format == "parquet":  # as Hive's Parquet reader builds it for the table
        values = built_values(values, file_type, table_type, task.hive_version)
        file_type = built_type(file_type, table_type, task.hive_version)
    return convert(
        values,
        file_type,
        declared,
        **_first_step(task, table_type, holds_instant(file_type, declared, table_type)),
    )


def _first_step(task: FileTask, table_type: HiveType, instant: bool = False) -> dict[str, Any]:
    """``convert``'s options reading a file's values as the partition's declared type, for a
    column the table declares ``table_type`` (``instant``: the value stays an instant for the
    second step, ``holds_instant``)."""
    return {
        "by_name": task.by_name,
        "case_sensitive": task.case_sensitive,
        "orc_file": task.format == "orc",
        "text_file": task.format in TEXT_FILES,
        "hive3_converters": task.hive3_converters,
        "orc_sql_dates": task.orc_sql_dates,
        "hive4_dates": task.hive4_dates,
        "hive1_decimals": task.hive1_decimals,
        # a table reading the timestamp as a number counts its instant, not its label
        "hybrid_instants": task.hybrid_instants and not counts_instants(table_type),
        "stored_days": task.stored_days,
        # ORC 1.3-1.5 count a timestamp's seconds from the file's instant: the hybrid one of
        # the wall clock shown for a hybrid file (or under hive2, for any)
        "hybrid_seconds": task.format == "orc" and task.orc_sql_dates and task.hybrid_days,
        "zone": None if instant else task.hive_zone,
    }


def _finer_numbers(task: FileTask, table: pa.Table, columns: list[TargetColumn]) -> int:
    """Floats, doubles and decimals read as timestamps (at either of Hive's two steps) whose
    digits go past a microsecond, counted where the target holds a value, by the rule the
    checksum level counts them with (``digits_counted``; ``nested_leaves`` inside structs,
    arrays and maps, where each counts where its own step gives a value)."""
    found = 0
    for column, out in zip(task.columns, columns):
        if column.file_index is None or column.partition_type is None:
            continue
        file_type = _file_type(task, column)
        declared = parse_hive_type(column.partition_type)
        table_type = parse_hive_type(column.table_type)
        if not (file_type.is_primitive and declared.is_primitive and table_type.is_primitive):
            found += _nested_finer(task, column, table, out.as_partition)
            continue
        if file_type.kind in _STRING_KINDS and text_counted(declared, table_type):
            continue  # counted by their text (_finer_text)
        first, second = digits_counted(declared, table_type)
        raw = table.column(task.file_columns[column.file_index]).combine_chunks()
        steps = []
        if first:
            orc_file = task.format == "orc"
            steps.append(number_finer(raw, file_type, declared, orc_file, task.orc_sql_dates))
        if second and out.as_partition is not None:
            steps.append(number_finer(out.as_partition, declared, table_type, False, False))
        for finer in steps:
            if finer is not None:
                counted = pc.and_(finer, pc.is_valid(out.values)).fill_null(False)
                found += int(pc.sum(counted.cast(pa.int64())).as_py() or 0)
    return found


def _nested_finer(
    task: FileTask, column: ColumnPlan, table: pa.Table, as_partition: pa.Array | None
) -> int:
    """``_finer_numbers`` and ``_finer_text`` inside one nested column, leaf by leaf
    (``nested_leaves``)."""
    file_type = _file_type(task, column)
    declared = parse_hive_type(column.partition_type or "")
    table_type = parse_hive_type(column.table_type)
    raw = table.column(task.file_columns[column.file_index or 0]).combine_chunks()
    orc_file = task.format == "orc"
    found = 0
    leaves = nested_leaves(
        file_type, declared, table_type, by_name=task.by_name, case_sensitive=task.case_sensitive
    )
    for nested in leaves:
        steps: list[tuple[pa.Array, tuple[Step, ...], HiveType, HiveType, bool]] = []
        if nested.first and nested.file is not None and nested.file_path is not None:
            steps.append((raw, nested.file_path, nested.file, nested.declared, True))
        if nested.second and as_partition is not None:
            steps.append((as_partition, nested.partition_path, nested.declared, nested.table,
                          False))  # fmt: skip
        for values, path, src, dst, first in steps:
            options = _first_step(task, table_type) if first else second_step(task)
            if first:
                maps = _Maps(file_type, declared, nested.partition_path, options)
            else:
                maps = _Maps(declared, table_type, nested.partition_path, options)
            found_at = _at(values, path, maps)
            if src.kind in _STRING_KINDS:
                finer = pc.match_substring_regex(found_at, _SUB_MICRO)
            else:
                sql_dates = first and task.orc_sql_dates
                finer = number_finer(found_at, src, dst, first and orc_file, sql_dates)
            if finer is None:
                continue
            shown = convert(found_at, src, dst, **options)
            counted = pc.and_(finer, pc.is_valid(shown)).fill_null(False)
            found += int(pc.sum(counted.cast(pa.int64())).as_py() or 0)
    return found


class _Maps(NamedTuple):
    """How one step reads a value (``_at``): from type ``src`` to type ``to`` (reached by
    ``to_path``) with the step's options, so that a map whose keys it reads as another type
    gives only the entries Hive keeps (``kept_entries``)."""

    src: HiveType
    to: HiveType
    to_path: tuple[Step, ...]
    options: dict[str, Any]


def _at(array: pa.Array, path: tuple[Step, ...], maps: _Maps | None = None) -> pa.Array:
    """Every value at ``path`` inside ``array``'s rows (a struct's field, each element of a
    list, each key or value of a map), none under a NULL on the way. With ``maps``, a map
    whose keys the step reads as another type gives only the entries Hive keeps (a text
    file's first of a repeated key, else its last; ``convert`` drops the others)."""
    for position, (step, index) in enumerate(path):
        if step == "field":
            array = array.flatten()[index]  # (a NULL struct's fields read NULL)
        else:
            lengths, indices = compact(array)
            take = pa.array(indices, pa.int64())
            if step == "element":
                children = array.values.take(take)
            else:
                children = (array.keys if step == "key" else array.items).take(take)
                if maps is not None:
                    src_key, to_key = maps.src.fields[0][1], maps.to.fields[0][1]
                    if keys_may_merge(src_key, to_key):
                        keys = convert(array.keys.take(take), src_key, to_key, **maps.options)
                        last = not maps.options.get("text_file")
                        children = children.take(kept_entries(keys, lengths, last=last)[0])
            array = children
        if maps is not None:
            maps = maps._replace(
                src=child_type(maps.src, (step, index)),
                to=child_type(maps.to, maps.to_path[position]),
            )
    return leaf(array)


def target_columns(task: FileTask, table: pa.Table | None = None) -> list[TargetColumn]:
    """Every output column: table columns, then keys."""
    table = _read(task) if table is None else table
    rows = table.num_rows
    out: list[TargetColumn] = []
    for column in task.columns:
        table_type = parse_hive_type(column.table_type)
        target = parse_hive_type(column.target_type)
        if column.file_index is None or column.partition_type is None:
            out.append(TargetColumn(column.name, pa.nulls(rows, arrow_type(target)), target))
        else:
            declared = parse_hive_type(column.partition_type)
            as_partition = _as_partition(task, column, table)
            instant = holds_instant(_file_type(task, column), declared, table_type)
            as_table = convert(as_partition, declared, table_type, **second_step(task, instant))
            values = convert(as_table, table_type, target, by_name=False, stored=True)
            out.append(TargetColumn(column.name, values, target, as_partition))
    for key in task.keys:
        key_type, target = parse_hive_type(key.key_type), parse_hive_type(key.target_type)
        value = pa.array([key.value], arrow_type(key_type))
        typed = convert(value, key_type, target, by_name=False, stored=True)
        out.append(TargetColumn(key.name, repeat(typed, rows), target))
    return out


def file_fingerprint(task: FileTask) -> tuple[Fingerprint, int]:
    """The file's canonical fingerprint, and how many of its timestamps the target holds
    truncated to microseconds."""
    table = _read(task)
    columns = target_columns(task, table)
    rows = len(columns[0].values) if columns else table.num_rows
    found = fingerprint([(c.values, c.hive) for c in columns], rows)
    finer = _finer_text(task, table, columns) + _finer_numbers(task, table, columns)
    if task.format == "parquet" and any(has_timestamps(f.type) for f in table.schema):
        finer += int96_finer(task.path, table.column_names)  # INT96: read again at nanoseconds
    if task.format == "orc" and _wide(table):  # read at microseconds by pyorc: count there
        fs, path = filesystem_for(task.path)
        with fs.open_input_file(path) as handle:
            return found, finer_in_wide_orc(handle, table.column_names, task.path) + finer
    return found, finer_than_micros(table) + finer


def _wide(table: pa.Table) -> bool:
    """Whether an ORC file's timestamps were read at microseconds (``read_orc_microseconds``:
    outside pyarrow's nanosecond range): a question of the schema, not of the values."""
    return any(holds(f.type, _coarse_timestamp) for f in table.schema)


def _coarse_timestamp(kind: pa.DataType) -> bool:
    return pa.types.is_timestamp(kind) and kind.unit != "ns"


def file_rows(task: FileTask) -> pa.Table:
    """The file's rows as the target holds them, with ``partitionpath``."""
    columns = target_columns(task)
    rows = len(columns[0].values) if columns else 0
    arrays = {c.name: c.values for c in columns}
    arrays[PARTITION_COLUMN] = pa.repeat(pa.scalar(task.partition, pa.string()), rows)
    return pa.table(arrays)
