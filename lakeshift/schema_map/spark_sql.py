"""Spark SQL text for Hive types, identifiers, literals and Hive's read-time conversions.

Hand-written: Spark has no API for "convert this Hive value as Hive's ObjectInspector converters
would"; we express it with Spark SQL (CAST in non-ANSI mode gives NULL for values that cannot
convert, as Hive does).
"""

from __future__ import annotations

from itertools import count

from lakeshift.errors import SchemaMappingError
from lakeshift.schema_map.conversions import unreadable
from lakeshift.schema_map.hive_types import HiveType

_SIMPLE = {
    "tinyint": "TINYINT",
    "smallint": "SMALLINT",
    "int": "INT",
    "bigint": "BIGINT",
    "boolean": "BOOLEAN",
    "float": "FLOAT",
    "double": "DOUBLE",
    "string": "STRING",
    "char": "STRING",
    "varchar": "STRING",
    "binary": "BINARY",
    "date": "DATE",
}
_lambda_names = count()


def quote(name: str) -> str:
    """A Spark SQL identifier, whatever characters the name holds."""
    return "`" + name.replace("`", "``") + "`"


def string_literal(value: str) -> str:
    """A Spark SQL string literal (backslash escapes are on by default in Spark)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def spark_type(hive: HiveType, *, physical: bool = False) -> str:
    """Spark type text. Hive TIMESTAMP is wall-clock: TIMESTAMP_NTZ, except as read from ORC."""
    if hive.kind in _SIMPLE:
        return _SIMPLE[hive.kind]
    if hive.kind == "timestamp":
        return "TIMESTAMP" if physical else "TIMESTAMP_NTZ"
    if hive.kind == "decimal":
        return f"DECIMAL({hive.params[0]},{hive.params[1]})"
    if hive.kind == "array":
        return f"ARRAY<{spark_type(hive.fields[0][1], physical=physical)}>"
    if hive.kind == "map":
        key, value = hive.fields[0][1], hive.fields[1][1]
        return f"MAP<{spark_type(key, physical=physical)},{spark_type(value, physical=physical)}>"
    if hive.kind == "struct":
        inner = ",".join(f"{quote(n)}:{spark_type(t, physical=physical)}" for n, t in hive.fields)
        return f"STRUCT<{inner}>"
    raise SchemaMappingError(f"Hive type {hive} has no Spark equivalent")


def _has_physical_timestamp(hive: HiveType) -> bool:
    return hive.kind == "timestamp" or any(_has_physical_timestamp(t) for _, t in hive.fields)


def _primitive(expr: str, src: HiveType, dst: HiveType, src_physical: bool) -> str:
    if dst.kind == "char":
        width = dst.params[0]
        return f"rpad(substring(CAST({expr} AS STRING), 1, {width}), {width}, ' ')"
    if dst.kind == "varchar":
        return f"substring(CAST({expr} AS STRING), 1, {dst.params[0]})"
    if src == dst and not (src_physical and src.kind == "timestamp"):
        return expr
    return f"CAST({expr} AS {spark_type(dst)})"


def convert(
    expr: str,
    src: HiveType,
    dst: HiveType,
    *,
    by_name: bool,
    case_sensitive: bool = False,
    src_physical: bool = False,
    where: str = "",
) -> str:
    """SQL converting ``expr`` of Hive type ``src`` to ``dst`` as Hive does on read.

    Struct fields are matched by name when ``by_name`` (ORC schema evolution of named files),
    else by position (Hive's partition-to-table conversion). Missing fields read as NULL.
    """
    reason = unreadable(src, dst, by_name=by_name, case_sensitive=case_sensitive)
    if reason:  # the inspector refuses such partitions; this guards any other caller
        raise SchemaMappingError(
            f"{where or 'a column'}: {reason}.",
            hint="Fix the partition's or the table's declared type in Hive.",
        )
    if src.is_primitive and dst.is_primitive:
        return _primitive(expr, src, dst, src_physical)
    if src == dst and not (src_physical and _has_physical_timestamp(src)):
        return expr
    kwargs = {"by_name": by_name, "case_sensitive": case_sensitive, "src_physical": src_physical}
    if dst.kind == "array":
        var = f"e{next(_lambda_names)}"
        inner = convert(var, src.fields[0][1], dst.fields[0][1], where=f"{where}[]", **kwargs)
        return f"transform({expr}, {var} -> {inner})"
    if dst.kind == "map":
        k, v = f"k{next(_lambda_names)}", f"v{next(_lambda_names)}"
        keys = convert(k, src.fields[0][1], dst.fields[0][1], where=f"{where}.key", **kwargs)
        values = convert(v, src.fields[1][1], dst.fields[1][1], where=f"{where}.value", **kwargs)
        return (
            f"map_from_arrays(transform(map_keys({expr}), {k} -> {keys}), "
            f"transform(map_values({expr}), {v} -> {values}))"
        )
    parts = []
    for position, (name, dst_type) in enumerate(dst.fields):
        source = _struct_source(src, name, position, by_name, case_sensitive)
        if source is None:
            value = f"CAST(NULL AS {spark_type(dst_type)})"
        else:
            value = convert(
                f"{expr}.{quote(source[0])}", source[1], dst_type, where=f"{where}.{name}", **kwargs
            )
        parts.append(f"{string_literal(name)}, {value}")
    return f"IF({expr} IS NULL, NULL, named_struct({', '.join(parts)}))"


def _struct_source(
    src: HiveType, name: str, position: int, by_name: bool, case_sensitive: bool
) -> tuple[str, HiveType] | None:
    if not by_name:
        return src.fields[position] if position < len(src.fields) else None
    wanted = name if case_sensitive else name.lower()
    for field_name, field_type in src.fields:
        if (field_name if case_sensitive else field_name.lower()) == wanted:
            return field_name, field_type
    return None
