"""Java's date and time parsers as Hive's readers call them, in Spark SQL.

Hive turns text into dates and timestamps with its ObjectInspector converters (a partition's
string column that the table declares a date or timestamp: model A) and with its text SerDe (a
text file's date and timestamp fields), by Java's parsers rather than SQL's CAST, and those
changed in Hive 3.0 (``java.sql`` in the hybrid calendar before, Hive's ``java.time`` classes
in the proleptic one after). The rules, with the Hive source they restate, are in
``hive.datetimes``, which the partition keys and the independent reader use; this is the same
rules written again for the Spark reader (``tests/integration/test_hive_string_dates.py``
compares the two value by value). Each parser gives the fields as written (a struct) or NULL;
``_shown`` resolves them leniently and counts the days in the version's calendar.

Hand-written: Spark SQL has neither Java's lenient parsers nor the hybrid calendar.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from lakeshift.hive.calendar_sql import bind, julian_label_date
from lakeshift.hive.datetimes import (
    BARE_ZONES,
    FIRST_DAY,
    JAVA_DIGITS,
    LAST_DAY,
    SWITCH_DAY,
    SWITCH_JDN,
    TREE_ZONE_IDS,
    UNIX_JDN,
    ZONE,
)

_FIELDS = ("y", "mo", "d", "h", "mi", "s", "n")
_NO_FIELDS = "CAST(NULL AS STRUCT<" + ",".join(f"{f}:BIGINT" for f in _FIELDS) + ">)"
# Java's String.trim: every character up to U+0020 (Spark's trim takes spaces only).
_TRIM = r"'^[\\x00-\\x20]+|[\\x00-\\x20]+\\z'"
# The end of the text: Java's $ also matches before a final line terminator.
_END = r"\\z'"
# java.sql: a year of exactly four characters, month and day of one or two, each an int
_SQL_DATE = "'^([0-9]{4}|[+][0-9]{3})-([0-9]{1,2}|[+][0-9])-([0-9]{1,2}|[+][0-9])" + _END
_SQL_TIME = "'^([+-]?[0-9]+):([+-]?[0-9]+):([+-]?[0-9]+)([.]([0-9]{1,9}))?" + _END
# Hive 3's formatter: year 1..10 digits, other fields 1..2, '-' signs; the time required
_H3_DATE = "(-?[0-9]{1,10})-(-?[0-9]{1,2})-(-?[0-9]{1,2})"
_H3_DAY = f"'^{_H3_DATE}" + _END
_H3_STAMP = (
    f"'^{_H3_DATE} (-?[0-9]{{1,2}}):(-?[0-9]{{1,2}}):(-?[0-9]{{1,2}})([.]([0-9]{{1,9}}))?" + _END
)
# Hive 4: the date at the start of the text (what follows is ignored); its timestamp with
# exactly one space and the time required; a time alone (ISO_LOCAL_TIME)
# (Hive 4's timestamp form is Hive 3's: _H3_STAMP, then strict instead of lenient)
_H4_PREFIX = f"'^{_H3_DATE}'"
_TIME_ONLY = "'^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9]([.][0-9]{0,9})?)?" + _END
# ISO_LOCAL_DATE_TIME (strict)
_ISO = (
    "'^([+-][0-9]{5,10}|-?[0-9]{4})-([0-9]{2})-([0-9]{2})"
    "T([0-9]{2}):([0-9]{2})(:([0-9]{2})([.]([0-9]{0,9}))?)?" + _END
)
# TimestampTZUtil: yyyy-MM-dd[ HH:mm:ss[.f]][ ]zone (the zone's text is group 10, checked
# by _zone_known)
_ZONED = (
    "'^([0-9]{4})-([0-9]{2})-([0-9]{2})( ([0-9]{2}):([0-9]{2}):([0-9]{2})([.]([0-9]{1,9}))?)? ?"
    + ZONE
    + _END
)
# java.time's zone parser: the texts it takes as they are (region ids of its tree, Z, UTC, GMT,
# UT, GMT0), or an offset alone or after UTC, GMT or UT
_ZONE_NAMES = ", ".join(f"'{z}'" for z in sorted(TREE_ZONE_IDS.union(BARE_ZONES)))
_REGION_NAMES = ", ".join(f"'{z}'" for z in sorted(TREE_ZONE_IDS))  # zones with rules
_ZONE_OFFSET = "'^(UTC|GMT|UT)?[+-]([0-9]{2}):([0-9]{2})(:([0-9]{2}))?" + _END
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_AS_ASCII = "".join(str(unicodedata.digit(c)) for c in JAVA_DIGITS)


def _floor_div(value: str, by: int) -> str:
    return f"CAST(floor(({value}) / {by}) AS BIGINT)"


def _group(text: str, pattern: str, index: int) -> str:
    return f"CAST(regexp_extract({text}, {pattern}, {index}) AS BIGINT)"


def _nanos(fraction: str) -> str:
    return f"CAST(rpad(coalesce({fraction}, ''), 9, '0') AS BIGINT)"


def _fields(y: str, mo: str, d: str, clock: tuple[str, str, str, str] = ("0",) * 4) -> str:
    values = (y, mo, d, *clock)
    return "named_struct(" + ", ".join(f"'{f}', {v}" for f, v in zip(_FIELDS, values)) + ")"


def _if(condition: str, fields: str) -> str:
    return f"IF({condition}, {fields}, {_NO_FIELDS})"


def _minus_zero(text: str, pattern: str, groups: range) -> str:
    """SQL: a group is a negative zero (``-0``), which a strict java.time parse refuses."""
    return " OR ".join(f"regexp_extract({text}, {pattern}, {g}) RLIKE '^-0+\\\\z'" for g in groups)


def _month_days(y: str, mo: str) -> str:
    leap = f"({y} % 4 = 0 AND ({y} % 100 <> 0 OR {y} % 400 = 0))"
    return (
        f"CASE WHEN {mo} = 2 THEN IF({leap}, 29, 28) WHEN {mo} IN (4, 6, 9, 11) THEN 30 ELSE 31 END"
    )


def ascii_digits(text: str) -> str:
    """SQL: ``text`` with every digit ``Integer.parseInt`` reads (any decimal digit of the
    Basic Multilingual Plane, ``hive.datetimes.JAVA_DIGITS``) as its ASCII digit, so that the
    patterns and casts below, which know ASCII digits only, read them as java.sql does."""
    return f"translate({text}, '{JAVA_DIGITS}', '{_AS_ASCII}')"


def sql_date(text: str) -> str:
    """``java.sql.Date.valueOf`` (not trimmed): month 1..12, day 1..31, resolved leniently."""

    def parse(t: str) -> str:
        y, mo, d = (_group(t, _SQL_DATE, i) for i in (1, 2, 3))
        ok = f"{t} RLIKE {_SQL_DATE} AND {mo} BETWEEN 1 AND 12 AND {d} BETWEEN 1 AND 31"
        return _if(ok, _fields(y, mo, d))

    return bind(ascii_digits(text), parse)


def sql_timestamp(text: str) -> str:
    """``java.sql.Timestamp.valueOf``: trimmed; ``date time``, the time three ints and an
    optional fraction of one to nine digits."""

    def parse(t: str) -> str:
        day = f"substring_index({t}, ' ', 1)"
        time = f"substring({t}, instr({t}, ' ') + 1)"
        y, mo, d = (_group(day, _SQL_DATE, i) for i in (1, 2, 3))
        h, mi, s = (_group(time, _SQL_TIME, i) for i in (1, 2, 3))
        ints = " AND ".join(f"{v} BETWEEN {_INT_MIN} AND {_INT_MAX}" for v in (h, mi, s))
        ok = (
            f"instr({t}, ' ') > 0 AND {day} RLIKE {_SQL_DATE} AND {time} RLIKE {_SQL_TIME} "
            f"AND {mo} BETWEEN 1 AND 12 AND {d} BETWEEN 1 AND 31 AND {ints}"
        )
        fraction = f"regexp_extract({time}, {_SQL_TIME}, 5)"
        return _if(ok, _fields(y, mo, d, (h, mi, s, _nanos(fraction))))

    return bind(ascii_digits(_trimmed(text)), parse)


def hive3_date(text: str) -> str:
    """Hive 3's ``Date.valueOf``: trimmed, cut at the first space, its date formatter."""
    pattern = _H3_DAY

    def parse(t: str) -> str:
        y, mo, d = (_group(t, pattern, i) for i in (1, 2, 3))
        ok = f"{t} RLIKE {pattern} AND NOT ({_minus_zero(t, pattern, range(1, 4))})"
        return _if(ok, _fields(y, mo, d))

    return bind(f"substring_index({_trimmed(text)}, ' ', 1)", parse)


