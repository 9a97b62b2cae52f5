"""Iceberg's own parsing of partition values from their text (``DataFiles.Builder.
withPartitionValues``): the reference the JSON partitions lakeshift hands Java
(``iceberg_files.partition_json``) are checked against. (lakeshift built partitions this way
before the JSON form; eight py4j calls a partition.)"""

from __future__ import annotations

from typing import Any

from lakeshift.formats.iceberg_java import Unboxable, _internal
from lakeshift.hive.types import HiveType, parse_hive_type

#: py4j sends a Python int in Java's int range as an Integer, and a float as a Double: a
#: ``long`` or ``float`` partition field then holds the wrong class, which Iceberg refuses.
_INT_RANGE = range(-(2**31), 2**31)


def parsed_partition(iceberg: Any, spec: Any, kinds: list[str], values: list[Any]) -> Any:
    """The ``PartitionData`` of one partition of ``spec`` (its fields' Hive types as the
    target holds them, and typed values), built inside the JVM from the values' text
    (``DataFiles.Builder.withPartitionValues``, Iceberg's own parsing) so that no value
    crosses py4j as a box of the wrong class. Timestamps have no such text in Iceberg 1.10:
    a spec with one is filled value by value, where that is exact.

    Raises:
        Unboxable: a timestamp spec holding a value py4j would send as the wrong class.
    """
    parsed = [parse_hive_type(k) for k in kinds]
    if all(p.kind != "timestamp" for p in parsed):
        texts = [_text(p, v) for p, v in zip(parsed, values)]
        return (
            iceberg.DataFiles.builder(spec)
            .withPath("lakeshift-partition")  # a throwaway entry: only its partition is kept
            .withFormat(iceberg.FileFormat.PARQUET)
            .withFileSizeInBytes(0)
            .withRecordCount(0)
            .withPartitionValues(texts)
            .build()
            .partition()
        )
    data = iceberg.PartitionData(spec.partitionType())
    for position, (p, value) in enumerate(zip(parsed, values)):
        data.set(position, _direct(p, value))
    return data


def _text(kind: HiveType, value: Any) -> str | None:
    """A value as ``Conversions.fromPartitionString`` parses it back exactly."""
    if value is None:
        return None
    if kind.kind == "boolean":
        return "true" if value else "false"
    if kind.kind in ("float", "double"):
        number = float(value)
        if number != number:
            return "NaN"
        if number in (float("inf"), float("-inf")):
            return "Infinity" if number > 0 else "-Infinity"
        return repr(number)
    if kind.kind == "decimal":
        from decimal import Decimal

        return str(Decimal(str(value)).quantize(Decimal(1).scaleb(-kind.params[1])))
    if kind.kind == "date":
        return str(value.isoformat())
    if kind.kind in ("tinyint", "smallint", "int", "bigint"):
        return str(int(value))
    return str(value)


def _direct(kind: HiveType, value: Any) -> Any:
    """``_internal``'s value where py4j sends it as the class Iceberg holds, or
    :class:`Unboxable`."""
    internal = _internal(kind, value)
    if internal is None:
        return None
    if kind.kind == "timestamp" and internal in _INT_RANGE:
        raise Unboxable(f"timestamp {value} is within 36 minutes of 1970-01-01")
    if kind.kind == "bigint" and internal in _INT_RANGE:
        raise Unboxable(f"bigint {value} beside a timestamp key")
    if kind.kind == "float":
        raise Unboxable(f"float {value} beside a timestamp key")
    return internal
