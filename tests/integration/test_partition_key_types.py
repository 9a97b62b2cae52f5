"""Partition keys of every Hive type, with metastore values in and out of canonical form, are
written and proven without a false mismatch in every target format."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import migrate_and_validate

pytestmark = pytest.mark.slow

KEYS = [
    ("b", "boolean"),
    ("ti", "tinyint"),
    ("si", "smallint"),
    ("i", "int"),
    ("bi", "bigint"),
    ("dec", "decimal(5,2)"),
    ("d", "date"),
    ("ts", "timestamp"),
    ("s", "string"),
]
# Metastore values (as Hive's ALTER TABLE ADD PARTITION stores them: the text the user typed)
# and what Hive shows for each: every reader agrees on these forms.
PARTITIONS = [
    (
        ["true", "7", "-300", "42", "9000000000", "1.5", "2024-01-05", "2024-01-05 10:00:00", "a"],
        (
            True,
            7,
            -300,
            42,
            9000000000,
            Decimal("1.50"),
            dt.date(2024, 1, 5),
            dt.datetime(2024, 1, 5, 10),
            "a",
        ),
    ),
    (  # leading zeros, a plus sign, a scale longer and shorter than the type's
        [
            "false",
            "007",
            "+12",
            "-0042",
            "0",
            "-003.125",
            "0999-12-31",
            "1999-12-31 23:59:59.5",
            "x y",
        ],
        (
            False,
            7,
            12,
            -42,
            0,
            Decimal("-3.13"),
            dt.date(999, 12, 31),
            dt.datetime(1999, 12, 31, 23, 59, 59, 500000),
            "x y",
        ),
    ),
    (  # decimals in other spellings, the extreme values of the integer types
        [
            "TRUE",
            "-128",
            "32767",
            "-2147483648",
            "9223372036854775807",
            "999.99",
            "9999-12-31",
            "9999-12-31 23:59:59.999999",
            "ä/%=?",
        ],
        (
            True,
            -128,
            32767,
            -2147483648,
            9223372036854775807,
            Decimal("999.99"),
            dt.date(9999, 12, 31),
            dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
            "ä/%=?",
        ),
    ),
    (
        ["False", "0", "0", "0", "-1", "1E1", "2000-02-29", "2000-02-29 00:00:00", "0.0"],
        (
            False,
            0,
            0,
            0,
            -1,
            Decimal("10.00"),
            dt.date(2000, 2, 29),
            dt.datetime(2000, 2, 29),
            "0.0",
        ),
    ),
]


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_partition_keys_of_every_type_are_proven(
    fmt: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    b = HiveTableBuilder(
        client, tables_root, "keys", unique_name("t"), [("id", "int")], partition_keys=KEYS
    )
    for number, (values, _) in enumerate(PARTITIONS):
        b.add_partition(values, {"000000_0": pa.table({"id": pa.array([number], pa.int32())})})
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    result, report = migrate_and_validate(
        spark, client, settings, lakeshift_home / f"keys-{fmt}.sqlite", source, target, fmt
    )
    assert len(result.backfilled) == len(PARTITIONS) and not result.failed, result
    assert [p.status for p in report.partitions] == [EQUAL] * len(PARTITIONS), [
        (p.partition, p.detail) for p in report.partitions
    ]

    names = [name for name, _ in KEYS]
    rows = sorted(read_lake(client, target).to_pylist(), key=lambda r: r["id"])
    shown = [tuple(_plain(row[n]) for n in names) for row in rows]
    assert shown == [expected for _, expected in PARTITIONS]


def _plain(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)  # some readers say UTC; the value is wall clock
    return value
