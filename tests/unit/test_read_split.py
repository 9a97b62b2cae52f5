"""Iceberg target scans: split sizes that give every core a task on small tables."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pyiceberg.table.snapshots import Operation, Summary

from lakeshift.formats.iceberg import OPEN_COST_BYTES, READ_SPLIT_BYTES, read_split_bytes

MB = 1024**2


def _table(files: int, size: int) -> Any:
    summary = Summary(
        Operation.APPEND, **{"total-data-files": str(files), "total-files-size": str(size)}
    )
    return SimpleNamespace(current_snapshot=lambda: SimpleNamespace(summary=summary))


def test_a_small_table_is_cut_for_every_core() -> None:
    # 8 files of 2 MB weigh 8 x 4 MB (Iceberg's open cost): two tasks of four files.
    assert read_split_bytes(_table(8, 17 * MB), 2) == 16 * MB
    assert read_split_bytes(_table(8, 17 * MB), 4) == 8 * MB


def test_many_small_files_and_large_tables_keep_the_ceiling() -> None:
    # 1,000 files of 7.5 KB: 4,000 MB of weight, 32 tasks of 32 files, not one a file.
    assert read_split_bytes(_table(1000, 7_500_000), 2) == READ_SPLIT_BYTES
    assert read_split_bytes(_table(10, 10_000 * MB), 2) == READ_SPLIT_BYTES


def test_a_split_is_never_below_the_open_cost_and_empty_tables_keep_the_default() -> None:
    assert read_split_bytes(_table(1, 1000), 8) == OPEN_COST_BYTES
    assert read_split_bytes(None, 2) == READ_SPLIT_BYTES
    empty = SimpleNamespace(current_snapshot=lambda: None)
    assert read_split_bytes(empty, 2) == READ_SPLIT_BYTES
