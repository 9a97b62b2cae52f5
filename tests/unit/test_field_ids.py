"""Field ID rules: renames keep IDs, drops retire them forever, new columns get new IDs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lakeshift.errors import SchemaMappingError
from lakeshift.hive.semantics import HiveSemantics
from lakeshift.inspect.model import Column, PartitionInfo, TableInventory
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.schema_map.model import FieldMapping


def inventory(
    columns: list[tuple[str, str]], partitions: list[list[tuple[str, str]]] = ()
) -> TableInventory:  # type: ignore[assignment]
    parts = tuple(
        PartitionInfo(
            name=f"dt={i}",
            values=(str(i),),
            location=f"file:/t/dt={i}",
            location_exists=True,
            outside_table_root=False,
            format="orc",
            input_format="",
            serde="",
            columns=tuple(Column(n, t) for n, t in cols),
            parameters={},
            files=(),
            skipped_files=0,
            fingerprint="",
        )
        for i, cols in enumerate(partitions)
    )
    return TableInventory(
        database="db",
        table="t",
        location="file:/t",
        table_type="EXTERNAL_TABLE",
        format="orc",
        input_format="",
        serde="",
        columns=tuple(Column(n, t) for n, t in columns),
        partition_keys=(Column("dt", "string"),),
        parameters={},
        partitions=parts,
        unregistered_dirs=(),
        anomalies=(),
        metastore_uri="",
        inspected_at="",
        seconds=0.0,
    )


def build(inv: TableInventory, previous: FieldMapping | None = None) -> FieldMapping:
    return build_mapping(inv, previous, HiveSemantics())


def ids(mapping: FieldMapping) -> dict[str, int]:
    return {f.name: f.id for f in mapping.fields}


BASE = [
    ("id", "bigint"),
    ("s", "struct<a:int,b:string>"),
    ("tags", "array<string>"),
    ("m", "map<string,int>"),
]


def test_fresh_ids_follow_icebergs_order() -> None:
    mapping = build(inventory(BASE))
    assert ids(mapping) == {
        "id": 1,
        "s": 2,
        "tags": 3,
        "m": 4,
        "dt": 5,
        "uuid": 6,
        "partitionpath": 7,
    }
    struct = mapping.field("s")
    assert [(c.name, c.id) for c in struct.children] == [("a", 8), ("b", 9)]
    assert [c.id for c in mapping.field("tags").children] == [10]
    assert [(c.name, c.id) for c in mapping.field("m").children] == [("key", 11), ("value", 12)]
    assert mapping.last_id == 12


def test_rename_keeps_id_and_records_lineage() -> None:
    first = build(inventory(BASE))
    renamed = [("user_id", "bigint"), *BASE[1:]]
    second = build(inventory(renamed), first)
    assert second.field("user_id").id == 1
    assert second.field("user_id").lineage == ("id", "user_id")
    assert second.last_id == first.last_id


def test_drop_retires_id_and_new_column_never_reuses_it() -> None:
    first = build(inventory(BASE))
    dropped = build(inventory([BASE[0], *BASE[2:]]), first)
    assert "s" not in ids(dropped)
    assert {f.id for f in dropped.retired} == {2}
    readded = build(inventory([*BASE[:1], *BASE[2:], ("s2", "struct<a:int,b:string>")]), dropped)
    new = readded.field("s2")
    assert new.id == 13 and [c.id for c in new.children] == [14, 15]
    assert 2 not in {f.id for f in readded.fields}


def test_reorder_changes_no_id() -> None:
    first = build(inventory(BASE))
    reordered = build(inventory([BASE[2], BASE[0], BASE[3], BASE[1]]), first)
    assert {k: v for k, v in ids(reordered).items()} == ids(first)


def test_nested_struct_fields_keep_ids_and_get_new_ones() -> None:
    first = build(inventory(BASE))
    grown = [BASE[0], ("s", "struct<a:bigint,b:string,c:double>"), *BASE[2:]]
    second = build(inventory(grown), first)
    children = {c.name: c.id for c in second.field("s").children}
    assert children == {"a": 8, "b": 9, "c": 13}
    assert second.field("s").children[0].type == "bigint"


@pytest.mark.parametrize(
    ("old", "new", "allowed"),
    [
        ("int", "bigint", True),
        ("float", "double", True),
        ("decimal(10,2)", "decimal(12,2)", True),
        ("tinyint", "int", True),
        ("varchar(5)", "string", True),
        ("bigint", "int", False),
        ("int", "string", False),
        ("decimal(10,2)", "decimal(10,3)", False),
        ("double", "float", False),
        ("decimal(12,2)", "decimal(10,2)", False),
    ],
)
def test_type_changes_iceberg_can_represent(old: str, new: str, allowed: bool) -> None:
    first = build(inventory([("x", old)]))
    changed = inventory([("x", new)], [[("x", old)]])
    if allowed:
        assert build(changed, first).field("x").type == new
    else:
        with pytest.raises(SchemaMappingError, match=r"'x'.*dt=0"):
            build(changed, first)


def test_lineage_collects_names_partitions_had_at_each_position() -> None:
    inv = inventory(
        [("id", "bigint"), ("bid_price", "double")],
        [[("id", "bigint"), ("price", "double")], [("id", "bigint"), ("bid_price", "double")]],
    )
    assert build(inv).field("bid_price").lineage == ("price", "bid_price")


def test_generated_column_names_must_be_free() -> None:
    with pytest.raises(SchemaMappingError, match="uuid"):
        build(inventory([("UUID", "string")]))


def test_uniontype_is_refused_with_the_column_name() -> None:
    with pytest.raises(SchemaMappingError, match="'u'"):
        build(inventory([("u", "uniontype<int,string>")]))


def test_mapping_round_trips_through_json() -> None:
    mapping = build(inventory(BASE))
    assert FieldMapping.from_json(mapping.to_json()) == mapping
    assert replace(mapping, last_id=99) != mapping
