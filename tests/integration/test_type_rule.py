"""One rule for type changes, shown the same way by inspect, migrate and validate; values that
Hive's conversions read as NULL or cut to a VARCHAR width are counted per partition and
column."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.model import EQUAL, NOT_MIGRATED
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow


def test_an_unreadable_file_type_refuses_its_partition_and_nulled_values_are_counted(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    b = HiveTableBuilder(
        client,
        tables_root,
        "type_rule",
        unique_name("t"),
        [("id", "int"), ("note", "varchar(2)")],
    )
    notes = pa.array(["a", "b"], pa.string())
    b.add_partition(
        ["0"], {"000000_0": pa.table({"id": pa.array([1, 2], pa.int32()), "note": notes})}
    )
    arrays = pa.array([[1], [2, 3]], pa.list_(pa.int32()))
    b.add_partition(["1"], {"000000_0": pa.table({"id": arrays, "note": notes})})
    texts = pa.array(["7", "abc"], pa.string())
    longer = pa.array(["abc", None], pa.string())  # 'abc' reads as 'ab'
    b.add_partition(["2"], {"000000_0": pa.table({"id": texts, "note": longer})})
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"

    inventory = inspect_table(client, source, settings)
    codes = {p.name: {a.code: a.severity for a in p.anomalies} for p in inventory.partitions}
    assert codes["dt=1"]["file-type-incompatible"] == "error"
    assert codes["dt=2"]["file-type-differs"] == "warning"

    journal = Journal(lakeshift_home / "type-rule-journal.sqlite")
    catalog = HiveCatalog("t", uri=metastore_uri)
    result = migrate(spark, client, catalog, settings, journal, source, MigrateOptions(target))
    assert sorted(result.backfilled) == ["dt=0", "dt=2"] and not result.failed
    assert result.refused["dt=1"].startswith("file-type-incompatible: ")
    assert "array<int> cannot be read as int" in result.refused["dt=1"]
    rows = spark.sql(f"SELECT id FROM {target} WHERE partitionpath = 'dt=2'").collect()
    assert sorted(rows, key=lambda r: (r.id is None, r.id)) == [(7,), (None,)]

    report = validate_table(spark, client, catalog, settings, journal, source, target)
    by_name = {p.partition: p for p in report.partitions}
    assert (
        by_name["dt=1"].status == NOT_MIGRATED
        and "file-type-incompatible" in by_name["dt=1"].detail
    )
    assert by_name["dt=2"].status == EQUAL and by_name["dt=2"].nulled == {"id": 1}
    assert "1 value(s) read as NULL" in by_name["dt=2"].detail
    assert by_name["dt=2"].truncated == {"note": 1}
    assert "1 value(s) cut to their VARCHAR/CHAR width" in by_name["dt=2"].detail
    assert by_name["dt=0"].nulled == {} and by_name["dt=0"].truncated == {} and not report.ok


def test_a_char_or_varchar_partition_column_under_a_boolean_table_column_is_refused(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    """Hive's converter reads a STRING partition column as a boolean, but has no case for CHAR
    or VARCHAR: ``PrimitiveObjectInspectorUtils.getBoolean`` (Hive 2.3.7 and 3.1.3) throws
    "unsupported conversion", so every query of such a partition fails in Hive, and lakeshift
    refuses it rather than invent values."""
    b = HiveTableBuilder(
        client,
        tables_root,
        "type_rule",
        unique_name("b"),
        [("id", "int"), ("flag", "boolean")],
    )
    lines = b"1\x01true\n2\x01false\n"
    b.add_partition(
        ["0"],
        {"000000_0": pa.table({"id": pa.array([1], pa.int32()), "flag": pa.array([True])})},
    )
    b.add_partition(["1"], {"000000_0": lines}, columns=[("id", "int"), ("flag", "varchar(5)")],
                    fmt="text")  # fmt: skip
    b.add_partition(["2"], {"000000_0": lines}, columns=[("id", "int"), ("flag", "char(5)")],
                    fmt="text")  # fmt: skip
    b.add_partition(["3"], {"000000_0": lines}, columns=[("id", "int"), ("flag", "string")],
                    fmt="text")  # fmt: skip
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_ice"

    inventory = inspect_table(client, source, settings)
    codes = {p.name: {a.code: a.severity for a in p.anomalies} for p in inventory.partitions}
    for name in ("dt=1", "dt=2"):
        assert codes[name]["partition-type-incompatible"] == "error"
    assert "partition-type-incompatible" not in codes["dt=3"]

    journal = Journal(lakeshift_home / "char-boolean-journal.sqlite")
    catalog = HiveCatalog("t", uri=metastore_uri)
    result = migrate(spark, client, catalog, settings, journal, source, MigrateOptions(target))
    assert sorted(result.backfilled) == ["dt=0", "dt=3"] and not result.failed
    assert sorted(result.refused) == ["dt=1", "dt=2"]
    assert "varchar(5)" in result.refused["dt=1"] and "char(5)" in result.refused["dt=2"]
    rows = spark.sql(f"SELECT id, flag FROM {target} WHERE partitionpath = 'dt=3'").collect()
    assert sorted(rows) == [(1, True), (2, False)]

    report = validate_table(spark, client, catalog, settings, journal, source, target)
    status = {p.partition: p.status for p in report.partitions}
    assert status == {"dt=0": EQUAL, "dt=1": NOT_MIGRATED, "dt=2": NOT_MIGRATED, "dt=3": EQUAL}


def test_char_and_varchar_partition_columns_become_integers_by_java_s_parsers(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    """Hive's converter reads CHAR/VARCHAR as integers by ``Integer.parseInt``/
    ``Long.parseLong`` of ``getString`` (a CHAR's trailing spaces stripped by
    ``getStrippedValue``; no fraction, no leading blank, any BMP digits), and a tinyint as
    ``(byte)`` of the int (PrimitiveObjectInspectorUtils.getInt/getLong, Hive 2.3.7 and
    3.1.3; the values are Hive 2.3.9's own answers in ``make differential``). Both readers."""
    b = HiveTableBuilder(
        client,
        tables_root,
        "type_rule",
        unique_name("p"),
        [("id", "int"), ("n", "tinyint"), ("m", "bigint")],
    )
    texts = [
        ("12", "9223372036854775807"),
        ("-0", "1.0"),
        ("1.7976931", "5."),
        ("300", " 1"),
        ("-\uff11\uff12", "\u0661\u0662"),
    ]
    lines = "".join(f"{i}\x01{n}\x01{m}\n" for i, (n, m) in enumerate(texts))
    b.add_partition(["0"], {"000000_0": lines.encode()}, fmt="text",
                    columns=[("id", "int"), ("n", "char(9)"), ("m", "varchar(20)")])  # fmt: skip
    expected = [(0, 12, 2**63 - 1), (1, 0, None), (2, None, None), (3, 44, None), (4, -12, 12)]
    for reader, frame in both_readers(spark, client, f"{b.db}.{b.name}", settings).items():
        rows = sorted((r["id"], r["n"], r["m"]) for r in frame.collect())
        assert rows == expected, reader


def test_text_read_as_binary_is_refused_where_hives_orc_cannot_read_it(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    """ORC 1.3-1.5 (Hive 2.x, 3.1) never read an ORC file's text as binary (Hive fails on the
    first value: conversions.unreadable); ORC 1.6+ (Hive 4) read its UTF-8 bytes."""
    b = HiveTableBuilder(
        client, tables_root, "type_rule", unique_name("b"), [("id", "int"), ("blob", "binary")]
    )
    texts = pa.array(["h\u00e9", None], pa.string())
    b.add_partition(
        ["0"], {"000000_0": pa.table({"id": pa.array([1, 2], pa.int32()), "blob": texts})}
    )
    source = f"{b.db}.{b.name}"
    catalog = HiveCatalog("t", uri=metastore_uri)
    for version, target in (("3.1", f"{source}_31"), ("4", f"{source}_4")):
        chosen = replace(settings, hive_version=version)
        journal = Journal(lakeshift_home / f"binary-{version}.sqlite")
        result = migrate(spark, client, catalog, chosen, journal, source, MigrateOptions(target))
        journal.close()
        if version == "3.1":
            assert not result.backfilled and list(result.refused) == ["dt=0"], result
            assert "blob: string cannot be read as binary" in result.refused["dt=0"]
            assert "before ORC 1.6" in result.refused["dt=0"]
        else:
            assert sorted(result.backfilled) == ["dt=0"] and not result.refused, result
            rows = spark.sql(f"SELECT id, blob FROM {target}").collect()
            assert sorted((r.id, r.blob) for r in rows) == [(1, "h\u00e9".encode()), (2, None)]
