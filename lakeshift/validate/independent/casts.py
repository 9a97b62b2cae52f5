"""Hive's read-time conversion of one primitive column, on Arrow arrays.

A value that does not convert reads as NULL; NULL stays NULL. Common conversions are
vectorised; the rest apply ``text_rules`` value by value (only converted columns pay for it).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakeshift.errors import SchemaMappingError
from lakeshift.hive import datetimes
from lakeshift.hive.types import INTEGER_BITS, NUMBER_KINDS, HiveType
from lakeshift.validate.independent import text_rules as rules
from lakeshift.validate.independent.arrow_types import arrow_type
from lakeshift.validate.independent.calendar import (
    GREGORIAN_START,
    hybrid_dates,
    julian_label_to_proleptic,
)
from lakeshift.validate.independent.zones import wall_clock

STRINGS = frozenset({"string", "char", "varchar"})
_BITS = INTEGER_BITS
#: What Hive reads as seconds or milliseconds since the epoch when a timestamp is wanted.
_NUMBERS = NUMBER_KINDS
_DAY_MICROS = 86_400_000_000


def _each(array: pa.Array, fn: Callable[[Any], Any], to: pa.DataType) -> pa.Array:
    """Apply ``fn`` to every non-NULL value (``fn`` returns None for values that read NULL)."""
    return pa.array([None if v is None else fn(v) for v in array.to_pylist()], to)


def _ints(array: pa.Array) -> pa.Array:
    """Dates as days, timestamps as microseconds: plain integers for the value rules."""
    if pa.types.is_date32(array.type):
        return array.view(pa.int32())
    if pa.types.is_timestamp(array.type):
        return array.view(pa.int64())
    return array


def _numpy(array: pa.Array, dtype: Any) -> np.ndarray:
    return np.asarray(array.fill_null(0).to_numpy(zero_copy_only=False)).astype(dtype)


def _with_nulls(values: np.ndarray, like: pa.Array, to: pa.DataType) -> pa.Array:
    mask = np.asarray(like.is_null().to_numpy(zero_copy_only=False), bool)
    return pa.array(values, to, mask=mask)


def to_text(
    array: pa.Array,
    src: HiveType,
    orc_file: bool = False,
    converter: bool = False,
    legacy_orc: bool = True,
    stored_days: bool = False,
) -> pa.Array:
    """Values as Hive prints them when a column becomes a string (``orc_file``: as ORC's
    schema evolution writes them: booleans ``TRUE``/``FALSE``, a NaN double NULL, binary as
    lower-case hex bytes parted by spaces, a float by ``Float.toString`` in ORC 1.3-1.5
    (``legacy_orc``) and by its double's text in ORC 1.6+, dates and timestamps by java.sql's
    ``toString`` in ORC 1.3-1.5 (``stored_days``: the values hold the day numbers as stored);
    ``converter``: as Hive's converter does, booleans ``TRUE``/``FALSE``)."""
    kind = src.kind
    if orc_file and legacy_orc and kind in ("date", "timestamp"):
        sql_text = rules.sql_date_text if kind == "date" else rules.sql_timestamp_text
        return _each(_ints(array), lambda v: sql_text(v, stored_days), pa.string())
    if kind in STRINGS:
        return array
    if kind == "binary" and orc_file:
        return _each(array, lambda v: " ".join(f"{b:02x}" for b in v), pa.string())
    if kind == "binary":
        return array.view(pa.string())
    if kind == "boolean":
        words = ("TRUE", "FALSE") if orc_file or converter else ("true", "false")
        return pc.if_else(array, *words)
    if kind in _BITS:
        return array.cast(pa.string())
    if kind in ("float", "double"):
        single = kind == "float" and not (orc_file and not legacy_orc)
        return _each(
            array,
            lambda v: None if orc_file and v != v else rules.java_float_text(v, single),
            pa.string(),
        )
    if kind == "decimal":
        return _each(array, rules.decimal_text, pa.string())
    if kind == "date":
        return _each(_ints(array), rules.date_text, pa.string())
    if kind == "timestamp":
        return _each(_ints(array), rules.timestamp_text, pa.string())
    raise _unsupported(src, HiveType("string"))


def _whole_seconds(array: pa.Array) -> pa.Array:
    """A timestamp's whole seconds since the epoch, floored (Hive's ``getSeconds``)."""
    seconds = np.floor_divide(_numpy(_ints(array), np.int64), 1_000_000)
    return _with_nulls(seconds, array, pa.int64())


def _orc_long(array: pa.Array, src: HiveType) -> pa.Array | None:
    """ORC schema evolution's long for an integral or boolean target (None: the same as the
    converters' rule): strict ``Long.parseLong`` for strings, NULL for doubles and decimals
    outside a long, a timestamp's whole seconds (floored), truncation otherwise."""
    if src.kind == "timestamp":
        return _whole_seconds(array)
    if src.kind in STRINGS:
        return _each(array, rules.java_long, pa.int64())
    if src.kind in ("float", "double"):
        return _each(array, rules.double_to_long, pa.int64())
    if src.kind == "decimal":
        return _each(array, lambda v: rules.fits(int(v), 64), pa.int64())
    if src.kind in _BITS:
        return array.cast(pa.int64())
    return None


def _to_boolean(
    array: pa.Array, src: HiveType, orc_file: bool = False, hive3_converters: bool = True
) -> pa.Array:
    if orc_file and src.kind == "decimal":  # AnyIntegerFromDecimal: its signum
        return _each(array, lambda v: v != 0, pa.bool_())
    if orc_file:
        wide = _orc_long(array, src)
        if wide is not None:
            return pc.not_equal(wide, 0)
    if src.kind in STRINGS:
        rule = rules.hive_boolean if hive3_converters else rules.hive2_boolean
        return _each(array, rule, pa.bool_())
    if src.kind == "decimal":
        return _each(array, lambda v: v != 0, pa.bool_())
    if src.kind == "bigint":  # getBoolean: (int) value != 0, the low 32 bits
        return _each(array, lambda v: rules.wrap(v, 32) != 0, pa.bool_())
    if src.kind == "timestamp":  # its whole seconds (floored) != 0
        return pc.not_equal(_whole_seconds(array), 0)
    if src.kind in (*_BITS, "float", "double"):
        return pc.not_equal(_ints(array), 0)
    raise _unsupported(src, HiveType("boolean"))


def _to_integer(array: pa.Array, src: HiveType, dst: HiveType, orc_file: bool = False) -> pa.Array:
    bits, to = _BITS[dst.kind], arrow_type(dst)
    if orc_file:  # ORC narrows without wrapping: a value that does not fit reads NULL
        wide = _orc_long(array, src)
        if wide is not None:
            return _each(wide, lambda v: rules.fits(v, bits), to)
    if src.kind in STRINGS:
        return _each(array, lambda v: rules.parse_integer(v, bits), to)
    if src.kind == "boolean":
        return _with_nulls(_numpy(array.cast(pa.int8()), np.int64), array, to)
    if src.kind in _BITS:  # Java narrowing wraps around
        return _with_nulls(_numpy(array, np.int64).astype(to.to_pandas_dtype()), array, to)
    if src.kind in ("float", "double"):  # to int or long first (saturating), then narrowed
        wide = 64 if bits == 64 else 32
        return _each(array, lambda v: rules.wrap(rules.saturate(v, wide), bits), to)
    if src.kind == "decimal":  # HiveDecimal.isByte/isShort/isInt/isLong, else NULL
        return _each(array, lambda v: rules.fits(int(v), bits), to)
    if src.kind == "timestamp":
        return _each(_ints(array), lambda v: rules.wrap(v // 1_000_000, bits), to)
    raise _unsupported(src, dst)


def _java_integer(text: str, src: HiveType, bits: int) -> int | None:
    """A CHAR or VARCHAR as Hive's converter reads it as an integer (``PrimitiveObjectInspector
    Utils.getInt``/``getLong``): Java's ``Integer.parseInt`` (``Long.parseLong`` for a bigint)
    of the text, a CHAR's trailing spaces stripped; no blanks, no fraction, NULL out of range;
    a tinyint or smallint is that int narrowed with wrap-around (``(byte) getInt``)."""
    wide = 64 if bits == 64 else 32
    value = rules.fits(rules.java_long(text.rstrip(" ") if src.kind == "char" else text), wide)
    return None if value is None else rules.wrap(value, bits)


def _to_floating(
    array: pa.Array,
    src: HiveType,
    dst: HiveType,
    float_text: bool = False,
    via_double: bool = False,
) -> pa.Array:
    """``float_text``: ORC 1.3-1.5 read a float as a double through its text
    (``DoubleFromFloatTreeReader``: ``Double.parseDouble(String.valueOf(f))``). A text or an
    integer becomes a float rounded once (``Float.parseFloat``, Java's ``(float) long``: the
    text SerDe's ``LazyFloat``, ORC 1.3-1.5), or with ``via_double`` rounded to a double
    first (Hive's converter: ``getFloat`` is ``(float) getDouble``; ORC 1.6+, whose float
    readers are its double readers)."""
    to = arrow_type(dst)
    single = dst.kind == "float"
    if float_text and src.kind == "float" and not single:
        return _each(array, lambda v: float(rules.java_float_text(v, True)), to)
    if src.kind in STRINGS:
        parsed = _each(array, rules.parse_floating, pa.float64())
        if not single:
            return parsed
        if via_double:
            return _each(array, lambda v: _single(rules.parse_floating(v)), to)
        return _each(array, rules.parse_float32, to)
    if single and not via_double and src.kind in _BITS:  # (float) long: rounded once
        return _with_nulls(_numpy(array, np.int64).astype(np.float32), array, to)
    if src.kind == "decimal":
        return _each(array, lambda v: float(v), pa.float64()).cast(to)
    if src.kind == "timestamp":
        # Hive's TimestampWritable.getDouble: whole seconds plus nanoseconds over 1e9, in doubles
        micros = _numpy(_ints(array), np.int64)
        seconds, rest = np.divmod(micros, 1_000_000)
        values = seconds.astype(np.float64) + (rest * 1000).astype(np.float64) / 1e9
        return _with_nulls(values.astype(np.float32) if single else values, array, to)
    if src.kind in (*_BITS, "boolean", "float", "double"):
        values = _numpy(array.cast(pa.int8()) if src.kind == "boolean" else array, np.float64)
        return _with_nulls(values.astype(np.float32 if single else np.float64), array, to)
    raise _unsupported(src, dst)


def _single(value: float | None) -> float | None:
    return None if value is None else float(np.float32(value))


def _to_decimal(
    array: pa.Array,
    src: HiveType,
    dst: HiveType,
    modern_orc: bool = False,
    big_decimal: bool = False,
    lazy: bool = False,
) -> pa.Array:
    precision, scale = dst.params
    to = arrow_type(dst)

    def fit(value: Decimal) -> Decimal | None:
        return rules.fit_decimal(value, precision, scale)

    def text(value: str) -> Decimal | None:  # HiveDecimal.create (Hive 1.2's: big_decimal)
        return rules.parse_decimal(value, precision, scale, big_decimal)

    if src.kind == "char":  # getString: a CHAR's stripped value (trailing spaces dropped)
        array = _each(array, lambda v: v.rstrip(" "), pa.string())

    if src.kind in STRINGS and lazy:  # LazyHiveDecimal: setFromBytes without trimBlanks
        return _each(
            array, lambda v: rules.parse_decimal(v, precision, scale, big_decimal, False), to
        )
    if src.kind in STRINGS:
        return _each(array, text, to)
    if src.kind == "boolean":
        return _each(array, lambda v: fit(Decimal(int(v))), to)
    if src.kind in _BITS or src.kind == "decimal":
        return _each(array, lambda v: fit(Decimal(v)), to)
    if src.kind in ("float", "double"):  # through Java's text of the value
        # getHiveDecimal and ORC 1.3-1.5: HiveDecimal.create(Float.toString / Double.toString);
        # ORC 1.6+ (``modern_orc``) reads a float as its double
        single = src.kind == "float" and not modern_orc
        return _each(
            array,
            lambda v: text(rules.java_float_text(float(v), single)),
            to,
        )
    if src.kind == "timestamp" and modern_orc:  # its seconds exactly
        return _each(_ints(array), lambda v: fit(Decimal(v).scaleb(-6)), to)
    if src.kind == "timestamp":  # getHiveDecimal: the text of TimestampWritable.getDouble()
        seconds = _to_floating(array, src, HiveType("double"))
        return _each(seconds, lambda v: text(rules.java_float_text(v, False)), to)
    raise _unsupported(src, dst)


def _string_days(
    array: pa.Array,
    kind: str,
    rule: str,
    hive3: bool,
    hive4: bool = False,
    stored_days: bool = False,
) -> pa.Array:
    """Strings read as dates or timestamps: ``rule`` ``orc`` (ORC's schema evolution),
    ``converter`` (Hive's converter) or ``text`` (Hive's text SerDe), by Hive 3.0+'s parsers
    when ``hive3`` (``hive.datetimes``). Day numbers of java.sql's hybrid calendar are shown by
    their Julian label before 1582-10-15, as the reader shows such days of ORC files, or with
    ``stored_days`` as they are (Apache Hive 3.1 and ORC 1.5's java.sql parsers)."""
    if rule == "orc":
        parse = rules.orc_date_days if kind == "date" else rules.orc_timestamp_micros
        out = _each(array, parse, pa.int32() if kind == "date" else pa.int64())
        return out.view(pa.date32() if kind == "date" else pa.timestamp("us"))
    read = datetimes.converted if rule == "converter" else datetimes.text_field
    found = [None if v is None else read(v, kind, hive3, hive4) for v in array.to_pylist()]
    mask = np.array([f is None for f in found], bool)
    days = np.array([f[0] if f else 0 for f in found], np.int64)
    if not hive3 and not stored_days:
        days = np.where(days < GREGORIAN_START, julian_label_to_proleptic(days), days)
    if kind == "date":
        return pa.array(days.astype(np.int32), pa.int32(), mask=mask).view(pa.date32())
    micros = days * _DAY_MICROS + np.array([f[1] if f else 0 for f in found], np.int64)
    return pa.array(micros, pa.int64(), mask=mask).view(pa.timestamp("us"))


def _to_date(
    array: pa.Array,
    src: HiveType,
    rule: str,
    hive3: bool,
    hive4: bool = False,
    stored_days: bool = False,
    modern_orc: bool = False,
) -> pa.Array:
    if src.kind in STRINGS:
        return _string_days(array, "date", rule, hive3, hive4, stored_days)
    if src.kind == "timestamp":
        micros = _numpy(_ints(array), np.int64)
        if modern_orc:  # ORC 1.6+: a second later before 1970 (spark_sql.orc_date_of_timestamp)
            micros = np.where(
                (micros < 0) & (np.mod(micros, 1_000_000) >= 1000), micros + 1_000_000, micros
            )
        days = np.floor_divide(micros, _DAY_MICROS)
        return _with_nulls(days.astype(np.int32), array, pa.int32()).view(pa.date32())
    raise _unsupported(src, HiveType("date"))


_SECONDS_LIMIT = 9_223_372_036_854  # past it, microseconds leave a long: NULL
_MILLIS_LIMIT = 9_223_372_036_854_775


def _to_timestamp(
    array: pa.Array,
    src: HiveType,
    rule: str,
    hive3: bool,
    hive4: bool = False,
    millis_rounded: bool = False,
    stored_days: bool = False,
) -> pa.Array:
    """Strings parsed by ``rule`` (``_string_days``); dates at midnight; doubles and decimals
    as seconds since the epoch, fractions kept; integers as milliseconds (Hive's converter, ORC
    1.3-1.5) or, in ORC 1.6+ (``millis_rounded``), seconds; a double's fraction by its text
    (``doubleToTimestamp``), or in ORC 1.6+ rounded to a millisecond."""
    to = pa.timestamp("us")
    orc_file = rule == "orc"
    if src.kind in STRINGS:
        return _string_days(array, "timestamp", rule, hive3, hive4, stored_days)
    if src.kind in (*_BITS, "boolean"):
        whole = _numpy(array.cast(pa.int64()) if src.kind == "boolean" else array, np.int64)
        # milliseconds (Hive's converter; ORC 1.3-1.5's new Timestamp(long)), seconds in ORC
        # 1.6+ (long * 1000 milliseconds)
        seconds = orc_file and millis_rounded
        limit, factor = (_SECONDS_LIMIT, 1_000_000) if seconds else (_MILLIS_LIMIT, 1_000)
        mask = np.asarray(array.is_null().to_numpy(zero_copy_only=False), bool)
        mask |= (whole < -limit) | (whole > limit)  # (abs of the least long is negative)
        return pa.array(np.where(mask, 0, whole) * factor, pa.int64(), mask=mask).view(to)
    if src.kind in ("float", "double") and millis_rounded:
        return _each(
            array, lambda v: rules.rounded_millis_micros(v, _SECONDS_LIMIT), pa.int64()
        ).view(to)
    if src.kind in ("float", "double"):
        return _each(array, lambda v: rules.double_text_micros(v, _SECONDS_LIMIT), pa.int64()).view(
            to
        )
    if src.kind == "decimal":
        return _each(array, lambda v: rules.seconds_to_micros(v, _SECONDS_LIMIT), pa.int64()).view(
            to
        )
    if src.kind == "date":
        micros = _numpy(_ints(array), np.int64) * _DAY_MICROS
        return _with_nulls(micros, array, pa.int64()).view(to)
    raise _unsupported(src, HiveType("timestamp"))


def number_finer(
    array: pa.Array, src: HiveType, dst: HiveType, orc_file: bool, orc_sql_dates: bool
) -> pa.Array | None:
    """Per value: whether ``convert_primitive`` reading a ``src`` number as a ``dst``
    timestamp takes nanoseconds from its digits that a microsecond cannot hold (NULL stays
    NULL); ``None`` where that conversion cannot (integers, ORC 1.6+'s milliseconds)."""
    millis_rounded = orc_file and not orc_sql_dates and src.kind in ("float", "double")
    if dst.kind != "timestamp" or millis_rounded:
        return None
    if src.kind not in ("float", "double", "decimal"):
        return None
    return _each(array, rules.finer_number, pa.bool_())


def _valid_utf8(array: pa.Array) -> bool:
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _unsupported(src: HiveType, dst: HiveType) -> SchemaMappingError:
    return SchemaMappingError(
        f"the independent reader has no conversion from {src} to {dst}.",
        hint="Validate this table at level checksum, and report the type pair to lakeshift.",
    )


def convert_primitive(
    array: pa.Array,
    src: HiveType,
    dst: HiveType,
    orc_file: bool = False,
    hive3_converters: bool = True,
    *,
    converter: bool = False,
    orc_sql_dates: bool = False,
    hive4_dates: bool = False,
    hybrid_instants: bool = False,
    hive1_decimals: bool = False,
    text_file: bool = False,
    stored_days: bool = False,
    shown_in: str | None = None,
) -> pa.Array:
    """``array`` (Hive type ``src``) read as ``dst``, as Hive's converters do (``orc_file``:
    as ORC's schema evolution reads a file's column as the partition's type;
    ``hive3_converters``: strings become booleans, dates and timestamps by Hive 3.0+'s rules,
    else Hive 2's; ``converter``: the conversion is Hive's ObjectInspector converter, a
    partition's type read as the table's; ``orc_sql_dates``: ORC reads strings as dates and
    timestamps by java.sql's parsers, as Hive 2's text SerDe does; ``hive4_dates``: text read
    as dates and timestamps by Hive 4's rules; ``hybrid_instants``: numbers read as
    timestamps shown by the hybrid calendar, as ``java.sql.Timestamp`` shows them;
    ``hive1_decimals``: text read as a decimal by Hive 1.2's ``HiveDecimal``; ``text_file``:
    a text file's own field, whose decimal takes no blanks since Hive 2.2; ``stored_days``:
    dates and timestamps shown by their day numbers as stored, also where ORC 1.3-1.5's
    java.sql conversions count them in the hybrid calendar; ``shown_in``: a number read as a
    timestamp shows its instant's wall clock in that zone, as ``java.sql.Timestamp`` does in a
    JVM there)."""
    to = arrow_type(dst)
    stored_days = stored_days and orc_file and orc_sql_dates  # only java.sql's conversions
    if src.kind == "void":
        return pa.nulls(len(array), to)
    if converter and src.kind == "char" and dst.kind in ("string", "varchar"):
        array = pc.utf8_rtrim(array, characters=" ")  # Hive's converters: the stripped value
    if dst.kind in ("char", "varchar"):  # truncated to the length; CHAR padded with spaces
        width = dst.params[0]
        text = to_text(array, src, orc_file, converter, orc_sql_dates, stored_days)
        if src.kind == "binary" and not _valid_utf8(text):
            # bytes that are no UTF-8 have no characters to count: each invalid sequence is
            # one U+FFFD here (the partition may then differ from the Spark reader's bytes)
            text = _each(array, lambda v: v.decode("utf-8", "replace"), pa.string())
        text = pc.utf8_slice_codeunits(text, 0, width)
        return pc.utf8_rpad(text, width=width, padding=" ") if dst.kind == "char" else text
    if src == dst or (src.kind in STRINGS and dst.kind == "string"):
        return array
    kind = dst.kind
    if kind == "timestamp" and (hybrid_instants or shown_in) and src.kind in _NUMBERS:
        plain = convert_primitive(
            array,
            src,
            dst,
            orc_file,
            hive3_converters,
            converter=converter,
            orc_sql_dates=orc_sql_dates,
            hive4_dates=hive4_dates,
            hive1_decimals=hive1_decimals,
        )
        if shown_in:
            plain = wall_clock(plain, shown_in)
        # java.sql.Timestamp (Hive 1.2/2.x) shows the instant's day in the hybrid calendar
        return hybrid_dates(plain) if hybrid_instants else plain
    if kind == "string":
        return to_text(array, src, orc_file, converter, orc_sql_dates, stored_days)
    if kind == "boolean":
        if converter and src.kind in ("float", "double"):  # by its long: 0.5 is false
            return pc.not_equal(_each(array, lambda v: rules.saturate(v, 64), pa.int64()), 0)
        return _to_boolean(array, src, orc_file, hive3_converters)
    if kind in _BITS:
        if converter and src.kind in ("char", "varchar"):  # Integer.parseInt, Long.parseLong
            bits = _BITS[dst.kind]
            return _each(array, lambda v: _java_integer(v, src, bits), arrow_type(dst))
        if converter and src.kind in STRINGS:
            bits = _BITS[dst.kind]
            return _each(array, lambda v: rules.lazy_integer(v, bits), arrow_type(dst))
        return _to_integer(array, src, dst, orc_file)
    if kind in ("float", "double"):
        return _to_floating(
            array,
            src,
            dst,
            float_text=orc_file and orc_sql_dates,
            via_double=converter or (orc_file and not orc_sql_dates),
        )
    if kind == "decimal":
        modern_orc = orc_file and not orc_sql_dates
        return _to_decimal(array, src, dst, modern_orc, big_decimal=hive1_decimals, lazy=text_file)
    rule = "orc" if orc_file else "converter" if converter else "text"
    if orc_file and orc_sql_dates and src.kind in STRINGS:
        # ORC 1.3-1.5: java.sql's Date.valueOf / Timestamp.valueOf, which are Hive 2's
        # LazyDate/LazyTimestamp parsers (their 8-character floor and "NULL" never parse)
        rule, hive3_converters, hive4_dates = "text", False, False
    if kind == "date":
        modern_orc = orc_file and not orc_sql_dates
        return _to_date(array, src, rule, hive3_converters, hive4_dates, stored_days, modern_orc)
    if kind == "timestamp":
        millis = orc_file and not orc_sql_dates
        return _to_timestamp(array, src, rule, hive3_converters, hive4_dates, millis, stored_days)
    if kind == "binary" and src.kind in STRINGS:
        return array.cast(pa.binary())
    raise _unsupported(src, dst)
