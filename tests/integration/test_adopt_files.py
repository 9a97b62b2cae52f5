"""``adopt_files``: the source's own ORC files held by Iceberg where proven, the rest copied.

One table whose partitions span what Iceberg can hold as they are and what it cannot (letter
case, a string read as a number, a zero-byte file, a text partition, char padding): each is
adopted and proven at both levels, or copied with its reason, and the table reads exactly
Hive's rows through pyiceberg and Spark; the source's files stay byte-identical, and a re-run
registers nothing twice.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.errors import RefusedInput
from lakeshift.hive.reader import read_partitions
from lakeshift.inspect import inspect_table
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, MigrateResult, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.validate.model import EQUAL
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, drop_writer_zone, unique_name, write_orc
from tests.helpers.source_state import source_snapshot

COLUMNS = [("rid", "bigint"), ("name", "string"), ("amount", "bigint"), ("ts", "timestamp")]


@pytest.fixture(scope="module")
def catalog(metastore_uri: str) -> HiveCatalog:
    return HiveCatalog("lakeshift", uri=metastore_uri)


def _rows(start: int, n: int, amount: pa.DataType | None = None, **names: str) -> pa.Table:
    base = dt.datetime(2024, 3, 1, 12, 30)
    columns = {
        "rid": pa.array(range(start, start + n), pa.int64()),
        "name": pa.array([f"n{i}" if i % 5 else None for i in range(start, start + n)]),
        "amount": pa.array([i * 7 for i in range(start, start + n)]).cast(amount or pa.int64()),
        "ts": pa.array([base + dt.timedelta(seconds=i) for i in range(n)], pa.timestamp("us")),
    }
    return pa.table({names.get(k, k): v for k, v in columns.items()})


def _build(client: MetastoreClient, root: Path) -> HiveTableBuilder:
    hive = HiveTableBuilder(client, root, "adoption", unique_name("mixed"), COLUMNS)
    hive.add_partition(["exact"], {"000000_0": _rows(0, 40), "000001_0": _rows(40, 25)})
    hive.add_partition(["widened"], {"000000_0": _rows(100, 30, pa.int32())})
    positional = {f"_col{i}": n for i, (n, _) in enumerate(COLUMNS)}
    hive.add_partition(["positional"], {"000000_0": _rows(200, 20, **positional)})
    hive.add_partition(["subdir"], {"HIVE_UNION_SUBDIR_1/000000_0": _rows(300, 15)})
    hive.add_partition(["upper"], {"000000_0": _rows(400, 10, name="Name")})
    as_text = _rows(500, 10)
    as_text = as_text.set_column(2, "amount", as_text.column("amount").cast(pa.string()))
    hive.add_partition(["as-string"], {"000000_0": as_text})
    hive.add_partition(["zero-byte"], {"000000_0": _rows(600, 10), "000001_0": b""})
    # An ORC file of a writer before Hive 1.0, naming no writer time zone: Hive reads its
    # timestamps in its own JVM's zone.
    drop_writer_zone(hive.add_partition(["zoneless"], {"000000_0": _rows(800, 10)}) / "000000_0")
    text = "".join(f"{i}\x01t{i}\x01{i}\x012024-03-01 00:00:00\n" for i in range(700, 705))
    hive.add_partition(["text"], {"000000_0": text.encode()}, fmt="text")
    return hive


def _migrate(
    spark: Any, client: MetastoreClient, catalog: HiveCatalog, settings: Settings,
    journal: Journal, source: str, target: str, mode: str = "auto",
) -> MigrateResult:  # fmt: skip
    return migrate(
        spark, client, catalog, settings, journal, source,
        MigrateOptions(target=target, adopt_files=mode),
    )  # fmt: skip


def _hive_rows(spark: Any, client: MetastoreClient, settings: Settings, source: str) -> list[Any]:
    inventory = inspect_table(client, source, settings)
    frame = read_partitions(spark, inventory, build_mapping(inventory, None, settings.hive))
    return sorted(tuple(r) for r in frame.select("rid", "name", "amount", "ts", "dt").collect())


def test_adopts_what_reads_the_same_and_copies_the_rest(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    hive = _build(client, tables_root)
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_lake"
    before = source_snapshot(client, hive.db, hive.name)
    journal = Journal(tmp_path / "journal.sqlite")

    result = _migrate(spark, client, catalog, settings, journal, source, target)

    assert result.adoption is not None
    proven, copied = set(result.adoption.proven), result.adoption.copied
    # A zero-byte file is one Hive does not read: left out, as Iceberg's add_files cannot.
    assert {"dt=exact", "dt=widened", "dt=positional", "dt=subdir", "dt=zero-byte"} <= proven
    # Hive 3.1 matches ORC names case-sensitively (NULL, as Iceberg reads it); other versions
    # do not, and a version-sensitive partition is never adopted.
    assert "hive-version-sensitive" in copied["dt=upper"]
    assert "string" in copied["dt=as-string"] and "bigint" in copied["dt=as-string"]
    assert "text" in copied["dt=text"]
    assert "writer-zone-missing" in copied["dt=zoneless"]
    assert proven.isdisjoint(copied)
    assert result.ok and set(result.backfilled) >= set(copied)

    # The adopted partitions hold the source's own files, nothing else.
    table = catalog.load_table(target)
    files = table.inspect.files().to_pylist()
    by_dt: dict[str, set[str]] = {}
    for f in files:
        by_dt.setdefault(f["partition"]["dt"], set()).add(f["file_path"])
    exact_dir = str(hive.partition_dir(["exact"]))
    assert len(by_dt["exact"]) == 2 and all(exact_dir in p for p in by_dt["exact"])
    assert all(str(tables_root) not in p or "_lake" in p for p in by_dt["upper"])
    assert table.properties.get("gc.enabled") == "false"
    exact = next(f for f in files if f["partition"]["dt"] == "exact")
    assert exact["record_count"] in (40, 25) and exact["null_value_counts"]  # footer metrics

    # Exactly Hive's rows, through pyiceberg and Spark, and proven at both levels.
    expected = _hive_rows(spark, client, settings, source)
    arrow = table.scan().to_arrow()
    assert (
        sorted(zip(*(arrow.column(c).to_pylist() for c in ("rid", "name", "amount", "ts", "dt"))))
        == expected
    )
    spark.sql(f"REFRESH TABLE {target}")
    lake = spark.table(target).select("rid", "name", "amount", "ts", "dt").collect()
    assert sorted(tuple(r) for r in lake) == expected
    report = validate_table(
        spark, client, catalog, settings, journal, source, target, level="independent"
    )
    assert {r.partition: r.status for r in report.partitions} == {
        p: EQUAL for p in [*proven, *copied]
    }
    assert source_snapshot(client, hive.db, hive.name) == before

    # A re-run registers nothing twice; a changed source file is adopted again.
    again = _migrate(spark, client, catalog, settings, journal, source, target)
    assert again.backfilled == [] and catalog.load_table(target).scan().to_arrow().num_rows == len(
        expected
    )
    write_orc(hive.partition_dir(["exact"]) / "000002_0", _rows(900, 5))
    third = _migrate(spark, client, catalog, settings, journal, source, target)
    assert third.adoption is not None and third.adoption.proven == ["dt=exact"]
    assert len(_hive_rows(spark, client, settings, source)) == len(expected) + 5
    assert catalog.load_table(target).scan().to_arrow().num_rows == len(expected) + 5
    journal.close()


def test_require_refuses_instead_of_copying(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    hive = HiveTableBuilder(
        client,
        tables_root,
        "adoption",
        unique_name("padded"),
        [("rid", "bigint"), ("tag", "char(4)")],
    )
    hive.add_partition(["a"], {"000000_0": pa.table({"rid": [1, 2], "tag": ["x", "yy"]})})
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_lake"
    journal = Journal(tmp_path / "journal.sqlite")
    with pytest.raises(RefusedInput, match="char values") as refused:
        _migrate(spark, client, catalog, settings, journal, source, target, mode="require")
    assert refused.value.exit_code == 7 and "dt=a" in str(refused.value)
    journal.close()


def test_adopted_table_switches_cuts_over_reverts_and_retires_with_its_files(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    """Routing, rollback, cutover, revert and retire as for a copied table; ``retire
    --delete-files`` first gives the lake table its own copies of the adopted partitions."""
    from lakeshift.formats import FormatServices
    from lakeshift.inspect.partition_filter import PartitionFilter
    from lakeshift.route.cutover import cutover, names_for, revert
    from lakeshift.route.retire import prepare_retire, retire
    from lakeshift.route.router import rollback, switch
    from tests.helpers.lake import read_lake

    settings = replace(settings, home=tmp_path)
    hive = HiveTableBuilder(client, tables_root, "adoption", unique_name("life"), COLUMNS)
    for day in ("a", "b"):
        hive.add_partition([day], {"000000_0": _rows(0 if day == "a" else 50, 30)})
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_lake"
    journal = Journal(tmp_path / "journal.sqlite")
    services = FormatServices(spark, client, settings, catalog)
    result = _migrate(spark, client, catalog, settings, journal, source, target)
    assert result.adoption is not None and sorted(result.adoption.proven) == ["dt=a", "dt=b"]
    source_files = [hive.partition_dir([d]) / "000000_0" for d in ("a", "b")]
    originals = [p.read_bytes() for p in source_files]

    switch(services, settings, journal, source, target, partitions=None, all_validated=True)
    names = names_for(journal, source, target, None, None)
    view_rows = lambda: spark.table(names.view).count()  # noqa: E731
    spark.sql(f"REFRESH TABLE {names.view}")
    assert view_rows() == 60
    rollback(
        services, settings, journal, source, target, partitions=PartitionFilter.exactly(["dt=a"])
    )
    assert journal.route(source)["switched"] == ["dt=b"] and view_rows() == 60
    switch(services, settings, journal, source, target, partitions=None, all_validated=True)
    cutover(services, settings, journal, names)
    revert(services, settings, journal, names)
    cutover(services, settings, journal, names)
    expected = Counter(read_lake(client, source).column("rid").to_pylist())
    assert sum(expected.values()) == 60 and [p.read_bytes() for p in source_files] == originals

    plan = prepare_retire(services, settings, journal, source, probation_days=0)
    done = retire(services, settings, journal, plan, delete_files=True)
    assert len(done.deleted) == 2 and not any(p.exists() for p in source_files)
    lake = catalog.load_table(source)
    held = lake.inspect.files().column("file_path").to_pylist()
    assert held and not any(str(hive.location) + "/" in f for f in held)
    assert Counter(read_lake(client, source).column("rid").to_pylist()) == expected
    journal.close()


def test_a_rename_without_cascade_is_copied_and_the_new_files_adopted(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    catalog: HiveCatalog,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    """Drift without CASCADE: a column renamed in the table only. Hive reads the new name in
    the old files (NULL); Iceberg's name mapping, which keeps the old name as an alias, would
    read their values, so those partitions are copied; files written after the rename are
    adopted."""
    from hive_metastore.ttypes import FieldSchema

    old = [("rid", "bigint"), ("label", "string"), ("amount", "bigint"), ("ts", "timestamp")]
    hive = HiveTableBuilder(client, tables_root, "adoption", unique_name("renamed"), old)
    hive.add_partition(["before"], {"000000_0": _rows(0, 20, name="label")})
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_lake"
    journal = Journal(tmp_path / "journal.sqlite")
    first = _migrate(spark, client, catalog, settings, journal, source, target, mode="never")
    assert first.ok and first.adoption is None
    entry = client.get_table(hive.db, hive.name)
    entry.sd.cols = [FieldSchema(n, t, None) for n, t in COLUMNS]  # label -> name, no CASCADE
    client.alter_table(hive.db, hive.name, entry)
    hive.columns = COLUMNS
    hive.add_partition(["after"], {"000000_0": _rows(100, 20)})
    second = migrate(
        spark, client, catalog, settings, journal, source,
        MigrateOptions(
            target=target, adopt_files="auto", force=True, partitions=PartitionFilter.parse("dt=*")
        ),
    )  # fmt: skip
    assert second.adoption is not None and second.adoption.proven == ["dt=after"]
    assert "label" in second.adoption.copied["dt=before"]
    lake = {r["rid"]: r["name"] for r in spark.table(target).collect()}
    assert lake[6] is None and lake[106] == "n106"  # as Hive shows both partitions
    report = validate_table(
        spark, client, catalog, settings, journal, source, target, level="independent"
    )
    assert report.ok, [(r.partition, r.status, r.detail) for r in report.partitions]
    journal.close()
