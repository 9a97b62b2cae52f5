"""Assign and carry forward stable field IDs (pure logic).

Fresh IDs follow Iceberg's own order (a struct's direct fields first, then each field's nested
fields), so a table created from the mapping gets exactly these IDs, and a column added later gets
``last_id + 1`` onwards, as Iceberg's schema update assigns them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from lakeshift.errors import SchemaMappingError
from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.schema_map.iceberg_types import change_allowed, iceberg_kind
from lakeshift.schema_map.model import TargetField

Columns = Sequence[tuple[str, str]]


class TypeChangeRefused(SchemaMappingError):
    """A column's type changed in a way the target cannot represent."""

    def __init__(self, column: str, lineage: tuple[str, ...], old: HiveType, new: HiveType) -> None:
        super().__init__(
            f"column {column!r} changed type from {old} to {new}; Iceberg can only widen int to "
            "long, float to double and decimal precision.",
            hint="Restore the Hive type, or migrate the data into a new column.",
        )
        self.column = column
        self.lineage = lineage
        self.old = old
        self.new = new


class IdAllocator:
    def __init__(self, last_id: int) -> None:
        self.last_id = last_id

    def next(self) -> int:
        self.last_id += 1
        return self.last_id


def _child_specs(hive: HiveType) -> list[tuple[str, HiveType]]:
    return list(hive.fields) if not hive.is_primitive else []


def fresh_fields(columns: Sequence[tuple[str, HiveType]], ids: IdAllocator) -> list[TargetField]:
    """New fields with IDs in Iceberg's order: this level first, then each child's subtree."""
    for name, hive in columns:
        if iceberg_kind(hive) is None:
            raise SchemaMappingError(
                f"column {name!r} has Hive type {hive}, which Iceberg cannot hold.",
                hint="Cast it in Hive into a supported type (a struct instead of a uniontype).",
            )
    own = [ids.next() for _ in columns]
    out = []
    for field_id, (name, hive) in zip(own, columns):
        children = fresh_fields(_child_specs(hive), ids)
        out.append(TargetField(field_id, name, str(hive), tuple(children), (name,)))
    return out


@dataclass(frozen=True)
class Match:
    """How a new Hive column relates to a field of the previous mapping."""

    old: TargetField | None
    new_name: str
    new_type: HiveType
    renamed: bool = False


def _key(name: str, case_sensitive: bool) -> str:
    return name if case_sensitive else name.lower()


def match_fields(
    previous: Sequence[TargetField], current: Sequence[tuple[str, HiveType]], case_sensitive: bool
) -> tuple[list[Match], list[TargetField]]:
    """Pair current columns with previous fields: by name, then a same-position rename.

    A rename is recognised when the column at a position has a new name and the previous field
    at that position is otherwise unmatched (Hive's ``CHANGE COLUMN old new``). Returns the
    matches (in current order) and the previous fields that were dropped.
    """
    by_name = {_key(f.name, case_sensitive): f for f in previous}
    used: set[int] = set()
    matches: list[Match | None] = []
    for name, hive in current:
        old = by_name.get(_key(name, case_sensitive))
        if old is not None and old.id not in used:
            used.add(old.id)
            matches.append(Match(old, name, hive))
        else:
            matches.append(None)
    for position, (name, hive) in enumerate(current):
        if matches[position] is not None:
            continue
        old = previous[position] if position < len(previous) else None
        if old is not None and old.id not in used:
            used.add(old.id)
            matches[position] = Match(old, name, hive, renamed=True)
        else:
            matches[position] = Match(None, name, hive)
    dropped = [f for f in previous if f.id not in used]
    return [m for m in matches if m is not None], dropped


def evolve_fields(
    previous: Sequence[TargetField],
    current: Sequence[tuple[str, HiveType]],
    ids: IdAllocator,
    *,
    case_sensitive: bool,
    where: str,
) -> tuple[list[TargetField], list[TargetField]]:
    """Carry IDs from ``previous`` onto ``current``; returns (fields, retired)."""
    matches, dropped = match_fields(previous, current, case_sensitive)
    retired = list(dropped)
    kept: list[TargetField | None] = []
    for m in matches:
        if m.old is None:
            kept.append(None)
            continue
        old_type = parse_hive_type(m.old.type)
        if not change_allowed(old_type, m.new_type):
            raise TypeChangeRefused(f"{where}{m.new_name}", m.old.lineage, old_type, m.new_type)
        children, nested_retired = evolve_fields(
            m.old.children,
            _child_specs(m.new_type),
            ids,
            case_sensitive=case_sensitive,
            where=f"{where}{m.new_name}.",
        )
        retired.extend(nested_retired)
        lineage = (
            m.old.lineage if m.old.lineage[-1:] == (m.new_name,) else (*m.old.lineage, m.new_name)
        )
        kept.append(
            replace(
                m.old,
                name=m.new_name,
                type=str(m.new_type),
                children=tuple(children),
                lineage=lineage,
            )
        )
    # New columns get IDs after every carried one, one column's subtree at a time: the order
    # in which Iceberg's schema update assigns them when columns are added in this order.
    out = [
        k if k is not None else fresh_fields([(m.new_name, m.new_type)], ids)[0]
        for m, k in zip(matches, kept)
    ]
    return out, retired


def with_lineage(
    fields: Sequence[TargetField], names_by_position: Sequence[Sequence[str]]
) -> list[TargetField]:
    """Add names seen at each top-level position (partition descriptors) to the lineage."""
    out = []
    for position, f in enumerate(fields):
        seen = list(f.lineage)
        for name in names_by_position[position] if position < len(names_by_position) else ():
            if name not in seen:
                seen.insert(max(0, len(seen) - 1), name)
        out.append(replace(f, lineage=tuple(seen)))
    return out
