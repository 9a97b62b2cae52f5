"""Timestamps finer than a microsecond (ORC holds nanoseconds; Iceberg v2, Delta and Hudi hold
microseconds) are never lost silently: ``inspect`` flags the files whose statistics show them,
and both validation levels report such a partition as differing, in every format."""

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
from tests.helpers.migration import migrate_and_validate

pytestmark = pytest.mark.slow

BASE = 1_600_000_000_000_000_000  # 2020-09-13 12:26:40 UTC, in nanoseconds


@pytest.fixture(scope="module")
def stamped(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(
        client, tables_root, "precision", unique_name("t"), [("i", "int"), ("ts", "timestamp")]
    )
    fine = pa.array([BASE + 123_456_789, BASE + 1_000, None], pa.timestamp("ns"))
    coarse = pa.array([BASE + 123_456_000, BASE, None], pa.timestamp("ns"))
    ids = pa.array([0, 1, 2], pa.int32())
    b.add_partition(["fine"], {"000000_0": pa.table({"i": ids, "ts": fine})})
    b.add_partition(["coarse"], {"000000_0": pa.table({"i": ids, "ts": coarse})})
    return f"{b.db}.{b.name}"


def test_inspect_flags_files_whose_statistics_show_nanoseconds(
    stamped: str, client: MetastoreClient, settings: Settings
) -> None:
    inventory = inspect_table(client, stamped, settings)
    codes = {p.name: {a.code for a in p.anomalies} for p in inventory.partitions}
    assert "timestamp-nanoseconds" in codes["dt=fine"]
    assert "timestamp-nanoseconds" not in codes["dt=coarse"]


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
@pytest.mark.parametrize("level", ["checksum", "independent"])
def test_both_levels_see_truncated_nanoseconds(
    fmt: str,
    level: str,
    stamped: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    target = f"{stamped}_{fmt}_{level}"
    result, report = migrate_and_validate(
        spark,
        client,
        settings,
        lakeshift_home / f"precision-{fmt}-{level}.sqlite",
        stamped,
        target,
        fmt,
        level=level,
    )
    assert len(result.backfilled) == 2
    by_name = {p.partition: p for p in report.partitions}
    assert by_name["dt=coarse"].status == EQUAL
    fine = by_name["dt=fine"]
    assert fine.status == MISMATCH and "microsecond" in fine.detail, fine.detail
    if level == "independent":
        assert "1 timestamp value" in fine.detail  # 123456789 ns; 1000 ns is a whole microsecond
    assert not report.ok
    held = {r["i"]: r["ts"] for r in read_lake(client, target).to_pylist()}
    assert held[0].replace(tzinfo=None) == dt.datetime(2020, 9, 13, 12, 26, 40, 123456)


def test_accepted_truncation_validates_and_says_so(
    stamped: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    target = f"{stamped}_accepted"
    _, report = migrate_and_validate(
        spark,
        client,
        replace(settings, timestamp_precision="truncate"),
        lakeshift_home / "precision-accepted.sqlite",
        stamped,
        target,
        "iceberg",
    )
    fine = {p.partition: p for p in report.partitions}["dt=fine"]
    assert fine.status == EQUAL and "accepted" in fine.detail and report.ok
