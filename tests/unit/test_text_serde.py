"""Hive's LazySimpleSerDe rules, checked against both text readers (the Spark reader's parser
and the independent reader's), which were written apart and must agree with Hive and so with
each other."""

from __future__ import annotations

import bz2
import gzip
import zlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pytest

from lakeshift.errors import RefusedInput
from lakeshift.hive.types import parse_hive_type
from lakeshift.text.fields import RecordParser, lazy_binary, text_type
from lakeshift.text.layout import TextLayout, hive_byte
from lakeshift.text.lines import count_records, records
from lakeshift.validate.independent.text_read import read_text_file, text_file_type

LOCAL = pafs.LocalFileSystem()


@pytest.mark.parametrize(
    ("value", "byte"),
    [("9", 9), ("-2", 254), (",", 44), ("200", ord("2")), ("", 1), (None, 1), ("\t", 9)],
)
def test_delimiters_are_read_as_java_bytes_or_first_characters(
    value: str | None, byte: int
) -> None:
    assert hive_byte(value, 1) == byte


def _both(
    tmp_path: Path, data: bytes, params: dict[str, str], columns: list[tuple[str, str]]
) -> list[dict[str, Any]]:
    """Rows from both readers; asserts they agree and returns them."""
    path = tmp_path / "000000_0"
    path.write_bytes(data)
    types = [parse_hive_type(t) for _, t in columns]
    layout = TextLayout.from_parameters(params)
    parser = RecordParser(layout, types)
    names = [n for n, _ in columns]
    lines = list(records(LOCAL, str(path), layout))
    main = pa.Table.from_batches([parser.batch(lines, names)]).to_pylist()
    # The vectorised path for flat rows and the row-by-row parser agree.
    assert pa.Table.from_batches([parser._row_batch(lines, names)]).to_pylist() == main
    independent = read_text_file(str(path), params, list(zip(names, types))).to_pylist()
    assert main == independent
    assert count_records(LOCAL, str(path), layout) == len(main)
    return main


def test_line_ends_headers_and_footers(tmp_path: Path) -> None:
    rows = _both(
        tmp_path,
        b"head\r\na\rb\r\n\nc\nfoot",
        {"skip.header.line.count": "1", "skip.footer.line.count": "1"},
        [("s", "string")],
    )
    assert [r["s"] for r in rows] == ["a", "b", "", "c"]


def test_escapes_null_sequence_and_missing_or_extra_fields(tmp_path: Path) -> None:
    params = {
        "field.delim": ",",
        "escape.delim": "\\",
        "serialization.null.format": "",
        "serialization.escape.crlf": "true",
    }
    rows = _both(
        tmp_path,
        b"a\\,b,1,x\nline\\nbreak\\\\,,\n,2\nonly\ntrail\\",
        params,
        [("s", "string"), ("n", "string"), ("t", "string")],
    )
    assert rows == [
        {"s": "a,b", "n": "1", "t": "x"},
        {"s": "line\nbreak\\", "n": None, "t": None},  # '' is the null sequence here
        {"s": None, "n": "2", "t": None},
        {"s": "only", "n": None, "t": None},
        {"s": "trail\\", "n": None, "t": None},  # a lone trailing escape stays
    ]


def test_nested_levels_use_hive_separators_and_keep_nulls_and_empties(tmp_path: Path) -> None:
    columns = [
        ("a", "array<struct<x:string,y:array<string>>>"),
        ("m", "map<string,array<string>>"),
    ]
    # level 1 ^B between elements, level 2 ^C between struct fields, level 3 ^D in y
    data = (
        b"p\x03q\x04r\x02\\N\x02\x01k\x03v\x04w\x02k\x03dup\x02\\N\x03gone\x02e\x02z\x03\n\x01\\N\n"
    )
    rows = _both(tmp_path, data, {}, columns)
    assert rows[0]["a"] == [{"x": "p", "y": ["q", "r"]}, None, {"x": "", "y": None}]
    assert rows[0]["m"] == [("k", ["v", "w"]), ("e", None), ("z", [])]
    assert rows[1] == {"a": [], "m": None}


def test_last_column_takes_the_rest(tmp_path: Path) -> None:
    rows = _both(
        tmp_path,
        b"1|a|b|c\n",
        {"field.delim": "|", "serialization.last.column.takes.rest": "true"},
        [("n", "string"), ("rest", "string")],
    )
    assert rows == [{"n": "1", "rest": "a|b|c"}]


