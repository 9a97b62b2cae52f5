"""A table's partitions inspected in Spark tasks instead of the driver's threads.

The driver lists and reads footers in one process: its threads hide a store's latency, but one
interpreter parses every footer. Spread, each Spark task runs :func:`inspect_partition` (the
driver path's own function) on a contiguous slice of the partitions and sends back what it
found as data: the partitions, the footers it read (for the driver's footer cache) and, instead
of raising, the first exception it met (a raise would reach the driver as the text of a
``Py4JJavaError``, not as the exception). The driver merges the slices in order, so the
inventory and any error are the driver path's own. Partitions go to Spark in waves, one job each,
as the metastore gives them (as the driver's threads start on them), and a task takes as many
threads as the driver would (``inspect_workers`` where a store has latency to hide).

What a task needs travels with it: plain :class:`PartitionJob` records (no Thrift), the table's
facts, the driver's object-store options (executors read no driver settings) and the footer
facts the driver's cache already holds for files under each partition (a task cannot see that
cache; ``follow`` relies on it not to read unchanged footers again).
"""

from __future__ import annotations

import logging
import math
import pickle
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from lakeshift.config import INSPECT_ON
from lakeshift.errors import EnvironmentProblem, first_line
from lakeshift.inspect.footer_cache import FooterCache, Key
from lakeshift.inspect.model import FileInfo, PartitionInfo
from lakeshift.inspect.partition_job import PartitionJob, TableFacts, inspect_partition
from lakeshift.platform.python_worker import keep_archives
from lakeshift.storage import filesystem_for
from lakeshift.storage import options as storage_options

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


log = logging.getLogger(__name__)
T = TypeVar("T")

#: ``inspect_on``'s values (``config.INSPECT_ON``).
AUTO, DRIVER, SPARK = INSPECT_ON
#: Partitions from which ``auto`` spreads an inspection over a cluster's executors.
SPREAD_MIN_PARTITIONS = 2_000
#: Partitions a task inspects at the least (a task costs some milliseconds to schedule).
MIN_TASK_PARTITIONS = 32
#: Partitions sent to Spark as one job while the metastore gives the next: at least this many,
#: and ``CORE_PARTITIONS`` for each core, one task per core. Measured on local[2], 2,000
#: one-file partitions took 0.74-0.83 s as 2 tasks, 1.5-3.4 s as 8 and 1.4-2.0 s as 4 waves of
#: 500 (PySpark's cost per task, about 0.1 s on a loaded 2-core machine, outweighs the
#: partitions' own 0.14 ms each); a second job in flight evens out a wave's stragglers.
WAVE_PARTITIONS = 2_000
CORE_PARTITIONS = 1_000
#: Spark jobs of one inspection running at once (the next wave waits for one to finish).
IN_FLIGHT = 2

#: Cached footer facts of one partition's files, sent with its job.
Known = tuple[tuple[Key, FileInfo], ...]


def inheritable_thread_target(f: Callable[[], T]) -> Callable[[], T]:
    """PySpark's wrapper that gives a thread the caller's Spark local properties (imported
    when used: the module is also imported on executors, which need no more than pyarrow)."""
    from pyspark.util import inheritable_thread_target as wrap

    return wrap(f)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Failure:
    """An exception a task met, carried back as data.

    Attributes:
        error: the exception itself, when it survives pickling (most do); else None.
        kind: its type's name; message: ``str()`` of it; trace: the task's traceback.
    """

    error: BaseException | None
    kind: str
    message: str
    trace: str

    @classmethod
    def of(cls, error: BaseException) -> Failure:
        trace = "".join(traceback.format_exception(error))
        try:
            carried: BaseException | None = pickle.loads(pickle.dumps(error))
            if type(carried) is not type(error) or str(carried) != str(error):
                carried = None
        except Exception:  # an exception with its own arguments may not unpickle
            carried = None
        return cls(carried, type(error).__name__, str(error), trace)

    def exception(self) -> BaseException:
        """The exception to raise on the driver: the task's own, or one that names it."""
        if self.error is not None:
            return self.error
        return RuntimeError(f"{self.kind}: {self.message}")


