"""``validate --level independent``: a second reader (Arrow, in Spark tasks) proves partitions
only when it, the backfill's observed checksum and the target scan agree, and names the two that
agree when they do not."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from dataclasses import replace
from decimal import Decimal
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
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.validate.fingerprints import source_fingerprints
from lakeshift.validate.independent import independent_fingerprints
from lakeshift.validate.independent.verdict import INDEPENDENT, OBSERVED, TARGET
from lakeshift.validate.model import EQUAL, MISMATCH, ValidationReport
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake

pytestmark = pytest.mark.slow

COLUMNS = [
    ("id", "bigint"),
    ("amount", "decimal(10,2)"),
    ("note", "string"),
    ("tags", "array<string>"),
    ("attrs", "map<string,int>"),
    ("s", "struct<a:int,b:string>"),
    ("ts", "timestamp"),
    ("extra", "string"),
]
V1 = COLUMNS[:7]  # partitions written before `extra` was added (no CASCADE)
WALL = dt.datetime(1999, 12, 31, 23, 59, 59, 123456)
TAGS = pa.list_(pa.string())
ATTRS = pa.map_(pa.string(), pa.int32())


@pytest.fixture
def insensitive(settings: Settings) -> Settings:
    """The drifted table's files name columns in upper case, matched ignoring case (a
    cluster with ``orc.schema.evolution.case.sensitive=false``), so that every partition has
    values for the two readers to agree, or disagree, about."""
    return replace(settings, name_case_sensitive=False)


def _drifted_table(client: MetastoreClient, root: Path) -> HiveTableBuilder:
    """Four partitions of different vintages: positional files, renamed/reordered/upper-cased
    columns, type conversions (int -> bigint, string and double -> decimal), a column the
    partition does not declare although its file holds it, NULLs at every depth."""
    b = HiveTableBuilder(client, root, "independent_cases", unique_name("t"), COLUMNS)
    struct_ab = pa.struct([("a", pa.int32()), ("b", pa.string())])
    b.add_partition(
        ["1"],
        {
            "000000_0": pa.table(
                {
                    "_col0": pa.array([1, 2], pa.int64()),
                    "_col1": pa.array([Decimal("1.50"), None], pa.decimal128(10, 2)),
                    "_col2": ["one", None],
                    "_col3": pa.array([["a", None], None], TAGS),
                    "_col4": pa.array([[("k", 1), ("z", None)], None], ATTRS),
                    "_col5": pa.array([{"a": 1, "b": None}, None], struct_ab),
                    "_col6": pa.array([WALL, None], pa.timestamp("us")),
                }
            )
        },
        columns=V1,
    )
    renamed = pa.struct([("B", pa.string()), ("A", pa.int32()), ("zz", pa.bool_())])
    b.add_partition(
        ["2"],
        {
            "000000_0": pa.table(
                {
                    "EXTRA": ["hidden", "hidden", "hidden"],
                    "NOTE": ["two", "deux", ""],
                    "ID": pa.array([20, 21, None], pa.int32()),
                    "AMOUNT": ["1.005", "x", " 12 "],
                    "TAGS": pa.array([[], [None], None], TAGS),
                    "ATTRS": pa.array([[], [("n", None)], None], ATTRS),
                    "S": pa.array([{"B": "bee", "A": 2, "zz": True}, None, {}], renamed),
                    "TS": pa.array([None, WALL, WALL], pa.timestamp("us")),
                }
            )
        },
        columns=V1,
    )
    declared = [("amount", "double") if n == "amount" else (n, t) for n, t in COLUMNS]
    b.add_partition(
        ["3"],
        {
            "000000_0": pa.table(
                {
                    "id": pa.array([30, 31], pa.int64()),
                    "amount": [1.255, -2.5],
                    "note": ["three", "drei"],
                    "tags": pa.array([["x"], ["y", "z"]], TAGS),
                    "attrs": pa.array([[("b", 2), ("a", 1)], []], ATTRS),
                    "s": pa.array([None, {"a": None, "b": None}], struct_ab),
                    "ts": pa.array([WALL, WALL], pa.timestamp("us")),
                    "extra": ["e1", None],
                }
            )
        },
        columns=declared,
    )
    b.add_partition(  # a text partition, Hive's default delimiters and null sequence
        ["4"],
        {
            "000000_0": b"50\x011.005\x01fifty\x01a\x02\\N\x02\x01k\x031\x02k\x032\x02"
            b"\\N\x039\x02v\x03x\x012\x02bee\x011999-12-31 23:59:59.123456\x01e\n"
            b"\\N\x01x\x01\x01\x01\x01\x01\\N\n"
            b"52"
        },
        columns=V1,
        fmt="text",
    )
    b.add_partition(
        [None],
        {
            "000000_0": pa.table(
                {
                    "id": pa.array([40], pa.int64()),
                    "amount": pa.array([Decimal("-0.01")], pa.decimal128(10, 2)),
                    "note": ["null partition"],
                    "tags": pa.array([None], TAGS),
                    "attrs": pa.array([None], ATTRS),
                    "s": pa.array([None], struct_ab),
                    "ts": pa.array([None], pa.timestamp("us")),
                    "extra": pa.array([None], pa.string()),
                }
            )
        },
    )
    return b


def _migrated(
    fmt: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    journal: Journal,
) -> tuple[str, str]:
    b = _drifted_table(client, tables_root)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    catalog = HiveCatalog("t", uri=metastore_uri)
    result = migrate(
        spark, client, catalog, settings, journal, source, MigrateOptions(target, format=fmt)
    )
    assert len(result.backfilled) == 5 and not result.failed, result
    return source, target


def _validate(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    journal: Journal,
    source: str,
    target: str,
    level: str = "independent",
) -> ValidationReport:
    catalog = HiveCatalog("t", uri=metastore_uri)
    return validate_table(spark, client, catalog, settings, journal, source, target, level=level)


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_independent_reader_proves_a_drifted_table(
    fmt: str,
    client: MetastoreClient,
    insensitive: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    journal = Journal(lakeshift_home / f"independent-{fmt}.sqlite")
    source, target = _migrated(fmt, client, insensitive, spark, metastore_uri, tables_root, journal)
    report = _validate(spark, client, insensitive, metastore_uri, journal, source, target)
    assert report.ok, report
    assert report.level == "independent" and (report.independent_seconds or 0) > 0
    for p in report.partitions:
        assert p.independent_checksum == p.target_checksum and p.agree[0] == INDEPENDENT
        assert "independent reader" in p.detail and "agree" in p.detail
    by_name = {p.partition: p for p in report.partitions}
    assert by_name["dt=2"].nulled == {"amount": 1}  # 'x' read as decimal is NULL, as in Hive
    assert by_name["dt=4"].source_rows == 3 and by_name["dt=4"].nulled == {"amount": 1}
    # The text partition as the format's own reader returns it.
    lake = read_lake(client, target).to_pylist()
    text_rows = sorted(
        (r for r in lake if r["partitionpath"] == "dt=4"), key=lambda r: r["id"] or 0
    )
    assert [(r["id"], r["amount"], r["note"], r["extra"]) for r in text_rows] == [
        (None, None, "", None),  # amount "x" reads NULL
        (50, Decimal("1.01"), "fifty", None),  # 1.005 rounds half up; the 8th field is ignored
        (52, None, None, None),
    ]
    assert [r["tags"] for r in text_rows] == [[], ["a", None, ""], None]  # a trailing ^B
    assert [dict(r["attrs"] or {}) for r in text_rows] == [{}, {"k": 1, "v": None}, {}]
    assert text_rows[2]["attrs"] is None and text_rows[0]["s"] == {"a": None, "b": None}
    assert text_rows[1]["s"] == {"a": 2, "b": "bee"}
    assert text_rows[1]["ts"].replace(tzinfo=None) == WALL  # some readers say UTC

    # The same fingerprints as the Spark reader's, partition by partition (not only summed).
    inventory = inspect_table(client, source, insensitive)
    mapping = build_mapping(inventory, None, insensitive.hive)
    names = [p.name for p in inventory.partitions]
    from lakeshift.formats import FormatServices, require_target

    target_type = require_target(
        FormatServices(spark, client, insensitive, HiveCatalog("t", uri=metastore_uri)),
        target,
        source,
    ).target_type
    assert independent_fingerprints(
        spark, inventory, mapping, names, target_type
    ) == source_fingerprints(spark, inventory, mapping, names, target_type)


def _tamper_observed(journal_path: Path, source: str) -> dict[str, Any]:
    with sqlite3.connect(journal_path) as db:
        batch_id, raw = db.execute(
            "SELECT batch_id, checksum FROM batches WHERE source = ?", (source,)
        ).fetchone()
        original = json.loads(raw)
        wrong = {**original, "sum1": str(int(original["sum1"]) + 1)}
        db.execute(
            "UPDATE batches SET checksum = ? WHERE batch_id = ?", (json.dumps(wrong), batch_id)
        )
    return {"batch_id": batch_id, "checksum": original}


def test_disagreements_name_the_two_that_agree(
    client: MetastoreClient,
    insensitive: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
) -> None:
    path = lakeshift_home / "independent-tamper.sqlite"
    journal = Journal(path)
    source, target = _migrated(
        "iceberg", client, insensitive, spark, metastore_uri, tables_root, journal
    )

    # 1. The journal's observed checksum is wrong: checksum level rescans and passes; the
    # independent level refuses every partition of the batch, naming reader and target.
    saved = _tamper_observed(path, source)
    checksum = _validate(
        spark, client, insensitive, metastore_uri, journal, source, target, "checksum"
    )
    assert checksum.ok
    report = _validate(spark, client, insensitive, metastore_uri, journal, source, target)
    assert {p.status for p in report.partitions} == {MISMATCH}
    for p in report.partitions:
        assert p.agree == (INDEPENDENT, TARGET), p
        assert "observed checksum (its batch of 5) differs" in p.detail
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE batches SET checksum = ? WHERE batch_id = ?",
            (json.dumps(saved["checksum"]), saved["batch_id"]),
        )

    # 2. The target changed after the backfill: the reader and the observation agree.
    spark.sql(f"UPDATE {target} SET note = 'changed' WHERE dt = '3' AND id = 30")
    report = _validate(spark, client, insensitive, metastore_uri, journal, source, target)
    by_name = {p.partition: p for p in report.partitions}
    assert by_name["dt=3"].status == MISMATCH and by_name["dt=3"].agree == (INDEPENDENT, OBSERVED)
    assert "the target scan differs" in by_name["dt=3"].detail
    diff = by_name["dt=3"].diff
    assert diff is not None
    assert [r["note"] for r in diff.only_in_target] == ["changed"]
    assert [r["note"] for r in diff.only_in_source] == ["three"]
    assert all(
        by_name[n].status == EQUAL
        for n in ("dt=1", "dt=2", "dt=4", "dt=__HIVE_DEFAULT_PARTITION__")
    )


def test_a_planted_reader_bug_is_caught_by_independent_not_by_checksum(
    client: MetastoreClient,
    insensitive: Settings,
    spark: Any,
    metastore_uri: str,
    tables_root: Path,
    lakeshift_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A test-only fault in the Spark reader (one partition's ``note`` read upper-cased) is
    written, observed and scanned consistently: only the second reader can see it."""
    import lakeshift.hive.source_frame as source_frame_module

    read_batch = source_frame_module.read_batch

    def faulty(*args: Any, **kwargs: Any) -> Any:
        from pyspark.sql import functions as F

        frame = read_batch(*args, **kwargs)
        wrong = F.when(F.col("dt") == "2", F.upper(F.col("note"))).otherwise(F.col("note"))
        return frame.withColumn("note", wrong)

    monkeypatch.setattr(source_frame_module, "read_batch", faulty)
    journal = Journal(lakeshift_home / "independent-fault.sqlite")
    source, target = _migrated(
        "iceberg", client, insensitive, spark, metastore_uri, tables_root, journal
    )
    checksum = _validate(
        spark, client, insensitive, metastore_uri, journal, source, target, "checksum"
    )
    assert checksum.ok  # the observation proves what was written, not what Hive shows
    report = _validate(spark, client, insensitive, metastore_uri, journal, source, target)
    by_name = {p.partition: p for p in report.partitions}
    assert by_name["dt=2"].status == MISMATCH and by_name["dt=2"].agree == (OBSERVED, TARGET)
    assert "the independent reader differs" in by_name["dt=2"].detail
    diff = by_name["dt=2"].diff
    assert diff is not None
    assert sorted(r["note"] for r in diff.only_in_source) == ["deux", "two"]
    assert sorted(r["note"] for r in diff.only_in_target) == ["DEUX", "TWO"]
    assert [n for n, p in by_name.items() if not p.ok] == ["dt=2"]
