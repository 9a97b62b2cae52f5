"""Timestamps finer than a microsecond (ORC holds nanoseconds; Iceberg v2, Delta and Hudi hold
microseconds) are never lost silently: ``inspect`` flags the files whose statistics show them,
and both validation levels report such a partition as differing, in every format."""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL, MISMATCH
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import both_levels, migrate_and_validate
from tests.helpers.orc_nanos import orc_with_nanos

pytestmark = pytest.mark.slow

BASE = 1_600_000_000_000_000_000  # 2020-09-13 12:26:40 UTC, in nanoseconds
BASE_TIME = dt.datetime(2020, 9, 13, 12, 26, 40)
ONE_US = dt.timedelta(microseconds=1)
#: The partitions holding one value finer than a microsecond (and one that is not).
FINE = (
    *("dt=fine", "dt=textfine", "dt=stringfine"),
    *("dt=doublefine", "dt=decimalfine", "dt=numbertext"),
)


def _wide_orc() -> bytes:
    year_3000 = 32_503_680_000  # 3000-01-01 00:00:00 UTC, in seconds
    rows = [(0, (BASE // 10**9, 123_456_789)), (1, (year_3000, 5)), (2, None)]
    return orc_with_nanos("struct<i:int,ts:timestamp>", rows)


@pytest.fixture(scope="module")
def stamped(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(
        client, tables_root, "precision", unique_name("t"), [("i", "int"), ("ts", "timestamp")]
    )
    fine = pa.array([BASE + 123_456_789, BASE + 1_000, None], pa.timestamp("ns"))
    coarse = pa.array([BASE + 123_456_000, BASE, None], pa.timestamp("ns"))
    ids = pa.array([0, 1, 2], pa.int32())
    b.add_partition(["fine"], {"000000_0": pa.table({"i": ids, "ts": fine})})
    b.add_partition(["coarse"], {"000000_0": pa.table({"i": ids, "ts": coarse})})
    # The file's minimum and maximum are whole microseconds: its statistics show nothing, as
    # those of ORC writers before 1.6 (Hive 2.x and 3.1's) never do
    middle = pa.array([BASE + 123_456_789, BASE, BASE + 999_000_000], pa.timestamp("ns"))
    b.add_partition(["middle"], {"000000_0": pa.table({"i": ids, "ts": middle})})
    # A timestamp past 2262 leaves pyarrow unable to read the file at nanoseconds: pyorc counts
    # it value by value (two finer than a microsecond: .123456789 and year 3000's 5 ns)
    b.add_partition(["widefine"], {"000000_0": _wide_orc()})
    # Parquet INT96 (Hive's and Impala's timestamps) holds nanoseconds too, without statistics
    int96 = io.BytesIO()
    pq.write_table(pa.table({"i": ids, "ts": fine}), int96, use_deprecated_int96_timestamps=True)
    b.add_partition(["int96fine"], {"000000_0": int96.getvalue()}, fmt="parquet")
    # Text holds nine digits too: a text partition's timestamp fields, and an ORC file whose
    # column is a string that the table reads as a timestamp (ORC's schema evolution).
    for name, fraction in (("textfine", "123456789"), ("textcoarse", "123456000")):
        lines = f"0\x012020-09-13 12:26:40.{fraction}\n1\x012020-09-13 12:26:40.000001\n2\x01\\N\n"
        b.add_partition([name], {"000000_0": lines.encode()}, fmt="text")
    texts = pa.array(["2020-09-13 12:26:40.123456789", "2020-09-13 12:26:40", None])
    b.add_partition(["stringfine"], {"000000_0": pa.table({"i": ids, "ts": texts})})
    # Numbers read as timestamps: Hive takes the nanoseconds from their digits
    # (TimestampUtils.doubleToTimestamp, by Double.toString; decimalToTimestamp), through ORC
    # 1.3-1.5's schema evolution (Hive 2.x/3.1's default) and through Hive's converter from a
    # partition's declared decimal to the table's timestamp. 1600000000.000001 is
    # 1.600000000000001E9 by Double.toString: a whole microsecond, not counted. The decimals
    # hold 28 digits after the point: decimalToTimestamp cuts them exactly to 123456999 ns,
    # never rounding them up to a whole microsecond.
    doubles = pa.array([1_600_000_000.1234567, 1_600_000_000.000001, None])
    b.add_partition(["doublefine"], {"000000_0": pa.table({"i": ids, "ts": doubles})})
    fine = "1600000000.1234569999999999999999999999"
    numbers = [Decimal(fine), Decimal("1600000000.000001000"), None]
    decimals = pa.array(numbers, pa.decimal128(38, 28))
    b.add_partition(["decimalfine"], {"000000_0": pa.table({"i": ids, "ts": decimals})})
    lines = f"0\x01{fine}\n1\x011600000000.000001\n2\x01\\N\n"
    b.add_partition(
        ["numbertext"],
        {"000000_0": lines.encode()},
        fmt="text",
        columns=[("i", "int"), ("ts", "decimal(38,28)")],
    )
    return f"{b.db}.{b.name}"


def test_inspect_flags_files_whose_statistics_show_nanoseconds(
    stamped: str, client: MetastoreClient, settings: Settings
) -> None:
    inventory = inspect_table(client, stamped, settings)
    codes = {p.name: {a.code for a in p.anomalies} for p in inventory.partitions}
    assert "timestamp-nanoseconds" in codes["dt=fine"]
    assert "timestamp-nanoseconds" not in codes["dt=coarse"] | codes["dt=middle"]


@pytest.mark.parametrize(
    "fmt",  # make test: Iceberg; make extended: Delta and Hudi
    ["iceberg", *(pytest.param(f, marks=pytest.mark.extended) for f in ("delta", "hudi"))],
)
def test_both_levels_see_truncated_nanoseconds(
    fmt: str,
    stamped: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    target = f"{stamped}_{fmt}"
    journal_path = lakeshift_home / f"precision-{fmt}.sqlite"
    result, reports = both_levels(spark, client, settings, journal_path, stamped, target, fmt)
    assert len(result.backfilled) == 11
    for level, report in reports.items():
        by_name = {p.partition: p for p in report.partitions}
        assert by_name["dt=coarse"].status == by_name["dt=textcoarse"].status == EQUAL, level
        # Each level counts the values finer than a microsecond by its own scan: statistics
        # show none in dt=middle, and INT96 has none (README, "Timestamps finer than a
        # microsecond")
        for name, counted in (("dt=fine", 1), ("dt=middle", 1), ("dt=int96fine", 1),
                              ("dt=widefine", 2)):  # fmt: skip
            fine = by_name[name]
            assert fine.status == MISMATCH, (level, name, fine.detail)
            assert f"counted {counted} timestamp value" in fine.detail, (level, name, fine.detail)
        for name in FINE:
            fine = by_name[name]
            assert fine.status == MISMATCH and "microsecond" in fine.detail, (level, name)
            if level == "independent":
                # 123456789 ns; 1000 ns is a whole microsecond
                assert "counted 1 timestamp value" in fine.detail, (name, fine.detail)
        for name in FINE[1:]:  # the checksum level's own scan saw them
            detail = by_name[name].detail
            assert "1 value(s) read as timestamps" in detail, (level, name, detail)
        assert not report.ok
    rows = read_lake(client, target).to_pylist()
    firsts = {r["ts"].replace(tzinfo=None) for r in rows if r["i"] == 0}
    assert firsts == {dt.datetime(2020, 9, 13, 12, 26, 40, 123456)}  # eleven partitions, cut alike
    numbers = {(r["dt"], r["i"]): r["ts"].replace(tzinfo=None) for r in rows if r["ts"]}
    assert numbers[("widefine", 1)] == dt.datetime(3000, 1, 1)  # 5 ns, cut
    for name in ("doublefine", "decimalfine", "numbertext"):  # a whole microsecond, kept
        assert numbers[(name, 1)] == dt.datetime(2020, 9, 13, 12, 26, 40, 1), name


def test_accepted_truncation_validates_and_says_so(
    stamped: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    target = f"{stamped}_accepted"
    _, report = migrate_and_validate(
        spark,
        client,
        replace(settings, timestamp_precision="truncate"),
        lakeshift_home / "precision-accepted.sqlite",
        stamped,
        target,
        "iceberg",
    )
    by_name = {p.partition: p for p in report.partitions}
    for name in (*FINE, "dt=middle", "dt=int96fine", "dt=widefine"):
        fine = by_name[name]
        assert fine.status == EQUAL and "accepted" in fine.detail, (name, fine.detail)
    assert report.ok


NESTED = [
    ("i", "int"),
    ("s", "struct<a:timestamp,b:int,t:timestamp>"),
    ("arr", "array<timestamp>"),
    ("m", "map<string,timestamp>"),
]
#: a text partition's declared types: numbers where the table has timestamps (s.t: text)
NUMBERS = [
    ("i", "int"),
    ("s", "struct<a:double,b:int,t:timestamp>"),
    ("arr", "array<decimal(38,28)>"),
    ("m", "map<string,double>"),
]
#: a text partition whose map keys are ints: '01' repeats '1' once typed and 'x' reads NULL
INT_KEYS = [*NUMBERS[:3], ("m", "map<int,timestamp>")]
LONG = "1600000000.1234569999999999999999999999"  # 123456999 ns, exactly (decimalToTimestamp)
STAMP = pa.timestamp("ns")


@pytest.fixture(scope="module")
def nested_numbers(client: MetastoreClient, tables_root: Path) -> str:
    """Numbers and text inside a struct, an array and a map that the table reads as
    timestamps: four values per partition with digits past a microsecond (s.a, s.t and arr[0]
    of row 0, m['x'] of row 1), through ORC's schema evolution (Hive 2.x/3.1 read an ORC
    file into the table's types: a double, a decimal, a string) and through a text
    partition (its timestamp text, and Hive's converter from its declared numbers); and a
    text partition whose int-keyed map has keys Hive drops, whose values count nothing."""
    b = HiveTableBuilder(client, tables_root, "precision", unique_name("n"), NESTED)
    struct = pa.struct([("a", pa.float64()), ("b", pa.int32()), ("t", pa.string())])

    def orc(fine: bool) -> pa.Table:
        a = 1_600_000_000.1234567 if fine else 1_600_000_000.123456
        first = Decimal(LONG) if fine else Decimal("1600000000.123456")
        x = 1_600_000_000.1234567 if fine else 1.5
        t = "2020-09-13 12:26:40." + ("123456789" if fine else "123456")
        return pa.table({
            "i": pa.array([0, 1, 2], pa.int32()),
            "s": pa.array([{"a": a, "b": 0, "t": t}, None, {"a": None, "b": 1, "t": None}],
                          struct),
            "arr": pa.array([[first, Decimal("1600000000.000001")], None, [None]],
                            pa.list_(pa.decimal128(38, 28))),
            "m": pa.array([[("k", 1_600_000_000.000001), ("j", 1.5)], [("x", x)], None],
                          pa.map_(pa.string(), pa.float64())),
        })  # fmt: skip

    b.add_partition(["orcfine"], {"000000_0": orc(True)})
    b.add_partition(["orccoarse"], {"000000_0": orc(False)})
    lines = (
        f"0\x011600000000.1234567\x020\x022020-09-13 12:26:40.123456789\x01{LONG}"
        "\x021600000000.000001\x01"
        "k\x031600000000.000001\x02j\x031.5\n"
        "1\x01\\N\x01\\N\x01x\x031600000000.1234567\n"
        "2\x01\\N\x021\x02\\N\x01\\N\x01\\N\n"
    )
    b.add_partition(["textfine"], {"000000_0": lines.encode()}, fmt="text", columns=NUMBERS)
    # Hive's LazyMap.getMap drops a key that reads NULL and keeps a repeated key's first value
    # (LazyMap.java, "do not overwrite if there are duplicate keys"): one value shows here
    fine, coarse = "2020-09-13 12:26:40.123456789", "2020-09-13 12:26:40.123456"
    keys = (
        f"0\x01\\N\x01\\N\x011\x03{fine}\x0201\x03{fine}\x02x\x03{fine}\x022\x03{coarse}\n"
        f"1\x01\\N\x01\\N\x01x\x03{fine}\n"
    )
    b.add_partition(["textkeys"], {"000000_0": keys.encode()}, fmt="text", columns=INT_KEYS)
    # The table's own types, timestamps at every depth: four finer than a microsecond (s.a,
    # arr[1] and m['k'] of row 0, m['x'] of row 1), in ORC and in Parquet INT96
    stamps = pa.table({
        "i": pa.array([0, 1, 2], pa.int32()),
        "s": pa.array([{"a": BASE + 123_456_789, "b": 0, "t": BASE}, None,
                       {"a": None, "b": 1, "t": BASE + 1_000}],
                      pa.struct([("a", STAMP), ("b", pa.int32()), ("t", STAMP)])),
        "arr": pa.array([[BASE + 1_000, BASE + 7], None, [None]], pa.list_(STAMP)),
        "m": pa.array([[("k", BASE + 5), ("j", BASE)], [("x", BASE + 999)], None],
                      pa.map_(pa.string(), STAMP)),
    })  # fmt: skip
    b.add_partition(["orcstamps"], {"000000_0": stamps})
    int96 = io.BytesIO()
    pq.write_table(stamps, int96, use_deprecated_int96_timestamps=True)
    b.add_partition(["int96stamps"], {"000000_0": int96.getvalue()}, fmt="parquet")
    return f"{b.db}.{b.name}"


# Counting is reader logic, the same for every format, and `make extended` checks it in all three
# (30-60 s each). `make test` keeps its fast subset: the flat values above, at both levels, and
# tests/unit/test_nanoseconds_scan.py's structs, arrays and maps.
@pytest.mark.extended
@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_numbers_inside_structs_arrays_and_maps_are_counted_at_both_levels(
    fmt: str,
    nested_numbers: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    target = f"{nested_numbers}_{fmt}"
    journal_path = lakeshift_home / f"precision-nested-{fmt}.sqlite"
    result, reports = both_levels(
        spark, client, settings, journal_path, nested_numbers, target, fmt
    )
    assert len(result.backfilled) == 6
    checksum, independent = reports["checksum"], reports["independent"]
    for report, says in ((checksum, "4 value(s) read as timestamps"),
                         (independent, "counted 4 timestamp value")):  # fmt: skip
        by_name = {p.partition: p for p in report.partitions}
        assert by_name["dt=orccoarse"].status == EQUAL, by_name["dt=orccoarse"].detail
        for name in ("dt=orcfine", "dt=textfine"):
            assert by_name[name].status == MISMATCH, (name, by_name[name].detail)
            assert says in by_name[name].detail, (name, by_name[name].detail)
        keys = by_name["dt=textkeys"]  # the dropped keys' values are not counted
        assert keys.status == MISMATCH and says.replace("4", "1") in keys.detail, keys.detail
        for name in ("dt=orcstamps", "dt=int96stamps"):  # each level's own scan counts them
            stamps = by_name[name]
            assert stamps.status == MISMATCH, (name, stamps.detail)
            assert "counted 4 timestamp value" in stamps.detail, (name, stamps.detail)
    rows = {(r["dt"], r["i"]): r for r in read_lake(client, target).to_pylist()}
    cut = dt.datetime(2020, 9, 13, 12, 26, 40, 123456)
    for name in ("orcfine", "textfine"):
        row = rows[(name, 0)]
        assert row["s"]["a"].replace(tzinfo=None) == cut, name
        assert row["arr"][0].replace(tzinfo=None) == cut, name  # 123456999 ns, cut
        assert row["s"]["t"].replace(tzinfo=None) == cut, name
    for name in ("orcstamps", "int96stamps"):
        row = rows[(name, 0)]
        assert row["s"]["a"].replace(tzinfo=None) == cut, name
        assert [v.replace(tzinfo=None) for v in row["arr"]] == [BASE_TIME + ONE_US, BASE_TIME], name
    shown = {k: v.replace(tzinfo=None) for k, v in rows[("textkeys", 0)]["m"]}
    assert shown == {"1": cut, "2": cut}  # '01' and 'x' dropped, as Hive shows the map
    assert not rows[("textkeys", 1)]["m"]


@pytest.fixture(scope="module")
def stamps_as_text(client: MetastoreClient, tables_root: Path) -> str:
    """An ORC file's timestamp column that the table (and partition) declares a string."""
    b = HiveTableBuilder(
        client, tables_root, "precision", unique_name("s"), [("i", "int"), ("ts", "string")]
    )
    fine = pa.array([BASE + 123_456_789, None], pa.timestamp("ns"))
    b.add_partition(
        ["fine"], {"000000_0": pa.table({"i": pa.array([0, 1], pa.int32()), "ts": fine})}
    )
    return f"{b.db}.{b.name}"


def test_a_timestamp_the_table_reads_as_text_is_counted_too(
    stamps_as_text: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    """Hive shows the file's nine digits in the text (ORC 1.3-1.5's conversion, and Hive's
    converter, print a java.sql.Timestamp), lakeshift's readers take the timestamp in
    microseconds first: the text is cut, and both levels count the value."""
    target = f"{stamps_as_text}_iceberg"
    journal = lakeshift_home / "precision-text.sqlite"
    _, reports = both_levels(spark, client, settings, journal, stamps_as_text, target, "iceberg")
    for level, report in reports.items():
        (fine,) = report.partitions
        assert fine.status == MISMATCH, (level, fine.detail)
        assert "counted 1 timestamp value" in fine.detail, (level, fine.detail)
    (text,) = {r["ts"] for r in read_lake(client, target).to_pylist() if r["i"] == 0}
    assert text == "2020-09-13 12:26:40.123456"


@pytest.mark.parametrize(
    "fmt",  # make test: Iceberg; make extended: Delta and Hudi
    ["iceberg", *(pytest.param(f, marks=pytest.mark.extended) for f in ("delta", "hudi"))],
)
def test_the_arrow_path_counts_nanoseconds_while_writing(
    fmt: str,
    client: MetastoreClient,
    tables_root: Path,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Arrow path's tasks read the ORC files at nanoseconds before cutting them to
    microseconds: they count what they cut, the journal keeps it beside the observed
    checksum, and the checksum level reports it without reading the source again."""
    b = HiveTableBuilder(
        client, tables_root, "precision", unique_name("a"), [("i", "int"), ("ts", "timestamp")]
    )
    ids = pa.array([0, 1, 2], pa.int32())
    fine = pa.array([BASE + 123_456_789, BASE + 1_000, BASE + 7], pa.timestamp("ns"))
    coarse = pa.array([BASE + 123_456_000, BASE, None], pa.timestamp("ns"))
    b.add_partition(["fine"], {"000000_0": pa.table({"i": ids, "ts": fine})})
    b.add_partition(["coarse"], {"000000_0": pa.table({"i": ids, "ts": coarse})})
    source = f"{b.db}.{b.name}"
    from lakeshift.validate import validator

    scanned: list[list[str]] = []
    real = validator.finer_timestamps
    monkeypatch.setattr(
        validator,
        "finer_timestamps",
        lambda spark, inventory, mapping, names: (
            scanned.append(names) or real(spark, inventory, mapping, names)
        ),
    )
    journal_path = lakeshift_home / f"precision-arrow-{fmt}.sqlite"
    result, report = migrate_and_validate(
        spark, client, settings, journal_path, source, f"{source}_{fmt}", fmt, level="checksum"
    )
    assert result.ok and len(result.backfilled) == 2
    by_name = {p.partition: p for p in report.partitions}
    assert by_name["dt=coarse"].status == EQUAL, by_name["dt=coarse"].detail
    assert by_name["dt=fine"].status == MISMATCH
    # .123456789 and 7 ns are finer than a microsecond; 1,000 ns is one
    assert "the backfill's reading of the source counted 2 timestamp value" in (
        by_name["dt=fine"].detail
    )
    assert scanned == []  # the tasks counted them: no scan of the source at nanoseconds
