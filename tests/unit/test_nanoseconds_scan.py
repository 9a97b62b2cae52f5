"""Which columns of which files the checksum level reads again for timestamps finer than a
microsecond (``validate.nanoseconds``; the counting runs in Spark tasks:
tests/integration/test_timestamp_precision.py), and the counting of ORC files pyarrow cannot
read at nanoseconds."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa

from lakeshift.inspect.model import Column, FileInfo
from lakeshift.validate.independent.orc_wide import finer_in_wide_orc
from lakeshift.validate.nanoseconds import FileCount, _counting, file_columns
from tests.helpers.orc_nanos import orc_with_nanos


def _file(fmt: str, columns: list[tuple[str, str]], **kwargs: object) -> FileInfo:
    return FileInfo("000000_0", 1, 1, fmt, tuple(Column(n, t) for n, t in columns), 3, **kwargs)  # type: ignore[arg-type]


def test_orc_columns_holding_a_timestamp_at_any_depth_that_the_table_reads() -> None:
    info = _file(
        "orc",
        [
            ("i", "int"),
            ("ts", "timestamp"),
            ("s", "struct<a:timestamp,b:int>"),
            ("m", "map<string,array<timestamp>>"),
            ("d", "date"),
        ],
    )
    assert file_columns(info, {"i", "ts", "s", "m", "d"}) == (("ts", "s", "m"), ())
    assert file_columns(info, {"i", "s"}) == (("s",), ())  # only the columns read
    assert file_columns(info, {"i", "d"}) is None


def test_parquet_int96_and_int64_nanoseconds_but_not_micros() -> None:
    info = _file(
        "parquet",
        [("old", "struct<t:timestamp,n:int>"), ("nanos", "timestamp"), ("micros", "timestamp")],
        int96=("old",),
        int64_timestamps=(("nanos", "nanos", False), ("micros", "micros", False)),
    )
    assert file_columns(info, {"old", "nanos", "micros"}) == (("old", "nanos"), ("old",))


def test_a_column_of_int96_and_int64_timestamps_is_read_once() -> None:
    info = _file(
        "parquet",
        [("mixed", "struct<a:timestamp,b:timestamp>")],
        int96=("mixed",),
        int64_timestamps=(("mixed", "nanos", False),),
    )
    assert file_columns(info, {"mixed"}) == (("mixed",), ())


def test_unreadable_files_are_not_counted() -> None:
    assert file_columns(_file("orc", [("ts", "timestamp")], error="corrupt"), {"ts"}) is None


def test_wide_orc_timestamps_are_counted_value_by_value_at_any_depth() -> None:
    """Year 3000 (and 1494) is outside pyarrow's nanosecond range; pyorc hands each value's
    seconds and nanoseconds over. Five values hold digits past a microsecond: ts of row 0,
    a[1] and both map keys of row 1, s.t of row 2 (map keys finer alike stay two)."""
    schema = "struct<ts:timestamp,s:struct<t:timestamp>,a:array<timestamp>,m:map<timestamp,int>>"
    seconds = 32_503_680_000  # 3000-01-01 00:00:00 UTC
    rows = [
        {"ts": (seconds, 123_456_789), "s": {"t": (seconds, 0)}, "a": [], "m": {}},
        {
            "ts": (seconds, 1_000),
            "s": None,
            "a": [(seconds, 0), (seconds, 7)],
            "m": {(seconds, 5): 1, (seconds + 1, 5): 2},
        },
        {"ts": None, "s": {"t": (-15_000_000_000, 999_999_999)}, "a": None, "m": None},
    ]
    buffer = io.BytesIO(orc_with_nanos(schema, rows, by_name=True))
    assert finer_in_wide_orc(buffer, ["ts", "s", "a", "m"], "mem.orc") == 5


def test_a_file_that_cannot_be_read_again_is_reported_not_counted(tmp_path: Path) -> None:
    gone = FileCount("dt=1", str(tmp_path / "000000_0"), "orc", ("ts",))
    batch = pa.record_batch([pa.array([0], pa.int64())], names=["id"])
    (row,) = [r for out in _counting([gone])([batch]) for r in out.to_pylist()]
    assert row["partition"] == "dt=1" and row["finer"] == 0
    assert row["error"].startswith(str(tmp_path / "000000_0"))
