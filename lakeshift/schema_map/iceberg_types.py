"""Which Hive types the Iceberg target holds, and which type changes Iceberg can represent."""

from __future__ import annotations

from lakeshift.hive.types import HiveType

# Hive primitive -> Iceberg primitive name (Iceberg has no 8/16-bit ints, CHAR or VARCHAR).
ICEBERG_PRIMITIVES = {
    "tinyint": "int",
    "smallint": "int",
    "int": "int",
    "bigint": "long",
    "boolean": "boolean",
    "float": "float",
    "double": "double",
    "string": "string",
    "char": "string",
    "varchar": "string",
    "binary": "binary",
    "date": "date",
    "timestamp": "timestamp",
    "decimal": "decimal",
}


def iceberg_kind(hive: HiveType) -> str | None:
    """Iceberg type family of a Hive type (``None`` when Iceberg cannot hold it)."""
    if hive.kind in ("struct", "array", "map"):
        return hive.kind
    return ICEBERG_PRIMITIVES.get(hive.kind)


def change_allowed(old: HiveType, new: HiveType) -> bool:
    """Whether Iceberg can evolve a column of type ``old`` to ``new`` without rewriting data.

    Same Iceberg type, int -> long, float -> double, and decimal precision widening (same scale).
    Nested types are checked field by field by the caller.
    """
    old_kind, new_kind = iceberg_kind(old), iceberg_kind(new)
    if old_kind is None or new_kind is None:
        return False
    if old_kind in ("struct", "array", "map") or new_kind in ("struct", "array", "map"):
        return old_kind == new_kind
    if old_kind == "decimal" and new_kind == "decimal":
        (old_p, old_s), (new_p, new_s) = old.params, new.params
        return new_s == old_s and new_p >= old_p
    if old_kind == new_kind:
        return True
    return (old_kind, new_kind) in {("int", "long"), ("float", "double")}
