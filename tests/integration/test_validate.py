"""Tampering with one partition of a migrated table makes exactly that partition fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import VALIDATED, Journal
from lakeshift.testing import assert_partition_equal, assert_table_migrated
from lakeshift.validate.model import EQUAL, EXTRA, MISMATCH, MISSING, STALE
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name

TAMPERING = {
    "dt=0": "DELETE FROM {t} WHERE dt = '0' AND id = 3",
    "dt=1": "UPDATE {t} SET v = 'changed' WHERE dt = '1' AND id = 104",
    "dt=2": "INSERT INTO {t} SELECT * FROM {t} WHERE dt = '2' AND id = 205",
    "dt=3": "UPDATE {t} SET v = NULL WHERE dt = '3' AND id = 306",
    "dt=4": (
        "UPDATE {t} SET v = CASE id WHEN 401 THEN 'v2' WHEN 402 THEN 'v1' END "
        "WHERE dt = '4' AND id IN (401, 402)"
    ),
}


@pytest.fixture(scope="module")
def migrated(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> tuple[str, str, HiveTableBuilder]:
    b = HiveTableBuilder(
        client,
        tables_root,
        "validate_cases",
        unique_name("t"),
        [("id", "bigint"), ("v", "string"), ("m", "map<string,int>")],
    )
    for p in range(7):
        ids = list(range(p * 100, p * 100 + 50))
        b.add_partition(
            [str(p)],
            {
                "000000_0": pa.table(
                    {
                        "id": pa.array(ids, pa.int64()),
                        "v": [f"v{i % 3}" for i in ids],
                        "m": pa.array(
                            [[("a", i), ("b", -i)] for i in ids], pa.map_(pa.string(), pa.int32())
                        ),
                    }
                )
            },
        )
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    journal = Journal(lakeshift_home / "journal.sqlite")
    migrate(
        spark,
        client,
        HiveCatalog("t", uri=metastore_uri),
        settings,
        journal,
        source,
        MigrateOptions(target=target),
    )
    return source, target, b


def _validate(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    lakeshift_home: Path,
    source: str,
    target: str,
    level: str = "checksum",
) -> Any:
    return validate_table(
        spark,
        client,
        HiveCatalog("t", uri=metastore_uri),
        settings,
        Journal(lakeshift_home / "journal.sqlite"),
        source,
        target,
        level=level,
    )


def test_untouched_migration_validates_clean_at_every_level(
    migrated: tuple[str, str, HiveTableBuilder],
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    lakeshift_home: Path,
) -> None:
    source, target, _ = migrated
    for level in ("count", "checksum"):
        report = _validate(
            spark, client, settings, metastore_uri, lakeshift_home, source, target, level
        )
        assert report.ok and report.count(EQUAL) == 7, report
    statuses = Journal(lakeshift_home / "journal.sqlite").partitions(source)
    assert {r.status for r in statuses.values()} == {VALIDATED}
    assert_table_migrated(spark, source, target)
    assert_partition_equal(spark, source, target, "dt=0")


def test_each_tampering_fails_exactly_its_partition(
    migrated: tuple[str, str, HiveTableBuilder],
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    lakeshift_home: Path,
) -> None:
    source, target, _ = migrated
    for statement in TAMPERING.values():
        spark.sql(statement.format(t=target))
    report = _validate(
        spark, client, settings, metastore_uri, lakeshift_home, source, target, "deep"
    )
    statuses = {p.partition: p.status for p in report.partitions}
    assert statuses == {**{f"dt={i}": MISMATCH for i in range(5)}, "dt=5": EQUAL, "dt=6": EQUAL}
    by_name = {p.partition: p for p in report.partitions}
    assert "row count differs: source 50, target 49" in by_name["dt=0"].detail
    assert "different row contents" in by_name["dt=4"].detail  # swap keeps count and values
    assert "different row contents" in by_name["dt=3"].detail
    changed = by_name["dt=1"].diff
    assert changed is not None
    assert [r["v"] for r in changed.only_in_target] == ["changed"]
    assert [r["id"] for r in changed.only_in_source] == [104]
    duplicated = by_name["dt=2"].diff
    assert duplicated is not None and [r["id"] for r in duplicated.only_in_target] == [205]
    assert duplicated.only_in_source == []
    with pytest.raises(AssertionError, match=r"only in target: .*'changed'"):
        assert_partition_equal(spark, source, target, "dt=1")
    with pytest.raises(AssertionError, match="5 partition"):
        assert_table_migrated(spark, source, target)


def test_stale_missing_and_extra_partitions(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    b = HiveTableBuilder(
        client, tables_root, "validate_cases", unique_name("t"), [("id", "bigint")]
    )
    for p in range(2):
        b.add_partition([str(p)], {"000000_0": pa.table({"id": pa.array([p], pa.int64())})})
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    journal = Journal(lakeshift_home / "journal.sqlite")
    migrate(
        spark,
        client,
        HiveCatalog("t", uri=metastore_uri),
        settings,
        journal,
        source,
        MigrateOptions(target=target),
    )
    orc.write_table(
        pa.table({"id": pa.array([7], pa.int64())}), str(b.partition_dir(["0"]) / "000000_0_copy_1")
    )
    b.add_partition(["2"], {"000000_0": pa.table({"id": pa.array([2], pa.int64())})})
    spark.sql(f"INSERT INTO {target} VALUES (9, '9', 'x', 'dt=9')")
    report = _validate(spark, client, settings, metastore_uri, lakeshift_home, source, target)
    statuses = {p.partition: p.status for p in report.partitions}
    assert statuses == {"dt=0": STALE, "dt=1": EQUAL, "dt=2": MISSING, "dt=9": EXTRA}
    assert not report.ok
