"""Row counts per partition from Iceberg metadata (manifests), without scanning data."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from lakeshift.inspect.model import TableInventory
from lakeshift.metastore.partition_names import partition_name

if TYPE_CHECKING:
    from pyiceberg.table import Table


def _hive_text(value: Any) -> str | None:
    """A partition value as Hive spells it in partition names."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _normalised(value: str | None, hive_type: str) -> str | None:
    """Hive partition value text normalised as the typed target value prints."""
    if value is None:
        return None
    if hive_type in ("tinyint", "smallint", "int", "bigint"):
        try:
            return str(int(value))
        except ValueError:
            return None
    return value


def target_counts(table: Table, inventory: TableInventory) -> dict[str, int]:
    """Records per source partition name, from the target's data-file metadata."""
    keys = [k.name for k in inventory.partition_keys]
    types = [k.type for k in inventory.partition_keys]
    by_typed = {
        tuple(_normalised(v, t) for v, t in zip(p.values, types)): p.name
        for p in inventory.partitions
    }
    counts: dict[str, int] = {}
    for row in table.inspect.partitions().to_pylist():
        values = tuple(_hive_text(row["partition"].get(k)) for k in keys)
        name = by_typed.get(values) or partition_name(keys, list(values))
        counts[name] = counts.get(name, 0) + int(row["record_count"])
    return counts
