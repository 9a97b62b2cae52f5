"""What a Hudi commit holds: write stats per partition, the write schema and lakeshift's own
record in ``extraMetadata`` (spelled as table version 6's JSON; the timeline encodes it as
Avro from version 8)."""

from __future__ import annotations

import json
from typing import Any

BULK_INSERT, INSERT_OVERWRITE, DELETE, CLUSTER = (
    "BULK_INSERT",
    "INSERT_OVERWRITE",
    "DELETE",
    "CLUSTER",
)


def write_stat(
    *,
    file_id: str,
    path: str,
    partition: str,
    rows: int,
    size: int,
    prev_commit: str = "null",
    num_deletes: int = 0,
    num_update_writes: int = 0,
    num_inserts: int | None = None,
    prev_base_file: str | None = None,
) -> dict[str, Any]:
    """One file's write stat, every key in the order Hudi 0.14/0.15 writes them;
    ``prev_base_file`` (the slice a rewrite replaced) is a version 8 key, left out if None."""
    stat: dict[str, Any] = {
        "fileId": file_id,
        "path": path,
        "cdcStats": None,
        "prevCommit": prev_commit,
        "numWrites": rows,
        "numDeletes": num_deletes,
        "numUpdateWrites": num_update_writes,
        "numInserts": rows - num_update_writes if num_inserts is None else num_inserts,
        "totalWriteBytes": size,
        "totalWriteErrors": 0,
        "tempPath": None,
        "partitionPath": partition,
        "totalLogRecords": 0,
        "totalLogFilesCompacted": 0,
        "totalLogSizeCompacted": 0,
        "totalUpdatedRecordsCompacted": 0,
        "totalLogBlocks": 0,
        "totalCorruptLogBlock": 0,
        "totalRollbackBlocks": 0,
        "fileSizeInBytes": size,
        "minEventTime": None,
        "maxEventTime": None,
        "runtimeStats": {"totalScanTime": 0, "totalUpsertTime": 0, "totalCreateTime": 0},
    }
    if prev_base_file is not None:
        stat["prevBaseFile"] = prev_base_file
    return stat


def inflight_metadata(operation: str) -> dict[str, Any]:
    """An inflight instant's content: the operation, no write stats yet."""
    return {
        "partitionToWriteStats": {},
        "compacted": False,
        "extraMetadata": {},
        "operationType": operation,
    }


def commit_metadata(
    stats: list[dict[str, Any]],
    schema: dict[str, Any],
    operation: str,
    extra: dict[str, str],
    replaced: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """A ``commit`` (or, with ``replaced`` = partitionToReplaceFileIds, a ``replacecommit``)."""
    by_partition: dict[str, list[dict[str, Any]]] = {}
    for stat in stats:
        by_partition.setdefault(stat["partitionPath"], []).append(stat)
    out: dict[str, Any] = {
        "partitionToWriteStats": by_partition,
        "compacted": False,
        "extraMetadata": {"schema": json.dumps(schema, separators=(",", ":")), **extra},
        "operationType": operation,
    }
    if replaced is not None:
        out["partitionToReplaceFileIds"] = replaced
    return out
