"""Map keys that the table reads as another type: where two keys become one ('1' and '01' as
int, 1.2 and 1.7 as int) a map keeps one entry as Hive shows it, in every format, and both
validation levels prove it; a key that becomes NULL is refused with a clear message.

What Hive shows was asked of Hive 2.3.9 itself (``tests/helpers/hive_oracle.py``, on these
files; ``make differential`` asks it again): ORC's schema evolution (``RecordReaderImpl.nextMap``)
and Hive's converter from a partition's declared map (``ObjectInspectorConverters.MapConverter``)
put each entry into a Java map, so a repeated key keeps its last value and a NULL key stays
(``{null:"e"}``); a text file's own map (``LazyMap.getMap``) keeps a repeated key's first value
and drops a key that reads NULL. Hive's readers of ORC and Parquet files put each entry of
a file's own map into a Java map too (``nextMap``, ``AbstractParquetMapInspector.getMap``), so
a map another writer wrote with a key twice shows the last one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL, MISSING
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import both_levels, migrate_and_validate
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow

TABLE = [("i", "int"), ("m", "map<int,string>")]
IDS = pa.array([0, 1], pa.int32())
STRINGS = pa.map_(pa.string(), pa.string())
#: key type -> partition -> the maps Hive 2.3.9 shows for rows 0 and 1 (Hudi's Avro maps hold
#: string keys only, so Hudi is checked on varchar keys that collide once cut)
SHOWN = {
    "int": {
        "orc": [{1: "b", 2: "c"}, {3: "d"}],  # ORC's schema evolution: the last '1' wins
        "orcdouble": [{1: "b", 2: "c"}, {3: "d"}],  # 1.2 and 1.7 both read as 1
        "text": [{1: "b", 2: "c"}, {3: "d"}],  # Hive's converter from map<string,string>
        "textint": [{1: "a"}, {3: "d"}],  # the text file's own map<int,string>: the first '1'
        # files whose own maps repeat a key (other writers than Hive's): the last one wins
        "orcrepeat": [{1: "b", 2: "c"}, {3: "e"}],
        "parquetrepeat": [{1: "b", 2: "c"}, {3: "e"}],
    },
    "varchar": {
        "orc": [{"ab": "b", "cd": "c"}, {"ef": "d"}],  # 'abc' read as varchar(2) is 'ab'
        "text": [{"ab": "b", "cd": "c"}, {"ef": "d"}],
        "textvarchar": [{"ab": "a", "cd": "c"}, {"ef": "d"}],
    },
    "string": {  # keys repeated in the file, read as their own type
        "orc": [{"ab": "b", "cd": "c"}, {"ef": "e"}],
        "parquet": [{"ab": "b", "cd": "c"}, {"ef": "e"}],
        "text": [{"ab": "a", "cd": "c"}, {"ef": "d"}],  # LazyMap: the first
    },
}
#: key type -> the table's map column
MAP_TYPE = {
    "int": "map<int,string>",
    "varchar": "map<varchar(2),string>",
    "string": "map<string,string>",
}


def _int_keys(b: HiveTableBuilder) -> None:
    strings = [[("1", "a"), ("01", "b"), ("2", "c")], [("3", "d")]]
    b.add_partition(["orc"], {"000000_0": pa.table({"i": IDS, "m": pa.array(strings, STRINGS)})},
                    columns=[("i", "int"), ("m", "map<string,string>")])  # fmt: skip
    doubles = pa.array([[(1.2, "a"), (1.7, "b"), (2.0, "c")], [(3.0, "d")]],
                       pa.map_(pa.float64(), pa.string()))  # fmt: skip
    b.add_partition(["orcdouble"], {"000000_0": pa.table({"i": IDS, "m": doubles})},
                    columns=[("i", "int"), ("m", "map<double,string>")])  # fmt: skip
    text = "0\x011\x03a\x0201\x03b\x022\x03c\n1\x013\x03d\n"
    b.add_partition(["text"], {"000000_0": text.encode()}, fmt="text",
                    columns=[("i", "int"), ("m", "map<string,string>")])  # fmt: skip
    text = "0\x011\x03a\x0201\x03b\x02x\x03e\n1\x013\x03d\n"  # 'x' reads NULL: dropped
    b.add_partition(["textint"], {"000000_0": text.encode()}, fmt="text", columns=TABLE)
    repeated = pa.array([[(1, "a"), (2, "c"), (1, "b")], [(3, "d"), (3, "e")]],
                        pa.map_(pa.int32(), pa.string()))  # fmt: skip
    for fmt in ("orc", "parquet"):
        b.add_partition([f"{fmt}repeat"], {"000000_0": pa.table({"i": IDS, "m": repeated})},
                        fmt=fmt)  # fmt: skip


def _string_keys(b: HiveTableBuilder) -> None:
    repeated = pa.array([[("ab", "a"), ("cd", "c"), ("ab", "b")], [("ef", "d"), ("ef", "e")]],
                        STRINGS)  # fmt: skip
    for fmt in ("orc", "parquet"):
        b.add_partition([fmt], {"000000_0": pa.table({"i": IDS, "m": repeated})}, fmt=fmt)
    text = "0\x01ab\x03a\x02cd\x03c\x02ab\x03b\n1\x01ef\x03d\x02ef\x03e\n"
    b.add_partition(["text"], {"000000_0": text.encode()}, fmt="text")


def _varchar_keys(b: HiveTableBuilder) -> None:
    strings = [[("ab", "a"), ("abc", "b"), ("cd", "c")], [("ef", "d")]]
    declared = [("i", "int"), ("m", "map<string,string>")]
    b.add_partition(["orc"], {"000000_0": pa.table({"i": IDS, "m": pa.array(strings, STRINGS)})},
                    columns=declared)  # fmt: skip
    text = "0\x01ab\x03a\x02abc\x03b\x02cd\x03c\n1\x01ef\x03d\n"
    b.add_partition(["text"], {"000000_0": text.encode()}, fmt="text", columns=declared)
    b.add_partition(["textvarchar"], {"000000_0": text.encode()}, fmt="text")


def build_map_keys_table(client: MetastoreClient, tables_root: Path, keys: str) -> str:
    """A table whose map keys collide once read or repeat in its files (``SHOWN[keys]``); its
    qualified name."""
    table = [("i", "int"), ("m", MAP_TYPE[keys])]
    b = HiveTableBuilder(client, tables_root, "mapkeys", unique_name(keys[0]), table)
    {"int": _int_keys, "varchar": _varchar_keys, "string": _string_keys}[keys](b)
    return f"{b.db}.{b.name}"


@pytest.mark.parametrize(
    ("fmt", "keys"),
    [("iceberg", "int"), ("delta", "int"), ("hudi", "varchar"), ("hudi", "string")],
)
def test_colliding_map_keys_keep_the_value_hive_shows(
    fmt: str,
    keys: str,
    client: MetastoreClient,
    tables_root: Path,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    source, shown = build_map_keys_table(client, tables_root, keys), SHOWN[keys]
    target = f"{source}_{fmt}"
    journal_path = lakeshift_home / f"map-keys-{fmt}.sqlite"
    result, reports = both_levels(spark, client, settings, journal_path, source, target, fmt)
    assert result.ok and len(result.backfilled) == len(shown), result.failed
    for level, report in reports.items():
        statuses = {p.partition: p.status for p in report.partitions}
        assert statuses == {f"dt={name}": EQUAL for name in shown}, (level, report.partitions)
    # entries as the target holds them (a dict would hide a key held twice)
    rows = {(r["dt"], r["i"]): sorted(r["m"]) for r in read_lake(client, target).to_pylist()}
    assert rows == {(dt, i): sorted(maps[i].items()) for dt, maps in shown.items() for i in (0, 1)}


def test_a_map_key_that_reads_null_is_refused_by_name(
    client: MetastoreClient,
    tables_root: Path,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    b = HiveTableBuilder(client, tables_root, "mapkeys", unique_name("n"), TABLE)
    nulls = pa.array([[("7", "a")], [("x", "e")]], STRINGS)
    b.add_partition(["orc"], {"000000_0": pa.table({"i": IDS, "m": nulls})},
                    columns=[("i", "int"), ("m", "map<string,string>")])  # fmt: skip
    source = f"{b.db}.{b.name}"
    result, report = migrate_and_validate(
        spark, client, settings, lakeshift_home / "map-null.sqlite", source, f"{source}_ice",
        "iceberg", level="checksum",
    )  # fmt: skip
    assert not result.backfilled and list(result.failed) == ["dt=orc"], result.failed
    reason = result.failed["dt=orc"]
    assert "partition dt=orc column m: a map key of type string reads as NULL" in reason, reason
    assert "cannot hold" in reason, reason
    # nothing was committed: validate says the partition is not there yet
    (partition,) = report.partitions
    assert partition.status == MISSING and not report.ok, partition


def test_keys_repeated_in_nested_maps_keep_the_last_entry_in_both_readers(
    client: MetastoreClient, tables_root: Path, settings: Settings, spark: Any
) -> None:
    """Maps inside structs, arrays and other maps' values are Java maps in Hive too
    (``nextValue`` -> ``nextStruct``/``nextList`` -> ``nextMap``): each repeated key keeps its
    last entry, and an entry dropped takes its own value's map with it."""
    nested = "struct<l:array<map<int,string>>,m:map<string,map<int,string>>>"
    inner = pa.map_(pa.int32(), pa.string())
    kind = pa.struct([("l", pa.list_(inner)), ("m", pa.map_(pa.string(), inner))])
    values = [
        {"l": [[(1, "a"), (1, "b")], [(2, "c")]], "m": [("x", [(5, "p")]), ("x", [(6, "r")])]},
        {"l": None, "m": [("y", [(5, "p"), (5, "q")])]},
        None,
    ]
    data = pa.table({"i": pa.array([0, 1, 2], pa.int32()), "n": pa.array(values, kind)})
    b = HiveTableBuilder(client, tables_root, "mapkeys", unique_name("nest"),
                         [("i", "int"), ("n", nested)])  # fmt: skip
    for fmt in ("orc", "parquet"):
        b.add_partition([fmt], {"000000_0": data}, fmt=fmt)
    shown = [
        '{"l":[{"1":"b"},{"2":"c"}],"m":{"x":{"6":"r"}}}',
        '{"m":{"y":{"5":"q"}}}',  # to_json leaves a NULL field out
        None,
    ]
    frames = both_readers(spark, client, f"{b.db}.{b.name}", settings)
    for reader, frame in frames.items():
        rows = frame.selectExpr("dt", "i", "to_json(n) AS n").collect()
        read = {(r["dt"], r["i"]): r["n"] for r in rows}
        assert read == {(dt, i): shown[i] for dt in ("orc", "parquet") for i in range(3)}, reader