@dataclass(frozen=True)
class SliceResult:
    """What one task found: partitions in its slice's order, up to its first failure."""

    partitions: list[PartitionInfo]
    read: list[tuple[Key, FileInfo]] = field(default_factory=list)
    hits: int = 0
    reads: int = 0
    failure: Failure | None = None


def slices(items: Sequence[T], count: int) -> list[list[T]]:
    """``items`` in ``count`` contiguous slices (or fewer, never empty), sizes within one."""
    count = max(1, min(count, len(items)))
    size, extra = divmod(len(items), count)
    out, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return [s for s in out if s]


def task_count(partitions: int, cores: int) -> int:
    """Tasks for a wave of ``partitions``: one per core, each of at least
    ``MIN_TASK_PARTITIONS`` partitions."""
    return max(1, min(math.ceil(partitions / MIN_TASK_PARTITIONS), cores))


def wave_size(cores: int) -> int:
    """Partitions per Spark job (``WAVE_PARTITIONS``, ``CORE_PARTITIONS``)."""
    return max(WAVE_PARTITIONS, cores * CORE_PARTITIONS)


def merged(results: Iterable[SliceResult], cache: FooterCache | None) -> list[PartitionInfo]:
    """The slices' partitions in order; the first failure (in partition order) raised, as the
    driver path raises the first failing partition's exception. Footers the tasks read go into
    ``cache`` first (the driver path's threads put theirs in as they read them)."""
    partitions: list[PartitionInfo] = []
    failure: Failure | None = None
    for result in results:
        if cache is not None:
            cache.absorb(result.read, result.hits, result.reads)
        if failure is None:
            partitions.extend(result.partitions)
            failure = result.failure
    if failure is not None:
        log.debug("a Spark task failed inspecting a partition:\n%s", failure.trace)
        raise failure.exception()
    return partitions


class KnownFooters:
    """What a footer cache holds below each partition's location (by the cache key's path,
    ``footer_key``), indexed once per inspection: partitions arrive in waves, and a scan of a
    large cache per wave would cost more than the footers it saves."""

    def __init__(self, cache: FooterCache | None) -> None:
        self._files: dict[str, list[tuple[Key, FileInfo]]] = {}  # by directory
        self._children: dict[str, set[str]] = {}  # directories below each, that hold files
        for key, info in cache.items() if cache is not None else ():
            directory = key[0].rsplit("/", 1)[0]
            self._files.setdefault(directory, []).append((key, info))
            while "/" in directory:
                parent = directory.rsplit("/", 1)[0]
                known = parent in self._children
                self._children.setdefault(parent, set()).add(directory)
                if known:
                    break
                directory = parent

    def of(self, job: PartitionJob) -> Known:
        """The cached facts of files below ``job``'s location (in subdirectories too)."""
        if not self._files:
            return ()
        fs, root = filesystem_for(job.location)
        found: list[tuple[Key, FileInfo]] = []
        pending = [f"{fs.type_name}:{root.rstrip('/')}"]
        while pending:
            directory = pending.pop()
            found.extend(self._files.get(directory, ()))
            pending.extend(self._children.get(directory, ()))
        return tuple(sorted(found, key=lambda entry: entry[0][0]))


def inspect_slice(
    payloads: Sequence[tuple[PartitionJob, Known]],
    table: TableFacts,
    use_cache: bool,
    workers: int = 1,
) -> SliceResult:
    """Inspect one slice (in a task): its partitions until the first exception, which is
    returned, not raised. With ``use_cache`` the footers come from the facts sent along when
    they are there, and the ones read instead are returned for the driver's cache.
    ``workers`` threads hide a store's latency, as the driver's do (``inspect_workers``)."""
    cache, seeded = None, set()
    if use_cache:
        cache = FooterCache(entries=sum(len(known) for _, known in payloads) + 1_000_000)
        for key, info in (entry for _, known in payloads for entry in known):
            cache.put(key, info)
            seeded.add(key)
    partitions: list[PartitionInfo] = []
    failure = None
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        found = pool.map(lambda payload: inspect_partition(payload[0], table, cache), payloads)
        try:
            partitions.extend(found)  # in order; the first exception met in that order
        except Exception as e:
            failure = Failure.of(e)
    if cache is None:
        return SliceResult(partitions, failure=failure)
    read = [(key, info) for key, info in cache.items() if key not in seeded]
    return SliceResult(partitions, read, cache.hits, cache.reads, failure)


