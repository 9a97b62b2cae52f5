"""Switch readers partition by partition, roll back, report status.

A partition is switched only when, right now, its source fingerprint equals the one it was
backfilled and validated at, and that validation was ``equal``. Each switch or rollback is one
metastore update of the view; the journal records the intended set first and settles it after,
so a crash between the two is resolved by comparing the view's digest with both sets.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lakeshift.config import Settings
from lakeshift.errors import UsageError
from lakeshift.follow.state import FollowState
from lakeshift.formats import FormatServices, LakeSide, TargetFormat, require_target
from lakeshift.inspect.inspector import inspect_table, split_table_name
from lakeshift.inspect.model import TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.migrate import faults
from lakeshift.migrate.journal import ROLLED_BACK, SWITCHED, Journal
from lakeshift.route.view_entry import current_digest, digest, put_view, view_table
from lakeshift.route.view_sql import routing_view_sql
from lakeshift.validate.model import EQUAL

log = logging.getLogger(__name__)


def default_view(source: str) -> str:
    return f"{source}_routed"


def default_legacy(source: str) -> str:
    return f"{source}_hive_legacy"


def hive_table_name(journal: Journal, source: str) -> str:
    """Where the Hive table lives now: under its legacy name once cut over."""
    db, table = split_table_name(source)
    route = journal.route(f"{db}.{table}") or {}
    if route.get("cutover") == "done":
        return str(route.get("legacy") or default_legacy(f"{db}.{table}"))
    return f"{db}.{table}"


@dataclass(frozen=True)
class RouteChange:
    """What a switch or rollback did.

    Attributes:
        switched: every partition served from the lake table afterwards.
        changed: partitions this call switched (or rolled back).
        refused: partition -> reason, for every partition asked for (all of them with
            ``--all-validated``) that is not served from the lake table afterwards.
    """

    source: str
    view: str
    switched: list[str]
    changed: list[str]
    refused: dict[str, str] = field(default_factory=dict)


def _columns(inventory: TableInventory) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    return (
        [(c.name, c.type) for c in inventory.columns],
        [(k.name, k.type) for k in inventory.partition_keys],
    )


def _write_view(
    client: CatalogClient,
    journal: Journal,
    inventory: TableInventory,
    target: str,
    lake: LakeSide,
    view: str,
    switched: list[str],
    check: TargetFormat | None = None,
) -> None:
    """Two-phase: journal intent, one metastore update, journal settles. ``check``: the
    target's format, asked right before the update whether another writer committed to the
    target (a switch must not start serving its rows; a rollback never refuses)."""
    source = inventory.qualified_name
    route = journal.route(source)
    current = route["switched"] if route else []
    journal.set_route(source, view, target, switched=current, pending=switched)
    columns, keys = _columns(inventory)
    values = {p.name: p.values for p in inventory.partitions}
    sql = routing_view_sql(
        columns, keys, source, lake, [values[n] for n in switched if n in values]
    )
    faults.crash_point("before-view-update", 0)
    if check is not None:
        check.check_no_foreign_commits(target)
    put_view(client, view_table(view, [*columns, *keys], sql, source, switched))
    journal.set_route(source, view, target, switched=switched, pending=None)


def recover(client: CatalogClient, journal: Journal, source: str) -> list[str]:
    """Settle a switch interrupted between the metastore update and the journal."""
    route = journal.route(source)
    if route is None:
        return []
    if route["pending"] is not None:
        seen = current_digest(client, route["view"])
        settled = route["pending"] if seen == digest(route["pending"]) else route["switched"]
        journal.set_route(
            source,
            route["view"],
            route["target"],
            switched=settled,
            pending=None,
            cutover=route["cutover"],
        )
        log.info("settled an interrupted switch of %s", source)
        return list(settled)
    return list(route["switched"])


def eligibility(
    inventory: TableInventory, fmt: TargetFormat, target: str, journal: Journal
) -> dict[str, str | None]:
    """Partition -> None when switchable now, else the reason it is not (with what to run)."""
    done = fmt.backfilled(target)
    validations = journal.validations(inventory.qualified_name)
    out: dict[str, str | None] = {}
    for p in inventory.partitions:
        check = validations.get(p.name)
        backfill = done.get(p.name)
        changed_since_check = check is not None and check["source_fingerprint"] != p.fingerprint
        if not p.migratable:
            out[p.name] = f"not migrated: {p.refusal}"
        elif backfill is None and p.rows:
            out[p.name] = "not backfilled yet; run `lakeshift migrate`, then `lakeshift validate`"
        elif backfill is not None and backfill.fingerprint != p.fingerprint and p.rows:
            since = "its backfill and validation" if changed_since_check else "its backfill"
            out[p.name] = (
                f"source changed since {since}; run `lakeshift migrate`, then `lakeshift validate`"
            )
        elif check is None:
            out[p.name] = "not validated yet; run `lakeshift validate`"
        elif changed_since_check:
            out[p.name] = "source changed since its validation; run `lakeshift validate`"
        elif check["status"] != EQUAL:
            detail = f": {check['detail']}" if check.get("detail") else ""
            out[p.name] = f"last validation found it {check['status']}{detail}"
        else:
            out[p.name] = None
    return out


def needs_validation(
    inventory: TableInventory,
    services: FormatServices,
    target: str,
    journal: Journal,
    wanted: PartitionFilter | None = None,
) -> list[str]:
    """Backfilled partitions (in ``wanted``) not validated at their current source and backfill.

    What a resumed run still has to validate; a partition validated as equal at its current
    fingerprint is not scanned again.
    """
    fmt = require_target(services, target, inventory.qualified_name)
    eligible = eligibility(inventory, fmt, target, journal)
    done = fmt.backfilled(target)
    todo = []
    for p in inventory.partitions:
        if eligible.get(p.name) is None or not p.migratable:
            continue
        if wanted is not None and not wanted.matches(p.name):
            continue
        backfill = done.get(p.name)
        if p.rows == 0 or (backfill is not None and backfill.fingerprint == p.fingerprint):
            todo.append(p.name)
    return todo


def _current(
    client: CatalogClient, settings: Settings, journal: Journal, source: str, view: str | None
) -> tuple[TableInventory, str, list[str]]:
    """The source as it is now, the view's name and the settled switched set."""
    inventory = inspect_table(client, source, settings)
    name = inventory.qualified_name
    view = view or (journal.route(name) or {}).get("view") or default_view(name)
    return inventory, view, recover(client, journal, name)


