"""Spark SQL text for Hive types, identifiers, literals and Hive's read-time conversions.

Hand-written: Spark has no API for "convert this Hive value as Hive's ObjectInspector converters
would"; we express it with Spark SQL (CAST in non-ANSI mode gives NULL for values that cannot
convert, as Hive does).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from itertools import count
from typing import Any

from lakeshift.errors import SchemaMappingError
from lakeshift.hive.calendar_sql import bind, hybrid_instant, hybrid_label, java_sql_text
from lakeshift.hive.conversions import unreadable
from lakeshift.hive.datetime_sql import ascii_digits, hive_string_to, hive_text_field
from lakeshift.hive.datetimes import JAVA_ZONE_TABLE_START, java_raw_offset
from lakeshift.hive.parquet_reading import Built, built, rebuilds
from lakeshift.hive.types import (
    INTEGER_BITS,
    NUMBER_KINDS,
    SECONDS_COUNTED,
    HiveType,
    field_index,
    holds_kind,
    keys_may_merge,
    zone_rule,
)

_SIMPLE = {
    "tinyint": "TINYINT",
    "smallint": "SMALLINT",
    "int": "INT",
    "bigint": "BIGINT",
    "boolean": "BOOLEAN",
    "float": "FLOAT",
    "double": "DOUBLE",
    "string": "STRING",
    "char": "STRING",
    "varchar": "STRING",
    "binary": "BINARY",
    "date": "DATE",
}
_lambda_names = count()


def quote(name: str) -> str:
    """A Spark SQL identifier, whatever characters the name holds."""
    return "`" + name.replace("`", "``") + "`"


def string_literal(value: str) -> str:
    """A Spark SQL string literal (backslash escapes are on by default in Spark)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def typed_literal(value: Any, hive: HiveType) -> str:
    """A Spark SQL literal of a Python value of a primitive Hive type (``typed_value``'s
    result), typed exactly: ``NULL`` for None."""
    kind = spark_type(hive)
    if value is None:
        return f"CAST(NULL AS {kind})"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP_NTZ'{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE'{value.isoformat()}'"
    if isinstance(value, str):
        return string_literal(value)
    text = format(value, "f") if isinstance(value, Decimal) else repr(value)
    return f"CAST({string_literal(text)} AS {kind})"


def spark_type(hive: HiveType, *, physical: bool = False) -> str:
    """Spark type text. Hive TIMESTAMP is wall-clock: TIMESTAMP_NTZ, except as read from ORC."""
    if hive.kind in _SIMPLE:
        return _SIMPLE[hive.kind]
    if hive.kind == "timestamp":
        return "TIMESTAMP" if physical else "TIMESTAMP_NTZ"
    if hive.kind == "decimal":
        return f"DECIMAL({hive.params[0]},{hive.params[1]})"
    if hive.kind == "array":
        return f"ARRAY<{spark_type(hive.fields[0][1], physical=physical)}>"
    if hive.kind == "map":
        key, value = hive.fields[0][1], hive.fields[1][1]
        return f"MAP<{spark_type(key, physical=physical)},{spark_type(value, physical=physical)}>"
    if hive.kind == "struct":
        inner = ",".join(f"{quote(n)}:{spark_type(t, physical=physical)}" for n, t in hive.fields)
        return f"STRUCT<{inner}>"
    raise SchemaMappingError(f"Hive type {hive} has no Spark equivalent")


_INTEGRAL = INTEGER_BITS
_STRING_KINDS = frozenset({"string", "char", "varchar"})
_FRACTIONAL = frozenset({"float", "double", "decimal", "boolean"})
_NUMBERS = NUMBER_KINDS
#: Hive's ObjectInspector converters read these strings (any case) as false, every other
#: string as true (PrimitiveObjectInspectorUtils.parseBoolean, Hive 3.1 and 4.x).
HIVE_FALSE_WORDS = ("false", "off", "no", "0", "")


#: The end of the text in a pattern: Java's ``$`` also matches before a final line break,
#: which none of the parsers below accepts.
_END = r"\\z"
#: Spark's CAST reads these words (any case, blanks trimmed) as infinity and NaN after Java's
#: ``Double.parseDouble``/``Float.parseFloat``, which Hive's readers call, refused them.
_SPARK_FLOAT_WORDS = "'inf', '+inf', 'infinity', '+infinity', '-inf', '-infinity', 'nan'"
_JAVA_FLOAT_WORDS = "'NaN', '+NaN', '-NaN', 'Infinity', '+Infinity', '-Infinity'"
_JAVA_TRIM = r"'^[\\x00-\\x20]+|[\\x00-\\x20]+\\z'"


def _java_floating(expr: str, dst: HiveType) -> str:
    """A string read as a float or double by Java's parsers: Spark's CAST (which is Java's
    parser, then its own words for infinity and NaN), without those words. Only a value that
    came out infinite or NaN is looked at again."""
    cast = f"CAST({expr} AS {spark_type(dst)})"
    trimmed = f"regexp_replace({expr}, {_JAVA_TRIM}, '')"
    word = f"lower({trimmed}) IN ({_SPARK_FLOAT_WORDS}) AND NOT {trimmed} IN ({_JAVA_FLOAT_WORDS})"
    special = f"(isnan({cast}) OR abs({cast}) = CAST('Infinity' AS {spark_type(dst)}))"
    return f"IF({special} AND {word}, NULL, {cast})"


def _fits(value: str, bits: int) -> str:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return f"({value} BETWEEN {low} AND {high})"


def _java_long(text: str) -> str:
    """Java's ``Long.parseLong``: optional sign and digits (any decimal digit of the BMP), no
    blanks, no fraction, within 64 bits; NULL otherwise (Spark's CAST of more digits is
    NULL)."""
    digits = ascii_digits(text)
    return f"IF({digits} RLIKE '^[+-]?[0-9]+{_END}', CAST({digits} AS BIGINT), NULL)"


def _orc_integral(expr: str, src: HiveType, dst: HiveType) -> str | None:
    """ORC schema evolution into an integral or boolean type (ConvertTreeReaderFactory), where
    it differs from Spark's CAST: strings parse as Java's ``Long.parseLong`` (no blanks, no
    fraction; NULL otherwise), doubles and decimals outside a long read NULL, and a value that
    does not fit the narrower type reads NULL (Spark wraps or saturates). Booleans are
    ``value != 0`` of that long. None: no difference from Spark's CAST."""
    if dst.kind != "boolean" and dst.kind not in _INTEGRAL:
        return None
    if src.kind in _STRING_KINDS:
        as_long = _java_long(expr)
    elif src.kind in ("float", "double"):
        as_long = (
            f"IF(isnan({expr}) OR {expr} >= 9.223372036854775807E18 OR "
            f"{expr} < -9.223372036854775808E18, NULL, CAST({expr} AS BIGINT))"
        )
    elif src.kind == "decimal":
        if dst.kind == "boolean":  # AnyIntegerFromDecimal: its signum, not its long
            return f"({expr} <> 0)"
        whole = f"IF({expr} >= 0, floor({expr}), ceil({expr}))"  # (a narrow decimal type)
        as_long = f"IF({_fits(whole, 64)}, CAST({whole} AS BIGINT), NULL)"
    elif src.kind == "timestamp":  # AnyIntegerFromTimestamp: whole seconds (floored)
        as_long = f"unix_seconds(CAST({expr} AS TIMESTAMP))"
    elif src.kind in _INTEGRAL:
        if dst.kind == "boolean" or _INTEGRAL[dst.kind] >= _INTEGRAL[src.kind]:
            return None
        as_long = expr
    else:
        return None
    if dst.kind == "boolean":
        return f"({as_long} <> 0)"
    bits = _INTEGRAL[dst.kind]
    if bits == 64:
        return as_long
    return f"IF({_fits(as_long, bits)}, CAST({as_long} AS {spark_type(dst)}), NULL)"


