"""How Hive's read path turns text into values, and values into text (one value at a time).

These are the rules lakeshift's reader is specified to follow (docs/concepts.md; the
reader's tests): text that does not convert reads as NULL; whitespace and control characters
around a number are ignored; an integer may carry a fraction, which is dropped; decimals round
half up. Dates and timestamps from text follow Java's parsers as Hive calls them
(``lakeshift.hive.datetimes``); ORC's own string-to-date rules are here. Written
again from those rules, not from the Spark reader's code.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np

from lakeshift.hive import decimals
from lakeshift.hive.datetimes import JAVA_DIGITS, SWITCH_DAY, java_trim, label
from lakeshift.hive.decimals import enforce as fit_decimal
from lakeshift.hive.types import DECIMAL_38
from lakeshift.validate.independent.java_float_text import java_float_text

_EDGES = "".join(chr(c) for c in range(0x21)) + "\x7f"  # whitespace and ISO control bytes
# Java's number parsers know ASCII digits only (Python's \d is any Unicode digit), except
# Integer.parseInt/Long.parseLong: java_long.
_INTEGER = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
# Double.parseDouble: NaN and Infinity exactly (a sign allowed, no suffix), or a number with
# an optional f/F/d/D suffix.
_JAVA_FLOAT = re.compile(r"[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)", re.ASCII)
_JAVA_HEX = re.compile(
    r"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?", re.ASCII
)
_TRUE = frozenset({"t", "true", "y", "yes", "1"})
_FALSE = frozenset({"f", "false", "n", "no", "0"})
EPOCH = dt.date(1970, 1, 1)
_LIMITS = {8: 2**7, 16: 2**15, 32: 2**31, 64: 2**63}


def trimmed(text: str) -> str:
    return text.strip(_EDGES)


_LAZY_INTEGER = re.compile(r"([+-]?)([0-9]*)(?:\.[0-9]*)?", re.ASCII)


def lazy_integer(text: str, bits: int) -> int | None:
    """A string read as an integer by Hive's converter: ``LazyLong.parseLong`` for a bigint,
    else ``LazyInteger.parseInt`` narrowed with wrap-around (``getByte`` is ``(byte) getInt``).
    No blanks; digits may be absent around a dropped fraction (``.5`` and ``-.`` are 0); a
    value outside the long or int NULL."""
    match = _LAZY_INTEGER.fullmatch(text)
    if not match or text in ("", "+", "-"):
        return None
    value = int(match.group(1) + (match.group(2) or "0"))
    wide = 64 if bits == 64 else 32
    if not -_LIMITS[wide] <= value < _LIMITS[wide]:
        return None
    return wrap(value, bits)


def parse_integer(text: str, bits: int) -> int | None:
    """An integer of ``bits`` bits, or None: sign, digits, an optional fraction (dropped)."""
    match = _INTEGER.fullmatch(trimmed(text))
    if not match or match.group(0) in ("", "+", "-"):
        return None
    sign, digits = match.group(1), match.group(2) or "0"
    value = -int(digits) if sign == "-" else int(digits)
    # A narrower type is parsed as an int first, then must fit.
    limit = _LIMITS[max(bits, 32)]
    if not -limit <= value < limit:
        return None
    return value if -_LIMITS[bits] <= value < _LIMITS[bits] else None


def parse_boolean(text: str) -> bool | None:
    word = trimmed(text).lower()
    return True if word in _TRUE else False if word in _FALSE else None


def parse_floating(text: str) -> float | None:
    """Java's ``Double.parseDouble`` (blanks trimmed; ``NaN``, ``Infinity``, decimal and
    hexadecimal forms with an optional f/d suffix), which every Hive reader of text calls
    (``inf`` or ``nan``, which Spark's CAST would read, are NULL)."""
    stripped = java_trim(text)
    if _JAVA_FLOAT.fullmatch(stripped):
        body = stripped.rstrip("fFdD") if stripped[-1:] in "fFdD" else stripped
        return float(body.replace("Infinity", "inf"))
    if _JAVA_HEX.fullmatch(stripped):
        body = stripped.rstrip("fFdD") if stripped[-1:] in "fFdD" else stripped
        return float.fromhex(body)
    return None


def parse_float32(text: str) -> float | None:
    """Java's ``Float.parseFloat`` (Hive's converter and text SerDe, ORC 1.3-1.5): the text
    rounded once to a float (``nearest_float32``; a hexadecimal form is exact in the double
    already). (Hand-written: Python and numpy parse through a double.)"""
    value = parse_floating(text)
    if value is None or not math.isfinite(value):
        return value

    def exact() -> Decimal | None:
        stripped = java_trim(text).rstrip("fFdD")
        return Decimal(stripped) if _DECIMAL.fullmatch(stripped) else None

    return _rounded_once(value, exact)


def nearest_float32(exact: Decimal) -> float:
    """``exact`` rounded once to the nearest float, ties to even: Java's
    ``BigDecimal.floatValue`` (Hive 4's Parquet reader building a decimal for a float table).
    Rounding to the nearest double first, then to a float, goes wrong only where the double
    lands exactly halfway between two floats; there the exact value decides."""
    return _rounded_once(float(exact), lambda: exact)


def _rounded_once(value: float, exact_of: Callable[[], Decimal | None]) -> float:
    """The float nearest to an exact value, given ``value``, the double nearest to it;
    ``exact_of`` gives the exact value (``None``: ``value`` is it) where it decides."""
    with np.errstate(over="ignore"):
        near = np.float32(value)
        if not np.isfinite(near) or float(near) == value:
            return float(near)
        away = np.nextafter(near, np.float32(math.inf if value > float(near) else -math.inf))
    low, high = sorted((float(near), float(away)))
    middle = (Decimal(low) + Decimal(high)) / 2
    exact = exact_of() if Decimal(value) == middle else None
    if exact is None:
        return float(near)
    return float(near) if exact == middle else (high if exact > middle else low)


def parse_decimal(
    text: str, precision: int, scale: int, big_decimal: bool = False, trim_blanks: bool = True
) -> Decimal | None:
    """``HiveDecimal.create(text)`` (``big_decimal``: Hive 1.2's; ``trim_blanks``: spaces
    around it allowed, as everywhere but a text file's own field since Hive 2.2), then rounded
    half up to ``scale`` and NULL past ``precision``."""
    value = decimals.create(text, big_decimal, trim_blanks)
    return None if value is None else fit_decimal(value, precision, scale)


def timestamp_text(micros: int) -> str:
    """``yyyy-MM-dd HH:mm:ss`` and the fraction without trailing zeros, if any."""
    days, clock, fraction = _stamp_parts(micros)
    return f"{date_text(days)} {clock}" + (f".{fraction}" if fraction else "")


def _stamp_parts(micros: int) -> tuple[int, str, str]:
    """A timestamp's days since 1970, ``HH:mm:ss`` and fraction digits without trailing
    zeros."""
    seconds, fraction = divmod(micros, 1_000_000)
    days, rest = divmod(seconds, 86400)
    clock = f"{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
    return days, clock, f"{fraction:06d}".rstrip("0")


def date_text(days: int) -> str:
    return (EPOCH + dt.timedelta(days=days)).isoformat()


def sql_date_text(days: int, stored: bool) -> str:
    """``java.sql.Date.toString`` (ORC 1.3-1.5's date written as text): with ``stored`` (the
    day number as stored, ``calendar = "proleptic"``) by its hybrid calendar's label, Julian
    before 1582-10-15 (1500-02-29 as such; 1 BC as 0001), else the label ``days`` bears."""
    if not stored or days >= SWITCH_DAY:
        return date_text(days)
    year, month, day = label(days, hybrid=True)
    return f"{year:04d}-{month:02d}-{day:02d}"


def sql_timestamp_text(micros: int, stored: bool) -> str:
    """``java.sql.Timestamp.toString`` (ORC 1.3-1.5's timestamp written as text): as
    ``sql_date_text`` for the day, the fraction without trailing zeros but at least ``.0``."""
    days, clock, fraction = _stamp_parts(micros)
    return f"{sql_date_text(days, stored)} {clock}.{fraction or '0'}"


def wrap(value: int, bits: int) -> int:
    """Two's complement narrowing, as Java's integer casts do."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def saturate(value: float, bits: int) -> int:
    """Java's double-to-int/long cast: NaN is 0, out of range clamps, fractions truncate."""
    if value != value:
        return 0
    limit = _LIMITS[bits]
    if value >= limit:
        return limit - 1
    if value <= -limit:
        return -limit
    return int(value)


_JAVA_LONG = re.compile(f"[+-]?[{JAVA_DIGITS}]+")
#: Strings Hive's ObjectInspector converters read as false (any case); every other is true.
HIVE_FALSE_WORDS = frozenset({"false", "off", "no", "0", ""})


def java_long(text: str) -> int | None:
    """Java's ``Long.parseLong``: optional sign and digits (any decimal digit of the BMP, as
    ``Character.digit`` reads them; no blanks, no fraction), within 64 bits; None otherwise
    (ORC's schema evolution reads such a value as NULL)."""
    if not _JAVA_LONG.fullmatch(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def fits(value: int | None, bits: int) -> int | None:
    """``value`` when it fits ``bits`` bits, else None (ORC narrows without wrapping)."""
    if value is None:
        return None
    return value if -(2 ** (bits - 1)) <= value < 2 ** (bits - 1) else None


def hive_boolean(text: str) -> bool:
    """A string as Hive's ObjectInspector converters read it as boolean (Hive 3.1 and 4.x)."""
    return text.lower() not in HIVE_FALSE_WORDS


_ORC_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_ORC_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{0,9}))?", re.ASCII
)


