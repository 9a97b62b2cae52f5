"""Dates before 1582 reach every target format as Hive 3.1+ shows them, checked by the
format's own reader and proven by the independent level."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.hive.calendar_sql import julian_label_date
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.independent.calendar import julian_label_to_proleptic
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, mark_proleptic, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_early_dates_migrate_as_hive_shows_them(
    fmt: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    b = HiveTableBuilder(
        client,
        tables_root,
        "calendar",
        unique_name("t"),
        [("id", "int"), ("d", "date"), ("ds", "array<date>")],
    )
    days = pa.array([-354285, -719162, 18262, None], pa.int32()).cast(pa.date32())
    for value, fmt_on_disk in (("1", "orc"), ("2", "parquet")):
        offset = 0 if value == "1" else 10
        data = {
            "id": pa.array([1 + offset, 2 + offset, 3 + offset, 4 + offset], pa.int32()),
            "d": days,
            "ds": pa.array([[dt.date(1000, 1, 1)], None, [], [None]]),
        }
        b.add_partition([value], {"000000_0": pa.table(data)}, fmt=fmt_on_disk)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    catalog = HiveCatalog("t", uri=metastore_uri)
    journal = Journal(lakeshift_home / f"calendar-{fmt}.sqlite")
    result = migrate(
        spark, client, catalog, settings, journal, source, MigrateOptions(target, format=fmt)
    )
    assert result.backfilled == ["dt=1", "dt=2"] and not result.failed, result
    report = validate_table(
        spark, client, catalog, settings, journal, source, target, level="independent"
    )
    assert report.ok, report
    rows = {r["id"]: (r["d"], r["ds"]) for r in read_lake(client, target).to_pylist()}
    # pyarrow wrote proleptic day numbers without a calendar field (ORC) or a proleptic marker
    # (Parquet): Apache Hive 3.1, the default, shows both as stored (LocalDate.ofEpochDay of
    # the day number: RecordReaderImpl.nextDate, ETypeConverter's DATE; 3.1.3's source),
    # where Hive 4 and Spark (calendar "hive3") read them as hybrid, by their Julian label.
    shown = {
        1: (dt.date(1000, 1, 1), [dt.date(1000, 1, 1)]),
        2: (dt.date(1, 1, 1), None),
        3: (dt.date(2020, 1, 1), []),
        4: (None, [None]),
    }
    assert rows == shown | {i + 10: v for i, v in shown.items()}


def test_numbers_read_as_timestamps_before_1582_show_the_version_s_calendar(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    """A number read as a timestamp is an instant. Hive 1.2/2.x show it as java.sql.Timestamp
    does, its day in the hybrid calendar (Julian before 1582-10-15: Hive 2.3.9 shows
    -12219292801 as 1582-10-04 23:59:59, the day before the switch); Hive 3.1+ (Timestamp
    on java.time) in the proleptic one. Through ORC's schema evolution (an ORC file's decimal
    and double) and Hive's converter (a text partition declaring them)."""
    b = HiveTableBuilder(
        client,
        tables_root,
        "calendar",
        unique_name("n"),
        [("id", "int"), ("ts", "timestamp"), ("tsd", "timestamp")],
    )
    seconds = ["-30605083199.876544", "-12219292801", "-12219292800", None]
    decimals = pa.array([None if s is None else Decimal(s) for s in seconds], pa.decimal128(20, 6))
    doubles = pa.array([None if s is None else float(s) for s in seconds], pa.float64())
    ids = pa.array([0, 1, 2, 3], pa.int32())
    b.add_partition(["1"], {"000000_0": pa.table({"id": ids, "ts": decimals, "tsd": doubles})})
    fields = [s or "\\N" for s in seconds]
    lines = "".join(f"{i}\x01{f}\x01{f}\n" for i, f in enumerate(fields))
    b.add_partition(
        ["2"],
        {"000000_0": lines.encode()},
        fmt="text",
        columns=[("id", "int"), ("ts", "decimal(20,6)"), ("tsd", "double")],
    )
    proleptic = [
        dt.datetime(1000, 3, 1, 12, 0, 0, 123456),
        dt.datetime(1582, 10, 14, 23, 59, 59),
        dt.datetime(1582, 10, 15),
        None,
    ]
    # the Julian calendar's labels of the same days (Julian 1000-02-24 is Gregorian 03-01)
    hybrid = [dt.datetime(1000, 2, 24, 12, 0, 0, 123456), dt.datetime(1582, 10, 4, 23, 59, 59)]
    hybrid += proleptic[2:]
    table = f"{b.db}.{b.name}"
    for version, expected in (("2.3", hybrid), ("3.1", proleptic)):
        chosen = replace(settings, hive_version=version, calendar=None)
        for reader, frame in both_readers(spark, client, table, chosen).items():
            rows = {(r["dt"], r["id"]): r for r in frame.collect()}
            for partition in ("1", "2"):
                for column in ("ts", "tsd"):
                    got = [rows[(partition, i)][column] for i in range(4)]
                    got = [g.replace(tzinfo=None) if g else None for g in got]
                    if column == "tsd":
                        # the double's Double.toString is -3.0605083199876545E10: its
                        # nanoseconds, cut toward zero, are 123455000 (doubleToTimestamp)
                        assert got[0] is not None and got[0].microsecond == 123455
                        got[0] = got[0].replace(microsecond=123456)
                    assert got == expected, (version, reader, partition, column, got)


