"""Delta schemas with column mapping, built from a :class:`FieldMapping` (pure logic).

Every struct field, nested ones too, carries ``delta.columnMapping.id`` (the mapping's stable
field ID) and ``delta.columnMapping.physicalName`` (the column name inside the Parquet files).
Readers resolve columns by physical name, so a rename only changes the logical name and a
dropped column's physical name is never handed to a new field.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from lakeshift.errors import RefusedInput, SchemaMappingError
from lakeshift.hive.types import DECIMAL_38, HiveType, parse_hive_type
from lakeshift.schema_map.model import FieldMapping, TargetField

#: Table property (``metaData.configuration``) holding ``FieldMapping.to_json()`` as JSON.
DELTA_MAPPING_PROPERTY = "lakeshift.field-mapping"
ID_KEY = "delta.columnMapping.id"
PHYSICAL_NAME_KEY = "delta.columnMapping.physicalName"
#: Spark writes this StructField metadata as the Parquet field id.
PARQUET_FIELD_ID_KEY = "parquet.field.id"

DeltaType = str | dict[str, Any]

_PRIMITIVES = {
    "tinyint": "byte",
    "smallint": "short",
    "int": "integer",
    "bigint": "long",
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "string": "string",
    "char": "string",
    "varchar": "string",
    "binary": "binary",
    "date": "date",
    # Hive TIMESTAMP is wall-clock time (no zone): Delta's timestamp would shift it to UTC.
    "timestamp": "timestamp_ntz",
}


def _refuse(column: str, hive: HiveType) -> SchemaMappingError:
    return SchemaMappingError(
        f"column {column!r} has Hive type {hive}, which a Delta table cannot hold.",
        hint="Cast it in Hive into a supported type (a struct instead of a uniontype).",
    )


def _primitive(hive: HiveType, column: str) -> str:
    if hive.kind in _PRIMITIVES:
        return _PRIMITIVES[hive.kind]
    if hive.kind == "decimal":
        precision, scale = hive.params
        return f"decimal({precision},{scale})"
    raise _refuse(column, hive)


def _array(element: DeltaType) -> dict[str, Any]:
    return {"type": "array", "elementType": element, "containsNull": True}


def _map(key: DeltaType, value: DeltaType) -> dict[str, Any]:
    return {"type": "map", "keyType": key, "valueType": value, "valueContainsNull": True}


def delta_type(hive_type: str, column: str = "?") -> DeltaType:
    """The Delta type of a Hive type string (struct fields without column-mapping metadata).

    Raises:
        SchemaMappingError: naming ``column``, for a type Delta cannot hold (uniontype, void).
    """

    def convert(hive: HiveType, path: str) -> DeltaType:
        if hive.is_primitive:
            return _primitive(hive, path)
        if hive.kind == "array":
            return _array(convert(hive.fields[0][1], path))
        if hive.kind == "map":
            return _map(convert(hive.fields[0][1], path), convert(hive.fields[1][1], path))
        if hive.kind == "struct":
            fields = [
                {"name": n, "type": convert(t, f"{path}.{n}"), "nullable": True, "metadata": {}}
                for n, t in hive.fields
            ]
            return {"type": "struct", "fields": fields}
        raise _refuse(path, hive)

    return convert(parse_hive_type(hive_type), column)


def delta_schema(mapping: FieldMapping, previous: dict[str, Any] | None) -> dict[str, Any]:
    """The ``schemaString`` (as a dict) of ``mapping.fields``, with column-mapping metadata.

    A field found in ``previous`` (by ID, among the same parent's fields) keeps its physical
    name; a new field takes its current name unless a sibling already uses it (now, in
    ``previous``, or as a name of a retired field), then ``col_<id>`` (no hyphen: Hive and
    Spark parse nested names inside type strings).

    Raises:
        SchemaMappingError: a type Delta cannot hold, or a mapping whose children do not match
            its types.
    """
    # Retired fields are listed flat (their parent is not recorded), so their names are kept
    # away from new fields at every level: old files may still hold them under that name.
    reserved = {
        name.casefold()
        for retired in mapping.retired
        for name in (*retired.lineage, retired.name, f"col_{retired.id}")
    }
    return {"type": "struct", "fields": _struct_fields(mapping.fields, previous, "", reserved)}


def _struct_fields(
    children: Sequence[TargetField],
    previous: DeltaType | None,
    prefix: str,
    reserved: set[str],
) -> list[dict[str, Any]]:
    previous_fields = previous.get("fields", []) if isinstance(previous, dict) else []
    by_id = {f["metadata"].get(ID_KEY): f for f in previous_fields if ID_KEY in f["metadata"]}
    taken = reserved | {
        f["metadata"][PHYSICAL_NAME_KEY].casefold()
        for f in previous_fields
        if PHYSICAL_NAME_KEY in f["metadata"]
    }
    physical: dict[int, str] = {}
    for child in children:
        if child.id in by_id:
            physical[child.id] = by_id[child.id]["metadata"][PHYSICAL_NAME_KEY]
    for child in children:
        if child.id not in physical:
            physical[child.id] = _fresh_physical_name(child, taken)
            taken.add(physical[child.id].casefold())
    out = []
    for child in children:
        old = by_id.get(child.id)
        out.append(
            {
                "name": child.name,
                "type": _field_type(child, old["type"] if old else None, prefix, reserved),
                "nullable": True,
                "metadata": {ID_KEY: child.id, PHYSICAL_NAME_KEY: physical[child.id]},
            }
        )
    return out


def _fresh_physical_name(child: TargetField, taken: set[str]) -> str:
    if child.name.casefold() not in taken:
        return child.name
    candidate, n = f"col_{child.id}", 1
    while candidate.casefold() in taken:
        n += 1
        candidate = f"col_{child.id}_{n}"
    return candidate


def _field_type(
    target: TargetField, previous: DeltaType | None, prefix: str, reserved: set[str]
) -> DeltaType:
    path = f"{prefix}{target.name}"
    hive = parse_hive_type(target.type)
    if hive.is_primitive:
        return _primitive(hive, path)
    expected = {"struct": len(hive.fields), "array": 1, "map": 2}.get(hive.kind)
    if expected is None:
        raise _refuse(path, hive)
    if hive.kind != "struct" and len(target.children) != expected:
        raise SchemaMappingError(
            f"the field mapping of column {path!r} ({target.type}) has "
            f"{len(target.children)} child fields, expected {expected}.",
            hint="Re-create the mapping (lakeshift schema) and run again.",
        )
    old = previous if isinstance(previous, dict) and previous.get("type") == hive.kind else {}
    if hive.kind == "struct":
        fields = _struct_fields(target.children, old or None, f"{path}.", reserved)
        return {"type": "struct", "fields": fields}
    if hive.kind == "array":
        element = target.children[0]
        return _array(_field_type(element, old.get("elementType"), f"{path}.", reserved))
    key, value = target.children
    return _map(
        _field_type(key, old.get("keyType"), f"{path}.", reserved),
        _field_type(value, old.get("valueType"), f"{path}.", reserved),
    )


def type_string(delta: DeltaType) -> str:
    """A readable form of a Delta type (``struct<a:long>``, ``array<string>``)."""
    if isinstance(delta, str):
        return delta
    if delta["type"] == "array":
        return f"array<{type_string(delta['elementType'])}>"
    if delta["type"] == "map":
        return f"map<{type_string(delta['keyType'])},{type_string(delta['valueType'])}>"
    inner = ",".join(f"{f['name']}:{type_string(f['type'])}" for f in delta["fields"])
    return f"struct<{inner}>"


def type_changes(previous: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Fields (matched by ID) whose Delta type changed between two schemas.

    Delta cannot change a column's type without rewriting its files, so the caller refuses
    these. Added, dropped or renamed fields are not changes of type.
    """
    return _changes(previous, new, "")


def _changes(old: DeltaType, new: DeltaType, path: str) -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict) and old["type"] == new["type"]:
        if new["type"] == "struct":
            old_by_id = {f["metadata"].get(ID_KEY): f for f in old["fields"]}
            out: list[str] = []
            for field in new["fields"]:
                before = old_by_id.get(field["metadata"].get(ID_KEY))
                if before is not None:
                    child = f"{path}.{field['name']}" if path else field["name"]
                    out.extend(_changes(before["type"], field["type"], child))
            return out
        if new["type"] == "array":
            return _changes(old["elementType"], new["elementType"], f"{path}.element")
        return _changes(old["keyType"], new["keyType"], f"{path}.key") + _changes(
            old["valueType"], new["valueType"], f"{path}.value"
        )
    if old == new:
        return []
    return [f"column {path!r}: {type_string(old)} -> {type_string(new)}"]


