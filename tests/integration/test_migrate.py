"""Migration into Iceberg: exact rows per partition, resumable, idempotent, source untouched."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.errors import LeaseHeld, RefusedInput
from lakeshift.formats.iceberg import iceberg_hive_type
from lakeshift.formats.iceberg_schema import stored_mapping
from lakeshift.inspect import inspect_table
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.sample.load import LoadResult
from lakeshift.validate.canonical import Fingerprint
from lakeshift.validate.fingerprints import combined, source_fingerprints, target_fingerprints
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.source_state import source_snapshot


@pytest.fixture(scope="module")
def catalog(metastore_uri: str) -> HiveCatalog:
    return HiveCatalog("lakeshift", uri=metastore_uri)


@pytest.fixture(scope="module")
def journal(lakeshift_home: Path) -> Journal:
    return Journal(lakeshift_home / "journal.sqlite")


def assert_target_equals_source(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    source: str,
    target: str,
) -> None:
    inventory = inspect_table(client, source, settings)
    mapping = stored_mapping(catalog.load_table(target))
    assert mapping is not None
    names = [p.name for p in inventory.partitions]
    expected = source_fingerprints(spark, inventory, mapping, names, iceberg_hive_type)
    spark.sql(f"REFRESH TABLE {target}")
    assert target_fingerprints(spark.table(target), inventory) == expected


def test_sample_migrates_exactly(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    sample_table: LoadResult,
) -> None:
    before = source_snapshot(client, "sample", "click_log")
    target = "sample.click_log_lake"
    result = migrate(
        spark,
        client,
        catalog,
        settings,
        journal,
        "sample.click_log",
        MigrateOptions(target=target, batch_rows=30_000),
    )
    assert result.ok and len(result.plan.batches) == 3
    assert source_snapshot(client, "sample", "click_log") == before

    inventory = inspect_table(client, "sample.click_log", settings)
    rows = catalog.load_table(target).scan().to_arrow()
    counts: dict[str, int] = {}
    for path in rows.column("partitionpath").to_pylist():
        counts[path] = counts.get(path, 0) + 1
    assert counts == {p.name: p.rows for p in inventory.partitions if p.rows}
    keys = rows.column("uuid").to_pylist()
    assert None not in keys and len(set(keys)) == len(keys) == sample_table.rows
    nulls = rows.filter(
        pa.compute.equal(rows.column("partitionpath"), "yyyymmdd=__HIVE_DEFAULT_PARTITION__")
    )
    assert nulls.num_rows == 321 and set(nulls.column("yyyymmdd").to_pylist()) == {None}

    assert_target_equals_source(spark, client, settings, catalog, "sample.click_log", target)
    # Right-sized output: each (small) partition is one data file, however many source files
    # and Spark tasks it had (partitions with 2 ORC files used to give 2 Parquet files).
    files = catalog.load_table(target).inspect.files().to_pylist()
    per_partition = Counter(str(f["partition"]) for f in files)
    assert set(per_partition.values()) == {1}
    records = journal.partitions("sample.click_log")
    expected = target_fingerprints(spark.table(target), inventory)
    batch_ids = {r.checksum["batch"] for r in records.values() if r.checksum}
    assert len(batch_ids) == 3
    for batch_id in batch_ids:
        batch = journal.batch(batch_id)
        assert batch is not None
        observed = Fingerprint.from_json(batch["checksum"])
        assert observed == combined([expected[n] for n in batch["partitions"]])


def _small_table(client: MetastoreClient, root: Path, partitions: int = 6) -> HiveTableBuilder:
    b = HiveTableBuilder(
        client, root, "migrate_cases", unique_name("t"), [("id", "bigint"), ("v", "string")]
    )
    for p in range(partitions):
        rows = pa.table(
            {
                "id": pa.array(range(p * 100, p * 100 + 100), pa.int64()),
                "v": [f"v{i % 7}" for i in range(100)],
            }
        )
        b.add_partition([str(p)], {"000000_0": rows})
    return b


def test_rerun_skips_and_changed_partition_is_replaced(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
) -> None:
    b = _small_table(client, tables_root)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    options = MigrateOptions(target=target, batch_rows=250)
    first = migrate(spark, client, catalog, settings, journal, source, options)
    assert len(first.backfilled) == 6 and len(first.plan.batches) == 3
    again = migrate(spark, client, catalog, settings, journal, source, options)
    assert again.backfilled == [] and again.plan.count("unchanged") == 6

    # A late file lands in dt=2 and dt=4 loses its data: only those two are redone.
    extra = pa.table({"id": pa.array([9999, 9999], pa.int64()), "v": ["late", "late"]})
    import pyarrow.orc as orc

    orc.write_table(extra, str(b.partition_dir(["2"]) / "000000_0_copy_1"))
    (b.partition_dir(["4"]) / "000000_0").unlink()
    third = migrate(spark, client, catalog, settings, journal, source, options)
    assert sorted(third.backfilled) == ["dt=2", "dt=4"]
    assert_target_equals_source(spark, client, settings, catalog, source, target)
    inventory = inspect_table(client, source, settings)
    counts = target_fingerprints(spark.table(target), inventory)
    assert counts["dt=2"].rows == 102 and counts["dt=4"].rows == 0


def test_partition_filter_migrates_only_those(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
) -> None:
    b = _small_table(client, tables_root, partitions=4)
    options = MigrateOptions(
        target=f"{b.db}.{b.name}_ice", partitions=PartitionFilter.parse("dt=1..2")
    )
    result = migrate(spark, client, catalog, settings, journal, f"{b.db}.{b.name}", options)
    assert sorted(result.backfilled) == ["dt=1", "dt=2"]


def test_foreign_target_is_refused_unless_adopted(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
) -> None:
    b = _small_table(client, tables_root, partitions=1)
    target = f"{b.db}.{b.name}_foreign"
    spark.sql(f"CREATE TABLE {target} (x INT) USING iceberg")
    with pytest.raises(RefusedInput, match="not created by lakeshift"):
        migrate(
            spark,
            client,
            catalog,
            settings,
            journal,
            f"{b.db}.{b.name}",
            MigrateOptions(target=target),
        )


def test_live_lease_holder_is_refused(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
    embedded_metastore: Any,
) -> None:
    b = _small_table(client, tables_root, partitions=1)
    source = f"{b.db}.{b.name}"
    other = embedded_metastore.status().pid  # a live process that is not us
    import socket
    import time

    journal._db.execute(
        "INSERT INTO leases VALUES (?,?,?,?,?,?)",
        (source, "another migrator", socket.gethostname(), other, time.time(), time.time()),
    )
    with pytest.raises(LeaseHeld, match="another migrator"):
        migrate(
            spark,
            client,
            catalog,
            settings,
            journal,
            source,
            MigrateOptions(target=f"{source}_ice"),
        )
    result = migrate(
        spark,
        client,
        catalog,
        settings,
        journal,
        source,
        MigrateOptions(target=f"{source}_ice", break_lease=True),
    )
    assert result.backfilled == ["dt=0"]


def test_failed_spark_job_leaves_batch_uncommitted_and_others_proceed(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
) -> None:
    b = _small_table(client, tables_root, partitions=3)
    # Corrupt the data of dt=1's file but keep its footer: inspection passes, Spark's read fails.
    path = b.partition_dir(["1"]) / "000000_0"
    data = bytearray(path.read_bytes())
    data[3:200] = b"\xff" * 197
    path.write_bytes(bytes(data))
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    result = migrate(
        spark,
        client,
        catalog,
        settings,
        journal,
        source,
        MigrateOptions(target=target, batch_rows=100),
    )
    assert sorted(result.backfilled) == ["dt=0", "dt=2"]
    assert list(result.failed) == ["dt=1"] and not result.ok
    record = journal.partitions(source)["dt=1"]
    assert record.status == "failed" and record.error
    inventory = inspect_table(client, source, settings)
    counts = target_fingerprints(spark.table(target), inventory)
    assert (counts["dt=0"].rows, counts["dt=1"].rows, counts["dt=2"].rows) == (100, 0, 100)
