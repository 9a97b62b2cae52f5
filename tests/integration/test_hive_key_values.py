"""Partition key values as Hive shows them: Hive 2.3.9's own converters (``hive_oracle``) are
the expectation for ``typed_value``'s every rule, and odd values migrate, validate and read back
in every format as Hive shows them."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.hive.partition_values import typed_value
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.independent.java_float_text import java_float_text
from lakeshift.validate.model import EQUAL
from tests.helpers.hive_oracle import hive_answers
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import migrate_and_validate

pytestmark = pytest.mark.slow

TYPES = [
    "tinyint", "smallint", "int", "bigint", "boolean", "float", "double", "decimal(4,2)",
    "date", "timestamp", "string", "char(3)", "varchar(2)",
]  # fmt: skip
TEXTS = [
    " 5", "05", "+5", "-0", "5.0", "5.7", "128", "-129", "2147483648", "9223372036854775808",
    "20200101", "1e2", "abc", "  ", "yes", "no", "TRUE", "off", "0", "1", "1.005", "-1.005",
    "1.004", "123.4", "99.999", "0x10", "0x1p3", "NaN", "Infinity", "-Infinity", "1.5e308",
    "3.4028236e38", "5d", "2020-01-01", " 2020-01-01 ", "2020-1-1", "2020-01-01 10:00:00",
    "2020-01-01T10:00:00", "2020-01-01 10:00:00.123456", "2020-01-01 25:61:00", "1582-10-10",
    "1000-03-01", "2020-02-30", "2020-13-01", "0000-01-01", "abcd", "ab ", "\t1.5",
    "\u0661\u0665", "1e-100", "1E-002",
]  # fmt: skip


def _hive_text(value: Any, hive_type: str) -> str | None:
    """``typed_value``'s result as Hive prints the key."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return java_float_text(value, hive_type == "float")
    if isinstance(value, dt.datetime):
        text = value.isoformat(sep=" ")
        return text.rstrip("0") if "." in text else text
    if hive_type.startswith("decimal") and float(value) == 0:
        return format(abs(value), "f")
    return str(value)


@pytest.fixture(scope="module")
def typed_tables(client: MetastoreClient, tables_root: Path) -> dict[str, str]:
    """One table per key type, one partition per text (the metastore holds any text)."""
    tables = {}
    for hive_type in TYPES:
        b = HiveTableBuilder(
            client,
            tables_root,
            "keys",
            unique_name("k"),
            [("i", "int")],
            partition_keys=[("k", hive_type)],
        )
        for index, text in enumerate(TEXTS):
            b.add_partition([text], {"f.orc": pa.table({"i": pa.array([index], pa.int32())})})
        tables[hive_type] = f"{b.db}.{b.name}"
    return tables


def test_key_values_are_what_hive_2_3_shows(
    typed_tables: dict[str, str], metastore_uri: str
) -> None:
    answers = hive_answers(
        metastore_uri, [(f"select i, k from {t}", {}) for t in typed_tables.values()]
    )
    differ = []
    for hive_type, rows in zip(typed_tables, answers, strict=True):
        assert len(rows) == len(TEXTS), hive_type
        for index, *parts in rows:  # Hive prints a key's own tab as it is
            shown = None if parts == [None] else "\t".join(parts)  # type: ignore[arg-type]
            text = TEXTS[int(index or 0)]
            value = typed_value(text, hive_type, "2.3")
            # floats compared as Hive prints them (Float.toString: 2.14748365E9)
            mine = _hive_text(value, hive_type)
            if mine != shown:
                differ.append((hive_type, text, shown, mine))
    assert differ == []


def test_hive_3_reads_booleans_by_hive_15939() -> None:
    shown = {t: typed_value(t, "boolean", "3.1") for t in ("false", "OFF", "No", "0", "x", "1")}
    assert shown == {"false": False, "OFF": False, "No": False, "0": False, "x": True, "1": True}
    assert typed_value("no", "boolean", "2.3") is True  # before HIVE-15939: non-empty is true
    assert typed_value("1582-10-10", "date", "3.1") == dt.date(1582, 10, 10)  # proleptic
    assert typed_value("1582-10-10", "date", "2.3") == dt.date(1582, 10, 20)  # hybrid, lenient


ODD_STRINGS = ["a b", "x%y", "p+q", "c#d", "e?f", "ü", "a:b", "k=v", "t\\u", "q'r", "s/t"]


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_odd_key_values_migrate_and_validate(
    fmt: str,
    client: MetastoreClient,
    tables_root: Path,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    b = HiveTableBuilder(
        client,
        tables_root,
        "keys",
        unique_name("odd"),
        [("i", "int")],
        partition_keys=[("s", "string"), ("n", "int"), ("d", "date")],
    )
    values = [
        [text, number, day]
        for text, number, day in zip(
            ODD_STRINGS,
            ["+7", "08", "9", "abc", "10", "11", "12", "13", "14", "15", "16"],
            ["2020-02-30", "2020-1-5", " 2020-01-06", "2020-01-07 10:00:00", *["2020-01-08"] * 7],
            strict=True,
        )
    ]
    for index, spec in enumerate(values):
        b.add_partition(spec, {"f.orc": pa.table({"i": pa.array([index], pa.int32())})})
    source = f"{b.db}.{b.name}"
    target = f"{source}_{fmt}"
    result, report = migrate_and_validate(
        spark, client, settings, lakeshift_home / f"odd-{fmt}.sqlite", source, target, fmt
    )
    assert len(result.backfilled) == len(values) and not result.failed, result
    assert {p.status for p in report.partitions} == {EQUAL}, [
        (p.partition, p.detail) for p in report.partitions if p.status != EQUAL
    ]
    rows = {r["i"]: r for r in read_lake(client, target).to_pylist()}
    for index, (text, number, day) in enumerate(values):
        row = rows[index]
        assert row["s"] == text
        assert row["n"] == typed_value(number, "int", "3.1")
        assert row["d"] == typed_value(day, "date", "3.1")
    assert rows[0]["d"] == dt.date(2020, 3, 1) and rows[3]["n"] is None
