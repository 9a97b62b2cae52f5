"""Cut the partitions to back-fill into batches (one Spark job, one commit each); pure logic.

A batch is bounded by rows and bytes (the work of one job) and also by files and partitions,
because those cost memory whatever the rows: the driver plans one split per file and keeps each
partition's commit entry. Writers keep one file open at a time (Iceberg's fanout writer, one
open Parquet writer per partition a task met, ran a 1-4 GB driver out of heap with 2,000
partitions of 5 rows), so partitions cost little each: 5,000 one-file partitions per batch ran
in a 1 GB driver, and every batch's fixed cost (a file listing, a commit, three Spark jobs) is
paid once per 5,000 instead of once per 200. A partition is never split: a single partition
over a limit is a batch of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

#: Rows per batch: a few minutes of work, so a failure or a resume repeats little.
DEFAULT_BATCH_ROWS = 5_000_000
#: Source bytes per batch (compressed ORC on disk).
DEFAULT_BATCH_BYTES = 2 * 1024**3
#: Source files per batch: the driver lists and plans each one.
DEFAULT_BATCH_FILES = 5_000
#: Partitions per batch (measured in a 1 GB driver, 5,000 one-file partitions per batch).
DEFAULT_BATCH_PARTITIONS = 5_000


class Sized(Protocol):
    """What batching needs to know of a partition."""

    @property
    def name(self) -> str: ...
    @property
    def rows(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def files(self) -> int: ...


@dataclass(frozen=True)
class BatchLimits:
    """Upper bounds of one batch; each must be at least 1."""

    rows: int = DEFAULT_BATCH_ROWS
    bytes: int = DEFAULT_BATCH_BYTES
    files: int = DEFAULT_BATCH_FILES
    partitions: int = DEFAULT_BATCH_PARTITIONS

    def __post_init__(self) -> None:
        for name in ("rows", "bytes", "files", "partitions"):
            if getattr(self, name) < 1:
                raise ValueError(f"batch {name} must be at least 1, not {getattr(self, name)}")


@dataclass(frozen=True)
class Batch:
    index: int
    partitions: tuple[str, ...]
    rows: int
    bytes: int
    files: int = 0


def make_batches(partitions: Iterable[Sized], limits: BatchLimits) -> list[Batch]:
    """Greedy batches in partition order, each closed before a partition would pass a limit."""
    batches: list[Batch] = []
    names: list[str] = []
    rows = size = files = 0
    for p in partitions:
        over = (
            rows + p.rows > limits.rows
            or size + p.bytes > limits.bytes
            or files + p.files > limits.files
            or len(names) + 1 > limits.partitions
        )
        if names and over:
            batches.append(Batch(len(batches) + 1, tuple(names), rows, size, files))
            names, rows, size, files = [], 0, 0, 0
        names.append(p.name)
        rows, size, files = rows + p.rows, size + p.bytes, files + p.files
    if names:
        batches.append(Batch(len(batches) + 1, tuple(names), rows, size, files))
    return batches