def struct_fields(schema: DeltaType) -> Iterator[dict[str, Any]]:
    """Every struct field of a Delta type, nested ones too (inside arrays and maps)."""
    if not isinstance(schema, dict):
        return
    if schema["type"] == "struct":
        for field in schema["fields"]:
            yield field
            yield from struct_fields(field["type"])
    elif schema["type"] == "array":
        yield from struct_fields(schema["elementType"])
    elif schema["type"] == "map":
        yield from struct_fields(schema["keyType"])
        yield from struct_fields(schema["valueType"])


def physical_names(schema: dict[str, Any]) -> dict[str, str]:
    """Top-level logical name -> physical name (the column name in the Parquet files)."""
    return {f["name"]: f["metadata"].get(PHYSICAL_NAME_KEY, f["name"]) for f in schema["fields"]}


def max_column_id(schema: dict[str, Any]) -> int:
    """The highest ``delta.columnMapping.id`` in the schema (0 when there is none)."""
    return max((int(f["metadata"].get(ID_KEY, 0)) for f in struct_fields(schema)), default=0)


def uses_timestamp_ntz(schema: DeltaType) -> bool:
    """Whether any field, nested ones too, is a ``timestamp_ntz``."""
    if isinstance(schema, str):
        return schema == "timestamp_ntz"
    if schema["type"] == "struct":
        return any(uses_timestamp_ntz(f["type"]) for f in schema["fields"])
    if schema["type"] == "array":
        return uses_timestamp_ntz(schema["elementType"])
    return uses_timestamp_ntz(schema["keyType"]) or uses_timestamp_ntz(schema["valueType"])


