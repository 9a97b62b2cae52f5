"""A mapping saved on the target survives Hive renames, drops and additions (IDs unchanged)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hive_metastore.ttypes import FieldSchema
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.formats.iceberg_schema import NAME_MAPPING_PROPERTY, create_table, evolve_table
from lakeshift.formats.iceberg_sync import sync_iceberg_target
from lakeshift.hive.reader import read_partitions
from lakeshift.inspect import inspect_table
from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.unit.test_field_ids import build, inventory


@pytest.fixture(scope="module")
def catalog(metastore_uri: str) -> HiveCatalog:
    return HiveCatalog("lakeshift", uri=metastore_uri)


def _append(spark: Any, frame: Any, identifier: str) -> None:
    from pyspark.sql import functions as F

    spark.sql(f"REFRESH TABLE {identifier}")
    frame = frame.withColumn("uuid", F.expr("uuid()")).withColumn(
        "partitionpath", F.concat(F.lit("dt="), F.col("dt"))
    )
    columns = [c for c in spark.table(identifier).columns if c in frame.columns]
    frame.select(*columns).writeTo(identifier).append()


def _alter(client: MetastoreClient, hive: HiveTableBuilder, columns: list[FieldSchema]) -> None:
    table = client.get_table(hive.db, hive.name)
    table.sd.cols = columns
    client.alter_table(hive.db, hive.name, table)
    hive.columns = [(c.name, c.type) for c in columns]


def test_mapping_survives_rename_drop_and_add(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    tables_root: Path,
    catalog: HiveCatalog,
) -> None:
    name = unique_name("evolve")
    hive = HiveTableBuilder(
        client,
        tables_root,
        "evolution",
        name,
        [("id", "bigint"), ("name", "string"), ("score", "double"), ("gone", "string")],
    )
    hive.add_partition(
        ["1"],
        {
            "f": pa.table(
                {
                    "id": pa.array([1], pa.int64()),
                    "name": ["first"],
                    "score": [1.5],
                    "gone": ["x"],
                }
            )
        },
    )
    source, target = f"evolution.{name}", f"evolution.{name}_ice"

    def sync() -> Any:
        inv = inspect_table(client, source, settings)
        result = sync_iceberg_target(
            catalog, target, inv, home=settings.home, semantics=settings.hive
        )
        return inv, result

    inv, first = sync()
    assert first.created
    before = {f.name: f.id for f in first.mapping.fields}
    _append(spark, read_partitions(spark, inv, first.mapping), target)

    # ALTER TABLE CHANGE score points double; REPLACE COLUMNS without the trailing `gone`.
    _alter(
        client,
        hive,
        [
            FieldSchema("id", "bigint", None),
            FieldSchema("name", "string", None),
            FieldSchema("points", "double", None),
        ],
    )
    _, second = sync()
    assert second.evolved
    assert {f.name: f.id for f in second.mapping.fields}["points"] == before["score"]
    assert before["gone"] in {f.id for f in second.mapping.retired}

    # Later: ALTER TABLE ADD COLUMNS (extra int); a new partition written with it.
    _alter(
        client,
        hive,
        [*client.get_table(hive.db, hive.name).sd.cols, FieldSchema("extra", "int", None)],
    )
    hive.add_partition(
        ["2"],
        {
            "f": pa.table(
                {
                    "id": pa.array([2], pa.int64()),
                    "name": ["second"],
                    "points": [2.5],
                    "extra": pa.array([7], pa.int32()),
                }
            )
        },
    )
    inv, third = sync()
    after = {f.name: f.id for f in third.mapping.fields}
    assert after["id"] == before["id"] and after["points"] == before["score"]
    assert after["extra"] > first.mapping.last_id  # a new ID, never a retired one
    assert third.mapping.field("points").lineage == ("score", "points")
    _append(spark, read_partitions(spark, inv, third.mapping, ["dt=2"]), target)

    iceberg = catalog.load_table(target)
    assert iceberg.schema().find_field("points").field_id == before["score"]
    assert "gone" not in [f.name for f in iceberg.schema().fields]
    rows = sorted(iceberg.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
    assert [(r["id"], r["points"], r["extra"]) for r in rows] == [(1, 1.5, None), (2, 2.5, 7)]
    entries = json.loads(iceberg.properties[NAME_MAPPING_PROPERTY])
    points = next(e for e in entries if e["field-id"] == before["score"])
    assert points["names"][:2] == ["points", "score"] and "_col2" in points["names"]


def test_nested_and_collection_changes_keep_ids_in_iceberg(catalog: HiveCatalog) -> None:
    from lakeshift.metastore import ddl

    columns = [
        ("id", "bigint"),
        ("s", "struct<a:int,b:string>"),
        ("l", "array<struct<x:int>>"),
        ("m", "map<string,struct<v:int>>"),
    ]
    first = build(inventory(columns))
    identifier = f"evolution.{unique_name('nested')}"
    ddl.ensure_database(_client(catalog), "evolution")
    table = create_table(catalog, identifier, first)
    grown = [
        ("id", "bigint"),
        ("s", "struct<a:bigint,b2:string,c:double>"),
        ("l", "array<struct<x:int,y:string>>"),
        ("m", "map<string,struct<v:int,w:int>>"),
        ("n", "struct<p:int,q:array<int>>"),
    ]
    second = build(inventory(grown), first)
    evolved = evolve_table(table, second, identifier)
    schema = evolved.schema()
    s = {f.name: f.field_id for f in schema.find_field("s").field_type.fields}
    assert s == {
        "a": first.field("s").children[0].id,
        "b2": first.field("s").children[1].id,
        "c": second.field("s").children[2].id,
    }
    assert schema.find_field("s.a").field_type.__class__.__name__ == "LongType"
    assert schema.find_field("l.element.y").field_id == second.field("l").children[0].children[1].id
    assert schema.find_field("m.value.w").field_id == second.field("m").children[1].children[1].id
    assert schema.find_field("n.q").field_id == second.field("n").children[1].id


def _client(catalog: HiveCatalog) -> Any:
    from lakeshift.metastore.client import MetastoreClient

    return MetastoreClient(catalog.properties["uri"]).connect()
