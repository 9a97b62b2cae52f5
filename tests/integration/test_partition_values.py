"""``canonical_value`` restates Spark's CAST of a partition value's text (what the backfill writes):
checked against Spark's own CAST on the forms metastores hold (years before 1 or past 9999,
which Spark casts and Python's dates cannot hold, are outside Hive's range and left out)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from lakeshift.hive.partition_values import canonical_value, comparable, typed_value
from lakeshift.hive.spark_sql import spark_type
from lakeshift.hive.types import parse_hive_type

pytestmark = pytest.mark.slow

SPACES = ["", " ", "  \t", "\n"]
TEXTS = {
    "boolean": [
        "true",
        "TRUE",
        "False",
        "t",
        "F",
        "yes",
        "No",
        "y",
        "1",
        "0",
        "2",
        "on",
        "off",
        " true ",
        "",
        "truth",
        "-1",
    ],
    "tinyint": [
        "0",
        "7",
        "007",
        "+12",
        "-128",
        "127",
        "128",
        "-129",
        "1.9",
        "-1.9",
        "1.",
        ".5",
        " 42 ",
        "4 2",
        "1e2",
        "0x10",
        "",
        "-",
        "+",
        "١٢",
    ],
    "smallint": ["32767", "32768", "-32768", "-0042", "300.99"],
    "int": [
        "2147483647",
        "2147483648",
        "-2147483648",
        "-2147483649",
        "00000000000000000001",
        "12abc",
        "1,000",
        "\t7\n",
    ],
    "bigint": [
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "0.0",
        "-0",
        "1.5e3",
        "9223372036854775807.9",
    ],
    "decimal(5,2)": [
        "1.5",
        "1.50",
        "1.505",
        "-003.125",
        "+2",
        "1E1",
        "1e-1",
        "999.99",
        "999.995",
        "1000",
        " 4.25 ",
        ".5",
        "5.",
        "-.5",
        "abc",
        "1,5",
        "0E-10",
        "1e400",
        "NaN",
        "Infinity",
    ],
    "decimal(10,0)": ["2.5", "-2.5", "1234567890", "12345678901", "0.4999"],
    "double": [
        "1.5",
        "-0.0",
        "1e308",
        "1e309",
        "inf",
        "-Infinity",
        "NaN",
        "nan",
        "1d",
        "2f",
        " 3.25 ",
        "0x1p3",
        "abc",
        ".5",
        "5.",
    ],
    "float": ["1.1", "3.4028235e38", "1e39"],
    "date": [
        "2024-01-05",
        "2024-1-5",
        "2024",
        "2024-02",
        "2024-02-30",
        "0999-12-31",
        "9999-12-31",
        "2024-01-05 10:00:00",
        "2024-01-05T10:00",
        "2024/01/05",
        " 2024-01-05 ",
        "20240105",
        "+2024-01-05",
        "",
    ],
    "timestamp": [
        "2024-01-05 10:00:00",
        "2024-01-05T10:00:00",
        "2024-01-05 10:00",
        "2024-01-05 10",
        "2024-01-05",
        "2024-01",
        "2024",
        "1999-12-31 23:59:59.5",
        "1999-12-31 23:59:59.1234567",
        "2024-01-05 24:00:00",
        "2024-01-05 10:60:00",
        "2024-01-05 10:00:00Z",
        "2024-01-05 10:00:00+02:00",
        "2024-01-05 10:00:00 UTC",
        "9999-12-31 23:59:59.999999",
        "0001-01-01 00:00:00",
        " 2024-01-05 10:00:00 ",
        "2024-01-05 1:2:3",
        "x",
    ],
    "string": ["", " a ", "ä/%=?", "__HIVE_DEFAULT_PARTITION__"],
}


def _same(ours: Any, spark: Any) -> bool:
    if isinstance(ours, float) and isinstance(spark, float) and math.isnan(ours):
        return math.isnan(spark)
    return ours == spark and type(ours) is type(spark)


@pytest.mark.parametrize("hive_type", list(TEXTS))
def test_canonical_value_is_sparks_cast(spark: Any, hive_type: str) -> None:
    texts = TEXTS[hive_type] + [f"{s}1{s}" for s in SPACES[1:]]
    frame = spark.createDataFrame([(t,) for t in texts], "v STRING")
    cast = spark_type(parse_hive_type(hive_type))
    found = [r[0] for r in frame.selectExpr(f"CAST(v AS {cast})").collect()]
    wrong = [
        (text, canonical_value(text, hive_type), by_spark)
        for text, by_spark in zip(texts, found)
        if not _same(canonical_value(text, hive_type), by_spark)
    ]
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("hive_type", "source_text", "target_value"),
    [
        ("decimal(5,2)", "-003.125", "-3.13"),  # Delta's text
        ("int", "007", 7),  # Iceberg's typed value
        ("boolean", "TRUE", "true"),
        ("date", "2024-1-5", "2024-01-05"),
        ("timestamp", "1999-12-31 23:59:59.5", "1999-12-31 23:59:59.500000"),
    ],
)
def test_a_targets_value_compares_equal_to_the_source_text_it_came_from(
    hive_type: str, source_text: str, target_value: Any
) -> None:
    assert comparable(target_value, hive_type) == typed_value(source_text, hive_type, "3.1")
    assert typed_value(source_text, hive_type, "3.1") is not None