def test_julian_labels_agree_in_both_readers_back_to_spark_s_earliest_year(spark: Any) -> None:
    """The Spark reader's SQL and the independent reader's numpy apply the Julian day-number
    formulas, which floor: Spark's ``div`` truncates, so before 4713 BC (a negative Julian
    day number) the SQL must keep its operands positive to agree."""
    days = [-141_427, -719_162, -2_440_588, -2_500_000, -30_000_000, -106_000_000]
    sql = ", ".join(f"unix_date({julian_label_date(str(d))})" for d in days)
    (row,) = spark.sql(f"SELECT {sql}").collect()
    assert list(row) == julian_label_to_proleptic(np.array(days, np.int64)).tolist()


def test_a_number_through_a_timestamp_back_to_a_number_keeps_its_instant(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    """Hive 1.2 (model A): an ORC file's double read as the partition's timestamp, then as the
    table's double: Hive's getDouble gives the instant back, so the hybrid relabelling of
    instants (calendar hive2) must not shift it by the calendars' ten days."""
    b = HiveTableBuilder(
        client, tables_root, "calendar", unique_name("r"), [("id", "int"), ("x", "double")]
    )
    doubles = pa.array([-12219292801.0, 0.5, None], pa.float64())
    ids = pa.array([0, 1, 2], pa.int32())
    b.add_partition(
        ["1"],
        {"000000_0": pa.table({"id": ids, "x": doubles})},
        columns=[("id", "int"), ("x", "timestamp")],
    )
    chosen = replace(settings, hive_version="1.2", calendar=None)
    for reader, frame in both_readers(spark, client, f"{b.db}.{b.name}", chosen).items():
        got = {r["id"]: r["x"] for r in frame.collect()}
        assert got == {0: -12219292801.0, 1: 0.5, 2: None}, reader


EARLY = ["0001-01-01 00:00:00", "1000-03-01 12:00:00.5", "1582-10-04 23:59:59",
         "1582-10-15 00:00:00", "0200-03-01 00:00:00"]  # fmt: skip
#: what Hive 2.3.9 prints for them read as each type by its converter (asked here, on a text
#: partition: TimestampWritable.getDouble/getSeconds of java.sql.Timestamp.valueOf, the date
#: read in the Julian calendar before 1582-10-15: two days earlier in year 1, none in 200)
AS_HIVE_2 = {
    "d": [-62135769600.0, -30604564799.5, -12219292801.0, -12219292800.0, -55850688000.0],
    "b": [-62135769600, -30604564800, -12219292801, -12219292800, -55850688000],
    "i": [-2006227456, -539793728, 665609087, 665609088, -16113152],  # the long's low 32 bits
    "m": [Decimal("-62135769600.000"), Decimal("-30604564799.500"), Decimal("-12219292801.000"),
          Decimal("-12219292800.000"), Decimal("-55850688000.000")],
}  # fmt: skip


def test_a_timestamp_before_1582_read_as_a_number_counts_the_version_s_seconds(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    """A text partition's timestamps the table reads as numbers (Hive's converter): Hive
    1.2/2.x count the seconds of java.sql.Timestamp's instant, its date read in the Julian
    calendar before 1582-10-15; Hive 3.1+ (java.time) count them in the proleptic one."""
    columns = [("d", "double"), ("b", "bigint"), ("i", "int"), ("m", "decimal(20,3)")]
    b = HiveTableBuilder(client, tables_root, "calendar", unique_name("s"),
                         [("id", "int"), *columns])  # fmt: skip
    lines = "".join("\x01".join([str(i), *[s] * len(columns)]) + "\n" for i, s in enumerate(EARLY))
    b.add_partition(["1"], {"000000_0": lines.encode()}, fmt="text",
                    columns=[("id", "int"), *[(n, "timestamp") for n, _ in columns]])  # fmt: skip
    epoch = dt.datetime(1970, 1, 1)
    proleptic = [(dt.datetime.fromisoformat(s) - epoch).total_seconds() for s in EARLY]
    as_hive_3 = {
        "d": proleptic,
        "b": [int(s // 1) for s in proleptic],
        "i": [int(np.int64(s // 1).astype(np.int32)) for s in proleptic],
        "m": [Decimal(f"{s:.3f}") for s in proleptic],
    }
    table = f"{b.db}.{b.name}"
    for version, expected in (("2.3", AS_HIVE_2), ("3.1", as_hive_3)):
        chosen = replace(settings, hive_version=version, calendar=None)
        for reader, frame in both_readers(spark, client, table, chosen).items():
            rows = {r["id"]: r for r in frame.collect()}
            for name, _ in columns:
                got = [rows[i][name] for i in range(len(EARLY))]
                assert got == expected[name], (version, reader, name, got)


def test_an_orc_timestamp_read_as_a_number_counts_the_file_s_own_seconds(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    """Hive 2.3 and 3.1 (ORC 1.3.4 and 1.5.8): ORC's schema evolution reads a file's timestamp
    as the table's number from the ``TimestampColumnVector``'s milliseconds, which
    ``TimestampTreeReader`` takes straight from the file's seconds (``millisToSeconds``,
    ``getDouble``, ``HiveDecimal.create(Double.toString(...))``; read at ORC's tags
    rel/release-1.3.4 and 1.5.8; no Hive with those releases runs here). So whatever the
    calendar shown, the count is the file's own instant: pyarrow's proleptic seconds of what it
    wrote, for a file without a calendar (read as hybrid) and one marked proleptic alike."""
    columns = [("d", "double"), ("b", "bigint"), ("i", "int"), ("m", "decimal(20,3)")]
    b = HiveTableBuilder(client, tables_root, "calendar", unique_name("o"),
                         [("id", "int"), *columns])  # fmt: skip
    # whole seconds: Spark's ORC reader (Java) refuses the nanoseconds ORC C++ writes for a
    # fraction before 1970
    written = [dt.datetime.fromisoformat(s).replace(microsecond=0) for s in EARLY]
    data = {
        "id": pa.array(range(len(EARLY)), pa.int32()),
        **{n: pa.array(written, pa.timestamp("us")) for n, _ in columns},
    }
    hybrid = b.add_partition(["hybrid"], {"f.orc": pa.table(data)})
    marked = b.add_partition(["proleptic"], {"f.orc": pa.table(data)})
    mark_proleptic(marked / "f.orc")
    said_hybrid = b.add_partition(["marked"], {"f.orc": pa.table(data)})
    mark_proleptic(said_hybrid / "f.orc", calendar=1)
    assert hybrid.exists()
    epoch = dt.datetime(1970, 1, 1)
    seconds = [(w - epoch).total_seconds() for w in written]
    expected = {
        "d": seconds,
        "b": [int(s // 1) for s in seconds],
        "i": [None] * len(seconds),  # ORC narrows without wrapping: out of an int is NULL
        "m": [Decimal(f"{s:.3f}") for s in seconds],
    }
    table = f"{b.db}.{b.name}"
    for version in ("2.3", "3.1"):
        for calendar in ("hive2", "hive3", "proleptic"):
            chosen = replace(settings, hive_version=version, calendar=calendar)
            for reader, frame in both_readers(spark, client, table, chosen).items():
                for part in ("hybrid", "proleptic", "marked"):
                    rows = {r["id"]: r for r in frame.where(f"dt = '{part}'").collect()}
                    for name, _ in columns:
                        got = [rows[i][name] for i in range(len(EARLY))]
                        assert got == expected[name], (version, calendar, reader, part, name)
