"""The Arrow write path (setting ``write_path = "arrow"``): Spark tasks read a batch's ORC files
with pyarrow and write the target's Parquet files themselves, so the rows never pass through
the JVM's row format; the format then commits the files (Iceberg: one replace-partitions commit
through Iceberg's Java API).

Taken only where reading a file *is* Hive's reading of it, which :func:`arrow_plan` proves per
file group: ORC files whose every table column is an ORC column of the table's own primitive
type (or absent: NULL), no calendar relabelling (statistics show no date before 1582-10-15),
``uuid`` record keys, no quarantine. Any other batch takes the Spark path. Nothing observes a
checksum while writing: ``validate`` rescans the source with the Spark reader, which did not
write the rows (issue 29, "keep the proof independent").

Hand-written: no library writes a partition's ORC rows as an Iceberg table's Parquet files in
Spark tasks; pyarrow reads and writes, the format's own library commits.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from lakeshift.errors import in_task
from lakeshift.hive.partition_values import typed_value
from lakeshift.hive.projection import file_groups
from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.migrate.faults import first_attempt_fault, task_fault_mode
from lakeshift.storage import filesystem_for
from lakeshift.validate.canonical import EMPTY, Fingerprint

T = TypeVar("T")

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession

    from lakeshift.inspect.model import TableInventory
    from lakeshift.schema_map.model import FieldMapping

#: Hive types whose ORC values pyarrow reads exactly as Spark's ORC reader does and writes as
#: the target holds them (CHAR/VARCHAR are cut and padded by Hive's rules on read: not here).
_SIMPLE = frozenset(
    {"boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "string", "binary",
     "decimal", "date", "timestamp"}
)  # fmt: skip
_DATED = frozenset({"date", "timestamp"})


@dataclass(frozen=True)
class ArrowFile:
    """One source file and what its rows become: per target column, the ORC column to read
    (``None``: NULL) or, for a partition key, its typed value."""

    path: str
    partition: str
    columns: tuple[str | None, ...]  # ORC column per data column, in table order
    keys: tuple[Any, ...]  # typed key values, in key order


@dataclass(frozen=True)
class ArrowPlan:
    """A batch the Arrow path can write: its files, and the target's columns (name, Hive type
    as the target holds it), data columns then keys."""

    files: tuple[ArrowFile, ...]
    data: tuple[tuple[str, str], ...]
    keys: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Written:
    """A Parquet file a task wrote, with the canonical fingerprint of its rows (data columns
    then keys, as the target holds them: ``validate.canonical``), computed in the task from
    the very arrays it wrote, as the Spark path observes its rows while writing."""

    path: str
    partition: str
    rows: int
    size: int
    checksum: Fingerprint = EMPTY
    #: What the task's ``describe`` said of the file's footer ("" without one).
    description: str = ""
    #: The source file's timestamps with digits past a microsecond (in the columns read),
    #: counted from the very values the task cut to microseconds (``validate.nanoseconds``)
    finer: int = 0


def observed(written: Sequence[Written]) -> Fingerprint:
    """The batch's observed checksum: its files' together (their rows are disjoint)."""
    from lakeshift.validate.fingerprints import combined

    return combined([w.checksum for w in written])


def finer_counts(files: Sequence[ArrowFile], counted: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Partition -> the timestamps its source files hold with digits past a microsecond, from
    the tasks' counts (partition, count of one source file); every partition of ``files`` is
    there (a file of no rows holds none)."""
    counts = dict.fromkeys((f.partition for f in files), 0)
    for partition, finer in counted:
        counts[partition] += finer
    return counts


