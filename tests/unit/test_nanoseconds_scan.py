"""Which columns the checksum level's nanosecond scan asks Spark for, and as what
(``validate.nanoseconds``; the counting itself runs in Spark: tests/integration/
test_timestamp_precision.py)."""

from __future__ import annotations

from lakeshift.inspect.model import Column, FileInfo
from lakeshift.validate.nanoseconds import _asked


def _file(fmt: str, columns: list[tuple[str, str]], **kwargs: object) -> FileInfo:
    return FileInfo("000000_0", 1, 1, fmt, tuple(Column(n, t) for n, t in columns), 3, **kwargs)  # type: ignore[arg-type]


def _types(info: FileInfo, read: set[str]) -> dict[str, str]:
    return {name: str(kind) for name, kind, _ in _asked(info, read)}


def test_orc_timestamps_are_asked_for_as_decimal_seconds_at_any_depth() -> None:
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
    assert _types(info, {"i", "ts", "s", "m", "d"}) == {
        "ts": "decimal(38,9)",
        "s": "struct<a:decimal(38,9),b:int>",
        "m": "map<string,array<decimal(38,9)>>",
    }
    # only the columns the table reads
    assert _types(info, {"i", "s"}) == {"s": "struct<a:decimal(38,9),b:int>"}


def test_parquet_int96_as_bytes_int64_nanoseconds_as_counts_and_micros_not_at_all() -> None:
    info = _file(
        "parquet",
        [
            ("old", "struct<t:timestamp,n:int>"),
            ("nanos", "struct<t:timestamp,u:timestamp,x:bigint>"),
            ("micros", "timestamp"),
        ],
        int96=("old",),
        # nanos.t is nanoseconds (scanned as its count), nanos.u microseconds
        scanned=(Column("nanos", "struct<t:bigint,u:timestamp,x:bigint>"),),
        int64_timestamps=(("nanos", "ns", False), ("micros", "us", False)),
    )
    asked = {
        name: (str(kind), count) for name, kind, count in _asked(info, {"old", "nanos", "micros"})
    }
    assert asked["old"][0] == "struct<t:binary,n:int>"
    assert asked["nanos"][0] == "struct<t:bigint,u:timestamp,x:bigint>"
    assert "micros" not in asked
    # the count reads the nanosecond leaf only, not the bigint beside it
    assert "`nanos`.`t` % 1000" in asked["nanos"][1] and "`x`" not in asked["nanos"][1]


def test_a_column_holding_int96_and_int64_timestamps_is_not_asked_as_bytes() -> None:
    info = _file(
        "parquet",
        [("mixed", "struct<a:timestamp,b:timestamp>")],
        int96=("mixed",),
        int64_timestamps=(("mixed", "us", False),),
    )
    assert _asked(info, {"mixed"}) == []


def test_unreadable_files_and_text_are_not_scanned() -> None:
    assert _asked(_file("orc", [("ts", "timestamp")], error="corrupt"), {"ts"}) == []
    assert _asked(_file("text", [("ts", "timestamp")]), {"ts"}) == []
