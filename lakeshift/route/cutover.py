"""Cutover: the public name goes to the lake table, the Hive table keeps a legacy name.

Every step first looks at where things stand (which object holds which name), so a cutover or
revert interrupted at any point is finished by running it again. No data file is touched: the
source is an external table (renaming it moves nothing) and the lake formats rename only their
metastore entry.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, TypeGuard

from lakeshift.config import Settings
from lakeshift.errors import NotFound, RefusedInput
from lakeshift.formats import FormatServices, TargetFormat, format_of, load_format
from lakeshift.inspect.inspector import inspect_table, split_table_name
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.migrate.journal import Journal
from lakeshift.route.router import default_legacy, default_view, eligibility, recover
from lakeshift.route.view_entry import put_view, view_table
from lakeshift.route.view_sql import lake_select, routing_view_sql, table_ref

log = logging.getLogger(__name__)
DONE, REVERTED = "done", "reverted"


@dataclass(frozen=True)
class Names:
    source: str
    target: str
    legacy: str
    view: str


def _kind(client: CatalogClient, qualified: str) -> str | None:
    """A lake format's name, ``hive`` or None (absent)."""
    return format_of(client, qualified)


def _lake_format(services: FormatServices, names: Names) -> TargetFormat:
    """The lake table's format, wherever the table stands now (target or public name)."""
    for name in (names.target, names.source):
        kind = _kind(services.client, name)
        if kind not in (None, "hive"):
            return load_format(kind, services)
    raise NotFound(
        f"no lake table at {names.target} or {names.source}.",
        hint=f"Run `lakeshift migrate {names.source} --target {names.target}` first.",
    )


def _rename_hive(client: CatalogClient, old: str, new: str) -> None:
    db, name = split_table_name(old)
    table = client.get_table(db, name)
    table.dbName, table.tableName = split_table_name(new)
    client.alter_table(db, name, table)


def cutover(
    services: FormatServices, settings: Settings, journal: Journal, names: Names
) -> list[str]:
    """Run (or finish) the cutover; returns the steps taken."""
    client = services.client
    fmt = _lake_format(services, names)
    steps: list[str] = []
    if _kind(client, names.source) == "hive" and _kind(client, names.legacy) is None:
        inventory = inspect_table(client, names.source, settings)
        if inventory.table_type != "EXTERNAL_TABLE":
            raise RefusedInput(
                f"{names.source} is a managed table: renaming it would move its files.",
                hint="Make it external (ALTER TABLE ... SET TBLPROPERTIES('EXTERNAL'='TRUE')) "
                "first, or cut over by hand.",
            )
        switched = set(recover(client, journal, inventory.qualified_name))
        eligible = eligibility(inventory, fmt, names.target, journal)
        blocking = {
            n: why or "not switched"
            for n, why in eligible.items()
            if why is not None or n not in switched
        }
        if blocking:
            first = next(iter(blocking.items()))
            raise RefusedInput(
                f"cutover of {names.source} needs every partition switched and valid; "
                f"{len(blocking)} are not (e.g. {first[0]}: {first[1]}).",
                hint="Run migrate, validate and switch --all-validated, then cut over.",
            )
        _rename_hive(client, names.source, names.legacy)
        steps.append(f"renamed Hive table {names.source} -> {names.legacy}")
    if _kind(client, names.source) is None and _kind(client, names.target) == fmt.name:
        fmt.rename(names.target, names.source)
        steps.append(f"renamed {fmt.label} {names.target} -> {names.source}")
    if _kind(client, names.source) != fmt.name or _kind(client, names.legacy) != "hive":
        raise RefusedInput(
            f"cannot finish the cutover of {names.source}: expected the {fmt.label} at "
            f"{names.source} and the Hive table at {names.legacy}.",
            hint="Run `lakeshift revert` to go back, or fix the names by hand.",
        )
    reads = _point_view_at_public(client, settings, fmt, names)
    steps.append(f"view {names.view} now reads {reads}")
    route = journal.route(names.source) or {"switched": []}
    journal.set_route(
        names.source,
        names.view,
        names.target,
        switched=route["switched"],
        pending=None,
        cutover=DONE,
        legacy=names.legacy,
    )
    return steps


def _point_view_at_public(
    client: CatalogClient, settings: Settings, fmt: TargetFormat, names: Names
) -> str:
    """Point the view at the lake table under its public name; returns what it reads (the
    table itself, or the routing side engines without the format's connector can read)."""
    inventory = inspect_table(client, names.legacy, settings)
    columns = [(c.name, c.type) for c in (*inventory.columns, *inventory.partition_keys)]
    lake = fmt.lake_side(names.source)
    sql = f"SELECT {lake_select(columns, lake)} FROM {table_ref(lake.table)}"
    put_view(client, view_table(names.view, columns, sql, names.source, ["<all>"]))
    return lake.table


def revert(
    services: FormatServices, settings: Settings, journal: Journal, names: Names
) -> list[str]:
    """Undo (or finish undoing) a cutover; returns the steps taken."""
    client = services.client
    fmt = _lake_format(services, names)
    steps: list[str] = []
    if _kind(client, names.source) == fmt.name and _kind(client, names.target) is None:
        fmt.rename(names.source, names.target)
        steps.append(f"renamed {fmt.label} {names.source} -> {names.target}")
    if _kind(client, names.source) is None and _kind(client, names.legacy) == "hive":
        _rename_hive(client, names.legacy, names.source)
        steps.append(f"renamed Hive table {names.legacy} -> {names.source}")
    if _kind(client, names.source) != "hive":
        raise RefusedInput(
            f"cannot revert {names.source}: the Hive table is not where expected.",
            hint=f"Check {names.source}, {names.legacy} and {names.target}.",
        )
    inventory = inspect_table(client, names.source, settings)
    route = journal.route(inventory.qualified_name) or {"switched": []}
    switched = list(route["switched"])
    columns = [(c.name, c.type) for c in inventory.columns]
    keys = [(k.name, k.type) for k in inventory.partition_keys]
    values = {p.name: p.values for p in inventory.partitions}
    sql = routing_view_sql(
        columns,
        keys,
        names.source,
        fmt.lake_side(names.target),
        [values[n] for n in switched if n in values],
    )
    put_view(client, view_table(names.view, [*columns, *keys], sql, names.source, switched))
    steps.append(f"view {names.view} routes {len(switched)} partitions to {names.target} again")
    journal.set_route(
        names.source, names.view, names.target, switched=switched, pending=None, cutover=REVERTED
    )
    return steps


def is_cut_over(route: dict[str, Any] | None) -> TypeGuard[dict[str, Any]]:
    """Whether a table's route (``journal.route(source)``) says its cutover finished."""
    return route is not None and route.get("cutover") == DONE


def names_for(
    journal: Journal,
    source: str,
    target: str | None,
    legacy: str | None,
    view: str | None,
    default_format: str = "iceberg",
) -> Names:
    route = journal.route(source) or {}
    db, name = split_table_name(source)
    return Names(
        source=f"{db}.{name}",
        target=(target or route.get("target") or f"{db}.{name}_{default_format}").lower(),
        legacy=(legacy or default_legacy(f"{db}.{name}")).lower(),
        view=(view or route.get("view") or default_view(f"{db}.{name}")).lower(),
    )
