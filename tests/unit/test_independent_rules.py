"""The independent reader's rules on Arrow: the same cases as the Spark reader's tests
(``tests/integration/test_reader.py``), NULL at every depth, the plan, and the verdict."""

from __future__ import annotations

import ast
import datetime as dt
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from lakeshift.errors import SchemaMappingError
from lakeshift.hive.semantics import HiveSemantics, version_defaults
from lakeshift.hive.types import (
    HiveType,
    digits_counted,
    keys_may_merge,
    nested_leaves,
    parse_hive_type,
    text_counted,
)
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo, TableInventory
from lakeshift.schema_map.mapping import build_mapping
from lakeshift.validate.independent import text_rules as rules
from lakeshift.validate.independent.arrow_types import arrow_type
from lakeshift.validate.independent.casts import number_finer
from lakeshift.validate.independent.convert import convert, java_maps, leaf
from lakeshift.validate.independent.plan import plan_files
from lakeshift.validate.independent.verdict import (
    INDEPENDENT,
    OBSERVED,
    RESCAN,
    TARGET,
    Opinions,
    verdict,
)


def _convert(values: list[Any], src: str, dst: str, arrow: pa.DataType | None = None) -> list[Any]:
    source = parse_hive_type(src)
    array = pa.array(values, arrow or arrow_type(source))
    return convert(array, source, parse_hive_type(dst), by_name=True).to_pylist()


CASES = [
    # (values, file type, read as, expected): the Spark reader's test_type_conversions_follow_hive
    ([5, None], "int", "bigint", [5, None]),
    (["12", "x"], "string", "int", [12, None]),
    (["ab", "abcdef"], "string", "char(4)", ["ab  ", "abcd"]),
    (["abcdef", "z"], "string", "varchar(3)", ["abc", "z"]),
    (["é€xyz"], "string", "varchar(2)", ["é€"]),  # characters, not bytes
    ([Decimal("1.005"), Decimal("123456.7")], "decimal(9,3)", "decimal(6,2)",
     [Decimal("1.01"), None]),
    # numbers from a string by Hive's converter (LazyInteger): no blanks, a fraction dropped
    # (digits around it may be absent: "." and "-.5" are 0), overflow of an int NULL, a
    # tinyint or smallint the int narrowed with wrap-around (getByte is (byte) getInt) (Hive
    # 2.3.9's own answers: tests/integration/test_orc_conversions.py)
    ([" 7 ", "1.9", "-", "", "+3", "2147483648", ".", "1e3", "-.5"], "string", "int",
     [None, 1, None, None, 3, None, 0, None, 0]),
    (["300", "-128", "32768"], "string", "tinyint", [44, -128, 0]),
    # Java's Double.parseDouble: Hive 2.3.9 shows inf and nan (Spark's CAST words) as NULL
    (["1.5", " -2e3 ", "NaN", "inf", "1.5d", "0x1p3", "abc", "-Infinity", "NaNd", "nan"],
     "string", "double",
     [1.5, -2000.0, "nan", None, 1.5, 8.0, None, float("-inf"), None, None]),
    (["1.005", "1e2", "x", "99999999.995"], "string", "decimal(10,2)",
     [Decimal("1.01"), Decimal("100.00"), None, None]),
    # Hive's converters: false/off/no/0/"" in any case are false, every other string true
    (["T", "yes", "0", "maybe", " false ", "OFF", "No", ""], "string", "boolean",
     [True, True, False, True, True, False, False, False]),
    # Hive 3's converters (java.time, lenient, proleptic; hive.datetimes): Feb 30 is March 2 in
    # 2022, the date before a space is read alone, an ISO 'T' needs two-digit fields
    (["2022-04-01", "2022-4-1 garbage", "2022-02-30", "2022", " 2022-13-01 "], "string", "date",
     [dt.date(2022, 4, 1), dt.date(2022, 4, 1), dt.date(2022, 3, 2), None, dt.date(2023, 1, 1)]),
    (["2022-04-01 10:11:12.5", "2022-04-01T10:11:12Z", "2022-04-01T23:59", "2022-04-01 24:60",
      "noon"], "string", "timestamp",
     [dt.datetime(2022, 4, 1, 10, 11, 12, 500000), None, dt.datetime(2022, 4, 1, 23, 59),
      dt.datetime(2022, 4, 1), None]),
    # numbers to text as Java prints them
    ([1.0, 1e7, 0.001, 1.5e-4, -0.0, 100.25], "double", "string",
     ["1.0", "1.0E7", "0.001", "1.5E-4", "-0.0", "100.25"]),
    ([0.1], "float", "string", ["0.1"]),
    # HiveDecimal drops trailing zeros; Hive's TextConverter writes booleans upper-case
    ([Decimal("1.50"), Decimal("-0.01")], "decimal(5,2)", "string", ["1.5", "-0.01"]),
    ([True, False], "boolean", "string", ["TRUE", "FALSE"]),
    ([dt.datetime(2022, 4, 1, 1, 2, 3, 400000), dt.datetime(2022, 4, 1)], "timestamp", "string",
     ["2022-04-01 01:02:03.4", "2022-04-01 00:00:00"]),
    # numbers between types: Java's narrowing wraps; doubles to integers truncate
    ([300, -1], "int", "tinyint", [44, -1]),
    ([2.9, -2.9, float("nan"), 1e20], "double", "int", [2, -2, 0, 2147483647]),
    ([1.255, float("nan")], "double", "decimal(10,2)", [Decimal("1.26"), None]),
    ([2, 0], "int", "boolean", [True, False]),
    ([dt.datetime(2022, 4, 1, 23, 59)], "timestamp", "date", [dt.date(2022, 4, 1)]),
    ([dt.date(2022, 4, 1)], "date", "timestamp", [dt.datetime(2022, 4, 1)]),
    ([None, None], "void", "string", [None, None]),
]  # fmt: skip


