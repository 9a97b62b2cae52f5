"""Parquet ``INT64`` timestamps (pyarrow's and pandas' default, Spark's ``TIMESTAMP_MICROS``):
every Hive before 4 fails on them (HIVE-21215), Hive 4 reads them
(``ParquetTimestampUtils.getTimestamp``: a value adjusted to UTC in its JVM's zone, any other
as written), nanoseconds (pandas' default) included: ``Instant.ofEpochSecond(value / 10^9,
value % 10^9)``, which floors a negative value's fraction. Both readers show them so, at the
microsecond the targets keep; finer ones are flagged and validate as differing, as ORC's do.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL, MISMATCH
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import both_levels
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow

VALUE = dt.datetime(2020, 1, 2, 3, 4, 5, 123456)
NANOS = 1_577_934_245_123_456_000  # VALUE, in nanoseconds
PARTITIONS = {
    "naive_us": pa.timestamp("us"),
    "naive_ms": pa.timestamp("ms"),
    "nanos": pa.timestamp("ns"),
    "utc_us": pa.timestamp("us", tz="UTC"),
    "utc_nanos": pa.timestamp("ns", tz="UTC"),
}
#: adjusted to UTC: shown in Hive's zone
ADJUSTED = ("utc_us", "utc_nanos")
#: nanoseconds past a microsecond, one before 1970: -500 ns is 1969-12-31 23:59:59.9999995,
#: held as .999999 (floored, as Instant.ofEpochSecond(0, -500) is)
FINE = pa.array([NANOS + 789, -500], pa.timestamp("ns"))
CUT = [VALUE, dt.datetime(1969, 12, 31, 23, 59, 59, 999999)]
COLUMNS = [("rid", "int"), ("t", "timestamp"), ("s", "struct<n:int,t:timestamp>")]


def _file(values: pa.Array) -> pa.Table:
    """Two rows: the values at the top level and inside a struct."""
    struct = pa.StructArray.from_arrays([pa.array([1, 2], pa.int32()), values], names=["n", "t"])
    return pa.table({"rid": pa.array([1, 2], pa.int32()), "t": values, "s": struct})


@pytest.fixture(scope="module")
def int64_table(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(client, tables_root, "int64ts", unique_name("t"), COLUMNS)
    for name, kind in PARTITIONS.items():
        b.add_partition([name], {"000000_0": _file(pa.array([VALUE, None], kind))}, fmt="parquet")
    b.add_partition(["fine"], {"000000_0": _file(FINE)}, fmt="parquet")
    return f"{b.db}.{b.name}"


@pytest.mark.parametrize(
    ("version", "zone", "refused"),
    [
        ("3.1", "UTC", {*PARTITIONS, "fine"}),  # ClassCastException
        ("4", "UTC", set()),
        ("4", "America/New_York", set()),
    ],
)
def test_int64_timestamps_are_read_or_refused_as_hive_4_shows_them(
    version: str,
    zone: str,
    refused: set[str],
    int64_table: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
) -> None:
    chosen = replace(settings, hive_version=version, hive_time_zone=zone)
    inventory = inspect_table(client, int64_table, chosen)
    held = {p.values[0] for p in inventory.partitions if not p.migratable}
    assert held == refused
    codes = {p.values[0]: {a.code for a in p.anomalies} for p in inventory.partitions}
    assert "timestamp-nanoseconds" in codes["fine"]  # the statistics show .123456789
    assert "timestamp-nanoseconds" not in codes["nanos"] | codes["utc_nanos"]
    shown = {"naive_ms": VALUE.replace(microsecond=123000)}
    if zone != "UTC":  # LocalDateTime.ofInstant in Hive's zone: New York is 5 hours behind
        shown |= dict.fromkeys(ADJUSTED, VALUE - dt.timedelta(hours=5))
    expected: dict[tuple[str, int], Any] = {}
    for name in set(PARTITIONS) - refused:
        expected |= {(name, 1): (shown.get(name, VALUE),) * 2, (name, 2): (None, None)}
    if "fine" not in refused:
        expected |= {("fine", 1): (CUT[0], CUT[0]), ("fine", 2): (CUT[1], CUT[1])}
    for name, frame in both_readers(spark, client, int64_table, chosen).items():
        rows = {(r["dt"], r["rid"]): (r["t"], r["s"]["t"]) for r in frame.collect()}
        assert rows == expected, (version, zone, name)


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_hive_4_in_another_zone_migrates_them_into_every_format(
    fmt: str,
    int64_table: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    chosen = replace(settings, hive_version="4", hive_time_zone="America/New_York")
    target = f"{int64_table}_{fmt}"
    journal = lakeshift_home / f"int64ts-{fmt}.sqlite"
    result, reports = both_levels(spark, client, chosen, journal, int64_table, target, fmt)
    assert sorted(result.backfilled) == sorted(f"dt={p}" for p in (*PARTITIONS, "fine"))
    for level, report in reports.items():
        statuses = {p.partition: p.status for p in report.partitions}
        assert statuses == {f"dt={p}": EQUAL for p in PARTITIONS} | {"dt=fine": MISMATCH}, level
        fine = next(p for p in report.partitions if p.partition == "dt=fine")
        assert "finer than a microsecond" in fine.detail, (level, fine.detail)
        # both values, at the top level and in the struct, counted by each level's own scan
        assert "counted 4 timestamp value" in fine.detail, (level, fine.detail)
    rows = {
        (r["dt"], r["rid"]): (r["t"] and r["t"].replace(tzinfo=None))  # a UTC label
        for r in read_lake(client, target).to_pylist()
    }
    for name in ADJUSTED:
        assert rows[(name, 1)] == VALUE - dt.timedelta(hours=5), name
    assert rows[("nanos", 1)] == rows[("naive_us", 1)] == VALUE and rows[("nanos", 2)] is None
    assert [rows[("fine", 1)], rows[("fine", 2)]] == CUT
