"""Text read as dates and timestamps by Hive's converters (a partition's string column that
the table declares a date or timestamp; partition keys) and by its text SerDe (a text file's
date and timestamp fields): the Spark reader's SQL (``datetime_sql``) and the independent
reader's Python (``hive.datetimes``) are written separately and must agree value by value, for
Hive 2's parsers and Hive 3's, on every form the rules treat differently. Hive's own answers:
``tests/unit/test_hive_datetime.py`` (Hive 3.1.3's and 2.3.7's parsing code) and
``test_orc_conversions`` (Hive 2.3.9 reading files)."""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.hive.spark_sql import convert as spark_convert
from lakeshift.hive.types import HiveType
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.independent.convert import convert as arrow_convert
from tests.helpers.hive_oracle import hive_answers
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.readers import both_readers
from tests.unit.test_hive_datetime import HIVE

pytestmark = pytest.mark.slow

PIECES = ["2020", "1500", "0001", "0000", "1582", "9999", "123456789", "-", "-", " ", " ", ":",
          ":", "T", "1", "10", "02", "29", "30", "31", "12", "13", "00", "4", "25", "60", "-1",
          "+2", ".", "123456789", "5", "x", "\t", "Z", " UTC", "+5:00", " Etc/GMT+5", "\n",
          "\u2028", "\x85", "\r", "\uff12"]  # fmt: skip
FIXED = [
    "2020-02-30", "2021-02-29 10:00:00", "2022-4-1 garbage", "2022", "2020-01-01T10:00:00",
    "2020-01-01 25:00:00", " 2020-1-1 10:61:00 ", "1582-10-10", "1582-10-04 12:00:00",
    "1582-10-15", "1582-09-35", "1500-02-29", "1500-02-30 23:00:00", "0000-01-01",
    "0001-01-01 -1:00:00", "9999-12-31 23:59:60", "9999-12-31T24:00", "2020-13-01",
    "2020-00-10", "2020-1-0", "2020-01-32", "2020-01-01 10:00:00.1234567891",
    "2020-01-01 10:00:00.", "2020-01-01 10:00", "2020-01-01 -1:-1:-1", "2020-01-01 10:00:00 x",
    "2020-01-01 10:00:00.123456789 x", "2020-01-01 2147483648:00:00", "123456789-12-31",
    "2020-01-01 99:99:99.9", "\x002020-01-01\x1f", "", " ", None,
    # Hive's own output forms (read through Spark's CAST when every field is in range)
    "1583-01-01 00:00:00", "1582-12-31 23:59:59", "1582-10-10 00:00:00", "0001-01-01",
    "0001-01-01 00:00:00", "0000-01-01 00:00:00", "9999-12-31 23:59:59.999999999", "2020-02-29",
    "2021-02-29", "2020-06-15 12:34:56.1", "2020-06-15 24:00:00", "2020-06-15 23:59:60",
    # where Hive 4 reads apart: a date at the start of any text, ten characters, a time alone
    "2020-01-01T10:00:00Z", "2023-08-0316:02:00", "03-08-2023", "10:00:00", "23:59",
    "2020-01-01 10:00:00.1234567891+05:00", "2020-01-01 24:00:00 UTC", "2020-1-1 1:2",
    # decimal digits beyond ASCII, which java.sql's Integer.parseInt reads (BMP only)
    "\uff12\uff10\uff12\uff10-\uff10\uff11-\uff10\uff12",
    "\u0968\u0966\u0968\u0966-\u0966\u0967-\u0966\u0968 \u0967\u0966:00:00.\u096b",
    "2020-\u06601-0\uff12 1\u0660:0\uff10:0\u0660", "\U0001d7d0020-01-01",
    "\u00b2020-01-01",
]  # fmt: skip


def _texts() -> list[str | None]:
    rng = random.Random(25)
    made = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 9))) for _ in range(3000)]
    # mostly well-formed shapes with odd fields, where the two rules differ most
    for _ in range(2000):
        y, m, d = (
            rng.choice(["2020", "1582", "1500", "0004", "9999"]),
            rng.randint(0, 14),
            rng.randint(0, 33),
        )
        clock = rng.choice(["", " ", "T"]) + ":".join(
            str(rng.randint(-2, 99)) for _ in range(rng.randint(1, 3))
        )
        made.append(f"{y}-{m}-{d}{clock if rng.random() < 0.7 else ''}")
    return FIXED + [t for t, _ in HIVE] + made


