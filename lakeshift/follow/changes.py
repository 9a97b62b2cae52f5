"""What changed in a Hive table between two passes, and which partitions have settled.

Pure logic over two observations of the table: the last pass's (``Seen`` per partition) and
the inventory just taken. A partition changed when its files (the listing fingerprint: names,
sizes, modification times) or its storage descriptor (location, format, SerDe, columns)
differ. A partition is *settled*, and may be copied and switched, once nothing in it has moved
for the quiet period: neither its listing (the newest modification time of any object in it,
leftovers and staging directories included) nor what a pass saw change.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from lakeshift.follow.state import Seen
from lakeshift.inspect.model import PartitionInfo, TableInventory


def layout_digest(partition: PartitionInfo) -> str:
    """The part of a partition's storage descriptor that decides how Hive reads its files."""
    return _digest(
        [
            partition.location,
            partition.input_format,
            partition.serde,
            sorted(partition.serde_parameters.items()),
            [(c.name, c.type) for c in partition.columns],
        ]
    )


def schema_digest(inventory: TableInventory) -> str:
    """The table's columns and partition keys (``ADD COLUMNS``, ``CHANGE``, ``REPLACE``)."""
    return _digest(
        [
            [(c.name, c.type) for c in inventory.columns],
            [(k.name, k.type) for k in inventory.partition_keys],
            inventory.serde,
            inventory.input_format,
        ]
    )


def _digest(value: object) -> str:
    raw = json.dumps(value, separators=(",", ":"), default=str).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


@dataclass(frozen=True)
class Changes:
    """One comparison's result.

    Attributes:
        first_pass: nothing was seen before (every partition is in ``added``).
        added: partitions the last pass did not see.
        changed: partitions whose files or storage descriptor changed since the last pass.
        dropped: partitions the last pass saw that Hive no longer has.
        schema_changed: the table's columns changed since the lake table was last proven.
        unsettled: partitions that moved within the quiet period (not copied or switched).
        seen: what this pass saw, to be recorded when it finishes.
    """

    first_pass: bool
    added: tuple[str, ...]
    changed: tuple[str, ...]
    dropped: tuple[str, ...]
    schema_changed: bool
    unsettled: tuple[str, ...]
    seen: dict[str, Seen] = field(repr=False)
    dropped_values: dict[str, tuple[str | None, ...]] = field(default_factory=dict, repr=False)

    def settled(self, names: list[str]) -> list[str]:
        quiet = set(self.unsettled)
        return [n for n in names if n not in quiet]

    @property
    def any(self) -> bool:
        return bool(self.added or self.changed or self.dropped or self.schema_changed)

    def to_json(self) -> dict[str, object]:
        return {
            "first_pass": self.first_pass,
            "added": list(self.added),
            "changed": list(self.changed),
            "dropped": list(self.dropped),
            "schema_changed": self.schema_changed,
            "unsettled": list(self.unsettled),
        }


def compare(
    previous: dict[str, Seen],
    proven_schema: str | None,
    inventory: TableInventory,
    *,
    now: float,
    quiet_seconds: float,
) -> Changes:
    """Compare ``inventory`` (taken at ``now``) with the last pass's observation."""
    first = not previous
    added, changed, unsettled = [], [], []
    seen: dict[str, Seen] = {}
    for p in inventory.partitions:
        before = previous.get(p.name)
        layout = layout_digest(p)
        if before is None:
            # Added since the last pass: that is activity now. On a first pass nothing is
            # known but the listing's own times.
            changed_at = 0.0 if first else now
            added.append(p.name)
        elif (before.fingerprint, before.layout) != (p.fingerprint, layout):
            changed_at = now
            changed.append(p.name)
        else:
            changed_at = before.changed_at
        seen[p.name] = Seen(p.fingerprint, layout, p.values, changed_at)
        last_activity = max(changed_at, p.newest_mtime_ns / 1e9)
        if now - last_activity < quiet_seconds:
            unsettled.append(p.name)
    current = {p.name for p in inventory.partitions}
    dropped = sorted(set(previous) - current)
    schema = schema_digest(inventory)
    return Changes(
        first_pass=first,
        added=tuple(added),
        changed=tuple(changed),
        dropped=tuple(dropped),
        schema_changed=proven_schema is not None and proven_schema != schema,
        unsettled=tuple(unsettled),
        seen=seen,
        dropped_values={n: previous[n].values for n in dropped},
    )
