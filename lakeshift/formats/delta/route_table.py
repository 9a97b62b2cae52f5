"""The Delta table's routing side: a plain Parquet Hive table over its current files.

Engines without a Delta connector (this machine's Spark, Hive, Trino without the Delta
connector) cannot read the Delta log. Each batch writes a partition's files into a directory of
their own, so a Hive partition pointed at that directory reads exactly the partition's current
files; replaced files stay on disk until vacuum but are never in the current directory. The
table declares the files' physical column names; the routing view renames them.

The table is derived from the Delta log every time (:func:`sync_route_table`), so a crash
between a Delta commit and the table's update is mended by the next sync.
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Sequence
from typing import Any

from lakeshift.metastore import ddl
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.metastore.partition_names import DEFAULT_PARTITION_NAME

log = logging.getLogger(__name__)
#: Table parameter marking lakeshift's routing tables (they hold no data of their own).
ROUTE_OF = "lakeshift.route-of"


def route_table_name(target: str) -> str:
    return f"{target}_current"


def _partition_text(value: str | None) -> str:
    return DEFAULT_PARTITION_NAME if value is None else value


def sync_route_table(
    client: CatalogClient,
    name: str,
    target: str,
    location: str,
    columns: Sequence[tuple[str, str]],
    partition_keys: Sequence[tuple[str, str]],
    current_dirs: dict[tuple[str | None, ...], str],
) -> None:
    """Make ``name`` list exactly ``current_dirs`` (partition values -> directory under
    ``location``) with ``columns``; creates the table on first use."""
    db, _, table = name.partition(".")
    wanted_cols = list(columns)
    if not client.table_exists(db, table):
        entry = ddl.external_table(
            db,
            table,
            wanted_cols,
            partition_keys,
            location,
            fmt="parquet",
            parameters={ROUTE_OF: target, "comment": f"lakeshift routing side of {target}"},
        )
        client.create_table(entry)
    entry = client.get_table(db, table)
    if [(c.name, c.type) for c in entry.sd.cols] != wanted_cols:
        entry.sd = ddl.storage_descriptor(wanted_cols, location, "parquet")
        client.alter_table(db, table, entry)
    if not partition_keys:
        _point_table_at(client, entry, db, table, location, wanted_cols, current_dirs)
        return
    existing = _existing(client, db, table)
    wanted = {
        tuple(_partition_text(v) for v in values): posixpath.join(location, d)
        for values, d in current_dirs.items()
    }
    new = [
        ddl.partition(db, table, list(values), wanted_cols, where, "parquet")
        for values, where in wanted.items()
        if values not in existing
    ]
    client.add_partitions(new)
    changed = []
    for values, where in wanted.items():
        part = existing.get(values)
        if part is not None and (
            part.sd.location != where or [(c.name, c.type) for c in part.sd.cols] != wanted_cols
        ):
            part.sd = ddl.storage_descriptor(wanted_cols, where, "parquet")
            changed.append(part)
    client.alter_partitions(db, table, changed)
    for values in set(existing) - set(wanted):
        client.drop_partition(db, table, list(values))
    log.info(
        "routing table %s: %d added, %d moved, %d dropped",
        name,
        len(new),
        len(changed),
        len(set(existing) - set(wanted)),
    )


def _existing(client: CatalogClient, db: str, table: str) -> dict[tuple[str, ...], Any]:
    names = client.partition_names(db, table)
    return {tuple(p.values): p for p in client.partitions_by_names(db, table, names)}


def _point_table_at(
    client: CatalogClient,
    entry: Any,
    db: str,
    table: str,
    location: str,
    columns: list[tuple[str, str]],
    current_dirs: dict[tuple[str | None, ...], str],
) -> None:
    """Unpartitioned: the table itself points at the one current directory."""
    where = posixpath.join(location, current_dirs[()]) if () in current_dirs else location
    if entry.sd.location != where:
        entry.sd = ddl.storage_descriptor(columns, where, "parquet")
        client.alter_table(db, table, entry)
