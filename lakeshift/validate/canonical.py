"""Canonical, order-independent row hashing in Spark SQL (pure expression building).

Spark's ``xxhash64`` skips NULL inputs, refuses maps and folds -0.0 into 0.0, so values are
canonicalised first (floating point zeros also hash their text, which keeps the sign):
every value carries a NULL flag, arrays keep element NULL flags (``[1, NULL]`` differs from
``[NULL, 1]``), maps become entry arrays sorted by key, structs flag each field. Decimals keep
their declared scale; timestamps are timezone-free. A row's hash is
``xxhash64(salt, flag1, value1, flag2, value2, ...)``; a partition's fingerprint is the count and
two exact integer sums of such hashes (two salts; summed in Spark as bigint parts, see
``_PARTS``): sums, never XOR, so duplicate rows count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql.types import (
    ArrayType,
    DataType,
    DoubleType,
    FloatType,
    MapType,
    StructField,
    StructType,
)

from lakeshift.hive.spark_sql import quote

SALTS = (0x1A2B3C4D, 0x5E6F7A8B)


def canonical(expr: str, data_type: DataType, depth: int = 0) -> str:
    """SQL for a hashable, canonical form of ``expr`` (its own NULL flag is the caller's)."""
    var = f"c{depth}"
    if isinstance(data_type, ArrayType):
        inner = canonical(var, data_type.elementType, depth + 1)
        return f"transform({expr}, {var} -> named_struct('n', {var} IS NULL, 'v', {inner}))"
    if isinstance(data_type, MapType):
        key = canonical(f"{var}.key", data_type.keyType, depth + 1)
        value = canonical(f"{var}.value", data_type.valueType, depth + 1)
        entry = f"named_struct('k', {key}, 'n', {var}.value IS NULL, 'v', {value})"
        return f"array_sort(transform(map_entries({expr}), {var} -> {entry}))"
    if isinstance(data_type, StructType):
        parts = []
        for index, f in enumerate(data_type.fields):
            child = f"{expr}.{quote(f.name)}"
            parts.append(
                f"'n{index}', {child} IS NULL, 'v{index}', "
                f"{canonical(child, f.dataType, depth + 1)}"
            )
        return f"named_struct({', '.join(parts)})" if parts else "0"
    if isinstance(data_type, FloatType | DoubleType):
        # Spark's hash folds -0.0 into 0.0: zeros also hash their text, which keeps the sign.
        # (Only zeros: casting every value to text doubled the cost of hashing.)
        return f"named_struct('v', {expr}, 'z', IF({expr} = 0, CAST({expr} AS STRING), NULL))"
    return expr


def _xxhash(fields: Sequence[StructField], salt: int) -> str:
    args = [str(salt)]
    for f in fields:
        column = quote(f.name)
        args.append(f"{column} IS NULL")
        args.append(canonical(column, f.dataType))
    return f"xxhash64({', '.join(args)})"


def row_hash(fields: Sequence[StructField], salt: int) -> str:
    """SQL for one salted 64-bit hash of a row's canonical columns, as decimal(38,0)."""
    return f"CAST({_xxhash(fields, salt)} AS DECIMAL(38,0))"


# A 64-bit hash is summed exactly as three bigint sums of its bits 42-63 (signed), 21-41 and
# 0-20: each part is below 2**21 in magnitude, so no sum can overflow before 2**42 rows, and
# bigint sums cost half of decimal(38,0) sums (measured: 0.39 s against 0.73 s for 2,000,000
# rows observed while written). ``from_metrics`` puts the parts together again.
_PARTS = (
    ("hi", "shiftright({h}, 42)", 42),
    ("mid", "shiftright({h}, 21) & 2097151", 21),
    ("lo", "{h} & 2097151", 0),
)


@dataclass(frozen=True)
class Fingerprint:
    """Order-independent summary of a multiset of rows."""

    rows: int
    sum1: str  # the exact integer sum as text: JSON-safe
    sum2: str

    def to_json(self) -> dict[str, object]:
        return {"rows": self.rows, "sum1": self.sum1, "sum2": self.sum2}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Fingerprint:
        return cls(int(data["rows"]), str(data["sum1"]), str(data["sum2"]))  # type: ignore[call-overload]


EMPTY = Fingerprint(0, "0", "0")


def checksum_fields(
    fields: Sequence[StructField], data_columns: Sequence[str]
) -> list[StructField]:
    """The fields a checksum hashes, in the table's column order whatever the frame's: a
    column added to a lake table stands after its partition columns there, and the row hash
    is positional."""
    by_name = {f.name: f for f in fields}
    return [by_name[c] for c in data_columns if c in by_name]


def aggregate_sql(fields: Sequence[StructField]) -> list[str]:
    """Aggregate expressions: the row count and, per salt, the three parts of the hash sum
    (Spark computes each salt's hash once for its three parts; NULL sums on empty input)."""
    out = ["count(1) AS rows"]
    for number, salt in enumerate(SALTS[:2], 1):
        hashed = f"({_xxhash(fields, salt)})"
        out += [f"sum({part.format(h=hashed)}) AS sum{number}_{name}" for name, part, _ in _PARTS]
    return out


def from_metrics(values: Mapping[str, Any]) -> Fingerprint:
    """The fingerprint from ``aggregate_sql``'s named results."""

    def total(number: int) -> str:
        parts = (values[f"sum{number}_{name}"] for name, _, _ in _PARTS)
        return str(sum(int(v or 0) << shift for v, (_, _, shift) in zip(parts, _PARTS)))

    return Fingerprint(int(values["rows"] or 0), total(1), total(2))
