"""Day numbers counted in the hybrid Julian/Gregorian calendar, shown as Hive 4 shows them.

A Java ORC reader that knows calendars (Hive 4, Spark; not Apache Hive 3.1, which shows every
day number as stored: ``calendar = "proleptic"``) reads the days of a file whose footer does not say
"proleptic" as hybrid-calendar days and shows the same calendar label in the proleptic
Gregorian calendar: 1000-01-01 stays 1000-01-01 although the two calendars count it 5 days
apart. pyarrow gives the raw day number, so the independent reader converts it here, by the
Julian day-number formulas (before 1582-10-15 the hybrid calendar is the Julian one).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

from lakeshift.hive.datetimes import SWITCH_DAY as GREGORIAN_START
from lakeshift.hive.datetimes import UNIX_JDN as _EPOCH_JDN


def julian_label_to_proleptic(days: np.ndarray) -> np.ndarray:
    """Days since 1970 of the proleptic date bearing the Julian date of ``days``."""
    c = days + _EPOCH_JDN + 32082
    d = (4 * c + 3) // 1461
    e = c - (1461 * d) // 4
    m = (5 * e + 2) // 153
    day = e - (153 * m + 2) // 5 + 1
    month = m + 3 - 12 * (m // 10)
    year = d - 4800 + m // 10
    a = (14 - month) // 12
    y = year + 4800 - a
    mm = month + 12 * a - 3
    jdn = day + (153 * mm + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045
    return jdn - _EPOCH_JDN


def proleptic_label_to_julian(days: np.ndarray) -> np.ndarray:
    """Days since 1970 of the Julian calendar date that the proleptic date ``days`` bears (the
    inverse of ``julian_label_to_proleptic``)."""
    dates = days.astype("datetime64[D]")
    months = dates.astype("datetime64[M]")
    year = months.astype(np.int64) // 12 + 1970
    month = months.astype(np.int64) % 12 + 1
    day = (dates - months).astype(np.int64) + 1
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    return day + (153 * m + 2) // 5 + 365 * y + y // 4 - 32083 - _EPOCH_JDN


def hybrid_seconds(array: pa.Array) -> pa.Array:
    """Timestamps (wall clocks) as the instants ``java.sql.Timestamp`` gives them, whose seconds
    Hive 1.2/2.x count when they read a timestamp as a number: before 1582-10-15 the date is
    read in the Julian calendar."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    per_day = _PER_DAY[array.type.unit]
    raw = np.asarray(array.view(pa.int64()).fill_null(0).to_numpy(), np.int64)
    days = np.floor_divide(raw, per_day)
    early = days < GREGORIAN_START
    if not early.any():
        return array
    shifted = np.where(early, proleptic_label_to_julian(days), days)
    values = raw + (shifted - days) * per_day
    mask = np.asarray(array.is_null().to_numpy(zero_copy_only=False), bool)
    return pa.array(values, pa.int64(), mask=mask).view(array.type)


_PER_DAY = {"s": 86_400, "ms": 86_400_000, "us": 86_400_000_000, "ns": 86_400_000_000_000}


def _relabel_days(array: pa.Array, per_day: int, storage: pa.DataType) -> pa.Array:
    """Values counted in ``per_day`` units a day, their day relabelled, the time of day kept."""
    raw = np.asarray(array.view(storage).fill_null(0).to_numpy(), np.int64)
    days = np.floor_divide(raw, per_day)
    if not (days < GREGORIAN_START).any():
        return array
    shown = np.where(days < GREGORIAN_START, julian_label_to_proleptic(days), days)
    values = shown * per_day + (raw - days * per_day)
    mask = np.asarray(array.is_null().to_numpy(zero_copy_only=False), bool)
    return pa.array(values.astype(storage.to_pandas_dtype()), storage, mask=mask).view(array.type)


def hybrid_dates(array: pa.Array) -> pa.Array:
    """Every date and timestamp in ``array`` (nested ones too) read as Hive 4 and Spark read
    a hybrid file: a timestamp's day as a date's, its time of day kept."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    kind = array.type
    if pa.types.is_date32(kind):
        return _relabel_days(array, 1, pa.int32())
    if pa.types.is_timestamp(kind):
        return _relabel_days(array, _PER_DAY[kind.unit], pa.int64())
    if pa.types.is_struct(kind):
        children = [hybrid_dates(child) for child in array.flatten()]
        nulls = array.is_null() if array.null_count else None
        return pa.StructArray.from_arrays(children, fields=list(kind), mask=nulls)
    if pa.types.is_list(kind):
        nulls = array.is_null() if array.null_count else None
        return pa.ListArray.from_arrays(
            array.offsets, hybrid_dates(array.values), type=kind, mask=nulls
        )
    if pa.types.is_map(kind):
        nulls = array.is_null() if array.null_count else None
        return pa.MapArray.from_arrays(
            array.offsets,
            hybrid_dates(array.keys),
            hybrid_dates(array.items),
            type=kind,
            mask=nulls,
        )
    return array


def has_dates(kind: pa.DataType) -> bool:
    """Whether values of ``kind`` hold a date or timestamp at any depth (what ``hybrid_dates``
    changes)."""
    return holds(kind, lambda k: pa.types.is_date32(k) or pa.types.is_timestamp(k))


def holds(kind: pa.DataType, test: Callable[[pa.DataType], bool]) -> bool:
    """Whether ``kind`` or a type at any depth inside it passes ``test``."""
    if test(kind):
        return True
    if pa.types.is_struct(kind):
        return any(holds(kind.field(i).type, test) for i in range(kind.num_fields))
    if pa.types.is_list(kind):
        return holds(kind.value_type, test)
    if pa.types.is_map(kind):
        return holds(kind.key_type, test) or holds(kind.item_type, test)
    return False
