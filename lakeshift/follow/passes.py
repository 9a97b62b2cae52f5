"""One ``follow`` pass: bring the lake table and the routing view in step with Hive as it is.

The order is what keeps readers right:

1. look: the metastore's notification log (where kept), then the table's partitions and
   every partition's listing (the only signal of writers that bypass the metastore);
2. protect readers: every switched partition whose source changed, or that Hive dropped,
   or, after a change of the table's columns, every switched partition, is served from Hive
   again in one view update, before anything is copied;
3. drop from the lake table the partitions Hive dropped;
4. copy (``migrate``) the settled partitions whose files changed or that are new; the
   target's schema evolves as ``migrate`` evolves it;
5. prove (``validate``) what was copied, and after a change of columns every partition;
6. switch the settled partitions that are proven equal at their current files.

A partition moved within the quiet period stays on Hive and is copied on a later pass. Every
step is one that ``migrate``, ``validate`` and ``switch`` already make safe to kill and
re-run; this pass's own record is written last, so a killed pass is simply done again.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from lakeshift.errors import NotFound
from lakeshift.follow.changes import Changes, compare, schema_digest
from lakeshift.follow.events import EventsRead, read_events
from lakeshift.follow.state import FollowState
from lakeshift.formats import TargetFormat
from lakeshift.inspect.footer_cache import FooterCache, reusing
from lakeshift.inspect.inspector import inspect_table, save_inventory, split_table_name
from lakeshift.inspect.model import PartitionInfo, TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.partition_names import parse_partition_name
from lakeshift.migrate.backfill import MigrateOptions, migrate, open_target
from lakeshift.route.router import eligibility, needs_validation, recover, switch, withdraw
from lakeshift.storage.store import StorageUnavailable, unreachable
from lakeshift.validate.validator import validate_table

if TYPE_CHECKING:
    from lakeshift.context import Context

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FollowOptions:
    """How ``follow`` keeps one table in step.

    Attributes:
        target: the lake table.
        format: the target's format when ``follow`` creates it (else the existing one's).
        switch: switch settled, proven partitions (else only copy and validate them).
        level: the validation level that proves a partition (``checksum`` or ``independent``).
        quiet_seconds: how long a partition must be unchanged before it is copied/switched.
        adopt_files: ``migrate``'s: a settled partition Iceberg can hold as its own files is
            adopted again instead of copied (``migrate.adoption``).
    """

    target: str
    format: str | None = None
    switch: bool = True
    level: str = "checksum"
    quiet_seconds: float = 300.0
    key_mode: str = "uuid"
    batch_rows: int = 5_000_000
    adopt_files: str = "never"


@dataclass
class PassReport:
    """What one pass found and did (JSON in ``status``, the report and ``follow``'s output)."""

    source: str
    target: str
    started_at: float
    changes: Changes | None = None
    events: EventsRead | None = None
    withdrawn: list[str] = field(default_factory=list)
    #: the longest any withdrawn partition's lake copy may have been older than its source
    #: (from the listing before the change was seen to its view update)
    stale_seconds: float = 0.0
    deleted: list[str] = field(default_factory=list)
    backfilled: list[str] = field(default_factory=list)
    validated: dict[str, str] = field(default_factory=dict)
    switched: list[str] = field(default_factory=list)
    #: partitions not served from the lake at their current source: partition -> why
    behind: dict[str, str] = field(default_factory=dict)
    #: partitions lakeshift does not migrate (served from Hive for good): partition -> why
    refused: dict[str, str] = field(default_factory=dict)
    #: seconds since the oldest change the lake table has not caught up with
    lag_seconds: float = 0.0
    requests: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    number: int | None = None
    #: the source as the pass listed it (not in the JSON: ``inspect`` shows it)
    inventory: TableInventory | None = field(default=None, repr=False, compare=False)

    @property
    def in_step(self) -> bool:
        return not self.behind

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "pass": self.number,
            "started_at": self.started_at,
            "seconds": round(self.seconds, 3),
            "changes": self.changes.to_json() if self.changes else None,
            "events": self.events.to_json() if self.events else None,
            "withdrawn": self.withdrawn,
            "stale_seconds": round(self.stale_seconds, 3),
            "deleted": self.deleted,
            "backfilled": self.backfilled,
            "validated": self.validated,
            "switched": self.switched,
            "behind": self.behind,
            "refused": self.refused,
            "lag_seconds": round(self.lag_seconds, 3),
            "requests": self.requests,
            "in_step": self.in_step,
        }


