"""The Spark task side of a Hudi write: base files from the task's rows (``mapInArrow``).

Runs in the executors' Python: it imports only pyarrow, PySpark's ``TaskContext`` and lakeshift's
Hudi file modules, shipped to executors with lakeshift's zip on a cluster.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from lakeshift.errors import in_task
from lakeshift.formats.hudi.timeline import write_marker
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN
from lakeshift.storage import Store

if TYPE_CHECKING:
    import pyarrow as pa

    from lakeshift.formats.arrow_path import FileReader

#: The stats row each written file yields (the job's report the driver reconciles against).
STATS_DDL = "name string, partition string, file_id string, rows long, size long"


def _task_ids() -> tuple[str, str]:
    """This task's write token (Hudi's ``partition-stage-attempt``) and seqno prefix."""
    from pyspark import TaskContext

    task = TaskContext.get()
    if task is None:
        return "0-0-0", "0"
    token = f"{task.partitionId()}-{task.stageId()}-{task.attemptNumber()}"
    return token, str(task.partitionId())


def _create(
    table_root: Store,
    partition: str,
    rows: pa.Table,
    instant: str,
    token: str,
    seqno: str,
    avro: dict[str, Any],
    codec: str,
    level: int | None,
) -> dict[str, Any]:
    """Write ``rows`` as a new file group's base file with its CREATE marker; its stats row."""
    from lakeshift.formats.hudi.base_file import new_file_id, write_base_file

    file_id = new_file_id()
    written = write_base_file(
        rows,
        table_root.child(partition) if partition else table_root,
        partition_path=partition,
        instant=instant,
        file_id=file_id,
        write_token=token,
        avro_schema=avro,
        seqno_prefix=seqno,
        codec=codec,
        level=level,
    )
    write_marker(table_root, instant, partition, f"{written.name}.marker.CREATE")
    return {
        "name": written.name,
        "partition": partition,
        "file_id": file_id,
        "rows": written.rows,
        "size": written.size,
    }


