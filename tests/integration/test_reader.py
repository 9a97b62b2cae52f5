"""The Hive-faithful reader returns partitions exactly as Hive users see them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from chispa import assert_df_equality

from lakeshift.config import Settings
from lakeshift.inspect import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.sample.click_log_data import hive_view_rows
from lakeshift.sample.click_log_spec import partitions as sample_partitions
from lakeshift.sample.load import LoadResult
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.schema_map.reader import output_schema_ddl, read_partitions
from tests.helpers.hive_tables import HiveTableBuilder, unique_name

SAMPLE_CASES = [
    "20220401",  # positional _colN files, price -> bid_price by position
    "20220405",  # late file holds country; partition does not declare it
    "20220412",  # junk files skipped
    "20220416",  # renamed column in the files themselves
    "20220424",  # Tez union subdirectories
    "20220427",  # outside the table root
    "20220428",  # empty
    None,  # NULL partition
]


def _read(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    table: str,
    partitions: list[str] | None = None,
) -> tuple[Any, Any]:
    inventory = inspect_table(client, table, settings)
    mapping = build_mapping(
        inventory,
        None,
        mapping_mode=settings.mapping_mode,
        case_sensitive=settings.name_case_sensitive,
    )
    return read_partitions(spark, inventory, mapping, partitions), inventory


@pytest.mark.parametrize("value", SAMPLE_CASES, ids=lambda v: str(v))
def test_sample_partition_reads_as_hive_shows_it(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    sample_table: LoadResult,
    value: str | None,
) -> None:
    spec = next(p for p in sample_partitions() if p.value == value)
    name = f"yyyymmdd={value or '__HIVE_DEFAULT_PARTITION__'}"
    actual, inventory = _read(client, settings, spark, "sample.click_log", [name])
    expected_rows = [row for f in spec.files for row in hive_view_rows(spec, f)]
    for row in expected_rows:
        row["attrs"] = None if row["attrs"] is None else dict(row["attrs"])
    expected = spark.createDataFrame(expected_rows, output_schema_ddl(inventory))
    assert actual.count() == len(expected_rows)
    assert_df_equality(
        _sorted_maps(actual), _sorted_maps(expected), ignore_row_order=True, ignore_nullable=True
    )


def _sorted_maps(frame: Any) -> Any:
    """Maps as sorted entry arrays: Spark can neither sort nor hash MAP columns."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import MapType

    return frame.select(
        *[
            F.array_sort(F.map_entries(F.col(f.name))).alias(f.name)
            if isinstance(f.dataType, MapType)
            else F.col(f.name)
            for f in frame.schema.fields
        ]
    )


def _builder(
    client: MetastoreClient, root: Path, columns: list[tuple[str, str]]
) -> HiveTableBuilder:
    return HiveTableBuilder(client, root, "reader_cases", unique_name("t"), columns)


def _rows(frame: Any) -> list[dict[str, Any]]:
    return sorted((r.asDict(recursive=True) for r in frame.collect()), key=repr)