ORC_CASES = [
    # ORC's schema evolution (a file's column read as the partition's type): Long.parseLong
    # for strings, NULL when a value does not fit, booleans as value != 0 of that long
    (["1", "0", "-7", "true", " 1", "1.0", "99999999999999999999"], "string", "boolean",
     [True, False, True, None, None, None, None]),
    (["12", " 7 ", "1.9", "+3", "2147483648", ""], "string", "int",
     [12, None, None, 3, None, None]),
    ([300, -128, 127, -129], "int", "tinyint", [None, -128, 127, None]),
    ([2.9, -2.9, float("nan"), 1e20, 0.5], "double", "int", [2, -2, None, None, 0]),
    ([0.5, 2.0, float("nan")], "double", "boolean", [False, True, None]),
    ([Decimal("12.7"), Decimal("9999999999999999999.9")], "decimal(20,1)", "bigint", [12, None]),
    ([2, 0], "int", "boolean", [True, False]),
    ([5, None], "int", "bigint", [5, None]),
]  # fmt: skip


@pytest.mark.parametrize(
    "values,src,dst,expected", ORC_CASES, ids=[f"{c[1]}->{c[2]}" for c in ORC_CASES]
)
def test_orc_schema_evolution_rules(
    values: list[Any], src: str, dst: str, expected: list[Any]
) -> None:
    source = parse_hive_type(src)
    array = pa.array(values, arrow_type(source))
    found = convert(array, source, parse_hive_type(dst), by_name=True, orc_file=True).to_pylist()
    assert found == expected


