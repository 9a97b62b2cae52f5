# ruff: noqa: E501 - one row per text of Hive's answers
"""Java's date and time parsers as Hive calls them (``hive.datetimes``), for the four places Hive
reads text as a date or timestamp: its converter (``getDate``, ``getTimestampFromString``) and its
text SerDe (``LazyDate``, ``LazyTimestamp``), each under Hive 2's java.sql parsers and Hive 3's
java.time ones.

The expectations are the output of Hive's own code for each text, not the author's reading: Hive
3.1.3's ``org.apache.hadoop.hive.common.type`` ``Date``, ``Timestamp`` and ``TimestampTZUtil``
(turboic/hive-3.1.3@77cbf748) with ``PrimitiveObjectInspectorUtils.getDate``,
``getTimestampFromString`` and ``trimNanoTimestamp`` and ``LazyDate``/``LazyTimestamp.init`` of
3.1.3 and 2.3.7 (james-hadoop/apache-hive-2.3.7-src@4f1ec9d), compiled and run on JDK 17 in UTC
(java.sql's classes are the JDK's). Dates are shown by their label; timestamps to the
microsecond (the targets' precision). Hive 2.3.9's own reading of files is checked in
``tests/integration/test_orc_conversions.py``.
"""

from __future__ import annotations

import pytest

from lakeshift.hive import datetimes as hd