def test_positional_files_wider_and_narrower(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(client, tables_root, [("a", "bigint"), ("b", "string")])
    b.add_partition(
        ["w"], {"f": pa.table({"_col0": pa.array([1], pa.int64()), "_col1": ["x"], "_col2": [9.5]})}
    )
    b.add_partition(["n"], {"f": pa.table({"_col0": pa.array([2], pa.int64())})})
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == [{"a": 1, "b": "x", "dt": "w"}, {"a": 2, "b": None, "dt": "n"}]


def test_by_name_reorder_rename_upper_case_and_partition_behind_table(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(client, tables_root, [("id", "bigint"), ("amount", "double"), ("note", "string")])
    # File columns reordered and upper-cased: matched by name, case-insensitively.
    b.add_partition(
        ["1"], {"f": pa.table({"AMOUNT": [1.5], "ID": pa.array([7], pa.int64()), "NOTE": ["n"]})}
    )
    # Partition written before `note` was added (no CASCADE), and `amount` was then `amt`;
    # the file holds `note` anyway: Hive shows NULL for it and keeps amt's values by position.
    b.add_partition(
        ["2"],
        {"f": pa.table({"id": pa.array([8], pa.int64()), "amt": [2.5], "note": ["hidden"]})},
        columns=[("id", "bigint"), ("amt", "double")],
    )
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == [
        {"id": 7, "amount": 1.5, "note": "n", "dt": "1"},
        {"id": 8, "amount": 2.5, "note": None, "dt": "2"},
    ]


def test_type_conversions_follow_hive(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(
        client,
        tables_root,
        [
            ("n", "bigint"),
            ("s", "int"),
            ("c", "char(4)"),
            ("v", "varchar(3)"),
            ("d", "decimal(6,2)"),
        ],
    )
    b.add_partition(
        ["1"],
        {
            "f": pa.table(
                {
                    "n": pa.array([5, None], pa.int32()),  # int file column widened to bigint
                    "s": ["12", "x"],  # string -> int: unconvertible reads as NULL
                    "c": ["ab", "abcdef"],  # CHAR pads and truncates
                    "v": ["abcdef", "z"],  # VARCHAR truncates
                    "d": pa.array([Decimal("1.005"), Decimal("123456.7")], pa.decimal128(9, 3)),
                }
            )
        },
    )
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == sorted(
        [
            {"n": 5, "s": 12, "c": "ab  ", "v": "abc", "d": Decimal("1.01"), "dt": "1"},
            {"n": None, "s": None, "c": "abcd", "v": "z", "d": None, "dt": "1"},  # overflow: NULL
        ],
        key=repr,
    )


def test_nested_structs_by_name_and_timestamps_stay_wall_clock(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(
        client,
        tables_root,
        [
            ("s", "struct<a:int,b:string,c:double>"),
            ("ts", "timestamp"),
            ("l", "array<struct<x:int>>"),
        ],
    )
    wall = dt.datetime(1999, 12, 31, 23, 59, 59, 123456)
    file = pa.table(
        {
            "s": pa.array(
                [{"b": "bee", "a": 1, "zz": True}, None],
                pa.struct([("b", pa.string()), ("a", pa.int32()), ("zz", pa.bool_())]),
            ),
            "ts": pa.array([wall, None], pa.timestamp("us")),
            "l": pa.array([[{"x": 1}, None], []], pa.list_(pa.struct([("x", pa.int32())]))),
        }
    )
    b.add_partition([None], {"f": file})
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == sorted(
        [
            {"s": {"a": 1, "b": "bee", "c": None}, "ts": wall, "l": [{"x": 1}, None], "dt": None},
            {"s": None, "ts": None, "l": [], "dt": None},
        ],
        key=repr,
    )


def test_files_of_different_vintages_in_one_partition(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(client, tables_root, [("id", "bigint"), ("name", "string")])
    b.add_partition(
        ["1"],
        {
            "000000_0": pa.table({"_col0": pa.array([1], pa.int64()), "_col1": ["old"]}),
            "000001_0": pa.table({"id": pa.array([2], pa.int64()), "name": ["new"], "x": [0]}),
            "000002_0": pa.table({"name": ["only-name"]}),
        },
    )
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == sorted(
        [
            {"id": 1, "name": "old", "dt": "1"},
            {"id": 2, "name": "new", "dt": "1"},
            {"id": None, "name": "only-name", "dt": "1"},
        ],
        key=repr,
    )


def test_odd_partition_values_and_typed_keys(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = HiveTableBuilder(
        client,
        tables_root,
        "reader_cases",
        unique_name("t"),
        [("id", "bigint")],
        partition_keys=(("k", "string"), ("n", "int")),
    )
    odd = "it's a\\b/c=d %x {}"
    b.add_partition([odd, "5"], {"f": pa.table({"id": pa.array([1], pa.int64())})})
    b.add_partition(["plain", "oops"], {"f": pa.table({"id": pa.array([2], pa.int64())})})
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == sorted(
        [
            {"id": 1, "k": odd, "n": 5},
            {"id": 2, "k": "plain", "n": None},  # a value that cannot convert reads as NULL
        ],
        key=repr,
    )


def test_locations_with_glob_characters_are_read_literally(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(client, tables_root, [("id", "bigint")])
    odd = tables_root / "odd {x} [1] *" / "dt=1"
    b.add_partition(
        ["1"], {"000000_0": pa.table({"id": pa.array([1, 2], pa.int64())})}, location=odd
    )
    (odd.parent / "dt=1x").mkdir()  # what an unescaped glob could also match
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == [{"id": 1, "dt": "1"}, {"id": 2, "dt": "1"}]
