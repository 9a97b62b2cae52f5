"""``maintain_table``: compaction, expiry and orphan removal on a migrated lake table.

It holds the table's lease, so it never runs while a migration (or an erasure) of the same
table does, and it never removes a file the current snapshot references: expiry keeps the
current snapshot (all the routing view reads, before or after cutover: partitions not switched
are read from Hive, not from an older lake snapshot), and orphan removal only takes files no
snapshot references that are older than its margin.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from lakeshift.errors import NotFound, UsageError
from lakeshift.formats import FormatServices, TargetFormat, require_target
from lakeshift.inspect.inspector import split_table_name
from lakeshift.maintain.layout import DataFileStat, TableLayout, layout_for
from lakeshift.migrate.journal import Journal
from lakeshift.route.cutover import is_cut_over

log = logging.getLogger(__name__)
Progress = Callable[[str], None]
DEFAULT_TARGET_FILE_SIZE = 128 * 1024 * 1024
#: Files under this share of the target size are small (Iceberg's own default rule).
SMALL_SHARE = 0.75
#: Orphan removal never takes files younger than this: a running writer's files are orphans
#: until its commit lands.
MIN_ORPHAN_HOURS = 1.0


@dataclass(frozen=True)
class MaintainOptions:
    """What to do (nothing unless asked).

    Attributes:
        compact: rewrite partitions holding two or more small files.
        target_file_size: bytes per output file when compacting.
        expire_days: expire snapshots/versions older than this many days (current kept).
        orphan_hours: remove unreferenced files older than this many hours.
        dry_run: report what would be done; change nothing.
    """

    compact: bool = False
    target_file_size: int = DEFAULT_TARGET_FILE_SIZE
    expire_days: float | None = None
    orphan_hours: float | None = None
    dry_run: bool = False
    break_lease: bool = False

    def check(self, names: dict[str, str] | None = None) -> None:
        """Refuse options that ask for nothing or would be unsafe; ``names`` says what the
        user calls each option (the CLI's flags by default, a bulk file's keys)."""
        name = {**FLAG_NAMES, **(names or {})}
        if not (self.compact or self.expire_days is not None or self.orphan_hours is not None):
            raise UsageError(
                f"say what to do: {name['compact']}, {name['expire_days']} and/or "
                f"{name['orphan_hours']}",
                hint="e.g. lakeshift maintain DB.TABLE --compact --expire 7 --orphans 72",
            )
        if self.target_file_size < 1024 * 1024:
            raise UsageError(f"{name['target_file_size']} must be at least 1 MiB")
        if self.expire_days is not None and self.expire_days < 0:
            raise UsageError(f"{name['expire_days']} takes a number of days, 0 or more")
        if self.orphan_hours is not None and self.orphan_hours < MIN_ORPHAN_HOURS:
            raise UsageError(
                f"{name['orphan_hours']} must be at least {MIN_ORPHAN_HOURS:g} hour(s): a "
                "younger unreferenced file may belong to a write that has not committed yet."
            )


#: What the CLI calls each option (error messages name them).
FLAG_NAMES = {
    "compact": "--compact",
    "target_file_size": "--target-file-size",
    "expire_days": "--expire DAYS",
    "orphan_hours": "--orphans HOURS",
}


@dataclass(frozen=True)
class PartitionFiles:
    partition: str
    files: int
    bytes: int
    rows: int
    small: int


@dataclass(frozen=True)
class TableStats:
    """Files per partition, bytes and snapshots/versions at one moment."""

    partitions: tuple[PartitionFiles, ...]
    versions: int
    oldest_version_at: float | None

    @property
    def files(self) -> int:
        return sum(p.files for p in self.partitions)

    @property
    def bytes(self) -> int:
        return sum(p.bytes for p in self.partitions)

    @property
    def rows(self) -> int:
        return sum(p.rows for p in self.partitions)

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "bytes": self.bytes,
            "rows": self.rows,
            "versions": self.versions,
            "oldest_version_at": self.oldest_version_at,
            "partitions": [vars(p) for p in self.partitions],
        }


@dataclass(frozen=True)
class MaintainResult:
    source: str
    lake_table: str
    format: str
    dry_run: bool
    before: TableStats
    after: TableStats | None
    compacted: list[str] = field(default_factory=list)
    #: Partitions compaction left alone, and why (files adopted from the Hive source).
    not_compacted: dict[str, str] = field(default_factory=dict)
    would_expire: int = 0
    expired: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "lake_table": self.lake_table,
            "format": self.format,
            "dry_run": self.dry_run,
            "before": self.before.to_json(),
            "after": self.after.to_json() if self.after else None,
            "compacted": self.compacted,
            "not_compacted": self.not_compacted,
            "would_expire": self.would_expire,
            "expired": self.expired,
            "orphans": self.orphans,
            "notes": self.notes,
            "seconds": self.seconds,
        }


def table_stats(layout: TableLayout, target: str, target_file_size: int) -> TableStats:
    by_partition: dict[str, list[DataFileStat]] = {}
    for f in layout.files(target):
        by_partition.setdefault(f.partition, []).append(f)
    small = target_file_size * SMALL_SHARE
    times = layout.version_times(target)
    return TableStats(
        tuple(
            PartitionFiles(
                name,
                len(files),
                sum(f.size for f in files),
                sum(f.rows for f in files),
                sum(1 for f in files if f.size < small),
            )
            for name, files in sorted(by_partition.items())
        ),
        len(times),
        times[0] if times else None,
    )


def lake_table(journal: Journal, source: str) -> str:
    """The lake table of ``source``: the public name once cut over, else its target."""
    route = journal.route(source) or {}
    if is_cut_over(route):
        return source
    targets = {r.target for r in journal.partitions(source).values() if r.target}
    target = route.get("target") or (targets.pop() if len(targets) == 1 else None)
    if not target:
        raise NotFound(
            f"{source} has not been migrated by lakeshift here (no target in the journal).",
            hint="Run `lakeshift migrate` first, or point --home at the migration's state.",
        )
    return str(target).lower()


def maintain_table(
    services: FormatServices,
    journal: Journal,
    table: str,
    options: MaintainOptions,
    progress: Progress | None = None,
) -> MaintainResult:
    """Compact, expire and remove orphans as asked; returns the before/after picture."""
    options.check()
    say = progress or (lambda _: None)
    started = time.monotonic()
    db, name = split_table_name(table)
    source = f"{db}.{name}"
    target = lake_table(journal, source)
    fmt = require_target(services, target, source)
    layout = layout_for(fmt)
    if not options.dry_run:
        journal.acquire_lease(source, "lakeshift maintain", break_lease=options.break_lease)
    try:
        before = table_stats(layout, target, options.target_file_size)
        result = _run(fmt, layout, source, target, before, options, say)
    finally:
        if not options.dry_run:
            journal.release_lease(source)
    if not options.dry_run:
        journal.event(
            source,
            "maintained",
            f"compacted {len(result.compacted)}, expired {len(result.expired)}, "
            f"orphans {len(result.orphans)}",
        )
    return _with_seconds(result, time.monotonic() - started)


def _with_seconds(result: MaintainResult, seconds: float) -> MaintainResult:
    from dataclasses import replace

    return replace(result, seconds=round(seconds, 2))


def _run(
    fmt: TargetFormat,
    layout: TableLayout,
    source: str,
    target: str,
    before: TableStats,
    options: MaintainOptions,
    say: Progress,
) -> MaintainResult:
    now = datetime.now(timezone.utc)
    notes: list[str] = []
    candidates = [p.partition for p in before.partitions if p.small >= 2] if options.compact else []
    held = _holding_foreign_files(layout, target) if candidates else {}
    not_compacted = {p: held[p] for p in candidates if p in held}
    candidates = [p for p in candidates if p not in held]
    if not_compacted:
        notes.append(
            f"{len(not_compacted)} partition(s) with small files hold files adopted from the "
            f"Hive source (e.g. {next(iter(not_compacted.values()))}): not compacted; those "
            "files stay the Hive table's until `lakeshift retire --delete-files`"
        )
    would_expire = 0
    if options.expire_days is not None:
        cutoff = (now - timedelta(days=options.expire_days)).timestamp()
        # The current snapshot/version is always kept.
        times = layout.version_times(target)
        would_expire = sum(1 for t in times[:-1] if t < cutoff)
    if options.dry_run:
        if options.orphan_hours is not None:
            notes.append("orphan files are found only when removing them (not in a dry run)")
        return MaintainResult(
            source,
            target,
            fmt.name,
            True,
            before,
            None,
            compacted=candidates,
            not_compacted=not_compacted,
            would_expire=would_expire,
            notes=notes,
        )
    if candidates:
        say(f"compacting {len(candidates)} partition(s) with small files")
        layout.compact(target, candidates, options.target_file_size)
    elif options.compact and not not_compacted:
        notes.append("no partition holds two or more small files: nothing to compact")
    expired: list[str] = []
    if options.expire_days is not None:
        say(f"expiring snapshots/versions older than {options.expire_days:g} day(s)")
        expired = fmt.expire(target, now - timedelta(days=options.expire_days))
    orphans: list[str] = []
    if options.orphan_hours is not None:
        say(f"removing unreferenced files older than {options.orphan_hours:g} hour(s)")
        orphans = fmt.remove_orphans(target, now - timedelta(hours=options.orphan_hours))
    after = table_stats(layout, target, options.target_file_size)
    return MaintainResult(
        source,
        target,
        fmt.name,
        False,
        before,
        after,
        compacted=candidates,
        not_compacted=not_compacted,
        would_expire=would_expire,
        expired=expired,
        orphans=orphans,
        notes=notes,
    )


def _holding_foreign_files(layout: TableLayout, target: str) -> dict[str, str]:
    """Partitions holding a file outside the lake table's location (adopted), each with the
    reason it is left alone: a rewrite would copy the Hive table's rows into the lake table,
    undoing the adoption, and could not reclaim the originals (they stay until retirement)."""
    out: dict[str, str] = {}
    for f in layout.foreign_files(target):
        out.setdefault(f.partition, f"holds {f.path}, a file of the Hive source (adopted)")
    return out
