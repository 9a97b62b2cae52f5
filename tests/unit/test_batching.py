"""Batches are bounded by rows, bytes, files and partitions (issue 13, item 2), pure logic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from lakeshift.hive.semantics import HiveSemantics
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo, TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.migrate.backfill import DEFAULT_BATCH_BYTES, DEFAULT_BATCH_ROWS
from lakeshift.migrate.batching import (
    DEFAULT_BATCH_PARTITIONS,
    BatchLimits,
    make_batches,
)
from lakeshift.migrate.planner import build_plan
from lakeshift.schema_map.mapping import build_mapping

GB = 1024**3


@dataclass(frozen=True)
class _Part:
    name: str
    rows: int
    bytes: int
    files: int = 1


def _tiny(count: int, rows: int = 5) -> list[_Part]:
    return [_Part(f"p={i}", rows, 600) for i in range(count)]


def test_many_tiny_partitions_are_cut_by_partition_count() -> None:
    batches = make_batches(_tiny(2_000), BatchLimits(partitions=200))
    assert [len(b.partitions) for b in batches] == [200] * 10
    assert [b.index for b in batches] == list(range(1, 11))
    assert sum(b.rows for b in batches) == 10_000 and batches[0].bytes == 200 * 600


def test_files_bound_a_batch_even_when_rows_and_partitions_fit() -> None:
    parts = [_Part(f"p={i}", 10, 10_000, files=300) for i in range(10)]
    batches = make_batches(parts, BatchLimits(files=1_000, partitions=1_000))
    assert [len(b.partitions) for b in batches] == [3, 3, 3, 1]
    assert [b.files for b in batches] == [900, 900, 900, 300]


def test_rows_and_bytes_still_bound_batches() -> None:
    by_rows = make_batches(_tiny(10, rows=400), BatchLimits(rows=1_000))
    assert [len(b.partitions) for b in by_rows] == [2, 2, 2, 2, 2]
    by_bytes = make_batches(_tiny(10), BatchLimits(bytes=1_800))
    assert [len(b.partitions) for b in by_bytes] == [3, 3, 3, 1]


def test_a_partition_over_every_limit_is_a_batch_of_its_own_and_order_is_kept() -> None:
    huge = [_Part(f"dt={i}", 100_000_000, 6 * GB, files=40) for i in range(10)]
    batches = make_batches(huge, BatchLimits())
    assert [b.partitions for b in batches] == [(p.name,) for p in huge]


def test_no_partitions_no_batches_and_limits_must_be_positive() -> None:
    assert make_batches([], BatchLimits()) == []
    with pytest.raises(ValueError, match="batch partitions must be at least 1"):
        BatchLimits(partitions=0)


def _inventory(count: int) -> TableInventory:
    def partition(i: int) -> PartitionInfo:
        return PartitionInfo(
            name=f"p={i}",
            values=(str(i),),
            location=f"file:/t/p={i}",
            location_exists=True,
            outside_table_root=False,
            format="orc",
            input_format="",
            serde="",
            columns=(Column("id", "bigint"),),
            parameters={},
            files=(FileInfo(path="000000_0", size=600, mtime_ns=1, format="orc", rows=5),),
            skipped_files=0,
            fingerprint=f"fp{i}",
        )

    return TableInventory(
        database="db",
        table="t",
        location="file:/t",
        table_type="EXTERNAL_TABLE",
        format="orc",
        input_format="",
        serde="",
        columns=(Column("id", "bigint"),),
        partition_keys=(Column("p", "int"),),
        parameters={},
        partitions=tuple(partition(i) for i in range(count)),
        unregistered_dirs=(),
        anomalies=(),
        metastore_uri="",
        inspected_at="",
        seconds=0.0,
    )


@pytest.mark.parametrize("count", [2_000, 10_000, 12_000])
def test_default_plan_of_tiny_partitions_keeps_batches_small(count: int) -> None:
    # 2,000 x 5 rows in one batch ran a 1-4 GB driver out of heap while Iceberg's fanout writer
    # kept one Parquet writer per partition open; without it one is open at a time, and 5,000
    # such partitions per batch ran in a 1 GB driver (benchmarks/README.md). With the defaults
    # no batch holds more than the partition bound.
    inventory = _inventory(count)
    plan = build_plan(
        inventory,
        build_mapping(inventory, None, HiveSemantics()),
        "db.t_iceberg",
        target_exists=False,
        backfilled={},
        wanted=PartitionFilter(()),
        batch_rows=DEFAULT_BATCH_ROWS,
        batch_bytes=DEFAULT_BATCH_BYTES,
        key_mode="uuid",
        throughput=None,
        spark_conf={},
    )
    assert len(plan.batches) == -(-count // DEFAULT_BATCH_PARTITIONS)
    assert max(len(b.partitions) for b in plan.batches) <= DEFAULT_BATCH_PARTITIONS
    assert sum(len(b.partitions) for b in plan.batches) == count
    assert plan.to_json()["totals"]["batches"] == len(plan.batches)


def _with_files(inventory: TableInventory, name: str, sizes: list[int]) -> TableInventory:
    from dataclasses import replace

    files = tuple(
        FileInfo(path=f"00000{i}_0", size=size, mtime_ns=1, format="orc", rows=5)
        for i, size in enumerate(sizes)
    )
    partitions = tuple(
        replace(p, files=files) if p.name == name else p for p in inventory.partitions
    )
    return replace(inventory, partitions=partitions)


def test_a_batch_is_gathered_per_partition_only_when_some_partition_would_be_split() -> None:
    from lakeshift.config import Settings
    from lakeshift.formats import FormatServices
    from lakeshift.formats.iceberg import IcebergFormat

    def unused() -> None:
        raise AssertionError("no Spark, no catalog needed")

    fmt = IcebergFormat(FormatServices(unused, unused, Settings()))  # type: ignore[arg-type]
    names = ["p=0", "p=1", "p=2"]
    one_file_each = _inventory(3)
    # small one-file partitions: each file is read by one task whole, so no shuffle
    assert not fmt.batch_clustering(one_file_each, names)
    # ... unless deterministic keys rank rows in a window (its shuffle would spread them)
    assert fmt.batch_clustering(one_file_each, names, "deterministic")
    # a small partition of two files, or of one file Spark may split, is gathered
    assert fmt.batch_clustering(_with_files(one_file_each, "p=1", [600, 600]), names)
    assert fmt.batch_clustering(_with_files(one_file_each, "p=1", [5 * 1024**2]), names)
    # only the batch's own partitions count
    assert not fmt.batch_clustering(_with_files(one_file_each, "p=1", [600, 600]), ["p=0"])
    # partitions larger than a target file are written from every task that reads them
    big = _with_files(one_file_each, "p=1", [300 * 1024**2, 300 * 1024**2])
    assert not fmt.batch_clustering(big, ["p=1"])


def test_the_inventory_is_saved_partition_by_partition_as_the_same_json(tmp_path: Any) -> None:
    import json

    from lakeshift.inspect.inspector import load_inventory, save_inventory

    inventory = _with_files(_inventory(3), "p=1", [600, 700])
    path = save_inventory(inventory, tmp_path)
    assert json.loads(path.read_text()) == json.loads(json.dumps(inventory.to_json()))
    assert load_inventory(tmp_path, inventory.qualified_name) == inventory
    empty = _inventory(0)
    assert load_inventory(tmp_path, empty.qualified_name) != empty  # not saved yet: the old one
    save_inventory(empty, tmp_path)
    assert load_inventory(tmp_path, empty.qualified_name) == empty
