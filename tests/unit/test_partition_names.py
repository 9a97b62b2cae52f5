from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.partition_names import (
    escape_path_name,
    parse_partition_name,
    partition_name,
    unescape_path_name,
)


def test_hive_escapes_the_characters_it_escapes() -> None:
    assert escape_path_name("a/b:c=d%e") == "a%2Fb%3Ac%3Dd%25e"
    assert escape_path_name("it's #1 [x]^{y}") == "it%27s %231 %5Bx%5D%5E%7By}"
    assert escape_path_name("naïve ü 日本") == "naïve ü 日本"  # non-ASCII stays


def test_null_and_empty_values_use_the_default_partition_name() -> None:
    assert partition_name(["a", "b"], [None, ""]) == (
        "a=__HIVE_DEFAULT_PARTITION__/b=__HIVE_DEFAULT_PARTITION__"
    )
    assert parse_partition_name("a=__HIVE_DEFAULT_PARTITION__") == [("a", None)]


@given(st.text(min_size=1))
def test_escape_round_trips(value: str) -> None:
    assert unescape_path_name(escape_path_name(value)) == value


@given(st.lists(st.text(min_size=1), min_size=1, max_size=3))
def test_partition_names_round_trip(values: list[str]) -> None:
    keys = [f"k{i}" for i in range(len(values))]
    name = partition_name(keys, values)
    assert parse_partition_name(name) == list(zip(keys, values))


def test_filter_globs_ranges_and_null() -> None:
    names = [f"dt={d}" for d in (20220101, 20220102, 20220110, 20220201)]
    names.append("dt=__HIVE_DEFAULT_PARTITION__")
    assert PartitionFilter.parse("dt=202201*").select(names) == names[:3]
    assert PartitionFilter.parse("dt=20220102..20220110").select(names) == names[1:3]
    assert PartitionFilter.parse("NULL").select(names) == [names[-1]]
    assert PartitionFilter.parse(None).select(names) == names


def test_range_on_second_key_keeps_first_key() -> None:
    names = ["c=us/d=1", "c=us/d=5", "c=de/d=3"]
    assert PartitionFilter.parse("c=us/d=2..9").select(names) == ["c=us/d=5"]