def test_orc_1_5_prints_dates_and_timestamps_by_java_sql() -> None:
    """ORC 1.3-1.5 write a date or timestamp as text by java.sql's ``toString``: a whole
    second as ``.0`` (ORC 1.6+ and Hive's converters print none), and stored day numbers
    (``stored_days``, Apache Hive 3.1) by their hybrid label, Julian before 1582-10-15."""
    stamps = pa.array([dt.datetime(2022, 4, 1), dt.datetime(2022, 4, 1, 1, 2, 3, 400000)])
    legacy = {"by_name": True, "orc_file": True, "orc_sql_dates": True}
    text = parse_hive_type("string")
    found = convert(stamps, parse_hive_type("timestamp"), text, **legacy).to_pylist()
    assert found == ["2022-04-01 00:00:00.0", "2022-04-01 01:02:03.4"]
    modern = convert(stamps, parse_hive_type("timestamp"), text, by_name=True, orc_file=True)
    assert modern.to_pylist() == ["2022-04-01 00:00:00", "2022-04-01 01:02:03.4"]
    # stored days of the Julian 1500-02-29 and 0001-01-01, and 1582-10-15
    days = pa.array([-171596, -719164, -141427], pa.int32()).cast(pa.date32())
    shown = convert(days, parse_hive_type("date"), text, stored_days=True, **legacy)
    assert shown.to_pylist() == ["1500-02-29", "0001-01-01", "1582-10-15"]
    stamp = pa.array([-171596 * 86_400_000_000 + 1], pa.int64()).cast(pa.timestamp("us"))
    shown = convert(stamp, parse_hive_type("timestamp"), text, stored_days=True, **legacy)
    assert shown.to_pylist() == ["1500-02-29 00:00:00.000001"]
    # the same days where Hive shows them by their labels (calendar hive2): as they read
    labels = convert(days.slice(2), parse_hive_type("date"), text, **legacy)
    assert labels.to_pylist() == ["1582-10-15"]
    # text read as dates: java.sql's hybrid day numbers, by their label or as stored
    early = pa.array(["1500-03-01"])
    labelled = convert(early, text, parse_hive_type("date"), **legacy).to_pylist()
    as_stored = convert(early, text, parse_hive_type("date"), stored_days=True, **legacy)
    assert labelled == [dt.date(1500, 3, 1)] and as_stored.to_pylist() == [dt.date(1500, 3, 11)]


def test_floats_from_text_and_integers_round_once_or_through_a_double() -> None:
    """``Float.parseFloat`` and Java's ``(float) long`` round once (the text SerDe, ORC
    1.3-1.5); Hive's converter (``getFloat`` is ``(float) getDouble``) and ORC 1.6+ round to
    a double first, which differs where the double lands halfway between two floats."""
    real = parse_hive_type("float")
    texts = pa.array(["1.00000005960464477539062500001", "0.1", None])
    longs = pa.array([1152921573326323713, 3], pa.int64())
    once = {"by_name": True, "orc_file": True, "orc_sql_dates": True}
    for options in (once, {"by_name": True, "text_file": True}):
        found = convert(texts, parse_hive_type("string"), real, **options).to_pylist()
        assert found == [1.0000001192092896, float(np.float32(0.1)), None]
    assert convert(longs, parse_hive_type("bigint"), real, **once).to_pylist() == [
        1.1529216420458004e18,
        3.0,
    ]
    for options in ({"by_name": True, "orc_file": True}, {"by_name": False}):
        found = convert(texts, parse_hive_type("string"), real, **options).to_pylist()
        assert found[0] == 1.0
        twice = convert(longs, parse_hive_type("bigint"), real, **options).to_pylist()
        assert twice == [1.152921504606847e18, 3.0]
    assert rules.parse_float32("3.4028235e38") == float(np.finfo(np.float32).max)
    assert rules.parse_float32("1e39") == math.inf and rules.parse_float32("x") is None


def test_orc_1_5_reads_floats_through_text_and_integers_as_milliseconds() -> None:
    """ORC 1.3-1.5: ``DoubleFromFloatTreeReader`` parses ``Float.toString``'s text, and
    ``TimestampFromAnyIntegerTreeReader`` is ``new Timestamp(long)`` (milliseconds); ORC 1.6+
    widen the float exactly and count seconds."""
    legacy = {"by_name": True, "orc_file": True, "orc_sql_dates": True}
    modern = {"by_name": True, "orc_file": True}
    floats, double = pa.array([74.72, 0.1, None], pa.float32()), parse_hive_type("double")
    real = parse_hive_type("float")
    assert convert(floats, real, double, **legacy).to_pylist() == [74.72, 0.1, None]
    assert convert(floats, real, double, **modern).to_pylist()[:2] == [
        74.72000122070312,
        0.10000000149011612,
    ]
    numbers, stamp = pa.array([1234, -1], pa.int64()), parse_hive_type("timestamp")
    bigint = parse_hive_type("bigint")
    assert convert(numbers, bigint, stamp, **legacy).to_pylist() == [
        dt.datetime(1970, 1, 1, 0, 0, 1, 234000),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999000),
    ]
    assert convert(numbers, bigint, stamp, **modern).to_pylist()[0] == dt.datetime(
        1970, 1, 1, 0, 20, 34
    )


