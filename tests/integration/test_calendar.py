"""Dates before 1582 reach every target format as Hive 3.1+ shows them, checked by the
format's own reader and proven by the independent level."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake

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
    # (Parquet): Hive reads both as hybrid, by their Julian label.
    shown = {
        1: (dt.date(999, 12, 27), [dt.date(999, 12, 27)]),
        2: (dt.date(1, 1, 3), None),
        3: (dt.date(2020, 1, 1), []),
        4: (None, [None]),
    }
    assert rows == shown | {i + 10: v for i, v in shown.items()}
