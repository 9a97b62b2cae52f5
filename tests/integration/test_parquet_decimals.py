"""Parquet decimals stored as ``INT32``/``INT64``, as Spark writes those of up to 18 digits:
Hive 1.2-3.1's Parquet reader builds a decimal only from binary and fails on them (Hive 2.3.9
itself: ``tests/differential/test_parquet_writables.py``), so lakeshift refuses the partition
under those versions; Hive 4.0.1 reads them, except at another scale than the table's (it
takes the stored integer at the table's scale) and for a text table
(``parquet_reading._integer_decimal``). Under Hive 4 both readers show the values, and the
migration into every format is read back by each format's own reader.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL, NOT_MIGRATED
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import migrate_and_validate
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow

TABLE = [("rid", "int"), ("x", "decimal(8,2)"), ("y", "decimal(15,2)"),
         ("s", "struct<a:decimal(8,2)>"), ("z", "decimal(10,3)")]  # fmt: skip
X = [Decimal("12.34"), Decimal("-1.50"), None]
Y = [Decimal("1234567890123.45"), None, Decimal("0.01")]


def _data(**more: pa.Array) -> pa.Table:
    return pa.table({
        "rid": pa.array([0, 1, 2], pa.int32()),
        "x": pa.array(X, pa.decimal128(8, 2)),
        "y": pa.array(Y, pa.decimal128(15, 2)),
        "s": pa.array([{"a": x} for x in X], pa.struct([("a", pa.decimal128(8, 2))])),
        **more,
    })  # fmt: skip


@pytest.fixture(scope="module")
def decimals_table(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(client, tables_root, "pqdecimals", unique_name("d"), TABLE)
    b.add_partition(["binary"], {"000000_0": _data()}, fmt="parquet")
    b.add_partition(["ints"], {"000000_0": _data()}, fmt="parquet")
    # z stored with two digits after the point, which the table (and partition) read with three
    scaled = _data(z=pa.array(X, pa.decimal128(8, 2)))
    b.add_partition(["scaled"], {"000000_0": scaled}, fmt="parquet")
    for part, data in (("ints", _data()), ("scaled", scaled)):  # as Spark writes them
        pq.write_table(data, b.partition_dir([part]) / "000000_0", store_decimal_as_integer=True)
    return f"{b.db}.{b.name}"


REFUSED = {"1.2": {"ints", "scaled"}, "2.3": {"ints", "scaled"}, "3.1": {"ints", "scaled"},
           "4": {"scaled"}}  # fmt: skip


def _values(rows: list[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for row in sorted(rows, key=lambda r: (r["dt"], r["rid"])):
        struct = row["s"]
        a = None if struct is None else struct["a"]
        out.setdefault(row["dt"], []).append((row["x"], row["y"], a, row["z"]))
    return out


SHOWN = list(zip(X, Y, X, [None] * 3))


@pytest.mark.parametrize("version", ["1.2", "2.3", "3.1", "4"])
def test_integer_stored_decimals_are_refused_where_hive_cannot_show_them(
    version: str, decimals_table: str, client: MetastoreClient, settings: Settings, spark: Any
) -> None:
    chosen = replace(settings, hive_version=version)
    inventory = inspect_table(client, decimals_table, chosen)
    refused = {p.values[0]: p for p in inventory.partitions if not p.migratable}
    assert set(refused) == REFUSED[version], version
    messages = " ".join(a.message for a in refused["scaled"].anomalies)
    failure = "table's scale" if version == "4" else "ParquetDecodingException"
    assert failure in messages and "stored as an integer" in messages, messages
    shown = {"binary": SHOWN, **({"ints": SHOWN} if version == "4" else {})}
    for name, frame in both_readers(spark, client, decimals_table, chosen).items():
        assert _values(frame.collect()) == shown, (version, name)


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_hive_4_migrates_them_into_every_format(
    fmt: str,
    decimals_table: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    chosen = replace(settings, hive_version="4")
    target = f"{decimals_table}_{fmt}"
    result, report = migrate_and_validate(
        spark, client, chosen, lakeshift_home / f"pqdecimals-{fmt}.sqlite", decimals_table,
        target, fmt,
    )  # fmt: skip
    assert sorted(result.backfilled) == ["dt=binary", "dt=ints"], result
    assert {p.partition: p.status for p in report.partitions} == {
        "dt=binary": EQUAL, "dt=ints": EQUAL, "dt=scaled": NOT_MIGRATED,
    }  # fmt: skip
    assert _values(read_lake(client, target).to_pylist()) == {"binary": SHOWN, "ints": SHOWN}