def _python_values(values: list[Any]) -> list[Any]:
    return [v.isoformat() if isinstance(v, dt.date | dt.datetime) else v for v in values]


@pytest.mark.parametrize("rule", ["converter", "text"])
@pytest.mark.parametrize("generation", [2, 3, 4], ids=["hive2", "hive3", "hive4"])
def test_spark_and_independent_readers_read_text_alike(
    spark: Any, generation: int, rule: str
) -> None:
    texts = _texts()
    frame = spark.createDataFrame([(i, t) for i, t in enumerate(texts)], "i INT, s STRING")
    string = HiveType("string")
    how = {
        "text_file": rule == "text",
        "hive3_converters": generation >= 3,
        "hive4_dates": generation == 4,
    }
    exprs = [
        spark_convert("s", string, HiveType(kind), by_name=True, **how)
        for kind in ("date", "timestamp")
    ]
    rows = frame.selectExpr("i", *(f"{e} AS c{n}" for n, e in enumerate(exprs))).collect()
    by_spark = sorted(rows, key=lambda r: r["i"])
    array = pa.array(texts, pa.string())
    for n, kind in enumerate(("date", "timestamp")):
        mine = arrow_convert(array, string, HiveType(kind), by_name=True, **how)
        spark_values = _python_values([r[f"c{n}"] for r in by_spark])
        python_values = _python_values(mine.to_pylist())
        assert len(spark_values) == len(python_values) == len(texts)
        differ = [
            (texts[i], a, b) for i, (a, b) in enumerate(zip(spark_values, python_values)) if a != b
        ]
        assert differ == [], f"{kind}: {len(differ)} differ, first {differ[:10]}"
        # not vacuous: a good share read as values (Hive 4's strict text timestamps fewer),
        # and Feb 30 leniently as March 1, or under Hive 4 as NULL
        assert sum(v is not None for v in python_values) > (20 if generation == 4 else 100)
        march = any(v is not None and v.startswith("2020-03-01") for v in python_values)
        feb30 = python_values[texts.index("2020-02-30")]
        assert feb30 is None if generation == 4 else march


# A text file's DATE and TIMESTAMP fields, which Hive 2.3's LazyDate/LazyTimestamp parse with
# java.sql's valueOf alone (the date untrimmed) and no fallback, unlike its converter.
TEXT_FIELDS = [
    "2020-01-01", " 2020-01-01 ", "2020-1-1", "2020-02-30", "2020-13-01", "2020-+1-+1",
    "2020-01-01 10:00:00", "2020-01-01 10:00", "2020-01-01T10:00:00", "2020-01-01 25:61:00",
    "2020-01-01 10:00:00.1234567891", "2020-01-01 10:00:00.123456", "1582-10-10",
    "1582-10-10 12:00:00", "2020-01-01 10:00:00 UTC", "\t2020-06-15 10:00:00", "20200101",
]  # fmt: skip


