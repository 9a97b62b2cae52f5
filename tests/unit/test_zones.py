"""The independent reader's reading of ORC files that name no writer zone (pure logic): what
pyarrow read in the host's zone, read again as a JVM in Hive's zone reads it."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pyarrow as pa

from lakeshift.validate.independent.zones import _zoned, instant_of, wall_clock

NEW_YORK = ZoneInfo("America/New_York")
STAMPS = [dt.datetime(2020, 1, 15, 10, 0), dt.datetime(2020, 7, 15, 10, 0, 0, 500000), None]


def test_a_summer_value_reads_an_hour_later_in_new_york_than_in_utc() -> None:
    # ORC counts the file's seconds from 2015-01-01 00:00 in the reader's JVM zone (EST then)
    read_in_utc = pa.array(STAMPS, pa.timestamp("us"))
    in_new_york = _zoned(read_in_utc, dt.timezone.utc, NEW_YORK).to_pylist()
    assert in_new_york == [STAMPS[0], dt.datetime(2020, 7, 15, 11, 0, 0, 500000), None]
    # and back: a New York host's reading, read as a Hive in UTC reads it
    read_in_new_york = pa.array(in_new_york, pa.timestamp("us"))
    assert _zoned(read_in_new_york, NEW_YORK, dt.timezone.utc).to_pylist() == STAMPS


def test_nested_and_sliced_values_are_read_again_too() -> None:
    lists = pa.array([[STAMPS[1]], None, [STAMPS[1], None]], pa.list_(pa.timestamp("us")))
    shown = _zoned(lists.slice(1), dt.timezone.utc, NEW_YORK).to_pylist()
    assert shown == [None, [dt.datetime(2020, 7, 15, 11, 0, 0, 500000), None]]


ZONES = ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/St_Johns",
         "Asia/Kolkata", "America/Sao_Paulo", "Pacific/Apia"]  # fmt: skip


def _walls(zone: ZoneInfo) -> list[dt.datetime]:
    """Every half hour around each of the zone's changes in 2011 and 2020 (and a few
    ordinary values), naive."""
    walls = [dt.datetime(1900, 3, 1), dt.datetime(1970, 1, 1), dt.datetime(2038, 6, 1, 12)]
    for year in (2011, 2020):
        hour = dt.datetime(year, 1, 1)
        previous = hour.replace(tzinfo=zone).utcoffset()
        while hour.year == year:
            offset = hour.replace(tzinfo=zone).utcoffset()
            if offset != previous:
                walls += [hour + dt.timedelta(minutes=m) for m in range(-180, 181, 15)]
            previous, hour = offset, hour + dt.timedelta(hours=1)
    return walls


def test_wall_clocks_take_the_later_instant_around_a_change_as_java_sql_does() -> None:
    """Brute force: of the two readings around a change (Python's ``fold``), the later instant
    (``Timestamp.valueOf``'s ``ZoneInfo.getOffsetsByWall``: a gap's wall clock by the offset
    before it, a fold's second instant; Hive 2.3.9 in New York shows both)."""
    for name in ZONES:
        zone = ZoneInfo(name)
        walls = _walls(zone)
        expected = [
            max(w.replace(tzinfo=zone, fold=f).astimezone(dt.UTC) for f in (0, 1)).replace(
                tzinfo=None
            )
            for w in walls
        ]
        assert instant_of(pa.array(walls, pa.timestamp("us")), name).to_pylist() == expected, name
        # and the other way: the instant's wall clock there
        shown = wall_clock(pa.array(expected, pa.timestamp("us")), name).to_pylist()
        assert shown == [
            e.replace(tzinfo=dt.UTC).astimezone(zone).replace(tzinfo=None) for e in expected
        ], name


def test_before_1900_every_value_has_the_zones_raw_offset_as_java_util_gives_it() -> None:
    """java.util.TimeZone keeps no change before 1900 (Hive 2.3.9 in New York counts 1781 at
    -5:00, not the local mean time -4:56:02 java.time and Python have)."""
    walls = pa.array([dt.datetime(1800, 1, 1), dt.datetime(2, 1, 1), None], pa.timestamp("us"))
    for zone, hours in (("America/New_York", -5), ("Asia/Kolkata", 5.5), ("Europe/Dublin", 0)):
        shift = dt.timedelta(hours=hours)
        instants = instant_of(walls, zone).to_pylist()
        assert instants == [dt.datetime(1800, 1, 1) - shift, dt.datetime(2, 1, 1) - shift, None]
        assert wall_clock(instant_of(walls, zone), zone).to_pylist() == walls.to_pylist()


def test_a_gap_moves_on_and_a_fold_takes_winter_in_new_york() -> None:
    walls = pa.array([dt.datetime(2020, 3, 8, 2, 30), dt.datetime(2020, 11, 1, 1, 30), None],
                     pa.timestamp("us"))  # fmt: skip
    instants = instant_of(walls, "America/New_York")
    assert instants.to_pylist() == [dt.datetime(2020, 3, 8, 7, 30), dt.datetime(2020, 11, 1, 6, 30),
                                    None]  # fmt: skip
    assert wall_clock(instants, "America/New_York").to_pylist()[0] == dt.datetime(2020, 3, 8, 3, 30)


def test_zoneless_values_before_1900_take_the_raw_offset_as_orcs_java_reader_does() -> None:
    """ORC's ``TimestampTreeReader`` asks java.util.TimeZone, which gives New York -5:00 in
    1850 (its offset at ORC's epoch too): such a value reads as written, not 3:58 later as the
    local mean time java.time and Python know (-4:56:02) would make it."""
    early = pa.array([dt.datetime(1850, 6, 1, 10, 0), None], pa.timestamp("us"))
    assert _zoned(early, dt.timezone.utc, NEW_YORK).to_pylist() == early.to_pylist()