def _smart_day(year: str, month: str, day: str) -> dt.date | None:
    """java.time's SMART resolver: month 1..12 and day 1..31, a day past the month's end is
    its last day."""
    y, m, d = int(year), int(month), int(day)
    if not (1 <= m <= 12 and 1 <= d <= 31) or y < 1:
        return None
    following = dt.date(y + m // 12, m % 12 + 1, 1) if y < 9999 or m < 12 else dt.date(9999, 12, 31)
    last = (following - dt.timedelta(days=1)).day if following.day == 1 else 31
    return dt.date(y, m, min(d, last))


def orc_date_days(text: str) -> int | None:
    """ORC's schema evolution reading a string as a date: exactly ``yyyy-MM-dd``."""
    match = _ORC_DATE.fullmatch(text)
    found = _smart_day(*match.groups()) if match else None
    return None if found is None else (found - EPOCH).days


def orc_timestamp_micros(text: str) -> int | None:
    """ORC's schema evolution reading a string as a timestamp: exactly
    ``yyyy-MM-dd HH:mm:ss[.fffffffff]``."""
    match = _ORC_TIMESTAMP.fullmatch(text)
    if not match:
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    found = _smart_day(year, month, day)
    h, m, s = int(hour), int(minute), int(second)
    if found is None or h > 23 or m > 59 or s > 59:
        return None
    micros = int(((fraction or "") + "000000")[:6])
    seconds = (found - EPOCH).days * 86400 + h * 3600 + m * 60 + s
    return seconds * 1_000_000 + micros


def decimal_text(value: Decimal) -> str:
    """A decimal as Hive prints it: ``HiveDecimal`` drops trailing zeros (8641.960 is
    ``8641.96``, 5.000 is ``5``)."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def seconds_to_micros(value: Any, limit: int) -> int | None:
    """Seconds since the epoch (a double or a decimal) as microseconds; NaN and values past
    ``limit`` NULL. A double's fraction is cut toward zero as Spark's ``timestamp_seconds``
    does; a decimal's as Hive's ``decimalToTimestamp`` does: its nanoseconds cut toward zero,
    then the microsecond that holds them (a timestamp's digits past the sixth dropped)."""
    if value != value or abs(value) > limit:
        return None
    if isinstance(value, Decimal):
        return decimal_nanos(value) // 1000
    return int(value * 1_000_000)  # in doubles, as the JVM multiplies


def decimal_nanos(value: Decimal) -> int:
    """A finite decimal's nanoseconds since the epoch cut toward zero, exactly, as Hive's
    ``decimalToTimestamp`` takes them (a decimal(38, s) can hold more digits than Python's
    default 28-digit context, which would round 0.999999999999999999 ns up to a whole one)."""
    return int(DECIMAL_38.scaleb(value, 9))


def double_text_micros(value: float, limit: int) -> int | None:
    """``TimestampUtils.doubleToTimestamp`` (Hive's converter, ORC 1.3-1.5): the whole seconds
    by Java's ``(long)``, the nanoseconds from ``Double.toString``'s digits cut toward zero;
    then the microsecond that holds them. NaN and values past ``limit`` NULL."""
    if value != value or abs(value) > limit:
        return None
    seconds, nanos = double_text_nanos(value)
    return seconds * 1_000_000 + nanos // 1000


def double_text_nanos(value: float) -> tuple[int, int]:
    """``doubleToTimestamp``'s whole seconds (Java's ``(long)``) and nanoseconds (from
    ``Double.toString``'s digits, cut toward zero) of a finite double."""
    seconds = int(value)
    return seconds, int((Decimal(java_float_text(value, False)) - seconds).scaleb(9))


def finer_number(value: float | Decimal) -> bool:
    """Whether a double or decimal read as a timestamp by ``doubleToTimestamp`` or
    ``decimalToTimestamp`` has nanoseconds a microsecond cannot hold (NaN and infinities:
    no timestamp, so no)."""
    if isinstance(value, Decimal):
        return value.is_finite() and decimal_nanos(value) % 1000 != 0
    if value != value or value in (float("inf"), float("-inf")):
        return False
    return double_text_nanos(value)[1] % 1000 != 0


def rounded_millis_micros(value: float, limit: int) -> int | None:
    """ORC 1.6+'s ``TimestampFromDoubleTreeReader``: the seconds rounded to a millisecond
    (``Math.round``, half up). NaN and values past ``limit`` NULL."""
    if value != value or abs(value) > limit:
        return None
    return math.floor(value * 1000 + 0.5) * 1000


def hive2_boolean(text: str) -> bool:
    """A string as Hive 1.2 and 2.x's converters read it as boolean: any non-empty string is
    true (PrimitiveObjectInspectorUtils.getBoolean before HIVE-15939)."""
    return len(text) > 0


def double_to_long(value: float) -> int | None:
    """ORC's double-to-long step: NaN and values outside a long read NULL, else truncation."""
    if value != value or value >= 2.0**63 or value < -(2.0**63):
        return None
    return int(value)
