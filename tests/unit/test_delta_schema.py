"""Delta schemas from field mappings: types, column-mapping IDs and physical names."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lakeshift.errors import RefusedInput, SchemaMappingError
from lakeshift.formats.delta.schema import (
    ID_KEY,
    PHYSICAL_NAME_KEY,
    canonical_partition_value,
    delta_schema,
    delta_type,
    max_column_id,
    physical_names,
    physical_schema,
    struct_fields,
    type_changes,
)
from lakeshift.schema_map.model import FieldMapping, TargetField


def mapping(*columns: TargetField, retired: tuple[TargetField, ...] = ()) -> FieldMapping:
    ids = [f.id for c in (*columns, *retired) for f in c.walk()]
    return FieldMapping(
        table="db.t",
        columns=columns,
        partition_keys=(TargetField(20, "dt", "string"),),
        generated=(),
        retired=retired,
        last_id=max([*ids, 20]),
        mapping_mode="name",
        case_sensitive=False,
    )


def nested_columns() -> tuple[TargetField, ...]:
    return (
        TargetField(1, "a", "bigint"),
        TargetField(
            2,
            "s",
            "struct<x:int,y:string>",
            (TargetField(5, "x", "int"), TargetField(6, "y", "string")),
        ),
        TargetField(
            3,
            "arr",
            "array<struct<z:date>>",
            (TargetField(7, "element", "struct<z:date>", (TargetField(8, "z", "date"),)),),
        ),
        TargetField(
            4,
            "m",
            "map<string,timestamp>",
            (TargetField(9, "key", "string"), TargetField(10, "value", "timestamp")),
        ),
    )


def by_id(schema: dict) -> dict[int, dict]:
    return {f["metadata"][ID_KEY]: f for f in struct_fields(schema)}


@pytest.mark.parametrize(
    ("hive", "expected"),
    [
        ("tinyint", "byte"),
        ("smallint", "short"),
        ("int", "integer"),
        ("bigint", "long"),
        ("float", "float"),
        ("double", "double"),
        ("boolean", "boolean"),
        ("char(3)", "string"),
        ("varchar(10)", "string"),
        ("binary", "binary"),
        ("date", "date"),
        ("timestamp", "timestamp_ntz"),
        ("decimal(12,3)", "decimal(12,3)"),
        ("decimal", "decimal(10,0)"),
    ],
)
def test_primitive_types(hive: str, expected: str) -> None:
    assert delta_type(hive) == expected


def test_nested_types_are_nullable_containers() -> None:
    assert delta_type("map<string,array<int>>") == {
        "type": "map",
        "keyType": "string",
        "valueType": {"type": "array", "elementType": "integer", "containsNull": True},
        "valueContainsNull": True,
    }
    struct = delta_type("struct<a:timestamp>")
    assert struct["fields"] == [
        {"name": "a", "type": "timestamp_ntz", "nullable": True, "metadata": {}}
    ]


def test_uniontype_refused_naming_the_column() -> None:
    with pytest.raises(SchemaMappingError, match=r"'payload'.*Delta"):
        delta_type("uniontype<int,string>", "payload")
    union = TargetField(
        2,
        "v",
        "uniontype<int,string>",
        (TargetField(3, "tag_0", "int"), TargetField(4, "tag_1", "string")),
    )
    bad = TargetField(1, "u", "struct<v:uniontype<int,string>>", (union,))
    with pytest.raises(SchemaMappingError, match=r"'u\.v'"):
        delta_schema(mapping(bad), None)


def test_every_struct_field_has_id_and_physical_name_nested_too() -> None:
    schema = delta_schema(mapping(*nested_columns()), None)
    fields = by_id(schema)
    # 7, 9, 10 are array element / map key and value: not struct fields in Delta.
    assert sorted(fields) == [1, 2, 3, 4, 5, 6, 8, 20]
    assert {i: f["metadata"][PHYSICAL_NAME_KEY] for i, f in fields.items()} == {
        1: "a",
        2: "s",
        3: "arr",
        4: "m",
        5: "x",
        6: "y",
        8: "z",
        20: "dt",
    }
    assert all(f["nullable"] for f in fields.values())
    element = fields[3]["type"]["elementType"]
    assert element["fields"][0]["name"] == "z"
    assert fields[4]["type"]["valueType"] == "timestamp_ntz"
    assert [f["name"] for f in schema["fields"]] == ["a", "s", "arr", "m", "dt"]


def test_rename_keeps_ids_and_physical_names() -> None:
    first = delta_schema(mapping(*nested_columns()), None)
    a, s, *rest = nested_columns()
    renamed_s = replace(s, children=(replace(s.children[0], name="x2"), s.children[1]))
    second = delta_schema(mapping(replace(a, name="a2"), renamed_s, *rest), first)
    fields = by_id(second)
    assert (fields[1]["name"], fields[1]["metadata"][PHYSICAL_NAME_KEY]) == ("a2", "a")
    assert (fields[5]["name"], fields[5]["metadata"][PHYSICAL_NAME_KEY]) == ("x2", "x")
    assert physical_names(second)["a2"] == "a"
    assert type_changes(first, second) == []


def test_dropped_then_re_added_name_gets_a_new_physical_name() -> None:
    a, *rest = nested_columns()
    first = delta_schema(mapping(a, *rest), None)
    dropped = delta_schema(mapping(*rest, retired=(a,)), first)
    assert "a" not in physical_names(dropped)
    readded = delta_schema(mapping(*rest, TargetField(30, "a", "string"), retired=(a,)), dropped)
    # Old files still hold the dropped column under "a": the new one must not read it.
    assert physical_names(readded)["a"] == "col_30"


def test_new_field_named_like_a_renamed_fields_physical_name() -> None:
    a, *rest = nested_columns()
    first = delta_schema(mapping(a, *rest), None)
    second = delta_schema(mapping(replace(a, name="b"), TargetField(31, "A", "int"), *rest), first)
    names = physical_names(second)
    assert names["b"] == "a"
    assert names["A"] == "col_31"  # case-insensitive: Spark resolves Parquet names that way
    assert len(set(names.values())) == len(names)


def test_new_nested_field_gets_unique_physical_name_among_its_siblings() -> None:
    first = delta_schema(mapping(*nested_columns()), None)
    a, s, *rest = nested_columns()
    x, y = s.children
    evolved = replace(
        s,
        type="struct<y:string,x:string>",
        children=(replace(y, name="y"), TargetField(32, "x", "string")),
    )
    second = delta_schema(mapping(a, evolved, *rest, retired=(x,)), first)
    fields = by_id(second)
    assert fields[6]["metadata"][PHYSICAL_NAME_KEY] == "y"
    assert fields[32]["metadata"][PHYSICAL_NAME_KEY] == "col_32"


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        (TargetField(1, "a", "string"), "column 'a': long -> string"),
        (TargetField(1, "a", "int"), "column 'a': long -> integer"),
    ],
)
def test_type_changes_are_reported(column: TargetField, expected: str) -> None:
    a, *rest = nested_columns()
    first = delta_schema(mapping(a, *rest), None)
    second = delta_schema(mapping(column, *rest), first)
    assert type_changes(first, second) == [expected]


def test_nested_type_change_is_reported_with_its_path() -> None:
    a, s, *rest = nested_columns()
    first = delta_schema(mapping(a, s, *rest), None)
    wider = replace(
        s,
        type="struct<x:bigint,y:string>",
        children=(replace(s.children[0], type="bigint"), s.children[1]),
    )
    changes = type_changes(first, delta_schema(mapping(a, wider, *rest), first))
    assert changes == ["column 's.x': integer -> long"]


def test_added_and_dropped_fields_are_not_type_changes() -> None:
    a, *rest = nested_columns()
    first = delta_schema(mapping(a, *rest), None)
    second = delta_schema(mapping(*rest, TargetField(40, "new", "date"), retired=(a,)), first)
    assert type_changes(first, second) == []


def test_max_column_id_and_physical_schema() -> None:
    schema = delta_schema(mapping(*nested_columns()), None)
    assert max_column_id(schema) == 20
    physical = physical_schema(schema)
    s = physical["fields"][1]
    assert s["metadata"] == {"parquet.field.id": 2}
    assert s["type"]["fields"][0] == {
        "name": "x",
        "type": "integer",
        "nullable": True,
        "metadata": {"parquet.field.id": 5},
    }


@pytest.mark.parametrize(
    ("value", "delta", "expected"),
    [
        ("007", "integer", "7"),
        ("2024-01-31", "date", "2024-01-31"),
        ("1.5", "decimal(5,2)", "1.50"),
        ("2024-01-31T01:02:03", "timestamp_ntz", "2024-01-31 01:02:03"),
        ('a b%"é=/x', "string", 'a b%"é=/x'),
        (None, "long", None),
    ],
)
def test_canonical_partition_values(value: str | None, delta: str, expected: str | None) -> None:
    assert canonical_partition_value(value, delta) == expected


def test_unparsable_partition_value_refused() -> None:
    with pytest.raises(RefusedInput, match=r"'x1'.*integer"):
        canonical_partition_value("x1", "integer")
