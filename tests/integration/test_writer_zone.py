"""ORC files of writers before Hive 1.0 (HIVE-8746) name no writer time zone, and every ORC
reader takes their timestamps as written in its own JVM's zone: ORC's ``TimestampTreeReader``
counts the file's seconds from 2015-01-01 00:00 in ``TimeZone.getDefault()`` and shows the
instant's wall clock (ORC 1.3.4, 1.5.8 and 1.9 alike). A Hive in New York shows a summer value
an hour later than a reader in UTC; with ``hive_time_zone`` both of lakeshift's readers show
what that Hive shows (``make differential`` asks Hive 2.3.9 in New York itself), in every
format, and ``inspect`` names the files."""

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
from lakeshift.validate.model import EQUAL
from tests.helpers.hive_tables import HiveTableBuilder, drop_writer_zone, unique_name
from tests.helpers.lake import naive_clock, read_lake
from tests.helpers.migration import EACH_FORMAT_EXTENDED, both_levels
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow

ZONE = "America/New_York"
STAMPS = [dt.datetime(2020, 1, 15, 10, 0), dt.datetime(2020, 7, 15, 10, 0, 0, 500000),
          dt.datetime(1850, 6, 1, 10, 0), None]  # fmt: skip
#: What a Hive in New York shows for them from a file naming no writer zone: winter as
#: written (the zone's offset then is its offset at ORC's epoch), summer an hour later, and
#: 1850 as written (java.util.TimeZone gives it New York's raw -5:00, not its local mean time)
IN_NEW_YORK = [dt.datetime(2020, 1, 15, 10, 0), dt.datetime(2020, 7, 15, 11, 0, 0, 500000),
               dt.datetime(1850, 6, 1, 10, 0), None]  # fmt: skip


def build_zoneless_table(client: MetastoreClient, tables_root: Path) -> str:
    """Partition ``old``: a file naming no writer zone; ``new``: the same rows, zone named."""
    columns = [("i", "int"), ("t", "timestamp"), ("s", "struct<t:timestamp>")]
    b = HiveTableBuilder(client, tables_root, "zones", unique_name("z"), columns)
    data = pa.table({
        "i": pa.array(range(len(STAMPS)), pa.int32()),
        "t": pa.array(STAMPS, pa.timestamp("us")),
        "s": pa.array([{"t": v} for v in STAMPS], pa.struct([("t", pa.timestamp("us"))])),
    })  # fmt: skip
    drop_writer_zone(b.add_partition(["old"], {"000000_0": data}) / "000000_0")
    b.add_partition(["new"], {"000000_0": data})
    return f"{b.db}.{b.name}"


def expected_rows(zone: str) -> dict[tuple[str, int], Any]:
    old = IN_NEW_YORK if zone == ZONE else STAMPS
    return {**{("old", i): v for i, v in enumerate(old)},
            **{("new", i): v for i, v in enumerate(STAMPS)}}  # fmt: skip


def test_files_naming_no_writer_zone_read_in_hives_zone(
    client: MetastoreClient, tables_root: Path, settings: Settings, spark: Any
) -> None:
    table = build_zoneless_table(client, tables_root)
    inventory = inspect_table(client, table, settings)
    codes = {p.name: {a.code for a in p.anomalies} for p in inventory.partitions}
    assert "writer-zone-missing" in codes["dt=old"] and "writer-zone-missing" not in codes["dt=new"]
    for zone in (ZONE, "UTC"):
        frames = both_readers(spark, client, table, replace(settings, hive_time_zone=zone))
        for reader, frame in frames.items():
            rows = {(r["dt"], r["i"]): (r["t"], r["s"] and r["s"]["t"]) for r in frame.collect()}
            assert rows == {k: (v, v) for k, v in expected_rows(zone).items()}, (zone, reader)


@EACH_FORMAT_EXTENDED
def test_files_naming_no_writer_zone_migrate_and_validate_as_hive_shows(
    fmt: str,
    client: MetastoreClient,
    tables_root: Path,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    source = build_zoneless_table(client, tables_root)
    target = f"{source}_{fmt}"
    chosen = replace(settings, hive_time_zone=ZONE)
    journal = lakeshift_home / f"zones-{fmt}.sqlite"
    result, reports = both_levels(spark, client, chosen, journal, source, target, fmt)
    assert result.ok and sorted(result.backfilled) == ["dt=new", "dt=old"], result.failed
    for level, report in reports.items():
        assert {p.partition: p.status for p in report.partitions} == {
            "dt=old": EQUAL, "dt=new": EQUAL}, level  # fmt: skip
    rows = {(r["dt"], r["i"]): naive_clock(r["t"]) for r in read_lake(client, target).to_pylist()}
    assert rows == expected_rows(ZONE)


def test_the_arrow_path_leaves_such_files_to_the_spark_path(
    client: MetastoreClient, tables_root: Path, settings: Settings
) -> None:
    """pyarrow reads them in the host's zone, Hive in its own: no Arrow write path for them."""
    from lakeshift.formats.arrow_path import arrow_plan
    from lakeshift.formats.iceberg import iceberg_hive_type
    from lakeshift.schema_map.mapping import build_mapping

    b = HiveTableBuilder(client, tables_root, "zones", unique_name("a"),
                         [("i", "int"), ("t", "timestamp")])  # fmt: skip
    data = pa.table(
        {"i": pa.array([0, 1], pa.int32()), "t": pa.array(STAMPS[:2], pa.timestamp("us"))}
    )
    drop_writer_zone(b.add_partition(["old"], {"000000_0": data}) / "000000_0")
    b.add_partition(["new"], {"000000_0": data})
    chosen = replace(settings, hive_time_zone=ZONE)
    inventory = inspect_table(client, f"{b.db}.{b.name}", chosen)
    mapping = build_mapping(inventory, None, chosen.hive)
    plan, why = arrow_plan(inventory, mapping, ["dt=old"], iceberg_hive_type, "uuid")
    assert plan is None and "naming no writer time zone" in why
    plan, why = arrow_plan(inventory, mapping, ["dt=new"], iceberg_hive_type, "uuid")
    assert plan is not None, why
