"""Delta Lake target: exact rows (checked by delta-rs and DataFusion, not by lakeshift's own
reader), stable field IDs across Hive schema changes, atomic replace, routing and cutover."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hive_metastore.ttypes import FieldSchema

from lakeshift.config import Settings
from lakeshift.errors import RefusedInput
from lakeshift.formats import FormatServices, format_of, load_format
from lakeshift.formats.delta import format as delta_format
from lakeshift.inspect import inspect_table
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.route.cutover import cutover, names_for, revert
from lakeshift.route.router import rollback, switch
from lakeshift.sample.click_log_data import LOGICAL, hive_view_rows
from lakeshift.sample.click_log_spec import partitions as sample_partitions
from lakeshift.sample.load import LoadResult
from lakeshift.testing import assert_table_migrated
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import datafusion_counts, delta_root, read_lake, row_multiset, unique_keys
from tests.helpers.source_state import source_snapshot
from tests.integration.test_route import _by_key

pytestmark = pytest.mark.slow


def _services(spark: Any, client: MetastoreClient, settings: Settings) -> FormatServices:
    return FormatServices(spark, client, settings)


def _hive_rows(value: str | None) -> list[dict[str, Any]]:
    spec = next(p for p in sample_partitions() if p.value == value)
    return [row for f in spec.files for row in hive_view_rows(spec, f)]


# make extended (make test's budget): make test takes Delta through cutover in test_erase and
# test_maintain, and the same story for Iceberg in test_route and test_migrate.
@pytest.mark.extended
def test_sample_migrates_to_delta_validates_switches_and_cuts_over(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    sample_table: LoadResult,
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "journal.sqlite")  # the shared one migrates the sample to Iceberg
    source, target = "sample.click_log", "sample.click_log_delta"
    before = source_snapshot(client, "sample", "click_log")
    result = migrate(
        spark,
        client,
        None,
        settings,
        journal,
        source,
        MigrateOptions(target=target, batch_rows=30_000, format="delta"),
    )
    assert result.ok and len(result.plan.batches) == 3 and result.plan.format == "delta"
    assert format_of(client, target) == "delta"
    assert source_snapshot(client, "sample", "click_log") == before

    # delta-rs reads every partition as Hive shows it (multisets), keys unique and non-null.
    rows = read_lake(client, target)
    assert unique_keys(rows) and rows.num_rows == sample_table.rows
    inventory = inspect_table(client, source, settings)
    by_path: dict[str, list[dict[str, Any]]] = {}
    for row in rows.to_pylist():
        by_path.setdefault(row["partitionpath"], []).append(row)
    columns = [*LOGICAL, "yyyymmdd"]
    registered = {p.name: p for p in inventory.partitions}
    for spec in sample_partitions():
        name = f"yyyymmdd={spec.value or '__HIVE_DEFAULT_PARTITION__'}"
        # Hive shows registered partitions only, and nothing of one whose directory is gone.
        shown = name in registered and registered[name].rows > 0
        expected = row_multiset(_hive_rows(spec.value) if shown else [], columns)
        assert row_multiset(by_path.get(name, []), columns) == expected, name
    # Right-sized output: one file per (small) partition, however many source files it had.
    from lakeshift.formats.delta.log import current_files
    from lakeshift.storage import Store

    files = current_files(Store(delta_root(client, target)))
    per_partition = Counter(f.partition_values["yyyymmdd"] for f in files)
    assert set(per_partition.values()) == {1} and len(per_partition) == 28
    # DataFusion, a second engine over the same log, counts the same rows per partition.
    assert datafusion_counts(client, target) == {
        p.name: p.rows for p in inventory.partitions if p.rows
    }

    # Count validation from the log's stats, checksums from exactly the current files.
    for level in ("count", "checksum"):
        report = validate_table(spark, client, None, settings, journal, source, target, level=level)
        assert report.ok, [p for p in report.partitions if not p.ok][:3]
    assert_table_migrated(spark, source, target)

    # Routing: the view reads switched partitions through the Parquet routing table.
    services = _services(spark, client, settings)
    view = "sample.click_log_delta_routed"
    first = switch(
        services,
        settings,
        journal,
        source,
        target,
        partitions=PartitionFilter.parse("yyyymmdd=20220401,NULL"),
        all_validated=False,
        view=view,
    )
    assert set(first.switched) == {"yyyymmdd=20220401", "yyyymmdd=__HIVE_DEFAULT_PARTITION__"}
    _check_view(spark, services, inventory, target, view, set(first.switched))
    back = rollback(
        services,
        settings,
        journal,
        source,
        target,
        partitions=PartitionFilter.parse("NULL"),
        view=view,
    )
    assert back.switched == ["yyyymmdd=20220401"]
    _check_view(spark, services, inventory, target, view, set(back.switched))
    every = switch(
        services, settings, journal, source, target, partitions=None, all_validated=True, view=view
    )
    assert len(every.switched) == len(inventory.partitions)

    names = names_for(journal, source, target, "sample.click_log_delta_legacy", view)
    cutover(services, settings, journal, names)
    try:
        assert format_of(client, source) == "delta"
        assert format_of(client, names.legacy) == "hive"
        entry = client.get_table("sample", "click_log")
        assert entry.parameters["spark.sql.sources.provider"] == "delta"
        assert entry.sd.serdeInfo.parameters["path"].rstrip("/").endswith("click_log_delta")
        spark.sql(f"REFRESH TABLE {view}")
        assert spark.table(view).count() == sample_table.rows
    finally:
        revert(services, settings, journal, names)
    assert format_of(client, source) == "hive" and format_of(client, target) == "delta"
    assert source_snapshot(client, "sample", "click_log") == before


def _check_view(
    spark: Any,
    services: FormatServices,
    inventory: Any,
    target: str,
    view: str,
    switched: set[str],
) -> None:
    """Switched partitions equal the Delta table's current rows; the rest are Spark's own
    read of the Hive table (see the routing notes on why not the faithful reader)."""
    from pyspark.sql import functions as F

    spark.sql(f"REFRESH TABLE {view}")
    actual = spark.table(view)
    casts = [F.col(f.name).cast(f.dataType).alias(f.name) for f in actual.schema.fields]
    lake = load_format("delta", services).frame(target, inventory)
    lake_rows = lake.where(F.col("partitionpath").isin(sorted(switched))).select(*casts)
    hive_rows = (
        spark.table("sample.click_log")
        .where(
            ~F.coalesce(
                F.concat(
                    F.lit("yyyymmdd="),
                    F.coalesce(F.col("yyyymmdd"), F.lit("__HIVE_DEFAULT_PARTITION__")),
                ).isin(sorted(switched)),
                F.lit(False),
            )
        )
        .select(*casts)
    )
    expected = lake_rows.unionByName(hive_rows)
    assert _by_key(actual, "yyyymmdd") == _by_key(expected, "yyyymmdd")


def _alter(client: MetastoreClient, hive: HiveTableBuilder, columns: list[tuple[str, str]]) -> None:
    """What Hive's ALTER TABLE does without CASCADE: the table's columns only."""
    table = client.get_table(hive.db, hive.name)
    table.sd.cols = [FieldSchema(n, t, None) for n, t in columns]
    client.alter_table(hive.db, hive.name, table)
    hive.columns = columns


def _delta_schema(client: MetastoreClient, target: str) -> dict[str, Any]:
    from deltalake import DeltaTable

    fields = json.loads(DeltaTable(delta_root(client, target)).schema().to_json())["fields"]
    return {
        f["name"]: (
            f["metadata"]["delta.columnMapping.id"],
            f["metadata"]["delta.columnMapping.physicalName"],
        )
        for f in fields
    }


def test_rename_add_and_changed_partition_keep_ids_and_replace_atomically(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Hive 1.2 keeps a column renamed without CASCADE by position in old partitions; Hive 2.1+
    # shows NULL there (its files still say `v`), which validation would rightly flag.
    settings = replace(settings, hive_version="1.2")
    journal = Journal(tmp_path / "journal.sqlite")
    hive = HiveTableBuilder(
        client,
        tables_root,
        "delta_cases",
        unique_name("t"),
        [("id", "bigint"), ("v", "string"), ("s", "struct<a:int,b:string>")],
    )
    struct = pa.struct([("a", pa.int32()), ("b", pa.string())])
    for p in range(3):
        hive.add_partition(
            [str(p)],
            {
                "000000_0": pa.table(
                    {
                        "id": pa.array([p * 10, p * 10 + 1], pa.int64()),
                        "v": [f"v{p}", None],
                        "s": pa.array([{"a": p, "b": "x"}, None], struct),
                    }
                )
            },
        )
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_delta"
    before = source_snapshot(client, hive.db, hive.name)
    options = MigrateOptions(target=target, batch_rows=3, format="delta")
    first = migrate(spark, client, None, settings, journal, source, options)
    assert first.ok and len(first.backfilled) == 3
    ids = _delta_schema(client, target)
    assert source_snapshot(client, hive.db, hive.name) == before

    # A second format for the same source is refused, naming both.
    with pytest.raises(RefusedInput, match="delta"):
        migrate(
            spark,
            client,
            None,
            settings,
            journal,
            source,
            MigrateOptions(target=f"{source}_ice", format="iceberg"),
        )

    # Rename v -> label and add w (no CASCADE: old partitions keep their column list); a new
    # partition is written with the new columns.
    _alter(
        client,
        hive,
        [("id", "bigint"), ("label", "string"), ("s", hive.columns[2][1]), ("w", "int")],
    )
    hive.add_partition(
        ["3"],
        {
            "000000_0": pa.table(
                {
                    "id": pa.array([30], pa.int64()),
                    "label": ["new"],
                    "s": pa.array([{"a": 3, "b": "y"}], struct),
                    "w": pa.array([7], pa.int32()),
                }
            )
        },
    )
    second = migrate(spark, client, None, settings, journal, source, options)
    assert second.backfilled == ["dt=3"]
    evolved = _delta_schema(client, target)
    assert evolved["label"] == (ids["v"][0], "v")  # same id, same physical column in the files
    assert evolved["id"] == ids["id"] and evolved["s"] == ids["s"]
    assert evolved["w"][0] > max(i for i, _ in ids.values())
    rows = {r["id"]: r for r in read_lake(client, target).to_pylist()}
    assert rows[0]["label"] == "v0" and rows[0]["w"] is None
    assert rows[30]["label"] == "new" and rows[30]["w"] == 7 and rows[30]["s"] == {"a": 3, "b": "y"}
    assert rows[1]["s"] is None  # a NULL struct stays NULL

    # A late file in dt=1: only dt=1 is backfilled again, in one commit that removes its old
    # files; old files stay on disk but no reader sees them.
    from deltalake import DeltaTable

    version = DeltaTable(delta_root(client, target)).version()
    import pyarrow.orc as orc

    orc.write_table(
        pa.table(
            {
                "id": pa.array([99], pa.int64()),
                "label": ["late"],
                "s": pa.array([None], struct),
                "w": pa.array([None], pa.int32()),
            }
        ),
        str(hive.partition_dir(["1"]) / "000000_0_copy_1"),
    )
    third = migrate(spark, client, None, settings, journal, source, options)
    assert third.backfilled == ["dt=1"]
    assert DeltaTable(delta_root(client, target)).version() == version + 1
    lake = read_lake(client, target)
    assert sorted(lake.column("id").to_pylist()) == [0, 1, 10, 11, 20, 21, 30, 99]
    assert unique_keys(lake)
    report = validate_table(spark, client, None, settings, journal, source, target)
    assert report.ok, [p for p in report.partitions if not p.ok]

    # Both ways of giving rows their partition values read the same rows: a snapshot of few
    # partitions as literals chosen by each row's file, of many through a lookup of the file.
    fmt = load_format("delta", _services(spark, client, settings))
    few = fmt.frame(target).collect()
    monkeypatch.setattr(delta_format, "LITERAL_PARTITIONS", 0)
    many = fmt.frame(target).collect()
    assert sorted(map(str, few)) == sorted(map(str, many)) and len(few) == 8
    assert Counter(r["dt"] for r in many) == {"0": 2, "1": 3, "2": 2, "3": 1}


def test_files_of_paths_spark_escapes_get_their_partition_values(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Delta table under a directory whose name Spark reports escaped (a space, a letter
    outside ASCII; a plus and an equals sign beside them), holding lakeshift's files and
    another writer's of odd partition values: every row reads with its own partition values
    from the log, both ways ``frame`` gives rows their values."""
    from deltalake import DeltaTable, write_deltalake

    from lakeshift.metastore import ddl

    db = unique_name("odd_location")
    ddl.ensure_database(client, db, ddl.location_uri(tmp_path / "a b+\u00fc=c"))
    hive = _tiny(client, tmp_path / "source", [("id", "int")], db=db)
    source = f"{hive.db}.{hive.name}"
    target = f"{source}_delta"
    journal = Journal(tmp_path / "journal.sqlite")
    options = MigrateOptions(target=target, format="delta")
    assert migrate(spark, client, None, settings, journal, source, options).ok
    root = delta_root(client, target)
    assert "a b+\u00fc=c" in root
    schema = pa.schema(DeltaTable(root).schema().to_arrow())
    odd = ["a b", "x%20y", "p+q", "\u00fc", "1"]
    for index, value in enumerate(odd):
        rows = {"id": [100 + index], "dt": [value], "uuid": [f"u{index}"], "partitionpath": ["x"]}
        write_deltalake(root, pa.table(rows).cast(schema), mode="append")
    fmt = load_format("delta", _services(spark, client, settings))
    few = sorted((r["id"], r["dt"]) for r in fmt.frame(target).collect())
    monkeypatch.setattr(delta_format, "LITERAL_PARTITIONS", 0)
    many = sorted((r["id"], r["dt"]) for r in fmt.frame(target).collect())
    expected = [(p, str(p % 10)) for p in (0, 1, 2, 10, 11, 12)]
    expected += [(100 + i, v) for i, v in enumerate(odd)]
    assert few == many == sorted(expected)
    journal.close()


