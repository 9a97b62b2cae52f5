"""The Arrow path hands Iceberg its data files as Iceberg's own JSON: the files it describes
from the footers its tasks wrote are the very ``DataFile``s Java builds by reading the same
files (``ParquetUtil.fileMetrics``), metrics and bounds included, under every metrics mode;
and the partitions it writes as JSON are those Iceberg parses from the partition values' text."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeshift.formats.arrow_path import Written, arrow_type
from lakeshift.formats.iceberg_files import (
    java_data_files,
    java_partitions,
    metrics_plan,
    partition_json,
)
from lakeshift.formats.iceberg_java import Unboxable
from tests.helpers.hive_tables import unique_name
from tests.helpers.iceberg_partitions import parsed_partition

pytestmark = pytest.mark.slow

# (name, Hive type as the Iceberg target holds it, Spark DDL type, zoned)
COLUMNS = [
    ("id", "bigint", "BIGINT", False),
    ("small", "int", "INT", False),
    ("name", "string", "STRING", False),
    ("note", "string", "STRING", False),
    ("price", "decimal(9,2)", "DECIMAL(9,2)", False),
    ("wide", "decimal(38,10)", "DECIMAL(38,10)", False),
    ("ratio", "float", "FLOAT", False),
    ("score", "double", "DOUBLE", False),
    ("day", "date", "DATE", False),
    ("at", "timestamp", "TIMESTAMP_NTZ", False),
    ("seen", "timestamp", "TIMESTAMP", True),
    ("ok", "boolean", "BOOLEAN", False),
    ("blob", "binary", "BINARY", False),
    ("empty", "string", "STRING", False),
    ("p", "string", "STRING", False),
]


def _rows(count: int, shift: int) -> list[pa.Array]:
    ids = list(range(shift, shift + count))
    day0, at0 = dt.date(1969, 12, 25), dt.datetime(1969, 12, 31, 23, 59, 59, 999_999)
    return [
        pa.array(ids, pa.int64()),
        pa.array([i % 200 - 100 for i in ids], pa.int32()),
        # long and multi-byte strings: bounds truncated to 16 code points, the upper one
        # incremented; the last value cannot be incremented within its first 16 code points
        pa.array([None if i % 5 == 0 else f"name-{i:04d}-é-€-𝄞-and-more" for i in ids]),
        pa.array(["\U0010ffff" * 20 if i == ids[-1] else f"n{i}" for i in ids]),
        pa.array([Decimal(-i) / 100 for i in ids], pa.decimal128(9, 2)),
        pa.array([Decimal(i * 10**20) / 10**10 for i in ids], pa.decimal128(38, 10)),
        pa.array([float("nan") if i % 7 == 0 else i / 3 for i in ids], pa.float32()),
        pa.array([-0.0 if i % 2 else 0.0 for i in ids], pa.float64()),
        pa.array([day0 + dt.timedelta(days=i) for i in ids], pa.date32()),
        pa.array([at0 + dt.timedelta(microseconds=i) for i in ids], pa.timestamp("us")),
        pa.array([at0 + dt.timedelta(seconds=i) for i in ids], pa.timestamp("us", tz="UTC")),
        pa.array([i % 3 == 0 for i in ids]),
        pa.array([b"\xff" * 20 if i % 2 else bytes([i % 256, 0]) for i in ids], pa.binary()),
        pa.nulls(count, pa.string()),  # no value: no bounds, every value null
        pa.array(["p=a"] * count),
    ]


def _write(path: Path, field_ids: dict[str, int]) -> pq.FileMetaData:
    schema = pa.schema(
        [
            pa.field(
                name, arrow_type(hive, zoned), metadata={"PARQUET:field_id": str(field_ids[name])}
            )
            for name, hive, _, zoned in COLUMNS
        ]
    )
    arrays = _rows(300, -150)
    footers: list[pq.FileMetaData] = []
    pq.write_table(  # as the Arrow path's tasks write (several row groups)
        pa.Table.from_arrays(arrays, schema=schema),
        str(path),
        compression="zstd",
        row_group_size=100,
        metadata_collector=footers,
    )
    return footers[0]


@pytest.mark.parametrize(
    "properties",
    [
        {},
        {"write.metadata.metrics.default": "full"},
        {
            "write.metadata.metrics.default": "truncate(4)",
            "write.metadata.metrics.column.name": "counts",
            "write.metadata.metrics.column.blob": "none",
            "write.metadata.metrics.column.note": "full",
        },
        {"write.metadata.metrics.default": "none", "write.metadata.metrics.column.id": "full"},
    ],
    ids=["default", "full", "mixed", "none"],
)
def test_described_files_are_the_files_java_reads(
    spark: Any, tmp_path: Path, properties: dict[str, str]
) -> None:
    table_name = f"default.{unique_name('files')}"
    columns = ", ".join(f"{n} {ddl}" for n, _, ddl, _ in COLUMNS)
    props = ", ".join(f"'{k}' = '{v}'" for k, v in properties.items())
    spark.sql(
        f"CREATE TABLE {table_name} ({columns}) USING iceberg PARTITIONED BY (p)"
        + (f" TBLPROPERTIES ({props})" if props else "")
    )
    jvm = spark.sparkContext._jvm
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(
        spark._jsparkSession, table_name
    )
    ids = {str(f.name()): int(f.fieldId()) for f in table.schema().columns()}
    path = tmp_path / "file.parquet"
    footer = _write(path, ids)
    description = metrics_plan(jvm, table).describe(footer)
    assert description  # every column of the Arrow path's types is described here
    fields = [(int(f.fieldId()), str(f.type())) for f in table.spec().partitionType().fields()]
    as_json = {"p=a": partition_json(fields, ["string"], ["a"])}
    java_partition = dict(zip(as_json, java_partitions(jvm, table.spec(), list(as_json.values()))))
    size = path.stat().st_size
    ours, javas = (
        java_data_files(
            jvm, table, [Written(str(path), "p=a", 300, size, description=d)], as_json,
            java_partition,
        )[0]
        for d in (description, "")  # "" : Java reads the footer (ParquetUtil.fileMetrics)
    )  # fmt: skip
    parser = jvm.org.apache.iceberg.ContentFileParser
    ours_json, javas_json = (json.loads(str(parser.toJson(f, table.spec()))) for f in (ours, javas))
    assert ours_json == javas_json
    spark.sql(f"DROP TABLE {table_name}")


KEY_CASES = [
    ("boolean", "boolean", [True, False, None]),
    ("int", "int", [7, -300, 0, None]),
    ("bigint", "bigint", [9_000_000_000, -1, None]),
    ("float", "float", [1.5, -0.0, 3.4028234663852886e38, None]),
    ("double", "double", [0.1, -2.5e-300, None]),
    ("decimal(5,2)", "decimal(5,2)", [Decimal("1.50"), Decimal("-3.12"), Decimal("0.00"), None]),
    ("decimal(38,10)", "decimal(38,10)", [Decimal("1E-10"), Decimal("-12345678901234567.5"), None]),
    ("date", "date", [dt.date(2024, 1, 5), dt.date(999, 12, 31), dt.date(1, 1, 1), None]),
    (
        "timestamp",
        "timestamp",
        [dt.datetime(2024, 1, 5, 10), dt.datetime(1899, 12, 31, 23, 59, 59, 500_000), None],
    ),
    ("string", "string", ["a", "", "é/=%", None]),
]


@pytest.mark.parametrize("kind,ddl,values", KEY_CASES, ids=[c[0] for c in KEY_CASES])
def test_partitions_as_json_are_the_partitions_iceberg_parses(
    spark: Any, kind: str, ddl: str, values: list[Any]
) -> None:
    jvm = spark.sparkContext._jvm
    iceberg = jvm.org.apache.iceberg
    spark_type = {"timestamp": "TIMESTAMP_NTZ"}.get(ddl, ddl.upper())
    table_name = f"default.{unique_name('keys')}"
    spark.sql(f"CREATE TABLE {table_name} (x INT, k {spark_type}) USING iceberg PARTITIONED BY (k)")
    table = iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, table_name)
    spec = table.spec()
    fields = [(int(f.fieldId()), str(f.type())) for f in spec.partitionType().fields()]
    texts = [partition_json(fields, [kind], [v]) for v in values]
    for value, parsed in zip(values, java_partitions(jvm, spec, texts)):
        try:  # Iceberg's own parsing of the value's text (the path before JSON)
            expected = parsed_partition(iceberg, spec, [kind], [value])
        except Unboxable:
            continue  # a value py4j could not box: nothing to compare it with
        assert parsed.equals(expected), (value, str(spec.partitionToPath(parsed)))
        assert str(spec.partitionToPath(parsed)) == str(spec.partitionToPath(expected))
    spark.sql(f"DROP TABLE {table_name}")


def test_floats_json_cannot_hold_are_refused() -> None:
    for value in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(Unboxable):
            partition_json([(1000, "double")], ["double"], [value])