def hive3_timestamp(text: str) -> str:
    """Hive 3's ``Timestamp.valueOf``: trimmed; its lenient formatter with a time, else ISO's
    strict ``LocalDateTime.parse``."""

    def parse(t: str) -> str:
        v = [_group(t, _H3_STAMP, i) for i in range(1, 7)]
        lenient = _if(
            f"{t} RLIKE {_H3_STAMP} AND NOT ({_minus_zero(t, _H3_STAMP, range(1, 7))})",
            _fields(
                v[0], v[1], v[2], (v[3], v[4], v[5], _nanos(f"regexp_extract({t}, {_H3_STAMP}, 8)"))
            ),
        )
        return f"coalesce({lenient}, {_iso(t)})"

    return bind(_trimmed(text), parse)


def _iso(t: str) -> str:
    """``LocalDateTime.parse`` (ISO_LOCAL_DATE_TIME, strict) of trimmed text ``t``."""
    i = [_group(t, _ISO, g) for g in (1, 2, 3, 4, 5, 7)]
    seconds = f"coalesce({i[5]}, 0)"
    valid = f"{t} RLIKE {_ISO} AND {_strict(i[0], i[1], i[2], (i[3], i[4], seconds))}"
    fraction = f"regexp_extract({t}, {_ISO}, 9)"
    return _if(valid, _fields(i[0], i[1], i[2], (i[3], i[4], seconds, _nanos(fraction))))


