"""Routing: the view serves each partition from exactly one side, at every step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.errors import RefusedInput
from lakeshift.formats import FormatServices
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.route.cutover import cutover, names_for, revert
from lakeshift.route.router import recover, rollback, status, switch
from lakeshift.route.view_entry import digest
from lakeshift.route.view_sql import partition_predicate
from lakeshift.sample.load import LoadResult
from lakeshift.testing import assert_partition_equal
from lakeshift.validate.canonical import aggregate_sql, from_metrics
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.source_state import source_snapshot

pytestmark = pytest.mark.slow


def _services(client: MetastoreClient, settings: Settings, catalog: Any) -> FormatServices:
    """Switching, rollback and cutover read only metadata: starting Spark fails the test."""

    def no_spark() -> Any:
        pytest.fail("routing must not need a Spark session")

    return FormatServices(no_spark, client, settings, catalog)


def _by_key(frame: Any, key: str) -> dict[Any, Any]:
    from pyspark.sql import functions as F

    fields = [f for f in frame.schema.fields]
    return {
        r[key]: from_metrics(r.asDict())
        for r in frame.groupBy(key).agg(*[F.expr(e) for e in aggregate_sql(fields)]).collect()
    }


def _expected(spark: Any, view: Any, hive: str, lake: str, switched: set[str], key: str) -> Any:
    """Switched partitions from the lake table, the others as this engine reads Hive."""
    from pyspark.sql import functions as F

    casts = [F.col(f.name).cast(f.dataType).alias(f.name) for f in view.schema.fields]
    lake_rows = (
        spark.table(lake).where(F.col("partitionpath").isin(sorted(switched))).select(*casts)
    )
    hive_rows = (
        spark.table(hive)
        .where(
            ~F.coalesce(
                F.concat(
                    F.lit(f"{key}="), F.coalesce(F.col(key), F.lit("__HIVE_DEFAULT_PARTITION__"))
                ).isin(sorted(switched)),
                F.lit(False),
            )
        )
        .select(*casts)
    )
    return lake_rows.unionByName(hive_rows)


def test_sample_view_at_every_step_through_cutover_and_revert(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    lakeshift_home: Path,
    sample_table: LoadResult,
) -> None:
    source, target, view = "sample.click_log", "sample.click_log_routing", "sample.click_log_view"
    catalog = HiveCatalog("t", uri=metastore_uri)
    journal = Journal(lakeshift_home / "route-journal.sqlite")
    migrate(spark, client, catalog, settings, journal, source, MigrateOptions(target=target))
    assert validate_table(spark, client, catalog, settings, journal, source, target).ok
    files_before = source_snapshot(client, "sample", "click_log")[2]

    def check(switched: set[str], hive: str = source, lake: str = target) -> None:
        spark.sql(f"REFRESH TABLE {view}")
        actual = spark.table(view)
        assert "uuid" not in actual.columns and "partitionpath" not in actual.columns
        assert _by_key(actual, "yyyymmdd") == _by_key(
            _expected(spark, actual, hive, lake, switched, "yyyymmdd"), "yyyymmdd"
        )

    def do_switch(filter_text: str) -> set[str]:
        change = switch(
            _services(client, settings, catalog),
            settings,
            journal,
            source,
            target,
            partitions=PartitionFilter.parse(filter_text),
            all_validated=False,
            view=view,
        )
        return set(change.switched)

    switched = do_switch("yyyymmdd=20220401")
    assert switched == {"yyyymmdd=20220401"}
    check(switched)
    switched = do_switch("yyyymmdd=20220405,yyyymmdd=20220424,NULL")
    check(switched)
    switched = set(
        rollback(
            _services(client, settings, catalog),
            settings,
            journal,
            source,
            target,
            partitions=PartitionFilter.parse("yyyymmdd=20220401"),
            view=view,
        ).switched
    )
    assert "yyyymmdd=20220401" not in switched
    check(switched)
    switched = set(
        switch(
            _services(client, settings, catalog),
            settings,
            journal,
            source,
            target,
            partitions=None,
            all_validated=True,
            view=view,
        ).switched
    )
    assert len(switched) == 29
    check(switched)
    assert_partition_equal(spark, source, target, "yyyymmdd=20220424")

    names = names_for(journal, source, target, None, view)
    cutover(_services(client, settings, catalog), settings, journal, names)
    assert client.get_table("sample", "click_log").parameters["table_type"] == "ICEBERG"
    check(switched, hive=names.legacy, lake=source)
    after = status(client, settings, journal, source)
    assert after["cutover"] == "done" and after["switched"] == 29
    assert {r["served_from"] for r in after["rows"]} == {"lake"}
    revert(_services(client, settings, catalog), settings, journal, names)
    assert client.get_table("sample", "click_log").tableType == "EXTERNAL_TABLE"
    check(switched)
    assert source_snapshot(client, "sample", "click_log")[2] == files_before


@pytest.fixture
def small(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> tuple[HiveTableBuilder, Journal, str]:
    b = HiveTableBuilder(client, tables_root, "route_cases", unique_name("t"), [("id", "bigint")])
    for p in range(3):
        b.add_partition([str(p)], {"000000_0": pa.table({"id": pa.array([p], pa.int64())})})
    journal = Journal(lakeshift_home / "route-journal.sqlite")
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    catalog = HiveCatalog("t", uri=metastore_uri)
    migrate(spark, client, catalog, settings, journal, source, MigrateOptions(target=target))
    validate_table(spark, client, catalog, settings, journal, source, target)
    return b, journal, target


def test_changed_source_is_not_switched_and_switched_one_goes_back(
    small: tuple[HiveTableBuilder, Journal, str],
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
) -> None:
    b, journal, target = small
    source, catalog = f"{b.db}.{b.name}", HiveCatalog("t", uri=metastore_uri)
    first = switch(
        _services(client, settings, catalog),
        settings,
        journal,
        source,
        target,
        partitions=PartitionFilter.parse("dt=0,dt=1"),
        all_validated=False,
    )
    assert first.switched == ["dt=0", "dt=1"]
    orc.write_table(
        pa.table({"id": pa.array([99], pa.int64())}),
        str(b.partition_dir(["1"]) / "000000_0_copy_1"),
    )
    orc.write_table(
        pa.table({"id": pa.array([98], pa.int64())}),
        str(b.partition_dir(["2"]) / "000000_0_copy_1"),
    )
    second = switch(
        _services(client, settings, catalog),
        settings,
        journal,
        source,
        target,
        partitions=PartitionFilter.parse("dt=2"),
        all_validated=False,
    )
    assert second.switched == ["dt=0"]
    assert "source changed" in second.refused["dt=2"]
    assert second.refused["dt=1"].startswith("rolled back")


def test_interrupted_switch_settles_from_the_view_digest(
    small: tuple[HiveTableBuilder, Journal, str],
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
) -> None:
    b, journal, target = small
    source, catalog = f"{b.db}.{b.name}", HiveCatalog("t", uri=metastore_uri)
    change = switch(
        _services(client, settings, catalog),
        settings,
        journal,
        source,
        target,
        partitions=PartitionFilter.parse("dt=0"),
        all_validated=False,
    )
    # Crash after the journal wrote its intent but before the metastore call:
    journal.set_route(source, change.view, target, switched=["dt=0"], pending=["dt=0", "dt=1"])
    assert recover(client, journal, source) == ["dt=0"]
    # Crash after the metastore call but before the journal settled:
    journal.set_route(source, change.view, target, switched=[], pending=["dt=0"])
    assert recover(client, journal, source) == ["dt=0"]
    assert (
        digest(["dt=0"])
        == client.get_table(b.db, change.view.split(".")[1]).parameters["lakeshift.routing-digest"]
    )


def test_cutover_refused_until_every_partition_switched_then_finishes_after_a_crash(
    small: tuple[HiveTableBuilder, Journal, str],
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
) -> None:
    b, journal, target = small
    source, catalog = f"{b.db}.{b.name}", HiveCatalog("t", uri=metastore_uri)
    names = names_for(journal, source, target, None, None)
    with pytest.raises(RefusedInput, match="every partition switched"):
        cutover(_services(client, settings, catalog), settings, journal, names)
    switch(
        _services(client, settings, catalog),
        settings,
        journal,
        source,
        target,
        partitions=None,
        all_validated=True,
    )
    # Crash midway: the Hive table was renamed, the Iceberg table not yet.
    from lakeshift.route.cutover import _rename_hive

    _rename_hive(client, names.source, names.legacy)
    steps = cutover(_services(client, settings, catalog), settings, journal, names)
    assert steps[0].startswith("renamed Iceberg table")
    assert cutover(_services(client, settings, catalog), settings, journal, names) == [
        f"view {names.view} now reads {source}"
    ]
    revert(_services(client, settings, catalog), settings, journal, names)
    assert client.get_table(b.db, b.name).tableType == "EXTERNAL_TABLE"


HOSTILE = [
    "it's",
    "a`b",
    "back\\slash",
    "semi;colon",
    "dash--dash",
    "ünï©ødé 日本",
    "",
    "x'); DROP",
]


def test_view_predicate_selects_exactly_the_switched_partitions(spark: Any) -> None:
    from pyspark.sql import functions as F

    values = [(v, n) for v in HOSTILE for n in range(5)] + [(None, 1), ("z", None)]
    frame = spark.createDataFrame(values, "k STRING, n INT")
    switched = [
        ("it's", "1"),
        ("it's", "2"),
        ("it's", "3"),
        ("a`b", "0"),
        ("x'); DROP", "4"),
        (None, "1"),
        ("z", None),
    ]
    predicate = partition_predicate([("k", "string"), ("n", "int")], switched)
    chosen = {(r.k, r.n) for r in frame.where(F.expr(predicate)).collect()}
    assert chosen == {(k, None if n is None else int(n)) for k, n in switched}
    rest = frame.where(F.expr(f"NOT coalesce(({predicate}), false)")).count()
    assert rest == len(values) - len(switched)


def test_thousands_of_partitions_compress_and_stay_exact(spark: Any) -> None:
    import datetime as dt

    from pyspark.sql import functions as F

    days = [(dt.date(2020, 1, 1) + dt.timedelta(days=i)).strftime("%Y%m%d") for i in range(3000)]
    switched = [(d,) for i, d in enumerate(days) if i % 500 != 7]
    predicate = partition_predicate([("d", "string")], switched)
    assert len(predicate) < 20_000  # fits the metastore's view text column
    frame = spark.createDataFrame(
        [(d,) for d in days] + [("202001015",), ("2020010x",)], "d STRING"
    )
    chosen = {r.d for r in frame.where(F.expr(predicate)).collect()}
    assert chosen == {d for (d,) in switched}


def test_switch_all_validated_lists_every_partition_it_holds_back(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    b = HiveTableBuilder(client, tables_root, "route_cases", unique_name("h"), [("id", "bigint")])
    for p in range(3):
        b.add_partition([str(p)], {"000000_0": pa.table({"id": pa.array([p], pa.int64())})})
    journal = Journal(lakeshift_home / "held-journal.sqlite")
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"
    catalog = HiveCatalog("t", uri=metastore_uri)
    migrate(spark, client, catalog, settings, journal, source, MigrateOptions(target=target))

    def switch_all() -> Any:
        return switch(
            _services(client, settings, catalog),
            settings,
            journal,
            source,
            target,
            partitions=None,
            all_validated=True,
        )

    before = switch_all()  # nothing validated yet: nothing switched, and each one says why
    assert before.switched == [] and set(before.refused) == {"dt=0", "dt=1", "dt=2"}
    assert all("not validated yet" in why for why in before.refused.values())
    validate_table(spark, client, catalog, settings, journal, source, target)
    orc.write_table(
        pa.table({"id": pa.array([10], pa.int64())}),
        str(b.partition_dir(["1"]) / "000000_0_copy_1"),
    )
    after = switch_all()
    assert after.switched == ["dt=0", "dt=2"] and list(after.refused) == ["dt=1"]
    assert after.refused["dt=1"].startswith("source changed since its backfill and validation")
