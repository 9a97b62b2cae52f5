"""What the ORC footer says that pyarrow does not: timestamps finer than a microsecond."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakeshift.inspect.orc_tail import _fields, dated_columns, read_orc_footer, read_tail
from tests.helpers.hive_tables import varint


@pytest.mark.parametrize(
    ("nanos", "finer"),
    [
        ([1_000_000_000_123, 2_000_000_000_000], True),  # 123 ns past a microsecond
        ([1_000_000_001_000, 2_000_000_000_000], False),  # whole microseconds only
        ([1_000_000_000_000, 2_000_000_000_007], True),  # the maximum's nanoseconds
    ],
)
def test_statistics_show_sub_microsecond_timestamps(
    tmp_path: Path, nanos: list[int], finer: bool
) -> None:
    path = tmp_path / "f.orc"
    orc.write_table(pa.table({"ts": pa.array(nanos, pa.timestamp("ns"))}), str(path))
    with pa.OSFile(str(path)) as handle:
        tail = read_tail(handle, path.stat().st_size)
    assert tail.sub_micros is finer
    assert tail.pre_gregorian is False


@pytest.mark.parametrize("compression", ["uncompressed", "zlib", "snappy", "zstd"])
@pytest.mark.parametrize(
    ("column", "early"),
    [
        ("day", True),  # a top-level date before 1582-10-15
        ("nested", True),  # a timestamp inside a struct, the last statistics entry
        (None, False),
    ],
)
def test_an_early_date_is_found_in_any_column(
    tmp_path: Path, column: str | None, early: bool, compression: str
) -> None:
    # Other columns' statistics are skipped unless they could hold date statistics; the string
    # values hold the key bytes of date (":") and timestamp ("J") statistics, so those are
    # decoded too, and must not be mistaken for dates.
    import datetime as dt

    late_day, late_stamp = dt.date(2020, 1, 1), dt.datetime(2020, 1, 1, 12)
    day = dt.date(1500, 3, 1) if column == "day" else late_day
    stamp = dt.datetime(1400, 1, 1) if column == "nested" else late_stamp
    table = pa.table(
        {
            "id": pa.array([58, 74], pa.int64()),
            "text": pa.array([":J:J", "J:"]),
            "day": pa.array([day, late_day]),
            "nested": pa.array(
                [{"n": 1, "at": stamp}, {"n": 2, "at": late_stamp}],
                pa.struct([("n", pa.int32()), ("at", pa.timestamp("us"))]),
            ),
        }
    )
    path = tmp_path / "f.orc"
    orc.write_table(table, str(path), compression=compression)
    with pa.OSFile(str(path)) as handle:
        tail = read_tail(handle, path.stat().st_size)
    assert tail.pre_gregorian is early


def test_the_dated_columns_are_found_by_their_id_in_the_footers_types(tmp_path: Path) -> None:
    # ids in ORC's preorder numbering: 0 the row struct, 1 id, 2 day, 3 nested, 4 n, 5 at
    table = pa.table(
        {
            "id": pa.array([1], pa.int64()),
            "day": pa.array([0], pa.date32()),
            "nested": pa.array(
                [{"n": 1, "at": 0}], pa.struct([("n", pa.int32()), ("at", pa.timestamp("us"))])
            ),
        }
    )
    path = tmp_path / "f.orc"
    orc.write_table(table, str(path))
    with pa.OSFile(str(path)) as handle:
        footer = read_orc_footer(handle, path.stat().st_size)
    assert footer is not None
    assert dated_columns(footer.types) == (2, 5)
    assert len(footer.fields[7]) == len(footer.types)  # one statistics entry per type


_FIELD = st.tuples(
    st.integers(1, 300),  # two-byte keys from field 16 on
    st.sampled_from([0, 1, 2, 5]),
    st.integers(0, 2**64 - 1),
    st.binary(max_size=200),  # lengths of two bytes from 128 on
)


@given(st.lists(_FIELD, max_size=12), st.none() | st.frozensets(st.integers(1, 300)))
def test_the_wire_decoder_gives_each_wanted_field_its_values_in_order(
    written: list[tuple[int, int, int, bytes]], wanted: frozenset[int] | None
) -> None:
    message = bytearray()
    expected: dict[int, list[int | bytes]] = {}
    for number, wire, integer, text in written:
        value: int | bytes
        message += varint(number << 3 | wire)
        if wire == 0:
            value = integer
            message += varint(integer)
        elif wire == 2:
            value = text
            message += varint(len(text)) + text
        else:
            value = integer.to_bytes(8, "little")[: 8 if wire == 1 else 4]
            message += value
        if wanted is None or number in wanted:
            expected.setdefault(number, []).append(value)
    assert _fields(bytes(message), wanted) == expected