def _tiny(
    client: MetastoreClient, root: Path, columns: list[tuple[str, str]], db: str = "delta_cases"
) -> HiveTableBuilder:
    hive = HiveTableBuilder(client, root, db, unique_name("t"), columns)
    for p in range(3):
        hive.add_partition(
            [str(p)], {"000000_0": pa.table({"id": pa.array([p, p + 10], pa.int32())})}
        )
    return hive


def test_foreign_delta_table_at_the_location_is_refused(
    spark: Any, client: MetastoreClient, settings: Settings, tables_root: Path, tmp_path: Path
) -> None:
    from deltalake import write_deltalake

    hive = _tiny(client, tables_root, [("id", "int")])
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_delta"
    db_location = client.get_database(hive.db).locationUri
    foreign = Path("/" + db_location.partition(":")[2].lstrip("/")) / f"{hive.name}_delta"
    write_deltalake(str(foreign), pa.table({"other": [1, 2]}))
    journal = Journal(tmp_path / "journal.sqlite")
    with pytest.raises(RefusedInput, match="not created by lakeshift"):
        migrate(
            spark,
            client,
            None,
            settings,
            journal,
            source,
            MigrateOptions(target=target, format="delta"),
        )
    from deltalake import DeltaTable

    assert DeltaTable(str(foreign)).version() == 0  # untouched
    # A target name held by a Hive table (here the source itself) is refused, never written.
    with pytest.raises(RefusedInput, match="is a Hive table or view"):
        migrate(spark, client, None, settings, journal, source, MigrateOptions(target=source))
    assert pa.table(DeltaTable(str(foreign)).to_pyarrow_table()).num_rows == 2


