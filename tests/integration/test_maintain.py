"""Maintenance, for every format: many small files per partition compact to one with the same
rows (read by pyiceberg / delta-rs as multisets), expiry keeps what the routing view and
validation need, orphan removal takes only old unreferenced files, and the lease keeps it away
from a running migration."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.config import Settings
from lakeshift.errors import LeaseHeld, UsageError
from lakeshift.formats import FormatServices, load_format
from lakeshift.maintain import MaintainOptions, maintain_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.route.router import switch
from lakeshift.storage import filesystem_for
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import FORMAT_CASES, read_lake

pytestmark = pytest.mark.slow
PARTITIONS, FILES = 20, 5
MIB = 1024 * 1024


def _table(client: MetastoreClient, root: Path) -> HiveTableBuilder:
    hive = HiveTableBuilder(
        client, root, "maintain_cases", unique_name("t"), [("id", "bigint"), ("v", "string")]
    )
    for p in range(PARTITIONS):
        files = {}
        for f in range(FILES):
            ids = [p * 100 + f * 2, p * 100 + f * 2 + 1]
            files[f"00000{f}_0"] = pa.table(
                {"id": pa.array(ids, pa.int64()), "v": [f"v{i}" for i in ids]}
            )
        hive.add_partition([f"{p:02d}"], files)
    return hive


def _lake_rows(client: MetastoreClient, table: str) -> Counter[tuple[Any, ...]]:
    lake = read_lake(client, table)
    columns = ("id", "v", "dt", "uuid", "partitionpath")
    return Counter(zip(*(lake.column(c).to_pylist() for c in columns)))


def _view_rows(spark: Any, view: str) -> Counter[tuple[Any, ...]]:
    spark.sql(f"REFRESH TABLE {view}")
    return Counter(tuple(r) for r in spark.table(view).select("id", "v", "dt").collect())


def _assert_clustering_planned(fmt: Any, target: str, version: int) -> None:
    """The clustering's requested instant holds Hudi's plan: one input group per new file
    group, whose slices are exactly the file groups the replacecommit replaced; version 8
    names the pending instant ``clustering`` as Hudi 1.0 does."""
    from lakeshift.formats.hudi.timeline import REPLACE, REQUESTED, Instant

    timeline = fmt._timeline(target)
    [clustered] = [
        i
        for i in timeline.completed({REPLACE})
        if timeline.metadata(i)["operationType"] == "CLUSTER"
    ]
    action = "clustering" if version == 8 else REPLACE
    plan = timeline.metadata(Instant(clustered.time, action, REQUESTED))
    assert plan["operationType"] == "CLUSTER"
    groups = plan["clusteringPlan"]["inputGroups"]
    planned = {(s["partitionPath"], s["fileId"]) for g in groups for s in g["slices"]}
    replaced = timeline.metadata(clustered)["partitionToReplaceFileIds"]
    assert planned == {(p, f) for p, ids in replaced.items() for f in ids}
    assert len(groups) == sum(
        len(v) for v in timeline.metadata(clustered)["partitionToWriteStats"].values()
    )


def _fragment_iceberg(spark: Any, target: str) -> None:
    """Rewrite the same rows as several small files per partition (as many small appends by
    the writers that moved to the lake table would leave them)."""
    spark.sql(f"ALTER TABLE {target} SET TBLPROPERTIES ('write.distribution-mode'='none')")
    frame = spark.table(target)
    frame.repartition(FILES).sortWithinPartitions("dt").writeTo(target).overwritePartitions()


@pytest.mark.parametrize(("fmt", "hudi_version"), FORMAT_CASES)
def test_compact_expire_orphans_keep_rows_and_the_view(
    fmt: str,
    hudi_version: int,
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    settings = replace(settings, home=tmp_path, hudi_table_version=hudi_version)
    journal = Journal(tmp_path / "journal.sqlite")
    services = FormatServices(spark, client, settings)
    hive = _table(client, tables_root)
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_{fmt}"
    view = f"{source}_routed"
    # Delta, Hudi: backfill files of ~2 rows (5 per partition); Iceberg sizes files by bytes
    # written, checked every thousand rows, so its small files come from a rewrite below.
    written = replace(settings, target_file_bytes=300) if fmt != "iceberg" else settings
    migrate(spark, client, None, written, journal, source, MigrateOptions(target, format=fmt))
    assert validate_table(spark, client, None, settings, journal, source, target).ok
    switch(services, settings, journal, source, target, partitions=None, all_validated=True)
    if fmt == "iceberg":
        _fragment_iceberg(spark, target)
    rows, seen = _lake_rows(client, target), _view_rows(spark, view)
    assert sum(rows.values()) == PARTITIONS * FILES * 2

    # Nothing asked, bad margins: usage errors before anything runs.
    with pytest.raises(UsageError, match="say what to do"):
        maintain_table(services, journal, source, MaintainOptions())
    with pytest.raises(UsageError, match="at least 1 hour"):
        maintain_table(services, journal, source, MaintainOptions(orphan_hours=0))

    # Dry run: every partition is a candidate, nothing changes.
    plan = maintain_table(
        services, journal, source, MaintainOptions(compact=True, target_file_size=MIB, dry_run=True)
    )
    assert len(plan.before.partitions) == PARTITIONS and plan.after is None
    assert all(p.files >= 2 for p in plan.before.partitions), plan.before.partitions[:3]
    assert len(plan.compacted) == PARTITIONS
    assert _lake_rows(client, target) == rows

    # A migration holds the lease (another process): refused, exit 8.
    with sqlite3.connect(tmp_path / "journal.sqlite") as db:
        db.execute(
            "INSERT INTO leases VALUES (?,?,?,?,?,?)",
            (source, "lakeshift migrate x", "other-host", 1, time.time(), time.time()),
        )
    with pytest.raises(LeaseHeld) as held:
        maintain_table(services, journal, source, MaintainOptions(compact=True))
    assert held.value.exit_code == 8
    with sqlite3.connect(tmp_path / "journal.sqlite") as db:
        db.execute("DELETE FROM leases WHERE source = ?", (source,))

    # Compaction (from the CLI, with its JSON and report): one file per partition, same rows.
    result = CliRunner().invoke(
        cli,
        [
            *("--home", str(tmp_path), "--metastore-uri", client.uri, "--output", "json"),
            *("maintain", source, "--compact", "--target-file-size", str(MIB)),
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    after = document["after"]
    assert len(document["compacted"]) == PARTITIONS and Path(document["report"]).exists()
    assert [p["files"] for p in after["partitions"]] == [1] * PARTITIONS
    assert after["rows"] == PARTITIONS * FILES * 2
    assert after["versions"] > document["before"]["versions"]
    if fmt == "hudi":
        _assert_clustering_planned(load_format(fmt, services), target, hudi_version)
    assert _lake_rows(client, target) == rows
    assert _view_rows(spark, view) == seen

    # Expiry keeps the current snapshot: the view and a validation read the same rows.
    expired = maintain_table(services, journal, source, MaintainOptions(expire_days=0))
    assert expired.after is not None and expired.expired
    # Files only older versions referenced (the small files; Hudi: the file groups the
    # clustering replaced, and the routing view's link directories to them).
    assert expired.after.versions < expired.before.versions
    if fmt == "hudi":
        assert any("/.hoodie/.lakeshift/route/" in p for p in expired.expired)
        small = sum(p.files for p in plan.before.partitions)  # what clustering replaced
        assert sum(p.endswith(".parquet") for p in expired.expired) == small
    assert _lake_rows(client, target) == rows and _view_rows(spark, view) == seen
    assert validate_table(spark, client, None, settings, journal, source, target).ok

    # Orphans: an unreferenced file older than the margin goes, a young one stays.
    root = Path(filesystem_for(str(load_format(fmt, services).location(target)))[1])
    data_dir = root / "data" if fmt == "iceberg" else root
    old, young = data_dir / "orphan-old.parquet", data_dir / "orphan-young.parquet"
    for path in (old, young):
        pq.write_table(pa.table({"x": [1]}), path)
    two_days_ago = time.time() - 2 * 86_400
    os.utime(old, (two_days_ago, two_days_ago))
    cleaned = maintain_table(services, journal, source, MaintainOptions(orphan_hours=24))
    assert [Path(filesystem_for(p)[1]).name for p in cleaned.orphans] == [old.name]
    assert not old.exists() and young.exists()
    assert _lake_rows(client, target) == rows and _view_rows(spark, view) == seen
    young.unlink()
