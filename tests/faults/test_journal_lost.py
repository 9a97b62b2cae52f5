"""The state directory's journal deleted between runs: the next run rebuilds what was
backfilled from the target's own commit metadata and migrates nothing twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.formats import FormatServices, require_target
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table
from tests.faults._tables import assert_exact, small_table

pytestmark = pytest.mark.slow


def _delete(journal: Journal) -> None:
    journal.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{journal.path}{suffix}").unlink(missing_ok=True)


@pytest.mark.parametrize(
    "fmt",  # make test: Iceberg; make faults: Delta and Hudi too
    ["iceberg", *(pytest.param(f, marks=pytest.mark.faults) for f in ("delta", "hudi"))],
)
def test_deleted_journal_is_rebuilt_from_the_target_and_nothing_is_migrated_twice(
    fmt: str,
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    b, expected = small_table(client, tables_root, "lost")
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    catalog = HiveCatalog("t", uri=metastore_uri)
    journal = Journal(tmp_path / "journal.sqlite")
    first = migrate(
        spark,
        client,
        catalog,
        settings,
        journal,
        source,
        MigrateOptions(target=target, format=fmt, partitions=PartitionFilter.parse("dt=0,dt=1")),
    )
    assert first.backfilled == ["dt=0", "dt=1"]
    services = FormatServices(spark, client, settings, catalog)
    commits = require_target(services, target, source).backfilled(target)
    _delete(journal)

    journal = Journal(tmp_path / "journal.sqlite")
    try:
        second = migrate(
            spark, client, catalog, settings, journal, source, MigrateOptions(target=target)
        )
        assert second.ok and second.backfilled == ["dt=2", "dt=3"]
        after = require_target(services, target, source).backfilled(target)
        # The first run's partitions keep the commit that wrote them: nothing was rewritten.
        assert {n: after[n] for n in commits} == commits
        # The rebuilt journal knows every partition, from the first run's commits too.
        recorded = journal.partitions(source)
        assert {n: r.status for n, r in recorded.items()} == {
            f"dt={p}": "backfilled" for p in range(4)
        }
        assert {n: recorded[n].run_id for n in commits} == {n: c.run_id for n, c in commits.items()}
        report = validate_table(spark, client, catalog, settings, journal, source, target)
        assert report.ok, report.differences
    finally:
        journal.close()
    assert_exact(client, target, expected)