class SourceGone(NotFound):
    """The Hive table was dropped while it was followed."""


def run_pass(
    ctx: Context,
    source: str,
    options: FollowOptions,
    state: FollowState,
    cache: FooterCache,
) -> PassReport:
    """One pass over ``source`` (see the module's docstring); records it in ``state``."""
    started = time.time()
    db, table = split_table_name(source)
    name = f"{db}.{table}"
    report = PassReport(name, options.target, started)
    known = state.table(name)
    previous = state.seen(name)
    reads, hits = cache.reads, cache.hits
    with reusing(cache):
        report.events = read_events(ctx.metastore, db, table, known.cursor if known else None)
        inventory = _inspect(ctx, name, options.target)
        listed = time.time()
        changes = compare(
            previous,
            known.schema if known else None,
            inventory,
            now=listed,
            quiet_seconds=options.quiet_seconds,
        )
        report.changes = changes
        fmt = open_target(
            ctx.formats, ctx.settings, MigrateOptions(options.target, format=options.format)
        )
        exists = fmt.exists(options.target)
        if exists:
            last = _last_listing(state, name)
            _protect(ctx, fmt, inventory, changes, options, report, known_at=last)
            _drop(fmt, inventory, changes, options, report)
        _copy(ctx, fmt, inventory, changes, options, report)
        if fmt.exists(options.target):
            _prove(ctx, inventory, changes, options, report)
            if options.switch:
                _switch(ctx, fmt, inventory, changes, options, report)
            _behind(ctx, fmt, inventory, changes, options, report, now=time.time())
        else:
            report.behind = {p.name: "not copied yet" for p in inventory.partitions}
    report.requests = {
        "notification_log": report.events.requests if report.events else 0,
        "directory_listings": inventory.listings,
        "footer_reads": cache.reads - reads,
        "footers_reused": cache.hits - hits,
    }
    save_inventory(inventory, ctx.home)  # the next process reuses its footers
    report.inventory = inventory
    report.seconds = time.time() - started
    report.number = state.settle(
        name,
        options.target,
        changes.seen,
        schema=schema_digest(inventory),
        cursor=report.events.cursor if report.events else None,
        started_at=listed,
        status="in-step" if report.in_step else "behind",
        summary=report.to_json(),
    )
    return report


def _inspect(ctx: Context, name: str, target: str) -> TableInventory:
    try:
        inventory = inspect_table(ctx.metastore, name, ctx.settings, spark=lambda: ctx.spark)
    except NotFound as e:
        raise SourceGone(
            f"the Hive table {name} is gone (dropped or renamed while lakeshift followed it); "
            f"the lake table {target} keeps every row it held, and the routing view still "
            "reads from the Hive table.",
            hint=f"Recreate {name} (or its partitions) and run follow again, or, if the "
            f"drop was meant, point readers at {target} yourself; nothing was changed.",
        ) from e
    _refuse_unlisted(inventory)
    return inventory