def arrow_plan(
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: list[str],
    target_type: Any,
    key_mode: str,
) -> tuple[ArrowPlan | None, str]:
    """The batch as Arrow files, or None with the reason it must take the Spark path."""
    if key_mode != "uuid":
        return None, f"record keys {key_mode!r} are made by the Spark path"
    keys = inventory.partition_keys
    for key in keys:
        if parse_hive_type(key.type).kind not in _SIMPLE - {"binary"}:
            return None, f"partition key {key.name} of type {key.type}"
    data = tuple((c.name, str(target_type(parse_hive_type(c.type)))) for c in inventory.columns)
    files: list[ArrowFile] = []
    by_name = {p.name: p for p in inventory.partitions}
    zone = mapping.semantics.jvm_zone
    for group in file_groups(inventory, mapping, partitions):
        where = f"partition {group.partition}"
        if group.format != "orc" or group.text_layout is not None:
            return None, f"{where} is {group.format}, not ORC"
        if group.hybrid_labels or group.proleptic_text or group.julian_text:
            return None, f"{where} needs its early dates relabelled"
        columns: list[str | None] = []
        dated = False
        for source in group.sources:
            if source.physical_index is None or source.partition_type is None:
                columns.append(None)
                continue
            physical = group.physical[source.physical_index]
            table = parse_hive_type(source.table_type)
            if table.kind not in _SIMPLE:
                return None, f"{where} column {source.target} is {table}"
            same = parse_hive_type(physical.type) == parse_hive_type(source.partition_type) == table
            if not same:
                return None, f"{where} column {source.target} is converted ({physical.type})"
            dated = dated or table.kind in _DATED
            columns.append(physical.name)
        info = {f.path: f for f in by_name[group.partition].files}
        if dated and any(info[f].pre_gregorian is not False for f in group.files):
            return None, f"{where} may hold dates before 1582-10-15 (calendar rules)"
        if dated and any(info[f].zoneless for f in group.files):
            # pyarrow reads them in the host's zone, Hive in its own (hive_time_zone)
            return None, f"{where} has ORC files naming no writer time zone"
        typed = tuple(
            typed_value(v, k.type, mapping.hive_version, zone) for v, k in zip(group.values, keys)
        )
        files.extend(
            ArrowFile(path, group.partition, tuple(columns), typed) for path in group.paths
        )
    if not files:
        return None, "no files"
    key_types = tuple((k.name, str(target_type(parse_hive_type(k.type)))) for k in keys)
    return ArrowPlan(tuple(files), data, key_types), ""


def plan_notes(
    inventory: TableInventory,
    mapping: FieldMapping,
    batches: Sequence[Sequence[str]],
    target_type: Any,
    key_mode: str,
) -> list[str]:
    """The dry run's word on ``write_path = "arrow"``: how many of ``batches`` (each its
    partition names) can take the Arrow path, and why the first that cannot takes the Spark
    path (the target's own columns and partitioning are checked when the batch runs)."""
    if not batches:
        return []
    refused = []
    for number, partitions in enumerate(batches, 1):
        plan, why = arrow_plan(inventory, mapping, list(partitions), target_type, key_mode)
        if plan is None:
            refused.append(f"batch {number}, {why}")
    total = f"{len(batches)} batch" + ("es" if len(batches) > 1 else "")
    note = f"write_path = arrow: {len(batches) - len(refused)} of {total} can take the Arrow path"
    if refused:
        verb = "takes" if len(refused) == 1 else "take"
        first = refused[0] + (f"; and {len(refused) - 1} more" if len(refused) > 1 else "")
        note += f"; {len(refused)} {verb} the Spark path ({first})"
    return [note + "."]


def arrow_type(hive: str, zoned: bool = False) -> pa.DataType:
    """The Arrow type of a target column of Hive type ``hive`` (``zoned``: a timestamp the
    target holds as an instant). Stated here, not taken from the independent reader's
    ``arrow_types``: the writer and the reader that may check it keep their own ideas."""
    import pyarrow as pa

    parsed = parse_hive_type(hive)
    simple = {
        "boolean": pa.bool_(),
        "tinyint": pa.int8(),
        "smallint": pa.int16(),
        "int": pa.int32(),
        "bigint": pa.int64(),
        "float": pa.float32(),
        "double": pa.float64(),
        "string": pa.string(),
        "binary": pa.binary(),
        "date": pa.date32(),
        "timestamp": pa.timestamp("us", tz="UTC" if zoned else None),
    }
    if parsed.kind == "decimal":
        return pa.decimal128(parsed.params[0], parsed.params[1])
    return simple[parsed.kind]


