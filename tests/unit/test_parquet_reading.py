"""Which Parquet columns Hive's Parquet reader fails on (pure; the rows against Hive 2.3.9
are in tests/differential/test_parquet_writables.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy
import pyarrow as pa
import pytest

from lakeshift.hive.parquet_reading import (
    FLOAT_MAX,
    built,
    built_type,
    parquet_unreadable,
    rebuilds,
    writable,
)
from lakeshift.hive.spark_sql import convert
from lakeshift.hive.types import parse_hive_type
from lakeshift.validate.independent.casts import convert_primitive
from lakeshift.validate.independent.parquet_values import built_values


@pytest.mark.parametrize(
    "file,table,version,built",
    [
        ("int", "bigint", "2.3", "bigint"),  # HIVE-12080: the table's type
        ("int", "bigint", "1.2", "int"),  # before it: the file's own
        ("smallint", "double", "2.3", "double"),
        ("int", "decimal", "2.3", "int"),
        ("int", "decimal", "3.1", "decimal"),  # 3.1 adds decimals
        ("bigint", "int", "2.3", "bigint"),
        ("bigint", "int", "3.1", "int"),  # and narrower integers
        ("bigint", "float", "2.3", "float"),
        ("float", "double", "2.3", "double"),
        ("double", "float", "3.1", "double"),
        ("double", "float", "4", "float"),  # Hive 4 converts every number to the table's
        ("string", "int", "3.1", "text"),
        ("timestamp", "timestamp", "3.1", "timestamp"),
    ],
)
def test_the_reader_builds_the_tables_type_from_hive_2(
    file: str, table: str, version: str, built: str
) -> None:
    assert writable(file, table, version) == built


def test_int64_timestamps_arrive_as_numbers_before_hive_4() -> None:
    assert writable("timestamp", "timestamp", "3.1", int96=False) == "bigint"
    assert writable("timestamp", "timestamp", "4", int96=False) == "timestamp"


def _reason(file: str, declared: str, table: str, version: str = "2.3") -> str | None:
    types = (parse_hive_type(file), parse_hive_type(declared), parse_hive_type(table))
    refusal = parquet_unreadable(*types, version=version)
    return None if refusal is None else str(refusal)


def test_a_declared_type_that_cannot_read_what_arrives_is_refused() -> None:
    # ALTER TABLE CHANGE int -> bigint without CASCADE: LongWritable, declared int
    reason = _reason("int", "int", "bigint")
    assert reason is not None and "ClassCastException" in reason and "bigint" in reason
    assert _reason("int", "int", "bigint", version="1.2") is None  # Hive 1.2 builds an int
    assert _reason("int", "bigint", "bigint") is None  # after CASCADE: read
    assert _reason("tinyint", "tinyint", "int") is None  # Parquet's byte inspector takes it
    assert _reason("int", "int", "decimal(10,2)") is None
    assert _reason("int", "int", "decimal(10,2)", version="3.1") is not None
    assert _reason("string", "varchar(3)", "string") is None


def test_nested_fields_are_checked_by_the_tables_names_at_every_depth() -> None:
    reason = _reason(
        "array<struct<A:int,b:string>>", "array<struct<a:int,b:string>>",
        "array<struct<a:bigint,b:string>>",
    )  # fmt: skip
    assert reason is not None and "[].a" in reason
    # a field the file lacks is never read
    assert _reason("struct<b:string>", "struct<a:int>", "struct<a:bigint>") is None


def test_a_char_read_as_text_by_hives_converter_loses_its_padding() -> None:
    char, text = parse_hive_type("char(5)"), parse_hive_type("string")
    assert convert("x", char, text, by_name=False) == "CAST(rtrim(x) AS STRING)"
    padded = pa.array(["ab   ", None, " a  "])
    shown = convert_primitive(padded, char, text, False, True, converter=True)
    assert shown.to_pylist() == ["ab", None, " a"]
    # ORC's schema evolution reads a CHAR file column as it is
    assert convert("x", char, text, by_name=True, orc_file=True) == "CAST(x AS STRING)"


def _built(file: str, table: str, version: str) -> tuple[str, str, float, float] | None:
    change = built(parse_hive_type(file), parse_hive_type(table), version)
    return None if change is None else (str(change.to), change.rule, change.low, change.high)


def test_an_int32_read_as_a_double_goes_through_a_float_from_hive_2() -> None:
    # ETypeConverter.EINT32_CONVERTER: new DoubleWritable((float) value) (2.3.7, 3.1.3, 4.0.1)
    for version in ("2.3", "3.1", "4"):
        assert _built("int", "double", version) == ("double", "float", 0, 0)
    assert _built("int", "double", "1.2") is None  # no table type given: the file's own
    assert _built("smallint", "double", "2.3") is None  # 16 bits fit a float's 24
    assert _built("bigint", "double", "3.1") is None  # new DoubleWritable(value)
    assert _built("int", "float", "2.3") is None  # (float) value, as Hive's cast rounds


def test_integers_out_of_a_narrower_tables_range_read_null_from_hive_3_1() -> None:
    # 3.1.3's ETypeConverter: (value >= minValue) && (value <= maxValue) of the table's type
    assert _built("bigint", "int", "3.1") == ("int", "range", -(2**31), 2**31 - 1)
    assert _built("bigint", "tinyint", "4") == ("int", "range", -128, 127)
    assert _built("int", "smallint", "3.1") == ("int", "range", -(2**15), 2**15 - 1)
    assert _built("smallint", "tinyint", "3.1") == ("smallint", "range", -128, 127)
    assert _built("bigint", "int", "2.3") is None  # 2.3 builds the file's long
    assert _built("int", "bigint", "3.1") is None  # wider: every value fits
    assert _built("tinyint", "smallint", "3.1") is None


def test_hive_4_builds_floating_and_decimal_values_for_the_tables_number_type() -> None:
    # 4.0.1's EDOUBLE/EFLOAT/EDECIMAL converters
    assert _built("double", "bigint", "4") == ("bigint", "integral", -(2.0**63), 2.0**63)
    assert _built("float", "int", "4") == ("int", "integral", -(2.0**31), 2**31 - 1)
    assert _built("decimal(10,2)", "smallint", "4")[:2] == ("int", "integral")  # type: ignore[index]
    assert _built("double", "float", "4") == ("float", "magnitude", 2.0**-126, FLOAT_MAX)
    change = built(parse_hive_type("decimal(10,2)"), parse_hive_type("float"), "4")
    assert change is not None and change.zero and change.low == 2.0**-149
    assert _built("decimal(10,2)", "decimal(5,1)", "4") == ("decimal(5,1)", "convert", 0, 0)
    assert _built("decimal(10,2)", "decimal(10,2)", "4") is None
    assert _built("double", "decimal(10,2)", "4") == ("decimal(10,2)", "convert", 0, 0)
    widened = built(parse_hive_type("float"), parse_hive_type("decimal(20,15)"), "4")
    assert widened is not None and widened.widen  # setFromDouble: the double's text
    for version in ("2.3", "3.1"):
        assert _built("double", "bigint", version) is None
        assert _built("decimal(10,2)", "decimal(5,1)", version) is None
    assert _built("float", "double", "4") is None  # new DoubleWritable(value): exact


def test_values_are_built_at_every_depth_by_the_tables_names() -> None:
    file = parse_hive_type("struct<A:bigint,b:array<int>,c:map<int,bigint>,d:string>")
    table = parse_hive_type("struct<a:int,B:array<double>,c:map<tinyint,smallint>,e:int>")
    assert rebuilds(file, table, "3.1")
    assert str(built_type(file, table, "3.1")) == (
        "struct<A:int,b:array<double>,c:map<int,int>,d:string>"  # map keys: as the file's
    )
    assert str(built_type(file, table, "2.3")) == (
        "struct<A:bigint,b:array<double>,c:map<int,bigint>,d:string>"
    )
    assert not rebuilds(file, table, "1.2")
    # a field the table lacks is built as the file holds it
    assert not rebuilds(parse_hive_type("struct<x:bigint>"), parse_hive_type("struct<y:int>"), "4")


def test_the_independent_reader_builds_what_hive_builds() -> None:
    def values(array: pa.Array, file: str, table: str, version: str) -> list:
        return built_values(
            array, parse_hive_type(file), parse_hive_type(table), version
        ).to_pylist()

    ints = pa.array([16777217, None, -3], pa.int32())
    assert values(ints, "int", "double", "2.3") == [16777216.0, None, -3.0]
    assert values(ints, "int", "double", "1.2") == [16777217, None, -3]
    longs = pa.array([5000000001, 2**31 - 1, -(2**31) - 1, None], pa.int64())
    assert values(longs, "bigint", "int", "3.1") == [None, 2**31 - 1, None, None]
    assert values(longs, "bigint", "int", "2.3") == longs.to_pylist()
    doubles = pa.array([2.0, 2.5, 0.0, float("nan"), 1e300, -7.0, 2.0**63], pa.float64())
    assert values(doubles, "double", "bigint", "4") == [2, None, 0, None, None, -7, 2**63 - 1]
    assert values(doubles, "double", "float", "4") == [2.0, 2.5, None, None, None, -7.0, 2.0**63]
    decimals = pa.array([Decimal("1.45"), Decimal("0"), Decimal("3.00")], pa.decimal128(10, 2))
    assert values(decimals, "decimal(10,2)", "float", "4") == [
        float(numpy.float32(1.45)), 0.0, 3.0,
    ]  # fmt: skip
    assert values(decimals, "decimal(10,2)", "int", "4") == [None, 0, 3]
    # just past the halfway point between the floats 1.0 and 1.0000001: its nearest double is
    # that point, which rounds to even (1.0); BigDecimal.floatValue rounds the decimal once
    half = "1.000000059604644775390625"  # 1 + 2**-24, exactly
    ties = pa.array([Decimal(half + "000001"), Decimal(half)], pa.decimal128(38, 30))
    assert values(ties, "decimal(38,30)", "float", "4") == [1.0000001192092896, 1.0]
    floats = pa.array([1.1, None], pa.float32())
    assert values(floats, "float", "decimal(20,15)", "4") == [Decimal("1.100000023841858"), None]
    assert values(decimals, "decimal(10,2)", "decimal(5,1)", "4") == [
        Decimal("1.5"), Decimal("0.0"), Decimal("3.0"),
    ]  # fmt: skip
    nested = pa.array(
        [{"A": [1, 16777217], "m": [(1, 2**40)]}, None, {"A": None, "m": None}],
        pa.struct([("A", pa.list_(pa.int32())), ("m", pa.map_(pa.int32(), pa.int64()))]),
    )
    shown = values(nested, "struct<A:array<int>,m:map<int,bigint>>",
                   "struct<a:array<double>,m:map<int,int>>", "3.1")  # fmt: skip
    assert shown == [
        {"A": [1.0, 16777216.0], "m": [(1, None)]}, None, {"A": None, "m": None},
    ]  # fmt: skip


def test_unsigned_integers_are_taken_signed_and_from_3_1_null_where_negative() -> None:
    """Hive 1.2/2.x read a UINT_32/UINT_64 as its physical INT32/INT64 (4294967295 is -1; Hive
    2.3.9 agrees in tests/differential); 3.1 and 4 read a negative one as NULL
    (``getMinValue``: 0); map keys stay signed. Both readers, at every depth."""
    from lakeshift.hive.parquet_reading import unsigned_nulls
    from lakeshift.hive.spark_sql import scanned_sql
    from lakeshift.validate.independent.parquet_values import hive_leaves

    assert [unsigned_nulls(v) for v in ("1.2", "2.3", "3.1", "4")] == [False, False, True, True]
    u32, u64 = 2**32 - 1, 2**64 - 1
    kind = pa.struct([("x", pa.uint32()), ("l", pa.list_(pa.uint64())),
                      ("m", pa.map_(pa.uint32(), pa.uint8()))])  # fmt: skip
    rows = [{"x": u32, "l": [u64, 2**63 - 1, None], "m": [(u32, 200)]}, None,
            {"x": 5, "l": None, "m": None}]  # fmt: skip
    table = pa.table({"v": pa.array(rows, kind), "n": pa.array([1, 2, 3], pa.int32())})
    signed = hive_leaves(table, nulls=False)
    assert signed.schema.field("v").type == pa.struct(
        [("x", pa.int32()), ("l", pa.list_(pa.int64())), ("m", pa.map_(pa.int32(), pa.int32()))]
    )
    assert signed.column("v").to_pylist() == [
        {"x": -1, "l": [-1, 2**63 - 1, None], "m": [(-1, 200)]}, None,
        {"x": 5, "l": None, "m": None},
    ]  # fmt: skip
    assert signed.column("n").equals(table.column("n"))  # a column without one: as read
    nulled = hive_leaves(table, nulls=True).column("v").to_pylist()
    assert nulled[0] == {"x": None, "l": [None, 2**63 - 1, None], "m": [(-1, 200)]}
    # the Spark reader's SQL, from the scanned (wide) type back to the signed one
    hive, wide = map(parse_hive_type, ("map<int,bigint>", "map<bigint,decimal(20,0)>"))
    sql = scanned_sql("v", hive, wide, nulls=True)
    assert sql.startswith("transform_values(transform_keys(")  # keys: signed, never NULL
    assert sql.count("NULL") == 1 and "2147483647" in sql and "9223372036854775807" in sql
    assert scanned_sql("v", hive, hive, nulls=True) == "v"


def test_decimals_stored_as_integers_are_read_by_hive_4_only(tmp_path: Any) -> None:
    """Spark writes decimals of up to 18 digits as INT32/INT64: Hive 1.2-3.1's converter
    reads a decimal only from binary (Hive 2.3.9 fails: tests/differential); Hive 4.0.1 reads
    them for number tables, not for text ones, and takes them at the table's scale."""
    import pyarrow.parquet as pq

    from lakeshift.inspect.footers import integer_decimals, parquet_leaves

    d82 = pa.decimal128(8, 2)
    table = pa.table({
        "x": pa.array([Decimal("12.34")], d82),
        "s": pa.array([{"a": Decimal("1.00"), "b": Decimal("2.00")}],
                      pa.struct([("A", d82), ("b", pa.decimal128(30, 2))])),
        "m": pa.array([[("k", [Decimal("1.00")])]], pa.map_(pa.string(), pa.list_(d82))),
    })  # fmt: skip
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, store_decimal_as_integer=True)  # decimal(30,2) stays binary
    found = integer_decimals(parquet_leaves(pq.ParquetFile(path)))
    assert found == (("x", ""), ("s", ".a"), ("m", ".value[]"))
    pq.write_table(table, path)
    assert integer_decimals(parquet_leaves(pq.ParquetFile(path))) == ()

    def why(file: str, table: str, version: str, at: frozenset[str]) -> str | None:
        f, t = parse_hive_type(file), parse_hive_type(table)
        refusal = parquet_unreadable(f, f if f.kind == t.kind else t, t, version=version,
                                     integer_decimals=at)  # fmt: skip
        if refusal is not None:  # an exception named exactly where every query fails
            assert (refusal.failure is not None) == ("every query" in str(refusal))
        return None if refusal is None else str(refusal)

    top = frozenset({""})
    for version in ("1.2", "2.3", "3.1"):
        assert "ParquetDecodingException" in (why("decimal(8,2)", "decimal(8,2)", version, top)
                                              or "")  # fmt: skip
        assert why("decimal(8,2)", "decimal(8,2)", version, frozenset()) is None  # binary
    assert why("decimal(8,2)", "decimal(8,2)", "4", top) is None
    assert why("decimal(8,2)", "decimal(12,2)", "4", top) is None
    assert why("decimal(8,2)", "double", "4", top) is None
    assert "UnsupportedOperationException" in (why("decimal(8,2)", "string", "4", top) or "")
    assert "table's scale" in (why("decimal(8,2)", "decimal(10,3)", "4", top) or "")
    # at depth, by the table's names ignoring case: only the integer-stored field
    nested = "struct<a:decimal(8,2),b:decimal(30,2)>"
    assert ".a" in (why(nested, nested, "2.3", frozenset({".a"})) or "")
    assert why("struct<b:decimal(30,2)>", "struct<b:decimal(30,2)>", "2.3",
               frozenset({".a"})) is None  # fmt: skip


