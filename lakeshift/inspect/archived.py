"""Partitions holding objects in an archive storage class, and what becomes of them.

An object S3 keeps in Glacier Flexible Retrieval or Deep Archive (lifecycle rules move old
partitions there) answers every GET with ``InvalidObjectState`` until it is restored: Hive's and
Spark's queries fail on its partition, Athena leaves such objects out silently (unless the
table says ``read_restored_glacier_objects``), Trino and S3A have settings to skip them. The
listing names the class (``storage.objects``), so lakeshift decides before reading anything,
by ``archived_objects``: ``refuse`` the partition (an ``archived`` error naming the objects), or
``skip`` them as Athena does (an ``archived-skipped`` warning, and their count in every report).
A restored object is read like any other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lakeshift.inspect.model import (
    SEVERITY_ERROR,
    SEVERITY_WARNING,
    Anomaly,
    PartitionInfo,
)

ARCHIVED = "archived"
ARCHIVED_SKIPPED = "archived-skipped"
REFUSE, SKIP = "refuse", "skip"
NAMED = 5  # objects named in a message


@dataclass(frozen=True)
class SkippedArchive:
    """What ``archived_objects = "skip"`` left out of one partition.

    Attributes:
        rows: the rows left out, by the metastore's ``numRows`` less the rows read (``None``
            without statistics: an archived object's footer cannot be read either).
    """

    partition: str
    objects: int
    bytes: int
    rows: int | None
    paths: tuple[str, ...]


def archived_anomaly(p: PartitionInfo, policy: str) -> Anomaly | None:
    """The partition's ``archived`` error (``refuse``) or ``archived-skipped`` warning."""
    if not p.archived:
        return None
    named = ", ".join(
        f"{p.location.rstrip('/')}/{a.path} ({a.storage_class})" for a in p.archived[:NAMED]
    ) + (f" and {len(p.archived) - NAMED} more" if len(p.archived) > NAMED else "")
    details = {
        "objects": [a.path for a in p.archived],
        "storage_classes": sorted({a.storage_class for a in p.archived}),
        "bytes": sum(a.size for a in p.archived),
    }
    if policy == SKIP:
        rows = skipped_rows(p)
        return Anomaly(
            code=ARCHIVED_SKIPPED,
            severity=SEVERITY_WARNING,
            message=f"{len(p.archived)} archived object(s) left out (archived_objects = "
            f'"skip", as Athena reads the partition): {named}'
            + (f"; {rows:,} row(s) by the metastore's numRows." if rows is not None else "."),
            action="Migrated without them; restore them and migrate again to bring their "
            "rows in (the partition's fingerprint changes when they are readable).",
            partition=p.name,
            details={**details, "rows": rows},
        )
    return Anomaly(
        code=ARCHIVED,
        severity=SEVERITY_ERROR,
        message=f"{len(p.archived)} object(s) in an archive storage class cannot be read "
        f"until restored: {named}.",
        action="Restore them (aws s3api restore-object, then wait for "
        'ongoing-request="false") and inspect again; or set archived_objects = "skip" to '
        "migrate the partition without them, as Athena reads it (their rows are reported as "
        "left out).",
        partition=p.name,
        details=details,
    )


def skipped_rows(p: PartitionInfo) -> int | None:
    """Rows in the archived objects: the metastore's ``numRows`` less what the footers count."""
    stats, read = p.stats_num_rows, p.footer_rows
    if stats is None or read is None or stats < read:
        return None
    return stats - read


def skipped_archives(partitions: Iterable[PartitionInfo]) -> list[SkippedArchive]:
    """Every partition migrated without its archived objects, with what was left out."""
    return [
        SkippedArchive(
            partition=p.name,
            objects=len(p.archived),
            bytes=sum(a.size for a in p.archived),
            rows=skipped_rows(p),
            paths=tuple(a.path for a in p.archived),
        )
        for p in partitions
        if any(a.code == ARCHIVED_SKIPPED for a in p.anomalies)
    ]


def skipped_totals(skipped: Iterable[SkippedArchive]) -> dict[str, int | None]:
    """Partitions, objects, bytes and rows left out (rows ``None`` if any partition's are
    unknown)."""
    chosen = list(skipped)
    rows = [s.rows for s in chosen]
    return {
        "partitions": len(chosen),
        "objects": sum(s.objects for s in chosen),
        "bytes": sum(s.bytes for s in chosen),
        "rows": None if any(r is None for r in rows) else sum(r for r in rows if r is not None),
    }


def skipped_note(skipped: Iterable[SkippedArchive]) -> str | None:
    """One line for plans and reports, naming the first partitions."""
    chosen = list(skipped)
    if not chosen:
        return None
    totals = skipped_totals(chosen)
    rows = f"{totals['rows']:,} row(s)" if totals["rows"] is not None else "rows unknown"
    first = "; ".join(f"{s.partition}: {', '.join(s.paths[:2])}" for s in chosen[:3])
    return (
        f"{totals['objects']} archived object(s) in {totals['partitions']} partition(s) left "
        f'out (archived_objects = "skip"; {rows}, {totals["bytes"]:,} bytes): {first}'
        + (" ..." if len(chosen) > 3 else "")
    )
