"""A partition's metastore text as the user's Hive shows it for a key of each type.

Hive converts the partition spec's text with its ObjectInspector converters from a Java string
(``FetchOperator.createPartValue``, ``MapOperator``), whose rules are Java's parsers, not SQL
casts: integers by ``Integer.parseInt``/``Long.parseLong`` (no blanks, no fraction; tinyint and
smallint parsed as int and narrowed with wrap-around), floating point by
``Double.parseDouble``/``Float.parseFloat`` (blanks trimmed, ``NaN``/``Infinity``), decimals by
``HiveDecimal`` (trimmed, HALF_UP to the scale, NULL past the precision), dates and timestamps by
``java.sql.Date/Timestamp.valueOf`` (Hive 1.2/2.x: trimmed, lenient, hybrid calendar) or by
Hive 3's ``java.time`` parsers (lenient, proleptic), booleans by HIVE-15939's rule in 3.0+
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
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

import numpy as np

from lakeshift.schema_map.hive_types import HiveType

_JAVA_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_JAVA_BLANKS = "".join(chr(c) for c in range(0x21))  # String.trim: every char <= ' '
_JAVA_FLOAT = re.compile(r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)", re.ASCII)
_JAVA_HEX = re.compile(
    r"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?", re.ASCII
)
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_YMD = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})", re.ASCII)
_HIVE3_DATE = re.compile(r"(\d{1,9})-(\d{1,2})-(\d{1,2})", re.ASCII)
_HIVE3_TIME = re.compile(r"(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,9}))?)?", re.ASCII)
_BITS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}
HIVE3_FALSE = frozenset({"false", "off", "no", "0", ""})
_GREGORIAN_START = 2299161  # Julian day number of 1582-10-15, the hybrid calendar's switch


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
    stripped = text.strip(_JAVA_BLANKS)
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


def _hive_decimal(text: str, precision: int, scale: int) -> Decimal | None:
    stripped = text.strip(_JAVA_BLANKS)
    if not _DECIMAL.fullmatch(stripped):
        return None
    try:
        value = Decimal(stripped)
    except InvalidOperation:
        return None
    limit = Decimal(10) ** (precision - scale)
    if abs(value) >= limit:  # too large even before rounding
        return None
    rounded = value.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    return rounded if abs(rounded) < limit else None


def _julian_day(year: int, month: int, day: int, hybrid: bool) -> int:
    """The Julian day number of a date; ``hybrid``: dates before 1582-10-15 counted in the
    Julian calendar, as Java's GregorianCalendar does, else proleptic Gregorian."""
    a = (14 - month) // 12
    y, m = year + 4800 - a, month + 12 * a - 3
    base = day + (153 * m + 2) // 5 + 365 * y + y // 4
    if hybrid and (year, month, day) < (1582, 10, 15):
        return base - 32083
    return base - y // 100 + y // 400 - 32045


