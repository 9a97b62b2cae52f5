"""Dates and timestamps over Hive's whole range (0001-01-01..9999-12-31) in every source format
reach every target format as Hive shows them, and the independent level proves them.

pyarrow reads ORC and INT96 timestamps in nanoseconds, which end in 1677 and 2262: the
independent reader used to fail (ORC) or wrap silently (INT96) on such values."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL, NOT_MIGRATED
from tests.helpers.hive_tables import HiveTableBuilder, mark_proleptic, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import migrate_and_validate

pytestmark = pytest.mark.slow

# The values. Before 1970 whole seconds: Java's ORC reader (Spark's, Hive's) fails on
# the fractions ORC's C++ writer writes there (docs/DESIGN-NOTES.md).
STAMPS = [
    dt.datetime(1, 1, 1, 0, 0, 0),
    dt.datetime(1000, 6, 15, 10, 30, 0),
    dt.datetime(1582, 10, 10, 23, 59, 59),
    dt.datetime(1677, 9, 20, 12, 0, 1),
    dt.datetime(2262, 4, 12, 0, 0, 0, 123456),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
]
# Hive 3.1+ (calendar "hive3") shows a file counted in the hybrid calendar (ORC without the
# proleptic footer field, Parquet without Spark's marker) by its Julian label before
# 1582-10-15, the time of day kept; proleptic files and text as written.
HYBRID = [
    dt.datetime(1, 1, 3, 0, 0, 0),
    dt.datetime(1000, 6, 9, 10, 30, 0),
    dt.datetime(1582, 9, 30, 23, 59, 59),
    *STAMPS[3:],
]
# Hive 2.x (calendar "hive2") counts every file's days as hybrid: only text is as written.
# Apache Hive 3.1 ("proleptic") shows ORC files' and Parquet DATE days as stored, and INT96
# timestamps' instants (NanoTimeUtils 3.1.3: jodd's Julian-calendar fields set into a hybrid
# GMT calendar, whose millis Hive's LocalDateTime-based Timestamp shows proleptic).
AS_WRITTEN = {
    "hive3": {"orc-proleptic", "text"},
    "hive2": {"text"},
    "proleptic": {"orc", "orc-proleptic", "parquet", "int96", "text"},
}


def _arrow_rows() -> pa.Table:
    return pa.table(
        {
            "id": pa.array(range(len(STAMPS)), pa.int32()),
            "d": pa.array([s.date() for s in STAMPS], pa.date32()),
            "t": pa.array(STAMPS, pa.timestamp("us")),
        }
    )


def _text_rows() -> bytes:
    lines = [f"{i}\x01{s.date().isoformat()}\x01{s.isoformat(' ')}" for i, s in enumerate(STAMPS)]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def wide_table(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(
        client,
        tables_root,
        "ranges",
        unique_name("t"),
        [("id", "int"), ("d", "date"), ("t", "timestamp")],
    )
    rows = _arrow_rows()
    b.add_partition(["orc"], {"000000_0": rows})
    proleptic = b.add_partition(["orc-proleptic"]) / "000000_0"
    orc.write_table(rows, str(proleptic), compression="uncompressed")
    mark_proleptic(proleptic)
    b.add_partition(["parquet"], {"000000_0": rows}, fmt="parquet")
    int96 = b.add_partition(["int96"], fmt="parquet") / "000000_0"
    pq.write_table(rows, str(int96), use_deprecated_int96_timestamps=True)
    b.add_partition(["text"], {"000000_0": _text_rows()}, fmt="text")
    return f"{b.db}.{b.name}"


# "proleptic" changes only how the source is read (every target writes what the reader gives,
# as the other two calendars show for each format): one format keeps make test in budget.
CASES = [(c, f) for c in ("hive3", "hive2") for f in ("iceberg", "delta", "hudi")]


@pytest.mark.parametrize("calendar,fmt", [*CASES, ("proleptic", "delta")])
def test_dates_and_timestamps_of_the_whole_range_are_proven(
    fmt: str,
    calendar: str,
    wide_table: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    target = f"{wide_table}_{fmt}_{calendar}"
    result, report = migrate_and_validate(
        spark,
        client,
        replace(settings, calendar=calendar),
        lakeshift_home / f"range-{fmt}-{calendar}.sqlite",
        wide_table,
        target,
        fmt,
    )
    # Hive 1.2-3.1 read only INT96 Parquet timestamps: pyarrow's INT64 ones arrive as
    # numbers the partition's timestamp cannot read (every query fails: Hive 2.3.9 in
    # test_parquet_writables), so lakeshift refuses that partition; Hive 4 reads it.
    assert "ClassCastException" in result.refused.pop("dt=parquet"), result
    assert len(result.backfilled) == 4 and not result.failed and not result.refused, result
    assert {p.partition: p.status for p in report.partitions} == {
        **{f"dt={v}": EQUAL for v in ("orc", "orc-proleptic", "int96", "text")},
        "dt=parquet": NOT_MIGRATED,
    }, [(p.partition, p.detail, p.diff) for p in report.partitions if p.status != EQUAL]
    assert all(p.independent_checksum == p.target_checksum for p in report.partitions)

    shown: dict[str, list[tuple[dt.date, dt.datetime]]] = {}
    for row in sorted(read_lake(client, target).to_pylist(), key=lambda r: r["id"]):
        stamp = row["t"].replace(tzinfo=None)  # some readers say UTC; the value is wall clock
        shown.setdefault(row["dt"], []).append((row["d"], stamp))
    for partition, rows in shown.items():
        expected = STAMPS if partition in AS_WRITTEN[calendar] else HYBRID
        assert rows == [(s.date(), s) for s in expected], partition
    assert len(shown) == 4


def test_int64_parquet_timestamps_are_read_from_hive_4_on(
    wide_table: str, client: MetastoreClient, settings: Settings
) -> None:
    held = {
        version: {
            p.name
            for p in inspect_table(
                client, wide_table, replace(settings, hive_version=version)
            ).partitions
            if not p.migratable
        }
        for version in ("1.2", "2.3", "3.1", "4")
    }
    assert held == {"1.2": {"dt=parquet"}, "2.3": {"dt=parquet"}, "3.1": {"dt=parquet"}, "4": set()}
