"""Parquet partitions whose file, declared and table types differ, against Hive 2.3.9
(``make differential``, not in ``make test``).

Hive's Parquet reader builds each value for the table's type and the partition's declared type
then reads it (``lakeshift.hive.parquet_reading``): for every pair of primitive types,
and for files that hold another type than the partition declares (a ``CASCADE`` after the file
was written), the partitions Hive refuses are exactly those lakeshift refuses, and the rows of
the others are what Hive shows.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy
import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_oracle import hive_answers
from tests.helpers.hive_tables import HiveTableBuilder, alone_partition, unique_name
from tests.helpers.readers import both_readers
from tests.integration.test_orc_conversions import _same, _shown

pytestmark = [pytest.mark.differential, pytest.mark.slow]

#: a Parquet type as pyarrow writes it, and a value (int32 past float's 24 bits)
VALUES: dict[str, tuple[pa.DataType, Any]] = {
    "tinyint": (pa.int8(), 7),
    "smallint": (pa.int16(), 300),
    "int": (pa.int32(), 16777217),
    "bigint": (pa.int64(), 5000000001),
    "float": (pa.float32(), 1.5),
    "double": (pa.float64(), 2.25),
    "decimal(8,2)": (pa.decimal128(8, 2), Decimal("12.34")),
    "decimal(12,2)": (pa.decimal128(12, 2), Decimal("1234567.89")),
    "string": (pa.string(), "12"),
    "varchar(5)": (pa.string(), "abc"),
    "char(5)": (pa.string(), "ab"),
    "boolean": (pa.bool_(), True),
    "date": (pa.date32(), dt.date(2020, 1, 2)),
    "timestamp": (pa.timestamp("us"), dt.datetime(2020, 1, 2, 3, 4, 5)),
    "binary": (pa.binary(), b"xy"),
}
#: (the file's type, the partition's declared type): each type as itself, and files that
#: hold another type than declared
PAIRS = [(kind, kind) for kind in VALUES] + [
    ("int", "bigint"), ("int", "double"), ("int", "float"), ("int", "decimal(12,2)"),
    ("int", "string"), ("bigint", "int"), ("bigint", "double"), ("float", "double"),
    ("double", "float"), ("smallint", "int"), ("int", "smallint"),
]  # fmt: skip


def test_parquet_partitions_are_refused_and_read_as_hive_2_3_9_does(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    tables = []
    for table_type in VALUES:
        b = HiveTableBuilder(client, tables_root, "writables", unique_name("w"),
                             [("rid", "int"), ("x", table_type)])  # fmt: skip
        for number, (file_type, declared) in enumerate(PAIRS):
            arrow, value = VALUES[file_type]
            data = pa.table({"rid": pa.array([1], pa.int32()), "x": pa.array([value], arrow)})
            b.add_partition([f"p{number}"], {"000000_0": data},
                            columns=[("rid", "int"), ("x", declared)], fmt="parquet")  # fmt: skip
        tables.append((table_type, f"{b.db}.{b.name}"))
    queries = [
        (f"select x from {alone_partition(client, name, f'p{number}')}", {})
        for _, name in tables
        for number in range(len(PAIRS))
    ]
    answers = iter(hive_answers(metastore_uri, queries, allow_errors=True))
    chosen = replace(settings, hive_version="2.3")
    differ = []
    refused = 0
    for table_type, name in tables:
        held = {p.values[0] for p in inspect_table(client, name, chosen).partitions
                if not p.migratable}  # fmt: skip
        readers = both_readers(spark, client, name, chosen)
        rows = {r["dt"]: r["x"] for r in readers["spark"].collect()}
        independent = {r["dt"]: r["x"] for r in readers["independent"].collect()}
        for number, (file_type, declared) in enumerate(PAIRS):
            answer, partition = next(answers), f"p{number}"
            how = f"{file_type} file, declared {declared}, table {table_type}"
            if isinstance(answer, dict) or partition in held:
                refused += isinstance(answer, dict)
                if not (isinstance(answer, dict) and partition in held):
                    hive = (
                        answer["error"].split("\n")[1][:160] if isinstance(answer, dict) else answer
                    )
                    differ.append((how, "Hive", hive, "lakeshift refuses", partition in held))
                continue
            if table_type == "binary":
                continue  # Hive prints raw bytes
            shown = answer[0][0]
            if (file_type, table_type) == ("int", "double"):
                # Hive's reader builds an INT32 read as a double through a float
                # (DoubleWritable((float) value)): 16777217 shows 16777216.0
                assert float(shown) == float(numpy.float32(VALUES["int"][1])), how
            for reader, read in (("spark", rows), ("independent", independent)):
                mine = _shown(read[partition])
                if not _same(mine, shown, table_type):
                    differ.append((how, "Hive", shown, reader, mine))
    assert differ == [], "\n".join(map(str, differ))
    assert 0 < refused < len(queries)


def test_unsigned_parquet_integers_are_read_as_hive_2_3_9_does(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """``UINT_8`` .. ``UINT_64`` (pandas' ``uint*``, as pyarrow writes them), at every depth:
    Hive 2.3.9 takes the physical ``INT32``/``INT64`` signed (4294967295 shows -1), and
    lakeshift's two readers under 2.3 show each value as it does."""
    u32, u64 = 2**32 - 1, 2**64 - 1
    columns = [
        ("rid", "int"), ("c", "int"), ("d", "bigint"), ("t", "tinyint"), ("w", "int"),
        ("s", "struct<x:int,y:bigint>"), ("l", "array<int>"), ("m", "map<int,bigint>"),
        ("b", "bigint"),
    ]  # fmt: skip
    b = HiveTableBuilder(client, tables_root, "writables", unique_name("u"), columns)
    struct = pa.struct([("x", pa.uint32()), ("y", pa.uint64())])
    data = pa.table({
        "rid": pa.array([0, 1, 2], pa.int32()),
        "c": pa.array([u32, 2**31, None], pa.uint32()),
        "d": pa.array([u64, 2**63, None], pa.uint64()),
        "t": pa.array([200, 255, None], pa.uint8()),
        "w": pa.array([65535, 40000, None], pa.uint16()),
        "s": pa.array([{"x": u32, "y": u64}, {"x": 1, "y": 2}, None], struct),
        "l": pa.array([[u32], [3, 1], None], pa.list_(pa.uint32())),  # no stale tails
        "m": pa.array([[(u32, u64)], [(1, 2)], None], pa.map_(pa.uint32(), pa.uint64())),
        "b": pa.array([u32, 9, None], pa.uint32()),
    })  # fmt: skip
    b.add_partition(["u"], {"000000_0": data}, fmt="parquet")
    name = f"{b.db}.{b.name}"
    names = [n for n, _ in columns]
    (hive,) = hive_answers(
        metastore_uri,
        [(f"select {', '.join(names)} from {alone_partition(client, name, 'u')}", {})],
    )
    expected = {int(row[0]): list(row) for row in hive}
    assert expected[0][1:3] == ["-1", "-1"]  # the signed physical value
    chosen = replace(settings, hive_version="2.3")
    for reader, frame in both_readers(spark, client, name, chosen).items():
        for row in frame.collect():
            values = row.asDict(recursive=True)
            mine = [_shown(values[n]) for n in names]
            if values["m"] is not None:  # Hive prints an int key bare
                mine[7] = "{" + ",".join(f"{k}:{_shown(v)}" for k, v in values["m"].items()) + "}"
            assert mine == expected[row["rid"]], (reader, row["rid"])


def test_decimals_stored_as_integers_fail_in_hive_2_3_9_as_lakeshift_refuses_them(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
) -> None:
    """Spark writes decimals of up to 18 digits as INT32/INT64: Hive 2.3.9 fails on every
    query that reads one (its converter takes a decimal only from binary), at any depth, and
    lakeshift refuses exactly those partitions; the same values stored as binary read."""
    import pyarrow.parquet as pq

    columns = [("rid", "int"), ("x", "decimal(8,2)"), ("y", "decimal(15,2)"),
               ("s", "struct<a:decimal(8,2)>"), ("l", "array<decimal(8,2)>")]  # fmt: skip
    b = HiveTableBuilder(client, tables_root, "writables", unique_name("d"), columns)
    value = Decimal("12.34")
    data = {
        "x": pa.array([value], pa.decimal128(8, 2)),
        "y": pa.array([value], pa.decimal128(15, 2)),
        "s": pa.array([{"a": value}], pa.struct([("a", pa.decimal128(8, 2))])),
        "l": pa.array([[value]], pa.list_(pa.decimal128(8, 2))),
    }
    for column, values in data.items():
        for stored in ("binary", "int"):
            table = pa.table({"rid": pa.array([1], pa.int32()), column: values})
            b.add_partition([f"{column}_{stored}"], {"000000_0": table}, fmt="parquet")
            path = b.partition_dir([f"{column}_{stored}"]) / "000000_0"
            pq.write_table(table, path, store_decimal_as_integer=stored == "int")
    name = f"{b.db}.{b.name}"
    partitions = [f"{c}_{s}" for c in data for s in ("binary", "int")]
    queries = [(f"select * from {alone_partition(client, name, p)}", {}) for p in partitions]
    answers = hive_answers(metastore_uri, queries, allow_errors=True)
    failed = {p for p, a in zip(partitions, answers) if isinstance(a, dict)}
    assert failed == {f"{c}_int" for c in data}
    assert all("ParquetDecodingException" in answers[partitions.index(p)]["error"] for p in failed)
    chosen = replace(settings, hive_version="2.3")
    held = {p.values[0] for p in inspect_table(client, name, chosen).partitions
            if not p.migratable}  # fmt: skip
    assert held == failed


def test_fixed_size_binaries_are_read_as_hive_2_3_9_reads_them(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """An unannotated ``FIXED_LEN_BYTE_ARRAY`` (pyarrow's fixed-size binary) is a binary to
    Hive's Parquet reader; a ``string`` column shows its bytes as text."""
    b = HiveTableBuilder(client, tables_root, "writables", unique_name("f"),
                         [("rid", "int"), ("x", "string")])  # fmt: skip
    data = pa.table({"rid": pa.array([1, 2, 3], pa.int32()),
                     "x": pa.array([b"abcd", None, b"wxyz"], pa.binary(4))})  # fmt: skip
    b.add_partition(["f"], {"000000_0": data}, fmt="parquet")
    name = f"{b.db}.{b.name}"
    alone = alone_partition(client, name, "f")
    (hive,) = hive_answers(metastore_uri, [(f"select rid, x from {alone}", {})])
    assert sorted(hive, key=lambda r: r[0]) == [["1", "abcd"], ["2", None], ["3", "wxyz"]]
    chosen = replace(settings, hive_version="2.3")
    for reader, frame in both_readers(spark, client, name, chosen).items():
        rows = sorted((str(r["rid"]), r["x"]) for r in frame.collect())
        assert rows == [("1", "abcd"), ("2", None), ("3", "wxyz")], reader


def test_pandas_columns_and_int96_nanoseconds_are_what_hive_2_3_9_shows(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """A pandas ``category``, ``timedelta64`` and ``period`` column (Arrow-only types in the
    footer's Arrow schema) are the string and ``INT64`` columns Hive reads; an ``INT96``
    timestamp's nanoseconds Hive shows, and lakeshift holds to the microsecond (flagged:
    tests/integration/test_timestamp_precision.py)."""
    import io

    import pandas as pd
    import pyarrow.parquet as pq

    b = HiveTableBuilder(client, tables_root, "writables", unique_name("p"),
                         [("rid", "int"), ("c", "string"), ("d", "bigint"), ("per", "bigint"),
                          ("t", "timestamp")])  # fmt: skip
    frame = pd.DataFrame({
        "rid": pd.array([1, 2], "int32"), "c": pd.Categorical(["red", None]),
        "d": pd.to_timedelta([90, None], unit="s"),
        "per": pd.PeriodIndex(["2020-01", None], freq="M"),
        "t": pd.to_datetime(["2020-09-13 12:26:40.123456789", None]),
    })  # fmt: skip
    data = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), data,
                   use_deprecated_int96_timestamps=True)  # fmt: skip
    b.add_partition(["p"], {"000000_0": data.getvalue()}, fmt="parquet")
    name = f"{b.db}.{b.name}"
    alone = alone_partition(client, name, "p")
    (hive,) = hive_answers(metastore_uri, [(f"select rid, c, d, per, t from {alone}", {})])
    assert sorted(hive, key=lambda r: r[0]) == [
        ["1", "red", "90000000000", "600", "2020-09-13 12:26:40.123456789"],
        ["2", None, None, None, None],
    ]
    chosen = replace(settings, hive_version="2.3")
    for reader, rows in both_readers(spark, client, name, chosen).items():
        shown = sorted(tuple(r) for r in rows.select("rid", "c", "d", "per", "t").collect())
        assert shown == [
            (1, "red", 90_000_000_000, 600, dt.datetime(2020, 9, 13, 12, 26, 40, 123456)),
            (2, None, None, None, None),
        ], reader
