"""Which base files a Hudi table no longer needs (pure file logic over the timeline).

Hudi's cleaner removes file slices superseded by a later completed instant of the same file
group, and the file groups a completed ``replacecommit`` replaced; files no completed instant
wrote (a crashed or failed attempt's) are orphans. lakeshift keeps only the latest slice of each
file group, so "superseded" here means every older slice, once the instant that superseded it is
older than the caller's cutoff (a reader planned on the older slice may still be reading).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from datetime import datetime, timezone

from lakeshift.formats.hudi.base_file import file_id_of, instant_of
from lakeshift.formats.hudi.properties import HOODIE, Location
from lakeshift.formats.hudi.timeline import COMMIT, REPLACE, Timeline
from lakeshift.storage import Store


@dataclass(frozen=True)
class BaseFile:
    path: str  # relative to the table's root
    partition: str
    file_id: str
    instant: str
    mtime_ns: int = 0

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)


def instant_datetime(instant: str) -> datetime:
    """A 17-digit Hudi instant time (UTC) as a datetime."""
    return datetime.strptime(instant, "%Y%m%d%H%M%S%f").replace(tzinfo=timezone.utc)


def base_files(root: Location) -> list[BaseFile]:
    """Every base file under the partition directories (``.hoodie`` excluded)."""
    found = []
    for stored in Store.of(root).list_files():
        parts = stored.path.split("/")
        if not stored.path.endswith(".parquet") or HOODIE in parts or parts[-1].startswith("."):
            continue
        name = parts[-1]
        found.append(
            BaseFile(
                stored.path,
                "/".join(parts[:-1]),
                file_id_of(name),
                instant_of(name),
                stored.mtime_ns,
            )
        )
    return sorted(found, key=lambda f: (f.partition, f.file_id, f.instant))


def superseded(root: Location, timeline: Timeline, older_than: datetime) -> list[BaseFile]:
    """Slices a later completed instant superseded (same file group, or the group replaced by a
    ``replacecommit``) when that instant is older than ``older_than``."""
    completed = {i.time for i in timeline.completed({COMMIT, REPLACE})}
    replaced_by: dict[tuple[str, str], str] = {}
    for instant in timeline.completed({REPLACE}):
        ids = timeline.metadata(instant).get("partitionToReplaceFileIds") or {}
        for partition, file_ids in ids.items():
            for file_id in file_ids:
                replaced_by.setdefault((partition, file_id), instant.time)
    latest: dict[tuple[str, str], str] = {}
    files = [f for f in base_files(root) if f.instant in completed]
    for f in files:
        key = (f.partition, f.file_id)
        latest[key] = max(latest.get(key, f.instant), f.instant)
    out = []
    for f in files:
        key = (f.partition, f.file_id)
        newer = [t for t in (latest[key], replaced_by.get(key, "")) if t > f.instant]
        if newer and instant_datetime(min(newer)) < older_than:
            out.append(f)
    return out


def written_rows(timeline: Timeline) -> dict[str, int]:
    """Rows of every base file a completed commit or replacecommit wrote (path relative to the
    table root -> ``numWrites``), from the instants' write stats."""
    out: dict[str, int] = {}
    for instant in timeline.completed({COMMIT, REPLACE}):
        by_partition = timeline.metadata(instant).get("partitionToWriteStats") or {}
        for stats in by_partition.values():
            out.update({s["path"]: int(s["numWrites"]) for s in stats})
    return out


def orphans(root: Location, timeline: Timeline, older_than: datetime) -> list[BaseFile]:
    """Base files no completed instant reports writing (failed or crashed attempts), last
    modified before ``older_than``; pending instants' files are left to their rollback."""
    written = written_rows(timeline)
    completed = {i.time for i in timeline.completed({COMMIT, REPLACE})}
    pending = {i.time for i in timeline.pending()}
    cutoff = older_than.timestamp()
    return [
        f
        for f in base_files(root)
        if f.instant not in pending
        and (f.instant not in completed or f"{f.partition}/{f.name}" not in written)
        and f.mtime_ns / 1e9 < cutoff
    ]
