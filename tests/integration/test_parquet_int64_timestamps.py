"""Parquet ``INT64`` timestamps (pyarrow's and pandas' default, Spark's ``TIMESTAMP_MICROS``):
every Hive before 4 fails on them (HIVE-21215), Hive 4 reads them
(``ParquetTimestampUtils.getTimestamp``: a value adjusted to UTC in its JVM's zone, any other
as written). Both readers show them so; nanoseconds (pandas' default) are refused, since Spark
has no reader for them, instead of failing in Spark.
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
from lakeshift.validate.model import EQUAL, NOT_MIGRATED
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import migrate_and_validate
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow

VALUE = dt.datetime(2020, 1, 2, 3, 4, 5, 123456)
PARTITIONS = {
    "naive_us": pa.timestamp("us"),
    "naive_ms": pa.timestamp("ms"),
    "nanos": pa.timestamp("ns"),
    "utc_us": pa.timestamp("us", tz="UTC"),
}


@pytest.fixture(scope="module")
def int64_table(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(client, tables_root, "int64ts", unique_name("t"),
                         [("rid", "int"), ("t", "timestamp")])  # fmt: skip
    for name, kind in PARTITIONS.items():
        data = pa.table({"rid": pa.array([1, 2], pa.int32()), "t": pa.array([VALUE, None], kind)})
        b.add_partition([name], {"000000_0": data}, fmt="parquet")
    return f"{b.db}.{b.name}"


@pytest.mark.parametrize(
    ("version", "zone", "refused"),
    [
        ("3.1", "UTC", {"naive_us", "naive_ms", "nanos", "utc_us"}),  # ClassCastException
        ("4", "UTC", {"nanos"}),
        ("4", "America/New_York", {"nanos"}),
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
    held = {p.values[0]: p for p in inventory.partitions if not p.migratable}
    assert set(held) == refused
    if version == "4":
        for partition in held.values():
            codes = {a.code for a in partition.anomalies if a.severity == "error"}
            assert codes == {"int64-timestamps-unread"}, codes
    read = set(PARTITIONS) - refused
    shown = {"naive_ms": VALUE.replace(microsecond=123000)}
    if zone != "UTC":  # LocalDateTime.ofInstant in Hive's zone: New York is 5 hours behind
        shown["utc_us"] = VALUE - dt.timedelta(hours=5)
    for name, frame in both_readers(spark, client, int64_table, chosen).items():
        rows = {(r["dt"], r["rid"]): r["t"] for r in frame.collect()}
        expected = {(p, 1): shown.get(p, VALUE) for p in read} | {(p, 2): None for p in read}
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
    result, report = migrate_and_validate(
        spark, client, chosen, lakeshift_home / f"int64ts-{fmt}.sqlite", int64_table, target, fmt
    )
    assert sorted(result.backfilled) == ["dt=naive_ms", "dt=naive_us", "dt=utc_us"], result
    assert {p.partition: p.status for p in report.partitions} == {
        "dt=naive_ms": EQUAL, "dt=naive_us": EQUAL, "dt=utc_us": EQUAL, "dt=nanos": NOT_MIGRATED,
    }  # fmt: skip
    rows = {
        (r["dt"], r["rid"]): r["t"] and r["t"].replace(tzinfo=None)  # a UTC label
        for r in read_lake(client, target).to_pylist()
    }
    assert rows[("utc_us", 1)] == VALUE - dt.timedelta(hours=5)
    assert rows[("naive_us", 1)] == VALUE and rows[("naive_ms", 2)] is None