def _task(
    table: TableFacts, use_cache: bool, workers: int, done: object
) -> Callable[[Iterable[list[tuple[PartitionJob, Known]]]], Iterator[SliceResult]]:
    # Captured on the driver: the executors' processes have no settings of their own.
    options = storage_options.current()

    def run(slices: Iterable[list[tuple[PartitionJob, Known]]]) -> Iterator[SliceResult]:
        keep_archives()
        storage_options.configure(options)
        for payloads in slices:
            yield inspect_slice(payloads, table, use_cache, workers)
            done.add(len(payloads))  # type: ignore[attr-defined]

    return run


Progress = Callable[[int, int, str], None]


def inspect_on_spark(
    spark: SparkSession,
    jobs: Iterable[PartitionJob],
    table: TableFacts,
    cache: FooterCache | None,
    progress: Progress | None = None,
    workers: int = 1,
) -> list[PartitionInfo]:
    """Inspect ``jobs`` in Spark tasks (``workers`` threads each); the partitions in
    ``jobs``' order.

    ``jobs`` come from the metastore in batches: every ``wave_size`` of them go to Spark as
    one job while the next are fetched (the metastore's share is most of a local table's
    inspection: fetched first, then spread, 20,000 partitions took 1.7 x the driver's time,
    which overlaps the two).

    Raises:
        The first exception a partition's inspection raised (as on the driver).
        EnvironmentProblem: Spark could not run the tasks (executors without pyarrow, lost
            executors).
    """
    context = spark.sparkContext
    done = context.accumulator(0)
    task = _task(table, cache is not None, workers, done)
    known = KnownFooters(cache)
    waves: list[Future[list[SliceResult]]] = []
    total = 0
    with ThreadPoolExecutor(max_workers=IN_FLIGHT) as pool:
        for wave in chunked(jobs, wave_size(context.defaultParallelism)):
            total += len(wave)
            payloads = [(job, known.of(job)) for job in wave]
            parts = slices(payloads, task_count(len(wave), context.defaultParallelism))
            rdd = context.parallelize(parts, len(parts)).mapPartitions(task)
            # The caller's Spark properties (a bulk run's job group and pool) go along.
            waves.append(pool.submit(inheritable_thread_target(rdd.collect)))
            if progress is not None:
                progress(int(done.value), total, "")
        results: list[SliceResult] = []
        for future in waves:
            results.extend(_collected(future))
            if progress is not None:
                progress(int(done.value), total, "")
    partitions = merged(results, cache)
    if progress is not None:
        progress(total, total, partitions[-1].name if partitions else "")
    return partitions


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last one shorter), as they arrive."""
    chunk: list[T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _collected(future: Future[list[SliceResult]]) -> list[SliceResult]:
    try:
        return future.result()
    except Exception as e:  # Spark's failure, not a partition's (those come back as data)
        raise EnvironmentProblem(
            f"the Spark tasks inspecting partitions failed: {first_line(e, 600)}",
            hint="Check that the executors' Python has pyarrow (README, Running on your "
            'cluster), or set inspect_on = "driver" to inspect on the driver alone.',
        ) from e


def spark_for(
    inspect_on: str,
    spark: Callable[[], SparkSession] | None,
    partitions: int,
    master: str,
) -> SparkSession | None:
    """The session to spread an inspection of ``partitions`` over, or None (the driver).

    ``spark`` gives the command's session (starting it if need be); commands without one
    inspect on the driver whatever the setting says. ``auto`` spreads from
    ``SPREAD_MIN_PARTITIONS`` partitions on a cluster master (not ``local[...]``, whose
    executors share the driver's machine).
    """
    from lakeshift.platform.spark import is_local_master  # not on executors' import path

    if inspect_on == DRIVER or spark is None or partitions == 0:
        return None
    if inspect_on == AUTO and (partitions < SPREAD_MIN_PARTITIONS or is_local_master(master)):
        return None
    return spark()
