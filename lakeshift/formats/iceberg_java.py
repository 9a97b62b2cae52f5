"""Iceberg's Java API through py4j, shared by the format's modules: the target's types,
Java's boxed partition values, and the translation of Iceberg's conflict refusal."""

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


class _JavaBoxes:
    """Java's boxed types, looked up once (each lookup through py4j is a round trip)."""

    def __init__(self, jvm: Any) -> None:
        lang = jvm.java.lang
        self.integer, self.long, self.float = lang.Integer, lang.Long, lang.Float
        self.double, self.decimal = lang.Double, jvm.java.math.BigDecimal

    def value(self, hive: str, value: Any) -> Any:
        """A partition value as Iceberg's Java API holds it internally (ints as Integer, longs
        as Long, dates as days, timestamps as microseconds, decimals as BigDecimal)."""
        if value is None:
            return None
        kind = parse_hive_type(hive)
        if kind.kind in ("tinyint", "smallint", "int"):
            return self.integer.valueOf(int(value))
        if kind.kind == "bigint":
            return self.long.valueOf(str(int(value)))
        if kind.kind == "float":
            return self.float.valueOf(repr(float(value)))
        if kind.kind == "double":
            return self.double.valueOf(repr(float(value)))
        if kind.kind == "date":
            return self.integer.valueOf((value - _EPOCH.date()).days)
        if kind.kind == "timestamp":
            delta = value - _EPOCH.replace(tzinfo=None)
            micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
            return self.long.valueOf(str(micros))
        if kind.kind == "decimal":
            return self.decimal(str(value)).setScale(kind.params[1])
        return value  # booleans and strings: py4j's own conversion
