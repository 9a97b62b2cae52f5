"""The Avro schema Hudi records for a table's rows (commit ``extraMetadata.schema``, base-file
``parquet.avro.schema``, ``hoodie.table.create.schema``), from the Arrow schema Spark hands
the writer.

Hand-written after Spark-Avro's ``SchemaConverters`` naming (records named after their field,
namespaced by their path), which is what Hudi's Spark writer produces.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from lakeshift.errors import SchemaMappingError
from lakeshift.formats.hudi.base_file import META_COLUMNS


def _type(kind: pa.DataType, name: str, namespace: str) -> Any:
    if pa.types.is_boolean(kind):
        return "boolean"
    if pa.types.is_integer(kind):
        return "long" if kind.bit_width == 64 else "int"
    if pa.types.is_float32(kind):
        return "float"
    if pa.types.is_floating(kind):
        return "double"
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "string"
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return "bytes"
    if pa.types.is_date(kind):
        return {"type": "int", "logicalType": "date"}
    if pa.types.is_timestamp(kind):
        return {"type": "long", "logicalType": "timestamp-micros"}
    if pa.types.is_decimal(kind):
        size = _decimal_bytes(kind.precision)
        return {
            "type": "fixed",
            "name": "fixed",
            "namespace": f"{namespace}.{name}",
            "size": size,
            "logicalType": "decimal",
            "precision": kind.precision,
            "scale": kind.scale,
        }
    if pa.types.is_map(kind):
        if not pa.types.is_string(kind.key_type):
            raise SchemaMappingError(
                f"column {name}: Hudi (Avro) maps need string keys, not {kind.key_type}.",
                hint="Migrate this table to Iceberg or Delta, or change the key type in Hive.",
            )
        return {"type": "map", "values": _nullable(kind.item_type, name, namespace)}
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return {"type": "array", "items": _nullable(kind.value_type, name, namespace)}
    if pa.types.is_struct(kind):
        return _record(list(kind), name, namespace)
    raise SchemaMappingError(f"column {name}: no Avro type for {kind} in a Hudi table.")


def _decimal_bytes(precision: int) -> int:
    """Smallest byte count holding ``precision`` decimal digits (Spark-Avro's rule)."""
    size = 1
    while 2 ** (8 * size - 1) - 1 < 10**precision - 1:
        size += 1
    return size


def _nullable(kind: pa.DataType, name: str, namespace: str) -> Any:
    return ["null", _type(kind, name, namespace)]


def _record(fields: list[pa.Field], name: str, namespace: str) -> dict[str, Any]:
    inner = f"{namespace}.{name}"
    return {
        "type": "record",
        "name": name,
        "namespace": namespace,
        "fields": [
            {"name": f.name, "type": _nullable(f.type, f.name, inner), "default": None}
            for f in fields
        ],
    }


def avro_schema(table: str, schema: pa.Schema) -> dict[str, Any]:
    """The write schema of a table's data columns (every field nullable, default null)."""
    return _record(list(schema), f"{table}_record", f"hoodie.{table}")


def with_meta_fields(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the five ``_hoodie_*`` string fields first (base-file footers)."""
    meta = [
        {"name": n, "type": ["null", "string"], "doc": "", "default": None} for n in META_COLUMNS
    ]
    data = [f for f in schema["fields"] if f["name"] not in META_COLUMNS]
    return {**schema, "fields": [*meta, *data]}


def create_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``hoodie.table.create.schema``: as the write schema, unions written ``[type, "null"]``
    and no defaults (as Hudi's table config stores it)."""

    def flip(node: Any) -> Any:
        if isinstance(node, list):
            return [flip(n) for n in node if n != "null"] + (["null"] if "null" in node else [])
        if isinstance(node, dict):
            return {k: flip(v) for k, v in node.items() if k != "default"}
        return node

    return dict(flip(schema))