def switch(
    services: FormatServices,
    settings: Settings,
    journal: Journal,
    source: str,
    target: str,
    *,
    partitions: PartitionFilter | None,
    all_validated: bool,
    view: str | None = None,
) -> RouteChange:
    """Serve the chosen partitions from the lake table (those that are switchable now)."""
    client = services.client
    inventory, view, switched = _current(client, settings, journal, source, view)
    name = inventory.qualified_name
    fmt = require_target(services, target, name)
    eligible = eligibility(inventory, fmt, target, journal)
    wanted = partitions or PartitionFilter(())
    chosen = [n for n in eligible if all_validated or wanted.matches(n)]
    if not chosen and not all_validated:
        raise UsageError(
            f"the partition filter matches no partition of {name}",
            hint=f"`lakeshift status {name}` lists its partitions.",
        )
    # Every chosen partition that is not served from the lake table afterwards is listed with
    # its reason: with --all-validated that is every partition not switchable now.
    refused = {n: eligible[n] or "" for n in chosen if eligible[n] is not None}
    adding = [n for n in chosen if eligible[n] is None and n not in switched]
    # A switched partition whose source changed since goes back to Hive right away.
    stale = [n for n in switched if eligible.get(n) is not None]
    new_set = sorted((set(switched) | set(adding)) - set(stale))
    # Readers must never be sent to another writer's rows: checked before the lake side is
    # brought in line with the target (Delta's and Hudi's routing tables) and again right
    # before the view update.
    fmt.check_no_foreign_commits(target)
    lake = fmt.lake_side(target)
    _write_view(client, journal, inventory, target, lake, view, new_set, check=fmt)
    for n in adding:
        journal.set_status(name, n, SWITCHED)
    for n in stale:
        journal.set_status(name, n, ROLLED_BACK)
        refused[n] = f"rolled back: {eligible[n]}"
    return RouteChange(name, view, new_set, adding, refused)


def rollback(
    services: FormatServices,
    settings: Settings,
    journal: Journal,
    source: str,
    target: str,
    *,
    partitions: PartitionFilter,
    view: str | None = None,
) -> RouteChange:
    """Serve the chosen partitions from Hive again."""
    inventory, view, switched = _current(services.client, settings, journal, source, view)
    leaving = [n for n in switched if partitions.matches(n)]
    return withdraw(services, journal, inventory, target, leaving, view=view)


def withdraw(
    services: FormatServices,
    journal: Journal,
    inventory: TableInventory,
    target: str,
    names: Sequence[str],
    *,
    view: str | None = None,
) -> RouteChange:
    """Serve ``names`` from Hive again in one view update, ``inventory`` being the source as
    it is now (a name it no longer holds leaves the view too). No update when none of
    ``names`` is switched."""
    client = services.client
    source = inventory.qualified_name
    view = view or (journal.route(source) or {}).get("view") or default_view(source)
    switched = recover(client, journal, source)
    leaving = [n for n in switched if n in set(names)]
    if not leaving:
        return RouteChange(source, view, switched, [])
    fmt = require_target(services, target, source)
    new_set = sorted(set(switched) - set(leaving))
    _write_view(client, journal, inventory, target, fmt.lake_side(target), view, new_set)
    for n in leaving:
        journal.set_status(source, n, ROLLED_BACK)
    return RouteChange(source, view, new_set, leaving)


def status(
    client: CatalogClient, settings: Settings, journal: Journal, source: str
) -> dict[str, Any]:
    """Where each partition is served from, its journal status and last validation."""
    db, table = split_table_name(source)
    name = f"{db}.{table}"
    inventory = inspect_table(client, hive_table_name(journal, name), settings)
    switched = set(recover(client, journal, name))
    route = journal.route(name) or {}
    records = journal.partitions(name)
    validations = journal.validations(name)
    rows: list[dict[str, Any]] = []
    for p in inventory.partitions:
        record, check = records.get(p.name), validations.get(p.name)
        rows.append(
            {
                "partition": p.name,
                "served_from": "lake" if p.name in switched else "hive",
                "status": record.status if record else "planned",
                "validation": check["status"] if check else None,
                "validated_at": check["at"] if check else None,
                "source_changed": bool(check and check["source_fingerprint"] != p.fingerprint),
            }
        )
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    followed = FollowState(journal.path)
    try:
        follow = followed.summary(name)
    finally:
        followed.close()
    return {
        "source": name,
        "view": route.get("view"),
        "target": route.get("target"),
        "cutover": route.get("cutover"),
        "switched": len(switched),
        "partitions": len(rows),
        "by_status": counts,
        "follow": follow,
        "rows": rows,
    }
