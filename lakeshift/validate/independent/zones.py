"""Timestamps as a Hive whose JVMs run in a zone other than UTC shows them: those of ORC files
that name no writer time zone (writers before Hive 1.0), and the instants Hive 1.2/2.x and
ORC 1.3-1.5 take in that zone when they convert (``wall_clock``, ``instant_of``;
``hive.types.zone_rule``).

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
from collections.abc import Callable, Iterator
from functools import lru_cache
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakeshift.hive.datetimes import JAVA_ZONE_TABLE_START, java_raw_offset
from lakeshift.hive.semantics import UTC_ZONES as _UTC
from lakeshift.validate.independent.calendar import holds

_BASE = dt.datetime(2015, 1, 1)  # ORC's timestamp epoch, in the writer's zone
_EPOCH = dt.datetime(1970, 1, 1)
_PER_SECOND = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}
_ZONEINFO = "/zoneinfo/"


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
    return _each_timestamp(array, lambda leaf: _leaf(leaf, host, zone))


def int96_shown(array: pa.Array | pa.ChunkedArray, zone: str, java_util: bool) -> pa.Array:
    """Every timestamp in ``array`` (a Parquet column holding INT96 UTC instants) as the wall
    clock Hive shows for it in ``zone``: by java.util's zones (``java_util``: Hive 1.2/2.x's
    ``java.sql.Timestamp``, Hive 4's legacy conversion) or by java.time's
    (``TimestampTZUtil.convertTimestampToZone``: local mean time before 1900), as
    ``hive.semantics.int96_reading`` decides."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return _each_timestamp(array, lambda leaf: wall_clock(leaf, zone, java_util))


def timestamp_leaves(array: pa.Array) -> Iterator[pa.Array]:
    """The timestamp arrays inside ``array`` at any depth, in schema order: itself, a struct's
    fields, a list's elements, a map's keys and items (values under a NULL parent included)."""
    kind = array.type
    if pa.types.is_timestamp(kind):
        yield array
    elif pa.types.is_struct(kind):
        for child in array.flatten():
            yield from timestamp_leaves(child)
    elif pa.types.is_map(kind):
        yield from timestamp_leaves(array.keys)
        yield from timestamp_leaves(array.items)
    elif pa.types.is_list(kind) or pa.types.is_large_list(kind):
        yield from timestamp_leaves(array.flatten())


def finer_than_micros(table: pa.Table) -> int:
    """Timestamp values, at any depth, with digits below a microsecond (pyarrow reads ORC
    timestamps in nanoseconds; the targets keep microseconds)."""
    return sum(_finer(column.combine_chunks()) for column in table.columns)


