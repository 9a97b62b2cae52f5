"""Which partitions ``adopt_files`` may hold as their own ORC files (pure rules)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lakeshift.hive.semantics import HiveSemantics
from lakeshift.inspect.model import Anomaly, Column, FileInfo, TableInventory
from lakeshift.migrate.adoption import decide, type_difference
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.schema_map.model import FieldMapping
from tests.unit.test_field_ids import inventory

TABLE = [("id", "bigint"), ("name", "string"), ("amount", "int")]


def _with_files(
    inv: TableInventory, *files: tuple[tuple[str, str], ...], fmt: str = "orc"
) -> TableInventory:
    partition = replace(
        inv.partitions[0],
        files=tuple(
            FileInfo(
                f"00000{i}_0",
                100,
                1,
                fmt,
                tuple(Column(n, t) for n, t in cols),
                rows=3,
                pre_gregorian=False,
            )
            for i, cols in enumerate(files)
        ),
    )
    return replace(inv, partitions=(partition,))


def _decide(
    inv: TableInventory, semantics: HiveSemantics | None = None, mapping: FieldMapping | None = None
) -> tuple[bool, str]:
    mapping = mapping or build_mapping(inv, None, semantics or HiveSemantics())
    (decision,) = decide(inv, mapping, [inv.partitions[0].name], "file:/lake/t")
    return decision.adopt, decision.reason


def test_files_with_the_tables_names_and_types_are_adopted() -> None:
    inv = _with_files(inventory(TABLE, [TABLE]), tuple(TABLE), tuple(TABLE))
    assert _decide(inv) == (True, "")


def test_positional_files_are_adopted_through_their_col_aliases() -> None:
    positional = tuple((f"_col{i}", t) for i, (_, t) in enumerate(TABLE))
    assert _decide(_with_files(inventory(TABLE, [TABLE]), positional)) == (True, "")


def test_a_name_differing_in_case_is_copied_where_hive_ignores_case() -> None:
    upper = (("ID", "bigint"), ("name", "string"), ("amount", "int"))
    adopt, reason = _decide(
        _with_files(inventory(TABLE, [TABLE]), upper), HiveSemantics(case_sensitive=False)
    )
    assert not adopt and "letter case" in reason and "file column ID" in reason


def test_a_rename_without_cascade_is_copied() -> None:
    """Hive reads the new name (NULL in old files); Iceberg's alias would read the old one."""
    old = [("id", "bigint"), ("label", "string"), ("amount", "int")]
    first = build_mapping(inventory(old, [old]), None, HiveSemantics())
    renamed = inventory(TABLE, [old])
    mapping = build_mapping(renamed, first, HiveSemantics())
    assert mapping.columns[1].lineage == ("label", "name")
    adopt, reason = _decide(_with_files(renamed, tuple(old)), mapping=mapping)
    assert not adopt and "Hive shows NULL" in reason and "label" in reason


@pytest.mark.parametrize(
    ("file_type", "table_type", "adoptable"),
    [
        ("int", "int", True),
        ("smallint", "int", True),
        ("int", "bigint", True),
        ("bigint", "int", False),  # Iceberg cannot read it; Hive nulls what overflows
        ("int", "smallint", False),
        ("string", "int", False),
        ("float", "double", False),
        ("decimal(10,2)", "decimal(12,2)", False),
        ("decimal(10,2)", "decimal(10,2)", True),
        ("char(4)", "char(4)", False),
        ("varchar(4)", "varchar(4)", True),
        ("struct<a:int,b:char(2)>", "struct<a:int,b:char(2)>", False),
        ("struct<A:int>", "struct<a:int>", False),
        ("array<int>", "array<int>", True),
    ],
)
def test_types_iceberg_reads_as_hive_shows(
    file_type: str, table_type: str, adoptable: bool
) -> None:
    assert (type_difference(file_type, table_type, None) == "") is adoptable


def test_text_files_zero_byte_files_and_reading_rules_are_copied() -> None:
    base = inventory(TABLE, [TABLE])
    assert "text" in _decide(_with_files(base, tuple(TABLE), fmt="text"))[1]
    empty = _with_files(base, tuple(TABLE))
    empty = replace(
        empty,
        partitions=(
            replace(empty.partitions[0], files=(replace(empty.partitions[0].files[0], size=0),)),
        ),
    )
    assert "zero-byte" in _decide(empty)[1]
    sensitive = _with_files(base, tuple(TABLE))
    anomaly = Anomaly("calendar-before-1582", "warning", "", "", "dt=0")
    sensitive = replace(
        sensitive, partitions=(replace(sensitive.partitions[0], anomalies=(anomaly,)),)
    )
    assert _decide(sensitive) == (
        False,
        "calendar-before-1582: dates before 1582-10-15, read by calendar rules",
    )


def test_a_source_inside_the_lake_tables_location_is_copied() -> None:
    inv = _with_files(inventory(TABLE, [TABLE]), tuple(TABLE))
    inside = replace(inv, partitions=(replace(inv.partitions[0], location="file:///lake/t/dt=0"),))
    mapping = build_mapping(inside, None, HiveSemantics())
    (decision,) = decide(inside, mapping, ["dt=0"], "file:/lake/t")
    assert not decision.adopt and "inside one another" in decision.reason


def test_files_without_rows_are_left_out_and_a_partition_of_none_is_copied() -> None:
    inv = _with_files(inventory(TABLE, [TABLE]), tuple(TABLE), tuple(TABLE))
    files = inv.partitions[0].files
    some = replace(
        inv, partitions=(replace(inv.partitions[0], files=(files[0], replace(files[1], rows=0))),)
    )
    mapping = build_mapping(some, None, HiveSemantics())
    (decision,) = decide(some, mapping, ["dt=0"], None)
    assert decision.adopt and decision.files == ("000000_0",)
    none = replace(inv, partitions=(replace(inv.partitions[0], files=()),))
    assert _decide(none) == (False, "no rows to adopt")