#: Seconds (ORC) or milliseconds (Hive's converter) past which a number read as a timestamp
#: leaves the range of microseconds in a long: NULL rather than an overflow.
_SECONDS_LIMIT = 9_223_372_036_854
_MILLIS_LIMIT = 9_223_372_036_854_775


_ORC_DATE = "^[0-9]{4}-[0-9]{2}-[0-9]{2}"
_ORC_TIME = " [0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]{0,9})?" + _END


def _orc_day(expr: str) -> str:
    """The ``yyyy-MM-dd`` at the start of ``expr`` as ORC's parser resolves it (java.time's
    SMART resolver: a month outside 1..12 or a day outside 1..31 is an error, a day past the
    month's end is its last day), NULL on error."""
    year, month, day = (
        f"CAST(substring({expr}, {i}, {n}) AS INT)" for i, n in ((1, 4), (6, 2), (9, 2))
    )
    first = f"make_date({year}, {month}, 1)"
    return (
        f"IF({month} BETWEEN 1 AND 12 AND {day} BETWEEN 1 AND 31, "
        f"make_date({year}, {month}, least({day}, day(last_day({first})))), NULL)"
    )


def _orc_from_string(expr: str, dst: HiveType) -> str | None:
    """ORC's schema evolution reading a string as a date or timestamp: only the exact forms
    ``yyyy-MM-dd`` and ``yyyy-MM-dd HH:mm:ss[.fffffffff]`` (no blanks, no other widths), as
    ORC 1.9's ``DateFromStringGroupTreeReader``/``TimestampFromStringGroupTreeReader`` parse
    them (Hive 2.3.9 here shows ``2020-1-1`` and ``2020-01-01`` as a timestamp as NULL)."""
    if dst.kind == "date":
        return f"IF({expr} RLIKE '{_ORC_DATE}{_END}', {_orc_day(expr)}, NULL)"
    if dst.kind == "timestamp":
        clock = f"CAST(concat('1970-01-01', substring({expr}, 11)) AS TIMESTAMP_NTZ)"
        days = f"date_diff({_orc_day(expr)}, DATE'1970-01-01')"
        valid = f"{expr} RLIKE '{_ORC_DATE}{_ORC_TIME}'"
        return f"IF({valid}, {clock} + make_dt_interval({days}, 0, 0, 0), NULL)"
    return None


def orc_date_of_timestamp(expr: str) -> str:
    """The timestamp whose day ORC 1.6+ (Hive 4) gives a timestamp read as a date:
    ``DateFromTimestampTreeReader`` counts ``Instant.ofEpochSecond(millis / 1000, nanos)``,
    and Java's ``/`` cuts a negative count toward zero, so a value before 1970 with at least
    a millisecond past its second is taken a second later (``1969-12-30 23:59:59.5`` is
    1969-12-31; ORC 1.3-1.5 floor the milliseconds: the day written)."""
    micros = f"unix_micros(CAST({expr} AS TIMESTAMP))"
    late = f"{micros} < 0 AND pmod({micros}, 1000000) >= 1000"
    return f"IF({late}, {expr} + INTERVAL 1 SECOND, {expr})"


#: Microseconds past which (about year 148,000 either way) a value keeps its wall clock in any
#: zone: a day's offsets near the end of Spark's range would overflow.
_ZONED_BOUND = 2**62


def _time_offset(micros: str, zone: str) -> str:
    """SQL: the offset in microseconds java.time gives the instant ``micros`` in ``zone``."""
    shown = f"unix_micros(from_utc_timestamp(timestamp_micros({micros}), {string_literal(zone)}))"
    return f"({shown} - ({micros}))"


def _before_1900(zone: str) -> tuple[int, int]:
    """(1900-01-01 00:00 UTC, the zone's raw offset), in microseconds: java.util.TimeZone gives
    every earlier instant that offset (``java_raw_offset``)."""
    return JAVA_ZONE_TABLE_START * 1_000_000, java_raw_offset(zone) * 1_000_000


def _java_offset(micros: str, zone: str) -> str:
    """SQL: the offset in microseconds java.util.TimeZone gives the instant ``micros`` in
    ``zone``: the zone's raw offset before 1900 (``java_raw_offset``), else java.time's."""
    start, raw = _before_1900(zone)
    return f"IF({micros} < {start}, {raw}, {_time_offset(micros, zone)})"


def zone_wall_clock(expr: str, zone: str) -> str:
    """SQL: the wall clock in ``zone`` of the instant ``expr`` holds (read in the UTC session),
    as ``java.sql.Timestamp`` shows an instant in a JVM running in ``zone`` (before 1900 by
    the zone's raw offset, ``java_raw_offset``)."""
    shown = bind(
        f"unix_micros(CAST({expr} AS TIMESTAMP))",
        lambda m: (
            f"timestamp_micros(IF(abs({m}) >= {_ZONED_BOUND}, {m}, {m} + {_java_offset(m, zone)}))"
        ),
    )
    return f"CAST({shown} AS TIMESTAMP_NTZ)"


def zone_instant(expr: str, zone: str) -> str:
    """SQL: the instant (a TIMESTAMP) a JVM in ``zone`` gives the wall clock ``expr``, as
    ``java.sql.Timestamp.valueOf`` does (``Date``'s constructor, ``ZoneInfo.
    getOffsetsByWall``): of the two offsets around a change, the one that gives the later
    instant, so a wall clock in a daylight-saving gap is taken by the offset before it (02:30
    shows as 03:30) and one the clock shows twice is its second instant (checked against
    Hive 2.3.9 in New York); before 1900 by the raw offset (``java_raw_offset``). Spark's
    ``to_utc_timestamp`` (``java.time``) resolves a gap alike but takes a fold's first
    instant, so the offset a day later is tried too. Hand-written: no Spark function resolves
    a wall clock as Java's ``Date`` does."""
    start, raw = _before_1900(zone)

    def resolve(wall: str) -> str:
        def choose(first: str) -> str:
            def pick(later: str) -> str:
                fits = f"{later} > {first} AND {_time_offset(later, zone)} = {wall} - {later}"
                return f"IF({fits}, {later}, {first})"

            return bind(f"{wall} - {_time_offset(f'{first} + 86400000000', zone)}", pick)

        z = string_literal(zone)
        first = f"unix_micros(to_utc_timestamp(timestamp_micros({wall}), {z}))"
        return (
            f"timestamp_micros(IF(abs({wall}) >= {_ZONED_BOUND}, {wall}, "
            f"IF({wall} - {raw} < {start}, {wall} - {raw}, {bind(first, choose)})))"
        )

    return bind(f"unix_micros(CAST({expr} AS TIMESTAMP))", resolve)


