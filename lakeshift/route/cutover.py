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
from lakeshift.metastore.glue import COPIED_VERSION, RENAMED_FROM, GlueCatalog
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


def _check_ready(
    client: CatalogClient,
    settings: Settings,
    journal: Journal,
    fmt: TargetFormat,
    names: Names,
) -> None:
    """Refuse a cutover unless the source is external and every partition is switched and
    valid right now."""
    inventory = inspect_table(client, names.source, settings)
    if inventory.table_type != "EXTERNAL_TABLE":
        raise RefusedInput(
            f"{names.source} is a managed table: renaming it would move its files.",
            hint="Make it external (ALTER TABLE ... SET TBLPROPERTIES('EXTERNAL'='TRUE')) "
            "first, or cut over by hand.",
        )
    # The public name never goes to a table holding another writer's commits.
    fmt.check_no_foreign_commits(names.target)
    switched = set(recover(client, journal, inventory.qualified_name))
    eligible = eligibility(inventory, fmt, names.target, journal)
    blocking = {
        n: why or "not switched"
        for n, why in eligible.items()
        if why is not None or n not in switched
    }
    if blocking:
        shown = "; ".join(f"{n}: {why}" for n, why in sorted(blocking.items())[:10])
        more = f"; and {len(blocking) - 10} more" if len(blocking) > 10 else ""
        raise RefusedInput(
            f"cutover of {names.source} needs every partition switched and valid; "
            f"{len(blocking)} are not ({shown}{more}).",
            hint="Run migrate, validate and switch --all-validated (or `lakeshift follow`), "
            "then cut over. Partitions that keep changing mean writers still write to the "
            "Hive table: move them first.",
        )


def _copied_from(client: CatalogClient, copy: str, original: str) -> bool:
    """Whether ``copy`` is an entry lakeshift copied from ``original`` (Glue)."""
    db, _, name = copy.partition(".")
    if not client.table_exists(db, name):
        return False
    return (client.get_table(db, name).parameters or {}).get(RENAMED_FROM) == original


def _cutover_in_place(
    client: GlueCatalog,
    settings: Settings,
    journal: Journal,
    fmt: TargetFormat,
    names: Names,
) -> list[str]:
    """Glue: the public name changes from the Hive table to the lake table in one update.

    Glue cannot rename, but its UpdateTable replaces a whole definition. So: copy the Hive
    entry (and partitions) to the legacy name, which no reader uses yet; replace the public
    entry's definition with the lake table's (the one step readers see), checked against the
    version that was copied, so a change to the Hive entry since is never lost; give it the
    lake entry's partitions (Hudi has some; Iceberg and Delta readers ignore catalog
    partitions); drop the lake entry's old name.
    """
    steps: list[str] = []
    if _kind(client, names.source) == "hive":
        _require_copy_or_free(client, names.legacy, names.source)
        _check_ready(client, settings, journal, fmt, names)
        version = client.copy_table(names.source, names.legacy)
        steps.append(f"copied Hive table {names.source} -> {names.legacy}")
        if _kind(client, names.target) == fmt.name:
            # Keys kept until the partitions move: Glue refuses partitions that do not
            # match their table's keys.
            client.replace_table(
                names.source, names.target, expected_version=version, keep_keys=True
            )
            steps.append(f"{names.source} is the {fmt.label} now (one catalog update)")
    if _kind(client, names.source) == fmt.name and _kind(client, names.target) == fmt.name:
        if _definition(client, names.source) != _definition(client, names.target):
            # The lake entry changed between an interrupted run and this one (a commit):
            # the public name takes its current definition, nothing committed is lost.
            client.replace_table(names.source, names.target, keep_keys=True)
        client.repartition(names.source, names.target)
        target_db, _, target_name = names.target.partition(".")
        client.drop_table(target_db, target_name)
        steps.append(f"dropped the {fmt.label}'s old entry {names.target}")
    return steps


def _definition(client: CatalogClient, name: str) -> dict[str, str]:
    """An entry's parameters without lakeshift's copy marks (what a commit changes)."""
    db, _, table = name.partition(".")
    parameters = client.get_table(db, table).parameters or {}
    return {k: v for k, v in parameters.items() if k not in (RENAMED_FROM, COPIED_VERSION)}


def _require_copy_or_free(client: CatalogClient, copy: str, original: str) -> None:
    """Refuse when ``copy`` is held by a table that is not lakeshift's copy of ``original``."""
    db, _, name = copy.partition(".")
    if client.table_exists(db, name) and not _copied_from(client, copy, original):
        raise RefusedInput(
            f"{copy} exists and is not lakeshift's copy of {original}; lakeshift will not "
            "overwrite or drop it.",
            hint=f"Rename or drop {copy}, or choose another name (--legacy-name, --target).",
        )


def _revert_in_place(client: GlueCatalog, fmt: TargetFormat, names: Names) -> list[str]:
    """Glue: the public name changes back to the Hive table in one update (the lake entry is
    first copied back to its own name, and the public entry's partitions and keys become
    the Hive table's, which Iceberg and Delta readers of it ignore)."""
    steps: list[str] = []
    if _kind(client, names.source) == fmt.name and _kind(client, names.legacy) == "hive":
        _require_copy_or_free(client, names.legacy, names.source)
        _require_copy_or_free(client, names.target, names.source)
        # Only the lake table's own partitions (Hudi's), under its location: a re-run after
        # the Hive ones were put back under the public name must not copy those.
        location = fmt.location(names.source)
        if location is None:
            raise RefusedInput(f"{fmt.label} {names.source} has no location in the catalog.")
        client.copy_table(names.source, names.target, under=location)
        steps.append(f"copied {fmt.label} {names.source} -> {names.target}")
        client.repartition(names.source, names.legacy)
        client.replace_table(names.source, names.legacy)
        steps.append(f"{names.source} is the Hive table again (one catalog update)")
    if (
        _kind(client, names.source) == "hive"
        and _kind(client, names.legacy) == "hive"
        and _copied_from(client, names.legacy, names.source)
    ):
        legacy_db, _, legacy = names.legacy.partition(".")
        client.drop_table(legacy_db, legacy)
        steps.append(f"dropped the Hive table's copy {names.legacy}")
    return steps


def cutover(
    services: FormatServices, settings: Settings, journal: Journal, names: Names
) -> list[str]:
    """Run (or finish) the cutover; returns the steps taken."""
    client = services.client
    fmt = _lake_format(services, names)
    steps: list[str] = []
    if isinstance(client, GlueCatalog):
        steps += _cutover_in_place(client, settings, journal, fmt, names)
    if _kind(client, names.source) == "hive" and _kind(client, names.legacy) is None:
        _check_ready(client, settings, journal, fmt, names)
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
    if isinstance(client, GlueCatalog):
        steps += _revert_in_place(client, fmt, names)
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
