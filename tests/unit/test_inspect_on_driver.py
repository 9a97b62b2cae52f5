"""The driver's threads take partitions as the metastore gives them, a bounded number ahead of
the ones inspected, and hand the results on in the metastore's order."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from lakeshift.inspect import inspector
from lakeshift.inspect.partition_job import PartitionJob


def _job(number: int) -> PartitionJob:
    return PartitionJob(f"p={number:05d}", (str(number),), f"/t/p={number}", "", "", {}, (), {})


class _Inspected:
    def __init__(self, name: str) -> None:
        self.name = name


@pytest.mark.parametrize("workers", [1, 3])
def test_partitions_are_taken_a_bounded_number_ahead_and_come_back_in_order(
    workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = threading.Lock()
    given = inspected = 0
    most_ahead = 0

    def inspect_partition(job: PartitionJob, facts: Any, cache: Any) -> _Inspected:
        nonlocal inspected
        with lock:
            inspected += 1
        return _Inspected(job.name)

    def jobs() -> Iterator[PartitionJob]:
        nonlocal given, most_ahead
        for number in range(2_000):
            with lock:
                given += 1
                most_ahead = max(most_ahead, given - inspected)
            yield _job(number)

    monkeypatch.setattr(inspector, "inspect_partition", inspect_partition)
    calls: list[tuple[int, int]] = []
    results = inspector._inspect_on_driver(
        jobs(), None, None, workers, lambda done, total, _: calls.append((done, total))
    )
    assert [p.name for p in results] == [f"p={n:05d}" for n in range(2_000)]
    # the chunks waiting for a thread, the ones the threads work on, and the one being filled
    bound = (inspector._CHUNKS_WAITING * workers + workers + 1) * inspector._CHUNK
    assert most_ahead <= bound
    assert calls[-1] == (63, 63)  # 2,000 partitions in chunks of 32
    assert all(done <= total for done, total in calls)


def test_a_failed_partition_is_raised_and_the_rest_of_the_table_is_not_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    given = 0

    def inspect_partition(job: PartitionJob, facts: Any, cache: Any) -> _Inspected:
        if job.name == "p=00040":
            raise RuntimeError("p=00040 failed")
        return _Inspected(job.name)

    def jobs() -> Iterator[PartitionJob]:
        nonlocal given
        for number in range(100_000):
            given += 1
            yield _job(number)

    monkeypatch.setattr(inspector, "inspect_partition", inspect_partition)
    with pytest.raises(RuntimeError, match="p=00040 failed"):
        inspector._inspect_on_driver(jobs(), None, None, 1, None)
    assert given < 1_000
