"""Arrow and Spark types of the rows the independent reader produces (target Hive types).

Kept apart from the Spark reader's type printers on purpose: the second reader states its own
idea of each type, so a wrong mapping in one reader cannot hide in the other.
"""

from __future__ import annotations

import pyarrow as pa

from lakeshift.errors import SchemaMappingError
from lakeshift.hive.types import HiveType

_ARROW: dict[str, pa.DataType] = {
    "boolean": pa.bool_(),
    "tinyint": pa.int8(),
    "smallint": pa.int16(),
    "int": pa.int32(),
    "bigint": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "string": pa.string(),
    "char": pa.string(),
    "varchar": pa.string(),
    "binary": pa.binary(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us"),  # wall clock, no zone: Hive's TIMESTAMP
    "void": pa.null(),
}
_SPARK = {
    "boolean": "BOOLEAN",
    "tinyint": "TINYINT",
    "smallint": "SMALLINT",
    "int": "INT",
    "bigint": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "string": "STRING",
    "char": "STRING",
    "varchar": "STRING",
    "binary": "BINARY",
    "date": "DATE",
    "timestamp": "TIMESTAMP_NTZ",
}


def arrow_type(hive: HiveType) -> pa.DataType:
    """The Arrow type holding values of ``hive``."""
    if hive.kind in _ARROW:
        return _ARROW[hive.kind]
    if hive.kind == "decimal":
        return pa.decimal128(hive.params[0], hive.params[1])
    if hive.kind == "array":
        return pa.list_(arrow_type(hive.fields[0][1]))
    if hive.kind == "map":
        return pa.map_(arrow_type(hive.fields[0][1]), arrow_type(hive.fields[1][1]))
    if hive.kind == "struct":
        return pa.struct([(name, arrow_type(t)) for name, t in hive.fields])
    raise SchemaMappingError(f"Hive type {hive} is not supported by the independent reader")


def _name(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def spark_ddl(hive: HiveType) -> str:
    """Spark DDL of ``hive`` as the targets hold it (TIMESTAMP is wall clock: TIMESTAMP_NTZ)."""
    if hive.kind in _SPARK:
        return _SPARK[hive.kind]
    if hive.kind == "decimal":
        return f"DECIMAL({hive.params[0]},{hive.params[1]})"
    if hive.kind == "array":
        return f"ARRAY<{spark_ddl(hive.fields[0][1])}>"
    if hive.kind == "map":
        return f"MAP<{spark_ddl(hive.fields[0][1])},{spark_ddl(hive.fields[1][1])}>"
    if hive.kind == "struct":
        return "STRUCT<" + ",".join(f"{_name(n)}:{spark_ddl(t)}" for n, t in hive.fields) + ">"
    raise SchemaMappingError(f"Hive type {hive} is not supported by the independent reader")


def schema_ddl(columns: list[tuple[str, HiveType]]) -> str:
    return ", ".join(f"{_name(name)} {spark_ddl(t)}" for name, t in columns)