def _orc_to_string(
    expr: str, src: HiveType, legacy_orc: bool = True, stored_days: bool = False
) -> str | None:
    """ORC's schema evolution writing a value as text where it differs from Spark's CAST:
    booleans as ``TRUE``/``FALSE``, a NaN double as NULL, binary as lower-case hex bytes
    parted by spaces (``StringGroupFromBinaryTreeReader``), and a float by ``Float.toString``
    in ORC 1.3-1.5 (``legacy_orc``), by the text of its double in ORC 1.6+; in ORC 1.3-1.5
    dates and timestamps by java.sql's ``toString`` (``java_sql_text``; ``stored_days``: the
    values hold the day numbers as stored)."""
    if legacy_orc and src.kind in ("date", "timestamp"):
        return java_sql_text(expr, src.kind, stored_days)
    if src.kind == "boolean":
        return f"CASE WHEN {expr} THEN 'TRUE' WHEN NOT {expr} THEN 'FALSE' END"
    if src.kind == "binary":
        return f"regexp_replace(lower(hex({expr})), '(..)(?=.)', '$1 ')"
    if src.kind == "float" and not legacy_orc:
        return f"IF(isnan({expr}), NULL, CAST(CAST({expr} AS DOUBLE) AS STRING))"
    if src.kind in ("float", "double"):
        return f"IF(isnan({expr}), NULL, CAST({expr} AS STRING))"
    return None


def _decimal_text(expr: str, src: HiveType) -> str:
    """A decimal as Hive prints it: plain digits, never an exponent (Spark's CAST writes
    ``1.7E-11``), trailing zeros dropped (``HiveDecimal``: 8641.960 is ``8641.96``, 5.000 is
    ``5``)."""
    scale = src.params[1] if len(src.params) > 1 else 0
    text = f"replace(format_number({expr}, {scale}), ',', '')"
    if scale == 0:
        return text
    return f"regexp_replace(regexp_replace({text}, '0+{_END}', ''), '[.]{_END}', '')"


#: HiveDecimal's text (FastHiveDecimalImpl.fastSetFromBytes, ``hive.decimals``): integer digits,
#: an optional dot and fraction, an exponent of at most two digits past its zeros; or a dot and
#: fraction digits alone. With trimBlanks, spaces (only) around it, and an exponent without
#: digits before a blank counts as 0.
_HIVE_DECIMAL = (
    "'^ *[+-]?([0-9]+[.]?[0-9]*([eE]([+-]?0*[0-9]{1,2}|[+-]?(?= )))? *|[.][0-9]+)" + _END + "'"
)
#: A zero mantissa, whatever the exponent (of a text the grammar above accepted; Hive 1.2's
#: BigDecimal: Java's trim, an exponent with digits).
_FAST_ZERO = "'^ *[+-]?(0+[.]?0*|[.]0+)([eE].*)?" + _END + "'"
_BIG_ZERO = (
    "'^[\\\\x00-\\\\x20]*[+-]?(0+[.]?0*|[.]0+)([eE][+-]?[0-9]+)?[\\\\x00-\\\\x20]*" + _END + "'"
)
_LAZY_DECIMAL = "'^[+-]?([0-9]+[.]?[0-9]*([eE][+-]?0*[0-9]{1,2})?|[.][0-9]+)" + _END + "'"


def _hive_decimal(
    text: str,
    dst: HiveType,
    big_decimal: bool = False,
    trim_blanks: bool = True,
    long_text: bool = False,
) -> str:
    """A string read as a decimal by ``HiveDecimal.create``, rounded half up to the type
    (``trim_blanks``: spaces around it allowed, as everywhere but in a text file's own field
    since Hive 2.2). ``big_decimal``: Hive 1.2's, Java's ``BigDecimal`` of the trimmed text,
    which is what Spark's CAST reads (any blank trimmed, any exponent, any digit
    ``Character.digit`` reads). ``long_text``: the text may hold more than 38 digits (data,
    not a number's ``toString``), which Hive 2.2+ round to 38 first (``_first_rounding``)."""
    to = spark_type(dst)
    # Spark's CAST refuses a zero with a large exponent (0e50: more than 38 integer digits to
    # its BigDecimal), which every Hive reads as 0
    if big_decimal:
        return f"IF({text} RLIKE {_BIG_ZERO}, CAST(0 AS {to}), CAST({text} AS {to}))"
    if trim_blanks:
        grammar, number = _HIVE_DECIMAL, f"regexp_replace({text}, '[eE][+-]? +{_END}', '')"
    else:  # ("1e " is 1 only where blanks are trimmed)
        grammar, number = _LAZY_DECIMAL, text

    read = (
        f"IF(length({number}) > 39, {_first_rounding(number)}, {number})" if long_text else number
    )
    # (zero whatever its exponent, checked on the text: a text of more than 38 digits that
    # rounds to zero reads as zero by its rounded text too, short of an exponent past 50)
    value = f"IF({number} RLIKE {_FAST_ZERO}, CAST(0 AS {to}), CAST({read} AS {to}))"
    return f"IF({text} RLIKE {grammar}, {value}, NULL)"


def _first_rounding(number: str) -> str:
    """SQL: a decimal text of FastHiveDecimal's grammar with its digits before the exponent
    (the integer's without leading zeros, then the fraction's) rounded half up to 38, as
    ``fastSetFromBytes`` does before it applies the exponent and the type rounds again
    (``hive.decimals``): Spark's CAST alone rounds once, so ``0.4`` and forty 9s would read as
    0 for ``decimal(38,0)`` where Hive shows 1. The digits are read as one fraction (``0.``
    and the digits, ``DECIMAL(38,38)``: rounded at the 38th) and the exponent moved by the
    integer's length (NULL past 38 integer digits, whatever the exponent); all 38 rounded up
    to a carry make ``1``. A text that passes 38 places only once a negative exponent is
    applied is rounded once (Hive rounds it to 38 places first: not copied)."""
    sign = f"regexp_extract({number}, '^ *([+-]?)', 1)"
    whole = f"regexp_extract({number}, '^ *[+-]?0*([0-9]*)', 1)"
    fraction = f"regexp_extract({number}, '^ *[+-]?[0-9]*[.]([0-9]*)', 1)"
    digits = f"CAST(concat('0.', {whole}, {fraction}) AS DECIMAL(38,38))"
    shown = f"coalesce(format_number({digits}, 38), '1')"
    exponent = f"coalesce(CAST(regexp_extract({number}, '[eE]([+-]?[0-9]+)', 1) AS INT), 0)"
    moved = f"concat({sign}, {shown}, 'e', {exponent} + length({whole}))"
    return f"IF(length({whole}) > 38, NULL, {moved})"  # more integer digits: NULL


_LAZY_INTEGER = "^([+-]?[0-9]*)([.][0-9]*)?" + _END


