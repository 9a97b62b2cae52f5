"""Count the values Hive's read-time conversions turn into NULL ('abc' read as int), the
strings they cut to a VARCHAR or CHAR width, and the text timestamps finer than the
microseconds the targets keep.

Such a conversion is what Hive shows, so the migration copies the NULL; but the user must
know it happened. Only file groups whose projection converts a column (a physical type other
than the partition's, or a partition type other than the table's) can lose values, so only
their files are scanned: one Spark job per physical schema, counting per file
``physical IS NOT NULL AND converted IS NULL`` for each converted column, summed per partition.
A value nulled inside a struct, array or map whose container survives is not counted.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from lakeshift.hive.projection import FileGroup, file_groups
from lakeshift.hive.reader import (
    FILE_KEY,
    column_conversions,
    column_steps,
    first_step,
    physical_type,
    scan_groups,
    signature,
    spark_file_path,
)
from lakeshift.hive.spark_sql import (
    convert,
    kept_entries,
    number_finer,
    quote,
    spark_type,
)
from lakeshift.hive.types import (
    HiveType,
    Step,
    child_type,
    digits_counted,
    keys_may_merge,
    nested_leaves,
    parse_hive_type,
    second_step,
    text_counted,
)
from lakeshift.inspect.model import TableInventory
from lakeshift.schema_map.model import FieldMapping

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Nulled = dict[str, dict[str, int]]  # partition -> column -> values read as NULL (or truncated)
_WIDTHS = ("varchar", "char")
_STRINGS = ("string", "varchar", "char")
#: Text whose fraction of a second has a digit other than 0 past the sixth (Hive reads up to
#: nine: nanoseconds); such a value converted to a timestamp is held truncated.
FINER_TEXT = "[.][0-9]{6}([1-9]|[0-9][1-9]|[0-9]{2}[1-9])"


def converted_columns(group: FileGroup) -> list[int]:
    """Positions of the table columns this group converts (so may turn values into NULL)."""
    out = []
    for position, source in enumerate(group.sources):
        if source.physical_index is None or source.partition_type is None:
            continue
        physical = str(physical_type(group, group.physical[source.physical_index]))
        if physical != source.partition_type or source.partition_type != source.table_type:
            out.append(position)
    return out


def nulled_aggregates(
    group: FileGroup, inventory: TableInventory, mapping: FieldMapping
) -> dict[str, str]:
    """Column -> SQL aggregate counting its values that the conversion turns into NULL, over
    rows of the group's physical schema (e.g. to add to a batch's observation)."""
    conversions = column_conversions(group, inventory, mapping)
    out = {}
    for position in converted_columns(group):
        name, physical, converted = conversions[position]
        out[name] = f"count_if({physical} IS NOT NULL AND ({converted}) IS NULL)"
    return out


def truncated_aggregates(
    group: FileGroup, inventory: TableInventory, mapping: FieldMapping
) -> dict[str, str]:
    """Column -> SQL aggregate counting the non-NULL values longer than the narrowest VARCHAR
    or CHAR width the conversions cut them to (partition's or table's declared type)."""
    conversions = column_conversions(group, inventory, mapping)
    out = {}
    for position in converted_columns(group):
        source = group.sources[position]
        widths = [
            t.params[0]
            for t in (
                parse_hive_type(source.partition_type or ""),
                parse_hive_type(source.table_type),
            )
            if t.kind in _WIDTHS and t.params
        ]
        name, physical, _ = conversions[position]
        if widths and physical is not None:
            out[name] = f"count_if(length(CAST({physical} AS STRING)) > {min(widths)})"
    return out


def finer_aggregates(
    group: FileGroup, inventory: TableInventory, mapping: FieldMapping
) -> dict[str, str]:
    """Column -> SQL aggregate counting the text values read as timestamps (text files, ORC's
    and Hive's string conversions), and the floats, doubles and decimals read as timestamps
    (``digits_counted``; inside structs, arrays and maps ``nested_leaves``), whose digits go
    past a microsecond: Hive shows them, the targets (and Spark's reader) keep microseconds,
    so neither checksum could see the cut."""
    steps = column_steps(group, inventory, mapping)
    out = {}
    for position in converted_columns(group):
        source = group.sources[position]
        name, physical, as_partition, converted = steps[position]
        if physical is None or as_partition is None or source.physical_index is None:
            continue
        file_type = physical_type(group, group.physical[source.physical_index])
        declared = parse_hive_type(source.partition_type or "")
        table_type = parse_hive_type(source.table_type)
        if file_type.kind in _STRINGS and text_counted(declared, table_type):
            out[name] = f"count_if(({converted}) IS NOT NULL AND {physical} RLIKE '{FINER_TEXT}')"
            continue
        if not (file_type.is_primitive and declared.is_primitive and table_type.is_primitive):
            nested = _nested_finer(group, physical, as_partition, file_type, declared, table_type)
            if nested:
                out[name] = f"coalesce(sum({nested}), 0)"
            continue
        first, second = digits_counted(declared, table_type)
        orc_file, legacy = group.format == "orc", group.orc_sql_dates
        finer = [
            number_finer(physical, file_type, declared, orc_file, legacy) if first else None,
            number_finer(as_partition, declared, table_type, False, False) if second else None,
        ]
        counted = [f"CAST(({converted}) IS NOT NULL AND {f} AS INT)" for f in finer if f]
        if counted:
            out[name] = f"coalesce(sum({' + '.join(counted)}), 0)"
    return out


_names = itertools.count()


def _nested_finer(
    group: FileGroup,
    physical: str,
    as_partition: str,
    file_type: HiveType,
    declared: HiveType,
    table_type: HiveType,
) -> str:
    """SQL counting, in one row, the numbers and text inside a nested column that are read as
    timestamps with digits past a microsecond (``nested_leaves``), each where its own step
    gives a value; ``""`` when the column has none."""
    first_options, second_options = first_step(group, table_type), second_step(group)
    leaves = nested_leaves(
        file_type,
        declared,
        table_type,
        by_name=group.nested_by_name,
        case_sensitive=group.case_sensitive,
    )
    counts = []
    for leaf in leaves:
        steps: list[tuple[str, HiveType, tuple[Step, ...], HiveType, HiveType, dict[str, Any],
                          _Maps]] = []  # fmt: skip
        if leaf.first and leaf.file is not None and leaf.file_path is not None:
            to_declared = _Maps(declared, leaf.partition_path, first_options)
            steps.append((physical, file_type, leaf.file_path, leaf.file, leaf.declared,
                          first_options, to_declared))  # fmt: skip
        if leaf.second:
            steps.append((as_partition, declared, leaf.partition_path, leaf.declared,
                          leaf.table, second_options,
                          _Maps(table_type, leaf.partition_path, second_options)))  # fmt: skip
        for expr, hive, path, src, dst, options, maps in steps:
            if _finer_leaf("x", src, dst, options) is None:
                continue  # integers, ORC 1.6+'s milliseconds: no digits past a microsecond

            def holds(x: str, src: HiveType = src, dst: HiveType = dst, o: dict = options) -> str:
                shown = convert(x, src, dst, **o)
                return f"({shown}) IS NOT NULL AND {_finer_leaf(x, src, dst, o)}"

            counts.append(_count_along(expr, hive, path, holds, maps))
    return " + ".join(counts)


def _finer_leaf(x: str, src: HiveType, dst: HiveType, options: dict[str, Any]) -> str | None:
    """A predicate on one ``src`` value that a step reads as a ``dst`` timestamp: its text
    or its number's digits go past a microsecond (``None``: no digits to count there)."""
    if dst.kind != "timestamp":
        return None
    if src.kind in _STRINGS:
        return f"{x} RLIKE '{FINER_TEXT}'"
    orc_file, legacy = bool(options.get("orc_file")), bool(options.get("orc_sql_dates"))
    return number_finer(x, src, dst, orc_file, legacy)


class _Maps(NamedTuple):
    """Where one step reads a value (``_count_along``): the type it reads it as, the path
    there and the step's options, so that a map whose keys it reads as another type counts
    only the entries Hive keeps (``kept_entries``)."""

    to: HiveType
    to_path: tuple[Step, ...]
    options: dict[str, Any]


def _count_along(
    expr: str, hive: HiveType, path: tuple[Step, ...], holds: Callable[[str], str], maps: _Maps
) -> str:
    """SQL counting the values at ``path`` inside one row's ``expr`` (of Hive type ``hive``)
    for which ``holds`` is true: a struct's field, every element of an array, every key or
    value of a map (of the entries Hive keeps once ``maps`` reads the keys); a NULL on the
    way counts nothing."""
    if not path:
        return f"CAST(coalesce({holds(expr)}, false) AS INT)"
    (step, index), rest = path[0], path[1:]
    inner_maps = maps._replace(to=child_type(maps.to, maps.to_path[0]), to_path=maps.to_path[1:])
    if step == "field":
        name, child = hive.fields[index]
        return _count_along(f"{expr}.{quote(name)}", child, rest, holds, inner_maps)
    items = {"element": expr, "key": f"map_keys({expr})", "value": f"map_values({expr})"}[step]
    if step != "element" and keys_may_merge(hive.fields[0][1], maps.to.fields[0][1]):
        items = _kept_items(expr, hive.fields[0][1], maps.to.fields[0][1], maps.options, step)
    child = child_type(hive, (step, index))
    n = next(_names)
    inner = _count_along(f"leaf{n}", child, rest, holds, inner_maps)  # (names no other lambda uses)
    return f"coalesce(aggregate({items}, 0, (sum{n}, leaf{n}) -> sum{n} + {inner}), 0)"


def _kept_items(
    expr: str, src_key: HiveType, dst_key: HiveType, options: dict[str, Any], step: str
) -> str:
    """The keys or values (``step``) of the entries of map ``expr`` that Hive keeps once its
    keys are read as ``dst_key`` (``kept_entries``: a text file's first, else the last)."""
    n = next(_names)
    typed = convert(f"raw{n}.key", src_key, dst_key, **options)
    entries = (
        f"transform(map_entries({expr}), (raw{n}, at{n}) -> struct({typed} AS key, at{n} AS at))"
    )
    entry_type = f"ARRAY<STRUCT<key:{spark_type(dst_key)},at:INT>>"
    kept = kept_entries(entries, entry_type, last=not options.get("text_file"))
    items = f"map_keys({expr})" if step == "key" else f"map_values({expr})"
    return f"transform({kept}, kept{n} -> element_at({items}, kept{n}.at + 1))"


def nulled_by_conversion(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
) -> tuple[Nulled, Nulled, Nulled]:
    """Partition -> column -> values Hive's conversions read as NULL, values they truncate to
    a VARCHAR/CHAR width, and text timestamps finer than a microsecond (non-zero counts)."""
    from pyspark.sql import functions as F

    by_signature: dict[tuple[object, ...], list[FileGroup]] = {}
    for group in file_groups(inventory, mapping, partitions):
        if converted_columns(group):
            by_signature.setdefault(signature(group), []).append(group)
    nulled: Nulled = {}
    truncated: Nulled = {}
    finer: Nulled = {}
    for groups in by_signature.values():
        first = groups[0]
        counters = (
            [
                (nulled, name, aggregate)
                for name, aggregate in nulled_aggregates(first, inventory, mapping).items()
            ]
            + [
                (truncated, name, aggregate)
                for name, aggregate in truncated_aggregates(first, inventory, mapping).items()
            ]
            + [
                (finer, name, aggregate)
                for name, aggregate in finer_aggregates(first, inventory, mapping).items()
            ]
        )
        owner = {spark_file_path(g.location, f): g.partition for g in groups for f in g.files}
        rows = (
            scan_groups(spark, groups)
            .withColumnRenamed(FILE_KEY, "file")
            .groupBy("file")
            .agg(*[F.expr(f"{a} AS `n{i}`") for i, (_, _, a) in enumerate(counters)])
            .collect()
        )
        for row in rows:
            partition = owner.get(row["file"])
            for i, (out, name, _) in enumerate(counters):
                count = int(row[f"n{i}"] or 0)
                if count and partition is not None:
                    columns = out.setdefault(partition, {})
                    columns[name] = columns.get(name, 0) + count
    return nulled, truncated, finer


def describe(nulled: dict[str, int], what: str = "read as NULL by Hive's type conversions") -> str:
    """``3 value(s) read as NULL by Hive's type conversions (id: 2, amount: 1)``."""
    total = sum(nulled.values())
    columns = ", ".join(f"{c}: {n:,}" for c, n in sorted(nulled.items()))
    return f"{total:,} value(s) {what} ({columns})"


TRUNCATED = "cut to their VARCHAR/CHAR width, as Hive reads them"