def _finer(array: pa.Array) -> int:
    found = 0
    for stamps in timestamp_leaves(array):
        if stamps.type.unit == "ns" and len(stamps):
            raw = stamps.view(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
            found += int(np.count_nonzero(np.asarray(raw) % 1000))
    return found


def _each_timestamp(array: pa.Array, leaf: Callable[[pa.Array], pa.Array]) -> pa.Array:
    """``array`` with ``leaf`` applied to its timestamps at any depth."""
    kind = array.type
    if array.offset and array.null_count and (pa.types.is_list(kind) or pa.types.is_map(kind)):
        array = pa.concat_arrays([array])  # Arrow rebuilds no sliced offsets with NULLs
    nulls = array.is_null() if array.null_count else None
    if pa.types.is_timestamp(kind):
        return leaf(array)
    if pa.types.is_struct(kind):
        children = [_each_timestamp(child, leaf) for child in array.flatten()]
        return pa.StructArray.from_arrays(children, fields=list(kind), mask=nulls)
    if pa.types.is_list(kind):
        values = _each_timestamp(array.values, leaf)
        return pa.ListArray.from_arrays(array.offsets, values, type=kind, mask=nulls)
    if pa.types.is_map(kind):
        keys, items = _each_timestamp(array.keys, leaf), _each_timestamp(array.items, leaf)
        return pa.MapArray.from_arrays(array.offsets, keys, items, type=kind, mask=nulls)
    return array


def _leaf(array: pa.Array, host: dt.tzinfo, zone: dt.tzinfo) -> pa.Array:
    per_second = _PER_SECOND[array.type.unit]
    raw = np.asarray(array.view(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False))
    seconds, fraction = np.divmod(raw, per_second)
    shift = _base_offset(host) - _base_offset(zone)
    # java.util.TimeZone, which ORC's Java reader asks, gives instants before 1900 the raw offset
    start = _EPOCH + dt.timedelta(seconds=JAVA_ZONE_TABLE_START)
    standard = dt.timedelta(seconds=java_raw_offset(_name(zone)))
    moved = seconds.copy()
    for index, value in enumerate(seconds.tolist()):
        try:
            wall = _EPOCH + dt.timedelta(seconds=value)
            instant = wall.replace(tzinfo=host).astimezone(dt.timezone.utc).replace(tzinfo=None)
            instant += shift
            if instant < start:
                again = instant + standard
            else:
                again = instant.replace(tzinfo=dt.timezone.utc).astimezone(zone)
        except (OverflowError, ValueError):  # past datetime's years: left as read
            continue
        moved[index] = (again.replace(tzinfo=None) - _EPOCH) // dt.timedelta(seconds=1)
    values = moved * per_second + fraction
    mask = np.asarray(array.is_null().to_numpy(zero_copy_only=False), bool)
    return pa.array(values, pa.int64(), mask=mask).view(array.type)


def _base_offset(zone: dt.tzinfo) -> dt.timedelta:
    """The zone's offset at ORC's epoch, 2015-01-01 00:00 there."""
    return _BASE.replace(tzinfo=zone).utcoffset() or dt.timedelta(0)


def wall_clock(array: pa.Array, zone: str, java_util: bool = True) -> pa.Array:
    """Timestamps holding UTC instants, as the wall clock a JVM in ``zone`` shows for each
    (``java.sql.Timestamp``; ``spark_sql.zone_wall_clock``; not ``java_util``: as java.time
    shows it, by the zone's local mean time before 1900)."""
    return pc.add(array, _offsets(array, zone, wall=False, java_util=java_util))


def instant_of(array: pa.Array, zone: str) -> pa.Array:
    """Wall clocks in ``zone`` as the UTC instants (naive) a JVM there gives them
    (``java.sql.Timestamp.valueOf``: ``ZoneInfo.getOffsetsByWall``): the later of the two
    instants around a change, so a wall clock in a daylight-saving gap is taken by the offset
    before it (02:30 is 03:30's instant) and one shown twice is its second instant
    (``spark_sql.zone_instant``)."""
    return pc.subtract(array, _offsets(array, zone, wall=True))


_BOUND_SECONDS = 2**62 // 1_000_000  # spark_sql._ZONED_BOUND in seconds
_CYCLE = 146_097 * 86_400  # seconds in 400 Gregorian years, after which a zone's rules repeat
_FIRST = (dt.datetime(1, 1, 2) - _EPOCH) // dt.timedelta(seconds=1)
_LAST = (dt.datetime(9999, 12, 30) - _EPOCH) // dt.timedelta(seconds=1)


def _offsets(array: pa.Array, zone: str, *, wall: bool, java_util: bool = True) -> pa.Array:
    """Each value's offset in ``zone`` (a duration in the array's unit): of the instant it
    holds, or (``wall``) the one ``instant_of`` takes its wall clock by. Arrow computes them
    (``assume_timezone`` resolves a gap to its edge, whose offset is the one before the gap)
    up to ``_arrow_until``; later values, which Arrow reads from the zone file's listed changes
    only, per value by ``zoneinfo``, which follows the zone's rule for later years as Java
    does."""
    unit = array.type.unit
    per_second = _PER_SECOND[unit]
    raw = np.asarray(array.view(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False))
    huge = np.abs(raw) >= _BOUND_SECONDS * per_second
    late = (raw >= _arrow_until(zone) * per_second) & ~huge
    early = pa.array(np.where(late | huge, 0, raw), pa.int64()).view(pa.timestamp(unit))
    if wall:
        early = pc.assume_timezone(early, zone, ambiguous="latest", nonexistent="earliest")
    shown = pc.local_timestamp(early.cast(pa.timestamp(unit, tz=zone)))
    offsets = np.array(pc.subtract(shown.view(pa.int64()), early.view(pa.int64())))
    if late.any():
        info = ZoneInfo(zone)
        for index in np.flatnonzero(late).tolist():
            offsets[index] = _python_offset(int(raw[index]) // per_second, info, wall) * per_second
    # java.util.TimeZone keeps no change before 1900: every earlier instant has the raw offset
    start, standard = JAVA_ZONE_TABLE_START * per_second, java_raw_offset(zone) * per_second
    if java_util:
        offsets = np.where((raw - standard if wall else raw) < start, standard, offsets)
    # past about year 148,000 either way a value keeps its wall clock (spark_sql._ZONED_BOUND)
    offsets = np.where(huge, 0, offsets)
    mask = np.asarray(array.is_null().to_numpy(zero_copy_only=False), bool)
    return pa.array(offsets, pa.int64(), mask=mask).cast(pa.duration(unit))


def _python_offset(seconds: int, zone: ZoneInfo, wall: bool) -> int:
    """``_offsets`` of one value, in seconds, by ``zoneinfo`` (past year 9999 by the same
    moment 400 years earlier, as often as needed: the calendar and the zone's rules repeat)."""
    if seconds > _LAST:
        seconds -= -(-(seconds - _LAST) // _CYCLE) * _CYCLE
    moment = _EPOCH + dt.timedelta(seconds=max(seconds, _FIRST))
    if wall:  # the later instant: the smaller of the offsets its two readings have
        offsets = [moment.replace(tzinfo=zone, fold=f).utcoffset() for f in (0, 1)]
        return min(o or dt.timedelta(0) for o in offsets) // dt.timedelta(seconds=1)
    shown = moment.replace(tzinfo=dt.timezone.utc).astimezone(zone).utcoffset()
    return (shown or dt.timedelta(0)) // dt.timedelta(seconds=1)


@lru_cache(maxsize=64)
def _arrow_until(zone: str) -> int:
    """Seconds since 1970 from which Arrow's offsets for ``zone`` are not trusted: the first
    year from 1970 whose January or July offset Arrow gives unlike ``zoneinfo`` (Arrow takes
    the zone file's listed changes only: to 2037 in full files, fewer in slim ones), 2037 at
    the latest."""
    info = ZoneInfo(zone)
    probes = [dt.datetime(year, month, 15) for year in range(1970, 2037) for month in (1, 7)]
    instants = pa.array(probes, pa.timestamp("s"))
    shown = pc.local_timestamp(instants.cast(pa.timestamp("s", tz=zone))).to_pylist()
    for probe, arrow in zip(probes, shown, strict=True):
        python = probe.replace(tzinfo=dt.timezone.utc).astimezone(info).replace(tzinfo=None)
        if arrow != python:
            return (dt.datetime(probe.year, 1, 1) - _EPOCH) // dt.timedelta(seconds=1)
    return (dt.datetime(2037, 1, 1) - _EPOCH) // dt.timedelta(seconds=1)
