"""Iceberg's Java API through py4j, shared by the format's modules: the target's types,
Iceberg's internal partition values, and the translation of Iceberg's conflict refusal."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from lakeshift.hive.types import HiveType, parse_hive_type

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def iceberg_hive_type(hive: HiveType) -> HiveType:
    """The Hive type as the Iceberg target holds it (no 8/16-bit ints, no CHAR/VARCHAR)."""
    if hive.kind in ("tinyint", "smallint"):
        return HiveType("int")
    if hive.kind in ("char", "varchar"):
        return HiveType("string")
    if hive.fields:
        return HiveType(
            hive.kind, hive.params, tuple((n, iceberg_hive_type(t)) for n, t in hive.fields)
        )
    return hive


def java_items(items: Any) -> list[Any]:
    """A Java ``List``'s elements, read by index. py4j iterates a Java list through its
    iterator, whose end is a Java ``NoSuchElementException``; under PySpark every such end is
    converted as a captured error, about 13 ms each here: more than the rest of a short list."""
    return [items.get(i) for i in range(items.size())]


def _translated_conflict(target: str, commit: Any) -> None:
    """Run ``commit``; Iceberg's refusal of another writer's conflicting files is exit 8."""
    try:
        commit()
    except Exception as e:
        text = str(e)
        if "ValidationException" not in text or "onflicting" not in text:
            raise
        from lakeshift.formats.foreign import foreign_commit_error

        line = next((x for x in text.splitlines() if "onflicting" in x), text)[:300]
        raise foreign_commit_error(f"Iceberg table {target}", [line.strip()]) from e


def internal_value(hive: str, value: Any) -> Any:
    """A typed partition value as Iceberg holds it internally, in the Python type py4j turns
    into that Java class: ints, dates as days, timestamps as microseconds, decimals at their
    type's scale (py4j passes a Decimal as a BigDecimal of its own scale), the rest as they
    are. (py4j hands any boxed Java value back as Python's, so boxing here would only add
    round trips.)"""
    return _internal(parse_hive_type(hive), value)


def _internal(kind: HiveType, value: Any) -> Any:
    if value is None:
        return None
    if kind.kind in ("tinyint", "smallint", "int", "bigint"):
        return int(value)
    if kind.kind in ("float", "double"):
        return float(value)
    if kind.kind == "date":
        return (value - _EPOCH.date()).days
    if kind.kind == "timestamp":
        delta = value - _EPOCH.replace(tzinfo=None)
        return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    if kind.kind == "decimal":
        from decimal import Decimal

        return Decimal(str(value)).quantize(Decimal(1).scaleb(-kind.params[1]))
    return value  # booleans and strings


class Unboxable(ValueError):
    """A partition value py4j cannot hand Iceberg's Java API as the class it needs."""