def _converter(
    expr: str, src: HiveType, dst: HiveType, hive3: bool, hive4: bool = False
) -> str | None:
    """Hive's ObjectInspector converters (a partition's value read as the table's type) where
    they differ from Spark's CAST, as Hive 2.3.9 shows them: a string becomes an integer as
    ``LazyInteger`` parses it (no blanks; a fraction dropped; out of range NULL), a double a
    boolean by its ``long`` (0.5 is false), a boolean a string as ``TRUE``/``FALSE``, a string
    a date or timestamp by Java's parsers (``datetime_sql``; ``hive3``: Hive 3.0+'s;
    ``hive4``: Hive 4's strict ones)."""
    if src.kind in _STRING_KINDS and dst.kind in ("date", "timestamp"):
        return hive_string_to(expr, dst.kind, hive3, hive4)
    if src.kind in ("char", "varchar") and dst.kind in _INTEGRAL:
        # getInt/getLong: Integer.parseInt/Long.parseLong of the text (a CHAR's trailing
        # spaces stripped; BMP digits, no blanks, no fraction, NULL out of range), a tinyint
        # or smallint that int narrowed with wrap-around
        bits = _INTEGRAL[dst.kind]
        value = _java_long(f"rtrim({expr})" if src.kind == "char" else expr)
        whole = value if bits == 64 else f"IF({_fits(value, 32)}, CAST({value} AS INT), NULL)"
        return whole if bits >= 32 else f"CAST({whole} AS {spark_type(dst)})"
    if src.kind in _STRING_KINDS and dst.kind in _INTEGRAL:
        # LazyLong.parseLong for a bigint, else LazyInteger.parseInt narrowed with wrap-around
        # (getByte is (byte) getInt); digits may be absent around the dropped fraction
        bits = _INTEGRAL[dst.kind]
        wide = 64 if bits == 64 else 32
        number = f"regexp_extract({expr}, '{_LAZY_INTEGER}', 1)"
        value = f"CAST(IF({number} RLIKE '[0-9]', {number}, '0') AS DECIMAL(38,0))"
        ok = (
            f"{expr} RLIKE '{_LAZY_INTEGER}' AND NOT {expr} IN ('', '+', '-') "
            f"AND {_fits(value, wide)}"
        )
        whole = f"CAST({value} AS {'BIGINT' if wide == 64 else 'INT'})"
        narrowed = whole if bits >= 32 else f"CAST({whole} AS {spark_type(dst)})"
        return f"IF({ok}, {narrowed}, NULL)"
    if src.kind == "decimal" and dst.kind in _INTEGRAL:
        # HiveDecimal.isByte/isShort/isInt/isLong: the whole part must fit, else NULL
        whole = f"IF({expr} >= 0, floor({expr}), ceil({expr}))"
        return f"IF({_fits(whole, _INTEGRAL[dst.kind])}, CAST({expr} AS {spark_type(dst)}), NULL)"
    if src.kind == "bigint" and dst.kind == "boolean":  # getBoolean: (int) value != 0
        return f"(CAST({expr} AS INT) <> 0)"
    if src.kind == "timestamp" and dst.kind == "boolean":  # its whole seconds != 0
        return f"(unix_seconds(CAST({expr} AS TIMESTAMP)) <> 0)"
    if src.kind in ("float", "double") and dst.kind == "boolean":
        return f"(CAST({expr} AS BIGINT) <> 0)"
    if src.kind == "boolean" and dst.kind in _STRING_KINDS:
        return _primitive(_orc_to_string(expr, src) or expr, HiveType("string"), dst, False)
    return None


def _timestamp_to_fraction(
    expr: str, dst: HiveType, exact: bool = False, big_decimal: bool = False
) -> str:
    """A timestamp read as seconds with a fraction, as Hive counts them (``TimestampWritable.
    getDouble``, ``TimestampUtils.getDouble``): the whole seconds, plus the nanoseconds over
    1e9, added in doubles (Spark divides the microseconds, which past 2^53 lose digits first);
    a decimal from that double's text (Hive's converter, ORC 1.3-1.5), or ``exact`` (ORC
    1.6+)."""
    micros = f"unix_micros(CAST({expr} AS TIMESTAMP))"
    seconds = f"(({micros} - pmod({micros}, 1000000)) div 1000000)"
    fraction = f"CAST(pmod({micros}, 1000000) * 1000 AS DOUBLE) / 1000000000"
    double = f"(CAST({seconds} AS DOUBLE) + {fraction})"
    if dst.kind == "decimal" and exact:
        return f"CAST(CAST({micros} AS DECIMAL(20,0)) / 1000000 AS {spark_type(dst)})"
    if dst.kind == "decimal":  # getHiveDecimal: HiveDecimal.create(Double.toString(seconds))
        return _hive_decimal(f"CAST({double} AS STRING)", dst, big_decimal)
    return double if dst.kind == "double" else f"CAST({double} AS FLOAT)"


def _fraction_nanos(value: str, src: HiveType) -> tuple[str, str] | None:
    """(whole seconds, nanoseconds) Hive takes from a double's or decimal's digits, or
    ``None`` where the number has no digits below a second that Hive keeps. A decimal's
    nanoseconds are cut toward zero (``decimalToTimestamp``); a double's come from its
    ``Double.toString`` text, cut toward zero (``doubleToTimestamp``: Hive's converter and
    ORC 1.3-1.5), which Spark's CAST to STRING writes alike on the JVM."""
    if src.kind == "decimal":
        # cut to nanoseconds before scaling: Spark's decimal product keeps 38 digits and
        # rounds the rest, which could carry 0.999999999999999999 ns up to a whole one
        cut = f"IF({value} >= 0, floor({value}, 9), ceil({value}, 9))"
        return "", f"CAST({cut} * 1000000000 AS DECIMAL(38,0))"
    if src.kind in ("float", "double"):
        double = f"CAST({value} AS DOUBLE)"  # a float widened exactly, as Java does
        seconds = f"CAST({double} AS BIGINT)"
        nanos = (
            f"CAST((CAST(CAST({double} AS STRING) AS DECIMAL(38,18)) - {seconds}) "
            "* 1000000000 AS BIGINT)"
        )
        return seconds, nanos
    return None


def _number_to_timestamp(expr: str, src: HiveType, modern_orc: bool) -> str:
    """A number read as a timestamp: a double or decimal counts seconds since the epoch, with
    its fraction; an integer (or boolean) milliseconds, by Hive's converter
    (``hive.int.timestamp.conversion.in.seconds`` is false by default) and by ORC 1.3-1.5's
    schema evolution (``TimestampFromAnyIntegerTreeReader``: ``new Timestamp(long)``), seconds
    in ORC 1.6+ (``modern_orc``: ``long * 1000`` milliseconds). A double's fraction is its
    ``Double.toString`` digits (``TimestampUtils.doubleToTimestamp``: Hive's converter and ORC
    1.3-1.5), or, in ORC 1.6+, the seconds rounded to a millisecond. The wall clock of that
    instant in UTC, as the session reads it."""
    value = f"CAST({expr} AS INT)" if src.kind == "boolean" else expr
    whole = src.kind in _INTEGRAL or src.kind == "boolean"
    if whole and not modern_orc:
        fn, limit = "timestamp_millis", _MILLIS_LIMIT
    else:
        fn, limit = "timestamp_seconds", _SECONDS_LIMIT
    guard = f"NOT ({value} BETWEEN -{limit} AND {limit})"  # (abs of the least long is negative)
    if src.kind in ("float", "double"):
        guard = f"isnan({value}) OR {guard}"
    if src.kind in ("float", "double") and modern_orc:  # Math.round(seconds * 1000)
        millis = f"CAST(floor(CAST({value} AS DOUBLE) * 1000 + 0.5) AS BIGINT)"
        return f"IF({guard}, NULL, CAST(timestamp_millis({millis}) AS TIMESTAMP_NTZ))"
    digits = _fraction_nanos(value, src)
    if digits is None:
        return f"IF({guard}, NULL, CAST({fn}({value}) AS TIMESTAMP_NTZ))"
    # the microsecond that holds the nanoseconds (Spark's timestamp_seconds refuses a
    # decimal finer than a microsecond)
    seconds, nanos = digits
    if seconds:
        micros = f"({seconds} * 1000000 + ({nanos} - pmod({nanos}, 1000)) div 1000)"
    else:
        micros = f"CAST(floor({nanos} / 1000) AS BIGINT)"
    return f"IF({guard}, NULL, CAST(timestamp_micros({micros}) AS TIMESTAMP_NTZ))"


