"""Which Parquet columns Hive's Parquet reader fails on (pure; the rows against Hive 2.3.9
are in tests/differential/test_parquet_writables.py)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from lakeshift.schema_map.hive_types import parse_hive_type
from lakeshift.schema_map.parquet_reading import parquet_unreadable, writable
from lakeshift.schema_map.spark_sql import convert
from lakeshift.validate.independent.casts import convert_primitive


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
    return parquet_unreadable(*types, version=version)


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
