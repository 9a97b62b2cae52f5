"""The Hive-faithful reader returns partitions exactly as Hive users see them."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from chispa import assert_df_equality

from lakeshift.config import CALENDAR_RULES, Settings
from lakeshift.hive.reader import output_schema_ddl, read_partitions
from lakeshift.hive.semantics import HiveSemantics
from lakeshift.inspect import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.sample.click_log_data import hive_view_rows
from lakeshift.sample.click_log_spec import partitions as sample_partitions
from lakeshift.sample.load import LoadResult
from lakeshift.schema_map.mapping import build_mapping
from tests.helpers.hive_tables import HiveTableBuilder, unique_name

SAMPLE_CASES = [
    "20220401",  # positional _colN files, price -> bid_price by position
    "20220405",  # late file holds country; partition does not declare it
    "20220412",  # junk files skipped
    "20220416",  # renamed column in the files themselves
    "20220424",  # Tez union subdirectories
    "20220427",  # outside the table root
    "20220428",  # empty
    None,  # NULL partition
]


def _read(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    table: str,
    partitions: list[str] | None = None,
) -> tuple[Any, Any]:
    inventory = inspect_table(client, table, settings)
    mapping = build_mapping(inventory, None, settings.hive)
    return read_partitions(spark, inventory, mapping, partitions), inventory


@pytest.mark.parametrize("value", SAMPLE_CASES, ids=lambda v: str(v))
def test_sample_partition_reads_as_hive_shows_it(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    sample_table: LoadResult,
    value: str | None,
) -> None:
    spec = next(p for p in sample_partitions() if p.value == value)
    name = f"yyyymmdd={value or '__HIVE_DEFAULT_PARTITION__'}"
    actual, inventory = _read(client, settings, spark, "sample.click_log", [name])
    expected_rows = [row for f in spec.files for row in hive_view_rows(spec, f)]
    for row in expected_rows:
        row["attrs"] = None if row["attrs"] is None else dict(row["attrs"])
    expected = spark.createDataFrame(expected_rows, output_schema_ddl(inventory))
    assert actual.count() == len(expected_rows)
    assert_df_equality(
        _sorted_maps(actual), _sorted_maps(expected), ignore_row_order=True, ignore_nullable=True
    )


def _sorted_maps(frame: Any) -> Any:
    """Maps as sorted entry arrays: Spark can neither sort nor hash MAP columns."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import MapType

    return frame.select(
        *[
            F.array_sort(F.map_entries(F.col(f.name))).alias(f.name)
            if isinstance(f.dataType, MapType)
            else F.col(f.name)
            for f in frame.schema.fields
        ]
    )


def _builder(
    client: MetastoreClient, root: Path, columns: list[tuple[str, str]]
) -> HiveTableBuilder:
    return HiveTableBuilder(client, root, "reader_cases", unique_name("t"), columns)


def _rows(frame: Any) -> list[dict[str, Any]]:
    return sorted((r.asDict(recursive=True) for r in frame.collect()), key=repr)