def _strict(y: str, mo: str, d: str, clock: tuple[str, str, str] = ("0", "0", "0")) -> str:
    """SQL: the fields are a valid date and time (STRICT resolution: nothing carries over)."""
    h, mi, s = clock
    return (
        f"{mo} BETWEEN 1 AND 12 AND {d} BETWEEN 1 AND {_month_days(y, mo)} "
        f"AND {h} BETWEEN 0 AND 23 AND {mi} BETWEEN 0 AND 59 AND {s} BETWEEN 0 AND 59"
    )


def hive4_date(text: str) -> str:
    """Hive 4's ``Date.valueOf``: trimmed, the date at the start (what follows is ignored),
    strict."""

    def parse(t: str) -> str:
        y, mo, d = (_group(t, _H4_PREFIX, i) for i in (1, 2, 3))
        ok = (
            f"{t} RLIKE {_H4_PREFIX} AND NOT ({_minus_zero(t, _H4_PREFIX, range(1, 4))}) "
            f"AND {_strict(y, mo, d)}"
        )
        return _if(ok, _fields(y, mo, d))

    return bind(_trimmed(text), parse)


def hive4_timestamp(text: str) -> str:
    """Hive 4's ``Timestamp.valueOf``: trimmed; ``y-m-d h:m:s[.f]`` (the time required), else
    ISO, both strict."""

    def parse(t: str) -> str:
        v = [_group(t, _H3_STAMP, i) for i in range(1, 7)]
        ok = (
            f"{t} RLIKE {_H3_STAMP} AND NOT ({_minus_zero(t, _H3_STAMP, range(1, 7))}) "
            f"AND {_strict(v[0], v[1], v[2], (v[3], v[4], v[5]))}"
        )
        fraction = _nanos(f"regexp_extract({t}, {_H3_STAMP}, 8)")
        strict = _if(ok, _fields(v[0], v[1], v[2], (v[3], v[4], v[5], fraction)))
        return f"coalesce({strict}, {_iso(t)})"

    return bind(_trimmed(text), parse)


