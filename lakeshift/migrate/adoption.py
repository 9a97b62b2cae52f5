"""Which partitions Iceberg can hold as the source's own ORC files (``adopt_files``), and why
every other one is copied (pure).

Iceberg's ORC reader finds a file's columns through the table's name mapping
(``schema.name-mapping.default``: exact, case-sensitive names, several per field), converts
only ``int`` to ``bigint`` (and ``tinyint``/``smallint`` to its ``int``), never pads ``char``
and reads day numbers and timestamps as stored. A partition is adopted only when, for every
file, each table column is the file column Hive reads it from (``hive.projection``) and of the
very type Hive shows, and none of Hive's reading rules that change a value applies. Passing
this is the precondition; the proof is validation at the checksum and independent levels of
the registered files, after which a partition that differs is copied.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lakeshift.hive.projection import FileGroup, file_groups
from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.inspect.model import PartitionInfo, TableInventory
from lakeshift.schema_map.model import FieldMapping
from lakeshift.storage import place, relative_to

ADOPT_NEVER, ADOPT_AUTO, ADOPT_REQUIRE = "never", "auto", "require"
ADOPT_FILES = (ADOPT_NEVER, ADOPT_AUTO, ADOPT_REQUIRE)

#: Anomalies naming a Hive reading rule Iceberg's reader does not apply (values would differ).
READING_RULES = {
    "hive-version-sensitive": "other Hive versions show its rows differently",
    "stale-array-tails": "Hive shows arrays with an earlier row's elements here",
    "timestamp-nanoseconds": "timestamps finer than the microseconds Iceberg keeps",
    "writer-zone-missing": "ORC files naming no writer time zone",
    "calendar-shifted-dates": "dates Hive shows in another calendar",
    "calendar-before-1582": "dates before 1582-10-15, read by calendar rules",
    "timestamp-from-number": "numbers Hive reads as timestamps",
}
_INTEGERS = ("tinyint", "smallint", "int")


@dataclass(frozen=True)
class AdoptionDecision:
    """Whether one partition is adopted (its ``files`` registered as they are) or copied.

    Attributes:
        partition: the partition's name.
        adopt: True when Iceberg's reader can be asked to read the files in place.
        reason: why it is copied (empty when adopted).
        files: the data files to register, relative to the partition location (files holding
            no rows are left out: Hive shows nothing of them, and Iceberg's ORC metrics cannot
            read a schema-less empty file).
    """

    partition: str
    adopt: bool
    reason: str = ""
    files: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"partition": self.partition, "adopt": self.adopt, "reason": self.reason}


def decide(
    inventory: TableInventory,
    mapping: FieldMapping,
    partitions: Sequence[str],
    lake_location: str | None,
) -> list[AdoptionDecision]:
    """One decision per partition named in ``partitions`` (in that order)."""
    by_name = {p.name: p for p in inventory.partitions}
    groups: dict[str, list[FileGroup]] = {}
    for group in file_groups(inventory, mapping, list(partitions)):
        groups.setdefault(group.partition, []).append(group)
    ids = _mapped_ids(mapping)
    out = []
    for name in partitions:
        partition = by_name[name]
        reason = (
            _partition_reason(partition, lake_location)
            or next((r for g in groups.get(name, []) if (r := _group_reason(g, mapping, ids))), "")
            or _rule_reason(partition)
        )
        files = tuple(f.path for f in partition.files if f.rows)
        if not reason and not files:
            reason = "no rows to adopt"
        out.append(AdoptionDecision(name, not reason, reason, () if reason else files))
    return out


def _partition_reason(p: PartitionInfo, lake_location: str | None) -> str:
    if not p.migratable:
        return p.refusal or "refused"
    other = sorted({f.format for f in p.files} - {"orc"})
    if other:
        kinds = ", ".join(other)
        return f"{kinds} files: only ORC files are adopted (Iceberg holds no text files)"
    for f in p.files:
        if f.error:
            return f"file {f.path} cannot be read: {f.error}"
        if f.size == 0:
            return f"zero-byte file {f.path}"
        if f.rows and not f.columns:
            return f"file {f.path} names no columns"
    if p.archived:
        return f"{len(p.archived)} archived object(s) not restored"
    if lake_location and _nested(p.location, lake_location):
        return (
            f"its location {p.location} and the lake table's {lake_location} lie inside one "
            "another (the lake table's maintenance would list the source's files)"
        )
    return ""


def _rule_reason(p: PartitionInfo) -> str:
    for a in p.anomalies:
        if a.code in READING_RULES:
            return f"{a.code}: {READING_RULES[a.code]}"
    return ""


def _nested(a: str, b: str) -> bool:
    """Whether two locations are one, or either lies inside the other (however spelt)."""
    return place(a) == place(b) or relative_to(a, b) is not None or relative_to(b, a) is not None


def _mapped_ids(mapping: FieldMapping) -> dict[str, int]:
    """Top-level names Iceberg's reader resolves through the name mapping lakeshift writes."""
    from lakeshift.formats.iceberg_schema import name_mapping

    return {name: entry["field-id"] for entry in name_mapping(mapping) for name in entry["names"]}


