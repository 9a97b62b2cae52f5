"""Which Parquet partitions Hive's Parquet reader fails on (pure).

Hive reads a Parquet partition's file for the *table's* columns, by the table's names
(``projection.asks_table_names``), and its converters (``ETypeConverter``) build each value
as a Hadoop writable chosen from the file's physical type and, from Hive 2.0 (HIVE-12080), the
*table's* type: an ``INT32`` column the table declares ``bigint`` arrives as a
``LongWritable``. The partition's declared types then read those writables by position
(``ArrayWritableObjectInspector``), and a declared type whose inspector expects another class
throws ``ClassCastException``: every query of the partition fails, as it does after an
``ALTER TABLE ... CHANGE`` from ``int`` to ``bigint`` without ``CASCADE`` on a Parquet
partition. lakeshift refuses such a partition, as it refuses what ORC's schema evolution
cannot convert (``conversions.unreadable``).

Read in Hive 2.3.7's, 3.1.3's and 4.0.1's ``ETypeConverter`` and checked against Hive 2.3.9
for every pair of primitive types (``tests/differential``); Hive 1.2 (no table type given to
the converters) and Hive 3.1 and 4 from the source only. Hand-written: no library models
Hive's reader.
"""

from __future__ import annotations

from lakeshift.schema_map.hive_types import HiveType, field_index

_INT32 = frozenset({"tinyint", "smallint", "int"})
_STRINGS = frozenset({"string", "char", "varchar"})
_NUMBERS = frozenset({"tinyint", "smallint", "int", "bigint", "float", "double", "decimal"})
#: the writable each declared kind's inspector reads (tinyint and smallint: Parquet's own
#: inspectors, which take an ``IntWritable``; strings: ``Text`` or ``BytesWritable``)
_READS: dict[str, frozenset[str]] = {
    **{kind: frozenset({"int"}) for kind in _INT32},
    **{kind: frozenset({"text", "binary"}) for kind in _STRINGS},
    "binary": frozenset({"binary"}),
}


def writable(file_kind: str, table_kind: str, version: str, int96: bool = True) -> str:
    """The kind of writable Hive's Parquet reader builds for a file value of ``file_kind``
    (as lakeshift names a Parquet column's type) that the table declares ``table_kind``."""
    if file_kind == "timestamp" and not int96 and version != "4":
        file_kind = "bigint"  # INT64 timestamps: read as numbers until Hive 4 (HIVE-21215)
    own = "int" if file_kind in _INT32 else "text" if file_kind in _STRINGS else file_kind
    if version == "1.2":
        return own
    if version == "4" and file_kind in _NUMBERS and table_kind in _NUMBERS:
        return "int" if table_kind in _INT32 else table_kind  # Hive 4 converts to the table's
    if file_kind in _INT32:
        if table_kind in ("bigint", "float", "double"):
            return table_kind
        return "decimal" if table_kind == "decimal" and version != "2.3" else own
    if file_kind == "bigint":
        if table_kind in ("float", "double"):
            return table_kind
        if version != "2.3" and table_kind == "decimal":
            return "decimal"
        return "int" if version != "2.3" and table_kind in _INT32 else own
    if file_kind == "float" and table_kind == "double":
        return "double"
    return own


def parquet_unreadable(
    file: HiveType,
    declared: HiveType,
    table: HiveType,
    *,
    version: str,
    int96: bool = True,
    at: str = "",
) -> str | None:
    """Why every Hive query of a Parquet partition fails on this column, or ``None``:
    ``declared`` is the partition's type as the reader asks for it (the table's names,
    ``hive_types.names_asked``), matched to the table's by position and found in ``file`` by
    name, ignoring case; ``int96``: the file's timestamps are ``INT96``."""
    if declared.is_primitive:
        if not (file.is_primitive and table.is_primitive):
            return None  # the converters' own rule refuses it (conversions.unreadable)
        built = writable(file.kind, table.kind, version, int96)
        if built in _READS.get(declared.kind, frozenset({declared.kind})):
            return None
        return (
            f"Hive {version}'s Parquet reader builds the file's {file}{at} as a {built} value "
            f"for the table's {table}, which the partition's declared {declared} cannot read "
            "(ClassCastException: every query of the partition fails)"
        )
    if file.kind != declared.kind or table.kind != declared.kind:
        return None
    if declared.kind == "struct":
        for position, (name, child) in enumerate(declared.fields[: len(table.fields)]):
            found = field_index(file, name, position, by_name=True, case_sensitive=False)
            if found is None:
                continue
            reason = parquet_unreadable(
                file.fields[found][1],
                child,
                table.fields[position][1],
                version=version,
                int96=int96,
                at=f"{at}.{name}",
            )
            if reason:
                return reason
        return None
    steps = ("[]",) if declared.kind == "array" else (".key", ".value")
    for index, step in enumerate(steps[: len(declared.fields)]):
        reason = parquet_unreadable(
            file.fields[index][1],
            declared.fields[index][1],
            table.fields[index][1],
            version=version,
            int96=int96,
            at=at + step,
        )
        if reason:
            return reason
    return None
