"""Partition values: a partition's metastore text as the user's Hive shows it (``typed_value``,
by ``hive.key_values``), and a target's stored value in the same form (``comparable``).

A target's values come back typed (Iceberg, Hudi) or as the canonical text lakeshift wrote
(Delta); ``canonical_value`` reads such text with Spark's ``CAST(text AS type)`` rules, restated
here so no Spark job is needed. Hand-written: no library reproduces Spark's cast grammar;
``tests/integration/test_partition_values.py`` holds every rule against Spark's own CAST.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

import numpy as np

from lakeshift.hive.datetimes import java_trim
from lakeshift.hive.key_values import hive_value
from lakeshift.hive.types import DECIMAL_38, INTEGER_BITS, parse_hive_type

_EDGES = "".join(chr(c) for c in range(0x21)) + "\x7f"  # UTF8String.trimAll: blanks, controls
_TRUE = frozenset({"t", "true", "y", "yes", "1"})
_FALSE = frozenset({"f", "false", "n", "no", "0"})
_BITS = INTEGER_BITS
_INTEGRAL = re.compile(r"([+-]?)(\d+)(?:\.\d*)?|([+-]?)\.\d+", re.ASCII)
_DATE = re.compile(r"([+-]?\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T].*)?)?)?", re.S | re.ASCII)
_TIMESTAMP = re.compile(
    r"([+-]?\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2})"
    r"(?:[ T](?:(\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:\.(\d*))?)?)?"
    r"\s*(?:Z|UTC|GMT|[+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?|[A-Za-z][A-Za-z0-9/_+-]*)?)?)?)?)?",
    re.ASCII,
)
_FLOAT_WORDS = {
    "inf": float("inf"),
    "+inf": float("inf"),
    "infinity": float("inf"),
    "+infinity": float("inf"),
    "-inf": float("-inf"),
    "-infinity": float("-inf"),
    "nan": float("nan"),
}
_JAVA_FLOAT = re.compile(r"[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?", re.ASCII)
_JAVA_HEX = re.compile(
    r"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?", re.ASCII
)


def _integral(text: str, bits: int) -> int | None:
    # UTF8String.toLong/toInt: sign, digits, a fraction that is dropped; NULL on overflow.
    match = _INTEGRAL.fullmatch(text.strip(_EDGES))
    if not match:
        return None
    if match.group(2) is None:  # ".5": no integer digits, reads 0
        return 0
    value = int(match.group(2)) * (-1 if match.group(1) == "-" else 1)
    parsed_as = 64 if bits == 64 else 32  # bytes and shorts are parsed as ints, then narrowed
    if not -(2 ** (parsed_as - 1)) <= value < 2 ** (parsed_as - 1):
        return None
    return value if -(2 ** (bits - 1)) <= value < 2 ** (bits - 1) else None


def _decimal(text: str, precision: int, scale: int) -> Decimal | None:
    # Decimal.fromString: java.math.BigDecimal of the trimmed text, then HALF_UP to the scale.
    try:
        value = Decimal(java_trim(text))
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    if abs(value) >= Decimal(10) ** (precision - scale):  # too large even before rounding
        return None
    rounded = value.quantize(Decimal(1).scaleb(-scale), ROUND_HALF_UP, DECIMAL_38)
    return rounded if abs(rounded) < Decimal(10) ** (precision - scale) else None


def _floating(text: str, single: bool) -> float | None:
    # Java's Double.parseDouble (decimal and hexadecimal forms, a d/f suffix), Spark's words
    # for infinity and NaN; a float is the double rounded to single precision.
    stripped = text.strip(_EDGES)
    value = _FLOAT_WORDS.get(stripped.lower())
    if value is None:
        body = stripped[:-1] if stripped[-1:] in ("f", "F", "d", "D") else stripped
        if _JAVA_HEX.fullmatch(stripped):
            value = float.fromhex(body)
        elif _JAVA_FLOAT.fullmatch(stripped):
            value = float(body)
        else:
            return None
    return float(np.float32(value)) if single else value


def _day(year: str, month: str | None, day: str | None) -> dt.date | None:
    try:
        return dt.date(int(year), int(month or 1), int(day or 1))
    except ValueError:  # no such day, or a year Python's dates cannot hold
        return None


def _date(text: str) -> dt.date | None:
    match = _DATE.fullmatch(text.strip(_EDGES))
    return _day(*match.groups()) if match else None


def _timestamp(text: str) -> dt.datetime | None:
    match = _TIMESTAMP.fullmatch(text.strip(_EDGES))
    if not match:
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    date = _day(year, month, day)
    h, m, s = int(hour or 0), int(minute or 0), int(second or 0)
    if date is None or h > 23 or m > 59 or s > 59:
        return None
    micros = int(((fraction or "") + "000000")[:6])
    return dt.datetime(date.year, date.month, date.day, h, m, s, micros)


def typed_value(text: str | None, hive_type: str, version: str, zone: str | None = None) -> Any:
    """``text`` (a partition's metastore value; None for the NULL partition) as Hive
    ``version`` whose JVMs run in ``zone`` (``HiveSemantics.jvm_zone``: None for UTC) shows a
    key of ``hive_type`` (what the backfill writes); None where it shows NULL."""
    if text is None:
        return None
    return hive_value(text, parse_hive_type(hive_type), version, zone)


def canonical_value(text: str | None, hive_type: str) -> Any:
    """Canonical text (as lakeshift writes Delta partition values) read with Spark's CAST
    rules for a key of ``hive_type``; None where it reads NULL."""
    if text is None:
        return None
    hive = parse_hive_type(hive_type)
    kind = hive.kind
    if kind in ("string", "char", "varchar", "binary"):
        return text
    if kind == "boolean":
        word = text.strip(_EDGES).lower()
        return True if word in _TRUE else False if word in _FALSE else None
    if kind in _BITS:
        return _integral(text, _BITS[kind])
    if kind == "decimal":
        return _decimal(text, *hive.params)
    if kind in ("float", "double"):
        return _floating(text, kind == "float")
    if kind == "date":
        return _date(text)
    if kind == "timestamp":
        return _timestamp(text)
    return text


def comparable(value: Any, hive_type: str) -> Any:
    """A target's partition value (typed, or canonical text such as Delta's) in the form
    ``typed_value`` gives, so that the two compare equal when they are one value."""
    if value is None or isinstance(value, bool | Decimal | dt.date | int | float):
        if isinstance(value, dt.datetime):
            return value.replace(tzinfo=None)
        if isinstance(value, Decimal):
            return canonical_value(format(value, "f"), hive_type)
        return value
    return canonical_value(str(value), hive_type)