def test_positional_files_wider_and_narrower(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(client, tables_root, [("a", "bigint"), ("b", "string")])
    b.add_partition(
        ["w"], {"f": pa.table({"_col0": pa.array([1], pa.int64()), "_col1": ["x"], "_col2": [9.5]})}
    )
    b.add_partition(["n"], {"f": pa.table({"_col0": pa.array([2], pa.int64())})})
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == [{"a": 1, "b": "x", "dt": "w"}, {"a": 2, "b": None, "dt": "n"}]


@pytest.mark.parametrize(
    ("hive", "expected"),
    [
        # Hive 2.x/3.1: the table's columns read each file by name, case-sensitively (ORC's
        # default): upper-case names read NULL, `amount` is not `amt`, the undeclared `note`
        # is found.
        (
            {},
            [
                {"id": None, "amount": None, "note": None, "dt": "1"},
                {"id": 8, "amount": None, "note": "hidden", "dt": "2"},
            ],
        ),
        (
            {"name_case_sensitive": False},
            [
                {"id": 7, "amount": 1.5, "note": "n", "dt": "1"},
                {"id": 8, "amount": None, "note": "hidden", "dt": "2"},
            ],
        ),
        # Hive 1.2: the partition's columns read the file by position, then the table's by
        # position: amt's values kept, `note` NULL where the partition does not declare it.
        (
            {"hive_version": "1.2"},
            [
                {"id": 1, "amount": 7.0, "note": "n", "dt": "1"},
                {"id": 8, "amount": 2.5, "note": None, "dt": "2"},
            ],
        ),
    ],
    ids=["hive-3.1", "case-insensitive", "hive-1.2"],
)
def test_reorder_rename_upper_case_and_partition_behind_table_per_version(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    tables_root: Path,
    hive: dict[str, Any],
    expected: list[dict[str, Any]],
) -> None:
    b = _builder(client, tables_root, [("id", "bigint"), ("amount", "double"), ("note", "string")])
    b.add_partition(
        ["1"], {"f": pa.table({"AMOUNT": [1.5], "ID": pa.array([7], pa.int64()), "NOTE": ["n"]})}
    )
    # Partition written before `note` was added (no CASCADE), and `amount` was then `amt`.
    b.add_partition(
        ["2"],
        {"f": pa.table({"id": pa.array([8], pa.int64()), "amt": [2.5], "note": ["hidden"]})},
        columns=[("id", "bigint"), ("amt", "double")],
    )
    frame, _ = _read(client, replace(settings, **hive), spark, f"{b.db}.{b.name}")
    assert _rows(frame) == sorted(expected, key=repr)


def test_type_conversions_follow_hive(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(
        client,
        tables_root,
        [
            ("n", "bigint"),
            ("s", "int"),
            ("c", "char(4)"),
            ("v", "varchar(3)"),
            ("d", "decimal(6,2)"),
        ],
    )
    b.add_partition(
        ["1"],
        {
            "f": pa.table(
                {
                    "n": pa.array([5, None], pa.int32()),  # int file column widened to bigint
                    "s": ["12", "x"],  # string -> int: unconvertible reads as NULL
                    "c": ["ab", "abcdef"],  # CHAR pads and truncates
                    "v": ["abcdef", "z"],  # VARCHAR truncates
                    "d": pa.array([Decimal("1.005"), Decimal("123456.7")], pa.decimal128(9, 3)),
                }
            )
        },
    )
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == sorted(
        [
            {"n": 5, "s": 12, "c": "ab  ", "v": "abc", "d": Decimal("1.01"), "dt": "1"},
            {"n": None, "s": None, "c": "abcd", "v": "z", "d": None, "dt": "1"},  # overflow: NULL
        ],
        key=repr,
    )


def test_orc_schema_evolution_and_hive_converters_have_their_own_rules(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    """Two conversion steps, two rules (Apache ORC ConvertTreeReaderFactory; Hive's
    PrimitiveObjectInspectorUtils.getBoolean): an ORC file's column read as the partition's
    type parses strings as Java's Long.parseLong and reads values that do not fit as NULL;
    the partition's string read as the table's boolean is false only for false/off/no/0/"".
    The independent reader, written from the same rules, must agree value for value."""
    from lakeshift.formats.iceberg import iceberg_hive_type
    from lakeshift.validate.fingerprints import source_fingerprints
    from lakeshift.validate.independent import independent_fingerprints

    table = [("b", "boolean"), ("i", "int"), ("t", "tinyint"), ("d", "int"), ("w", "boolean")]
    b = _builder(client, tables_root, table)
    # The partition declares w as string (changed to boolean in the table later, no CASCADE).
    declared = [*table[:4], ("w", "string")]
    b.add_partition(
        ["1"],
        {
            "f": pa.table(
                {
                    "b": ["1", "0", "-7", "true", " 1", "1.0"],
                    "i": ["12", " 7 ", "1.9", "+3", "2147483648", ""],
                    "t": pa.array([300, -128, 127, -129, 0, None], pa.int32()),
                    "d": [2.9, -2.9, float("nan"), 1e20, 0.5, None],
                    "w": ["FALSE", "off", "No", "0", "", "maybe"],
                }
            )
        },
        columns=declared,
    )
    # Hive 3.1 with schema evolution off: the partition's string, then Hive's converter.
    model_a = replace(settings, schema_evolution=False)
    frame, inventory = _read(client, model_a, spark, f"{b.db}.{b.name}")
    by_file_order = _in_file_order(frame)
    assert by_file_order["b"] == [True, False, True, None, None, None]
    assert by_file_order["i"] == [12, None, None, 3, None, None]
    assert by_file_order["t"] == [None, -128, 127, None, 0, None]
    assert by_file_order["d"] == [2, -2, None, None, 0, None]
    assert by_file_order["w"] == [False, False, False, False, False, True]
    # With schema evolution (the default) ORC reads the file's string straight as boolean.
    evolved, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _in_file_order(evolved)["w"] == [None, None, None, False, None, None]

    mapping = build_mapping(inventory, None, model_a.hive)
    names = [p.name for p in inventory.partitions]
    assert independent_fingerprints(
        spark, inventory, mapping, names, iceberg_hive_type
    ) == source_fingerprints(spark, inventory, mapping, names, iceberg_hive_type)


def _in_file_order(frame: Any) -> dict[str, list[Any]]:
    """Columns in the order of the file's rows (one file, one task: the scan keeps it)."""
    rows = [r.asDict() for r in frame.coalesce(1).collect()]
    return {c: [r[c] for r in rows] for c in frame.columns}


def test_nested_structs_by_name_and_timestamps_stay_wall_clock(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(
        client,
        tables_root,
        [
            ("s", "struct<a:int,b:string,c:double>"),
            ("ts", "timestamp"),
            ("l", "array<struct<x:int>>"),
        ],
    )
    wall = dt.datetime(1999, 12, 31, 23, 59, 59, 123456)
    file = pa.table(
        {
            "s": pa.array(
                [{"b": "bee", "a": 1, "zz": True}, None],
                pa.struct([("b", pa.string()), ("a", pa.int32()), ("zz", pa.bool_())]),
            ),
            "ts": pa.array([wall, None], pa.timestamp("us")),
            "l": pa.array([[{"x": 1}, None], []], pa.list_(pa.struct([("x", pa.int32())]))),
        }
    )
    b.add_partition([None], {"f": file})
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == sorted(
        [
            {"s": {"a": 1, "b": "bee", "c": None}, "ts": wall, "l": [{"x": 1}, None], "dt": None},
            {"s": None, "ts": None, "l": [], "dt": None},
        ],
        key=repr,
    )


def test_files_of_different_vintages_in_one_partition(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(client, tables_root, [("id", "bigint"), ("name", "string")])
    b.add_partition(
        ["1"],
        {
            "000000_0": pa.table({"_col0": pa.array([1], pa.int64()), "_col1": ["old"]}),
            "000001_0": pa.table({"id": pa.array([2], pa.int64()), "name": ["new"], "x": [0]}),
            "000002_0": pa.table({"name": ["only-name"]}),
        },
    )
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == sorted(
        [
            {"id": 1, "name": "old", "dt": "1"},
            {"id": 2, "name": "new", "dt": "1"},
            {"id": None, "name": "only-name", "dt": "1"},
        ],
        key=repr,
    )


def test_odd_partition_values_and_typed_keys(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = HiveTableBuilder(
        client,
        tables_root,
        "reader_cases",
        unique_name("t"),
        [("id", "bigint")],
        partition_keys=(("k", "string"), ("n", "int")),
    )
    odd = "it's a\\b/c=d %x {}"
    b.add_partition([odd, "5"], {"f": pa.table({"id": pa.array([1], pa.int64())})})
    b.add_partition(["plain", "oops"], {"f": pa.table({"id": pa.array([2], pa.int64())})})
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == sorted(
        [
            {"id": 1, "k": odd, "n": 5},
            {"id": 2, "k": "plain", "n": None},  # a value that cannot convert reads as NULL
        ],
        key=repr,
    )


def test_locations_with_glob_characters_are_read_literally(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(client, tables_root, [("id", "bigint")])
    odd = tables_root / "odd {x} [1] *" / "dt=1"
    b.add_partition(
        ["1"], {"000000_0": pa.table({"id": pa.array([1, 2], pa.int64())})}, location=odd
    )
    (odd.parent / "dt=1x").mkdir()  # what an unescaped glob could also match
    frame, _ = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert _rows(frame) == [{"id": 1, "dt": "1"}, {"id": 2, "dt": "1"}]


TEXT_COLUMNS = [
    ("id", "int"),
    ("name", "string"),
    ("flag", "boolean"),
    ("tags", "array<int>"),
    ("attrs", "map<string,int>"),
    ("pt", "struct<x:int,y:string>"),
    ("amount", "decimal(6,2)"),
    ("day", "date"),
    ("raw", "binary"),
    ("code", "varchar(2)"),
]
TEXT_SERDE = {
    "field.delim": "|",
    "colelction.delim": ",",  # Hive's own spelling of the key
    "mapkey.delim": ":",
    "escape.delim": "\\",
    "serialization.null.format": "NULL",
    "skip.header.line.count": "1",
}
TEXT_PLAIN = (
    b"id|name|flag|tags|attrs|pt|amount|day|raw\n"
    b"1|a\\|b|true|1,2,NULL|k:1,j:x,k:3,NULL:4|5,p|12.345|2024-02-29|aGk=|xyz\r\n"
    b"NULL|NULL|yes||||||\r"
    b"3|c\n"
    b"4|d|FALSE|||||||extra|more"
)
TEXT_GZIPPED = b"header line\n5| spaced |TRUE|7|m:|9|x|1999-01-01 12:00|h!\n"
TEXT_ROWS = [
    {
        "id": 1,
        "name": "a|b",
        "flag": True,
        "tags": [1, 2, None],
        "attrs": {"k": 1, "j": None},
        "pt": {"x": 5, "y": "p"},
        "amount": Decimal("12.35"),
        "day": dt.date(2024, 2, 29),
        "raw": bytearray(b"hi"),
        "code": "xy",
    },
    {
        "id": None,
        "name": None,
        "flag": None,
        "tags": [],
        "attrs": {},
        "pt": {"x": None, "y": None},
        "amount": None,
        "day": None,
        "raw": bytearray(b""),
        "code": None,
    },
    {"id": 3, "name": "c", "flag": None, "tags": None, "attrs": None, "pt": None}
    | {"amount": None, "day": None, "raw": None, "code": None},
    {
        "id": 4,
        "name": "d",
        "flag": False,
        "tags": [],
        "attrs": {},
        "pt": {"x": None, "y": None},
        "amount": None,
        "day": None,
        "raw": bytearray(b""),
        "code": "ex",  # the tenth field; the eleventh is ignored
    },
    {
        "id": 5,
        "name": " spaced ",
        "flag": True,
        "tags": [7],
        "attrs": {"m": None},
        "pt": {"x": 9, "y": None},
        "amount": None,
        "day": dt.date(1999, 1, 1),
        "raw": bytearray(b"h!"),
        "code": None,
    },
]


def add_text_partition(builder: HiveTableBuilder, value: str) -> None:
    """A LazySimpleSerDe partition in an ORC table: custom delimiters, escapes, a null format,
    header lines, CR/LF/CRLF line ends and a gzipped file (TEXT_ROWS is what Hive shows)."""
    import gzip

    builder.add_partition(
        [value],
        {"000000_0": TEXT_PLAIN, "000001_0.gz": gzip.compress(TEXT_GZIPPED)},
        fmt="text",
        serde_parameters=TEXT_SERDE,
    )


def test_text_partitions_read_as_lazy_simple_serde_reads_them(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = _builder(client, tables_root, TEXT_COLUMNS)
    add_text_partition(b, "2")
    frame, inventory = _read(client, settings, spark, f"{b.db}.{b.name}")
    (partition,) = inventory.partitions
    assert partition.migratable and partition.format == "text"
    assert {f.path: f.rows for f in partition.files} == {"000000_0": 4, "000001_0.gz": 1}
    codes = {a.code: a.severity for a in partition.anomalies}
    assert codes["partition-format-differs"] == "warning"
    expected = sorted(({**r, "dt": "2"} for r in TEXT_ROWS), key=repr)
    assert _rows(frame) == sorted(expected, key=repr)


def test_text_tables_with_hive_defaults(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    b = HiveTableBuilder(
        client,
        tables_root,
        "reader_cases",
        unique_name("text"),
        [("n", "bigint"), ("tags", "array<string>"), ("flag", "boolean")],
        table_format="text",
    )
    b.add_partition(
        ["1"],
        {"000000_0": b"1\x01a\x02b\x01true\n\\N\x01\\N\x01maybe\n", "empty_0": b"\n"},
        fmt="text",
    )
    frame, inventory = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert inventory.format == "text" and inventory.partitions[0].anomalies == ()
    assert _rows(frame) == sorted(
        [
            {"n": 1, "tags": ["a", "b"], "flag": True, "dt": "1"},
            {"n": None, "tags": None, "flag": None, "dt": "1"},
            {"n": None, "tags": None, "flag": None, "dt": "1"},  # an empty line is a row
        ],
        key=repr,
    )


def _days(*values: int | None) -> pa.Array:
    return pa.array(values, pa.int32()).cast(pa.date32())


# Day numbers as pyarrow writes them: proleptic 1000-01-01, 1582-10-04, 2020-01-01, and the
# day a hybrid reader labels 1500-02-29 (a Julian-only date); nested: proleptic 0001-01-03.
PRE_GREGORIAN = pa.table(
    {
        "d": _days(-354285, -141438, 18262, -171596),
        "ds": pa.array([[dt.date(1, 1, 3)], None, [None, dt.date(1582, 10, 15)], []]),
    }
)


@pytest.mark.parametrize("calendar", ["hive3", "hive2", "proleptic"])
def test_dates_before_1582_read_as_java_orc_readers_read_them(
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    tables_root: Path,
    calendar: str,
    metastore_uri: str,
    tmp_path: Path,
) -> None:
    """Hive 3.1+ and Spark count a file's days in the hybrid calendar unless its footer says
    proleptic (ORC's ``writerUsedProlepticGregorian``) and show hybrid days by their calendar
    label: pyarrow's 1000-01-01 (no calendar field) shows as 0999-12-27. Hive 2.x counts
    every file's days as hybrid. Apache Hive 3.1 shows every ORC file's day numbers as
    stored (``RecordReaderImpl.nextDate``: ``DateWritableV2.set(days)``,
    ``LocalDate.ofEpochDay``; 3.1.3's source), so pyarrow's days show as written. The
    independent reader agrees in every mode."""
    import pyarrow.orc as orc

    from lakeshift.validate.fingerprints import source_fingerprints
    from lakeshift.validate.independent import independent_fingerprints
    from tests.helpers.hive_tables import mark_proleptic

    b = _builder(client, tables_root, [("d", "date"), ("ds", "array<date>")])
    b.add_partition(["hybrid"], {"000000_0": PRE_GREGORIAN})
    path = b.add_partition(["proleptic"], {"000000_0": PRE_GREGORIAN}) / "000000_0"
    orc.write_table(PRE_GREGORIAN, str(path), compression="uncompressed")
    mark_proleptic(path)
    # a footer that says hybrid (ORC 1.6+ Java writers' default): Apache Hive 3.1 ignores it
    marked = b.add_partition(["marked"], {"000000_0": PRE_GREGORIAN}) / "000000_0"
    orc.write_table(PRE_GREGORIAN, str(marked), compression="uncompressed")
    mark_proleptic(marked, calendar=1)
    inventory = inspect_table(client, f"{b.db}.{b.name}", replace(settings, calendar=calendar))
    calendars = {
        p.name: (p.files[0].calendar, p.files[0].pre_gregorian) for p in inventory.partitions
    }
    assert calendars == {
        "dt=hybrid": (None, True),
        "dt=proleptic": ("proleptic", True),
        "dt=marked": ("hybrid", True),
    }
    before = {p.name: p for p in inventory.partitions}["dt=proleptic"].anomalies
    assert [a.details for a in before if a.code == "calendar-before-1582"] == [
        {"hybrid": 0, "proleptic": 1}
    ]
    mapping = build_mapping(inventory, None, HiveSemantics(calendar=calendar))
    from click.testing import CliRunner

    from lakeshift.cli.main import cli

    planned = CliRunner(env={"LAKESHIFT_CALENDAR": calendar}).invoke(
        cli,
        [
            *("--home", str(tmp_path), "--metastore-uri", metastore_uri),
            *("plan", f"{b.db}.{b.name}"),
        ],
    )
    assert "3 partition(s) hold dates or timestamps before 1582-10-15" in planned.output
    assert f"as {CALENDAR_RULES[calendar]} reads them" in planned.output, planned.output
    frame = read_partitions(spark, inventory, mapping)
    shown = {
        (r["dt"], str(r["d"]), str(r["ds"]))
        for r in frame.selectExpr("dt", "CAST(d AS STRING) d", "CAST(ds AS STRING) ds").collect()
    }
    as_hybrid = {
        ("0999-12-27", "[0001-01-05]"),
        ("1582-09-24", "None"),
        ("2020-01-01", "[null, 1582-10-15]"),
        ("1500-03-01", "[]"),  # Julian 1500-02-29 has no proleptic twin: the next day
    }
    as_written = {
        ("1000-01-01", "[0001-01-03]"),
        ("1582-10-04", "None"),
        ("2020-01-01", "[null, 1582-10-15]"),
        ("1500-03-10", "[]"),
    }
    proleptic_shown = as_hybrid if calendar == "hive2" else as_written
    hybrid_shown = as_written if calendar == "proleptic" else as_hybrid
    assert shown == (
        {("hybrid", *r) for r in hybrid_shown}
        | {("proleptic", *r) for r in proleptic_shown}
        | {("marked", *r) for r in hybrid_shown}
    )
    names = [p.name for p in inventory.partitions]
    same = independent_fingerprints(spark, inventory, mapping, names, lambda t: t)
    assert same == source_fingerprints(spark, inventory, mapping, names, lambda t: t)
    # Spark reads a proleptic file's days through the hybrid calendar, which has no
    # 1582-10-05..14 (proleptic 1582-10-14 would read 1582-10-24); such files are read as the
    # text ORC formats in their own calendar, so the day is exact: Hive 3.1+ shows 1582-10-14,
    # Hive 2.x its hybrid label 1582-10-04.
    hole = pa.table(
        {"d": _days(-141428), "ds": pa.array([[_days(-141432)[0]]], pa.list_(pa.date32()))}
    )
    path = b.add_partition(["hole"], {"000000_0": hole}) / "000000_0"
    orc.write_table(hole, str(path), compression="uncompressed")
    mark_proleptic(path)
    inventory = inspect_table(client, f"{b.db}.{b.name}", replace(settings, calendar=calendar))
    frame = read_partitions(spark, inventory, mapping, ["dt=hole"])
    hole_shown = [(str(r["d"]), [str(d) for d in r["ds"]]) for r in frame.collect()]
    if calendar != "hive2":
        assert hole_shown == [("1582-10-14", ["1582-10-10"])]
    else:
        assert hole_shown == [("1582-10-04", ["1582-09-30"])]
    independent = independent_fingerprints(spark, inventory, mapping, ["dt=hole"], lambda t: t)
    assert independent == source_fingerprints(spark, inventory, mapping, ["dt=hole"], lambda t: t)
    if calendar == "hive2":
        from lakeshift.hive.calendar_sql import hybrid_label

        stamp = hybrid_label("TIMESTAMP'1000-01-01 10:30:00.5'", "timestamp")
        later = hybrid_label("TIMESTAMP'1582-10-15 00:00:00'", "timestamp")
        row = spark.sql(f"SELECT CAST({stamp} AS STRING) a, CAST({later} AS STRING) b").first()
        assert (row["a"], row["b"]) == ("0999-12-27 10:30:00.5", "1582-10-15 00:00:00")


SEQUENCE_CODECS = {
    "plain": {},
    "record": {"mapreduce.output.fileoutputformat.compress.type": "RECORD"},
    "block": {"mapreduce.output.fileoutputformat.compress.type": "BLOCK"},
    "bzip2": {
        "mapreduce.output.fileoutputformat.compress.type": "BLOCK",
        "mapreduce.output.fileoutputformat.compress.codec": "org.apache.hadoop.io.compress."
        "BZip2Codec",
    },
    "lz4": {
        "mapreduce.output.fileoutputformat.compress.type": "RECORD",
        "mapreduce.output.fileoutputformat.compress.codec": "org.apache.hadoop.io.compress."
        "Lz4Codec",
    },
    "snappy": {
        "mapreduce.output.fileoutputformat.compress.type": "BLOCK",
        "mapreduce.output.fileoutputformat.compress.codec": "org.apache.hadoop.io.compress."
        "SnappyCodec",
    },
}


def test_sequence_files_as_hive_reads_them(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path
) -> None:
    """SequenceFiles written by Hadoop's own writer (through Spark): plain, record- and
    block-compressed zlib, block BZip2, record LZ4 and block Snappy; each value is one record,
    even one holding a newline."""
    from lakeshift.validate.fingerprints import source_fingerprints
    from lakeshift.validate.independent import independent_fingerprints

    b = _builder(client, tables_root, [("n", "int"), ("s", "string"), ("tags", "array<int>")])
    values = ["1\x01one\x011\x022", "\\N\x01two\nlines\x01", "3"] + [
        f"{i}\x01x" for i in range(4, 300)
    ]
    for name, conf in SEQUENCE_CODECS.items():
        directory = b.partition_dir([name])
        compress = {"mapreduce.output.fileoutputformat.compress": "true"} if conf else {}
        spark.sparkContext.parallelize([("", v) for v in values], 2).saveAsNewAPIHadoopFile(
            str(directory),
            "org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat",
            keyClass="org.apache.hadoop.io.Text",
            valueClass="org.apache.hadoop.io.Text",
            conf={**compress, **conf},
        )
        b.add_partition([name], fmt="sequence")
    frame, inventory = _read(client, settings, spark, f"{b.db}.{b.name}")
    assert {p.format for p in inventory.partitions} == {"sequence"}
    assert all(p.migratable and p.rows == 299 for p in inventory.partitions), [
        (p.name, p.rows, p.refusal) for p in inventory.partitions
    ]
    rows = {(r["dt"], r["n"], r["s"], str(r["tags"])) for r in frame.collect()}
    for name in SEQUENCE_CODECS:
        assert (name, 1, "one", "[1, 2]") in rows
        assert (name, None, "two\nlines", "[]") in rows
        assert (name, 3, None, "None") in rows
    assert len(rows) == len(SEQUENCE_CODECS) * 299
    mapping = build_mapping(inventory, None, HiveSemantics())
    names = [p.name for p in inventory.partitions]
    same = independent_fingerprints(spark, inventory, mapping, names, lambda t: t)
    assert same == source_fingerprints(spark, inventory, mapping, names, lambda t: t)


@pytest.mark.parametrize("calendar", ["hive3", "hive2", "proleptic"])
def test_timestamps_before_1582_follow_the_same_calendar_rule(
    client: MetastoreClient, settings: Settings, spark: Any, tables_root: Path, calendar: str
) -> None:
    """As for dates: a file without the proleptic footer shows its early timestamps by their
    hybrid-calendar label (the time of day kept); ``hive2`` does so for every file."""
    import pyarrow.orc as orc

    from tests.helpers.hive_tables import mark_proleptic

    # Whole seconds: Java's ORC reader fails on the C++ writer's fractions before 1970.
    stamps = pa.table({"t": pa.array([dt.datetime(1000, 1, 1, 10, 30)], pa.timestamp("us"))})
    b = _builder(client, tables_root, [("t", "timestamp")])
    b.add_partition(["hybrid"], {"000000_0": stamps})
    path = b.add_partition(["proleptic"], {"000000_0": stamps}) / "000000_0"
    orc.write_table(stamps, str(path), compression="uncompressed")
    mark_proleptic(path)
    marked = b.add_partition(["marked"], {"000000_0": stamps}) / "000000_0"
    orc.write_table(stamps, str(marked), compression="uncompressed")
    mark_proleptic(marked, calendar=1)  # a footer saying hybrid
    inventory = inspect_table(client, f"{b.db}.{b.name}", replace(settings, calendar=calendar))
    mapping = build_mapping(inventory, None, HiveSemantics(calendar=calendar))
    frame = read_partitions(spark, inventory, mapping).selectExpr("dt", "CAST(t AS STRING) t")
    shown = {r["dt"]: r["t"] for r in frame.collect()}
    hybrid, written = "0999-12-27 10:30:00", "1000-01-01 10:30:00"
    assert shown == {
        "hybrid": written if calendar == "proleptic" else hybrid,
        "marked": written if calendar == "proleptic" else hybrid,
        "proleptic": hybrid if calendar == "hive2" else written,
    }
