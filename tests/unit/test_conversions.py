"""The one rule for type changes Hive can read (ORC schema evolution's canConvert)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from lakeshift.errors import SchemaMappingError
from lakeshift.hive.conversions import unreadable
from lakeshift.hive.spark_sql import convert
from lakeshift.hive.types import parse_hive_type as t
from lakeshift.validate.independent.casts import convert_primitive


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


def test_hive_s_converter_reads_no_char_or_varchar_as_boolean() -> None:
    """PrimitiveObjectInspectorUtils.getBoolean (Hive 2.3 and 3.1) has no CHAR or VARCHAR
    case: Hive 2.3.9 fails every query of a text partition declaring one for a boolean
    column. ORC's schema evolution does read them (it parses a number)."""
    for src in ("char(4)", "varchar(4)", "struct<a:varchar(2)>"):
        dst = "boolean" if not src.startswith("struct") else "struct<a:boolean>"
        reason = unreadable(t(src), t(dst), by_name=False, converter=True)
        assert reason is not None and "converter" in reason
        assert unreadable(t(src), t(dst), by_name=False) is None
    assert unreadable(t("string"), t("boolean"), by_name=False, converter=True) is None


def test_orc_before_1_6_reads_no_text_as_binary() -> None:
    """ORC 1.3-1.5's BinaryFromStringGroupTreeReader reads neither the bytes nor its own
    present stream; Hive's RecordReaderImpl.nextBinary then calls BytesWritable.set(null, 0,
    0), which throws on the first row, NULL or not (ORC 1.3.4, 1.5.8, Hive 2.3.7 source). ORC
    1.6+ reads the bytes of a directly encoded column (Hive 4), Hive's converter (text,
    Parquet) always."""
    pairs = [
        ("string", "binary"),
        ("varchar(3)", "binary"),
        ("char(2)", "binary"),
        ("struct<a:string>", "struct<a:binary>"),
        ("map<int,string>", "map<int,binary>"),
    ]
    for src, dst in pairs:
        reason = unreadable(t(src), t(dst), by_name=True, legacy_orc=True)
        assert reason is not None and "before ORC 1.6" in reason, (src, reason)
        assert unreadable(t(src), t(dst), by_name=True) is None
    assert unreadable(t("binary"), t("string"), by_name=True, legacy_orc=True) is None


@pytest.mark.parametrize(
    ("src", "dst", "texts", "expected"),
    [
        # Integer.parseInt of the text, a CHAR's trailing spaces stripped (Hive 2.3.9 shows
        # these in `make differential`): no fraction, BMP digits, no leading blank
        ("char(9)", "tinyint", ["12       ", "1.7976931", "-0       ", "-\uff11\uff12      "],
         [12, None, 0, -12]),
        ("varchar(2)", "smallint", ["0.", "\uff11\uff12", "5.", "\u0661\u0662", " 1"],
         [None, 12, None, 12, None]),
        ("varchar(12)", "tinyint", ["300", "2147483648"], [44, None]),  # (byte) of the int
        ("varchar(20)", "bigint", ["9223372036854775807", "1.0"], [2**63 - 1, None]),
    ],
)  # fmt: skip
def test_char_and_varchar_become_integers_by_java_s_parsers(
    src: str, dst: str, texts: list[str], expected: list[int | None]
) -> None:
    array = convert_primitive(pa.array(texts), t(src), t(dst), converter=True)
    assert array.to_pylist() == expected
    # a STRING keeps LazyInteger's rule (a fraction dropped)
    lazy = convert_primitive(pa.array(["5."]), t("string"), t(dst), converter=True)
    assert lazy.to_pylist() == [5]
