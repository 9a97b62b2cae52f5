"""What a Hive whose JVMs run in a zone other than UTC shows for conversions between
timestamps and numbers, text and dates (``hive_time_zone``; ``hive.types.zone_rule``).

Hive 1.2 and 2.x hold timestamps as ``java.sql.Timestamp``, an instant shown in the JVM's
zone: a number read as a timestamp is an instant (``TimestampWritable.doubleToTimestamp``,
``new Timestamp(long)``, milliseconds for an integer), a timestamp read as a number counts
the instant its wall clock is there (``getSeconds``), and text read as a timestamp
(``Timestamp.valueOf``, ``LazyTimestamp``) is a wall clock there, so 02:30 on the morning New
York's clocks skip to 03:00 shows as 03:30, and 01:30 on the morning they show twice is its
second (winter) instant (``ZoneInfo.getOffsetsByWall``: the later one). ORC 1.3.4 (Hive 2.3)
converts alike. Hive 3.0+ count in UTC (HIVE-12192) and read ORC with ``useUTCTimestamp``,
but ORC 1.5.8's conversions (Hive 3.1) still parse text and dates in the JVM's zone
(``Timestamp.valueOf``, ``DateWritable.daysToMillis``) and print timestamps there
(``Timestamp.toString``, ``DateWritable.dateToDays``). Expectations written out from that
source; the text partition's (Hive 2.3.9's own converters and SerDe) are asked of Hive
itself in ``make differential``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.errors import RefusedInput
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import naive_clock, read_lake
from tests.helpers.migration import EACH_FORMAT_EXTENDED, both_levels, migrate_and_validate
from tests.helpers.readers import both_readers
from tests.integration.test_orc_conversions import _text

pytestmark = pytest.mark.slow

ZONE = "America/New_York"
T = dt.datetime
D = dt.date

#: (table column, its type, the file's type)
COLUMNS = [("n_ts", "timestamp", "bigint"), ("d_ts", "timestamp", "double"),
           ("t_n", "bigint", "timestamp"), ("t_dbl", "double", "timestamp"),
           ("t_s", "string", "timestamp"), ("t_d", "date", "timestamp"),
           ("s_t", "timestamp", "string"), ("d_t", "timestamp", "date"),
           ("t_t", "timestamp", "timestamp")]  # fmt: skip
NUMBERS = [1591005600000, 1577872800000, 0, 1604208600000, None]  # epoch milliseconds
SECONDS = [1591005600.5, 1577872800.25, -1.5, 1604212200.0, None]
TEXTS = ["2020-06-01 10:00:00", "2020-01-01 10:00:00", "2020-03-08 02:30:00",
         "2020-11-01 01:30:00", None]  # fmt: skip
DAYS = [D(2020, 6, 1), D(2020, 1, 1), D(1969, 12, 31), D(2020, 11, 1), None]
#: The ORC file's timestamps; the text file's are ``TEXT_STAMPS``, two of them in New York's
#: daylight-saving gap and fold (an ORC file written in UTC holding such a wall clock is read
#: by ORC 1.3's own zone correction, a README limit, so the ORC file holds none)
ORC_STAMPS = [T(2020, 6, 1, 2), T(2020, 1, 1, 10), T(1969, 12, 31, 21), T(2020, 11, 1, 12), None]
TEXT_STAMPS = [T(2020, 6, 1, 2), T(2020, 1, 1, 10), T(2020, 3, 8, 2, 30), T(2020, 11, 1, 1, 30),
               None]  # fmt: skip


def _file_values(file_type: str, stamps: list[Any]) -> list[Any]:
    return {"bigint": NUMBERS, "double": SECONDS, "string": TEXTS, "date": DAYS}.get(
        file_type, stamps
    )


def build_zone_table(client: MetastoreClient, tables_root: Path) -> str:
    """Partition ``orc``: an ORC file of the file types (read into the table's types by ORC's
    schema evolution); ``text``: a text file declared with them (then Hive's converters)."""
    b = HiveTableBuilder(client, tables_root, "hivezone", unique_name("z"),
                         [("rid", "int"), *[(c, t) for c, t, _ in COLUMNS]])  # fmt: skip
    arrow = {"bigint": pa.int64(), "double": pa.float64(), "string": pa.string(),
             "date": pa.date32(), "timestamp": pa.timestamp("us")}  # fmt: skip
    data = pa.table({
        "rid": pa.array(range(len(NUMBERS)), pa.int32()),
        **{c: pa.array(_file_values(f, ORC_STAMPS), arrow[f]) for c, _, f in COLUMNS},
    })  # fmt: skip
    b.add_partition(["orc"], {"000000_0": data})
    lines = [
        "\x01".join([str(r), *(_text(_file_values(f, TEXT_STAMPS)[r]) for _, _, f in COLUMNS)])
        for r in range(len(NUMBERS))
    ]
    b.add_partition(["text"], {"000000_0": ("\n".join(lines) + "\n").encode()},
                    columns=[("rid", "int"), *[(c, f) for c, _, f in COLUMNS]],
                    fmt="text")  # fmt: skip
    return f"{b.db}.{b.name}"


#: What Hive shows in New York, per version, partition and column (rows 0-3; row 4 is NULL).
SHOWN: dict[tuple[str, str], dict[str, list[Any]]] = {
    ("2.3", "orc"): {
        # new Timestamp(millis) / doubleToTimestamp: the instant's wall clock in New York
        "n_ts": [T(2020, 6, 1, 6), T(2020, 1, 1, 5), T(1969, 12, 31, 19), T(2020, 11, 1, 1, 30)],
        "d_ts": [
            T(2020, 6, 1, 6, 0, 0, 500000),
            T(2020, 1, 1, 5, 0, 0, 250000),
            T(1969, 12, 31, 18, 59, 58, 500000),
            T(2020, 11, 1, 1, 30),
        ],
        # getTime() of the instant whose New York wall clock the file holds
        "t_n": [1590991200, 1577890800, 7200, 1604250000],
        "t_dbl": [1590991200.0, 1577890800.0, 7200.0, 1604250000.0],
        # java.sql's toString and the local day of that same instant: as written
        "t_s": [
            "2020-06-01 02:00:00.0",
            "2020-01-01 10:00:00.0",
            "1969-12-31 21:00:00.0",
            "2020-11-01 12:00:00.0",
        ],
        "t_d": [D(2020, 6, 1), D(2020, 1, 1), D(1969, 12, 31), D(2020, 11, 1)],
        # Timestamp.valueOf in New York: the gap's 02:30 is 03:30, the fold's 01:30 stays
        "s_t": [T(2020, 6, 1, 10), T(2020, 1, 1, 10), T(2020, 3, 8, 3, 30), T(2020, 11, 1, 1, 30)],
        "d_t": [T(2020, 6, 1), T(2020, 1, 1), T(1969, 12, 31), T(2020, 11, 1)],
        "t_t": ORC_STAMPS[:4],
    },
    ("2.3", "text"): {
        "n_ts": [T(2020, 6, 1, 6), T(2020, 1, 1, 5), T(1969, 12, 31, 19), T(2020, 11, 1, 1, 30)],
        "d_ts": [
            T(2020, 6, 1, 6, 0, 0, 500000),
            T(2020, 1, 1, 5, 0, 0, 250000),
            T(1969, 12, 31, 18, 59, 58, 500000),
            T(2020, 11, 1, 1, 30),
        ],
        # LazyTimestamp parses in New York (the gap's 02:30 is 03:30's instant, the fold's
        # 01:30 its second, winter one: Hive 2.3.9 shows 1604212200), getSeconds counts it
        "t_n": [1590991200, 1577890800, 1583652600, 1604212200],
        "t_dbl": [1590991200.0, 1577890800.0, 1583652600.0, 1604212200.0],
        # TimestampWritable.toString: the wall clock, no ".0"
        "t_s": [
            "2020-06-01 02:00:00",
            "2020-01-01 10:00:00",
            "2020-03-08 03:30:00",
            "2020-11-01 01:30:00",
        ],
        "t_d": [D(2020, 6, 1), D(2020, 1, 1), D(2020, 3, 8), D(2020, 11, 1)],
        "s_t": [T(2020, 6, 1, 10), T(2020, 1, 1, 10), T(2020, 3, 8, 3, 30), T(2020, 11, 1, 1, 30)],
        "d_t": [T(2020, 6, 1), T(2020, 1, 1), T(1969, 12, 31), T(2020, 11, 1)],
        "t_t": [T(2020, 6, 1, 2), T(2020, 1, 1, 10), T(2020, 3, 8, 3, 30), T(2020, 11, 1, 1, 30)],
    },
    ("3.1", "orc"): {
        # ORC 1.5's instants, which Hive 3.1 reads as UTC: the zone plays no part
        "n_ts": [T(2020, 6, 1, 10), T(2020, 1, 1, 10), T(1970, 1, 1), T(2020, 11, 1, 5, 30)],
        "d_ts": [
            T(2020, 6, 1, 10, 0, 0, 500000),
            T(2020, 1, 1, 10, 0, 0, 250000),
            T(1969, 12, 31, 23, 59, 58, 500000),
            T(2020, 11, 1, 6, 30),
        ],
        "t_n": [1590976800, 1577872800, -10800, 1604232000],
        "t_dbl": [1590976800.0, 1577872800.0, -10800.0, 1604232000.0],
        # Timestamp.toString and DateWritable.dateToDays in New York of the UTC instant
        "t_s": [
            "2020-05-31 22:00:00.0",
            "2020-01-01 05:00:00.0",
            "1969-12-31 16:00:00.0",
            "2020-11-01 07:00:00.0",
        ],
        "t_d": [D(2020, 5, 31), D(2020, 1, 1), D(1969, 12, 31), D(2020, 11, 1)],
        # Timestamp.valueOf and daysToMillis in New York, shown as UTC
        "s_t": [T(2020, 6, 1, 14), T(2020, 1, 1, 15), T(2020, 3, 8, 7, 30), T(2020, 11, 1, 6, 30)],
        "d_t": [T(2020, 6, 1, 4), T(2020, 1, 1, 5), T(1969, 12, 31, 5), T(2020, 11, 1, 4)],
        "t_t": ORC_STAMPS[:4],
    },
    ("3.1", "text"): {
        # Hive 3's converters and SerDe count in UTC (HIVE-12192): as in UTC
        "n_ts": [T(2020, 6, 1, 10), T(2020, 1, 1, 10), T(1970, 1, 1), T(2020, 11, 1, 5, 30)],
        "d_ts": [
            T(2020, 6, 1, 10, 0, 0, 500000),
            T(2020, 1, 1, 10, 0, 0, 250000),
            T(1969, 12, 31, 23, 59, 58, 500000),
            T(2020, 11, 1, 6, 30),
        ],
        "t_n": [1590976800, 1577872800, 1583634600, 1604194200],
        "t_dbl": [1590976800.0, 1577872800.0, 1583634600.0, 1604194200.0],
        "t_s": [
            "2020-06-01 02:00:00",
            "2020-01-01 10:00:00",
            "2020-03-08 02:30:00",
            "2020-11-01 01:30:00",
        ],
        "t_d": [D(2020, 6, 1), D(2020, 1, 1), D(2020, 3, 8), D(2020, 11, 1)],
        "s_t": [T(2020, 6, 1, 10), T(2020, 1, 1, 10), T(2020, 3, 8, 2, 30), T(2020, 11, 1, 1, 30)],
        "d_t": [T(2020, 6, 1), T(2020, 1, 1), T(1969, 12, 31), T(2020, 11, 1)],
        "t_t": TEXT_STAMPS[:4],
    },
}


def shown(version: str) -> dict[tuple[str, int], dict[str, Any]]:
    """Every row Hive ``version`` shows in New York, keyed by (partition, rid)."""
    rows: dict[tuple[str, int], dict[str, Any]] = {}
    for partition in ("orc", "text"):
        columns = SHOWN[(version, partition)]
        for rid in range(len(NUMBERS)):
            rows[(partition, rid)] = {
                c: columns[c][rid] if rid < 4 else None for c, _, _ in COLUMNS
            }
    return rows


def _read(frame: Any) -> dict[tuple[str, int], dict[str, Any]]:
    return {(r["dt"], r["rid"]): {c: r[c] for c, _, _ in COLUMNS} for r in frame.collect()}


@pytest.mark.parametrize("version", ["2.3", "3.1"])
def test_conversions_read_as_hive_in_new_york_shows(
    version: str, client: MetastoreClient, tables_root: Path, settings: Settings, spark: Any
) -> None:
    table = build_zone_table(client, tables_root)
    chosen = replace(settings, hive_version=version, hive_time_zone=ZONE)
    expected = shown(version)
    for reader, frame in both_readers(spark, client, table, chosen).items():
        read = _read(frame)
        wrong = {k: (v, expected[k]) for k, v in read.items() if v != expected[k]}
        assert not wrong, (version, reader, wrong)
    # in UTC both versions show the text partition as Hive 3.1 does in New York
    utc = replace(settings, hive_version=version)
    for reader, frame in both_readers(spark, client, table, utc).items():
        read = _read(frame)
        assert {k: v for k, v in read.items() if k[0] == "text"} == {
            k: v for k, v in shown("3.1").items() if k[0] == "text"
        }, (version, reader)
    # inspect names exactly the columns whose rows the zone changes (every rule's values,
    # the gap hour's included, are in the data), as a warning while the zone is UTC; under
    # 2.x the text partition's t_d is parsed in the zone too, but New York's skipped hour
    # moves within one day (Apia's skipped 2011-12-30 would not)
    gap_only = {("text", "t_d")} if version == "2.3" else set()
    differing = {
        (dt, c)
        for (dt, rid), row in expected.items()
        for c, value in row.items()
        if read[(dt, rid)][c] != value
    } | gap_only
    for zone, severity in ((None, "warning"), ("UTC", "info"), (ZONE, "info")):
        inventory = inspect_table(client, table, replace(chosen, hive_time_zone=zone))
        named = {
            (p.name.removeprefix("dt="), c): a.severity
            for p in inventory.partitions
            for a in p.anomalies
            if a.code == "hive-zone-sensitive"
            for c in a.details["columns"]
        }
        assert set(named) == differing, (version, zone)
        # unset: a warning (information where only the skipped hour moves); set: information
        assert severity in set(named.values()) and (zone is None or len(set(named.values())) == 1)


# make test keeps both readers' conversions (test_conversions_read_...) and a migration in New
# York's zone through backfill and both validation levels (test_timestamp_keys_migrate_...)
@pytest.mark.extended
@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_such_tables_migrate_and_validate_as_hive_in_new_york_shows(
    fmt: str,
    client: MetastoreClient,
    tables_root: Path,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    source = build_zone_table(client, tables_root)
    target = f"{source}_{fmt}"
    chosen = replace(settings, hive_version="2.3", hive_time_zone=ZONE)
    journal = lakeshift_home / f"hivezone-{fmt}.sqlite"
    result, reports = both_levels(spark, client, chosen, journal, source, target, fmt)
    assert result.ok and sorted(result.backfilled) == ["dt=orc", "dt=text"], result.failed
    for level, report in reports.items():
        assert {p.partition: p.status for p in report.partitions} == {
            "dt=orc": EQUAL, "dt=text": EQUAL}, level  # fmt: skip
    expected = shown("2.3")
    rows = {(r["dt"], r["rid"]): {k: naive_clock(v) for k, v in r.items()}
            for r in read_lake(client, target).to_pylist()}  # fmt: skip
    assert {k: r["n_ts"] for k, r in rows.items()} == {k: v["n_ts"] for k, v in expected.items()}
    assert {k: r["t_n"] for k, r in rows.items()} == {k: v["t_n"] for k, v in expected.items()}
    assert {k: r["s_t"] for k, r in rows.items()} == {k: v["s_t"] for k, v in expected.items()}


@pytest.mark.extended  # both readers' INT96 rule runs in make test (test_parquet_int96_...)
@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_int96_tables_migrate_and_validate_as_hive_in_new_york_shows(
    fmt: str,
    client: MetastoreClient,
    tables_root: Path,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    """A Parquet partition's INT96 instants, shown in New York."""
    source = build_int96_table(spark, client, tables_root)
    chosen = replace(settings, hive_version="2.3", hive_time_zone=ZONE)
    journal = lakeshift_home / f"hivezone-int96-{fmt}.sqlite"
    result, reports = both_levels(spark, client, chosen, journal, source, f"{source}_{fmt}", fmt)
    assert result.ok and sorted(result.backfilled) == ["dt=cpp", "dt=spark"], result.failed
    for level, report in reports.items():
        assert {p.status for p in report.partitions} == {EQUAL}, level
    lake = read_lake(client, f"{source}_{fmt}").to_pylist()
    assert {(r["dt"], r["rid"]): naive_clock(r["t"]) for r in lake} == int96_rows("2.3")


def test_both_readers_resolve_wall_clocks_alike_in_many_zones(spark: Any) -> None:
    """Spark's ``zone_instant``/``zone_wall_clock`` against the independent reader's
    ``instant_of``/``wall_clock`` (itself checked by brute force in ``tests/unit/test_zones``):
    around every change of seven zones, far back and far ahead (past Arrow's zone files, and
    past year 9999, where both follow the zone's rule)."""
    from lakeshift.hive.spark_sql import zone_instant, zone_wall_clock
    from lakeshift.validate.independent.zones import instant_of, wall_clock
    from tests.unit.test_zones import ZONES, _walls

    extremes = [np.datetime64(v, "us").astype(np.int64).item() for v in
                ("0001-01-01T00:00", "1883-11-18T12:03:57", "2100-07-01T12:00",
                 "2100-11-07T01:30", "12000-07-01T12:00", "-2000-01-01T00:00")]  # fmt: skip
    for name in ZONES:
        walls = [int((w - dt.datetime(1970, 1, 1)) / dt.timedelta(microseconds=1))
                 for w in _walls(ZoneInfo(name))] + extremes  # fmt: skip
        frame = spark.createDataFrame([(w,) for w in walls], "m BIGINT").selectExpr(
            "timestamp_micros(m) AS w"
        )
        got = frame.selectExpr(
            f"unix_micros({zone_instant('w', name)}) AS i",
            f"unix_micros(CAST({zone_wall_clock('w', name)} AS TIMESTAMP)) AS s",
        ).collect()
        values = pa.array(walls, pa.int64()).view(pa.timestamp("us"))
        instants = instant_of(values, name).view(pa.int64()).to_pylist()
        shown = wall_clock(values, name).view(pa.int64()).to_pylist()
        assert [r["i"] for r in got] == instants, name
        assert [r["s"] for r in got] == shown, name


#: Zones whose raw offset in JDK 17's database is not the lesser of their 2024 offsets:
#: Morocco and Namibia, whose standard offsets Java's (rearguard) data keep from before their
#: negative summer times, and two that changed in 2024, after that JDK's data.
RAW_OFFSET_EXCEPTIONS = frozenset(
    {
        "Africa/Casablanca",
        "Africa/El_Aaiun",
        "Africa/Windhoek",
        "America/Asuncion",
        "America/Scoresbysund",
    }
)


def test_the_raw_offset_is_the_one_java_util_gives_before_1900(spark: Any) -> None:
    """``java_raw_offset`` against the JVM's own ``TimeZone`` for every zone id Java knows."""
    from lakeshift.hive.datetimes import JAVA_ZONE_TABLE_START, java_raw_offset
    from lakeshift.hive.java_zones import JAVA_ZONE_IDS

    zones = spark._jvm.java.util.TimeZone
    before = JAVA_ZONE_TABLE_START * 1000 - 1
    differ = []
    for name in sorted(JAVA_ZONE_IDS - RAW_OFFSET_EXCEPTIONS):
        zone = zones.getTimeZone(name)
        if (
            not zone.getOffset(before) // 1000
            == zone.getRawOffset() // 1000
            == java_raw_offset(name)
        ):
            differ.append((name, zone.getOffset(before) // 1000, java_raw_offset(name)))
    assert differ == []


INT96_STAMPS = [T(2020, 6, 1, 10), T(2020, 1, 1, 10), T(1850, 6, 1, 10), None]
#: What Hive shows in New York for a Spark (parquet-mr) file's INT96 values, which hold UTC
#: instants: Hive 2.3 their java.sql wall clock (New York's raw -5:00 in 1850), Hive 3.1
#: java.time's (its local mean time, -4:56:02, in 1850), Hive 4 java.util's again (the file
#: names no writer zone: hive.parquet.timestamp.legacy.conversion.enabled). A file of another
#: writer (pyarrow here, Impala in the wild) is shown as stored by Hive 2.3 and 4, and
#: converted as Spark's by Hive 3.1 (hive.parquet.timestamp.skip.conversion is false there).
INT96_SHOWN = {
    "2.3": [T(2020, 6, 1, 6), T(2020, 1, 1, 5), T(1850, 6, 1, 5), None],
    "3.1": [T(2020, 6, 1, 6), T(2020, 1, 1, 5), T(1850, 6, 1, 5, 3, 58), None],
    "4": [T(2020, 6, 1, 6), T(2020, 1, 1, 5), T(1850, 6, 1, 5), None],
}


def build_int96_table(spark: Any, client: MetastoreClient, tables_root: Path) -> str:
    """Partition ``spark``: a Parquet file Spark wrote with INT96 timestamps (top level and in
    a struct); ``cpp``: the same values as pyarrow writes INT96."""
    import pyarrow.parquet as pq

    columns = [("rid", "int"), ("t", "timestamp"), ("s", "struct<t:timestamp>")]
    b = HiveTableBuilder(client, tables_root, "hivezone", unique_name("i"), columns)
    values = ", ".join(
        f"({i}, {f'TIMESTAMP {chr(39)}{t}{chr(39)}' if t else 'CAST(NULL AS TIMESTAMP)'})"
        for i, t in enumerate(INT96_STAMPS)
    )
    written = tables_root / f"{b.name}-spark"
    before = spark.conf.get("spark.sql.parquet.outputTimestampType")
    spark.conf.set("spark.sql.parquet.outputTimestampType", "INT96")
    try:
        frame = spark.sql(
            f"SELECT rid, t, named_struct('t', t) AS s FROM VALUES {values} AS v(rid, t)"
        )
        frame.coalesce(1).write.parquet(str(written))
    finally:
        spark.conf.set("spark.sql.parquet.outputTimestampType", before)
    (part,) = written.glob("part-*.parquet")
    b.add_partition(["spark"], {"000000_0": part.read_bytes()}, fmt="parquet")
    data = pa.table({
        "rid": pa.array(range(len(INT96_STAMPS)), pa.int32()),
        "t": pa.array(INT96_STAMPS, pa.timestamp("us")),
        "s": pa.array([{"t": v} for v in INT96_STAMPS], pa.struct([("t", pa.timestamp("us"))])),
    })  # fmt: skip
    sink = pa.BufferOutputStream()
    pq.write_table(data, sink, use_deprecated_int96_timestamps=True)
    b.add_partition(["cpp"], {"000000_0": sink.getvalue().to_pybytes()}, fmt="parquet")
    return f"{b.db}.{b.name}"


def int96_rows(version: str | None) -> dict[tuple[str, int], Any]:
    """(partition, rid) -> the timestamp Hive ``version`` shows in New York (None: in UTC)."""
    spark_rows = INT96_SHOWN[version] if version else INT96_STAMPS
    cpp_rows = INT96_SHOWN["3.1"] if version == "3.1" else INT96_STAMPS
    return {**{("spark", i): v for i, v in enumerate(spark_rows)},
            **{("cpp", i): v for i, v in enumerate(cpp_rows)}}  # fmt: skip


def test_parquet_int96_instants_show_in_hives_zone(
    client: MetastoreClient, tables_root: Path, settings: Settings, spark: Any
) -> None:
    table = build_int96_table(spark, client, tables_root)
    for version, zone in (("2.3", ZONE), ("3.1", ZONE), ("4", ZONE), ("3.1", "UTC")):
        chosen = replace(settings, hive_version=version, hive_time_zone=zone)
        expected = int96_rows(version if zone == ZONE else None)
        for reader, frame in both_readers(spark, client, table, chosen).items():
            rows = {(r["dt"], r["rid"]): (r["t"], r["s"] and r["s"]["t"]) for r in frame.collect()}
            assert rows == {k: (v, v) for k, v in expected.items()}, (version, zone, reader)


#: Timestamp partition keys and what Hive 2.3 in New York shows (``Timestamp.valueOf`` there:
#: the skipped hour moves past the gap, so 02:30 and 03:30 show as one value; java.util knows
#: no change before 1900). The differential run asks Hive 2.3.9 itself.
KEY_TEXTS = ["2020-03-08 02:30:00", "2020-03-08 03:30:00", "2020-11-01 01:30:00",
             "1883-11-18 12:03:00"]  # fmt: skip
KEYS_SHOWN = [T(2020, 3, 8, 3, 30), T(2020, 3, 8, 3, 30), T(2020, 11, 1, 1, 30),
              T(1883, 11, 18, 12, 3)]  # fmt: skip


def build_key_table(client: MetastoreClient, tables_root: Path) -> str:
    """One ORC partition per ``KEY_TEXTS`` value of a timestamp key ``k``; row ``i`` = index."""
    b = HiveTableBuilder(
        client, tables_root, "hivezone", unique_name("k"), [("i", "int")],
        partition_keys=[("k", "timestamp")],
    )  # fmt: skip
    for index, text in enumerate(KEY_TEXTS):
        b.add_partition([text], {"f.orc": pa.table({"i": pa.array([index], pa.int32())})})
    return f"{b.db}.{b.name}"


@EACH_FORMAT_EXTENDED
def test_timestamp_keys_migrate_as_hive_2_in_new_york_shows_them(
    fmt: str,
    client: MetastoreClient,
    tables_root: Path,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    source = build_key_table(client, tables_root)
    chosen = replace(settings, hive_version="2.3", hive_time_zone=ZONE)
    inventory = inspect_table(client, source, chosen)
    collide = [a for a in inventory.anomalies if a.code == "partition-values-collide"]
    assert len(collide) == 1 and "03%3A30" in collide[0].message, collide
    assert "Hive 2.3 running in America/New_York" in collide[0].message
    journal = lakeshift_home / f"hivezone-keys-{fmt}.sqlite"
    result, reports = both_levels(spark, client, chosen, journal, source, f"{source}_{fmt}", fmt)
    assert result.ok and len(result.backfilled) == len(KEY_TEXTS), result.failed
    for level, report in reports.items():
        assert {p.status for p in report.partitions} == {EQUAL}, (level, report.partitions)
    lake = read_lake(client, f"{source}_{fmt}").to_pylist()
    assert {r["i"]: naive_clock(r["k"]) for r in lake} == dict(enumerate(KEYS_SHOWN))
    # a later run in UTC would type the gap's key 02:30 and miss the rows written as 03:30
    refused = r"key k = 2020-03-08 03:30:00, as Hive 2\.3 in America/New_York"
    with pytest.raises(RefusedInput, match=refused):
        migrate_and_validate(
            spark, client, replace(chosen, hive_time_zone=None), journal, source,
            f"{source}_{fmt}", fmt,
        )  # fmt: skip


HAVANA = "America/Havana"  # its clocks skip midnight: 2020-03-08 00:00 is 01:00
#: Dates read as the table's timestamps: Hive 2.x (DateWritable.daysToMillis) shows midnight,
#: and for a midnight the zone skips the time of day the query runs (a README limit)
MIDNIGHT_DAYS = [D(2020, 3, 8), D(2020, 6, 1), D(1850, 3, 10), None]


def build_midnight_table(client: MetastoreClient, tables_root: Path) -> str:
    """A table timestamp ``t`` over a text and a Parquet partition declaring it a date."""
    b = HiveTableBuilder(client, tables_root, "hivezone", unique_name("m"),
                         [("rid", "int"), ("t", "timestamp")])  # fmt: skip
    declared = [("rid", "int"), ("t", "date")]
    lines = "".join(f"{r}\x01{_text(d)}\n" for r, d in enumerate(MIDNIGHT_DAYS))
    b.add_partition(["text"], {"000000_0": lines.encode()}, columns=declared, fmt="text")
    data = pa.table({"rid": pa.array(range(len(MIDNIGHT_DAYS)), pa.int32()),
                     "t": pa.array(MIDNIGHT_DAYS, pa.date32())})  # fmt: skip
    b.add_partition(["parquet"], {"000000_0": data}, columns=declared, fmt="parquet")
    return f"{b.db}.{b.name}"
