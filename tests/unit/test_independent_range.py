"""The independent reader's whole value range: ORC timestamps outside pyarrow's nanoseconds
(pyorc fallback) and the hybrid-calendar label of early timestamps."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc
import pytest

from lakeshift.validate.independent.calendar import hybrid_dates
from lakeshift.validate.independent.orc_wide import read_orc_microseconds

STAMP = pa.timestamp("us")
ENDS = [
    dt.datetime(1, 1, 1),
    dt.datetime(1000, 6, 15, 10, 30, 0, 123456),
    dt.datetime(1582, 10, 10, 23, 59, 59),
    dt.datetime(1677, 9, 20, 1, 2, 3),
    dt.datetime(2262, 4, 12, 0, 0, 0, 1),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
    None,
]


def _every_kind(stamps: list[dt.datetime | None]) -> pa.Table:
    n = len(stamps)
    return pa.table(
        {
            "t": pa.array(stamps, STAMP),
            "d": pa.array([s.date() if s else None for s in stamps], pa.date32()),
            "m": pa.array(
                [[("k", s)] if i % 3 else None for i, s in enumerate(stamps)],
                pa.map_(pa.string(), STAMP),
            ),
            "s": pa.array(
                [{"x": s, "n": i} for i, s in enumerate(stamps)],
                pa.struct([("x", STAMP), ("n", pa.int32())]),
            ),
            "l": pa.array([[s, None] for s in stamps], pa.list_(STAMP)),
            "dec": pa.array([Decimal(i) / 100 for i in range(n)], pa.decimal128(7, 2)),
            "b": pa.array([bytes([i]) * i for i in range(n)], pa.binary()),
        }
    )


def _read(path: Path, columns: list[str]) -> pa.Table:
    schema = orc.ORCFile(str(path)).schema
    with path.open("rb") as handle:
        return read_orc_microseconds(handle, columns, schema, str(path))


def test_pyarrow_cannot_read_the_ends_and_the_fallback_reads_every_value(tmp_path: Path) -> None:
    table = _every_kind(ENDS)
    path = tmp_path / "ends.orc"
    orc.write_table(table, str(path))
    with pytest.raises(pa.ArrowInvalid, match="nanosecond"):
        orc.ORCFile(str(path)).read()
    assert _read(path, table.column_names).equals(table)


def test_the_fallback_reads_a_file_in_range_as_pyarrow_does(tmp_path: Path) -> None:
    stamps = [dt.datetime(1970, 1, 1), dt.datetime(2024, 2, 29, 12, 0, 0, 999999), None]
    path = tmp_path / "in_range.orc"
    orc.write_table(_every_kind(stamps), str(path))
    columns = ["s", "t", "b"]  # a subset, out of file order
    # pyarrow: timestamps in nanoseconds, columns in the file's order
    expected = orc.ORCFile(str(path)).read(columns=columns).select(columns)
    got = _read(path, columns)
    assert got.column_names == columns
    assert got.column("t").type == STAMP
    assert got.cast(expected.schema).equals(expected)


def test_early_timestamps_show_their_julian_label_with_the_time_of_day() -> None:
    # Day numbers counted in the hybrid calendar (a Java writer's, or Hive's reading of a file
    # without the proleptic mark): before 1582-10-15 the label is the Julian calendar's.
    stamps = pa.array(ENDS, STAMP)
    shown = hybrid_dates(stamps).to_pylist()
    assert (
        shown
        == [
            dt.datetime(1, 1, 3),  # Julian 0001-01-01 is proleptic 0000-12-30: two days apart
            dt.datetime(1000, 6, 9, 10, 30, 0, 123456),  # six days after Julian 1000-02-29
            dt.datetime(1582, 9, 30, 23, 59, 59),  # ten days, the gap of October 1582
            *ENDS[3:],  # the Gregorian calendar from 1582-10-15 on: unchanged
        ]
    )
    as_dates = hybrid_dates(pa.array([s.date() if s else None for s in ENDS], pa.date32()))
    assert as_dates.to_pylist() == [s.date() if s else None for s in shown]


@pytest.mark.parametrize("unit", ["s", "ms", "us"])
def test_the_label_is_the_same_in_every_unit(unit: str) -> None:
    stamps = pa.array([dt.datetime(1000, 1, 1, 10, 30)], pa.timestamp(unit))
    assert hybrid_dates(stamps).to_pylist() == [dt.datetime(999, 12, 27, 10, 30)]
    assert hybrid_dates(stamps).type == pa.timestamp(unit)


def test_timestamps_finer_than_a_microsecond_are_counted_at_every_depth() -> None:
    from lakeshift.validate.independent.task import finer_than_micros

    stamps = pa.array([1_000, 1_001, None, 2_000_999], pa.timestamp("ns"))
    nested = pa.StructArray.from_arrays([stamps], names=["t"])
    listed = pa.ListArray.from_arrays(pa.array([0, 1, 2, 3, 4], pa.int32()), stamps)
    micros = pa.array([1, 2, None, 3], pa.timestamp("us"))
    table = pa.table({"t": stamps, "s": nested, "l": listed, "u": micros})
    assert finer_than_micros(table) == 2 * 3  # 1001 and 2000999 ns, in each ns column


def test_int96_nanoseconds_are_counted_past_pyarrows_nanosecond_range(tmp_path: Path) -> None:
    """INT96 timestamps read at nanoseconds wrap past 2262; the nanoseconds past a microsecond
    still come out of the two readings' difference, nested ones included."""

    import pyarrow.parquet as pq

    from lakeshift.validate.independent.int96 import int96_finer

    late = pa.array([dt.datetime(3000, 1, 1, 0, 0, 0, 1), None], pa.timestamp("us"))
    fine = pa.array([1_600_000_000_123_456_789, -1], pa.timestamp("ns"))
    table = pa.table({"late": late, "fine": fine,
                      "s": pa.StructArray.from_arrays([fine], names=["t"]),
                      "n": pa.array([1, 2])})  # fmt: skip
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, use_deprecated_int96_timestamps=True)
    assert int96_finer(str(path), ["late"]) == 0  # year 3000: wrapped, whole microseconds
    assert int96_finer(str(path), ["late", "fine", "s", "n"]) == 4
    pq.write_table(table, path)  # INT64: counted from the table itself, not here
    assert int96_finer(str(path), ["late", "fine", "s"]) == 0
