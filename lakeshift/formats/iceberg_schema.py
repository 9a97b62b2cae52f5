"""Apply a :class:`FieldMapping` to an Iceberg table: create it, evolve it, name-map it.

Uses pyiceberg's HiveCatalog on the same metastore. IDs are created and evolved in the order
Iceberg assigns them, then checked: a target whose IDs diverge from the mapping is refused.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from lakeshift.errors import EnvironmentProblem, SchemaMappingError
from lakeshift.hive.types import parse_hive_type
from lakeshift.schema_map.model import FieldMapping, TargetField

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table
    from pyiceberg.types import IcebergType

log = logging.getLogger(__name__)
MAPPING_PROPERTY = "lakeshift.field-mapping"
NAME_MAPPING_PROPERTY = "schema.name-mapping.default"


def iceberg_type(f: TargetField) -> IcebergType:
    from pyiceberg import types as it

    hive = parse_hive_type(f.type)
    primitives: dict[str, Any] = {
        "tinyint": it.IntegerType,
        "smallint": it.IntegerType,
        "int": it.IntegerType,
        "bigint": it.LongType,
        "boolean": it.BooleanType,
        "float": it.FloatType,
        "double": it.DoubleType,
        "string": it.StringType,
        "char": it.StringType,
        "varchar": it.StringType,
        "binary": it.BinaryType,
        "date": it.DateType,
        "timestamp": it.TimestampType,
    }
    if hive.kind in primitives:
        return primitives[hive.kind]()  # type: ignore[no-any-return]
    if hive.kind == "decimal":
        return it.DecimalType(*hive.params)
    if hive.kind == "array":
        element = f.children[0]
        return it.ListType(element.id, iceberg_type(element), element_required=False)
    if hive.kind == "map":
        key, value = f.children
        return it.MapType(
            key.id, iceberg_type(key), value.id, iceberg_type(value), value_required=False
        )
    if hive.kind == "struct":
        return it.StructType(*[_nested(child) for child in f.children])
    raise SchemaMappingError(f"column {f.name!r} of type {hive} has no Iceberg type")


def _nested(f: TargetField) -> Any:
    from pyiceberg.types import NestedField

    # Map keys are required in Iceberg; every other field may hold NULL, as in Hive.
    return NestedField(f.id, f.name, iceberg_type(f), required=False)


def iceberg_schema(mapping: FieldMapping) -> Schema:
    from pyiceberg.schema import Schema

    return Schema(*[_nested(f) for f in mapping.fields])


def _ids_by_path(
    fields: tuple[TargetField, ...], prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], int]]:
    for f in fields:
        path = (*prefix, f.name)
        yield path, f.id
        yield from _ids_by_path(f.children, path)


def _iceberg_ids(schema: Schema) -> dict[int, tuple[str, ...]]:
    """Field ID -> path of names (``element``/``key``/``value`` for collections)."""
    return {field_id: tuple(name.split(".")) for field_id, name in schema._lazy_id_to_name.items()}  # type: ignore[attr-defined]


def id_mismatches(schema: Schema, mapping: FieldMapping) -> list[str]:
    actual = {path: field_id for field_id, path in _iceberg_ids(schema).items()}
    expected = dict(_ids_by_path(mapping.fields))
    return [
        f"{'.'.join(p)}: mapping {i}, table {actual.get(p)}"
        for p, i in expected.items()
        if actual.get(p) != i
    ]


def name_mapping(mapping: FieldMapping) -> list[dict[str, Any]]:
    """Iceberg name mapping: current names, earlier Hive names and ``_colN`` where unambiguous."""
    claims: dict[str, set[int]] = {}
    for position, f in enumerate(mapping.columns):
        for alias in (*f.lineage, f.name, f"_col{position}"):
            claims.setdefault(alias, set()).add(f.id)
    for f in (*mapping.partition_keys, *mapping.generated):
        claims.setdefault(f.name, set()).add(f.id)

    def names(f: TargetField, position: int | None) -> list[str]:
        candidates = [f.name, *reversed(f.lineage)]
        if position is not None:
            candidates.append(f"_col{position}")
        unique = [n for n in dict.fromkeys(candidates) if claims.get(n, {f.id}) == {f.id}]
        return unique or [f.name]

    def nested(f: TargetField) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "field-id": f.id,
            "names": list(dict.fromkeys([f.name, *f.lineage])),
        }
        if f.children:
            entry["fields"] = [nested(c) for c in f.children]
        return entry

    out = []
    for position, f in enumerate(mapping.fields):
        entry = nested(f)
        entry["names"] = names(f, position if position < len(mapping.columns) else None)
        out.append(entry)
    return out


def table_properties(
    mapping: FieldMapping, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    return {
        MAPPING_PROPERTY: json.dumps(mapping.to_json(), separators=(",", ":")),
        NAME_MAPPING_PROPERTY: json.dumps(name_mapping(mapping), separators=(",", ":")),
        **(extra or {}),
    }


def stored_mapping(table: Table) -> FieldMapping | None:
    raw = table.properties.get(MAPPING_PROPERTY)
    return FieldMapping.from_json(json.loads(raw)) if raw else None


def create_table(
    catalog: Catalog,
    identifier: str,
    mapping: FieldMapping,
    properties: Mapping[str, str] | None = None,
) -> Table:
    """Create the Iceberg table (format v2, Parquet, identity partitions on the Hive keys)."""
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import IdentityTransform

    spec = PartitionSpec(
        *[
            PartitionField(
                source_id=k.id, field_id=1000 + i, transform=IdentityTransform(), name=k.name
            )
            for i, k in enumerate(mapping.partition_keys)
        ]
    )
    props = {
        "format-version": "2",
        "write.format.default": "parquet",
        **table_properties(mapping, properties),
    }
    table = catalog.create_table(
        identifier, schema=iceberg_schema(mapping), partition_spec=spec, properties=props
    )
    _check_ids(table, mapping, identifier)
    return table


def evolve_table(table: Table, mapping: FieldMapping, identifier: str) -> Table:
    """ID-preserving schema update of an existing table to ``mapping`` (renames, widenings,
    drops, additions) together with the mapping properties, in one commit."""
    schema = table.schema()
    current = _iceberg_ids(schema)
    target = {i: p for p, i in _ids_by_path(mapping.fields)}
    fields = {f.id: f for top in mapping.fields for f in top.walk()}
    try:
        _apply_evolution(table, schema, current, target, fields, mapping)
    except Exception as e:
        raise _commit_error(e, identifier) from e
    refreshed = table.refresh()
    _check_ids(refreshed, mapping, identifier)
    return refreshed


def _commit_error(error: Exception, identifier: str) -> Exception:
    """Name the metastore's reason; pyiceberg can hide it behind a TypeError."""
    reasons = []
    cause: BaseException | None = error
    while cause is not None:
        reasons.append(f"{getattr(cause, 'message', None) or cause}")
        cause = cause.__cause__ or cause.__context__
    text = " | ".join(reasons)
    if "incompatible with the existing columns" in text:
        return EnvironmentProblem(
            f"the metastore refused the schema change of Iceberg table {identifier}: {reasons[-1]}",
            hint="Set hive.metastore.disallow.incompatible.col.type.changes=false in the "
            "metastore's hive-site.xml (Hive 4: list Iceberg's SerDe in "
            "metastore.allow.incompatible.col.type.changes.serdes), restart it, and re-run.",
        )
    return SchemaMappingError(
        f"could not evolve Iceberg table {identifier}: {text}",
        hint="Nothing was committed; fix the cause and re-run.",
    )