@functools.cache
def _hex_pairs() -> np.ndarray:
    """Per byte value, its two lowercase hex digits as one little-endian 16-bit word."""
    import numpy as np

    return np.array(
        [int.from_bytes(f"{value:02x}".encode(), "little") for value in range(256)], "<u2"
    )


def random_uuids(count: int) -> pa.Array:
    """``count`` random (version 4) UUIDs as text, without a Python loop per row: each byte's
    two hex digits by one table lookup, straight into the string array's buffer (a third
    faster than building them as NumPy byte strings and casting; the two-digit table halves
    the digits' cost again against one lookup per digit: 20 -> 8 ms for 250,000 keys)."""
    import numpy as np
    import pyarrow as pa

    raw = np.frombuffer(os.urandom(16 * count), dtype=np.uint8).reshape(count, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # version 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # RFC 4122 variant
    digits = _hex_pairs()[raw].view(np.uint8).reshape(count, 32)
    out = np.full((count, 36), ord("-"), dtype=np.uint8)
    for start, stop, at in ((0, 8, 0), (8, 12, 9), (12, 16, 14), (16, 20, 19), (20, 32, 24)):
        out[:, at : at + stop - start] = digits[:, start:stop]
    offsets = np.arange(0, 36 * (count + 1), 36, dtype=np.int32)
    return pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(out))


@dataclass(frozen=True)
class OutColumn:
    """A column of the files the Arrow path writes: where its values come from (a data
    column, a partition key, ``uuid`` or ``partitionpath``, by logical name), its name in the
    file, its Parquet field ID, the Hive type the target holds, and (timestamps) whether the
    target holds an instant."""

    source: str
    name: str
    field_id: int
    hive: str
    zoned: bool = False


def out_columns(
    plan: ArrowPlan, names: dict[str, str], ids: dict[str, int], zoned: set[str]
) -> list[OutColumn]:
    """The file columns for the target columns ``ids`` names (logical name -> field ID), in
    that order; ``names``: the name a column has in the files (else its logical name)."""
    from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN, UUID_COLUMN

    types = (
        dict(plan.data) | dict(plan.keys) | {UUID_COLUMN: "string", PARTITIONPATH_COLUMN: "string"}
    )
    return [
        OutColumn(n, names.get(n, n), field_id, types[n], n in zoned) for n, field_id in ids.items()
    ]


