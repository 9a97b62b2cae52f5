"""Unsigned integers in Parquet partitions (``UINT_8`` .. ``UINT_64``, as pandas and pyarrow
write ``uint*`` columns): Hive's Parquet reader takes the physical ``INT32``/``INT64`` as it is,
signed, in 1.2 and 2.x (4294967295 in a ``UINT_32`` shows -1; Hive 2.3.9 itself agrees:
``tests/differential/test_parquet_writables.py``), and from 3.1 reads a negative one as NULL
(``ETypeConverter.getMinValue``: 0 for unsigned types, in 3.1.3 and 4.0.1). Then the value goes
on as any int or bigint does (``parquet_reading.built``, Hive's converters). Map keys stay
signed (README "Limits"). Both readers under every version, then one migration under the
default (3.1) into every format, read back by each format's own reader.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL
from tests.helpers.hive_tables import HiveTableBuilder, unique_name, with_rids
from tests.helpers.lake import read_lake
from tests.helpers.migration import migrate_and_validate
from tests.helpers.readers import both_readers, by_partition

pytestmark = pytest.mark.slow

TABLE = [
    ("rid", "int"),
    ("c", "int"),
    ("d", "bigint"),
    ("t", "tinyint"),
    ("w", "int"),
    ("s", "struct<x:int,y:bigint>"),
    ("l", "array<int>"),
    ("m", "map<string,bigint>"),  # Hudi's maps need text keys: keys in KEYS_TABLE
    ("b", "bigint"),
]
COLUMNS = [name for name, _ in TABLE[1:]]
U32, U64 = 2**32 - 1, 2**64 - 1


@pytest.fixture(scope="module")
def unsigned_table(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(client, tables_root, "pqunsigned", unique_name("u"), TABLE)
    struct = pa.struct([("x", pa.uint32()), ("y", pa.uint64())])
    data = with_rids(
        c=pa.array([U32, 7, None], pa.uint32()),
        d=pa.array([U64, 8, None], pa.uint64()),
        t=pa.array([200, 5, None], pa.uint8()),
        w=pa.array([65535, 6, None], pa.uint16()),
        s=pa.array([{"x": U32, "y": U64}, {"x": 1, "y": 2}, None], struct),
        l=pa.array([[U32, 1], [3], None], pa.list_(pa.uint32())),
        m=pa.array([[("k", U64)], [("k", 2)], None], pa.map_(pa.string(), pa.uint64())),
    )
    b.add_partition(["unsigned"], {"000000_0": data}, fmt="parquet")
    # a UINT_32 column the table declares bigint: Hive 2.x builds the signed int as a long
    b.add_partition(["widened"], {"000000_0": with_rids(b=pa.array([U32, 9, None], pa.uint32()))},
                    fmt="parquet")  # fmt: skip
    return f"{b.db}.{b.name}"


SIGNED = {  # 1.2 and 2.x: the physical value, signed; a tinyint's inspector then wraps 200
    "unsigned": {
        "c": [-1, 7, None], "d": [-1, 8, None], "t": [-56, 5, None], "w": [65535, 6, None],
        "s": [(-1, -1), (1, 2), None], "l": [[-1, 1], [3], None],
        "m": [{"k": -1}, {"k": 2}, None],
    },
}  # fmt: skip
NULLED = {  # 3.1 and 4: negative NULL (getMinValue); 200 out of tinyint's range NULL too
    "unsigned": {
        "c": [None, 7, None], "d": [None, 8, None], "t": [None, 5, None], "w": [65535, 6, None],
        "s": [(None, None), (1, 2), None], "l": [[None, 1], [3], None],
        "m": [{"k": None}, {"k": 2}, None],
    },
    "widened": {"b": [None, 9, None]},
}  # fmt: skip
EXPECTED: dict[str, dict[str, dict[str, list[Any]]]] = {
    "1.2": SIGNED,  # the widened partition: an IntWritable a bigint cannot read (refused)
    "2.3": {**SIGNED, "widened": {"b": [-1, 9, None]}},
    "3.1": NULLED,
    "4": NULLED,
}


@pytest.fixture(scope="module")
def keys_table(client: MetastoreClient, tables_root: Path) -> str:
    """Unsigned map keys (a table Hudi cannot hold: its maps need text keys)."""
    b = HiveTableBuilder(client, tables_root, "pqunsigned", unique_name("k"),
                         [("rid", "int"), ("k", "map<int,bigint>")])  # fmt: skip
    keys = pa.array([[(U32, U64), (1, 2)], None], pa.map_(pa.uint32(), pa.uint64()))
    b.add_partition(["keys"], {"000000_0": with_rids(k=keys)}, fmt="parquet")
    return f"{b.db}.{b.name}"


@pytest.mark.parametrize(("version", "shown"), [("2.3", -1), ("3.1", None)])
def test_unsigned_map_keys_stay_signed_in_every_version(
    version: str,
    shown: int | None,
    keys_table: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
) -> None:
    """A key is never NULL (a lake map cannot hold one): taken signed under every version,
    where Hive 3.1+ would build NULL (README "Limits"); its value follows the version."""
    chosen = replace(settings, hive_version=version)
    (partition,) = inspect_table(client, keys_table, chosen).partitions
    warned = "map-keys-as-written" in {a.code for a in partition.anomalies}
    assert warned == (shown is None), version  # inspect says where Hive's keys differ
    for name, frame in both_readers(spark, client, keys_table, chosen).items():
        rows = sorted(frame.collect(), key=lambda r: r["rid"])
        assert [_plain(r["k"]) for r in rows] == [{-1: shown, 1: 2}, None], (version, name)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        return dict(value)  # a map as pyarrow gives it
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "asDict"):
        return tuple(value.asDict().values())
    return value


def _shown(column: str, value: Any) -> Any:
    if column == "s" and isinstance(value, dict):
        return (value["x"], value["y"])  # a struct as a lake reader gives it
    return _plain(value)


def _by_partition(rows: list[Any]) -> dict[str, dict[str, list[Any]]]:
    return by_partition(rows, COLUMNS, _shown)


@pytest.mark.parametrize("version", ["1.2", "2.3", "3.1", "4"])
def test_each_version_reads_unsigned_parquet_integers_as_its_reader_does(
    version: str, unsigned_table: str, client: MetastoreClient, settings: Settings, spark: Any
) -> None:
    chosen = replace(settings, hive_version=version)
    inventory = inspect_table(client, unsigned_table, chosen)
    held = {p.values[0] for p in inventory.partitions if not p.migratable}
    assert held == {"unsigned", "widened"} - set(EXPECTED[version]), version
    files = {p.values[0]: p.files[0] for p in inventory.partitions}
    # the file's columns as Hive reads them, and as Spark must be asked for them
    assert (
        dict((c.name, c.type) for c in files["unsigned"].columns)["s"] == "struct<x:int,y:bigint>"
    )
    assert dict((c.name, c.type) for c in files["unsigned"].scanned) == {
        "c": "bigint", "d": "decimal(20,0)", "s": "struct<x:bigint,y:decimal(20,0)>",
        "l": "array<bigint>", "m": "map<string,decimal(20,0)>",
    }  # fmt: skip
    readers = both_readers(spark, client, unsigned_table, chosen)
    for name, frame in readers.items():
        assert _by_partition(frame.collect()) == EXPECTED[version], (version, name)


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_the_default_version_migrates_them_into_every_format(
    fmt: str,
    unsigned_table: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    chosen = replace(settings, hive_version="3.1")
    target = f"{unsigned_table}_{fmt}"
    result, report = migrate_and_validate(
        spark, client, chosen, lakeshift_home / f"pqunsigned-{fmt}.sqlite", unsigned_table,
        target, fmt,
    )  # fmt: skip
    assert sorted(result.backfilled) == ["dt=unsigned", "dt=widened"], result
    assert {p.partition: p.status for p in report.partitions} == {
        "dt=unsigned": EQUAL, "dt=widened": EQUAL,
    }  # fmt: skip
    assert _by_partition(read_lake(client, target).to_pylist()) == EXPECTED["3.1"]


@pytest.fixture(scope="module")
def fixed_table(client: MetastoreClient, tables_root: Path) -> str:
    """An unannotated ``FIXED_LEN_BYTE_ARRAY`` (pyarrow's fixed-size binary), at the top and
    inside a struct: Hive's Parquet reader builds a ``BytesWritable`` from it, as from a
    ``BINARY`` (``EBINARY_CONVERTER``, by the physical type's Java class)."""
    b = HiveTableBuilder(client, tables_root, "pqunsigned", unique_name("f"),
                         [("rid", "int"), ("f", "binary"), ("s", "struct<g:binary>")])  # fmt: skip
    fixed = pa.array([b"abcd", None, b"wxyz"], pa.binary(4))
    s = pa.StructArray.from_arrays([fixed], names=["g"])
    b.add_partition(["fixed"], {"000000_0": with_rids(f=fixed, s=s)}, fmt="parquet")
    return f"{b.db}.{b.name}"


def test_fixed_size_binaries_are_read_as_binaries(
    fixed_table: str, client: MetastoreClient, settings: Settings, spark: Any
) -> None:
    (partition,) = inspect_table(client, fixed_table, settings).partitions
    assert partition.migratable, [a.message for a in partition.anomalies]
    for name, frame in both_readers(spark, client, fixed_table, settings).items():
        rows = sorted(frame.collect(), key=lambda r: r["rid"])
        assert [r["f"] and bytes(r["f"]) for r in rows] == [b"abcd", None, b"wxyz"], name
        assert [bytes(r["s"]["g"]) if r["s"]["g"] else None for r in rows] == [
            b"abcd", None, b"wxyz",
        ], name  # fmt: skip
