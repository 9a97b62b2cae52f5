from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from lakeshift.errors import RefusedInput
from lakeshift.hive.types import from_arrow, names_asked, parse_hive_type, to_arrow


@pytest.mark.parametrize(
    "text",
    [
        "int",
        "decimal(10,4)",
        "varchar(20)",
        "char(3)",
        "array<string>",
        "map<string,array<decimal(38,18)>>",
        "struct<os:string,model:string,inner:struct<a:int,b:array<bigint>>>",
    ],
)
def test_print_round_trips(text: str) -> None:
    assert str(parse_hive_type(text)) == text


def test_parser_normalises_case_spaces_and_defaults() -> None:
    assert str(parse_hive_type("STRUCT< a : INT , b:Decimal >")) == "struct<a:int,b:decimal(10,0)>"
    assert str(parse_hive_type("integer")) == "int"


@pytest.mark.parametrize("bad", ["struct<a int>", "array<>", "map<string>", "foo", "int)"])
def test_malformed_types_are_refused(bad: str) -> None:
    with pytest.raises(RefusedInput, match="cannot parse"):
        parse_hive_type(bad)


def test_arrow_round_trip_of_nested_type() -> None:
    hive = parse_hive_type("struct<a:map<string,bigint>,b:array<decimal(12,2)>,c:timestamp>")
    arrow = to_arrow(hive)
    assert arrow == pa.struct(
        [
            ("a", pa.map_(pa.string(), pa.int64())),
            ("b", pa.list_(pa.decimal128(12, 2))),
            ("c", pa.timestamp("us")),
        ]
    )
    assert from_arrow(arrow) == hive


def test_names_asked_are_the_tables_at_every_depth_with_the_partitions_types() -> None:
    """What Hive's Parquet reader asks a file for: the table's names, position by position,
    read as the partition declares them; a declared field past the table's is never shown."""
    asked = names_asked(
        parse_hive_type("struct<a:int,bb:string,gone:int>"),
        parse_hive_type("struct<a:bigint,b:string>"),
    )
    assert str(asked) == "struct<a:int,b:string>"
    nested = names_asked(
        parse_hive_type("array<struct<x:int>>"), parse_hive_type("array<struct<y:bigint>>")
    )
    assert str(nested) == "array<struct<y:int>>"
    valued = names_asked(
        parse_hive_type("map<string,struct<x:int>>"), parse_hive_type("map<string,struct<Y:int>>")
    )
    assert str(valued) == "map<string,struct<Y:int>>"
    # kinds that differ stay as declared (Hive's converter refuses them where they are read)
    assert str(names_asked(parse_hive_type("struct<x:int>"), parse_hive_type("int"))) == (
        "struct<x:int>"
    )


def test_a_parquet_files_unsigned_integers_are_typed_as_asked() -> None:
    """As Hive reads them (the physical INT32/INT64), as Spark must scan them (wide enough for
    their values), and refused where no unsigned type can come (ORC files, lake tables)."""
    from lakeshift.hive.types import PARQUET_TYPES, SCAN_TYPES

    arrow = pa.struct([("a", pa.uint8()), ("b", pa.uint16()), ("c", pa.list_(pa.uint32())),
                       ("d", pa.map_(pa.uint32(), pa.uint64()))])  # fmt: skip
    assert str(from_arrow(arrow, PARQUET_TYPES)) == (
        "struct<a:int,b:int,c:array<int>,d:map<int,bigint>>"
    )
    assert str(from_arrow(arrow, SCAN_TYPES)) == (
        "struct<a:int,b:int,c:array<bigint>,d:map<bigint,decimal(20,0)>>"
    )
    with pytest.raises(RefusedInput, match="uint8 has no Hive type"):
        from_arrow(arrow)


def test_a_fixed_size_binary_is_a_binary_and_an_extension_type_is_refused() -> None:
    """Parquet's unannotated FIXED_LEN_BYTE_ARRAY reads as Hive's binary; a UUID (pyarrow's
    extension type) has no reading yet."""
    assert from_arrow(pa.binary(16)) == parse_hive_type("binary")
    with pytest.raises(RefusedInput, match="has no Hive type"):
        from_arrow(pa.uuid())


def test_arrow_only_types_from_a_writers_stored_schema_are_the_parquet_columns() -> None:
    """pyarrow gives back a dictionary (pandas' category), a duration (timedelta64), a
    fixed-size list and a string view from the Arrow schema a writer keeps in the footer;
    Hive and Spark read the Parquet column itself, at any depth."""
    from lakeshift.hive.types import stored_type

    spans = pa.large_list(pa.duration("us"))
    kind = pa.struct([("c", pa.dictionary(pa.int8(), pa.string())), ("d", pa.duration("ns")),
                      ("l", pa.list_(pa.binary_view(), 2)), ("v", pa.string_view()),
                      ("m", pa.map_(pa.string_view(), spans))])  # fmt: skip
    assert str(from_arrow(kind)) == (
        "struct<c:string,d:bigint,l:array<binary>,v:string,m:map<string,array<bigint>>>"
    )
    plain = stored_type(kind)
    assert plain == pa.struct([("c", pa.string()), ("d", pa.int64()),
                               ("l", pa.list_(pa.binary())), ("v", pa.string()),
                               ("m", pa.map_(pa.string(), pa.large_list(pa.int64())))])  # fmt: skip
    assert stored_type(pa.int32()) == pa.int32()
    # an extension type is its storage, unless Parquet annotates the column itself (UUID)
    period = pa.table({"p": pd.period_range("2020-01", periods=1, freq="M")}).schema[0].type
    assert isinstance(period, pa.BaseExtensionType) and str(from_arrow(period)) == "bigint"
    with pytest.raises(RefusedInput, match="has no Hive type"):
        from_arrow(pa.struct([("u", pa.uuid())]))


def test_nanosecond_timestamps_are_scanned_as_numbers_from_parquet_only() -> None:
    """Spark reads a Parquet INT64 nanosecond timestamp only as a bigint; an ORC file's
    timestamps (pyarrow's nanoseconds too) are timestamps."""
    from lakeshift.hive.types import PARQUET_TYPES, SCAN_TYPES

    kind = pa.struct([("t", pa.timestamp("ns", tz="UTC")), ("u", pa.timestamp("us"))])
    assert str(from_arrow(kind, SCAN_TYPES)) == "struct<t:bigint,u:timestamp>"
    assert (
        str(from_arrow(kind, PARQUET_TYPES))
        == str(from_arrow(kind))
        == ("struct<t:timestamp,u:timestamp>")
    )