def physical_schema(schema: DeltaType) -> DeltaType:
    """The schema as the Parquet files hold it: physical names, and the field IDs as
    ``parquet.field.id`` metadata (Spark writes it as the Parquet field id).

    The result is in Spark's JSON schema format (``StructType.fromJson``).
    """
    if isinstance(schema, str):
        return schema
    if schema["type"] == "array":
        return {**schema, "elementType": physical_schema(schema["elementType"])}
    if schema["type"] == "map":
        return {
            **schema,
            "keyType": physical_schema(schema["keyType"]),
            "valueType": physical_schema(schema["valueType"]),
        }
    fields = []
    for field in schema["fields"]:
        meta = field["metadata"]
        fields.append(
            {
                "name": meta.get(PHYSICAL_NAME_KEY, field["name"]),
                "type": physical_schema(field["type"]),
                "nullable": field["nullable"],
                "metadata": {PARQUET_FIELD_ID_KEY: meta[ID_KEY]} if ID_KEY in meta else {},
            }
        )
    return {"type": "struct", "fields": fields}


def partition_text(value: object) -> str | None:
    """A typed partition value (as delta-rs returns it) in Delta's serialization."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def canonical_partition_value(value: str | None, delta: DeltaType) -> str | None:
    """``value`` as Delta serializes a partition value of type ``delta``.

    Delta readers parse partition values by type; only the canonical text reads back as the
    same string, so callers compare it with what they pass.

    Raises:
        RefusedInput: ``value`` does not parse as ``delta``.
    """
    if value is None or delta in ("string", "binary"):
        return value
    try:
        if delta in ("byte", "short", "integer", "long"):
            return str(int(value))
        if delta == "boolean":
            return {"true": "true", "false": "false"}[value.lower()]
        if delta == "date":
            return date.fromisoformat(value).isoformat()
        if delta in ("timestamp_ntz", "timestamp"):
            return datetime.fromisoformat(value).isoformat(sep=" ")
        if isinstance(delta, str) and delta.startswith("decimal("):
            scale = int(delta[:-1].split(",")[1])
            step = Decimal(1).scaleb(-scale)
            return format(Decimal(value).quantize(step, context=DECIMAL_38), "f")
    except (ValueError, KeyError, ArithmeticError) as e:
        raise RefusedInput(f"partition value {value!r} is not a valid {type_string(delta)}.") from e
    return value
