"""lakeshift's metadata on each batch commit, the same keys in every format.

Iceberg keeps them in the snapshot summary, Delta in ``commitInfo``; either way the commit and
its record are one atomic write, so the target itself says what was backfilled.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from lakeshift.formats.base import Backfilled, CommitRecord

RUN_ID = "lakeshift.run-id"
BATCH = "lakeshift.batch"
SOURCE = "lakeshift.source"
PARTITIONS = "lakeshift.partitions"
#: The table property naming the source a target was created for.
TARGET_SOURCE_PROPERTY = "lakeshift.source"


def commit_properties(record: CommitRecord) -> dict[str, str]:
    """The commit entries of one batch: partition -> [fingerprint, footer rows]."""
    return {
        RUN_ID: record.run_id,
        BATCH: str(record.batch),
        SOURCE: record.source,
        PARTITIONS: json.dumps(
            {k: [fp, rows] for k, (fp, rows) in record.partitions.items()},
            separators=(",", ":"),
            ensure_ascii=False,
        ),
    }


def is_commit_of(props: Mapping[str, str], run_id: str, batch: int) -> bool:
    return props.get(RUN_ID) == run_id and props.get(BATCH) == str(batch)


def latest_backfills(commits: Iterable[tuple[int, Mapping[str, str]]]) -> dict[str, Backfilled]:
    """Each partition's most recent backfill from ``(commit id, properties)``, newest first."""
    found: dict[str, Backfilled] = {}
    for commit_id, props in commits:
        if PARTITIONS not in props:
            continue
        for name, (fingerprint, rows) in json.loads(props[PARTITIONS]).items():
            found.setdefault(
                name, Backfilled(name, fingerprint, int(rows), commit_id, props.get(RUN_ID, ""))
            )
    return found
