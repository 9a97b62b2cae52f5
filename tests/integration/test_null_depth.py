"""NULL stays NULL at every depth, in every format, checked with two readers per format.

A NULL array, map or struct, and NULL elements, values and fields inside them, must never
become an empty collection or a struct of NULLs anywhere between the ORC file and the lake
table. One reader is not enough to check that: pyiceberg's ``scan().to_arrow()`` returns ``[]``
for a NULL ``array<struct>`` and ``{}`` for a NULL map that the Parquet file holds as NULL. So
each format is read twice: by its own reader (pyiceberg, delta-rs, hudi-rs) and by pyarrow
straight from the Parquet files the format's metadata names as current. The Parquet files are the
ground truth; the format's reader must agree with them except where it is known to be wrong
(pyiceberg, asserted below so that a fix in pyiceberg shows up here).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import delta_root, local_path, read_lake

pytestmark = pytest.mark.slow

ITEM = pa.struct([("a", pa.int32()), ("b", pa.string())])
INNER = pa.list_(pa.int32())
NEST = pa.struct([("x", pa.int32()), ("ys", INNER), ("m", pa.map_(pa.string(), pa.int32()))])
COLUMNS = [
    ("id", "int"),
    ("items", "array<struct<a:int,b:string>>"),
    ("tags", "array<string>"),
    ("attrs", "map<string,array<int>>"),
    ("nest", "struct<x:int,ys:array<int>,m:map<string,int>>"),
]
# Each row puts NULL at a different depth; row 0 is NULL everywhere at the top.
SOURCE = {
    "id": pa.array([0, 1, 2, 3, 4, 5], pa.int32()),
    "items": pa.array(
        [None, [], [None], [{"a": None, "b": None}], [{"a": 1, "b": None}, None], [{"a": 2}]],
        pa.list_(ITEM),
    ),
    "tags": pa.array([None, [], [None], [None, "x"], ["", None], ["y"]], pa.list_(pa.string())),
    "attrs": pa.array(
        [None, [], [("k", None)], [("k", [])], [("k", [None]), ("j", [1, None])], [("z", [3])]],
        pa.map_(pa.string(), INNER),
    ),
    "nest": pa.array(
        [
            None,
            {"x": None, "ys": None, "m": None},
            {"x": 1, "ys": [], "m": []},
            {"x": None, "ys": [None], "m": [("k", None)]},
            {"x": 2, "ys": None, "m": [("k", 1)]},
            {"x": 3, "ys": [4, None], "m": None},
        ],
        NEST,
    ),
}
COLUMN_NAMES = [name for name, _ in COLUMNS]


def _random_rows(count: int, seed: int = 18) -> dict[str, list[Any]]:
    """Generated rows (a seeded property check): every value, element, field, map value and
    container is NULL with probability 1/5, collections hold 0-3 entries."""
    rng = random.Random(seed)

    def maybe(make: Any) -> Any:
        return None if rng.random() < 0.2 else make()

    def some(make: Any) -> list[Any]:
        return [make() for _ in range(rng.randint(0, 3))]

    def keyed(make: Any) -> list[tuple[str, Any]]:
        return [(k, make()) for k in rng.sample("abcdef", rng.randint(0, 3))]

    def small() -> Any:
        return maybe(lambda: rng.randint(-5, 5))

    def text() -> Any:
        return maybe(lambda: rng.choice(["", "x", "yz", "\u00e9"]))

    rows: dict[str, list[Any]] = {name: [] for name in COLUMN_NAMES}
    for i in range(count):
        rows["id"].append(1000 + i)
        rows["items"].append(
            maybe(lambda: some(lambda: maybe(lambda: {"a": small(), "b": text()})))
        )
        rows["tags"].append(maybe(lambda: some(text)))
        rows["attrs"].append(maybe(lambda: keyed(lambda: maybe(lambda: some(small)))))
        rows["nest"].append(
            maybe(
                lambda: {
                    "x": small(),
                    "ys": maybe(lambda: some(small)),
                    "m": maybe(lambda: keyed(small)),
                }
            )
        )
    return rows


RANDOM = _random_rows(200)
SOURCE = {
    name: pa.concat_arrays([SOURCE[name], pa.array(RANDOM[name], SOURCE[name].type)])
    for name in COLUMN_NAMES
}


def _plain(value: Any) -> Any:
    """Structs as tuples of their values in order (field names differ between readers: Delta
    files hold physical names), maps as sorted (key, value) tuples, lists as tuples. None stays
    None at every depth, and [] stays distinct from None."""
    if isinstance(value, dict):
        return ("struct", tuple(_plain(v) for v in value.values()))
    if isinstance(value, list):
        if value and all(isinstance(x, tuple) and len(x) == 2 for x in value):
            return ("map", tuple(sorted((k, _plain(v)) for k, v in value)))
        return ("list", tuple(_plain(v) for v in value))
    return value


def _rows(table: pa.Table) -> dict[int, tuple[Any, ...]]:
    rows = table.select(COLUMN_NAMES).to_pylist()
    return {r["id"]: tuple(_plain(r[c]) for c in COLUMN_NAMES[1:]) for r in rows}


def _expected() -> dict[int, tuple[Any, ...]]:
    # Maps written from lists of pairs read back as lists of pairs; empty maps read as [] (a
    # list), which _plain keeps as ("list", ()) on both sides.
    return _rows(pa.table(SOURCE))


def _delta_files(client: MetastoreClient, target: str) -> pa.Table:
    """Current files from the Delta log, physical column names mapped back to logical ones."""
    from deltalake import DeltaTable

    table = DeltaTable(delta_root(client, target))
    physical = {
        field["metadata"].get("delta.columnMapping.physicalName", field["name"]): field["name"]
        for field in json.loads(table.schema().to_json())["fields"]
    }
    parts = [pq.read_table(local_path(uri)) for uri in table.file_uris()]
    renamed = [p.rename_columns([physical.get(n, n) for n in p.column_names]) for p in parts]
    return pa.concat_tables([r.select(COLUMN_NAMES) for r in renamed])


def _hudi_files(client: MetastoreClient, target: str) -> pa.Table:
    """Current file slices as hudi-rs plans them, read as plain Parquet."""
    import hudi

    root = local_path(client.get_table(*target.split(".")).sd.serdeInfo.parameters["path"])
    table = hudi.HudiTableBuilder.from_base_uri(str(root)).build()
    files = [root / s.partition_path / s.base_file_name for s in table.get_file_slices()]
    return pa.concat_tables([pq.read_table(f).select(COLUMN_NAMES) for f in files])


def _iceberg_files(client: MetastoreClient, target: str) -> pa.Table:
    """Data files of the current snapshot as pyiceberg plans them, read as plain Parquet."""
    table = HiveCatalog("nulls", uri=client.uri).load_table(target)
    files = [local_path(task.file.file_path) for task in table.scan().plan_files()]
    return pa.concat_tables([pq.read_table(f).select(COLUMN_NAMES) for f in files])


FILES = {"iceberg": _iceberg_files, "delta": _delta_files, "hudi": _hudi_files}


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_null_stays_null_at_every_depth(
    fmt: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    b = HiveTableBuilder(client, tables_root, "null_depth", unique_name("t"), COLUMNS)
    b.add_partition(["1"], {"000000_0": pa.table(SOURCE)})
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    journal = Journal(lakeshift_home / f"null-depth-{fmt}.sqlite")
    result = migrate(
        spark,
        client,
        HiveCatalog("t", uri=metastore_uri),
        settings,
        journal,
        source,
        MigrateOptions(target, format=fmt),
    )
    assert len(result.backfilled) == 1 and not result.failed, result

    expected = _expected()
    assert expected[0] == (None, None, None, None)  # the check below can tell NULL from []
    assert expected[2][0] == ("list", (None,))

    in_files = _rows(FILES[fmt](client, target))
    assert in_files == expected, "the Parquet files do not hold the source's NULLs"

    own = _rows(read_lake(client, target))
    if fmt != "iceberg":
        assert own == expected
        return

    # pyiceberg reads a top-level NULL array<struct> or map as an empty one although the files
    # hold NULL (see module docstring); every other value agrees with the files.
    def known_bug(row: tuple[Any, ...]) -> tuple[Any, ...]:
        items, tags, attrs, nest = row
        return (items or ("list", ()), tags, attrs or ("list", ()), nest)

    wrong = {i for i in expected if own[i] != expected[i]}
    assert 0 in wrong, "pyiceberg's known NULL bug is fixed: tighten this test"
    assert all(known_bug(own[i]) == known_bug(expected[i]) for i in wrong), wrong