def _apply_evolution(
    table: Table,
    schema: Schema,
    current: dict[int, tuple[str, ...]],
    target: dict[int, tuple[str, ...]],
    fields: dict[int, TargetField],
    mapping: FieldMapping,
) -> None:
    with table.transaction() as tx:
        with tx.update_schema() as update:
            dropped = [i for i in current if i not in target]
            for field_id in dropped:
                path = current[field_id]
                # A dropped struct takes its fields along; collections' parts go with them.
                if any(current[o] == path[: len(current[o])] for o in dropped if o != field_id):
                    continue
                if path[-1] not in _COLLECTION_PARTS:
                    update.delete_column(path)
            for field_id, path in current.items():
                new = target.get(field_id)
                if new is None:
                    continue
                wanted = iceberg_type(fields[field_id])
                if wanted.is_primitive and schema.find_field(field_id).field_type != wanted:
                    update.update_column(path, field_type=wanted)  # type: ignore[arg-type]
                if new[-1] != path[-1] and path[-1] not in _COLLECTION_PARTS:
                    update.rename_column(path, new[-1])
            for field_id in sorted(i for i in target if i not in current):
                path = target[field_id]
                parent = _current_path(path[:-1], current, target)
                if parent is None or path[-1] in _COLLECTION_PARTS:
                    continue  # added together with its new parent or collection
                if parent and parent[-1] in _COLLECTION_PARTS:
                    parent = parent[:-1]  # pyiceberg adds to a list's element / map's value
                update.add_column((*parent, path[-1]), iceberg_type(fields[field_id]))
        tx.set_properties(table_properties(mapping))


_COLLECTION_PARTS = ("element", "key", "value")


def _current_path(
    new_parent: tuple[str, ...],
    current: dict[int, tuple[str, ...]],
    target: dict[int, tuple[str, ...]],
) -> tuple[str, ...] | None:
    """The pre-update path of a parent given by its new path (adds refer to old names);
    ``None`` when the parent is itself new."""
    if not new_parent:
        return ()
    for field_id, path in target.items():
        if path == new_parent:
            return current.get(field_id)
    return None


def _check_ids(table: Table, mapping: FieldMapping, identifier: str) -> None:
    problems = id_mismatches(table.schema(), mapping)
    if problems:
        raise SchemaMappingError(
            f"Iceberg table {identifier} does not carry the field IDs of its mapping: "
            + "; ".join(problems[:5]),
            hint="The table was changed outside lakeshift; migrate into a new target table.",
        )
