"""The nanoseconds of Parquet ``INT96`` timestamps (Hive's, Impala's), which Hive shows and the
targets cannot keep: the independent reader reads ``INT96`` at microseconds (nanoseconds end
in 1677 and 2262), so it reads such columns a second time, at nanoseconds, to count the
values finer than a microsecond. Parquet defines no statistics for ``INT96``: the checksum
level cannot see them (docs/guide/hive-versions.md,
"Timestamps finer than a microsecond").
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from lakeshift.inspect.footers import int96_columns, parquet_leaves
from lakeshift.storage import filesystem_for
from lakeshift.validate.independent.zones import timestamp_leaves


def int96_finer(path: str, columns: list[str]) -> int:
    """Values of the ``INT96`` timestamps in ``columns`` of the Parquet file at ``path``, at
    any depth, with nanoseconds past a microsecond."""
    fs, local = filesystem_for(path)
    with fs.open_input_file(local) as handle:
        wide = pq.ParquetFile(handle, coerce_int96_timestamp_unit="us")
        held = [c for c in int96_columns(parquet_leaves(wide)) if c in columns]
        if not held:
            return 0
        micros = wide.read(columns=held)
        nanos = pq.ParquetFile(handle).read(columns=held)
    return sum(
        _finer(n.combine_chunks(), m.combine_chunks())
        for n, m in zip(nanos.columns, micros.columns)
    )


def _finer(nanos: pa.Array, micros: pa.Array) -> int:
    """``nanos`` and ``micros`` are one column read at both units (the same shape)."""
    found = 0
    for n, m in zip(timestamp_leaves(nanos), timestamp_leaves(micros)):
        if not len(n):
            continue
        # pyarrow counts an INT96 (Julian day, nanoseconds of the day) as day * 86400e9 +
        # nanoseconds, which wraps past 2262, and at microseconds floors the nanoseconds of the
        # day: their difference, in the same wrapping arithmetic, is the nanoseconds past the
        # microsecond either way (0..999).
        wrapped = np.asarray(n.view(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False))
        floored = np.asarray(m.view(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False))
        with np.errstate(over="ignore"):
            found += int(np.count_nonzero(wrapped - floored * np.int64(1000)))
    return found