def test_map_keys_hive_would_build_for_the_tables_key_type_are_found() -> None:
    """lakeshift reads Parquet map keys as the file holds them; ``keys_rebuilt`` names the
    maps whose keys Hive's reader would build otherwise (inspect warns of them)."""
    from lakeshift.hive.parquet_reading import keys_rebuilt

    def found(file: str, table: str, version: str, wide: str | None = None) -> list[str]:
        return keys_rebuilt(parse_hive_type(file), parse_hive_type(table), version,
                            parse_hive_type(wide) if wide else None)  # fmt: skip

    assert found("map<int,string>", "map<double,string>", "2.3") == [""]  # through a float
    assert found("map<int,string>", "map<double,string>", "1.2") == []  # built as written
    assert found("map<bigint,int>", "map<int,int>", "2.3") == []
    assert found("map<bigint,int>", "map<int,int>", "3.1") == [""]  # NULL out of range
    assert found("map<int,string>", "map<int,string>", "4") == []
    nested = "struct<A:array<map<bigint,map<bigint,int>>>>"
    table = "struct<a:array<map<int,map<int,int>>>>"
    assert found(nested, table, "3.1") == [".A[]", ".A[].value"]
    unsigned = ("map<int,int>", "map<int,int>")
    assert found(*unsigned, "3.1", "map<bigint,int>") == [""]  # UINT_32 keys: NULL from 3.1
    assert found(*unsigned, "2.3", "map<bigint,int>") == []  # signed
    assert found(*unsigned, "3.1", "map<int,bigint>") == []  # only its values are unsigned
    # nanosecond timestamp keys are scanned as bigints too: Hive 4 shows them, never NULL
    stamps = ("map<timestamp,int>", "map<timestamp,int>")
    assert found(*stamps, "4", "map<bigint,int>") == []