@pytest.mark.parametrize("values,src,dst,expected", CASES, ids=[f"{c[1]}->{c[2]}" for c in CASES])
def test_conversion_follows_hive(
    values: list[Any], src: str, dst: str, expected: list[Any]
) -> None:
    arrow = pa.null() if src == "void" else None
    found = _convert(values, src, dst, arrow)
    assert [("nan" if isinstance(v, float) and v != v else v) for v in found] == expected


def test_structs_by_name_by_position_and_null_at_every_depth() -> None:
    file_type = "struct<b:string,a:int,zz:boolean>"
    values = [{"b": "bee", "a": 1, "zz": True}, None, {"b": None, "a": None, "zz": None}]
    by_name = _convert(values, file_type, "struct<a:bigint,b:string,c:double>")
    assert by_name == [
        {"a": 1, "b": "bee", "c": None},
        None,  # a NULL struct stays NULL, never a struct of NULLs
        {"a": None, "b": None, "c": None},
    ]
    source = parse_hive_type(file_type)
    by_position = convert(
        pa.array(values, arrow_type(source)),
        source,
        parse_hive_type("struct<x:string,y:int>"),
        by_name=False,
    )
    assert by_position.to_pylist() == [{"x": "bee", "y": 1}, None, {"x": None, "y": None}]

    nested = "array<struct<x:int,m:map<string,array<int>>>>"
    rows = [
        None,
        [],
        [None],
        [{"x": None, "m": None}],
        [{"x": 1, "m": [("k", None), ("e", []), ("n", [None, 2])]}],
    ]
    assert _convert(rows, nested, nested.replace("x:int", "x:bigint")) == [
        None,
        [],
        [None],
        [{"x": None, "m": None}],
        [{"x": 1, "m": [("k", None), ("e", []), ("n", [None, 2])]}],
    ]


def test_sliced_and_nanosecond_inputs() -> None:
    values = pa.array([[1], None, [2, 3], [4]], pa.list_(pa.int32())).slice(1, 3)
    found = convert(
        values, parse_hive_type("array<int>"), parse_hive_type("array<bigint>"), by_name=True
    )
    assert found.to_pylist() == [None, [2, 3], [4]]
    before_epoch = pa.array([-1], pa.timestamp("ns"))  # 1 ns before 1970: floored to -1 us
    assert leaf(before_epoch).view(pa.int64()).to_pylist() == [-1]


HIVE2_DATES = [
    "2020-02-30", " 2020-1-1 ", "2022-4-1 garbage", "2022", "2020-13-01", "2020-01-01 25:00:00",
    "2020-01-01T10:00:00", "1582-10-10", "1582-10-04", "2020-01-01 10:-1:00",
    "2020-01-01 10:00:00.1234567891", "2020-01-01 10:00",
]  # fmt: skip


def test_hive2_converter_reads_strings_as_java_sql_does() -> None:
    """Hive 1.2/2.x's getDate/getTimestamp (``java.sql.Date/Timestamp.valueOf``, lenient, in
    the hybrid calendar: 1582-10-10 is ten days later, 1582-10-04 stays), not Hive 3's."""
    source = HiveType("string")
    array = pa.array(HIVE2_DATES)
    dates = convert(array, source, HiveType("date"), by_name=True, hive3_converters=False)
    stamps = convert(array, source, HiveType("timestamp"), by_name=True, hive3_converters=False)
    d, t = dt.date, dt.datetime
    assert dates.to_pylist() == [
        d(2020, 3, 1), d(2020, 1, 1), None, None, None, d(2020, 1, 2), None,
        d(1582, 10, 20), d(1582, 10, 4), d(2020, 1, 1), d(2020, 1, 1), None,
    ]  # fmt: skip
    assert stamps.to_pylist() == [
        t(2020, 3, 1), t(2020, 1, 1), None, None, None, t(2020, 1, 2, 1), None,
        t(1582, 10, 20), t(1582, 10, 4), t(2020, 1, 1, 9, 59), t(2020, 1, 1, 10, 0, 0, 123456),
        None,
    ]  # fmt: skip


