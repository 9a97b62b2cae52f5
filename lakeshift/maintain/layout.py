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
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeshift.errors import SchemaMappingError
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
        """Rewrite the small files of ``partitions`` (and of no other partition) into files
        near ``target_file_size``, in one commit, rows unchanged."""

    def foreign_files(self, target: str) -> list[DataFileStat]:
        """The current data files outside the table's own location: files it adopted from its
        Hive source, which stay the Hive table's until ``lakeshift retire --delete-files``
        (compaction leaves their partitions alone)."""
        location = self.fmt.location(target)
        if location is None:
            return []
        store = Store(location)
        return [
            f for f in self.files(target) if _is_absolute(f.path) and store.relative(f.path) is None
        ]


def _is_absolute(path: str) -> bool:
    """A location with a scheme or a root, not a path relative to the table (Delta, Hudi)."""
    return path.startswith("/") or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:/", path) is not None


def _name(keys: list[str], values: list[Any]) -> str:
    return partition_name(keys, [None if v is None else str(v) for v in values]) if keys else ""


def _keys(table: Any) -> list[str]:
    """An Iceberg table's partition keys (identity partitions: their source columns)."""
    return [table.schema().find_column_name(f.source_id) for f in table.spec().fields]


def partition_predicate(
    keys: list[str], types: dict[str, str], partitions: list[dict[str, Any]]
) -> str:
    """Spark SQL that holds in exactly the partitions whose key values are ``partitions``
    (``types``: each key's Hive type, by lower-case name). One key: an ``IN`` list; more: a
    balanced ``OR`` of ``AND``s, so that thousands of partitions nest only a few levels."""
    from lakeshift.formats.iceberg import iceberg_hive_type
    from lakeshift.hive.spark_sql import quote, typed_literal
    from lakeshift.hive.types import parse_hive_type

    def literal(key: str, value: Any) -> str:
        return typed_literal(value, iceberg_hive_type(parse_hive_type(types[key.lower()])))

    def equal(key: str, value: Any) -> str:
        return f"{quote(key)} IS NULL" if value is None else f"{quote(key)} = {literal(key, value)}"

    if len(keys) == 1:
        [key] = keys
        values = [p[key] for p in partitions]
        terms = [equal(key, None)] if None in values else []
        present = sorted({literal(key, v) for v in values if v is not None})
        if present:
            terms.append(f"{quote(key)} IN ({', '.join(present)})")
        return _balanced(terms, "OR")
    return _balanced([_balanced([equal(k, p[k]) for k in keys], "AND") for p in partitions], "OR")


def _balanced(terms: list[str], operator: str) -> str:
    if len(terms) == 1:
        return terms[0]
    middle = len(terms) // 2
    return (
        f"({_balanced(terms[:middle], operator)} {operator} {_balanced(terms[middle:], operator)})"
    )


class IcebergLayout(TableLayout):
    def _table(self, target: str) -> Any:
        from lakeshift.errors import NotFound

        table = getattr(self.fmt, "table")(target)  # noqa: B009 - IcebergFormat's own loader
        if table is None:
            raise NotFound(f"Iceberg table {target} does not exist.")
        return table

    def files(self, target: str) -> list[DataFileStat]:
        return [stat for stat, _ in self._files_and_keys(self._table(target))]

    def _files_and_keys(self, table: Any) -> list[tuple[DataFileStat, dict[str, Any]]]:
        """Each current data file with its partition's key values (as pyiceberg reads them)."""
        if table.current_snapshot() is None:
            return []
        keys = _keys(table)
        out = []
        for row in table.inspect.data_files().to_pylist():
            partition = row.get("partition") or {}
            values = {k: partition.get(k) for k in keys}
            # The file's partitionpath (one value per file): the Hive partition's own name.
            # Files adopted from the source hold none: their name comes from the key values.
            bounds = (row.get("readable_metrics") or {}).get(PARTITIONPATH_COLUMN) or {}
            name = bounds.get("lower_bound")
            if name is None or name != bounds.get("upper_bound"):
                name = _name(keys, list(values.values()))
            stat = DataFileStat(
                str(name),
                str(row["file_path"]),
                int(row["file_size_in_bytes"]),
                int(row["record_count"]),
            )
            out.append((stat, values))
        return out

    def version_times(self, target: str) -> list[float]:
        return sorted(s.timestamp_ms / 1000 for s in self._table(target).metadata.snapshots)

    def compact(self, target: str, partitions: list[str], target_file_size: int) -> None:
        from lakeshift.hive.spark_sql import string_literal

        if not partitions:
            return
        db, _, name = target.partition(".")
        # Iceberg picks files under 75% of the target size and rewrites every partition with at
        # least two of them (min-input-files), one snapshot for the whole table.
        options = {
            "target-file-size-bytes": str(target_file_size),
            "min-input-files": "2",
        }
        pairs = ", ".join(f"{string_literal(k)}, {string_literal(v)}" for k, v in options.items())
        only = self._only(target, partitions)
        where = "" if only is None else f", where => {string_literal(only)}"
        catalog = getattr(self.fmt, "spark_catalog")  # noqa: B009 - IcebergFormat's own
        self.fmt.spark.sql(
            f"CALL {catalog}.system.rewrite_data_files("
            f"table => {string_literal(f'{db}.{name}')}, options => map({pairs}){where})"
        ).collect()

    def _only(self, target: str, partitions: list[str]) -> str | None:
        """A predicate over the partition keys that holds in exactly ``partitions`` among the
        partitions holding files; None when those are all of them. Positive, never a negation:
        Iceberg adds ``IS NOT NULL`` to a negated comparison, which would drop a NULL key."""
        table = self._table(target)
        values_of: dict[str, dict[str, Any]] = {}
        for stat, values in self._files_and_keys(table):
            values_of.setdefault(stat.partition, values)
        wanted = set(partitions)
        if wanted >= set(values_of):
            return None
        mapping = self.fmt.stored_mapping(target)
        types = {k.name.lower(): k.type for k in mapping.partition_keys} if mapping else {}
        keys = _keys(table)
        missing = [k for k in keys if k.lower() not in types]
        if missing:
            raise SchemaMappingError(
                f"Iceberg table {target}: its lakeshift mapping names no partition key "
                f"{missing[0]!r}, so compaction cannot choose its partitions.",
                hint="Compact it with Iceberg's rewrite_data_files and a where naming the "
                "partitions, leaving out those holding files adopted from the Hive source.",
            )
        chosen = [v for n, v in sorted(values_of.items()) if n in wanted]
        return partition_predicate(keys, types, chosen) if chosen else "false"


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
