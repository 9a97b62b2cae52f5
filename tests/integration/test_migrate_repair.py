"""Adopting existing targets safely, failures that name their cause, repairing partitions.

Issue 13 items 1, 3 and 5: each test failed before the fix.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pytest
from click.testing import CliRunner
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.cli.main import cli
from lakeshift.config import Settings
from lakeshift.errors import EXIT_VALIDATION, ConcurrentCommit, RefusedInput, UsageError
from lakeshift.inspect import inspect_table
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.report.collect import write_table_report
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name

DB = "repair_cases"


@pytest.fixture(scope="module")
def catalog(metastore_uri: str) -> HiveCatalog:
    return HiveCatalog("lakeshift", uri=metastore_uri)


@pytest.fixture(scope="module")
def journal(lakeshift_home: Path) -> Journal:
    return Journal(lakeshift_home / "journal.sqlite")


def _rows(first: int, count: int = 100) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(range(first, first + count), pa.int64()),
            "v": [f"v{i % 7}" for i in range(count)],
        }
    )


def _table(client: MetastoreClient, root: Path, partitions: int = 3) -> HiveTableBuilder:
    b = HiveTableBuilder(client, root, DB, unique_name("t"), [("id", "bigint"), ("v", "string")])
    for p in range(partitions):
        b.add_partition([str(p)], {"000000_0": _rows(p * 100)})
    return b


def _count(spark: Any, table: str, where: str = "true") -> int:
    spark.sql(f"REFRESH TABLE {table}")
    return int(spark.sql(f"SELECT count(*) FROM {table} WHERE {where}").first()[0])


def _run(spark: Any, client: Any, catalog: Any, settings: Any, journal: Any, b: Any, **kw: Any):  # type: ignore[no-untyped-def]
    source = f"{b.db}.{b.name}"
    options = MigrateOptions(target=kw.pop("target", f"{source}_ice"), **kw)
    return migrate(spark, client, catalog, settings, journal, source, options)


# -- item 1: --adopt ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ddl", "differences"),
    [
        # an unpartitioned table: each batch's partition overwrite would replace all of it
        ("(id BIGINT, v STRING, dt STRING)", ["partitioning: target unpartitioned"]),
        # other column names: evolving it would rename its columns
        (
            "(id BIGINT, w STRING, dt STRING)",
            ["column v (string) is missing", "column w (string) is not in the source"],
        ),
        ("(id INT, v STRING, dt STRING)", ["column id: target int"]),
        ("(v STRING, id BIGINT, dt STRING)", ["column order"]),
    ],
)
def test_adopting_an_incompatible_table_is_refused_and_its_rows_kept(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
    ddl: str,
    differences: list[str],
) -> None:
    b = _table(client, tables_root)
    target = f"{b.db}.{b.name}_theirs"
    partitioned = "" if "unpartitioned" in differences[0] else " PARTITIONED BY (dt)"
    spark.sql(f"CREATE TABLE {target} {ddl} USING iceberg{partitioned}")
    columns = [c.split()[0] for c in ddl.split(")")[0].strip("(").split(",")]
    spark.sql(
        f"INSERT INTO {target} ({', '.join(columns)}) VALUES "
        + ", ".join(f"({', '.join(_value(c, i) for c in columns)})" for i in range(50))
    )
    schema_before = catalog.load_table(target).schema()
    with pytest.raises(RefusedInput) as refused:
        _run(spark, client, catalog, settings, journal, b, target=target, adopt=True)
    for difference in differences:
        assert difference in refused.value.message
    assert _count(spark, target) == 50
    assert catalog.load_table(target).schema() == schema_before


def _value(column: str, i: int) -> str:
    return str(i) if column == "id" else f"'{column}{i % 3}'"


def test_adopting_a_table_that_holds_rows_where_lakeshift_writes_is_refused(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
) -> None:
    b = _table(client, tables_root)
    target = f"{b.db}.{b.name}_theirs"
    spark.sql(
        f"CREATE TABLE {target} (id BIGINT, v STRING, dt STRING) USING iceberg PARTITIONED BY (dt)"
    )
    spark.sql(f"INSERT INTO {target} VALUES (1, 'a', '1'), (2, 'b', '1')")
    with pytest.raises(RefusedInput, match=r"dt=1 \(2 rows\)"):
        _run(spark, client, catalog, settings, journal, b, target=target, adopt=True)
    assert _count(spark, target) == 2
    # Leaving that partition out is allowed: the others are empty in the target.
    result = _run(
        spark,
        client,
        catalog,
        settings,
        journal,
        b,
        target=target,
        adopt=True,
        partitions=PartitionFilter.parse("dt=0,dt=2"),
    )
    assert sorted(result.backfilled) == ["dt=0", "dt=2"]
    assert _count(spark, target, "dt = '1'") == 2


def test_adopted_compatible_table_keeps_its_other_rows_and_validates(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
) -> None:
    b = _table(client, tables_root)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_theirs"
    spark.sql(
        f"CREATE TABLE {target} (id BIGINT, v STRING, dt STRING) USING iceberg PARTITIONED BY (dt)"
    )
    spark.sql(f"INSERT INTO {target} VALUES (7, 'kept', '99')")
    result = _run(
        spark, client, catalog, settings, journal, b, target=target, adopt=True, batch_rows=100
    )
    assert result.ok and sorted(result.backfilled) == ["dt=0", "dt=1", "dt=2"]
    assert len(result.plan.batches) == 3  # three partition overwrites, no row of dt=99 lost
    assert _count(spark, target) == 301
    assert _count(spark, target, "dt = '99' AND v = 'kept'") == 1
    report = validate_table(spark, client, catalog, settings, journal, source, target)
    statuses = {p.partition: p.status for p in report.partitions}
    assert statuses == {"dt=0": "equal", "dt=1": "equal", "dt=2": "equal", "dt=99": "extra"}


# -- item 3: the cause of a failed batch ---------------------------------------------------


def _corrupt(path: Path) -> None:
    """Damage the data of an ORC file but keep its footer: inspection passes, reading fails."""
    data = bytearray(path.read_bytes())
    data[3:200] = b"\xff" * 197
    path.write_bytes(bytes(data))


def test_unreadable_file_fails_only_its_partition_and_names_the_cause(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    b = _table(client, tables_root, partitions=4)
    bad = b.partition_dir(["1"]) / "000000_0"
    _corrupt(bad)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    # One batch holds all four partitions: the three healthy ones still commit.
    result = _run(spark, client, catalog, settings, journal, b, batch_rows=10_000)
    assert len(result.plan.batches) == 1
    assert sorted(result.backfilled) == ["dt=0", "dt=2", "dt=3"]
    assert list(result.failed) == ["dt=1"]
    cause = result.failed["dt=1"]
    assert str(bad) in cause and "Py4JJavaError" not in cause
    assert "overwritePartitions" not in cause
    assert result.to_json()["failed"]["dt=1"] == cause
    assert journal.partitions(source)["dt=1"].error == cause
    assert _count(spark, target) == 300
    inventory = inspect_table(client, source, settings)
    page = write_table_report(lakeshift_home, inventory, journal).read_text()
    assert html.escape(cause) in page


def test_quarantine_skips_unreadable_files_and_reports_the_partition_partial(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
) -> None:
    b = _table(client, tables_root, partitions=2)
    directory = b.partition_dir(["1"])
    orc.write_table(_rows(1000), str(directory / "000001_0"))
    _corrupt(directory / "000000_0")
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    result = _run(spark, client, catalog, settings, journal, b, batch_rows=10_000, quarantine=True)
    assert sorted(result.backfilled) == ["dt=0", "dt=1"]
    assert not result.failed and not result.ok
    assert list(result.partial) == ["dt=1"]
    assert str(directory / "000000_0") in result.partial["dt=1"]
    assert _count(spark, target, "dt = '1'") == 100  # the readable file only
    assert journal.partitions(source)["dt=1"].error == result.partial["dt=1"]
    # It differs from what Hive shows, so it never validates equal (and is never switched).
    # (Count level: a checksum-level rescan of the source would read the corrupt file again.)
    report = validate_table(
        spark, client, catalog, settings, journal, source, target, level="count"
    )
    statuses = {p.partition: p.status for p in report.partitions}
    assert statuses == {"dt=0": "equal", "dt=1": "mismatch"}


# -- item 5: repair ------------------------------------------------------------------------


def test_rebackfill_invalid_repairs_what_validation_found_wrong(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
    metastore_uri: str,
    lakeshift_home: Path,
) -> None:
    b = _table(client, tables_root)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    _run(spark, client, catalog, settings, journal, b, batch_rows=100)
    spark.sql(f"DELETE FROM {target} WHERE dt = '1' AND id % 2 = 0")

    home = ["--home", str(lakeshift_home), "--metastore-uri", metastore_uri]
    checked = CliRunner().invoke(cli, [*home, "validate", source])
    assert checked.exit_code == EXIT_VALIDATION, checked.output
    assert "mismatch" in checked.output and "--rebackfill-invalid" in checked.output

    # The DELETE is another writer's commit: a re-run refuses to write on top of it (exit 8)
    # until told to take the target as it stands.
    with pytest.raises(ConcurrentCommit):
        _run(spark, client, catalog, settings, journal, b, batch_rows=100)
    again = _run(
        spark, client, catalog, settings, journal, b, batch_rows=100, accept_foreign_commits=True
    )
    assert again.backfilled == []  # a plain re-run sees nothing changed in the source
    repaired = _run(
        spark, client, catalog, settings, journal, b, batch_rows=100, rebackfill_invalid=True
    )
    assert repaired.backfilled == ["dt=1"] and repaired.ok
    assert _count(spark, target) == 300
    report = validate_table(spark, client, catalog, settings, journal, source, target)
    assert {p.status for p in report.partitions} == {"equal"}


def test_force_rebackfills_chosen_unchanged_partitions(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    journal: Journal,
    tables_root: Path,
) -> None:
    b = _table(client, tables_root)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    first = _run(spark, client, catalog, settings, journal, b, batch_rows=100)
    with pytest.raises(UsageError, match="--partitions"):
        _run(spark, client, catalog, settings, journal, b, force=True)
    forced = _run(
        spark,
        client,
        catalog,
        settings,
        journal,
        b,
        force=True,
        partitions=PartitionFilter.parse("dt=2"),
    )
    assert forced.backfilled == ["dt=2"]
    assert forced.plan.partitions[0].reason == "re-backfill forced (--force)"
    assert forced.run_id != first.run_id
    done = {n: r.run_id for n, r in _backfills(catalog, target).items()}
    assert done == {"dt=0": first.run_id, "dt=1": first.run_id, "dt=2": forced.run_id}
    assert _count(spark, target) == 300
    report = validate_table(spark, client, catalog, settings, journal, source, target)
    assert {p.status for p in report.partitions} == {"equal"}


def _backfills(catalog: HiveCatalog, target: str) -> dict[str, Any]:
    from lakeshift.formats.iceberg import backfilled_partitions

    return backfilled_partitions(catalog.load_table(target))
