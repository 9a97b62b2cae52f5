"""Parquet files whose writer kept an Arrow schema in the footer (``ARROW:schema``: pyarrow,
pandas): pyarrow gives back Arrow-only types from it, a dictionary for pandas' ``category``, a
duration for ``timedelta64``, a fixed-size list, a string view, pandas' extension types
(``period``, ``interval``). Hive and Spark read the
Parquet column itself (a ``BYTE_ARRAY`` string, an unannotated ``INT64``, a ``LIST``), so
such files migrate as those columns, in every format, instead of being skipped as corrupt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import both_levels
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow

COLUMNS = [
    ("rid", "int"),
    ("c", "string"),
    ("d", "bigint"),
    ("l", "array<int>"),
    ("s", "struct<v:string,k:string>"),
    ("per", "bigint"),
    ("iv", "struct<left:double,right:double>"),  # (a missing interval makes pandas' bounds float)
]
#: what Hive shows of each row: the stored columns' values
ROWS = {
    # 90 s in nanoseconds; 2020-01 as months since 1970-01
    1: ("red", 90_000_000_000, [1, 2], {"v": "x", "k": "red"}, 600, {"left": 0.0, "right": 1.0}),
    2: (None, None, None, None, None, None),
    3: ("blue", -1, [3, None], {"v": None, "k": "blue"}, 602, {"left": 2.0, "right": 3.0}),
}


@pytest.fixture(scope="module")
def arrow_typed(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(client, tables_root, "arrowtypes", unique_name("t"), COLUMNS)
    frame = pd.DataFrame({
        "rid": pd.array([1, 2, 3], "int32"),
        "c": pd.Categorical(["red", None, "blue"]),
        "d": pd.to_timedelta([90, None, -1e-9], unit="s"),
        "per": pd.PeriodIndex(["2020-01", None, "2020-03"], freq="M"),
        "iv": pd.arrays.IntervalArray.from_tuples([(0, 1), None, (2, 3)]),
    })  # fmt: skip
    table = pa.Table.from_pandas(frame, preserve_index=False)
    keys = pa.array(["red", None, "blue"]).dictionary_encode()
    views = pa.array(["x", None, None], pa.string_view())
    struct = pa.StructArray.from_arrays([views, keys], names=["v", "k"], mask=pa.array(
        [False, True, False]))  # fmt: skip
    table = table.append_column("l", pa.array([[1, 2], None, [3, None]], pa.list_(pa.int32(), 2)))
    table = table.append_column("s", struct).select([name for name, _ in COLUMNS])
    b.add_partition(["p"], {"000000_0": table}, fmt="parquet")
    return f"{b.db}.{b.name}"


def test_the_files_read_as_their_parquet_columns(
    arrow_typed: str, client: MetastoreClient, settings: Settings, spark: Any
) -> None:
    inventory = inspect_table(client, arrow_typed, settings)
    (partition,) = inventory.partitions
    assert partition.migratable, partition.anomalies
    (file,) = partition.files
    assert [(c.name, c.type) for c in file.columns] == COLUMNS
    for name, frame in both_readers(spark, client, arrow_typed, settings).items():
        rows = {r["rid"]: _row(r.asDict(recursive=True)) for r in frame.collect()}
        assert rows == ROWS, name


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_they_migrate_into_every_format_and_validate(
    fmt: str,
    arrow_typed: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    target = f"{arrow_typed}_{fmt}"
    journal = lakeshift_home / f"arrowtypes-{fmt}.sqlite"
    result, reports = both_levels(spark, client, settings, journal, arrow_typed, target, fmt)
    assert result.backfilled == ["dt=p"]
    for level, report in reports.items():
        assert [(p.partition, p.status) for p in report.partitions] == [("dt=p", EQUAL)], level
    assert {r["rid"]: _row(r) for r in read_lake(client, target).to_pylist()} == ROWS


def _row(row: dict[str, Any]) -> tuple[Any, ...]:
    return row["c"], row["d"], row["l"], row["s"], row["per"], row["iv"]