class FileReader:
    """In a task: ``plan``'s files as the arrays of ``columns`` (the target's rows, typed as
    it holds them), and the canonical fingerprint of those very arrays (data columns then
    keys), as the Spark path observes its rows while writing. Built on the driver, pickled
    into the tasks."""

    def __init__(self, plan: ArrowPlan, columns: list[OutColumn]) -> None:
        self.files = plan.files
        self.columns = columns
        self.data = {n: i for i, (n, _) in enumerate(plan.data)}
        self.keys = {n: i for i, (n, _) in enumerate(plan.keys)}
        # The checksum's columns: every data column then every key, in table order, typed as
        # the target holds them (the target scan's fingerprint is positional over the same).
        self.hashed = [(n, parse_hive_type(t)) for n, t in (*plan.data, *plan.keys)]
        self.key_types = list(plan.keys)
        self.fault = task_fault_mode()  # tests only (``migrate.faults``)
        #: Each column's Arrow type as the target holds it.
        self.types = [arrow_type(c.hive, c.zoned) for c in columns]

    def read(self, index: int) -> list[pa.Array] | None:
        """File ``index``'s rows as one array per column (None: the file holds no rows)."""
        return self.read_counting(index)[0]

    def read_counting(self, index: int) -> tuple[list[pa.Array] | None, int]:
        """``read``'s arrays, and the file's timestamps with digits past a microsecond in the
        columns read (which the arrays, in microseconds, no longer show)."""
        import pyarrow as pa
        import pyarrow.orc as orc

        from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN, UUID_COLUMN
        from lakeshift.validate.independent.zones import finer_than_micros

        item = self.files[index]
        if self.fault is not None:
            first_attempt_fault(self.fault, item.partition)
        fs, path = filesystem_for(item.path)
        wanted = sorted({c for c in item.columns if c is not None})
        try:
            with fs.open_input_file(path) as handle:
                rows = orc.ORCFile(handle).read(columns=wanted)
        except Exception as e:
            # pyarrow's decoders name no file: the batch's failure must, so that the
            # backfill isolates the partition that holds it (migrate.failures)
            raise OSError(f"cannot read {item.path} ({type(e).__name__}: {e})") from e
        count = rows.num_rows
        if count == 0:  # no file for no rows, as Spark's writer
            return None, 0
        stamped = [f.name for f in rows.schema if pa.types.is_timestamp(f.type)]
        finer = finer_than_micros(rows.select(stamped)) if stamped else 0
        arrays: list[pa.Array] = []
        for column, kind in zip(self.columns, self.types):
            if column.source in self.data:
                orc_column = item.columns[self.data[column.source]]
                if orc_column is None:
                    arrays.append(pa.nulls(count, kind))
                else:  # timestamps cut to microseconds as the Spark path writes them
                    arrays.append(rows.column(orc_column).cast(kind, safe=False))
            elif column.source in self.keys:
                value = item.keys[self.keys[column.source]]
                arrays.append(pa.repeat(pa.scalar(value, kind), count))  # no list per row
            elif column.source == UUID_COLUMN:
                arrays.append(random_uuids(count))
            elif column.source == PARTITIONPATH_COLUMN:
                arrays.append(pa.repeat(pa.scalar(item.partition, pa.string()), count))
            else:  # out_columns names only these
                raise ValueError(f"no values for column {column.source!r}")
        return arrays, finer

    def fingerprint(self, index: int, arrays: list[pa.Array]) -> Fingerprint:
        from lakeshift.validate.independent.arrow_hash import fingerprint

        return fingerprint(self._hashed(index, arrays), len(arrays[0]))

    def with_fingerprints(
        self, files: Iterable[tuple[int, list[pa.Array], T]]
    ) -> Iterator[tuple[T, Fingerprint]]:
        """Each of ``files`` (file index, its arrays, what the caller keeps of it) with the
        fingerprint of its arrays, in order. Files smaller than a block of rows are held until
        a block's rows are in hand and hashed together (``arrow_hash.fingerprints``: 1,000
        files of 200 rows in one task cost a pass each before)."""
        from lakeshift.validate.independent.arrow_hash import BLOCK_ROWS

        pending: list[tuple[int, list[pa.Array], T]] = []
        rows = 0
        for file in files:
            pending.append(file)
            rows += len(file[1][0])
            if rows >= BLOCK_ROWS:
                yield from self._fingerprinted(pending)
                pending, rows = [], 0
        yield from self._fingerprinted(pending)

    def _fingerprinted(
        self, files: list[tuple[int, list[pa.Array], T]]
    ) -> Iterator[tuple[T, Fingerprint]]:
        from lakeshift.validate.independent.arrow_hash import fingerprints

        if not files:
            return
        found = fingerprints(
            [self._hashed(index, arrays) for index, arrays, _ in files],
            [len(arrays[0]) for _, arrays, _ in files],
        )
        yield from zip((kept for _, _, kept in files), found)

    def _hashed(self, index: int, arrays: list[pa.Array]) -> list[tuple[pa.Array, HiveType]]:
        """The checksum's columns of file ``index`` from its ``arrays`` (keys the files do
        not hold, as Delta's, made from the file's partition)."""
        import pyarrow as pa

        item, count = self.files[index], len(arrays[0])
        by_source = {c.source: a for c, a in zip(self.columns, arrays)}
        for name, hive in self.key_types:  # keys Delta's files do not hold
            if name not in by_source:
                value = item.keys[self.keys[name]]
                by_source[name] = pa.repeat(pa.scalar(value, arrow_type(hive)), count)
        return [(by_source[n], hive) for n, hive in self.hashed]


