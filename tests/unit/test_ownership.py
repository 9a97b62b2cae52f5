"""What an Iceberg table owns, and what a Hive table keeps while a lake table reads it: the
rules that decide which files maintenance, erasure and retirement may delete or rewrite."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from lakeshift.erase.report import markdown
from lakeshift.erase.state import AUDITED, ErasureState
from lakeshift.errors import RefusedInput
from lakeshift.formats.iceberg_ownership import _hidden
from lakeshift.maintain.layout import _is_absolute, partition_predicate
from lakeshift.metastore.partition_names import partition_name_of_path
from lakeshift.route.retire_files import check_not_read
from lakeshift.storage import Store, relative_to


@pytest.mark.parametrize(
    ("location", "relative"),
    [
        ("file:/w/t/data/a.parquet", "data/a.parquet"),
        ("file:///w/t/data/a.parquet", "data/a.parquet"),
        ("/w/t/metadata/", "metadata"),
        ("file:/w/t2/data/a.parquet", None),  # a sibling sharing the prefix
        ("file:/w/t", None),  # the root itself is no file below it
        ("file:/hive/t/dt=1/000000_0", None),
        ("s3a://b/w/t/x", None),
    ],
)
def test_a_file_is_the_tables_only_below_its_location(location: str, relative: str | None) -> None:
    assert Store("file:/w/t/").relative(location) == relative


def test_object_store_spellings_and_authorities() -> None:
    assert relative_to("s3://bucket/w/t/data/a", "s3a://bucket/w/t") == "data/a"
    assert relative_to("s3://other/w/t/data/a", "s3a://bucket/w/t") is None
    # Another namenode, or none named, is elsewhere: a doubt must keep the file.
    assert relative_to("hdfs://nn1/w/t/a", "hdfs://nn1/w/t") == "a"
    assert relative_to("hdfs://nn2/w/t/a", "hdfs://nn1/w/t") is None
    assert relative_to("hdfs:///w/t/a", "hdfs://nn1/w/t") is None


def test_hidden_paths_are_skipped_as_iceberg_skips_them() -> None:
    assert _hidden("_lakeshift/backfills.json") and _hidden("data/.a.parquet.crc")
    assert not _hidden("data/_k=1/a.parquet") and not _hidden("data/dt=1/a.parquet")


def test_paths_relative_to_the_table_are_not_foreign() -> None:
    assert _is_absolute("file:/w/a") and _is_absolute("/w/a") and _is_absolute("s3a://b/a")
    assert not _is_absolute("dt=1/part-0.parquet")
    assert not _is_absolute("ts=2024-01-01 10%3A00/part-0.parquet")


def test_partition_of_a_hive_directory() -> None:
    assert partition_name_of_path("file:/h/t/dt=01/000000_0", ["dt"]) == "dt=01"
    assert partition_name_of_path("/h/t/a=x%2Fy/b=2/f", ["a", "b"]) == "a=x%2Fy/b=2"
    assert partition_name_of_path("/h/t/dt=1/HIVE_UNION_SUBDIR_1/f", ["dt"]) is None
    assert partition_name_of_path("/elsewhere/f", ["dt"]) is None


def test_compaction_predicate_names_exactly_the_partitions() -> None:
    one = partition_predicate(["dt"], {"dt": "string"}, [{"dt": "b"}, {"dt": None}, {"dt": "a"}])
    assert one == "(`dt` IS NULL OR `dt` IN ('a', 'b'))"
    two = partition_predicate(
        ["d", "n"],
        {"d": "date", "n": "decimal(5,2)"},
        [{"d": dt.date(2024, 1, 2), "n": Decimal("1.50")}, {"d": None, "n": Decimal("2.00")}],
    )
    assert two == (
        "((`d` = DATE'2024-01-02' AND `n` = CAST('1.50' AS DECIMAL(5,2))) OR "
        "(`d` IS NULL AND `n` = CAST('2.00' AS DECIMAL(5,2))))"
    )
    # Thousands of partitions nest a few levels deep, not thousands.
    many = partition_predicate(
        ["a", "b"], {"a": "int", "b": "int"}, [{"a": i, "b": i} for i in range(4096)]
    )
    depth = deepest = 0
    for ch in many:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        deepest = max(deepest, depth)
    assert deepest <= 14


def test_retire_keeps_files_the_lake_table_still_reads() -> None:
    listed = [{"path": "file:/h/t/dt=1/000000_0"}, {"path": "file:/h/t/dt=2/000000_0"}]
    check_not_read(listed, ["file:///h/t/dt=3/000000_0"], "Iceberg table db.t")
    with pytest.raises(RefusedInput, match=r"1 file\(s\).*dt=1/000000_0.*lose those rows"):
        check_not_read(listed, ["file:///h/t/dt=1/000000_0"], "Iceberg table db.t")


def test_erasure_report_names_the_legacy_files_that_keep_erased_rows() -> None:
    state = ErasureState(
        erase_id="e1",
        source="db.t",
        lake_table="db.t",
        format="iceberg",
        selector="customer = 'x'",
        step=AUDITED,
        matched={"dt=1": 2},
        keyless=2,
        legacy_files={"file:/h/t/dt=1/000000_0": 2},
        audit={"passed": True, "data_files": 1, "metadata_files": 3, "keys_searched": 0,
               "values_searched": 1, "predicate_checked": True, "findings": [], "notes": []},
    )  # fmt: skip
    text = markdown(state)
    assert "2 erased row(s) remain in 1 file(s) of the legacy Hive table" in text
    assert "file:/h/t/dt=1/000000_0" in text and "retire --delete-files" in text
