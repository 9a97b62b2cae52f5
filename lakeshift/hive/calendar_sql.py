"""SQL that shows a date or timestamp as Hive 2.x shows it: its day number counted in the
hybrid Julian/Gregorian calendar (README "Dates before 1582"; setting ``calendar = "hive2"``).

Hand-written: Spark SQL has no function from a day number to its Julian calendar date.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import count

_names = count()
#: Julian 4-year cycles (1461 days) added to a day count before the formulas: past Spark's
#: earliest year (-290308).
_CYCLES = 75_000


def bind(value: str, body: object) -> str:
    """SQL binding ``value`` to a fresh name for ``body(name)`` (Spark SQL has no LET)."""
    name = f"j{next(_names)}"
    return f"element_at(transform(array({value}), {name} -> {body(name)}), 1)"  # type: ignore[operator]


def _julian_fields(days: str, body: Callable[[str, str, str], str]) -> str:
    """SQL: ``body(year, month, day)`` of the Julian calendar date of day number ``days`` (the
    Julian day-number formulas; year 0 is 1 BC)."""
    # Spark's div truncates toward zero where the formulas floor: before 4713 BC (a negative
    # day count) they would be a day off. _CYCLES whole 4-year Julian cycles keep it positive.
    return bind(
        f"{days} + {2472670 + 1461 * _CYCLES}",  # the Julian day number + 32082, + cycles
        lambda c: bind(
            f"(4 * {c} + 3) div 1461",
            lambda d: bind(
                f"{c} - (1461 * {d}) div 4",
                lambda e: bind(
                    f"(5 * {e} + 2) div 153",
                    lambda m: body(
                        f"({d} - {4800 + 4 * _CYCLES} + {m} div 10)",
                        f"({m} + 3 - 12 * ({m} div 10))",
                        f"({e} - (153 * {m} + 2) div 5 + 1)",
                    ),
                ),
            ),
        ),
    )


def julian_label_date(days: str) -> str:
    """SQL: the proleptic date bearing the Julian calendar date of day number ``days`` (a
    Julian-only day such as 1500-02-29 rolls to March 1)."""
    return _julian_fields(
        days, lambda y, m, d: f"date_add(make_date({y}, {m}, 1), CAST({d} - 1 AS INT))"
    )


def julian_label_text(days: str) -> str:
    """SQL: ``yyyy-MM-dd`` of the Julian calendar date of day number ``days``, as
    ``java.sql.Date.toString`` prints a day before 1582-10-15 (a Julian-only day such as
    1500-02-29 as such; a year before 1 by its era's year, 1 BC as 0001)."""

    def text(y: str, m: str, d: str) -> str:
        year = bind(y, lambda v: f"IF({v} < 1, 1 - {v}, {v})")
        return (
            f"concat(lpad(CAST({year} AS STRING), 4, '0'), '-', lpad(CAST({m} AS STRING), 2, "
            f"'0'), '-', lpad(CAST({d} AS STRING), 2, '0'))"
        )

    return _julian_fields(days, text)


def java_sql_text(expr: str, kind: str, stored: bool) -> str:
    """SQL: a date or timestamp as ``java.sql.Date``/``Timestamp.toString`` print it, which is
    how ORC 1.3-1.5's schema evolution turns one into text (``StringGroupFromDateTreeReader``,
    ``StringGroupFromTimestampTreeReader``): a timestamp's fraction without trailing zeros but
    at least ``.0``. ``stored``: ``expr`` holds the day numbers as stored (``calendar =
    "proleptic"``, Apache Hive 3.1), which java.sql prints by their hybrid calendar's label
    (Julian before 1582-10-15); otherwise ``expr`` already bears that label."""

    def day_text(date: str) -> str:
        plain = f"CAST({date} AS STRING)"
        if not stored:
            return plain
        return f"IF({date} < DATE'1582-10-15', {julian_label_text(f'unix_date({date})')}, {plain})"

    if kind == "date":
        return bind(expr, day_text) if stored else day_text(expr)

    def stamp_text(t: str) -> str:
        whole = f"CAST({t} AS STRING)"
        clock = f"regexp_extract({whole}, ' .*$', 0)"
        text = f"concat({day_text(f'to_date({t})')}, {clock})" if stored else whole
        whole_second = f"pmod(unix_micros(CAST({t} AS TIMESTAMP)), 1000000) = 0"
        return f"IF({whole_second}, concat({text}, '.0'), {text})"

    return bind(expr, stamp_text)


def hybrid_label(expr: str, kind: str) -> str:
    """SQL: a date or timestamp that Spark read by its file's proleptic calendar, shown as
    Hive 2.x shows it (the day number counted in the hybrid calendar; from 1582-10-15 on the
    two agree). Timestamps keep their time of day (sessions run in UTC)."""
    if kind == "date":
        return f"IF({expr} < DATE'1582-10-15', {julian_label_date(f'unix_date({expr})')}, {expr})"
    day = f"to_date({expr})"
    shifted = f"unix_date({julian_label_date(f'unix_date({day})')}) - unix_date({day})"
    return (
        f"IF({expr} < TIMESTAMP'1582-10-15 00:00:00', timestamp_micros(unix_micros({expr}) + "
        f"CAST({shifted} AS BIGINT) * 86400000000), {expr})"
    )


def julian_day(date: str) -> str:
    """SQL: the day number (days since 1970) of the Julian calendar date that the proleptic
    ``date`` bears (the Julian calendar's day-number formula; the inverse of
    ``julian_label_date``)."""
    return julian_day_of(f"year({date})", f"month({date})", f"day({date})")


def julian_day_of(year: str, month: str, day: str) -> str:
    """SQL: the day number (days since 1970) of the Julian calendar date ``year-month-day``
    (integers; a Julian-only day such as 1500-02-29 included)."""
    return bind(
        f"(14 - {month}) div 12",
        lambda a: bind(
            f"{year} + {4800 + 4 * _CYCLES} - {a}",
            lambda y: bind(
                f"{month} + 12 * {a} - 3",
                lambda m: (
                    f"({day} + (153 * {m} + 2) div 5 + 365 * {y} + {y} div 4 - "
                    f"{32083 + 2440588 + 1461 * _CYCLES})"
                ),
            ),
        ),
    )


#: ``yyyy-MM-dd[ HH:mm:ss[.f]]`` as ORC formats a date or timestamp in the hybrid calendar
_HYBRID_TEXT = r"'^(-?[0-9]+)-([0-9]+)-([0-9]+)( ([0-9]+):([0-9]+):([0-9]+)([.]([0-9]*))?)?$'"


def hybrid_text_as_stored(text: str, kind: str) -> str:
    """SQL: a date or timestamp that ORC formatted as text in the hybrid calendar (its label),
    as the day number it is stored as, counted proleptic (Apache Hive 3.1's reading of an ORC
    file whose footer says hybrid): before 1582-10-15 the label is a Julian date."""

    def part(n: int) -> str:
        return f"CAST(regexp_extract({text}, {_HYBRID_TEXT}, {n}) AS INT)"

    year, month, day = part(1), part(2), part(3)
    label = f"make_date({year}, {month}, {day})"
    early = f"({year} * 10000 + {month} * 100 + {day} < 15821015)"
    days = f"IF({early}, {julian_day_of(year, month, day)}, unix_date({label}))"
    if kind == "date":
        return f"IF({text} IS NULL, NULL, date_from_unix_date({days}))"
    fraction = f"regexp_extract({text}, {_HYBRID_TEXT}, 9)"
    micros = (
        f"CAST({days} AS BIGINT) * 86400000000 + CAST({part(5)} AS BIGINT) * 3600000000"
        f" + CAST({part(6)} AS BIGINT) * 60000000 + CAST({part(7)} AS BIGINT) * 1000000"
        f" + CAST(rpad(substr({fraction}, 1, 6), 6, '0') AS BIGINT)"
    )
    return f"IF({text} IS NULL, NULL, CAST(timestamp_micros({micros}) AS TIMESTAMP_NTZ))"


def hybrid_instant(expr: str) -> str:
    """SQL: the instant (a TIMESTAMP) that ``java.sql.Timestamp`` gives a timestamp's wall clock
    as Hive 1.2/2.x count its seconds (``TimestampWritable.getDouble``, ``getSeconds``): before
    1582-10-15 its date is read in the Julian calendar (two days earlier in year 1, ten days
    at the switch). The inverse of ``hybrid_label`` (sessions run in UTC)."""

    def shifted(t: str) -> str:
        day = f"to_date({t})"
        days = f"CAST({julian_day(day)} - unix_date({day}) AS BIGINT)"
        return (
            f"IF({t} < TIMESTAMP'1582-10-15 00:00:00', "
            f"timestamp_micros(unix_micros({t}) + {days} * 86400000000), {t})"
        )

    return bind(f"CAST({expr} AS TIMESTAMP)", shifted)