def number_finer(
    expr: str, src: HiveType, dst: HiveType, orc_file: bool, orc_sql_dates: bool
) -> str | None:
    """A predicate true where ``_primitive`` reading ``expr`` (a ``src`` number) as a ``dst``
    timestamp takes nanoseconds from its digits that the microseconds targets keep cannot
    hold; ``None`` where that conversion cannot (integers, ORC 1.6+'s milliseconds)."""
    millis_rounded = orc_file and not orc_sql_dates and src.kind in ("float", "double")
    if dst.kind != "timestamp" or millis_rounded:
        return None
    digits = _fraction_nanos(expr, src)
    return None if digits is None else f"pmod({digits[1]}, 1000) <> 0"


def _primitive(
    expr: str,
    src: HiveType,
    dst: HiveType,
    src_physical: bool,
    orc_file: bool = False,
    hive3_converters: bool = True,
    text_file: bool = False,
    orc_sql_dates: bool = False,
    hive4_dates: bool = False,
    hybrid_instants: bool = False,
    hive1_decimals: bool = False,
    stored_days: bool = False,
    shown_in: str | None = None,
) -> str:
    """One primitive value converted (``convert``'s options); ``shown_in``: a number read as
    a timestamp shows the wall clock of its instant in that zone (``java.sql.Timestamp`` in a
    JVM there)."""
    dated = src.kind in _STRING_KINDS and dst.kind in ("date", "timestamp")
    if text_file and dated:  # LazyDate, LazyTimestamp
        return hive_text_field(expr, dst.kind, hive3_converters, hive4_dates)
    if orc_file and orc_sql_dates and dated:
        # ORC 1.3-1.5: java.sql's Date.valueOf / Timestamp.valueOf, which are Hive 2's
        # LazyDate/LazyTimestamp parsers (their 8-character floor and "NULL" never parse);
        # Apache Hive 3.1 shows the hybrid day numbers they give as stored
        return hive_text_field(expr, dst.kind, False, stored=stored_days)
    if orc_file and orc_sql_dates and src.kind == "float" and dst.kind == "double":
        # ORC 1.3-1.5: Double.parseDouble(String.valueOf(f)) (DoubleFromFloatTreeReader:
        # 74.72f is 74.72), whose text Spark's CAST to STRING writes alike
        return f"CAST(CAST({expr} AS STRING) AS DOUBLE)"
    if orc_file:
        evolved = _orc_integral(expr, src, dst)
        if evolved is None and src.kind in _STRING_KINDS:
            evolved = _orc_from_string(expr, dst)
        if evolved is None and dst.kind in _STRING_KINDS and src.kind != dst.kind:
            text = _orc_to_string(expr, src, orc_sql_dates, stored_days)
            if text is not None and dst.kind != "string":  # then cut (and padded) to width
                text = _primitive(text, HiveType("string"), dst, False)
            evolved = text
        if evolved is not None:
            return evolved
    elif dst.kind == "boolean" and src.kind in _STRING_KINDS:
        if not hive3_converters:  # Hive 1.2 and 2.x: every non-empty string is true
            return f"IF({expr} IS NULL, NULL, length({expr}) > 0)"
        words = ", ".join(string_literal(w) for w in HIVE_FALSE_WORDS)
        return f"IF({expr} IS NULL, NULL, NOT (lower({expr}) IN ({words})))"
    if dst.kind == "timestamp" and (src.kind in _INTEGRAL or src.kind in _FRACTIONAL):
        stamp = _number_to_timestamp(expr, src, orc_file and not orc_sql_dates)
        if shown_in:
            stamp = zone_wall_clock(stamp, shown_in)
        # java.sql.Timestamp (Hive 1.2/2.x) shows the instant's day in the hybrid calendar
        if not hybrid_instants:
            return stamp
        shown = bind(f"CAST({stamp} AS TIMESTAMP)", lambda t: hybrid_label(t, "timestamp"))
        return f"CAST({shown} AS TIMESTAMP_NTZ)"
    if src.kind == "decimal" and dst.kind in _STRING_KINDS:
        expr = _decimal_text(expr, src)
    if src.kind == "timestamp" and dst.kind == "date" and orc_file and not orc_sql_dates:
        return f"CAST({orc_date_of_timestamp(expr)} AS DATE)"
    if src.kind == "timestamp" and dst.kind in ("float", "double", "decimal"):
        return _timestamp_to_fraction(
            expr, dst, exact=orc_file and not orc_sql_dates, big_decimal=hive1_decimals
        )
    if src.kind in ("float", "double") and dst.kind == "decimal":
        # getHiveDecimal and ORC 1.3-1.5: HiveDecimal.create(Float.toString / Double.toString),
        # whose text Spark's CAST to STRING writes alike; ORC 1.6+ reads a float as its double
        number = f"CAST({expr} AS DOUBLE)" if orc_file and not orc_sql_dates else expr
        return _hive_decimal(f"CAST({number} AS STRING)", dst, hive1_decimals)
    if src.kind == "timestamp" and not src_physical and dst.kind in _NUMBERS:
        # Spark casts no TIMESTAMP_NTZ to a number; as an instant in the UTC session it
        # counts the seconds of its wall clock, as Hive does.
        return f"CAST(CAST({expr} AS TIMESTAMP) AS {spark_type(dst)})"
    via_double = not text_file and not (orc_file and orc_sql_dates)
    if dst.kind == "float" and via_double and (src.kind in _STRING_KINDS or src.kind in _INTEGRAL):
        # rounded to a double first: Hive's converter (getFloat is (float) getDouble) and ORC
        # 1.6+ (its double readers); LazyFloat and ORC 1.3-1.5 round once, as Spark's CAST does
        if src.kind in _INTEGRAL:
            return f"CAST(CAST({expr} AS DOUBLE) AS FLOAT)"
        return f"CAST({_java_floating(expr, HiveType('double'))} AS FLOAT)"
    if src.kind in _STRING_KINDS and dst.kind in ("float", "double"):
        return _java_floating(expr, dst)
    if src.kind in _STRING_KINDS and dst.kind == "decimal":
        # HiveDecimal's grammar (Spark's CAST trims any blank, takes any exponent and, through
        # Java's BigDecimal, fullwidth and Arabic-Indic digits)
        # (a text file's own field: LazyHiveDecimal, no blanks since Hive 2.2; a CHAR's text is
        # its stripped value, getString's getStrippedValue)
        text = f"rtrim({expr})" if src.kind == "char" else expr
        return _hive_decimal(text, dst, hive1_decimals, trim_blanks=not text_file, long_text=True)
    if dst.kind == "char":
        width = dst.params[0]
        return f"rpad(substring(CAST({expr} AS STRING), 1, {width}), {width}, ' ')"
    if dst.kind == "varchar":
        return f"substring(CAST({expr} AS STRING), 1, {dst.params[0]})"
    if src == dst and not (src_physical and src.kind == "timestamp"):
        return expr
    if dst.kind == "float" and src.kind in ("int", "bigint"):
        return float_of_integer(expr)
    return f"CAST({expr} AS {spark_type(dst)})"


