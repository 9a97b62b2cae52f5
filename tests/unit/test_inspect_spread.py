"""The pure parts of spreading an inspection over Spark tasks: slicing, the merge back in
partition order, errors carried as data, the footer facts each task is sent, the choice."""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc
import pytest

from lakeshift.errors import EnvironmentProblem
from lakeshift.inspect.anomalies import Rules
from lakeshift.inspect.footer_cache import FooterCache
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo
from lakeshift.inspect.partition_job import PartitionJob, TableFacts, inspect_partition
from lakeshift.inspect.spread import (
    CORE_PARTITIONS,
    SPREAD_MIN_PARTITIONS,
    WAVE_PARTITIONS,
    Failure,
    KnownFooters,
    SliceResult,
    chunked,
    inspect_slice,
    merged,
    slices,
    spark_for,
    task_count,
    wave_size,
)

COLUMNS = (Column("id", "bigint"),)
ORC_INPUT = "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"
ORC_SERDE = "org.apache.hadoop.hive.ql.io.orc.OrcSerde"


def _partition(name: str) -> PartitionInfo:
    return PartitionInfo(name, (name,), f"/t/{name}", True, False, "orc", "", "", (), {}, (), 0, "")


def _job(root: Path, name: str) -> PartitionJob:
    return PartitionJob(name, (name,), f"file:{root / name}", ORC_INPUT, ORC_SERDE, {}, COLUMNS, {})


def _facts(root: Path) -> TableFacts:
    return TableFacts(str(root), COLUMNS, "orc", Rules(), {})


def _info(path: str) -> FileInfo:
    return FileInfo(path, 1, 1, "orc")


def test_slices_are_contiguous_even_and_never_empty() -> None:
    items = list(range(10))
    assert slices(items, 3) == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert slices(items, 20) == [[i] for i in items]
    assert slices(items, 0) == [items]
    assert slices([], 4) == []


def test_partitions_go_in_waves_as_they_arrive() -> None:
    assert list(chunked(iter(range(5)), 2)) == [[0, 1], [2, 3], [4]]
    assert list(chunked(iter(()), 2)) == []


def test_a_wave_is_a_task_per_core_and_never_tiny_ones() -> None:
    assert task_count(10, 8) == 1
    assert task_count(100, 8) == 4  # 32 partitions a task at the least
    assert task_count(2_000, 2) == 2
    assert task_count(0, 2) == 1
    assert wave_size(2) == WAVE_PARTITIONS
    assert wave_size(100) == 100 * CORE_PARTITIONS


def test_merge_keeps_partition_order_and_raises_the_first_failure() -> None:
    first, second = EnvironmentProblem("first", hint="h1"), EnvironmentProblem("second")
    results = [
        SliceResult([_partition("a"), _partition("b")]),
        SliceResult([_partition("c")], failure=Failure.of(first)),
        SliceResult([], failure=Failure.of(second)),
    ]
    assert [p.name for p in merged(results[:1], None)] == ["a", "b"]
    with pytest.raises(EnvironmentProblem) as raised:
        merged(results, None)
    assert (raised.value.message, raised.value.hint) == ("first", "h1")


def test_merge_puts_what_tasks_read_into_the_drivers_cache() -> None:
    cache = FooterCache()
    key = ("local:/t/a/000000_0", 1, 1, None)
    merged([SliceResult([_partition("a")], [(key, _info("000000_0"))], hits=3, reads=1)], cache)
    assert cache.items() == [(key, _info("000000_0"))]
    assert (cache.hits, cache.reads) == (3, 1)


class _TwoArguments(Exception):
    def __init__(self, what: str, where: str) -> None:
        super().__init__(f"{what} at {where}")


def test_an_exception_that_cannot_travel_is_named_instead() -> None:
    assert Failure.of(OSError(5, "gone")).exception().args == (5, "gone")
    # A subclass with its own arguments does not unpickle: its kind and message travel.
    lost = Failure.of(_TwoArguments("bad", "here"))
    assert lost.error is None
    assert str(pickle.loads(pickle.dumps(lost)).exception()) == "_TwoArguments: bad at here"


def test_each_partition_is_sent_the_cached_facts_of_its_own_files(tmp_path: Path) -> None:
    jobs = [_job(tmp_path, "p=1"), _job(tmp_path, "p=10")]
    cache = FooterCache()
    base = f"local:{tmp_path}"
    for path in ("p=1/000000_0", "p=1/HIVE_UNION_SUBDIR_1/000000_0", "p=10/000000_0", "q/x"):
        cache.put((f"{base}/{path}", 1, 1, None), _info(path))
    known = KnownFooters(cache)
    assert [[k[0] for k, _ in known.of(job)] for job in jobs] == [
        [f"{base}/p=1/000000_0", f"{base}/p=1/HIVE_UNION_SUBDIR_1/000000_0"],
        [f"{base}/p=10/000000_0"],
    ]
    assert [KnownFooters(None).of(job) for job in jobs] == [(), ()]


def test_a_slice_returns_its_failure_and_reuses_the_facts_it_was_sent(tmp_path: Path) -> None:
    for name in ("p=1", "p=2"):
        (tmp_path / name).mkdir()
        orc.write_table(pa.table({"id": pa.array([1], pa.int64())}), str(tmp_path / name / "f"))
    jobs = [_job(tmp_path, "p=1"), _job(tmp_path, "p=2")]
    facts = _facts(tmp_path)
    driver = FooterCache()
    expected = [inspect_partition(job, facts, driver) for job in jobs]
    # p=1's facts are sent along: only p=2's footer is read in the task.
    known = KnownFooters(driver).of(jobs[0])
    result = inspect_slice([(jobs[0], known), (jobs[1], ())], facts, use_cache=True)
    assert result.partitions == expected and result.failure is None
    assert (result.hits, result.reads) == (1, 1)
    assert [k[0].rsplit("/", 2)[-2] for k, _ in result.read] == ["p=2"]
    # A partition whose store cannot be opened: the slice stops there and says why.
    broken = replace(jobs[1], location="wasb://c/t/p=2")
    for workers in (1, 4):  # threads, as on object stores: still in order, the first failure
        failed = inspect_slice([(jobs[0], ()), (broken, ()), (jobs[1], ())], facts, False, workers)
        assert failed.partitions == expected[:1]
        assert failed.failure is not None
        assert isinstance(failed.failure.error, EnvironmentProblem)
        assert "wasb://c/t/p=2" in failed.failure.message


def test_auto_spreads_only_large_tables_on_a_cluster() -> None:
    started: list[str] = []

    def spark() -> str:
        started.append("session")
        return "session"

    many = SPREAD_MIN_PARTITIONS
    assert spark_for("auto", spark, many, "local[2]") is None
    assert spark_for("auto", spark, many - 1, "spark://h:7077") is None
    assert spark_for("driver", spark, many, "yarn") is None
    assert spark_for("spark", None, many, "yarn") is None  # a command without Spark
    assert started == []  # no session started for any of those
    assert spark_for("auto", spark, many, "yarn") == "session"  # type: ignore[comparison-overlap]
    assert spark_for("spark", spark, 1, "local[2]") == "session"  # type: ignore[comparison-overlap]