def test_another_writer_between_batches_stops_the_run_and_a_type_change_is_refused(
    spark: Any, client: MetastoreClient, settings: Settings, tables_root: Path, tmp_path: Path
) -> None:
    from deltalake import DeltaTable

    from lakeshift.errors import LeaseHeld, SchemaMappingError

    hive = _tiny(client, tables_root, [("id", "int")])
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_delta"
    journal = Journal(tmp_path / "journal.sqlite")
    options = MigrateOptions(target=target, batch_rows=2, format="delta")

    def other_writer(done: int, total: int, note: str = "") -> None:
        if done == 1:  # after the first batch's commit, someone else commits
            table = DeltaTable(delta_root(client, target))
            table.alter.set_table_properties({"delta.appendOnly": "false"})

    with pytest.raises(LeaseHeld, match="another writer"):
        migrate(spark, client, None, settings, journal, source, options, progress=other_writer)
    # The log says whose that commit is: a re-run refuses it too, until told to accept it.
    with pytest.raises(LeaseHeld, match="another writer"):
        migrate(spark, client, None, settings, journal, source, options)
    accepting = replace(options, accept_foreign_commits=True)
    done = migrate(spark, client, None, settings, journal, source, accepting)
    assert sorted(done.backfilled) == ["dt=1", "dt=2"] and done.plan.count("unchanged") == 1
    rows = read_lake(client, target)
    assert sorted(rows.column("id").to_pylist()) == [0, 1, 2, 10, 11, 12] and unique_keys(rows)

    _alter(client, hive, [("id", "bigint")])
    with pytest.raises(SchemaMappingError, match="id"):
        migrate(spark, client, None, settings, journal, source, options)
    assert sorted(read_lake(client, target).column("id").to_pylist()) == [0, 1, 2, 10, 11, 12]
