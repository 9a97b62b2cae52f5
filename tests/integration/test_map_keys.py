"""Map keys that the table reads as another type: where two keys become one ('1' and '01' as
int, 1.2 and 1.7 as int) a map keeps one entry as Hive shows it, in every format, and both
validation levels prove it; a key that becomes NULL is refused with a clear message.

What Hive shows was asked of Hive 2.3.9 itself (``tests/helpers/hive_oracle.py``, on these
files; ``make differential`` asks it again): ORC's schema evolution (``RecordReaderImpl.nextMap``)
and Hive's converter from a partition's declared map (``ObjectInspectorConverters.MapConverter``)
put each entry into a Java map, so a repeated key keeps its last value and a NULL key stays
(``{null:"e"}``); a text file's own map (``LazyMap.getMap``) keeps a repeated key's first value
and drops a key that reads NULL.
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
    },
    "varchar": {
        "orc": [{"ab": "b", "cd": "c"}, {"ef": "d"}],  # 'abc' read as varchar(2) is 'ab'
        "text": [{"ab": "b", "cd": "c"}, {"ef": "d"}],
        "textvarchar": [{"ab": "a", "cd": "c"}, {"ef": "d"}],
    },
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


def _varchar_keys(b: HiveTableBuilder) -> None:
    strings = [[("ab", "a"), ("abc", "b"), ("cd", "c")], [("ef", "d")]]
    declared = [("i", "int"), ("m", "map<string,string>")]
    b.add_partition(["orc"], {"000000_0": pa.table({"i": IDS, "m": pa.array(strings, STRINGS)})},
                    columns=declared)  # fmt: skip
    text = "0\x01ab\x03a\x02abc\x03b\x02cd\x03c\n1\x01ef\x03d\n"
    b.add_partition(["text"], {"000000_0": text.encode()}, fmt="text", columns=declared)
    b.add_partition(["textvarchar"], {"000000_0": text.encode()}, fmt="text")


def build_map_keys_table(client: MetastoreClient, tables_root: Path, keys: str) -> str:
    """A table whose map keys collide once read (``SHOWN[keys]``); its qualified name."""
    table = TABLE if keys == "int" else [("i", "int"), ("m", "map<varchar(2),string>")]
    b = HiveTableBuilder(client, tables_root, "mapkeys", unique_name(keys[0]), table)
    (_int_keys if keys == "int" else _varchar_keys)(b)
    return f"{b.db}.{b.name}"


@pytest.mark.parametrize(
    ("fmt", "keys"), [("iceberg", "int"), ("delta", "int"), ("hudi", "varchar")]
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
    rows = {(r["dt"], r["i"]): dict(r["m"]) for r in read_lake(client, target).to_pylist()}
    assert rows == {(dt, i): maps[i] for dt, maps in shown.items() for i in (0, 1)}


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