def _group_reason(group: FileGroup, mapping: FieldMapping, ids: dict[str, int]) -> str:
    if group.hybrid_labels or group.proleptic_text or group.julian_text:
        return "dates read by calendar rules Iceberg's reader does not apply"
    if group.time_zone:
        return f"timestamps Hive reads in {group.time_zone} (files naming no writer zone)"
    example = group.files[0] if group.files else "?"
    found: dict[int, list[int]] = {}
    for index, column in enumerate(group.physical):
        field_id = ids.get(column.name)
        if field_id is not None:
            found.setdefault(field_id, []).append(index)
    for source in group.sources:
        iceberg = found.get(source.field_id, [])
        if len(iceberg) > 1:
            names = ", ".join(group.physical[i].name for i in iceberg)
            return f"file {example}: columns {names} all map to {source.target}"
        iceberg_index = iceberg[0] if iceberg else None
        if iceberg_index != source.physical_index:
            return _different_column(group, source.target, source.physical_index, iceberg_index)
        if source.physical_index is None:
            continue
        physical = group.physical[source.physical_index]
        why = type_difference(physical.type, source.table_type, source.partition_type)
        if why:
            return f"column {source.target} in {example}: {why}"
    return ""


def _different_column(group: FileGroup, target: str, hive: int | None, iceberg: int | None) -> str:
    def named(index: int | None) -> str:
        return "NULL" if index is None else f"file column {group.physical[index].name}"

    example = group.files[0] if group.files else "?"
    return (
        f"column {target} in {example}: Hive shows {named(hive)}, Iceberg's name mapping "
        f"would read {named(iceberg)} (letter case, a rename without CASCADE or positional "
        "names)"
    )


def type_difference(file_type: str, table_type: str, partition_type: str | None) -> str:
    """Why Iceberg's reader would not give a file column's values as Hive shows them in a
    table column, or ``""``."""
    if partition_type is not None and _same(partition_type, table_type) is False:
        return f"the partition declares {partition_type}, the table {table_type}"
    try:
        physical, table = parse_hive_type(file_type), parse_hive_type(table_type)
    except Exception:  # refused where the partition is read
        return f"type {file_type} or {table_type} is not understood"
    return _difference(physical, table)


def _same(a: str, b: str) -> bool:
    try:
        return parse_hive_type(a) == parse_hive_type(b)
    except Exception:
        return False


def _difference(physical: HiveType, table: HiveType) -> str:
    if _has_char(table) or _has_char(physical):
        return "char values, which Hive pads and Iceberg does not"
    if table.kind in ("timestamp with local time zone", "timestamplocaltz") or physical.kind in (
        "timestamp with local time zone",
        "timestamplocaltz",
    ):
        return "timestamps with local time zone"
    if physical == table:
        return ""
    if physical.kind in _INTEGERS and table.kind in _INTEGERS:
        if _INTEGERS.index(physical.kind) <= _INTEGERS.index(table.kind):
            return ""  # Iceberg holds each as int: Hive's widening keeps every value
        return f"the file holds {physical}, the table shows {table} (Hive nulls what overflows)"
    if physical.kind == "int" and table.kind == "bigint":
        return ""  # Iceberg's one integer promotion, the same values
    if physical.is_primitive and table.is_primitive:
        return (
            f"the file holds {physical}, the table shows {table} (a conversion Iceberg's reader "
            "does not make as Hive does)"
        )
    return f"the file's {physical} is not the table's {table} field for field"


def _has_char(t: HiveType) -> bool:
    return t.kind == "char" or any(_has_char(child) for _, child in t.fields)


def adopted(decisions: Iterable[AdoptionDecision]) -> list[str]:
    return [d.partition for d in decisions if d.adopt]
