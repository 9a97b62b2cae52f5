"""Each Hive version's reading of ORC partitions whose files differ from the table, checked
against Hive 2.3.9's own FetchOperator (``tests/helpers/hive_oracle.py``), migrated into every
format and read back by each format's own reader; both validation levels prove every partition.

One table holds the rules of ``../shared/HIVE-READ-MODEL.md`` section 5: a column renamed on the
table (the file keeps the old name), a column added without CASCADE that old files hold, a
partition that declares ``varchar(2)`` over longer strings, a string file column read as the
table's boolean, an int file column read as bigint, file names that differ only in letter case,
a struct field renamed inside a struct, ``_colN`` files, and a text partition (model A).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL
from tests.helpers.hive_oracle import hive_answers, hive_text
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import migrate_and_validate

pytestmark = pytest.mark.slow

TABLE = [
    ("rid", "int"),
    ("ident", "bigint"),
    ("flag", "boolean"),
    ("v", "string"),
    ("n", "bigint"),
    ("s", "struct<a:int,b:string>"),
    ("x", "int"),
]
TABLE_NAMES = [n for n, _ in TABLE]
FLAGS = ["1", "0", "true", "yes", ""]
STRUCT = pa.struct([("a", pa.int32()), ("bb", pa.string())])


def _file(names: list[str], struct_names: tuple[str, str] = ("a", "bb")) -> pa.Table:
    """Five rows; ``names`` are the file's column names in table order."""
    struct = pa.struct([(struct_names[0], pa.int32()), (struct_names[1], pa.string())])
    columns = [
        pa.array(range(5), pa.int32()),
        pa.array([10, 20, 30, 40, 50], pa.int64()),
        pa.array(FLAGS),
        pa.array(["abcdef"] * 5),
        pa.array([7] * 5, pa.int32()),
        pa.array([{struct_names[0]: 1, struct_names[1]: "q"}] * 5, struct),
        pa.array([5] * 5, pa.int32()),
    ]
    return pa.table(dict(zip(names, columns, strict=True)))