@pytest.fixture(scope="module")
def text_dates(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(
        client,
        tables_root,
        "textdates",
        unique_name("t"),
        [("rid", "int"), ("d", "date"), ("ts", "timestamp")],
    )
    lines = [f"{i}\x01{t}\x01{t}" for i, t in enumerate(TEXT_FIELDS)]
    b.add_partition(["1"], {"000000_0": ("\n".join(lines) + "\n").encode()}, fmt="text")
    return f"{b.db}.{b.name}"


def _printed(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        text = value.isoformat(sep=" ")
        return text.rstrip("0") if "." in text else text
    return str(value)


def test_text_fields_read_as_hive_reads_them(
    text_dates: str, metastore_uri: str, client: MetastoreClient, settings: Settings, spark: Any
) -> None:
    (hive,) = hive_answers(metastore_uri, [(f"select rid, d, ts from {text_dates}", {})])
    expected = {int(r[0]): (r[1], r[2]) for r in hive}
    assert sorted(expected) == list(range(len(TEXT_FIELDS)))
    settings = replace(settings, hive_version="2.3")  # the oracle's own version
    readers = both_readers(spark, client, text_dates, settings)
    for reader, frame in readers.items():
        found = {r["rid"]: (_printed(r["d"]), _printed(r["ts"])) for r in frame.collect()}
        differ = [
            (TEXT_FIELDS[i], expected[i], found[i]) for i in expected if found[i] != expected[i]
        ]
        assert differ == [], (reader, differ)
    # not vacuous: Hive shows values and NULLs here, and lenient days
    assert expected[3] == ("2020-03-01", None) and expected[0] == ("2020-01-01", None)


def test_text_fields_read_as_hive_4_reads_them(
    text_dates: str, client: MetastoreClient, settings: Settings, spark: Any
) -> None:
    """The same text partition under hive_version 4: both readers follow Hive 4's strict
    classes (expectations: tests/unit/test_hive_datetime.py HIVE4, Hive 4.0's own output)."""
    settings = replace(settings, hive_version="4")
    expected = {
        i: (_shown_text(t, "date"), _shown_text(t, "timestamp")) for i, t in enumerate(TEXT_FIELDS)
    }
    readers = both_readers(spark, client, text_dates, settings)
    for reader, frame in readers.items():
        found = {r["rid"]: (_printed(r["d"]), _printed(r["ts"])) for r in frame.collect()}
        assert found == expected, reader
    # strict: Feb 30 and month 13 are NULL; a date is read from the start of any text
    assert expected[TEXT_FIELDS.index("2020-02-30")] == (None, None)
    assert expected[TEXT_FIELDS.index("2020-01-01T10:00:00")] == (
        "2020-01-01",
        "2020-01-01 10:00:00",
    )
    assert expected[TEXT_FIELDS.index("2020-01-01 25:61:00")] == ("2020-01-01", None)


def _shown_text(text: str, kind: str) -> str | None:
    """A text field as Hive 4.0 shows it: the HIVE4 table's LazyDate/LazyTimestamp answers
    where it has the text, else Hive 4's rules in ``hive.datetimes``."""
    from tests.unit.test_hive_datetime import HIVE4

    answers = dict(HIVE4)
    if text in answers:
        return answers[text][2 if kind == "date" else 3]
    from lakeshift.hive import datetimes as hd

    found = hd.text_field(text, kind, True, True)
    if found is None:
        return None
    value = dt.datetime(1970, 1, 1) + dt.timedelta(days=found[0], microseconds=found[1])
    return str(value.date()) if kind == "date" else _printed(value)


# The zone after a timestamp that Hive 3's and 4's converter reads (TimestampTZUtil): its
# formatter, built here in the test session's JVM exactly as Hive 3.1.3 builds it
# (common/src/java/org/apache/hadoop/hive/common/type/TimestampTZUtil.java, FORMATTER), is
# the oracle for which zones Java reads.
ZONE_TEXTS = [
    "PST", "CEST", "EST", "HST", "MST", "ROC", "GMT+0", "IST", "Pacific Standard Time",
    "europe/paris", "Europe/Parisx", "Foo/Bar", "utc", "z", "UTC0", "UT0", "GMTZ", "GMT00",
    "US/Pacific-New", "America/Argentina/Buenos_Aires", "Etc/GMT+12",
]  # fmt: skip


# Wall clocks in daylight-saving gaps (and one in an overlap, kept) of region zones
GAPS = [
    "2020-03-08 02:30:00 America/New_York", "2020-11-01 01:30:00 America/New_York",
    "2020-03-29 02:00:00 Europe/Paris", "2020-03-29 02:59:59.5 Europe/Paris",
    "2018-11-04 00:30:00 America/Sao_Paulo", "2020-10-04 02:15:00 Australia/Lord_Howe",
    "1916-05-01 00:00:00 Europe/Berlin", "2020-03-08 02:30:00 US/Pacific",
    "2020-03-08 02:30:00 EST5EDT", "2011-12-30 10:00:00 Pacific/Apia",
]  # fmt: skip


def _java_zone_formatter(jvm: Any) -> Any:
    build = jvm.java.time.format.DateTimeFormatterBuilder()
    pattern = jvm.java.time.format.DateTimeFormatter.ofPattern
    build.append(pattern("yyyy-MM-dd"))
    build.optionalStart().appendLiteral(" ").append(pattern("HH:mm:ss")).optionalStart()
    build.appendFraction(jvm.java.time.temporal.ChronoField.NANO_OF_SECOND, 1, 9, True)
    build.optionalEnd().optionalEnd()
    build.optionalStart().appendLiteral(" ").optionalEnd()
    build.optionalStart().appendZoneText(jvm.java.time.format.TextStyle.NARROW).optionalEnd()
    return build.toFormatter()


def _zone_candidates(jvm: Any) -> list[str]:
    zones = set(ZONE_TEXTS) | set(jvm.java.time.ZoneId.getAvailableZoneIds())
    for prefix in ("", "UTC", "GMT", "UT", "Z"):
        for sign in "+-":
            for hours in ("0", "1", "01", "17", "18", "19", "001"):
                for minutes in ("", ":00", ":0", ":59", ":60", "30"):
                    for seconds in ("", ":00", ":59", ":60"):
                        zones.add(prefix + sign + hours + minutes + seconds)
    return sorted(zones)


def test_zones_after_a_timestamp_are_the_zones_java_reads(spark: Any) -> None:
    """Hive 3's and 4's converter read ``date time zone`` as the wall clock when Java's zone
    parser reads the zone (a region id of its database, case-sensitive; an offset up to 18
    hours, alone or after UTC, GMT or UT; Z), and as the date alone at midnight when it does
    not (display names such as PST are not read: the formatter's NARROW style parses ids
    only). Both readers against the JDK's own parser, on every id and ~1,700 offset forms."""
    jvm = spark.sparkContext._jvm
    formatter = _java_zone_formatter(jvm)

    def java_reads(text: str) -> bool:
        # TimestampTZUtil.handleSingleDigitHourOffset, then parse (the accessor's fallback:
        # a date and a zone without a time is midnight in that zone)
        text = re.sub(r"([+-])([0-9]:[0-9]{2})", r"\g<1>0\g<2>", text, count=1)
        # (the whole text parsed, as parse() checks before resolving, without an exception
        # through py4j for each text Java refuses; an offset out of range does throw)
        position = jvm.java.text.ParsePosition(0)
        try:
            parsed = formatter.parseUnresolved(text, position)
        except Exception:
            return False
        return parsed is not None and position.getIndex() == len(text)

    def shown(text: str) -> str:
        # what getTimestampFromString shows: the zoned reading's toLocalDateTime(), else the
        # date alone (every text here has a valid date and time)
        if not java_reads(text):
            return text[:10] + " 00:00:00"
        padded = re.sub(r"([+-])([0-9]:[0-9]{2})", r"\g<1>0\g<2>", text, count=1)
        wall = jvm.java.time.ZonedDateTime.parse(padded, formatter).toLocalDateTime()
        return str(_printed(dt.datetime.fromisoformat(str(wall.toString()))))

    zones = _zone_candidates(jvm)
    texts = [f"2020-01-01 10:00:00{sep}{zone}" for zone in zones for sep in (" ", "")]
    texts += GAPS
    expected = [shown(text) for text in texts]
    # a wall clock in a daylight-saving gap is shown later by the gap (a skipped day in Apia)
    assert expected[texts.index(GAPS[0])] == "2020-03-08 03:30:00"
    assert expected[texts.index(GAPS[-1])] == "2011-12-31 10:00:00"
    # not vacuous: region ids without a slash and long offsets are read, display names not
    by_text = dict(zip(texts, expected, strict=True))
    assert by_text["2020-01-01 10:00:00 CET"] == by_text["2020-01-01 10:00:00 GMT+01:00:59"]
    assert by_text["2020-01-01 10:00:00 CET"] == "2020-01-01 10:00:00"
    assert by_text["2020-01-01 10:00:00 PST"] == by_text["2020-01-01 10:00:00 Foo/Bar"]
    assert by_text["2020-01-01 10:00:00 PST"] == "2020-01-01 00:00:00"
    assert sum(e.endswith("10:00:00") for e in expected) > 1200
    assert sum(e.endswith("00:00:00") for e in expected) > 1000

    frame = spark.createDataFrame(list(enumerate(texts)), "i INT, s STRING")
    how = {"text_file": False, "hive3_converters": True}
    string, stamp = HiveType("string"), HiveType("timestamp")
    for hive4 in (False, True):
        expr = spark_convert("s", string, stamp, by_name=True, hive4_dates=hive4, **how)
        rows = sorted(frame.selectExpr("i", f"{expr} AS t").collect(), key=lambda r: r["i"])
        by_spark = [_printed(r["t"]) for r in rows]
        mine = arrow_convert(pa.array(texts), string, stamp, by_name=True, hive4_dates=hive4,
                             **how).to_pylist()  # fmt: skip
        by_python = [_printed(v) for v in mine]
        for reader, found in (("spark", by_spark), ("independent", by_python)):
            differ = [(t, e, f) for t, e, f in zip(texts, expected, found, strict=True) if e != f]
            assert differ == [], f"{reader} (hive4={hive4}): {len(differ)}, {differ[:10]}"
