"""The independent reader's reading of ORC files that name no writer zone (pure logic): what
pyarrow read in the host's zone, read again as a JVM in Hive's zone reads it."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pyarrow as pa

from lakeshift.validate.independent.zones import _zoned

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