def _zoned(text: str) -> str:
    """``TimestampTZUtil.parse``'s wall clock (SMART: a day past the month's end is its last
    day, ``24:00:00`` the next midnight); NULL without a zone."""
    padded = (
        f"IF({text} RLIKE '[+-][0-9]:[0-9]{{2}}', "
        f"regexp_replace({text}, '^(.*?)([+-])([0-9]:[0-9]{{2}})', '$1$20$3'), {text})"
    )

    def parse(t: str) -> str:
        y, mo, d, h, mi, s = (f"coalesce({_group(t, _ZONED, g)}, 0)" for g in (1, 2, 3, 5, 6, 7))
        day = f"least({d}, {_month_days(y, mo)})"
        fraction = f"regexp_extract({t}, {_ZONED}, 9)"
        midnight = f"({h} = 24 AND {mi} = 0 AND {s} = 0 AND {_nanos(fraction)} = 0)"

        def zoned(z: str) -> str:
            ok = (
                f"{t} RLIKE {_ZONED} AND {_zone_known(z)} "
                f"AND {mo} BETWEEN 1 AND 12 AND {d} BETWEEN 1 AND 31 "
                f"AND ({h} <= 23 OR {midnight}) AND {mi} <= 59 AND {s} <= 59"
            )
            gap = _gap_seconds(y, mo, day, f"{h} * 3600 + {mi} * 60 + {s}", z)
            return _if(ok, _fields(y, mo, day, (h, mi, f"{s} + {gap}", _nanos(fraction))))

        return bind(f"regexp_extract({t}, {_ZONED}, 10)", zoned)

    return bind(padded, parse)


def _gap_seconds(y: str, mo: str, d: str, seconds: str, zone: str) -> str:
    """SQL: ``hive.datetimes._gap_seconds`` with the JVM's time-zone rules: a wall clock in a
    daylight-saving gap of a region ``zone`` moves later by the gap's length, as
    ``ZonedDateTime.of`` moves it (Spark's ``to_utc_timestamp`` resolves a wall clock the same
    way, and ``from_utc_timestamp`` shows the instant's wall clock again)."""
    wall = f"timestamp_seconds(({_jdn(y, mo, d, julian=False)} - {UNIX_JDN}) * 86400 + {seconds})"
    return bind(
        wall,
        lambda w: (
            f"IF({zone} IN ({_REGION_NAMES}), unix_seconds(from_utc_timestamp("
            f"to_utc_timestamp({w}, {zone}), {zone})) - unix_seconds({w}), 0)"
        ),
    )


def _zone_known(zone: str) -> str:
    """SQL: ``hive.datetimes.zone_known`` (an offset of at most 18 hours, minutes and seconds
    under 60)."""

    def known(z: str) -> str:
        h, mi, s = (f"coalesce({_group(z, _ZONE_OFFSET, g)}, 0)" for g in (2, 3, 5))
        return (
            f"({z} IN ({_ZONE_NAMES}) OR ({z} RLIKE {_ZONE_OFFSET} AND {mi} <= 59 "
            f"AND {s} <= 59 AND {h} * 3600 + {mi} * 60 + {s} <= 64800))"
        )

    return bind(zone, known)


def _trimmed(text: str) -> str:
    return f"regexp_replace({text}, {_TRIM}, '')"