def _refuse_unlisted(inventory: TableInventory) -> None:
    """A store that could not be reached while listing a directory (the network, the
    endpoint, a throttle outlasting the retries: ``store.unreachable``) fails the pass before
    it acts: read as empty, the partition would look changed, be served from Hive and copied
    again once the store is back. The next pass lists again (``loop.TRANSIENT``). Any other
    listing error (access denied, no such bucket, not a directory) stays the partition's
    own, as ``inspect`` reports it: a person fixes it, and follow serves it from Hive."""
    failed = [
        a
        for p in inventory.partitions
        for a in p.anomalies
        if a.code == "unreadable-directory" and unreachable(a.message)
    ]
    if failed:
        raise StorageUnavailable(
            f"the store did not list {len(failed)} partition directory(ies) of "
            f"{inventory.qualified_name} ({failed[0].message}); this pass changed nothing.",
            hint="Check the store's endpoint and network; the next pass lists them again.",
        )


def _last_listing(state: FollowState, name: str) -> float | None:
    last = state.passes(name, limit=1)
    return float(last[0]["started_at"]) if last else None


def _protect(
    ctx: Context,
    fmt: TargetFormat,
    inventory: TableInventory,
    changes: Changes,
    options: FollowOptions,
    report: PassReport,
    *,
    known_at: float | None,
) -> None:
    """Serve from Hive every switched partition the lake copy of which is not Hive's now."""
    switched = recover(ctx.metastore, ctx.journal, inventory.qualified_name)
    if not switched:
        return
    current = {p.name for p in inventory.partitions}
    if changes.schema_changed:
        stale = list(switched)
    else:
        eligible = eligibility(inventory, fmt, options.target, ctx.journal)
        moved = set(changes.changed) | set(changes.dropped)
        stale = [
            n for n in switched if n in moved or n not in current or eligible.get(n) is not None
        ]
    if not stale:
        return
    change = withdraw(ctx.formats, ctx.journal, inventory, options.target, stale)
    report.withdrawn = change.changed
    if known_at is not None:
        report.stale_seconds = max(0.0, time.time() - known_at)
    log.info("follow: served from Hive again: %s", ", ".join(change.changed))


def _drop(
    fmt: TargetFormat,
    inventory: TableInventory,
    changes: Changes,
    options: FollowOptions,
    report: PassReport,
) -> None:
    """Delete from the lake table the partitions Hive no longer has (one commit)."""
    current = {p.name for p in inventory.partitions}
    gone = dict(changes.dropped_values)
    for n in fmt.backfilled(options.target):
        if n not in current and n not in gone:
            gone[n] = tuple(v for _, v in parse_partition_name(n))
    if not gone:
        return
    ghosts = replace(
        inventory,
        partitions=(*inventory.partitions, *(_ghost(n, v) for n, v in sorted(gone.items()))),
    )
    held = fmt.row_counts(options.target, ghosts)
    present = sorted(n for n in gone if held.get(n))
    if present:
        fmt.delete_partitions(options.target, ghosts, present)
        report.deleted = present
        log.info("follow: removed partitions Hive dropped: %s", ", ".join(present))


def _ghost(name: str, values: tuple[str | None, ...]) -> PartitionInfo:
    """A partition Hive dropped, as far as deleting it from the lake needs it."""
    return PartitionInfo(
        name=name,
        values=values,
        location="",
        location_exists=False,
        outside_table_root=False,
        format="orc",
        input_format="",
        serde="",
        columns=(),
        parameters={},
        files=(),
        skipped_files=0,
        fingerprint="",
    )


def _copy(
    ctx: Context,
    fmt: TargetFormat,
    inventory: TableInventory,
    changes: Changes,
    options: FollowOptions,
    report: PassReport,
) -> None:
    """Back-fill the settled partitions whose files the lake table does not hold yet, and
    again those whose storage descriptor changed over the same files (``--force``)."""
    exists = fmt.exists(options.target)
    done = fmt.backfilled(options.target) if exists else {}
    relaid = set(changes.changed)
    copy, force = [], []
    for p in inventory.partitions:
        if not p.migratable or p.name in changes.unsettled:
            continue
        record = done.get(p.name)
        if record is None:
            if p.rows:
                copy.append(p.name)
        elif record.fingerprint != p.fingerprint:
            copy.append(p.name)
        elif p.name in relaid:
            force.append(p.name)
    if exists and not copy and not force and not changes.schema_changed:
        return
    if copy or not force:  # this run also creates the target, or evolves its columns
        report.backfilled += _migrate(ctx, inventory, options, copy, force=False)
    if force:
        report.backfilled += _migrate(ctx, inventory, options, force, force=True)


