"""What a lake table holds on disk, and compaction, for each format lakeshift writes.

The format seam (``lakeshift.formats``) has no method for a table's current data files or its
history, nor for compaction, so this module adapts each format's public pieces: pyiceberg's
metadata tables and Iceberg's ``rewrite_data_files`` procedure; the Delta log's current files
and ``DeltaFormat.rewrite_partitions``; Hudi's file slices and clustering through
``HudiFormat.rewrite_file_groups``. One small class per format, picked by
:func:`layout_for`; callers never branch on a format's name.
"""

from __future__ import annotations

import logging
import posixpath
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeshift.formats import TargetFormat
from lakeshift.formats.delta.types import physical_name
from lakeshift.metastore.partition_names import partition_name
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN
from lakeshift.storage import Store

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

#: Operation recorded in the commits compaction writes.
COMPACT_OPERATION = "compact"


@dataclass(frozen=True)
class DataFileStat:
    """One data file of the table's current snapshot/version."""

    partition: str
    path: str
    size: int
    rows: int


class TableLayout(ABC):
    """A lake table's files and history, and how to compact it."""

    def __init__(self, fmt: TargetFormat) -> None:
        self.fmt = fmt

    @abstractmethod
    def files(self, target: str) -> list[DataFileStat]:
        """The current snapshot's data files, with their partition's Hive-style name."""

    @abstractmethod
    def version_times(self, target: str) -> list[float]:
        """When each snapshot (version) still available for time travel was committed (epoch
        seconds), oldest first; the last is the current one."""

    @abstractmethod
    def compact(self, target: str, partitions: list[str], target_file_size: int) -> None:
        """Rewrite the small files of ``partitions`` into files near ``target_file_size``, in
        one commit, rows unchanged."""


def _name(keys: list[str], values: list[Any]) -> str:
    return partition_name(keys, [None if v is None else str(v) for v in values]) if keys else ""


class IcebergLayout(TableLayout):
    def _table(self, target: str) -> Any:
        from lakeshift.errors import NotFound

        table = getattr(self.fmt, "table")(target)  # noqa: B009 - IcebergFormat's own loader
        if table is None:
            raise NotFound(f"Iceberg table {target} does not exist.")
        return table

    def files(self, target: str) -> list[DataFileStat]:
        table = self._table(target)
        if table.current_snapshot() is None:
            return []
        keys = [table.schema().find_column_name(f.source_id) for f in table.spec().fields]
        out = []
        for row in table.inspect.data_files().to_pylist():
            partition = row.get("partition") or {}
            # The file's partitionpath (one value per file): the Hive partition's own name.
            bounds = (row.get("readable_metrics") or {}).get(PARTITIONPATH_COLUMN) or {}
            name = bounds.get("lower_bound")
            if name is None or name != bounds.get("upper_bound"):
                name = _name(keys, [partition.get(k) for k in keys])
            out.append(
                DataFileStat(
                    str(name),
                    str(row["file_path"]),
                    int(row["file_size_in_bytes"]),
                    int(row["record_count"]),
                )
            )
        return out

    def version_times(self, target: str) -> list[float]:
        return sorted(s.timestamp_ms / 1000 for s in self._table(target).metadata.snapshots)

    def compact(self, target: str, partitions: list[str], target_file_size: int) -> None:
        from lakeshift.hive.spark_sql import string_literal

        db, _, name = target.partition(".")
        # Iceberg picks files under 75% of the target size and rewrites every partition with at
        # least two of them (min-input-files), one snapshot for the whole table.
        options = {
            "target-file-size-bytes": str(target_file_size),
            "min-input-files": "2",
        }
        pairs = ", ".join(f"{string_literal(k)}, {string_literal(v)}" for k, v in options.items())
        catalog = getattr(self.fmt, "spark_catalog")  # noqa: B009 - IcebergFormat's own
        self.fmt.spark.sql(
            f"CALL {catalog}.system.rewrite_data_files("
            f"table => {string_literal(f'{db}.{name}')}, options => map({pairs}))"
        ).collect()


class DeltaLayout(TableLayout):
    def _root(self, target: str) -> Store:
        root: Store = getattr(self.fmt, "root")(target)  # noqa: B009 - DeltaFormat's own
        return root

    def files(self, target: str) -> list[DataFileStat]:
        from lakeshift.formats.delta import log as delta_log

        root = self._root(target)
        state = delta_log.table_state(root)
        if state is None:
            return []
        keys = list(state.partition_columns)
        column = next(
            (physical_name(f) for f in state.schema["fields"] if f["name"] == PARTITIONPATH_COLUMN),
            PARTITIONPATH_COLUMN,
        )
        return [
            DataFileStat(
                _file_partition(root, f.path, column)
                or _name(keys, [f.partition_values.get(k) for k in keys]),
                f.path,
                f.size,
                f.rows,
            )
            for f in delta_log.current_files(root)
        ]

    def version_times(self, target: str) -> list[float]:
        from lakeshift.formats.delta import log as delta_log

        history = delta_log.open_table(self._root(target)).history()
        return sorted(float(h["timestamp"]) / 1000 for h in history if "timestamp" in h)

    def compact(self, target: str, partitions: list[str], target_file_size: int) -> None:
        rewrite = getattr(self.fmt, "rewrite_partitions")  # noqa: B009 - DeltaFormat only
        with _packed_reads(self.fmt.spark, target_file_size):
            rewrite(
                target,
                sorted(partitions),
                operation=COMPACT_OPERATION,
                metadata={"lakeshift.operation": COMPACT_OPERATION},
                target_file_bytes=target_file_size,
            )