def _trim_nanos(text: str, hive3: bool, hive4: bool = False) -> str:
    """``trimNanoTimestamp``: digits past nine after the first period dropped (Hive 3 keeps
    what follows a second space; Hive 4, without one, what follows the first ``+`` after the
    first space)."""
    period = f"instr({text}, '.')"
    first = f"instr({text}, ' ')"
    second = f"IF({first} > 0, locate(' ', {text}, {first} + 1), 0)"
    if hive4:
        plus = f"IF({first} > 0, locate('+', {text}, {first} + 1), 0)"
        second = f"IF({second} > 0, {second}, {plus})"
    end = f"IF({second} > 0, {second} - 1, length({text}))" if hive3 else f"length({text})"
    rest = f"substring({text}, {end} + 1)" if hive3 else "''"
    cut = f"concat(substring({text}, 1, {period} + 9), {rest})"
    return f"IF({period} > 0 AND {end} - ({period} - 1) > 9, {cut}, {text})"


def _converter_timestamp(text: str, hive3: bool, hive4: bool = False) -> str:
    def parse(t: str) -> str:
        if not hive3:
            return sql_timestamp(f"IF(instr({t}, ' ') > 0, {t}, concat({t}, ' 00:00:00'))")
        if not hive4:
            return f"coalesce({hive3_timestamp(t)}, {_zoned(t)}, {hive3_date(t)})"
        # Hive 4: ten characters are a date only; a time alone is NULL here (Hive shows it on
        # the day the query runs: no fixed value); else the first reading that succeeds
        return (
            f"CASE WHEN char_length({t}) = 10 THEN {hive4_date(t)} "
            f"WHEN {t} RLIKE {_TIME_ONLY} THEN {_NO_FIELDS} "
            f"ELSE coalesce({hive4_timestamp(t)}, {_zoned(t)}, {hive4_date(t)}) END"
        )

    return bind(_trim_nanos(_trimmed(text), hive3, hive4), parse)


def _converter_date(text: str, hive3: bool, hive4: bool = False) -> str:
    def parse(t: str) -> str:
        if hive4:  # ten characters a date only, any other text the date of its timestamp
            return (
                f"IF(char_length({t}) = 10, {hive4_date(t)}, {_converter_timestamp(t, True, True)})"
            )
        direct = hive3_date(t) if hive3 else sql_date(t)
        return f"coalesce({direct}, {_converter_timestamp(t, hive3)})"

    return bind(_trimmed(text), parse)


def _lazy(text: str, kind: str, hive3: bool, hive4: bool = False) -> str:
    if kind == "date":
        parsed = hive4_date(text) if hive4 else hive3_date(text) if hive3 else sql_date(text)
        return _if(f"octet_length({text}) >= 8", parsed)
    if hive4:
        return _if(f"octet_length({text}) >= 8", hive4_timestamp(text))
    parsed = hive3_timestamp(text) if hive3 else sql_timestamp(text)
    return _if(f"octet_length({text}) >= 8 AND {text} <> 'NULL'", parsed)


def _jdn(y: str, mo: str, d: str, julian: bool) -> str:
    """The Julian day number of (year, month, day): Julian or proleptic Gregorian calendar."""
    a = f"((14 - {mo}) div 12)"
    yy, mm = f"({y} + 4800 - {a})", f"({mo} + 12 * {a} - 3)"
    base = f"({d} + (153 * {mm} + 2) div 5 + 365 * {yy} + {_floor_div(yy, 4)})"
    if julian:
        return f"({base} - 32083)"
    return f"({base} - {_floor_div(yy, 100)} + {_floor_div(yy, 400)} - 32045)"