def write_files(
    spark: SparkSession,
    plan: ArrowPlan,
    columns: list[OutColumn],
    locations: list[str],
    describe: Callable[[pq.FileMetaData], str] | None = None,
) -> list[Written]:
    """Write ``plan``'s files as Parquet with ``columns`` in Spark tasks, the ``i``-th file's
    rows to ``locations[i]``. One Spark job; the files are not committed. ``describe``, in the
    task, turns each file's footer into the text its :class:`Written` carries (a format's
    description of the file for its commit, from the footer in hand: no second read)."""
    import pyarrow as pa

    from lakeshift.schema_map.mapping import UUID_COLUMN

    reader = FileReader(plan, columns)
    counts = [(n, pa.int64()) for n in ("index", "rows", "size", "finer")]
    texts = [("sum1", pa.string()), ("sum2", pa.string()), ("description", pa.string())]
    result = pa.schema([*counts, *texts])

    @in_task
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow.parquet as pq

        plain_for_keys = [c.name for c in columns if c.source != UUID_COLUMN]
        schema = pa.schema(
            [
                pa.field(c.name, kind, metadata={"PARQUET:field_id": str(c.field_id)})
                for c, kind in zip(columns, reader.types)
            ]
        )

        def written() -> Iterator[tuple[int, list[pa.Array], dict[str, Any]]]:
            for batch in batches:
                for index in batch.column(0).to_pylist():
                    arrays, finer = reader.read_counting(index)
                    if arrays is None:
                        continue
                    out_fs, out_path = filesystem_for(locations[index])
                    out_fs.create_dir(out_path.rsplit("/", 1)[0], recursive=True)  # local disks
                    table = pa.Table.from_arrays(arrays, schema=schema)
                    footers: list[pq.FileMetaData] = []
                    pq.write_table(
                        table,
                        out_path,
                        filesystem=out_fs,
                        compression="zstd",
                        # a dictionary of the record keys, each different, overflows and is
                        # dropped: pure cost (a quarter of a file's write, measured)
                        use_dictionary=plain_for_keys,
                        metadata_collector=footers,
                    )
                    facts = {
                        "index": [index],
                        "rows": [table.num_rows],
                        "size": [out_fs.get_file_info(out_path).size],
                        "finer": [finer],
                        "description": [describe(footers[0]) if describe else ""],
                    }
                    yield index, arrays, facts

        for facts, found in reader.with_fingerprints(written()):
            yield pa.RecordBatch.from_pydict(
                {**facts, "sum1": [found.sum1], "sum2": [found.sum2]}, schema=result
            )

    ddl = "index BIGINT, rows BIGINT, size BIGINT, finer BIGINT, sum1 STRING, sum2 STRING, "
    done = (
        spark.range(0, len(plan.files), 1, task_count(spark, len(plan.files)))
        .mapInArrow(run, ddl + "description STRING")
        .collect()
    )
    files = plan.files
    return [
        Written(
            locations[r["index"]],
            files[r["index"]].partition,
            r["rows"],
            r["size"],
            Fingerprint(r["rows"], r["sum1"], r["sum2"]),
            r["description"],
            r["finer"],
        )
        for r in sorted(done, key=lambda r: r["index"])
    ]


def task_count(spark: SparkSession, files: int) -> int:
    """Tasks of an Arrow path job over ``files`` source files: four a core, at most one a
    file (stragglers even out; a task costs some milliseconds)."""
    return max(1, min(files, spark.sparkContext.defaultParallelism * 4))


def file_name(run_id: str, batch: int, index: int) -> str:
    """A data file's name: unique per run, batch and file, and per attempt."""
    return f"arrow-{run_id}-{batch:05d}-{index:05d}-{uuid.uuid4().hex[:12]}.parquet"