# text -> (getDate, getTimestamp) under Hive 2.3, the same under 3.1, then (LazyDate,
# LazyTimestamp) under 2.3 and under 3.1
HIVE = [
    ('2020-01-01', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None, '2020-01-01', None]),
    ('2020-1-1', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None, '2020-01-01', None]),
    (' 2020-01-01 ', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', '2020-01-01 00:00:00', None, None, '2020-01-01', None]),
    ('2020-01-01 10:00:00', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', '2020-01-01 10:00:00', None, '2020-01-01 10:00:00', '2020-01-01', '2020-01-01 10:00:00']),
    ('2020-01-01 10:00', [None, None, '2020-01-01', '2020-01-01 00:00:00', None, None, '2020-01-01', None]),
    ('2020-01-01 10:00:00.', [None, None, '2020-01-01', '2020-01-01 00:00:00', None, None, '2020-01-01', None]),
    ('2020-01-01 10:00:00.1234567891', ['2020-01-01', '2020-01-01 10:00:00.123456', '2020-01-01', '2020-01-01 10:00:00.123456', None, None, '2020-01-01', None]),
    ('2020-01-01 garbage', [None, None, '2020-01-01', '2020-01-01 00:00:00', None, None, '2020-01-01', None]),
    ('2020-01-01T10:00:00', [None, None, '2020-01-01', '2020-01-01 10:00:00', None, None, None, '2020-01-01 10:00:00']),
    ('2020-01-01T10:00', [None, None, '2020-01-01', '2020-01-01 10:00:00', None, None, None, '2020-01-01 10:00:00']),
    ('2020-1-1T10:00:00', [None, None, None, None, None, None, None, None]),
    ('2020-02-30', ['2020-03-01', '2020-03-01 00:00:00', '2020-03-01', '2020-03-01 00:00:00', '2020-03-01', None, '2020-03-01', None]),
    ('2020-02-30 10:00:00', ['2020-03-01', '2020-03-01 10:00:00', '2020-03-01', '2020-03-01 10:00:00', None, '2020-03-01 10:00:00', '2020-03-01', '2020-03-01 10:00:00']),
    ('2020-02-30T10:00:00', [None, None, None, None, None, None, None, None]),
    ('2020-13-01', [None, None, '2021-01-01', '2021-01-01 00:00:00', None, None, '2021-01-01', None]),
    ('2020-00-10', [None, None, '2019-12-10', '2019-12-10 00:00:00', None, None, '2019-12-10', None]),
    ('2020-01-01 24:00:00', ['2020-01-02', '2020-01-02 00:00:00', '2020-01-01', '2020-01-02 00:00:00', None, '2020-01-02 00:00:00', '2020-01-01', '2020-01-02 00:00:00']),
    ('2020-01-01 25:99:99', ['2020-01-02', '2020-01-02 02:40:39', '2020-01-01', '2020-01-02 02:40:39', None, '2020-01-02 02:40:39', '2020-01-01', '2020-01-02 02:40:39']),
    ('2020-01-01 -1:00:00', ['2019-12-31', '2019-12-31 23:00:00', '2020-01-01', '2019-12-31 23:00:00', None, '2019-12-31 23:00:00', '2020-01-01', '2019-12-31 23:00:00']),
    ('2020-+1-+1', ['2020-01-01', '2020-01-01 00:00:00', None, None, '2020-01-01', None, None, None]),
    ('2020--1-05', [None, None, '2019-11-05', '2019-11-05 00:00:00', None, None, '2019-11-05', None]),
    ('2020--0-05', [None, None, None, None, None, None, None, None]),
    ('+020-01-01', ['0020-01-01', '0020-01-01 00:00:00', None, None, '0020-01-01', None, None, None]),
    ('02020-01-01', [None, None, '2020-01-01', '2020-01-01 00:00:00', None, None, '2020-01-01', None]),
    ('1582-10-10', ['1582-10-20', '1582-10-20 00:00:00', '1582-10-10', '1582-10-10 00:00:00', '1582-10-20', None, '1582-10-10', None]),
    ('1582-10-24 30:33:46', ['1582-10-25', '1582-10-25 06:33:46', '1582-10-24', '1582-10-25 06:33:46', None, '1582-10-25 06:33:46', '1582-10-24', '1582-10-25 06:33:46']),
    ('1582-09-35', [None, None, '1582-10-05', '1582-10-05 00:00:00', None, None, '1582-10-05', None]),
    ('1500-02-29 12:00:00', ['1500-02-29', '1500-02-29 12:00:00', '1500-03-01', '1500-03-01 12:00:00', None, '1500-02-29 12:00:00', '1500-03-01', '1500-03-01 12:00:00']),
    ('2020-01-01 10:00:00 UTC', [None, None, '2020-01-01', '2020-01-01 10:00:00', None, None, '2020-01-01', None]),
    ('2020-02-30 10:00:00 UTC', [None, None, '2020-03-01', '2020-02-29 10:00:00', None, None, '2020-03-01', None]),
    ('2020-01-01 10:00:00+05:00', [None, None, '2020-01-01', '2020-01-01 10:00:00', None, None, '2020-01-01', None]),
    ('2020-01-01 10:00:00 +5:00', [None, None, '2020-01-01', '2020-01-01 10:00:00', None, None, '2020-01-01', None]),
    ('2020-01-01 10:00:00 Europe/Paris', [None, None, '2020-01-01', '2020-01-01 10:00:00', None, None, '2020-01-01', None]),
    ('2020-01-01T10:00:00Z', [None, None, None, None, None, None, None, None]),
    ('2020-01-01 10:00:00.5 extra', [None, None, '2020-01-01', '2020-01-01 00:00:00', None, None, '2020-01-01', None]),
    ('2020-01-01  10:00:00', [None, None, '2020-01-01', '2020-01-01 00:00:00', None, None, '2020-01-01', None]),
    ('2020-01-01 1:2:3', ['2020-01-01', '2020-01-01 01:02:03', '2020-01-01', '2020-01-01 01:02:03', None, '2020-01-01 01:02:03', '2020-01-01', '2020-01-01 01:02:03']),
    ('2020-01-01 10:00:00.000000001', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', '2020-01-01 10:00:00', None, '2020-01-01 10:00:00', '2020-01-01', '2020-01-01 10:00:00']),
    ('2020-1', [None, None, None, None, None, None, None, None]),
    ('2020-01-01abc', [None, None, None, None, None, None, None, None]),
]  # fmt: skip
READERS = [
    ("date", False, hd.converted), ("timestamp", False, hd.converted),
    ("date", True, hd.converted), ("timestamp", True, hd.converted),
    ("date", False, hd.text_field), ("timestamp", False, hd.text_field),
    ("date", True, hd.text_field), ("timestamp", True, hd.text_field),
]  # fmt: skip


def _shown(found: hd.Instant | None, kind: str, hybrid: bool) -> str | None:
    if found is None:
        return None
    year, month, day = hd.label(found[0], hybrid)
    date = f"{year:04d}-{month:02d}-{day:02d}"
    if kind == "date":
        return date
    seconds, micros = divmod(found[1], 1_000_000)
    clock = f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    fraction = f"{micros:06d}".rstrip("0")
    return f"{date} {clock}" + (f".{fraction}" if fraction else "")


@pytest.mark.parametrize("text,expected", HIVE, ids=[repr(t) for t, _ in HIVE])
def test_parsers_read_text_as_hive_does(text: str, expected: list[str | None]) -> None:
    found = [_shown(read(text, kind, hive3), kind, not hive3) for kind, hive3, read in READERS]
    assert found == expected


def test_years_outside_what_the_targets_hold_are_null() -> None:
    assert hd.converted("10000-01-01", "date", True) is None  # Hive 3 shows +10000-01-01
    assert hd.converted("0000-01-01", "date", False) is None  # Hive 2 shows 0001-01-01
    assert hd.converted("9999-12-31 23:59:59", "timestamp", False) is not None


# text -> (getDate, getTimestamp, LazyDate, LazyTimestamp) under Hive 4.0.x: the output of Hive's
# own classes at the commit branch-4.0 was cut from (apache/hive 3e48a01240, read in the fork
# linghengqian/hive: Date, Timestamp, TimestampTZUtil, TimestampUtils, DateParser,
# TimestampParser; getDate, getTimestampFromString, trimNanoTimestamp, LazyDate and
# LazyTimestamp copied verbatim), compiled and run on JDK 17 in UTC. Two values are lakeshift's
# choice, not Hive's (marked).
HIVE4 = [
    ('2020-01-01', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-1-1', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    (' 2020-01-01 ', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-01-01 10:00:00', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', '2020-01-01 10:00:00']),
    ('2020-01-01 10:00', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-01-01 10:00:00.', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-01-01 10:00:00.1234567891', ['2020-01-01', '2020-01-01 10:00:00.123456', '2020-01-01', None]),
    ('2020-01-01 garbage', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-01-01T10:00:00', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', '2020-01-01 10:00:00']),
    ('2020-01-01T10:00', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', '2020-01-01 10:00:00']),
    ('2020-1-1T10:00:00', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-02-30', [None, None, None, None]),
    ('2020-02-30 10:00:00', [None, None, None, None]),
    ('2020-02-30T10:00:00', [None, None, None, None]),
    ('2020-13-01', [None, None, None, None]),
    ('2020-00-10', [None, None, None, None]),
    ('2020-01-01 24:00:00', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-01-01 25:99:99', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-01-01 -1:00:00', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-+1-+1', [None, None, None, None]),
    ('2020--1-05', [None, None, None, None]),
    ('2020--0-05', [None, None, None, None]),
    ('+020-01-01', [None, None, None, None]),
    ('02020-01-01', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('1582-10-10', ['1582-10-10', '1582-10-10 00:00:00', '1582-10-10', None]),
    ('1582-10-24 30:33:46', ['1582-10-24', '1582-10-24 00:00:00', '1582-10-24', None]),
    ('1582-09-35', [None, None, None, None]),
    ('1500-02-29 12:00:00', [None, None, None, None]),
    ('2020-01-01 10:00:00 UTC', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', None]),
    ('2020-02-30 10:00:00 UTC', ['2020-02-29', '2020-02-29 10:00:00', None, None]),
    ('2020-01-01 10:00:00+05:00', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', None]),
    ('2020-01-01 10:00:00 +5:00', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', None]),
    ('2020-01-01 10:00:00 Europe/Paris', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', None]),
    ('2020-01-01T10:00:00Z', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-01-01 10:00:00.5 extra', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-01-01  10:00:00', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-01-01 1:2:3', ['2020-01-01', '2020-01-01 01:02:03', '2020-01-01', '2020-01-01 01:02:03']),
    ('2020-01-01 10:00:00.000000001', ['2020-01-01', '2020-01-01 10:00:00', '2020-01-01', '2020-01-01 10:00:00']),
    ('2020-1', [None, None, None, None]),
    ('2020-01-01abc', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('10:00:00', [None, None, None, None]),  # Hive 4: the day the query runs
    ('2020-01-01 24:00:00 UTC', ['2020-01-02', '2020-01-02 00:00:00', '2020-01-01', None]),
    ('2020-01-01 10:00:00.1234567891+05:00', ['2020-01-01', '2020-01-01 10:00:00.123456', '2020-01-01', None]),
    ('03-08-2023', ['0003-08-20', '0003-08-20 00:00:00', '0003-08-20', None]),
    ('2023-08-0316:02:00', ['2023-08-03', '2023-08-03 00:00:00', '2023-08-03', None]),
    ('2020-01-01\t10:00:00', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2021-02-29', [None, None, None, None]),
    ('2020-02-29 10:00:00', ['2020-02-29', '2020-02-29 10:00:00', '2020-02-29', '2020-02-29 10:00:00']),
    ('2020-01-01 23:59:60', ['2020-01-01', '2020-01-01 00:00:00', '2020-01-01', None]),
    ('2020-12-31 23:59:59.999999999', ['2020-12-31', '2020-12-31 23:59:59.999999', '2020-12-31', '2020-12-31 23:59:59.999999']),
    ('2020-1-1 1:2:3', ['2020-01-01', '2020-01-01 01:02:03', '2020-01-01', '2020-01-01 01:02:03']),
    ('-2020-01-01', [None, None, None, None]),  # Hive 4: year -2020 (out of range)
]  # fmt: skip


@pytest.mark.parametrize("text,expected", HIVE4, ids=[repr(t) for t, _ in HIVE4])
def test_hive4_parsers_read_text_as_hive_4_does(text: str, expected: list[str | None]) -> None:
    found = [
        _shown(read(text, kind, True, True), kind, False)
        for read in (hd.converted, hd.text_field)
        for kind in ("date", "timestamp")
    ]
    assert found == expected


def test_hive4_keys_read_as_hive_4_does() -> None:
    import datetime as dt

    from lakeshift.hive.key_values import hive_value
    from lakeshift.hive.types import HiveType

    date, stamp = HiveType("date"), HiveType("timestamp")
    # strict where Hive 3 carried over; a date prefix where Hive 3 refused the rest
    assert hive_value("2020-02-30", date, "4") is None
    assert hive_value("2020-02-30", date, "3.1") == dt.date(2020, 3, 1)
    assert hive_value("2020-01-01T10:00:00Z", stamp, "4") == dt.datetime(2020, 1, 1)
    assert hive_value("2020-01-01T10:00:00Z", stamp, "3.1") is None
    assert hive_value("2020-01-01 24:00:00 UTC", date, "4") == dt.date(2020, 1, 2)


@pytest.mark.parametrize(
    ("text", "zone", "shown"),
    [
        # Timestamp.valueOf in New York: the skipped hour moves past the gap
        ("2020-03-08 02:30:00", "America/New_York", "2020-03-08 03:30:00"),
        ("2020-03-08 02:00:00.5", "America/New_York", "2020-03-08 03:00:00.500000"),
        # a wall clock shown twice, and any other, keeps its clock
        ("2020-11-01 01:30:00", "America/New_York", "2020-11-01 01:30:00"),
        ("2020-06-01 10:00:00", "America/New_York", "2020-06-01 10:00:00"),
        # java.util's zones know no change before 1900 (New York's 1883 switch included)
        ("1883-11-18 12:03:00", "America/New_York", "1883-11-18 12:03:00"),
        # Berlin skips 02:00-03:00; Apia skipped all of 2011-12-30
        ("2020-03-29 02:15:00", "Europe/Berlin", "2020-03-29 03:15:00"),
        ("2011-12-30 10:00:00", "Pacific/Apia", "2011-12-31 10:00:00"),
        # Java's lenient April 31 is May 1, whose first hour Cairo skipped in 1958
        ("1958-04-31 00:30:00", "Africa/Cairo", "1958-05-01 01:30:00"),
        # a bare date is midnight, which Havana's clocks skipped on 2020-03-08
        ("2020-03-08", "America/Havana", "2020-03-08 01:00:00"),
    ],
)
def test_hive2_timestamp_keys_are_parsed_in_the_jvm_zone(text: str, zone: str, shown: str) -> None:
    import datetime as dt

    from lakeshift.hive.partition_values import typed_value

    assert typed_value(text, "timestamp", "2.3", zone) == dt.datetime.fromisoformat(shown)
    assert typed_value(text, "timestamp", "1.2", zone) == dt.datetime.fromisoformat(shown)
    # Hive 3.0+ parse in UTC (HIVE-12192); so does a Hive 2 JVM in UTC
    assert typed_value(text, "timestamp", "3.1", zone) == typed_value(text, "timestamp", "3.1")
    assert typed_value(text, "timestamp", "2.3") == typed_value(text, "timestamp", "3.1")
