"""Row counts per Hive partition from a target's metadata, matched to Hive partition names.

Formats report their partitions as typed values (Iceberg) or as text (Delta); Hive names
partitions by their text as written (``n=007``, ``d=-003.125``), so the source's text is typed
as the backfill typed it, the target's value is brought to the same form, and the two compared.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from lakeshift.hive.partition_values import comparable, typed_value
from lakeshift.hive.semantics import HiveSemantics
from lakeshift.inspect.model import TableInventory
from lakeshift.metastore.partition_names import partition_name


def _hive_text(value: Any) -> str | None:
    """A partition value as Hive spells it in partition names."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def counts_by_partition(
    inventory: TableInventory, rows: Iterable[tuple[tuple[Any, ...], int]], hive: HiveSemantics
) -> dict[str, int]:
    """Sum ``(partition values, record count)`` pairs per source partition name (values as
    ``hive`` shows them)."""
    keys = [k.name for k in inventory.partition_keys]
    types = [k.type for k in inventory.partition_keys]
    by_typed = {
        tuple(
            typed_value(v, t, hive.version, hive.jvm_zone) for v, t in zip(p.values, types)
        ): p.name
        for p in inventory.partitions
    }
    counts: dict[str, int] = {}
    for values, records in rows:
        typed = tuple(comparable(v, t) for v, t in zip(values, types))
        name = by_typed.get(typed) or partition_name(keys, [_hive_text(v) for v in values])
        counts[name] = counts.get(name, 0) + int(records)
    return counts
