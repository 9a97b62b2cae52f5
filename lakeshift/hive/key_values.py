"""A partition's metastore text as the user's Hive shows it for a key of each type.

Hive converts the partition spec's text with its ObjectInspector converters from a Java string
(``FetchOperator.createPartValue``, ``MapOperator``), whose rules are Java's parsers, not SQL
casts: integers by ``Integer.parseInt``/``Long.parseLong`` (no blanks, no fraction, any decimal
digit of the BMP; tinyint and smallint parsed as int and narrowed with wrap-around), floating
point by
``Double.parseDouble``/``Float.parseFloat`` (blanks trimmed, ``NaN``/``Infinity``), decimals by
``HiveDecimal`` (spaces trimmed, ASCII digits; Hive 1.2's: every blank trimmed, any digit;
HALF_UP to the scale, NULL past the precision), dates and timestamps by
``getDate``/``getTimestampFromString`` (``hive.datetimes``: java.sql's parsers in the hybrid
calendar before Hive 3, Hive's java.time ones after), booleans by HIVE-15939's rule in 3.0+
(``false``, ``off``, ``no``, ``0`` and the empty string are false) and before it any non-empty
text is true; CHAR is padded and cut to its length, VARCHAR cut. Hand-written: no library
reproduces Hive's converters; Hive 2.3.9's own answers for every rule are in
``tests/integration/test_hive_oracle.py``.

Two choices differ from Hive's FetchOperator on purpose (README, "Which Hive"): the NULL
partition (``__HIVE_DEFAULT_PARTITION__``) of a string key is NULL, as Spark, Trino and Hive's own
``IS NULL`` pruning treat it, not the marker text; and timestamps keep microseconds (the
inspector flags keys whose text holds more).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import numpy as np

from lakeshift.hive import datetimes, decimals
from lakeshift.hive.types import INTEGER_BITS, HiveType

_JAVA_INT = re.compile(f"[+-]?[{datetimes.JAVA_DIGITS}]+")  # any decimal digit of the BMP
# Double.parseDouble: NaN and Infinity exactly (no suffix), or a number with an optional suffix
_JAVA_FLOAT = re.compile(r"[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)", re.ASCII)
_JAVA_HEX = re.compile(
    r"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?", re.ASCII
)
_BITS = INTEGER_BITS
HIVE3_FALSE = frozenset({"false", "off", "no", "0", ""})


def _wrap(value: int, bits: int) -> int:
    return (value + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)


def _java_integer(text: str, bits: int) -> int | None:
    if not _JAVA_INT.fullmatch(text):
        return None
    value = int(text)
    parsed = 64 if bits == 64 else 32  # byte and short converters parse an int, then narrow
    if not -(2 ** (parsed - 1)) <= value < 2 ** (parsed - 1):
        return None
    return _wrap(value, bits)


def _java_floating(text: str, single: bool) -> float | None:
    stripped = datetimes.java_trim(text)
    body = stripped[:-1] if stripped[-1:] in ("f", "F", "d", "D") else stripped
    if _JAVA_HEX.fullmatch(stripped):
        value = float.fromhex(body)
    elif _JAVA_FLOAT.fullmatch(stripped):
        value = float(body.replace("Infinity", "inf"))
    else:
        return None
    if not single:
        return value
    with np.errstate(over="ignore"):  # past a float's range is Infinity, as in Java
        return float(np.float32(value))


def _key_datetime(
    text: str, kind: str, hive3: bool, hive4: bool = False, zone: str | None = None
) -> dt.datetime | None:
    """A key's text as Hive's converter reads it, shown by its label (a Julian-only day such
    as 1500-02-29 has no proleptic label: None). ``zone``: Hive 1.2/2.x's JVM zone (not UTC),
    in which ``Timestamp.valueOf`` moves a wall clock the clocks skip past the gap."""
    parse = datetimes.converter_date if kind == "date" else datetimes.converter_timestamp
    found = datetimes.instant(parse(text, hive3, hive4), hybrid=not hive3, bounded=False)
    if found is None:
        return None
    days, micros = found
    if zone and kind == "timestamp" and not hive3:  # the wall clock after lenient overflow
        year, month, day = datetimes.label(days, hybrid=True)
        seconds, fraction = divmod(micros, 1_000_000)
        wall = (year, month, day, seconds // 3600, seconds % 3600 // 60, seconds % 60, fraction)
        micros += 1_000_000 * datetimes.sql_gap_seconds(wall, zone)
        days, micros = days + micros // 86_400_000_000, micros % 86_400_000_000
    year, month, day = datetimes.label(days, hybrid=not hive3)
    seconds, fraction = divmod(micros, 1_000_000)
    try:
        return dt.datetime(
            year, month, day, seconds // 3600, seconds % 3600 // 60, seconds % 60, fraction
        )
    except ValueError:  # a label Python's proleptic dates cannot hold
        return None


def hive_value(text: str, hive: HiveType, version: str, zone: str | None = None) -> Any:
    """``text`` (a partition's metastore value, not the NULL partition) as Hive ``version``
    shows a key of type ``hive``; None where it shows NULL. ``zone``: the zone Hive's JVMs run
    in where not UTC (``HiveSemantics.jvm_zone``): Hive 1.2/2.x parse a timestamp key there."""
    kind = hive.kind
    hive3 = version in ("3.1", "4")
    if kind in ("string", "binary"):
        return text
    if kind == "char":
        return text[: hive.params[0]].ljust(hive.params[0])
    if kind == "varchar":
        return text[: hive.params[0]]
    if kind == "boolean":
        return text.lower() not in HIVE3_FALSE if hive3 else len(text) > 0
    if kind in _BITS:
        return _java_integer(text, _BITS[kind])
    if kind == "decimal":
        value = decimals.create(text, big_decimal=version == "1.2")
        return None if value is None else decimals.enforce(value, *hive.params)
    if kind in ("float", "double"):
        return _java_floating(text, kind == "float")
    if kind == "date":
        stamp = _key_datetime(text, "date", hive3, version == "4")
        return stamp.date() if stamp else None
    if kind == "timestamp":
        return _key_datetime(text, "timestamp", hive3, version == "4", zone)
    return text


def lost_precision(text: str, hive: HiveType) -> bool:
    """Whether a timestamp key's text holds digits below a microsecond that are not zero."""
    if hive.kind != "timestamp" or "." not in text:
        return False
    fraction = re.match(r"\d*", datetimes.java_trim(text).rpartition(".")[2])
    digits = fraction.group(0)[:9] if fraction else ""
    return digits[6:].strip("0") != ""