def test_nanosecond_timestamps_are_scanned_as_numbers_and_floored_to_microseconds(
    tmp_path: Any,
) -> None:
    """Spark reads Parquet INT64 nanosecond timestamps only as bigints (``FileInfo.scanned``):
    the Spark reader takes them back as instants floored to the microsecond, as Hive 4's
    ``Instant.ofEpochSecond`` floors; their statistics say whether any is finer than that."""
    import pyarrow.fs as pafs
    import pyarrow.parquet as pq

    from lakeshift.hive.parquet_reading import holds_unsigned
    from lakeshift.hive.spark_sql import scanned_sql
    from lakeshift.inspect.files import ListedFile
    from lakeshift.inspect.footers import parquet_leaves, parquet_sub_micros, read_footer

    def _sub_micros(path: Any) -> bool | None:
        parquet = pq.ParquetFile(path)
        return parquet_sub_micros(parquet_leaves(parquet), parquet.metadata)

    stamps = pa.array([1_000, -500], pa.timestamp("ns"))
    table = pa.table({"t": stamps, "s": pa.array([{"u": 1, "t": 5_000}], pa.struct(
        [("u", pa.uint32()), ("t", pa.timestamp("ns", tz="UTC"))])).take([0, 0])})  # fmt: skip
    path = tmp_path / "f.parquet"
    pq.write_table(table, path)
    info = read_footer(
        pafs.LocalFileSystem(), str(tmp_path), ListedFile("f.parquet", path.stat().st_size, 0)
    )
    assert [(c.name, c.type) for c in info.columns] == [
        ("t", "timestamp"), ("s", "struct<u:int,t:timestamp>")
    ]  # fmt: skip
    assert [(c.name, c.type) for c in info.scanned] == [
        ("t", "bigint"), ("s", "struct<u:bigint,t:bigint>")
    ]  # fmt: skip
    assert info.sub_micros is True  # -500 ns
    pq.write_table(table.set_column(0, "t", pa.array([1_000, -1_000], pa.timestamp("ns"))), path)
    assert _sub_micros(path) is False
    pq.write_table(table, path, write_statistics=False)
    assert _sub_micros(path) is None  # unknown
    sql = scanned_sql("t", parse_hive_type("timestamp"), parse_hive_type("bigint"), nulls=True)
    assert sql.startswith("timestamp_micros(") and "t div 1000" in sql
    hive, scanned = parse_hive_type(info.columns[1].type), parse_hive_type(info.scanned[1].type)
    assert holds_unsigned(hive, scanned)
    assert not holds_unsigned(parse_hive_type("timestamp"), parse_hive_type("bigint"))