def float_of_integer(expr: str) -> str:
    """SQL rounding an INT or BIGINT ``expr`` to a FLOAT that stays rounded when cast on to a
    DOUBLE: Spark's optimizer (SimplifyCasts) takes an integer's cast to FLOAT as widening and
    folds CAST(CAST(x AS FLOAT) AS DOUBLE) into CAST(x AS DOUBLE), which keeps 16777217; a
    product with 1.0 (exact in IEEE arithmetic) is not a cast and stays."""
    return f"(CAST({expr} AS FLOAT) * CAST(1 AS FLOAT))"


def convert(
    expr: str,
    src: HiveType,
    dst: HiveType,
    *,
    by_name: bool,
    case_sensitive: bool = False,
    src_physical: bool = False,
    orc_file: bool = False,
    text_file: bool = False,
    hybrid_labels: bool = False,
    hive3_converters: bool = True,
    orc_sql_dates: bool = False,
    hive4_dates: bool = False,
    hive1_decimals: bool = False,
    hybrid_instants: bool = False,
    hybrid_seconds: bool = False,
    stored_days: bool = False,
    zone: str | None = None,
    where: str = "",
) -> str:
    """SQL converting ``expr`` of Hive type ``src`` to ``dst`` as Hive does on read.

    Struct fields are matched by name when ``by_name`` (ORC schema evolution of named files),
    else by position (Hive's partition-to-table conversion). Missing fields read as NULL.
    ``orc_file``: the conversion is ORC's schema evolution (an ORC file's column read as the
    partition's declared type), whose rules differ from Hive's ObjectInspector converters
    (partition to table) for integral and boolean targets. ``text_file``: the conversion parses
    a text file's fields as the partition's types (LazySimpleSerDe's map-key rule).
    ``hybrid_labels``: dates and timestamps are shown as Hive 2.x shows them (``hybrid_label``).
    ``hive3_converters``: strings become booleans, dates and timestamps by Hive 3.0+'s rules,
    else by Hive 2's. ``orc_sql_dates``: ORC's schema evolution reads strings as dates and
    timestamps by java.sql's parsers (``HiveSemantics.orc_sql_dates``). ``hive4_dates``:
    Hive's converters and text SerDe read text as dates by Hive 4's rules. ``hive1_decimals``:
    text becomes a decimal by Hive 1.2's ``HiveDecimal`` (Java's ``BigDecimal``).
    ``hybrid_instants``: numbers read as timestamps are shown as Hive 1.2/2.x's
    ``java.sql.Timestamp`` shows an instant, its day counted in the hybrid calendar.
    ``hybrid_seconds``: a timestamp read as a number counts the seconds of the instant
    ``java.sql.Timestamp`` gives its wall clock (``hybrid_instant``; Hive 1.2/2.x's converter).
    ``stored_days``: dates and timestamps are shown by their day numbers as stored (``calendar
    = "proleptic"``, Apache Hive 3.1), also where ORC 1.3-1.5's java.sql conversions count
    them in the hybrid calendar (text read as a date, a date written as text).
    ``zone``: the zone Hive's JVMs run in, where not UTC (``zone_rule``).
    """
    reason = unreadable(src, dst, by_name=by_name, case_sensitive=case_sensitive)
    if reason:  # the inspector refuses such partitions; this guards any other caller
        raise SchemaMappingError(
            f"{where or 'a column'}: {reason}.",
            hint="Fix the partition's or the table's declared type in Hive.",
        )
    if src.is_primitive and dst.is_primitive:
        if hybrid_labels and src.kind in ("date", "timestamp"):
            expr = hybrid_label(expr, src.kind)
        if hybrid_seconds and src.kind == "timestamp" and dst.kind in SECONDS_COUNTED:
            expr = hybrid_instant(expr)
        rule = zone_rule(zone, src, dst, orc_file=orc_file, hive3_converters=hive3_converters,
                         orc_sql_dates=orc_sql_dates)  # fmt: skip
        if zone and rule == "instant counted":
            expr = zone_instant(expr, zone)
        elif zone and rule == "wall clock read":
            expr = zone_wall_clock(expr, zone)
        converted = None
        if not orc_file and not text_file:
            if src.kind == "char" and dst.kind in ("string", "varchar"):
                # Hive's converters read a CHAR by its stripped value (TextConverter,
                # getHiveVarchar: getStrippedValue; Hive 2.3.9 shows 'ab', not 'ab   ')
                expr = f"rtrim({expr})"
            converted = _converter(expr, src, dst, hive3_converters, hive4_dates)
        if converted is None:
            converted = _primitive(
                expr,
                src,
                dst,
                src_physical,
                orc_file,
                hive3_converters,
                text_file,
                orc_sql_dates,
                hive4_dates,
                hybrid_instants,
                hive1_decimals,
                stored_days,
                shown_in=zone if rule == "instant shown" else None,
            )
        if zone and rule == "parsed as instant":
            return f"CAST({zone_instant(converted, zone)} AS TIMESTAMP_NTZ)"
        if zone and rule == "parsed in zone":
            return zone_wall_clock(zone_instant(converted, zone), zone)
        return converted
    if src == dst and not (
        (src_physical and holds_kind(src, "timestamp"))
        or (hybrid_labels and holds_kind(src, "date", "timestamp"))
    ):
        return expr
    kwargs: dict[str, Any] = {
        "by_name": by_name,
        "case_sensitive": case_sensitive,
        "src_physical": src_physical,
        "orc_file": orc_file,
        "text_file": text_file,
        "hybrid_labels": hybrid_labels,
        "hive3_converters": hive3_converters,
        "orc_sql_dates": orc_sql_dates,
        "hive4_dates": hive4_dates,
        "hive1_decimals": hive1_decimals,
        "hybrid_instants": hybrid_instants,
        "hybrid_seconds": hybrid_seconds,
        "stored_days": stored_days,
        "zone": zone,
    }
    if dst.kind == "array":
        var = f"e{next(_lambda_names)}"
        inner = convert(var, src.fields[0][1], dst.fields[0][1], where=f"{where}[]", **kwargs)
        return f"transform({expr}, {var} -> {inner})"
    if dst.kind == "map":
        k, v = f"k{next(_lambda_names)}", f"v{next(_lambda_names)}"
        if not keys_may_merge(src.fields[0][1], dst.fields[0][1]):
            keys = convert(k, src.fields[0][1], dst.fields[0][1], where=f"{where}.key", **kwargs)
            values = convert(
                v, src.fields[1][1], dst.fields[1][1], where=f"{where}.value", **kwargs
            )
            return (
                f"map_from_arrays(transform(map_keys({expr}), {k} -> {keys}), "
                f"transform(map_values({expr}), {v} -> {values}))"
            )
        # Keys read as another type can turn NULL or collide ('1' and '01' as int). A text
        # file's LazyMap drops a NULL key and keeps a repeated key's first value; ORC's schema
        # evolution and Hive's converters put each entry into a Java map, so the last value
        # wins and a NULL key stays (Hive 2.3.9 shows {1:"b"} for {"1":"a","01":"b"} and
        # {null:"e"}): no target format holds a NULL map key, so such a map is refused.
        e = f"e{next(_lambda_names)}"
        keys = convert(
            f"{e}.key", src.fields[0][1], dst.fields[0][1], where=f"{where}.key", **kwargs
        )
        entry = convert(
            f"{e}.value", src.fields[1][1], dst.fields[1][1], where=f"{where}.value", **kwargs
        )
        key_type, value_type = spark_type(dst.fields[0][1]), spark_type(dst.fields[1][1])
        entries = f"transform(map_entries({expr}), {e} -> struct({keys} AS key, {entry} AS value))"
        refuse = None
        if not text_file:
            refuse = string_literal(
                f"lakeshift: {where or 'a map column'}: a map key of type {src.fields[0][1]} "
                f"reads as NULL as {dst.fields[0][1]}; Hive shows a NULL key there, which "
                "Iceberg, Delta and Hudi cannot hold. Declare the table's map key type so "
                "that every key reads, or fix the data."
            )
        kept = kept_entries(
            entries, f"ARRAY<STRUCT<key:{key_type},value:{value_type}>>", last=not text_file,
            refuse_null=refuse,
        )  # fmt: skip
        return f"map_from_entries({kept})"
    parts = []
    for position, (name, dst_type) in enumerate(dst.fields):
        source = _struct_source(src, name, position, by_name, case_sensitive)
        if source is None:
            value = f"CAST(NULL AS {spark_type(dst_type)})"
        else:
            value = convert(
                f"{expr}.{quote(source[0])}", source[1], dst_type, where=f"{where}.{name}", **kwargs
            )
        parts.append(f"{string_literal(name)}, {value}")
    return f"IF({expr} IS NULL, NULL, named_struct({', '.join(parts)}))"