def task_writer(
    root: str,
    instant: str,
    schema: dict[str, Any],
    per_file: int,
    codec: str = "gzip",
    level: int | None = None,
) -> Any:
    """The ``mapInArrow`` function: each task writes its rows as base files, at most
    ``per_file`` rows each, one file group per file (compressed with ``codec``), and yields
    one stats row per file."""

    @in_task
    def write(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.compute as pc

        token, seqno = _task_ids()
        pending: dict[str, list[Any]] = {}
        counts: dict[str, int] = {}
        table_root = Store(root)

        def flush(partition: str) -> Any:
            rows = pa.Table.from_batches(pending.pop(partition))
            counts[partition] = 0
            stats = _create(
                table_root, partition, rows, instant, token, seqno, schema, codec, level
            )
            return pa.RecordBatch.from_pylist([stats])

        for batch in batches:
            table = pa.Table.from_batches([batch])
            for partition in pc.unique(table.column(PARTITIONPATH_COLUMN)).to_pylist():
                part = table.filter(pc.equal(table.column(PARTITIONPATH_COLUMN), partition))
                for start in range(0, part.num_rows, per_file):
                    chunk = part.slice(start, per_file)
                    room = per_file - counts.get(partition, 0)
                    for piece in (chunk.slice(0, room), chunk.slice(room)):
                        if piece.num_rows == 0:
                            continue
                        pending.setdefault(partition, []).extend(piece.to_batches())
                        counts[partition] = counts.get(partition, 0) + piece.num_rows
                        if counts[partition] >= per_file:
                            yield flush(partition)
        for partition in list(pending):
            yield flush(partition)

    return write


#: The stats row each rewritten file group yields.
REWRITE_DDL = (
    "name string, partition string, file_id string, rows long, size long, dropped long, prev string"
)


def rewrite_task(
    root: str,
    instant: str,
    drop_keys: frozenset[str],
    codec: str = "gzip",
    level: int | None = None,
) -> Any:
    """The ``mapInArrow`` function of a copy-on-write rewrite: each input row names one output
    file group (``partition``, ``file_id``, ``sources``: base files relative to ``root``,
    ``prev``: the instant it supersedes, or ``null`` for a new group); the task writes it
    without the rows whose record key is in ``drop_keys`` and yields its stats row."""

    @in_task
    def rewrite(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        from lakeshift.formats.hudi.base_file import rewrite_base_files

        token, _ = _task_ids()
        table_root = Store(root)
        for batch in batches:
            for job in batch.to_pylist():
                partition = job["partition"]
                written, dropped = rewrite_base_files(
                    [table_root.uri(s) for s in job["sources"]],
                    table_root.child(partition) if partition else table_root,
                    partition_path=partition,
                    instant=instant,
                    file_id=job["file_id"],
                    write_token=token,
                    drop_keys=drop_keys,
                    codec=codec,
                    level=level,
                )
                kind = "CREATE" if job["prev"] == "null" else "MERGE"  # Hudi's marker types
                write_marker(table_root, instant, partition, f"{written.name}.marker.{kind}")
                yield pa.RecordBatch.from_pylist(
                    [
                        {
                            "name": written.name,
                            "partition": partition,
                            "file_id": job["file_id"],
                            "rows": written.rows,
                            "size": written.size,
                            "dropped": dropped,
                            "prev": job["prev"],
                        }
                    ]
                )

    return rewrite


#: The stats row of each file the Arrow path writes: ``STATS_DDL``, and for the first file
#: of each source file its index, rows and the canonical fingerprint of its rows.
ARROW_STATS_DDL = (
    STATS_DDL + ", source long, source_rows long, sum1 string, sum2 string, finer long"
)


def arrow_task_writer(
    reader: FileReader,
    schema: pa.Schema,
    root: str,
    instant: str,
    avro: dict[str, Any],
    per_file: int,
    codec: str = "gzip",
    level: int | None = None,
) -> Any:
    """The Arrow path's ``mapInArrow`` function (the input: source file indexes): each task
    reads its source files with pyarrow (``arrow_path.FileReader``) and writes each as base
    files of at most ``per_file`` rows, cut evenly, with ``schema`` (the Spark path frame's,
    so the files are those the Spark path writes); it yields one stats row per base file."""

    @in_task
    def write(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        token, seqno = _task_ids()
        table_root = Store(root)

        def written() -> Iterator[tuple[int, list[pa.Array], list[dict[str, Any]]]]:
            for batch in batches:
                for index in batch.column(0).to_pylist():
                    arrays, finer = reader.read_counting(index)
                    if arrays is None:
                        continue
                    rows = pa.Table.from_arrays(
                        [a.cast(f.type) for a, f in zip(arrays, schema)], schema=schema
                    )
                    partition = reader.files[index].partition
                    pieces = -(-rows.num_rows // per_file)
                    size = -(-rows.num_rows // pieces)
                    out = []
                    for start in range(0, rows.num_rows, size):
                        piece = rows.slice(start, size)
                        stats = _create(
                            table_root, partition, piece, instant, token, seqno, avro, codec, level
                        )
                        first = start == 0
                        out.append(
                            {
                                **stats,
                                "source": index if first else None,
                                "source_rows": rows.num_rows if first else None,
                                "finer": finer if first else None,
                            }
                        )
                    yield index, arrays, out

        # the source file's checksum goes with its first base file
        for out, found in reader.with_fingerprints(written()):
            out[0].update(sum1=found.sum1, sum2=found.sum2)
            for later in out[1:]:
                later.update(sum1=None, sum2=None)
            yield pa.RecordBatch.from_pylist(out, schema=_arrow_stats_schema())

    return write


def _arrow_stats_schema() -> pa.Schema:
    import pyarrow as pa

    text, number = pa.string(), pa.int64()
    return pa.schema(
        [
            ("name", text),
            ("partition", text),
            ("file_id", text),
            ("rows", number),
            ("size", number),
            ("source", number),
            ("source_rows", number),
            ("sum1", text),
            ("sum2", text),
            ("finer", number),
        ]
    )
