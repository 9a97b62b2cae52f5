"""The one rule for type changes Hive can read (ORC schema evolution's canConvert)."""

from __future__ import annotations

import pytest

from lakeshift.errors import SchemaMappingError
from lakeshift.schema_map.conversions import unreadable
from lakeshift.schema_map.hive_types import parse_hive_type as t
from lakeshift.schema_map.spark_sql import convert


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        ("string", "int"),
        ("int", "string"),
        ("bigint", "int"),
        ("double", "decimal(10,2)"),
        ("date", "timestamp"),
        ("timestamp", "date"),
        ("binary", "string"),
        ("struct<a:int,b:string>", "struct<b:int,c:int>"),
        ("map<string,int>", "map<string,bigint>"),
    ],
)
def test_conversions_hive_reads_value_by_value(src: str, dst: str) -> None:
    assert unreadable(t(src), t(dst), by_name=True) is None


@pytest.mark.parametrize(
    ("src", "dst", "at"),
    [
        ("array<int>", "int", ""),
        ("int", "array<int>", ""),
        ("map<string,int>", "struct<a:int>", ""),
        ("int", "date", ""),
        ("date", "int", ""),
        ("binary", "int", ""),
        ("boolean", "binary", ""),
        ("array<struct<a:array<int>>>", "array<struct<a:int>>", "[].a"),
        ("map<string,date>", "map<string,double>", ".value"),
    ],
)
def test_conversions_hive_cannot_read(src: str, dst: str, at: str) -> None:
    reason = unreadable(t(src), t(dst), by_name=True)
    assert reason is not None and reason.endswith(")")
    assert (f" at {at} " in reason) if at else (" at " not in reason)


def test_struct_fields_follow_name_or_position() -> None:
    src, dst = t("struct<b:array<int>,a:int>"), t("struct<a:int,z:int>")
    assert unreadable(src, dst, by_name=True) is None  # a by name; z missing reads NULL
    assert "at .a" in str(unreadable(src, dst, by_name=False))  # a is position 0: array<int>


def test_the_reader_applies_the_same_rule() -> None:
    with pytest.raises(SchemaMappingError, match="array<int> cannot be read as int"):
        convert("x", t("array<int>"), t("int"), by_name=True, where="t partition dt=1 column x")
    with pytest.raises(SchemaMappingError, match="date cannot be read as int"):
        convert("x", t("date"), t("int"), by_name=True)