def test_booleans_and_binary_follow_the_text_serde(tmp_path: Path) -> None:
    rows = _both(
        tmp_path,
        b"TRUE,aGk=\nfalse,aGk\nyes,h!\n1,a-_b\n,\n",
        {"field.delim": ","},
        [("b", "boolean"), ("x", "binary")],
    )
    assert [r["b"] for r in rows] == [True, False, None, None, None]
    assert [r["x"] for r in rows] == [b"hi", b"hi", b"h!", lazy_binary(b"a+/b"), b""]
    assert lazy_binary(b"a+/b") == bytes([0x6B, 0xEF, 0xDB])


@pytest.mark.parametrize(
    ("suffix", "pack"),
    [
        (".gz", lambda d: gzip.compress(d[:4]) + gzip.compress(d[4:])),  # two gzip members
        (".bz2", bz2.compress),
        (".deflate", zlib.compress),
    ],
)
def test_compressed_files_by_extension(tmp_path: Path, suffix: str, pack: Any) -> None:
    path = tmp_path / f"000000_0{suffix}"
    path.write_bytes(pack(b"one\ntwo\nthree\n"))
    layout = TextLayout.from_parameters({})
    assert list(records(LOCAL, str(path), layout)) == [b"one", b"two", b"three"]
    table = read_text_file(str(path), {}, [("s", parse_hive_type("string"))])
    assert table.column("s").to_pylist() == ["one", "two", "three"]


def test_unreadable_codec_and_encoding_are_refused_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "000000_0.snappy"
    path.write_bytes(b"\x00\x01")
    with pytest.raises(RefusedInput, match="Snappy codec") as caught:
        list(records(LOCAL, str(path), TextLayout.from_parameters({})))
    assert "ORC" in (caught.value.hint or "")
    with pytest.raises(RefusedInput, match="klingon"):
        TextLayout.from_parameters({"serialization.encoding": "klingon"})


def test_flat_rows_with_bad_utf8_and_booleans(tmp_path: Path) -> None:
    rows = _both(
        tmp_path,
        b"True|\xff\xfeok|7\nfalse|fine|\\N\nt|x|\n",
        {"field.delim": "|"},
        [("b", "boolean"), ("s", "string"), ("n", "int")],
    )
    assert rows == [
        {"b": True, "s": "\ufffd\ufffdok", "n": "7"},  # bad bytes as Java's decoder shows them
        {"b": False, "s": "fine", "n": None},
        {"b": None, "s": "x", "n": ""},
    ]


def test_other_encodings_are_transcoded(tmp_path: Path) -> None:
    rows = _both(
        tmp_path,
        "名字,值\n".encode("gbk"),
        {"field.delim": ",", "serialization.encoding": "GBK"},
        [("a", "string"), ("b", "string")],
    )
    assert rows == [{"a": "名字", "b": "值"}]


def test_text_types_keep_booleans_and_binary_and_make_the_rest_text() -> None:
    declared = parse_hive_type("struct<a:int,b:boolean,c:map<date,binary>,d:varchar(3)>")
    expected = "struct<a:string,b:boolean,c:map<string,binary>,d:string>"
    assert str(text_type(declared)) == str(text_file_type(declared)) == expected


def test_timestamp_formats_are_tried_before_hives_default(tmp_path: Path) -> None:
    params = {
        "field.delim": "|",
        "timestamp.formats": "yyyy-MM-dd'T'HH:mm:ss.SSSZ,dd/MM/yyyy HH:mm,millis",
    }
    rows = _both(
        tmp_path,
        b"2020-01-02T03:04:05.123+0100|a\n05/01/2020 10:30|b\n1577836800000|c\n"
        b"2020-01-01 00:00:00|d\njunk|e\n",
        params,
        [("t", "timestamp"), ("s", "string")],
    )
    assert [r["t"] for r in rows] == [
        "2020-01-02 02:04:05.123000",  # the zone gives the UTC wall clock
        "2020-01-05 10:30:00.000000",
        "2020-01-01 00:00:00.000000",  # millis
        "2020-01-01 00:00:00",  # no pattern matches: left to Hive's default rule
        "junk",  # read as NULL by the timestamp conversion
    ]


def test_a_timestamp_pattern_lakeshift_cannot_translate_is_refused() -> None:
    with pytest.raises(RefusedInput, match="'ww'"):
        TextLayout.from_parameters({"timestamp.formats": "yyyy ww"})