def _label(julian: int, hybrid: bool) -> tuple[int, int, int]:
    """(year, month, day) of a Julian day number in the hybrid or proleptic calendar."""
    if hybrid and julian < _GREGORIAN_START:
        c = julian + 32082
        d = (4 * c + 3) // 1461
        e = c - 1461 * d // 4
    else:
        a = julian + 32044
        b = (4 * a + 3) // 146097
        c = a - 146097 * b // 4
        d = (4 * c + 3) // 1461
        e = c - 1461 * d // 4
        d += 100 * b
    m = (5 * e + 2) // 153
    day = e - (153 * m + 2) // 5 + 1
    month = m + 3 - 12 * (m // 10)
    year = d - 4800 + m // 10
    return year, month, day


def _lenient(
    fields: tuple[int, int, int], time: tuple[int, int, int, int], hybrid: bool
) -> dt.datetime | None:
    """Fields resolved as a lenient calendar does (day 30 of February is March 1, hour 25 the
    next day), shown by label: Hive 2's dates count in the hybrid calendar, and a year before 1
    is shown by its era's year (1 BC as 0001)."""
    year, month, day = fields
    hours, minutes, seconds, micros = time
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    total = hours * 3600 + minutes * 60 + seconds
    days, rest = divmod(total, 86400)
    julian = _julian_day(year, month, 1, hybrid) + day - 1 + days
    y, m, d = _label(julian, hybrid)
    if y < 1 and hybrid:
        y = 1 - y
    try:
        return dt.datetime(y, m, d, rest // 3600, rest % 3600 // 60, rest % 60, micros)
    except ValueError:  # a label the target's proleptic dates cannot hold (Julian Feb 29)
        return None


def _micros(fraction: str | None) -> int:
    return int(((fraction or "")[:9] + "000000")[:6])


def _hive2_timestamp(text: str) -> dt.datetime | None:
    """Hive 1.2/2.x ``getTimestampFromString``: trimmed, ``00:00:00`` added to a bare date,
    then ``java.sql.Timestamp.valueOf`` (date fields checked, time fields lenient)."""
    text = text.strip(_JAVA_BLANKS)
    if " " not in text:
        text += " 00:00:00"
    day, _, time = text.partition(" ")
    match = _YMD.fullmatch(day)
    parts = time.split(":", 2)
    if not match or len(parts) != 3 or not parts[2]:
        return None
    seconds, period, fraction = parts[2].partition(".")
    fraction = fraction[:9]  # Hive drops digits past nanoseconds before parsing
    if period and not _DIGITS.fullmatch(fraction):
        return None
    if not all(_JAVA_INT.fullmatch(n) for n in (parts[0], parts[1], seconds)):
        return None
    year, month, day_of_month = (int(g) for g in match.groups())
    if not (1 <= month <= 12 and 1 <= day_of_month <= 31):
        return None
    time_of_day = (int(parts[0]), int(parts[1]), int(seconds), _micros(fraction))
    return _lenient((year, month, day_of_month), time_of_day, hybrid=True)


def _hive2_date(text: str) -> dt.date | None:
    """Hive 1.2/2.x ``getDate``: ``java.sql.Date.valueOf`` of the trimmed text, else the date
    of its timestamp."""
    stripped = text.strip(_JAVA_BLANKS)
    match = _YMD.fullmatch(stripped)
    if match:
        year, month, day = (int(g) for g in match.groups())
        if 1 <= month <= 12 and 1 <= day <= 31:
            value = _lenient((year, month, day), (0, 0, 0, 0), hybrid=True)
            return value.date() if value else None
    stamp = _hive2_timestamp(stripped)
    return stamp.date() if stamp else None


def _hive3_timestamp(text: str) -> dt.datetime | None:
    """Hive 3.x/4 ``getTimestampFromString`` as read in its source: trimmed, a date alone is
    midnight, ``date time`` or ISO ``dateTtime`` with up to nine fraction digits, resolved
    leniently in the proleptic calendar."""
    stripped = text.strip(_JAVA_BLANKS)
    day, sep, time = stripped.partition(" " if " " in stripped else "T")
    match = _HIVE3_DATE.fullmatch(day)
    if not match:
        return None
    clock = (0, 0, 0, 0)
    if sep:
        found = _HIVE3_TIME.fullmatch(time)
        if not found:
            return None
        hours, minutes, seconds, fraction = found.groups()
        clock = (int(hours), int(minutes), int(seconds or 0), _micros(fraction))
    fields = tuple(int(g) for g in match.groups())
    return _lenient((fields[0], fields[1], fields[2]), clock, hybrid=False)


def _hive3_date(text: str) -> dt.date | None:
    """Hive 3.x/4 ``getDate``: the date of the text read as a timestamp (a bare date is
    midnight), lenient and proleptic."""
    stamp = _hive3_timestamp(text)
    return stamp.date() if stamp else None


def hive_value(text: str, hive: HiveType, version: str) -> Any:
    """``text`` (a partition's metastore value, not the NULL partition) as Hive ``version``
    shows a key of type ``hive``; None where it shows NULL."""
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
        return _hive_decimal(text, *hive.params)
    if kind in ("float", "double"):
        return _java_floating(text, kind == "float")
    if kind == "date":
        return _hive3_date(text) if hive3 else _hive2_date(text)
    if kind == "timestamp":
        return _hive3_timestamp(text) if hive3 else _hive2_timestamp(text)
    return text


def lost_precision(text: str, hive: HiveType) -> bool:
    """Whether a timestamp key's text holds digits below a microsecond that are not zero."""
    if hive.kind != "timestamp" or "." not in text:
        return False
    fraction = re.match(r"\d*", text.strip(_JAVA_BLANKS).rpartition(".")[2])
    digits = fraction.group(0)[:9] if fraction else ""
    return digits[6:].strip("0") != ""
