"""Build or update a table's :class:`FieldMapping` from its inventory."""

from __future__ import annotations

import json
from pathlib import Path

from lakeshift.errors import SchemaMappingError
from lakeshift.hive.semantics import HiveSemantics
from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.inspect.model import TableInventory
from lakeshift.listing import first_few
from lakeshift.platform.state_dir import write_json
from lakeshift.schema_map.field_ids import (
    IdAllocator,
    TypeChangeRefused,
    evolve_fields,
    fresh_fields,
    with_lineage,
)
from lakeshift.schema_map.model import FieldMapping, TargetField

UUID_COLUMN = "uuid"
PARTITIONPATH_COLUMN = "partitionpath"
GENERATED = ((UUID_COLUMN, "string"), (PARTITIONPATH_COLUMN, "string"))


def _parsed(columns: object) -> list[tuple[str, HiveType]]:
    return [(c.name, parse_hive_type(c.type)) for c in columns]  # type: ignore[attr-defined]


def _names_by_position(inventory: TableInventory) -> list[list[str]]:
    """Names each table position had in partition descriptors (Hive maps by position)."""
    out: list[list[str]] = [[] for _ in inventory.columns]
    for partition in inventory.partitions:
        for position, column in enumerate(partition.columns[: len(out)]):
            if column.name not in out[position]:
                out[position].append(column.name)
    return out


def build_mapping(
    inventory: TableInventory,
    previous: FieldMapping | None,
    semantics: HiveSemantics,
) -> FieldMapping:
    """The target schema with stable IDs; reuses ``previous`` IDs when given. ``semantics``
    (how the user's Hive reads the table) is recorded with it: every reader follows it.

    Raises:
        SchemaMappingError: a type change the target cannot represent (names the column,
            the partitions and the files that hold the old type), or a type Iceberg lacks.
    """
    columns = _parsed(inventory.columns)
    keys = _parsed(inventory.partition_keys)
    generated = [(n, parse_hive_type(t)) for n, t in GENERATED]
    clash = {n.lower() for n, _ in columns + keys} & {n for n, _ in GENERATED}
    if clash:
        raise SchemaMappingError(
            f"{inventory.qualified_name} already has a column named {sorted(clash)[0]!r}, which "
            "lakeshift adds as a generated column.",
            hint="Rename the Hive column before migrating.",
        )
    # Hive's own column names are case-insensitive (the metastore lower-cases them), so a
    # field keeps its ID across case changes whatever ORC's name match is.
    try:
        if previous is None:
            ids = IdAllocator(0)
            every = fresh_fields([*columns, *keys, *generated], ids)
            data, part, gen = every[: len(columns)], every[len(columns) : -2], every[-2:]
            retired: list[TargetField] = []
        else:
            ids = IdAllocator(previous.last_id)
            data, retired = evolve_fields(
                previous.columns, columns, ids, case_sensitive=False, where=""
            )
            part, retired_keys = evolve_fields(
                previous.partition_keys, keys, ids, case_sensitive=False, where=""
            )
            gen = list(previous.generated)
            retired = [*previous.retired, *retired, *retired_keys]
    except TypeChangeRefused as e:
        raise _with_locations(e, inventory) from e
    data = with_lineage(data, _names_by_position(inventory))
    return FieldMapping(
        table=inventory.qualified_name,
        columns=tuple(data),
        partition_keys=tuple(part),
        generated=tuple(gen),
        retired=tuple(retired),
        last_id=ids.last_id,
        mapping_mode="position" if semantics.orc_positional else "auto",
        case_sensitive=semantics.case_sensitive,
        calendar=semantics.calendar,
        hive_version=semantics.version,
        schema_evolution=semantics.schema_evolution,
        orc_sql_dates=semantics.orc_sql_dates,
        time_zone=semantics.time_zone,
    )


def _with_locations(error: TypeChangeRefused, inventory: TableInventory) -> SchemaMappingError:
    """Name the partitions and files that still hold the column's old type."""
    names = {n.lower() for n in error.lineage} | {error.column.split(".")[0].lower()}
    partitions: list[str] = []
    files: list[str] = []
    for partition in inventory.partitions:
        declared = [c for c in partition.columns if c.name.lower() in names]
        if any(parse_hive_type(c.type) != error.new for c in declared):
            partitions.append(partition.name)
            files.extend(f"{partition.name}/{f.path}" for f in partition.files)
    shown = first_few(partitions)
    return SchemaMappingError(
        f"{inventory.qualified_name}: {error.message} Partitions holding the old type: "
        f"{shown or 'none'}; files: {first_few(files) or 'none'}.",
        hint=error.hint,
    )


def mapping_path(home: Path, qualified_name: str) -> Path:
    return home / "mappings" / f"{qualified_name}.json"


def save_mapping(mapping: FieldMapping, home: Path) -> Path:
    return write_json(mapping_path(home, mapping.table), mapping.to_json())


def load_mapping(home: Path, qualified_name: str) -> FieldMapping | None:
    path = mapping_path(home, qualified_name)
    if not path.is_file():
        return None
    return FieldMapping.from_json(json.loads(path.read_text()))