def _migrate(
    ctx: Context, inventory: TableInventory, options: FollowOptions, names: list[str], *,
    force: bool,
) -> list[str]:  # fmt: skip
    chosen = MigrateOptions(
        options.target,
        partitions=PartitionFilter.exactly(names),
        format=options.format,
        key_mode=options.key_mode,
        batch_rows=options.batch_rows,
        force=force,
        adopt_files=options.adopt_files,
    )
    result = migrate(
        ctx.spark,
        ctx.metastore,
        ctx.formats.catalog,
        ctx.settings,
        ctx.journal,
        inventory.qualified_name,
        chosen,
    )
    return list(result.backfilled)


def _prove(
    ctx: Context,
    inventory: TableInventory,
    changes: Changes,
    options: FollowOptions,
    report: PassReport,
) -> None:
    settled = PartitionFilter.exactly(changes.settled([p.name for p in inventory.partitions]))
    todo = needs_validation(inventory, ctx.formats, options.target, ctx.journal, settled)
    if changes.schema_changed:  # every partition is read anew under the new columns
        todo = sorted(set(todo) | set(report.withdrawn) | set(report.backfilled))
    if not todo:
        return
    result = validate_table(
        ctx.spark,
        ctx.metastore,
        ctx.formats.catalog,
        ctx.settings,
        ctx.journal,
        inventory.qualified_name,
        options.target,
        level=options.level,
        partitions=PartitionFilter.exactly(todo),
    )
    report.validated = {p.partition: p.status for p in result.partitions}


def _switch(
    ctx: Context,
    fmt: TargetFormat,
    inventory: TableInventory,
    changes: Changes,
    options: FollowOptions,
    report: PassReport,
) -> None:
    """Switch the settled partitions proven at the pass's listing; ``switch`` lists the source
    once more and switches only those still switchable then (no view update when none is)."""
    eligible = eligibility(inventory, fmt, options.target, ctx.journal)
    switched = set(recover(ctx.metastore, ctx.journal, report.source))
    ready = [
        n for n in changes.settled(sorted(eligible)) if eligible[n] is None and n not in switched
    ]
    if not ready:
        return
    change = switch(
        ctx.formats,
        ctx.settings,
        ctx.journal,
        report.source,
        options.target,
        partitions=PartitionFilter.exactly(ready),
        all_validated=False,
    )
    report.switched = change.changed
    report.withdrawn.extend(n for n in change.refused if n in switched)


def _behind(
    ctx: Context,
    fmt: TargetFormat,
    inventory: TableInventory,
    changes: Changes,
    options: FollowOptions,
    report: PassReport,
    *,
    now: float,
) -> None:
    """What is not in step after the pass, and since when (the lag)."""
    eligible = eligibility(inventory, fmt, options.target, ctx.journal)
    switched = set(recover(ctx.metastore, ctx.journal, report.source))
    unsettled = set(changes.unsettled)
    oldest: float | None = None
    for p in inventory.partitions:
        why: str | None
        if not p.migratable:
            report.refused[p.name] = p.refusal or "not migrated"
            continue
        if p.name in unsettled:
            why = f"changing: copied once unchanged for {options.quiet_seconds:g}s"
        elif eligible.get(p.name) is not None:
            why = eligible[p.name]
        elif options.switch and p.name not in switched:
            why = "proven, not switched yet"
        else:
            why = None
        if why is None:
            continue
        report.behind[p.name] = why
        seen = changes.seen.get(p.name)
        since = max(seen.changed_at if seen else 0.0, p.newest_mtime_ns / 1e9) or now
        oldest = since if oldest is None else min(oldest, since)
    report.lag_seconds = max(0.0, now - oldest) if oldest is not None else 0.0