def _shown(fields: str, kind: str, hybrid: bool, stored: bool = False) -> str:
    """The date or timestamp of parsed fields, resolved leniently (months past 12 carry into
    years, days past the month's end and time past the day's into the next), counted in the
    hybrid calendar (as GregorianCalendar: Julian before 1582, and in 1582 where the Gregorian
    count falls before the switch) or the proleptic one; NULL outside 0001..9999. A hybrid
    day is shown by its label, or with ``stored`` by its day number (Apache Hive 3.1 shows
    the days ORC 1.5's java.sql parsers count as stored)."""

    def body(f: str) -> str:
        y = f"({f}.y + {_floor_div(f'{f}.mo - 1', 12)})"
        mo = f"(pmod({f}.mo - 1, 12) + 1)"
        total = f"({f}.h * 3600 + {f}.mi * 60 + {f}.s)"
        extra = _floor_div(total, 86400)
        gregorian = f"({_jdn(y, mo, f'{f}.d', False)} + {extra})"
        day = gregorian
        if hybrid:
            # java.util.Date: the written year's calendar (Julian before 1582), recounted in
            # the other where the result crosses the switch
            julian = f"({_jdn(y, mo, f'{f}.d', True)} + {extra})"
            day = (
                f"IF({y} >= 1582, IF({gregorian} >= {SWITCH_JDN}, {gregorian}, {julian}), "
                f"IF({julian} < {SWITCH_JDN}, {julian}, {gregorian}))"
            )
        days = f"({day} - {UNIX_JDN})"

        def label(n: str) -> str:
            plain = f"date_from_unix_date(CAST({n} AS INT))"
            labelled = hybrid and not stored
            date = f"IF({n} < {SWITCH_DAY}, {julian_label_date(n)}, {plain})" if labelled else plain
            if kind == "date":
                value = date
            else:
                micros = f"pmod({total}, 86400) * 1000000 + {f}.n div 1000"
                value = (
                    f"CAST(timestamp_micros(unix_date({date}) * 86400000000 + {micros}) "
                    "AS TIMESTAMP_NTZ)"
                )
            null = "CAST(NULL AS DATE)" if kind == "date" else "CAST(NULL AS TIMESTAMP_NTZ)"
            return f"IF({n} BETWEEN {FIRST_DAY[hybrid]} AND {LAST_DAY}, {value}, {null})"

        return bind(days, label)

    return bind(fields, body)


# Text in Hive's own output form, which Spark's CAST reads as Java's parsers do whenever every
# field is in range (and, in the hybrid calendar, from 1583 on): the common case, read without
# the lambdas below (they run interpreted, about 10 microseconds a value).
_PLAIN = {
    "date": "'^[0-9]{4}-[0-9]{2}-[0-9]{2}" + _END,
    "timestamp": "'^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]{1,9})?" + _END,
}


def _reading(
    parse: Callable[[str], str], expr: str, kind: str, hybrid: bool, stored: bool = False
) -> str:
    cast = f"CAST({expr} AS {'DATE' if kind == 'date' else 'TIMESTAMP_NTZ'})"
    first_year = "1583" if hybrid else "0001"
    plain = (
        f"{expr} RLIKE {_PLAIN[kind]} AND substring({expr}, 1, 4) >= '{first_year}' "
        f"AND {cast} IS NOT NULL"
    )
    full = bind(expr, lambda text: _shown(parse(text), kind, hybrid, stored))
    return f"CASE WHEN {plain} THEN {cast} ELSE {full} END"


def hive_string_to(expr: str, kind: str, hive3: bool, hive4: bool = False) -> str:
    """SQL: string ``expr`` as Hive's converter reads it as a ``kind`` (date or timestamp)."""
    parse = _converter_date if kind == "date" else _converter_timestamp
    return _reading(lambda t: parse(t, hive3, hive4), expr, kind, not hive3)


def hive_text_field(
    expr: str, kind: str, hive3: bool, hive4: bool = False, stored: bool = False
) -> str:
    """SQL: a text file's field ``expr`` as Hive's text SerDe reads a ``kind`` column
    (``stored``: Hive 2's java.sql parsers, their hybrid days shown as stored: see
    ``_shown``)."""
    return _reading(lambda t: _lazy(t, kind, hive3, hive4), expr, kind, not hive3, stored)
