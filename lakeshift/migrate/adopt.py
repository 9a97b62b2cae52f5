"""``migrate --adopt``: decide whether an existing table lakeshift did not create can be filled.

Writing into a table whose partitioning differs from the source's turns each batch's partition
overwrite into a whole-table overwrite, and evolving a table whose columns differ renames or
drops its columns; both lose rows. So a table is adopted only when its columns (names, types,
order) and its partitioning (the source's keys, identity, in order) are what lakeshift would
have created, and when none of the partitions about to be written already holds rows that
lakeshift did not write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from lakeshift.errors import RefusedInput
from lakeshift.formats import TargetFormat
from lakeshift.hive.semantics import HiveSemantics
from lakeshift.hive.spark_sql import spark_type
from lakeshift.hive.types import parse_hive_type
from lakeshift.inspect.model import TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.schema_map.mapping import GENERATED, build_mapping
from lakeshift.schema_map.model import FieldMapping

if TYPE_CHECKING:
    from pyiceberg.table import Table

Columns = list[tuple[str, str]]  # (lower-case name, Spark type simpleString), in table order


@runtime_checkable
class _PyicebergBacked(Protocol):
    """A format whose tables pyiceberg can load (read here only, to see the partition spec)."""

    def table(self, target: str) -> Table | None: ...


def check_adoptable(
    fmt: TargetFormat,
    target: str,
    inventory: TableInventory,
    *,
    semantics: HiveSemantics,
    wanted: PartitionFilter,
) -> None:
    """Refuse adopting ``target`` unless writing into it cannot lose any of its rows.

    Raises:
        RefusedInput: naming every difference in columns and partitioning, or every partition
            that already holds rows lakeshift did not write.
    """
    previous = fmt.stored_mapping(target)
    mapping = build_mapping(
        inventory,
        previous,
        semantics,
    )
    source = inventory.qualified_name
    differences = column_differences(
        _expected_columns(fmt, mapping), _actual_columns(fmt, target, inventory)
    )
    spec = _partition_spec(fmt, target)
    wanted_spec = [(k.name.lower(), "identity") for k in inventory.partition_keys]
    if spec is not None and spec != wanted_spec:
        differences.insert(
            0,
            f"partitioning: target {_spec_text(spec)}, source {_spec_text(wanted_spec)}",
        )
    if differences:
        raise RefusedInput(
            f"cannot adopt {target} for {source}: it differs from the table lakeshift would "
            "create, and writing into it would overwrite or rename its data: "
            + "; ".join(differences)
            + ".",
            hint="Pick a new --target (lakeshift creates it), or make the existing table match.",
        )
    done = fmt.backfilled(target)
    counts = fmt.row_counts(target, inventory)
    foreign = [
        f"{p.name} ({counts[p.name]:,} rows)"
        for p in inventory.partitions
        if wanted.matches(p.name) and counts.get(p.name, 0) > 0 and p.name not in done
    ]
    if foreign:
        raise RefusedInput(
            f"cannot adopt {target} for {source}: partitions lakeshift would write already hold "
            f"rows it did not write, and a backfill replaces them: {', '.join(foreign[:10])}"
            + (f" and {len(foreign) - 10} more" if len(foreign) > 10 else "")
            + ".",
            hint="Pick a new --target, exclude those partitions with --partitions, or empty "
            "them in the target first.",
        )


def column_differences(expected: Columns, actual: Columns) -> list[str]:
    """What differs between the columns lakeshift would create and the table's, one phrase
    each. lakeshift's generated columns may be missing (they are added, as NULL)."""
    generated = {name for name, _ in GENERATED}
    want, have = dict(expected), dict(actual)
    out = [
        f"column {name}: target {have[name]}, source {kind}"
        for name, kind in expected
        if name in have and have[name] != kind
    ]
    out += [
        f"column {name} ({kind}) is missing in the target"
        for name, kind in expected
        if name not in have and name not in generated
    ]
    out += [
        f"column {name} ({kind}) is not in the source" for name, kind in actual if name not in want
    ]
    shared_expected = [n for n, _ in expected if n in have]
    shared_actual = [n for n, _ in actual if n in want]
    if not out and shared_expected != shared_actual:
        out.append(
            f"column order: target ({', '.join(shared_actual)}), source "
            f"({', '.join(shared_expected)})"
        )
    return out


def _expected_columns(fmt: TargetFormat, mapping: FieldMapping) -> Columns:
    return [
        (f.name.lower(), _simple(spark_type(fmt.target_type(parse_hive_type(f.type)))))
        for f in mapping.fields
    ]


def _actual_columns(fmt: TargetFormat, target: str, inventory: TableInventory) -> Columns:
    return [
        (f.name.lower(), f.dataType.simpleString())
        for f in fmt.frame(target, inventory).schema.fields
    ]


def _simple(ddl_type: str) -> str:
    from pyspark.sql.types import _parse_datatype_string

    return str(_parse_datatype_string(ddl_type).simpleString())


def _partition_spec(fmt: TargetFormat, target: str) -> list[tuple[str, str]] | None:
    """(column, transform) of the target's partitioning, when the format lets us read it.

    Iceberg tables are read with pyiceberg (read-only). Other formats check their partition
    columns themselves when they sync (Delta refuses other columns).
    """
    if not isinstance(fmt, _PyicebergBacked):
        return None
    table = fmt.table(target)
    if table is None:
        return None
    schema = table.schema()
    return [
        (str(schema.find_column_name(f.source_id)).lower(), str(f.transform))
        for f in table.spec().fields
    ]


def _spec_text(spec: Sequence[tuple[str, Any]]) -> str:
    if not spec:
        return "unpartitioned"
    return "partitioned by " + ", ".join(
        name if transform == "identity" else f"{transform}({name})" for name, transform in spec
    )
