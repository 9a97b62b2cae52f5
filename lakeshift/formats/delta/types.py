"""Delta schema types (the protocol's JSON) as Spark DDL and as Hive type strings, with the
files' physical field names at every level (pure; hand-written: no library renders these)."""

from __future__ import annotations

from typing import Any

from lakeshift.hive.spark_sql import quote
from lakeshift.hive.types import HiveType

PHYSICAL_NAME = "delta.columnMapping.physicalName"
COLUMN_ID = "delta.columnMapping.id"

_PRIMITIVE_HIVE = {
    "byte": "tinyint",
    "short": "smallint",
    "integer": "int",
    "long": "bigint",
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "string": "string",
    "binary": "binary",
    "date": "date",
    "timestamp_ntz": "timestamp",
    "timestamp": "timestamp",
}
_PRIMITIVE_SPARK = {
    "byte": "TINYINT",
    "short": "SMALLINT",
    "integer": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "boolean": "BOOLEAN",
    "string": "STRING",
    "binary": "BINARY",
    "date": "DATE",
    "timestamp_ntz": "TIMESTAMP_NTZ",
    "timestamp": "TIMESTAMP",
}


def physical_name(field: dict[str, Any]) -> str:
    return str(field.get("metadata", {}).get(PHYSICAL_NAME) or field["name"])


def delta_hive_type(hive: HiveType) -> HiveType:
    """The Hive type as the Delta target holds it: CHAR/VARCHAR are strings, the rest as is."""
    if hive.kind in ("char", "varchar"):
        return HiveType("string")
    if hive.fields:
        return HiveType(
            hive.kind, hive.params, tuple((n, delta_hive_type(t)) for n, t in hive.fields)
        )
    return hive


def _render(kind: Any, spark: bool, physical: bool) -> str:
    primitive = _PRIMITIVE_SPARK if spark else _PRIMITIVE_HIVE
    if isinstance(kind, str):
        if kind.startswith("decimal"):
            text = kind.replace(" ", "")
            return text.upper() if spark else text
        return primitive[kind]
    if kind["type"] == "array":
        inner = _render(kind["elementType"], spark, physical)
        return f"{'ARRAY' if spark else 'array'}<{inner}>"
    if kind["type"] == "map":
        key = _render(kind["keyType"], spark, physical)
        value = _render(kind["valueType"], spark, physical)
        return f"{'MAP' if spark else 'map'}<{key},{value}>"
    parts = []
    for f in kind["fields"]:
        name = physical_name(f) if physical else str(f["name"])
        # Hive type strings take bare names; Spark DDL quotes them.
        parts.append(f"{quote(name) if spark else name}:{_render(f['type'], spark, physical)}")
    return f"{'STRUCT' if spark else 'struct'}<{','.join(parts)}>"


def physical_hive_type(kind: Any) -> str:
    """A Delta type as a Hive type string, nested fields under their physical names."""
    return _render(kind, spark=False, physical=True)


def physical_spark_type(kind: Any) -> str:
    """A Delta type as Spark DDL, nested fields under their physical names."""
    return _render(kind, spark=True, physical=True)


def logical_spark_type(kind: Any) -> str:
    """A Delta type as Spark DDL, nested fields under their logical (Hive) names."""
    return _render(kind, spark=True, physical=False)