def _file_partition(store: Store, path: str, column: str) -> str | None:
    """The partitionpath a Parquet file holds, from its footer statistics (one value per file
    in lakeshift's tables), or None when the footer does not say."""
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_metadata(store.path(path), filesystem=store.fs)
    except OSError:
        return None
    names = [metadata.schema.column(i).name for i in range(metadata.num_columns)]
    if column not in names or metadata.num_row_groups == 0:
        return None
    index = names.index(column)
    found = set()
    for group in range(metadata.num_row_groups):
        stats = metadata.row_group(group).column(index).statistics
        if stats is None or not stats.has_min_max:
            return None
        found |= {stats.min, stats.max}
    return str(found.pop()) if len(found) == 1 else None


@contextmanager
def _packed_reads(spark: SparkSession, target_file_size: int) -> Iterator[None]:
    """Read small files into as few tasks as the target size allows while rewriting: each task
    writes one file per partition it holds, so tasks of one file each would write the small
    files again. (Session settings: a bulk run's other tables are briefly affected too.)"""
    settings = {
        "spark.sql.files.maxPartitionBytes": str(target_file_size),
        "spark.sql.files.openCostInBytes": "1",
        "spark.sql.files.minPartitionNum": "1",
    }
    before: dict[str, str | None] = {k: spark.conf.get(k, None) for k in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, previous in before.items():
            if previous is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, previous)


class HudiLayout(TableLayout):
    """Hudi: current file slices from hudi-rs and the timeline; compaction is clustering, a
    ``replacecommit`` (operation ``CLUSTER``) whose new file groups replace the small ones."""

    def files(self, target: str) -> list[DataFileStat]:
        current = getattr(self.fmt, "current_files")  # noqa: B009 - HudiFormat only
        return [DataFileStat(p, path, size, rows) for p, path, size, rows in current(target)]

    def version_times(self, target: str) -> list[float]:
        """Completed instants a time-travel read can still serve: every file they wrote is
        still there (superseded and replaced slices go at the automatic clean or expiry)."""
        from lakeshift.formats.hudi.cleaning import instant_datetime
        from lakeshift.formats.hudi.timeline import COMMIT, REPLACE, Timeline

        root: Store = getattr(self.fmt, "root")(target)  # noqa: B009 - HudiFormat's own
        timeline = Timeline(root)
        present = {f.path for f in root.list_files()}
        times = []
        for instant in timeline.completed({COMMIT, REPLACE}):
            stats = timeline.metadata(instant).get("partitionToWriteStats") or {}
            paths = [s["path"] for group in stats.values() for s in group]
            if paths and all(p.lstrip("/") in present for p in paths):
                times.append(instant_datetime(instant.time).timestamp())
        return times

    def compact(self, target: str, partitions: list[str], target_file_size: int) -> None:
        from lakeshift.formats.hudi.base_file import file_id_of, new_file_id
        from lakeshift.formats.hudi.bloom import BloomFilter
        from lakeshift.formats.hudi.commit_metadata import CLUSTER
        from lakeshift.formats.hudi.format import MAX_FILE_ROWS

        # Every base file carries a bloom filter of fixed size in its footer (~431 KB): pack by
        # the data bytes, so that merged files are not capped by the footers they drop.
        footer = len(BloomFilter.for_keys([]).serialize())

        def data(f: DataFileStat) -> int:
            return max(f.size - footer, 0)

        wanted = set(partitions)
        small = [
            f for f in self.files(target) if f.partition in wanted and f.size < target_file_size
        ]
        jobs: list[dict[str, Any]] = []
        replaced: dict[str, list[str]] = {}
        for partition in sorted(wanted):
            # First fit by size and rows (one bloom-filter row per file, as for backfills).
            groups: list[list[DataFileStat]] = []
            for f in sorted((f for f in small if f.partition == partition), key=lambda f: f.path):
                group = next(
                    (
                        g
                        for g in groups
                        if footer + sum(data(x) for x in g) + data(f) <= target_file_size
                        and sum(x.rows for x in g) + f.rows <= MAX_FILE_ROWS
                    ),
                    None,
                )
                if group is None:
                    groups.append([f])
                else:
                    group.append(f)
            for group in (g for g in groups if len(g) > 1):
                jobs.append(
                    {
                        "partition": partition,
                        "file_id": new_file_id(),
                        "sources": [f.path for f in group],
                        "prev": "null",
                    }
                )
                names = [file_id_of(posixpath.basename(f.path)) for f in group]
                replaced.setdefault(partition, []).extend(names)
        if jobs:
            rewrite = getattr(self.fmt, "rewrite_file_groups")  # noqa: B009 - HudiFormat only
            rewrite(target, jobs, operation=CLUSTER, replaced=replaced)


_LAYOUTS: dict[str, type[TableLayout]] = {
    "iceberg": IcebergLayout,
    "delta": DeltaLayout,
    "hudi": HudiLayout,
}


def layout_for(fmt: TargetFormat) -> TableLayout:
    """The layout adapter of ``fmt``'s format."""
    from lakeshift.errors import UsageError

    if fmt.name not in _LAYOUTS:
        raise UsageError(f"maintenance is not available for {fmt.label}s yet.")
    return _LAYOUTS[fmt.name](fmt)