def kept_entries(
    entries: str, entry_type: str, *, last: bool, refuse_null: str | None = None
) -> str:
    """SQL keeping, of an array of map entries (structs whose ``key`` is already typed), those
    a Java map keeps: Hive's LazyMap (a text file's maps, ``last=False``) drops a NULL key and
    keeps a repeated key's first entry; ``Map.put`` (ORC's schema evolution, Hive's
    converters: ``last=True``) keeps a repeated key's last entry, a NULL key as any other.
    ``refuse_null``: a SQL string raised as an error on a NULL key instead. Entries keep their
    order. (Hand-written: Spark's own map builders fail on a repeated or NULL key.)"""
    n = next(_lambda_names)
    acc, x, y = f"acc{n}", f"x{n}", f"y{n}"
    keep = f"IF(exists({acc}, {y} -> {y}.key <=> {x}.key), {acc}, concat({acc}, array({x})))"
    if refuse_null is not None:
        keep = f"IF({x}.key IS NULL, CAST(raise_error({refuse_null}) AS {entry_type}), {keep})"
    elif not last:
        keep = f"IF({x}.key IS NULL, {acc}, {keep})"
    start = f"CAST(array() AS {entry_type})"
    if not last:
        return f"aggregate({entries}, {start}, ({acc}, {x}) -> {keep})"
    return f"reverse(aggregate(reverse({entries}), {start}, ({acc}, {x}) -> {keep}))"


def java_maps(expr: str, hive: HiveType) -> str:
    """SQL giving ``expr`` (a scanned ORC or Parquet value of Hive type ``hive``, physical
    types) as Hive holds it: each map, at any depth, put entry by entry into a Java map, so a
    key written more than once keeps its last entry (Hive 2.3.9's ORC ``RecordReaderImpl
    .nextMap``, ``AbstractParquetMapInspector.getMap``: ``map.put``; Hive 1.2's
    ``MapTreeReader`` alike). Such files come from other writers than Hive's (Spark's builders
    refuse a repeated key). ``expr`` itself where ``hive`` holds no map; a map without a
    repeated key is kept as read (one ``array_distinct`` to find out, none under 2 entries)."""
    if not holds_kind(hive, "map"):
        return expr
    if hive.kind in ("struct", "array"):
        return nested_sql(expr, hive, java_maps)
    n = next(_lambda_names)
    (_, key), (_, value) = hive.fields
    key_type, value_type = spark_type(key, physical=True), spark_type(value, physical=True)
    probe = f"map_keys({expr})"
    if key.kind == "double":  # -0.0 is 0.0 to DoubleWritable (== and one hash code)
        probe = f"transform({probe}, jk{n} -> jk{n} + CAST(0 AS {key_type}))"
    kept = kept_entries(
        f"map_entries({expr})", f"ARRAY<STRUCT<key:{key_type},value:{value_type}>>", last=True
    )
    distinct = f"size({expr}) < 2 OR size(array_distinct({probe})) = size({expr})"
    deduped = f"IF({distinct}, {expr}, map_from_entries({kept}))"
    if not holds_kind(value, "map"):
        return deduped
    return f"transform_values({deduped}, (jk{n}, jv{n}) -> {java_maps(f'jv{n}', value)})"


def zoned_read(expr: str, hive: HiveType, zone: str) -> str:
    """SQL giving ``expr`` (a scanned ORC value of Hive type ``hive``, from a file that names
    no writer zone, read in UTC) as a reader in JVM zone ``zone`` reads it: ORC's
    ``TimestampTreeReader`` then takes the file's seconds as counted from 2015-01-01 00:00 in
    ``zone`` and shows the instant's wall clock there (a summer value written in New York
    reads an hour later than in UTC; before 1900 by the zone's raw offset, as java.util's
    zones give it), at any depth; ``expr`` itself where ``hive`` holds no timestamp."""
    base = "TIMESTAMP'2015-01-01 00:00:00'"
    shift = f"(to_utc_timestamp({base}, {string_literal(zone)}) - {base})"
    return each_timestamp(
        expr, hive, lambda e: f"CAST({zone_wall_clock(f'{e} + {shift}', zone)} AS TIMESTAMP)"
    )


def zoned_instants(expr: str, hive: HiveType, zone: str, java_util: bool) -> str:
    """SQL giving every timestamp in ``expr`` (UTC instants, e.g. a Parquet file's INT96) as
    the wall clock Hive shows in ``zone``, at any depth: by java.util's zones
    (``zone_wall_clock``) or by java.time's, as ``hive.semantics.int96_reading`` decides per
    version and file; a TIMESTAMP, as the scan reads it."""
    if java_util:
        return each_timestamp(
            expr, hive, lambda e: f"CAST({zone_wall_clock(e, zone)} AS TIMESTAMP)"
        )
    return each_timestamp(expr, hive, lambda e: f"from_utc_timestamp({e}, {string_literal(zone)})")


def each_timestamp(expr: str, hive: HiveType, leaf: Callable[[str], str]) -> str:
    """SQL applying ``leaf`` to every timestamp in ``expr`` (Hive type ``hive``) at any depth;
    ``expr`` itself where it holds none (``zones._each_timestamp`` in the independent
    reader)."""
    if hive.kind == "timestamp":
        return leaf(expr)
    if not holds_kind(hive, "timestamp"):
        return expr
    return nested_sql(expr, hive, lambda e, kind: each_timestamp(e, kind, leaf))


