"""What the ORC footer says that pyarrow does not: timestamps finer than a microsecond."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc
import pytest

from lakeshift.inspect.orc_tail import read_tail


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