def test_text_rules_edges() -> None:
    assert rules.parse_integer("\t42\n", 64) == 42
    assert rules.parse_integer("9223372036854775808", 64) is None
    assert rules.java_float_text(1e-3, single=False) == "0.001"
    assert rules.java_float_text(12345678.0, single=False) == "1.2345678E7"
    assert rules.timestamp_text(-1) == "1969-12-31 23:59:59.999999"
    assert rules.wrap(2**63, 64) == -(2**63)


def _inventory(files: tuple[FileInfo, ...], columns: tuple[Column, ...]) -> TableInventory:
    table_columns = (Column("id", "bigint"), Column("name", "string"), Column("late", "int"))
    partition = PartitionInfo(
        name="dt=1",
        values=("1",),
        location="file:/data/t/dt=1",
        location_exists=True,
        outside_table_root=False,
        format="orc",
        input_format="",
        serde="",
        columns=columns,
        parameters={},
        files=files,
        skipped_files=0,
        fingerprint="f",
    )
    return TableInventory(
        "db", "t", "file:/data/t", "EXTERNAL_TABLE", "orc", "", "", table_columns,
        (Column("dt", "string"),), {}, (partition,), (), (), "", "", 0.0,
    )  # fmt: skip


def test_plan_maps_files_as_each_hive_version_reads_them() -> None:
    positional = FileInfo(
        "000000_0", 1, 0, "orc", (Column("_col0", "int"), Column("_col1", "string"))
    )
    named = FileInfo("000001_0", 1, 0, "orc", (Column("NAME", "string"), Column("ID", "int")))
    empty = FileInfo("000002_0", 0, 0, "orc", ())
    declared = (Column("id", "bigint"), Column("name", "string"))  # the partition lacks `late`
    inventory = _inventory((positional, named, empty), declared)

    def plan(semantics: HiveSemantics) -> list[Any]:
        mapping = build_mapping(inventory, None, semantics)
        return plan_files(inventory, mapping, ["dt=1"], lambda t: t)

    tasks = plan(HiveSemantics())  # Hive 2.x/3.1: the table's columns, ORC names as written
    assert [t.path for t in tasks] == ["file:/data/t/dt=1/000000_0", "file:/data/t/dt=1/000001_0"]
    by_position, by_name = tasks
    assert [c.file_index for c in by_position.columns] == [0, 1, None]
    assert [c.file_index for c in by_name.columns] == [None, None, None]  # NAME is not name
    assert [c.partition_type for c in by_name.columns] == [c.type for c in inventory.columns]
    assert by_name.keys[0].value == "1"
    insensitive = plan(HiveSemantics(case_sensitive=False))[1]
    assert [c.file_index for c in insensitive.columns] == [1, 0, None]
    forced = plan(HiveSemantics(orc_positional=True))[1]
    assert [c.file_index for c in forced.columns] == [0, 1, None]
    hive12 = plan(version_defaults("1.2"))[1]  # the partition's columns, by position
    assert [c.file_index for c in hive12.columns] == [0, 1, None]
    assert [c.partition_type for c in hive12.columns] == ["bigint", "string", None]


@pytest.mark.parametrize(
    "opinions,ok,agree,words",
    [
        (Opinions(True, OBSERVED, True, True), True, (INDEPENDENT, OBSERVED, TARGET), "agree"),
        (Opinions(True, OBSERVED, False, False), False, (INDEPENDENT, TARGET), "journal"),
        (Opinions(False, OBSERVED, True, False), False, (OBSERVED, TARGET), "read the source"),
        (Opinions(False, OBSERVED, False, True), False, (INDEPENDENT, OBSERVED), "target changed"),
        (Opinions(False, RESCAN, False, False), False, (), "all differ"),
        (Opinions(True, RESCAN, False, False), False, (INDEPENDENT, TARGET), "Spark reader"),
    ],
)
def test_verdict_names_the_two_that_agree(
    opinions: Opinions, ok: bool, agree: tuple[str, ...], words: str
) -> None:
    found = verdict(opinions, 10)
    assert (found.ok, found.agree) == (ok, agree) and words in found.detail


FORBIDDEN = (
    "lakeshift.hive.reader",
    "lakeshift.hive.projection",
    "lakeshift.hive.spark_sql",
    "lakeshift.hive.source_frame",
    "lakeshift.hive.conversions",
    "lakeshift.hive.nulled",
    "lakeshift.hive.calendar_sql",
    "lakeshift.hive.datetime_sql",
    # the Spark reader's text parsing (the SequenceFile container decoding is shared)
    "lakeshift.text.fields",
    "lakeshift.text.layout",
    "lakeshift.text.lines",
    "lakeshift.text.scan",
    "lakeshift.text.timestamps",
)