def parquet_built(expr: str, file: HiveType, table: HiveType, version: str) -> str:
    """SQL giving ``expr`` (a Parquet file's column of type ``file``, as scanned) as Hive
    ``version``'s Parquet reader builds it for the table's type ``table``, at every depth
    (``parquet_reading.built``; its type is then ``parquet_reading.built_type``); ``expr``
    itself where nothing changes (the independent reader: ``parquet_values.built_values``)."""
    if not rebuilds(file, table, version):
        return expr
    if file.is_primitive:
        change = built(file, table, version)
        assert change is not None  # rebuilds said so
        return _built_sql(expr, file, change)
    n = next(_lambda_names)
    if file.kind == "struct":
        parts = []
        for name, child in file.fields:
            value = f"{expr}.{quote(name)}"
            found = field_index(table, name, 0, by_name=True, case_sensitive=False)
            if found is not None:
                value = parquet_built(value, child, table.fields[found][1], version)
            parts.append(f"{string_literal(name)}, {value}")
        return f"IF({expr} IS NULL, NULL, named_struct({', '.join(parts)}))"
    if file.kind == "array":
        inner = parquet_built(f"pe{n}", file.fields[0][1], table.fields[0][1], version)
        return f"transform({expr}, pe{n} -> {inner})"
    inner = parquet_built(f"pv{n}", file.fields[1][1], table.fields[1][1], version)
    return f"transform_values({expr}, (pk{n}, pv{n}) -> {inner})"


def scanned_sql(expr: str, hive: HiveType, scanned: HiveType, nulls: bool) -> str:
    """SQL giving ``expr`` (a Parquet column Spark scanned as ``scanned``,
    ``FileInfo.scanned``) as Hive reads it, of type ``hive``, leaf by leaf:

    - a ``UINT_32``/``UINT_64`` leaf (scanned as bigint, decimal(20,0)): its physical
      ``INT32``/``INT64`` taken signed (4294967295 is -1), or with ``nulls`` NULL where that is
      negative (``parquet_reading.unsigned_nulls``); map keys always signed, never NULL;
    - a nanosecond ``INT64`` timestamp (scanned as its bigint count): its instant
      (``ParquetTimestampUtils.getTimestamp``: ``Instant.ofEpochSecond``, which floors), at the
      microsecond the targets keep (floored, as Spark reads ORC's nanoseconds).

    Spark's vectorized reader refuses those leaves as Hive's types, hence the other scan (the
    independent reader: ``parquet_values.hive_leaves``)."""
    if hive == scanned:
        return expr
    if hive.kind == "timestamp":  # whole microseconds, floored (Spark's div truncates)
        micros = f"{expr} div 1000 - IF({expr} < 0 AND {expr} % 1000 != 0, 1, 0)"
        return f"timestamp_micros({micros})"
    if hive.is_primitive:
        width = 64 if hive.kind == "bigint" else 32
        top, to = 2 ** (width - 1) - 1, spark_type(hive)
        if nulls:
            return f"IF({expr} > {top}, NULL, CAST({expr} AS {to}))"
        return f"CAST(IF({expr} > {top}, {expr} - {2**width}, {expr}) AS {to})"
    n = next(_lambda_names)
    if hive.kind == "struct":
        parts = []
        for (name, child), (_, wide) in zip(hive.fields, scanned.fields):
            inner = scanned_sql(f"{expr}.{quote(name)}", child, wide, nulls)
            parts.append(f"{string_literal(name)}, {inner}")
        return f"IF({expr} IS NULL, NULL, named_struct({', '.join(parts)}))"
    if hive.kind == "array":
        inner = scanned_sql(f"ue{n}", hive.fields[0][1], scanned.fields[0][1], nulls)
        return f"transform({expr}, ue{n} -> {inner})"
    key = scanned_sql(f"uk{n}", hive.fields[0][1], scanned.fields[0][1], False)
    value = scanned_sql(f"uv{n}", hive.fields[1][1], scanned.fields[1][1], nulls)
    if key != f"uk{n}":
        expr = f"transform_keys({expr}, (uk{n}, uv{n}) -> {key})"
    if value != f"uv{n}":
        expr = f"transform_values({expr}, (uk{n}, uv{n}) -> {value})"
    return expr


def _double_literal(value: float) -> str:
    return f"CAST('{value!r}' AS DOUBLE)"


def _built_sql(expr: str, file: HiveType, change: Built) -> str:
    """SQL for one of ``parquet_reading.Built``'s rules (Java's comparisons: NaN is in no
    range, where Spark's NaN is greater than any number, so ``<= high`` keeps it out)."""
    to = spark_type(change.to)
    if change.rule == "float":
        return f"CAST({float_of_integer(expr)} AS DOUBLE)"
    if change.rule == "range":
        keep = f"{expr} BETWEEN {int(change.low)} AND {int(change.high)}"
        return f"IF({keep}, CAST({expr} AS {to}), NULL)"
    if change.rule == "convert" and change.widen:
        return convert(f"CAST({expr} AS DOUBLE)", HiveType("double"), change.to, by_name=True)
    if change.rule == "convert":
        return convert(expr, file, change.to, by_name=True)
    number = f"CAST({expr} AS DOUBLE)"
    low, high = _double_literal(change.low), _double_literal(change.high)
    if change.rule == "integral":
        keep = f"{number} >= {low} AND {number} <= {high} AND {number} % 1 = 0"
    else:  # magnitude
        keep = f"abs({number}) >= {low} AND abs({number}) <= {high}"
        if change.zero:
            keep = f"({keep}) OR {number} = 0"
    return f"IF({keep}, CAST({expr} AS {to}), NULL)"


def nested_sql(expr: str, hive: HiveType, inner: Callable[[str, HiveType], str]) -> str:
    """SQL rebuilding nested ``expr`` (Hive type ``hive``: a struct, array or map) with
    ``inner(value_expr, value_type)`` applied to each field, element, key and value (a
    NULL stays NULL; a map's keys must stay distinct)."""
    n = next(_lambda_names)
    if hive.kind == "struct":
        parts = ", ".join(
            f"{string_literal(name)}, {inner(f'{expr}.{quote(name)}', kind)}"
            for name, kind in hive.fields
        )
        return f"IF({expr} IS NULL, NULL, named_struct({parts}))"
    if hive.kind == "array":
        return f"transform({expr}, ne{n} -> {inner(f'ne{n}', hive.fields[0][1])})"
    if hive.kind != "map":
        raise ValueError(f"not a struct, array or map: {hive}")
    (_, key), (_, value) = hive.fields
    keys = f"transform(map_keys({expr}), nk{n} -> {inner(f'nk{n}', key)})"
    values = f"transform(map_values({expr}), nv{n} -> {inner(f'nv{n}', value)})"
    return f"IF({expr} IS NULL, NULL, map_from_arrays({keys}, {values}))"


def _struct_source(
    src: HiveType, name: str, position: int, by_name: bool, case_sensitive: bool
) -> tuple[str, HiveType] | None:
    if not by_name:
        return src.fields[position] if position < len(src.fields) else None
    wanted = name if case_sensitive else name.lower()
    for field_name, field_type in src.fields:
        if (field_name if case_sensitive else field_name.lower()) == wanted:
            return field_name, field_type
    return None
