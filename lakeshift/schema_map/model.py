"""The field mapping record: stable target field IDs and their Hive lineage."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from lakeshift.hive.semantics import HiveSemantics

MAPPING_VERSION = 1


@dataclass(frozen=True)
class TargetField:
    """One target field with a stable ID.

    Attributes:
        id: field ID, never reused once retired.
        name: current name (the Hive table's).
        type: current Hive type string of this field.
        children: struct fields; ``element`` for arrays; ``key`` and ``value`` for maps.
        lineage: every Hive name this field has had, oldest first (current name last).
    """

    id: int
    name: str
    type: str
    children: tuple[TargetField, ...] = ()
    lineage: tuple[str, ...] = ()

    def walk(self) -> list[TargetField]:
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TargetField:
        return cls(
            id=int(data["id"]),
            name=data["name"],
            type=data["type"],
            children=tuple(cls.from_json(c) for c in data.get("children", [])),
            lineage=tuple(data.get("lineage", [])),
        )


@dataclass(frozen=True)
class FieldMapping:
    """Target schema of a migrated table with stable IDs (persisted and reused).

    ``columns`` are the Hive data columns in table order, ``partition_keys`` the Hive partition
    columns, ``generated`` the columns lakeshift adds (``uuid``, ``partitionpath``). ``retired``
    keeps dropped fields so that their IDs are never handed out again.
    """

    table: str
    columns: tuple[TargetField, ...]
    partition_keys: tuple[TargetField, ...]
    generated: tuple[TargetField, ...]
    retired: tuple[TargetField, ...]
    last_id: int
    mapping_mode: str
    case_sensitive: bool
    char_padding: str = "pad"
    version: int = MAPPING_VERSION
    notes: tuple[str, ...] = field(default=())
    calendar: str = "hive3"  # see Settings.calendar
    # Which Hive's reading the backfill reproduces (HiveSemantics); mappings saved before
    # lakeshift knew versions read every partition with its own columns (Hive 1.2's model).
    hive_version: str = "1.2"
    schema_evolution: bool = False
    orc_sql_dates: bool = True  # see HiveSemantics.orc_sql_dates
    time_zone: str = "UTC"  # see HiveSemantics.time_zone

    @property
    def semantics(self) -> HiveSemantics:
        return HiveSemantics(
            version=self.hive_version,
            schema_evolution=self.schema_evolution,
            orc_positional=self.mapping_mode == "position",
            case_sensitive=self.case_sensitive,
            calendar=self.calendar,
            orc_sql_dates=self.orc_sql_dates,
            time_zone=self.time_zone,
        )

    @property
    def fields(self) -> tuple[TargetField, ...]:
        """Top-level fields in target schema order."""
        return (*self.columns, *self.partition_keys, *self.generated)

    def field(self, name: str) -> TargetField:
        for candidate in self.fields:
            if candidate.name == name:
                return candidate
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FieldMapping:
        def fields(key: str) -> tuple[TargetField, ...]:
            return tuple(TargetField.from_json(f) for f in data.get(key, []))

        return cls(
            table=data["table"],
            columns=fields("columns"),
            partition_keys=fields("partition_keys"),
            generated=fields("generated"),
            retired=fields("retired"),
            last_id=int(data["last_id"]),
            mapping_mode=data["mapping_mode"],
            case_sensitive=bool(data["case_sensitive"]),
            calendar=data.get("calendar", "hive3"),
            hive_version=data.get("hive_version", "1.2"),
            schema_evolution=bool(data.get("schema_evolution", False)),
            # mappings written before the setting: the version's default
            orc_sql_dates=bool(data.get("orc_sql_dates", data.get("hive_version") != "4")),
            time_zone=data.get("time_zone", "UTC"),
            char_padding=data.get("char_padding", "pad"),
            version=int(data.get("version", MAPPING_VERSION)),
            notes=tuple(data.get("notes", [])),
        )