@pytest.fixture(scope="module")
def drifted(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(client, tables_root, "versions", unique_name("t"), TABLE)
    old = ["rid", "id", "flag", "v", "n", "s", "x"]
    # Written before `ident` was renamed from `id` and before `x` was added (RESTRICT: the
    # partition still declares the old columns and types).
    declared = [
        ("rid", "int"),
        ("id", "bigint"),
        ("flag", "string"),
        ("v", "varchar(2)"),
        ("n", "int"),
        ("s", "struct<a:int,bb:string>"),
    ]
    b.add_partition(["renamed"], {"000000_0": _file(old)}, columns=declared)
    cased = ["rid", "IDENT", "Flag", "v", "n", "s", "x"]
    b.add_partition(["cased"], {"000000_0": _file(cased, ("A", "b"))})
    positional = [f"_col{i}" for i in range(7)]
    b.add_partition(["colN"], {"000000_0": _file(positional, ("a", "b"))}, columns=declared)
    # Parquet partitions: Hive's Parquet reader asks every file for the table's names (and
    # the table's struct field names), whatever the partition declares (HIVE-READ-MODEL
    # section 5 held them read by the partition's names; Hive 2.3.9 shows otherwise).
    parquet_declared = [*declared[:4], ("n", "bigint"), declared[5]]
    old_file = _file(old).drop_columns(["x"]).set_column(4, "n", pa.array([7] * 5, pa.int64()))
    b.add_partition(["pq_old"], {"000000_0": old_file}, columns=parquet_declared, fmt="parquet")
    upper = ["RID", "IDENT", "FLAG", "V", "N", "S"]
    new_file = _file([*TABLE_NAMES[:6], "x"], ("A", "b")).drop_columns(["x"])
    new_file = new_file.set_column(4, "n", pa.array([7] * 5, pa.int64())).rename_columns(upper)
    b.add_partition(["pq_new"], {"000000_0": new_file}, columns=parquet_declared, fmt="parquet")
    text = "".join(f"{i}\x01{10 * (i + 1)}\x01{f}\x01abcdef\n" for i, f in enumerate(FLAGS))
    b.add_partition(
        ["text"],
        {"000000_0": text.encode()},
        columns=[("rid", "int"), ("ident", "bigint"), ("flag", "string"), ("v", "varchar(2)")],
        fmt="text",
    )
    return f"{b.db}.{b.name}"


def _lake_rows(client: MetastoreClient, target: str) -> list[list[str | None]]:
    names = [n for n, _ in TABLE] + ["dt"]
    rows = read_lake(client, target).to_pylist()
    shown = [[hive_text(row[n]) for n in names] for row in rows]
    return sorted(shown, key=lambda r: (r[-1] or "", int(r[0] or 0)))


POSITIONAL = {"orc.force.positional.evolution": "true"}
PARTITIONS = ("cased", "colN", "pq_new", "pq_old", "renamed", "text")


@pytest.fixture(scope="module")
def hive_shows(drifted: str, metastore_uri: str) -> dict[str, list[list[str | None]]]:
    """What Hive 2.3.9 shows with its defaults, and with positional ORC evolution."""
    sql = f"select * from {drifted}"
    defaults, positional = hive_answers(metastore_uri, [(sql, {}), (sql, POSITIONAL)])
    return {
        "2.3": sorted(defaults, key=lambda r: (r[-1] or "", int(r[0] or 0))),
        "positional": sorted(positional, key=lambda r: (r[-1] or "", int(r[0] or 0))),
    }


def _migrate(
    spark: Any, client: MetastoreClient, settings: Settings, home: Path, source: str, **hive: Any
) -> tuple[str, Any]:
    version = hive["hive_version"]
    fmt = hive.pop("fmt")
    target = f"{source}_{fmt}_{version.replace('.', '')}"
    result, report = migrate_and_validate(
        spark,
        client,
        replace(settings, **hive),
        home / f"versions-{fmt}-{version}.sqlite",
        source,
        target,
        fmt,
    )
    assert len(result.backfilled) == len(PARTITIONS) and not result.failed, result
    statuses = {p.partition: p.status for p in report.partitions}
    assert statuses == {f"dt={v}": EQUAL for v in PARTITIONS}, [
        (p.partition, p.detail) for p in report.partitions if p.status != EQUAL
    ]
    assert all(p.independent_checksum == p.target_checksum for p in report.partitions)
    return target, report


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_hive_2_3_rows_are_what_hive_2_3_shows(
    fmt: str,
    drifted: str,
    hive_shows: dict[str, list[list[str | None]]],
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    expected = hive_shows["2.3"]
    target, _ = _migrate(
        spark, client, settings, lakeshift_home, drifted, fmt=fmt, hive_version="2.3"
    )
    assert _lake_rows(client, target) == expected
    # What the rules mean, spelled out (HIVE-READ-MODEL section 5) for the renamed partition:
    renamed = [r for r in expected if r[-1] == "renamed"]
    assert [r[1] for r in renamed] == [None] * 5  # `ident` is not in the file: NULL
    assert [r[2] for r in renamed] == ["true", "false", None, None, None]  # ORC's Long parse
    assert {r[3] for r in renamed} == {"abcdef"}  # the partition's varchar(2) plays no part
    assert {r[6] for r in renamed} == {"5"}  # `x` found by name although not declared
    # Parquet: each file column found by the table's name, ignoring case, struct fields by
    # the table's; `x`, which the partitions do not declare, NULL
    pq_old = [r for r in expected if r[-1] == "pq_old"]
    assert [r[1] for r in pq_old] == [None] * 5  # the file says `id`, Hive asks for `ident`
    assert {r[5] for r in pq_old} == {'{"a":1,"b":null}'}  # `bb`: Hive asks for `b`
    pq_new = [r for r in expected if r[-1] == "pq_new"]
    assert [r[1] for r in pq_new] == ["10", "20", "30", "40", "50"]  # `IDENT`, declared `id`
    assert {r[5] for r in pq_new} == {'{"a":1,"b":"q"}'}
    assert {r[6] for r in pq_old + pq_new} == {None}
    text = [r for r in expected if r[-1] == "text"]
    assert [r[2] for r in text] == ["true"] * 4 + ["false"]  # Hive 2: non-empty is true
    assert {r[3] for r in text} == {"ab"}  # a text partition's varchar(2) truncates


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_positional_evolution_rows_are_what_hive_shows_with_it(
    fmt: str,
    drifted: str,
    hive_shows: dict[str, list[list[str | None]]],
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    """Hive 4 (and vendor 3.1 builds with HIVE-20129) force positional ORC evolution."""
    expected = hive_shows["positional"]
    target, _ = _migrate(
        spark, client, settings, lakeshift_home, drifted, fmt=fmt, hive_version="4"
    )
    got = _lake_rows(client, target)
    converted = ("text", "pq_new", "pq_old")  # through Hive's converters
    orc_rows = [r for r in expected if r[-1] not in converted]
    assert [r for r in got if r[-1] not in converted] == orc_rows
    assert [r[1] for r in orc_rows if r[-1] == "renamed"] == ["10", "20", "30", "40", "50"]
    # Text and Parquet partitions follow Hive 3.0+'s boolean rule in Hive 4 (HIVE-15939);
    # their other columns read as in Hive 2.3.
    hive3_flags = ["true", "false", "true", "true", "false"]
    for partition in converted:
        assert [r[2] for r in got if r[-1] == partition] == hive3_flags
    two_three = [r[:2] + r[3:] for r in hive_shows["2.3"] if r[-1] in converted]
    assert [r[:2] + r[3:] for r in got if r[-1] in converted] == two_three


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_hive_1_2_reads_every_partition_with_its_own_columns(
    fmt: str,
    drifted: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    """Hive 1.2 cannot run here: the expectation is HIVE-READ-MODEL section 6, restated."""
    target, _ = _migrate(
        spark, client, settings, lakeshift_home, drifted, fmt=fmt, hive_version="1.2"
    )
    rows = {(r[-1], r[0]): r for r in _lake_rows(client, target)}
    renamed = [rows["renamed", str(i)] for i in range(5)]
    assert [r[1] for r in renamed] == ["10", "20", "30", "40", "50"]  # by position
    assert [r[2] for r in renamed] == ["true"] * 4 + ["false"]  # converter, Hive 2 rule
    assert {r[3] for r in renamed} == {"ab"}  # through the partition's varchar(2)
    assert {r[5] for r in renamed} == {'{"a":1,"b":"q"}'}  # struct fields by position
    # Parquet as in Hive 2.3 (the reader asks for the table's names in every version read)
    assert [rows["pq_old", str(i)][1] for i in range(5)] == [None] * 5
    assert [rows["pq_new", str(i)][1] for i in range(5)] == ["10", "20", "30", "40", "50"]
    assert {r[6] for r in renamed} == {None}  # the partition does not declare x
    cased = [rows["cased", str(i)] for i in range(5)]
    assert [r[1] for r in cased] == ["10", "20", "30", "40", "50"]  # names play no part
