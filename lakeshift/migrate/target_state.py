"""What the target already holds, read from its own commit metadata (the ground truth).

Every lakeshift commit carries, in its Iceberg snapshot summary, the run id and the partitions it
wrote with their source fingerprints. Walking the current snapshot's ancestry, newest first,
gives each partition's last backfill.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyiceberg.table import Table

RUN_ID = "lakeshift.run-id"
BATCH = "lakeshift.batch"
SOURCE = "lakeshift.source"
PARTITIONS = "lakeshift.partitions"
TARGET_SOURCE_PROPERTY = "lakeshift.source"


@dataclass(frozen=True)
class Backfilled:
    partition: str
    fingerprint: str
    rows: int
    snapshot_id: int
    run_id: str


def snapshot_properties(
    run_id: str, batch: int, source: str, partitions: dict[str, tuple[str, int]]
) -> dict[str, str]:
    """The summary entries of one batch commit: partition -> [fingerprint, footer rows]."""
    return {
        RUN_ID: run_id,
        BATCH: str(batch),
        SOURCE: source,
        PARTITIONS: json.dumps(
            {k: [fp, rows] for k, (fp, rows) in partitions.items()},
            separators=(",", ":"),
            ensure_ascii=False,
        ),
    }


def _summary(snapshot: Any) -> dict[str, str]:
    summary = snapshot.summary
    if summary is None:
        return {}
    return dict(summary.additional_properties) if hasattr(summary, "additional_properties") else {}


def backfilled_partitions(table: Table) -> dict[str, Backfilled]:
    """Each partition's most recent lakeshift backfill in the current snapshot's ancestry."""
    found: dict[str, Backfilled] = {}
    snapshot = table.current_snapshot()
    while snapshot is not None:
        props = _summary(snapshot)
        if PARTITIONS in props:
            for name, (fingerprint, rows) in json.loads(props[PARTITIONS]).items():
                found.setdefault(
                    name,
                    Backfilled(
                        name, fingerprint, int(rows), snapshot.snapshot_id, props.get(RUN_ID, "")
                    ),
                )
        parent = snapshot.parent_snapshot_id
        snapshot = table.metadata.snapshot_by_id(parent) if parent is not None else None
    return found