def test_the_independent_reader_shares_no_code_with_the_spark_reader() -> None:
    package = Path(__file__).parents[2] / "lakeshift" / "validate" / "independent"
    reader_modules = {"task.py", "plan.py", "convert.py", "casts.py", "text_rules.py",
                      "arrow_hash.py", "xxh64.py", "arrow_types.py", "runner.py",
                      "text_read.py", "text_timestamps.py", "calendar.py"}  # fmt: skip
    for path in package.glob("*.py"):
        if path.name not in reader_modules:
            continue
        tree = ast.parse(path.read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {m for m in imported if m and m.startswith(FORBIDDEN)}, path.name


def test_hive_type_round_trip_of_target_types() -> None:
    assert arrow_type(HiveType("timestamp")) == pa.timestamp("us")
    assert arrow_type(parse_hive_type("map<string,array<decimal(5,1)>>")) == pa.map_(
        pa.string(), pa.list_(pa.decimal128(5, 1))
    )


def test_numbers_read_as_timestamps_count_the_digits_past_a_microsecond() -> None:
    # doubleToTimestamp takes the nanoseconds from Double.toString's digits, cut toward zero:
    # 1.6000000001234567E9 has 123456700 ns; 1.600000000000001E9 a whole microsecond
    assert rules.finer_number(1_600_000_000.1234567)
    assert not rules.finer_number(1_600_000_000.000001)
    assert not rules.finer_number(float("nan"))
    # 0.1 as a float widened to a double prints 0.10000000149011612: 100000001 ns
    assert rules.finer_number(float(pa.scalar(0.1, pa.float32()).as_py()))
    # decimalToTimestamp: nanoseconds cut toward zero; digits past the ninth never count
    assert rules.finer_number(Decimal("-0.0000001"))
    assert not rules.finer_number(Decimal("-1.0000000009"))
    assert not rules.finer_number(Decimal("1600000000.123456"))
    # ... exactly, past Python's 28-digit context: 999.999999999999999 ns are 999, not 1000
    long = Decimal("1600000000.000000999999999999999999")
    assert rules.finer_number(long) and rules.finer_number(long.copy_negate())
    assert rules.seconds_to_micros(long, 10**12) == 1_600_000_000_000_000
    assert rules.seconds_to_micros(long.copy_negate(), 10**12) == -1_600_000_000_000_001  # floor
    stamp, double = HiveType("timestamp"), HiveType("double")
    values = pa.array([1_600_000_000.1234567, 1.5, None])
    assert number_finer(values, double, stamp, False, False).to_pylist() == [True, False, None]
    # ORC 1.6+ rounds a double to a millisecond; integers hold no fraction
    assert number_finer(values, double, stamp, True, False) is None
    assert number_finer(pa.array([1]), HiveType("bigint"), stamp, False, False) is None


@pytest.mark.parametrize(
    ("partition", "table", "counted"),
    [
        ("timestamp", "timestamp", (True, True)),
        ("double", "timestamp", (False, True)),
        ("string", "timestamp", (False, True)),
        ("timestamp", "string", (True, False)),
        ("timestamp", "decimal(20,9)", (True, False)),
        ("timestamp", "decimal(20,6)", (True, False)),
        ("timestamp", "decimal(20,5)", (False, False)),
        ("timestamp", "double", (True, False)),
        ("timestamp", "bigint", (False, False)),
        ("decimal(20,9)", "double", (False, False)),
    ],
)
def test_which_steps_count_digits_past_a_microsecond(
    partition: str, table: str, counted: tuple[bool, bool]
) -> None:
    assert digits_counted(parse_hive_type(partition), parse_hive_type(table)) == counted
    as_text = text_counted(parse_hive_type(partition), parse_hive_type(table))
    assert as_text == ((partition, table) in {
        ("timestamp", "timestamp"), ("timestamp", "string"), ("timestamp", "decimal(20,9)"),
        ("timestamp", "decimal(20,6)"), ("timestamp", "double"), ("string", "timestamp"),
    })  # fmt: skip


def test_nested_leaves_pair_file_partition_and_table_fields_as_the_readers_do() -> None:
    file = parse_hive_type("struct<B:array<decimal(20,9)>,a:double,z:double>")
    declared = parse_hive_type("struct<a:timestamp,b:array<decimal(20,9)>,c:double>")
    table = parse_hive_type("struct<x:string,y:array<timestamp>>")
    # by name, not case-sensitive: declared a <- file a (index 1), b <- B (index 0); c has no
    # table field: nothing. a: a timestamp the table keeps as text (counted at the first
    # step, in the file's values); b's elements: decimals the table reads as timestamps
    # (counted at the second step, in the partition's values).
    leaves = nested_leaves(file, declared, table, by_name=True, case_sensitive=False)
    assert [(n.file_path, n.partition_path, n.first, n.second) for n in leaves] == [
        ((("field", 1),), (("field", 0),), True, False),
        (None, (("field", 1), ("element", 0)), False, True),
    ]
    # case-sensitive: B is not b, which reads NULL: its elements still count at the second
    # step (a text partition's values have no file leaf either)
    leaves = nested_leaves(file, declared, table, by_name=True, case_sensitive=True)
    assert [(n.first, n.partition_path) for n in leaves] == [
        (True, (("field", 0),)),
        (False, (("field", 1), ("element", 0))),
    ]
    # by position: declared a <- file B (an array, no timestamp to count), b <- file a
    leaves = nested_leaves(file, declared, table, by_name=False, case_sensitive=False)
    assert [(n.first, n.second, n.file) for n in leaves] == [(False, True, None)]
    maps = parse_hive_type("map<double,array<double>>")
    stamps = parse_hive_type("map<double,array<timestamp>>")
    leaves = nested_leaves(maps, maps, stamps, by_name=False, case_sensitive=False)
    assert [n.partition_path for n in leaves] == [(("value", 0), ("element", 0))]


def test_a_maps_dropped_keys_give_no_values_to_count() -> None:
    from lakeshift.validate.independent.task import _at, _Maps

    # a text file's LazyMap keeps a typed key's first entry and drops a key that reads NULL;
    # ORC's schema evolution and Hive's converters (Map.put) keep its last, and a NULL key
    file = parse_hive_type("array<map<string,string>>")
    declared = parse_hive_type("array<map<int,timestamp>>")
    rows = [[[("1", "a"), ("01", "b"), ("x", "c"), ("2", "d")]], None, [None, [("5", "e")]]]
    array = pa.array(rows, arrow_type(file))
    path = (("element", 0), ("value", 0))
    text = {"by_name": False, "text_file": True}
    assert _at(array, path).to_pylist() == ["a", "b", "c", "d", "e"]
    assert _at(array, path, _Maps(file, declared, path, text)).to_pylist() == ["a", "d", "e"]
    keys = (("element", 0), ("key", 0))
    assert _at(array, keys, _Maps(file, declared, path, text)).to_pylist() == ["1", "2", "5"]
    put = {"by_name": False}
    assert _at(array, path, _Maps(file, declared, path, put)).to_pylist() == ["b", "c", "d", "e"]
    # keys the step reads alike need no typing (a text file's are unique as read)
    same = _Maps(file, parse_hive_type("array<map<string,timestamp>>"), path, text)
    assert _at(array, path, same).to_pylist() == ["a", "b", "c", "d", "e"]


def test_map_keys_that_collide_once_read_keep_the_value_hive_shows() -> None:
    # Hive 2.3.9 shows {1:"b",2:"c"} for an ORC or text map {"1":"a","01":"b","2":"c"} that
    # the table reads as map<int,string> (RecordReaderImpl.nextMap, MapConverter: Map.put)
    source, table = parse_hive_type("map<string,string>"), parse_hive_type("map<int,string>")
    array = pa.array([[("1", "a"), ("01", "b"), ("2", "c")], None], arrow_type(source))
    for options in ({"orc_file": True}, {}):
        shown = convert(array, source, table, by_name=False, **options).to_pylist()
        assert shown == [[(1, "b"), (2, "c")], None]
    # a text file's own map keeps the first ('1'), and drops the key that reads NULL
    text = pa.array([[("1", "a"), ("01", "b"), ("x", "c")]], arrow_type(source))
    shown = convert(text, source, table, by_name=False, text_file=True).to_pylist()
    assert shown == [[(1, "a")]]
    # a NULL key Hive keeps ({null:"c"}) cannot be written: refused, saying what to do
    with pytest.raises(SchemaMappingError, match="NULL key"):
        convert(text, source, table, by_name=False, orc_file=True)


def test_a_files_own_repeated_map_keys_keep_the_last_entry_as_writables_compare() -> None:
    # Hive's ORC and Parquet readers put a file's map entries into a Java map (nextMap,
    # AbstractParquetMapInspector.getMap): the last of a repeated key wins
    ints = pa.array(
        [[(1, "a"), (2, "c"), (1, "b")], None, [(3, "d")]], pa.map_(pa.int32(), pa.string())
    )
    assert java_maps(ints).to_pylist() == [[(2, "c"), (1, "b")], None, [(3, "d")]]
    # DoubleWritable makes -0.0 and 0.0 one key (== and one hash code); FloatWritable's hash
    # codes are their bits, so a float's are two; timestamps compare as Spark reads them, to
    # the microsecond (finer ones are flagged before: timestamp-nanoseconds)
    doubles = pa.array([[(0.0, "a"), (-0.0, "b"), (1.5, "c")]], pa.map_(pa.float64(), pa.string()))
    assert java_maps(doubles).to_pylist() == [[(-0.0, "b"), (1.5, "c")]]
    floats = pa.array([[(0.0, "a"), (-0.0, "b")]], pa.map_(pa.float32(), pa.string()))
    assert java_maps(floats) is floats
    stamps = pa.array([[(1000, "a"), (2000, "b"), (1000, "c"), (1500, "d")]],
                      pa.map_(pa.int64(), pa.string()))  # fmt: skip
    stamps = stamps.cast(pa.map_(pa.timestamp("ns"), pa.string()))
    assert [v for _, v in java_maps(stamps).to_pylist()[0]] == ["b", "d"]
    # a column whose maps repeat no key is the very array read (no copy), chunks as well
    distinct = pa.chunked_array([pa.array([[(1, "a")], [(1, "b"), (2, "c")]], ints.type)])
    assert java_maps(distinct) is distinct
    assert java_maps(ints.slice(2)).to_pylist() == [[(3, "d")]]
    # maps longer than the pairwise check's reach, with and without a repeated key
    long = [(i, str(i)) for i in range(40)]
    longer = pa.array([long, [*long, (7, "x")]], ints.type)
    assert java_maps(first := longer.slice(0, 1)) is first
    shown = java_maps(longer).to_pylist()
    assert shown[0] == long and len(shown[1]) == 40 and dict(shown[1])[7] == "x"
    # a map inside a list: the list is rebuilt around the kept entries, from a slice too
    lists = pa.array([[[(1, "a"), (1, "b")]], None, [[(2, "c")]]], pa.list_(ints.type))
    assert java_maps(lists).to_pylist() == [[[(1, "b")]], None, [[(2, "c")]]]
    sliced = pa.array([[[(9, "x")]], [[(1, "a"), (1, "b")]], None], pa.list_(ints.type)).slice(1)
    assert java_maps(sliced).to_pylist() == [[[(1, "b")]], None]


@pytest.mark.parametrize(
    ("src", "dst", "merge"),
    [
        ("int", "bigint", False), ("bigint", "int", True), ("int", "double", False),
        ("bigint", "double", True), ("int", "float", True), ("smallint", "float", False),
        ("int", "decimal(10,0)", False), ("int", "decimal(10,2)", True),
        ("decimal(5,2)", "decimal(7,3)", False), ("decimal(5,2)", "decimal(6,1)", True),
        ("int", "string", False), ("varchar(3)", "string", False), ("string", "int", True),
        ("string", "varchar(2)", True), ("double", "int", True), ("double", "string", True),
        ("float", "double", False), ("string", "string", False),
    ],
)  # fmt: skip
def test_only_key_conversions_that_can_merge_keys_take_the_keeping_path(
    src: str, dst: str, merge: bool
) -> None:
    assert keys_may_merge(parse_hive_type(src), parse_hive_type(dst)) is merge
