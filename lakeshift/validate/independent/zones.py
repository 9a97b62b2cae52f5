"""Timestamps of ORC files that name no writer time zone (writers before Hive 1.0), read as a
Hive whose JVMs run in a given zone reads them.

Every ORC reader takes such a file's seconds as counted from 2015-01-01 00:00 in its own
process's zone and shows the instant's wall clock in its reader zone (Java's
``TimestampTreeReader``: ``TimeZone.getDefault()``; ORC's C++ reader, which pyarrow runs:
``/etc/localtime``). pyarrow therefore reads them in this host's zone; each value is taken
back to the seconds the file holds and read again in Hive's (``spark_sql.zoned_read`` does
the same in Spark, which lakeshift runs in UTC). Hand-written: no library re-reads a
timestamp in another zone's ORC epoch. Per value in Python: such files are rare.
"""

from __future__ import annotations

import datetime as dt
import os
from functools import lru_cache
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa

from lakeshift.validate.independent.calendar import holds

_BASE = dt.datetime(2015, 1, 1)  # ORC's timestamp epoch, in the writer's zone
_EPOCH = dt.datetime(1970, 1, 1)
_PER_SECOND = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}
_ZONEINFO = "/zoneinfo/"
_UTC = frozenset({"UTC", "Etc/UTC", "UCT", "Etc/UCT", "Zulu", "Etc/Zulu", "GMT", "Etc/GMT",
                  "Universal", "Etc/Universal"})  # fmt: skip


@lru_cache(maxsize=1)
def host_zone() -> dt.tzinfo:
    """The zone ORC's C++ reader takes for such files here: ``/etc/localtime`` (UTC where
    there is none)."""
    path = os.path.realpath("/etc/localtime")
    if _ZONEINFO in path:
        try:
            return ZoneInfo(path.rsplit(_ZONEINFO, 1)[1])
        except (ValueError, OSError):
            pass
    try:
        with open("/etc/localtime", "rb") as handle:
            return ZoneInfo.from_file(handle)
    except (OSError, ValueError):
        return dt.timezone.utc


def _name(zone: dt.tzinfo) -> str:
    return "UTC" if zone is dt.timezone.utc else str(getattr(zone, "key", None) or zone)


def has_timestamps(kind: pa.DataType) -> bool:
    """Whether values of ``kind`` hold a timestamp at any depth."""
    return holds(kind, pa.types.is_timestamp)


def zoned(array: pa.Array | pa.ChunkedArray, zone: str) -> pa.Array:
    """Every timestamp in ``array`` (read here from a file naming no writer zone) as a reader
    in JVM zone ``zone`` shows it."""
    host = host_zone()
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    name = _name(host)
    if name == zone or (name in _UTC and zone in _UTC):
        return array
    return _zoned(array, host, ZoneInfo(zone))


def _zoned(array: pa.Array, host: dt.tzinfo, zone: dt.tzinfo) -> pa.Array:
    kind = array.type
    if array.offset and array.null_count and (pa.types.is_list(kind) or pa.types.is_map(kind)):
        array = pa.concat_arrays([array])  # Arrow rebuilds no sliced offsets with NULLs
    nulls = array.is_null() if array.null_count else None
    if pa.types.is_timestamp(kind):
        return _leaf(array, host, zone)
    if pa.types.is_struct(kind):
        children = [_zoned(child, host, zone) for child in array.flatten()]
        return pa.StructArray.from_arrays(children, fields=list(kind), mask=nulls)
    if pa.types.is_list(kind):
        values = _zoned(array.values, host, zone)
        return pa.ListArray.from_arrays(array.offsets, values, type=kind, mask=nulls)
    if pa.types.is_map(kind):
        keys, items = _zoned(array.keys, host, zone), _zoned(array.items, host, zone)
        return pa.MapArray.from_arrays(array.offsets, keys, items, type=kind, mask=nulls)
    return array


def _leaf(array: pa.Array, host: dt.tzinfo, zone: dt.tzinfo) -> pa.Array:
    per_second = _PER_SECOND[array.type.unit]
    raw = np.asarray(array.view(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False))
    seconds, fraction = np.divmod(raw, per_second)
    shift = _base_offset(host) - _base_offset(zone)
    moved = seconds.copy()
    for index, value in enumerate(seconds.tolist()):
        try:
            wall = _EPOCH + dt.timedelta(seconds=value)
            instant = wall.replace(tzinfo=host).astimezone(dt.timezone.utc).replace(tzinfo=None)
            again = (instant + shift).replace(tzinfo=dt.timezone.utc).astimezone(zone)
        except (OverflowError, ValueError):  # past datetime's years: left as read
            continue
        moved[index] = (again.replace(tzinfo=None) - _EPOCH) // dt.timedelta(seconds=1)
    values = moved * per_second + fraction
    mask = np.asarray(array.is_null().to_numpy(zero_copy_only=False), bool)
    return pa.array(values, pa.int64(), mask=mask).view(array.type)


def _base_offset(zone: dt.tzinfo) -> dt.timedelta:
    """The zone's offset at ORC's epoch, 2015-01-01 00:00 there."""
    return _BASE.replace(tzinfo=zone).utcoffset() or dt.timedelta(0)
