"""A differential run against Hive 2.3.9 (``make differential``, not in ``make test``).

Random tables, each column one random file type read as one random table type, in an ORC
partition (ORC's schema evolution) and a text partition holding the same values (Hive's
converter): what Hive's own FetchOperator shows (``tests/helpers/hive_oracle.py``) against
both of lakeshift's readers, value by value. It found the conversion rules that
``test_orc_conversions`` now holds as fixed cases. ``LAKESHIFT_DIFF_SEED`` and
``LAKESHIFT_DIFF_COLUMNS`` choose the run; differences that are documented limits (README
"Limits") are left out by rule, each named below.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import random
import re
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.hive.conversions import unreadable
from lakeshift.hive.types import parse_hive_type
from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_oracle import hive_answers
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.readers import both_readers, finer_counts
from tests.integration.test_hive_zone import COLUMNS as ZONE_COLUMNS
from tests.integration.test_hive_zone import (
    HAVANA,
    KEY_TEXTS,
    KEYS_SHOWN,
    MIDNIGHT_DAYS,
    build_int96_table,
    build_key_table,
    build_midnight_table,
    build_zone_table,
    int96_rows,
)
from tests.integration.test_hive_zone import ZONE as HIVE_ZONE
from tests.integration.test_hive_zone import shown as zoned_rows
from tests.integration.test_map_keys import SHOWN as MAP_KEYS_SHOWN
from tests.integration.test_map_keys import build_map_keys_table
from tests.integration.test_orc_conversions import (
    STAMPS_AS_DATES,
    _same,
    _shown,
    _text,
    build_stamps_as_dates,
)
from tests.integration.test_writer_zone import ZONE, build_zoneless_table, expected_rows

pytestmark = [pytest.mark.differential, pytest.mark.slow]

ROWS = 24
TEXTS = ["12", " 7 ", "1.9", "+3", "-0", "2147483648", "", "abc", "1e3", "NaN", "1.005",
         "2020-01-01", " 2020-01-01 ", "2020-1-1", "2020-02-30", "2020-01-01 10:00:00",
         "2020-01-01 10:00:00.123", "true", "0", "\uff11\uff12", " 12", "12 ", "0x1F", "1_000",
         "TRUE", "t", "1.0", "-", "+", ".5", "5.", "1e400", "-1e-400", "Infinity", "-Infinity",
         "9223372036854775807", "9223372036854775808", "-9223372036854775809", "00012",
         "3.14abc", "1.5e2", "-.5", "0.000001", "123456789012345678901234567890", "1,5", "yes",
         "FALSE", "false ", "2020-01-01T10:00", "0001-01-01", "2020-06-15 24:00:00",
         "1.7976931348623157E308", "-2147483649", "32768", "-129", "255", "1e-5", "0e0",
         "\u0661\u0662", "null", "inf", "-inf", "nan", "INF", "NaNd", "+NaN", "Infinity ",
         "-\uff11\uff12", "+\u0663", "1.5f", "0x1p3"]  # fmt: skip
KINDS = ["boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal",
         "string", "varchar", "char", "date", "timestamp", "binary"]  # fmt: skip
BITS = {"tinyint": pa.int8(), "smallint": pa.int16(), "int": pa.int32(), "bigint": pa.int64()}
ARROW = {"boolean": pa.bool_(), "float": pa.float32(), "double": pa.float64(),
         "string": pa.string(), "date": pa.date32(), "timestamp": pa.timestamp("us"),
         "binary": pa.binary()}  # fmt: skip


def _type(rng: random.Random, in_file: bool) -> str:
    kind = rng.choice(KINDS)
    if kind == "decimal":
        precision = rng.randint(1, 38)
        return f"decimal({precision},{rng.randint(0, precision)})"
    if kind in ("varchar", "char"):  # an ORC file written by pyarrow holds them as string
        return "string" if in_file else f"{kind}({rng.randint(1, 12)})"
    return kind


def _value(rng: random.Random, hive: str) -> Any:
    kind = parse_hive_type(hive)
    if kind.kind == "boolean":
        return rng.random() < 0.5
    if kind.kind in BITS:
        bits = BITS[kind.kind].bit_width
        low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        edges = [0, 1, -1, 127, -128, 255, 32767, -32768, 2**31 - 1, -(2**31), 2**63 - 1]
        picked = rng.choice([*edges, -(2**63), 1577836800123, rng.randint(low, high)])
        return min(high, max(low, picked))
    if kind.kind in ("float", "double"):
        return rng.choice([0.0, -0.0, 1.5, -2.5, math.nan, math.inf, -math.inf, 1e-7, 1e20,
                           0.1, 123456.789, 1.005, 99.995, 2147483647.9, 0.5, -0.5,
                           rng.uniform(-1e6, 1e6), float(rng.randint(-10**9, 10**9))])  # fmt: skip
    if kind.kind == "decimal":
        precision, scale = kind.params
        digits = rng.randint(0, precision)
        return Decimal(rng.randint(0, 10**digits - 1) * rng.choice([1, -1])).scaleb(-scale)
    if kind.kind in ("string", "varchar", "char"):
        return rng.choice(TEXTS)
    if kind.kind == "date":  # from 1583: earlier days are the calendar tests' business
        return dt.date(1970, 1, 1) + dt.timedelta(days=rng.randint(-141000, 2932896))
    if kind.kind == "timestamp":  # whole seconds before 1970 (ORC's C++ writer: README)
        if rng.random() < 0.5:
            return dt.datetime(1970, 1, 1) + dt.timedelta(seconds=rng.randint(-(10**10), 0))
        return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=rng.randint(0, 2 * 10**17))
    return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 6)))


def _declared(rng: random.Random, file_type: str) -> str:
    """The text partition's own type for a column: a string field is often declared CHAR or
    VARCHAR, which Hive's text reader cuts (and pads) before the converter reads it."""
    if file_type == "string" and rng.random() < 0.5:
        return f"{rng.choice(['char', 'varchar'])}({rng.randint(1, 12)})"
    return file_type


def _column(rng: random.Random, hive: str) -> pa.Array:
    values = [None if rng.random() < 0.08 else _value(rng, hive) for _ in range(ROWS)]
    kind = parse_hive_type(hive)
    if kind.kind == "decimal":
        return pa.array(values, pa.decimal128(*kind.params))
    return pa.array(values, BITS.get(kind.kind) or ARROW.get(kind.kind, pa.string()))


def _cell(file_type: str, value: Any) -> str:
    """The text file's field (NULL where a value would break the row or is binary)."""
    if parse_hive_type(file_type).kind == "binary":
        return "\\N"
    if isinstance(value, str) and any(c in value for c in "\n\r\x01\t"):
        return "\\N"
    return _text(value)


def _documented(table_type: str, shown: str | None, mine: str | None, raw: Any) -> bool:
    """Differences README "Limits" names: subnormal doubles' Java text, and numbers past the
    range of a timestamp (Hive shows an overflowed value); and a year past 9999, which
    java.sql's ``Timestamp.toString`` prints garbled (the instant is the same)."""
    if isinstance(raw, float) and raw != 0 and abs(raw) < 2.3e-308:
        return True
    if table_type == "timestamp" and mine is not None and len(mine.split("-")[0]) > 4:
        return True
    return table_type == "timestamp" and mine is None and shown is not None


def _orc_1_9_early_text(file_type: str, table_type: str, raw: Any) -> bool:
    """A timestamp before 1900 that ORC 1.9 without ``useUTCTimestamp`` (the oracle's ORC
    under Hive 2.3.9, which does not know that option; no Hive ships the pair) writes as text
    in a zone other than UTC: it reads the file's value by java.util's raw offset and prints
    it through java.time, which counts the zone's local mean time there (3:58 later in New
    York). Hive 2.3's own ORC 1.3 and Hive 4's ORC in UTC do neither."""
    text = parse_hive_type(table_type).kind in ("string", "varchar", "char")
    return file_type == "timestamp" and text and raw is not None and raw.year < 1900


def _year_of_era(text: str) -> str:
    """A timestamp's text with its year as java.sql's ``Timestamp.toString`` prints it: the
    year of its era, unsigned (Spark's -0093, 94 BC, is Hive's 0094)."""
    if not text.startswith("-"):
        return text
    year, rest = text[1:].split("-", 1)
    return f"{1 + int(year):04d}-{rest}"


def _overflows(raw: Any, limit: float = 9_223_372_036_854) -> bool:
    """A number of seconds past ``limit`` (by default, whose microseconds leave a long:
    lakeshift reads NULL)."""
    return isinstance(raw, (int, float, Decimal)) and not abs(raw) <= limit


#: (column, the text partition's declared type, the table's type, the values)
Chunk = tuple[str, str, str, pa.Array]


def _finer_differ(
    spark: Any,
    client: MetastoreClient,
    name: str,
    settings: Settings,
    chunk: list[Chunk],
    expected: dict[tuple[str, int], list[str | None]],
) -> list[tuple[Any, ...]]:
    """Both levels' counts of values finer than a microsecond against Hive's own digits:
    per column where the table reads a timestamp (Hive prints its nanoseconds; numbers past
    the range of a timestamp, which Hive shows overflowed, are a documented limit), and the
    independent reader's partition total against the checksum level's."""
    by_column, independent = finer_counts(spark, client, name, settings)
    differ: list[tuple[Any, ...]] = []
    for partition in ("1", "2"):
        counted = by_column.get(f"dt={partition}", {})
        for index, (column, declared, table_type, _) in enumerate(chunk, start=1):
            if parse_hive_type(table_type).kind != "timestamp":
                continue
            raw = chunk[index - 1][3]
            shown = [
                r[index]
                for (p, row), r in expected.items()
                if p == partition and not _overflows(raw[row].as_py())
            ]
            hive = sum(1 for v in shown if v and len(v.partition(".")[2]) > 6)
            if counted.get(column, 0) != hive:
                how = f"{declared}->{table_type}"
                differ.append(("finer", partition, column, how, hive, counted.get(column, 0)))
        total = sum(counted.values())
        if independent.get(f"dt={partition}", 0) != total:
            differ.append(("finer", partition, "independent", independent, total))
    return differ


def test_readers_read_random_conversions_as_hive_2_3_9_does(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    rng = random.Random(int(os.environ.get("LAKESHIFT_DIFF_SEED", "1")))
    columns = _random_columns(rng, int(os.environ.get("LAKESHIFT_DIFF_COLUMNS", "96")))
    _against_hive(client, tables_root, metastore_uri, settings, spark, columns)


def _random_columns(
    rng: random.Random, wanted: int, keep: Callable[[str, str], bool] | None = None
) -> list[Chunk]:
    """``wanted`` random columns (``keep``: only file and table type pairs it accepts) that
    both ORC's schema evolution and Hive's converter read."""
    columns: list[Chunk] = []
    while len(columns) < wanted:
        file_type, table_type = _type(rng, True), _type(rng, False)
        if keep is not None and not keep(file_type, table_type):
            continue
        if not unreadable(parse_hive_type(file_type), parse_hive_type(table_type), by_name=True):
            declared = _declared(rng, file_type)
            text_reads = unreadable(
                parse_hive_type(declared),
                parse_hive_type(table_type),
                by_name=False,
                converter=True,
            )
            if not text_reads:
                values = _column(rng, file_type)
                columns.append((f"c{len(columns)}", declared, table_type, values))
    return columns


def test_numbers_read_as_timestamps_count_what_hive_2_3_9_shows(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """Floats, doubles and decimals read as timestamps (rare among random pairs): their values
    and both levels' counts of digits past a microsecond, against Hive's, through ORC's
    schema evolution and through Hive's converter (the text partition)."""
    rng = random.Random(int(os.environ.get("LAKESHIFT_DIFF_SEED", "1")))
    columns: list[Chunk] = []
    for file_type in ("float", "double", "double", *(_type(rng, True) for _ in range(40))):
        if file_type in ("float", "double") or file_type.startswith("decimal"):
            values = _column(rng, file_type)
            if file_type.startswith("decimal"):
                # ORC 1.6+ (the oracle's) fails the whole query on a decimal whose
                # milliseconds leave a long (Instant.toEpochMilli): no answer to compare
                kept = [None if _overflows(v, 9.2e15) else v for v in values.to_pylist()]
                values = pa.array(kept, values.type)
            columns.append((f"c{len(columns)}", file_type, "timestamp", values))
    _against_hive(client, tables_root, metastore_uri, settings, spark, columns[:16])


def test_random_timestamp_conversions_in_new_york_read_as_hive_2_3_9_there_does(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """Random columns read as timestamps or from them, asked of Hive with its JVM in New
    York: ``hive_time_zone`` makes both readers read them as that Hive does."""
    rng = random.Random(int(os.environ.get("LAKESHIFT_DIFF_SEED", "1")))
    columns = _random_columns(
        rng, 24, lambda f, t: "timestamp" in (f, t) and not f == t == "timestamp"
    )
    _against_hive(client, tables_root, metastore_uri, settings, spark, columns, HIVE_ZONE)


def _against_hive(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
    columns: list[Chunk],
    time_zone: str | None = None,
) -> None:
    """Each column in an ORC partition and a text partition, read by both of lakeshift's
    readers and by Hive 2.3.9 (its JVM in ``time_zone``, else UTC); their values, and the
    counts of timestamps finer than a microsecond, must agree."""
    # The oracle's own version with the ORC release it runs here (1.9: exact)
    settings = replace(
        settings, hive_version="2.3", orc_date_parser="exact", hive_time_zone=time_zone or "UTC"
    )
    tables = []
    for chunk in (columns[i : i + 8] for i in range(0, len(columns), 8)):
        b = HiveTableBuilder(client, tables_root, "differential", unique_name("t"),
                             [("rid", "int"), *[(n, t) for n, _, t, _ in chunk]])  # fmt: skip
        data = {"rid": pa.array(range(ROWS), pa.int32()), **{n: v for n, _, _, v in chunk}}
        b.add_partition(["1"], {"000000_0": pa.table(data)})
        lines = [
            "\x01".join([str(r), *(_cell(f, v[r].as_py()) for _, f, _, v in chunk)])
            for r in range(ROWS)
        ]
        b.add_partition(["2"], {"000000_0": ("\n".join(lines) + "\n").encode()},
                        columns=[("rid", "int"), *[(n, f) for n, f, _, _ in chunk]],
                        fmt="text")  # fmt: skip
        tables.append((f"{b.db}.{b.name}", chunk))
    answers = hive_answers(
        metastore_uri, [(f"select * from {name}", {}) for name, _ in tables], time_zone
    )
    differ = []
    for (name, chunk), hive in zip(tables, answers, strict=True):
        expected = {(r[-1], int(r[0])): r for r in hive}
        differ.extend(_finer_differ(spark, client, name, settings, chunk, expected))
        frames = both_readers(spark, client, name, settings)
        stamps = {n for n, _, t, _ in chunk if parse_hive_type(t).kind == "timestamp"}
        for reader, frame in frames.items():
            # timestamps as Spark prints them: a year past 9999 has no Python datetime
            frame = frame.selectExpr(
                *(f"CAST({c} AS STRING) AS {c}" if c in stamps else c for c in frame.columns)
            )
            rows = {(r["dt"], r["rid"]): r.asDict() for r in frame.collect()}
            assert len(rows) == len(expected) == 2 * ROWS, (reader, name)
            for index, (column, file_type, table_type, values) in enumerate(chunk, start=1):
                if parse_hive_type(table_type).kind == "binary":
                    continue  # Hive prints raw bytes, which its text output cannot carry
                for key, row in expected.items():
                    shown, mine = row[index], _shown(rows[key][column])
                    if column in stamps and mine is not None:
                        mine = _year_of_era(mine.lstrip("+"))  # Spark signs a year past 9999
                    raw = values[key[1]].as_py()
                    if shown is None and mine == "NULL":
                        continue  # the text NULL and a NULL print alike
                    if _same(mine, shown, table_type) or _documented(table_type, shown, mine, raw):
                        continue
                    if (
                        time_zone
                        and key[0] == "1"
                        and _orc_1_9_early_text(file_type, table_type, raw)
                    ):
                        continue
                    how = "orc" if key[0] == "1" else "text"
                    differ.append((reader, how, f"{file_type}->{table_type}", raw, shown, mine))
    assert differ == [], "\n".join(map(str, differ[:60]))


def _hive_map(text: str | None) -> dict[Any, str] | None:
    """A map as Hive's CLI prints it (``{1:"b",2:"c"}``, ``{"ab":"b"}``; the values here
    hold no quotes), each key once (asserted: a dict would hide a key Hive showed twice)."""
    if text is None:
        return None
    entries = re.findall(r'(null|-?\d+|"[^"]*"):"([^"]*)"', text)
    shown = {(None if k == "null" else k[1:-1] if k[0] == '"' else int(k)): v for k, v in entries}
    assert len(shown) == len(entries), text
    return shown


@pytest.mark.parametrize("keys", ["int", "varchar", "string"])
def test_map_keys_that_collide_read_as_hive_2_3_9_shows(
    keys: str,
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """The fixed cases of ``test_map_keys``, asked of Hive itself: its answer is theirs, and
    both readers read it."""
    table = build_map_keys_table(client, tables_root, keys)
    (hive,) = hive_answers(metastore_uri, [(f"select * from {table}", {})])
    shown = {(row[2], int(row[0] or 0)): _hive_map(row[1]) for row in hive}
    assert shown == {(dt, i): maps[i] for dt, maps in MAP_KEYS_SHOWN[keys].items() for i in (0, 1)}
    frames = both_readers(spark, client, table, replace(settings, hive_version="2.3"))
    for reader, frame in frames.items():
        # entries, not a Python dict, which would hide a key read twice
        rows = frame.selectExpr("dt", "i", "map_entries(m) AS m").collect()
        read = {(r["dt"], r["i"]): sorted(tuple(e) for e in r["m"]) for r in rows}
        assert read == {key: sorted(m.items()) for key, m in shown.items()}, reader


def test_timestamps_before_1582_read_as_numbers_as_hive_2_3_9_shows(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """A text partition's early timestamps read by Hive's converter as each type the table
    may declare: the seconds of java.sql.Timestamp's instant (its date Julian before
    1582-10-15) and the wall clock as text, in both readers (``calendar = "hive2"``). A
    Julian-only day (1500-02-29) has no proleptic label to hold and is left out (README
    "Limits")."""
    rng = random.Random(int(os.environ.get("LAKESHIFT_DIFF_SEED", "1")))
    stamps = ["0001-01-01 00:00:00", "1582-10-04 23:59:59", "1582-10-15 00:00:00"]
    while len(stamps) < ROWS:
        day = dt.date(1, 1, 1) + dt.timedelta(days=rng.randint(0, 600_000))
        if not (day.month == 2 and day.day == 29):
            stamps.append(f"{day} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                          f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}")  # fmt: skip
    kinds = ["double", "float", "bigint", "int", "smallint", "decimal(20,3)", "string"]
    columns = [(f"c{i}", kind) for i, kind in enumerate(kinds)]
    b = HiveTableBuilder(client, tables_root, "differential", unique_name("e"),
                         [("rid", "int"), *columns])  # fmt: skip
    lines = "".join("\x01".join([str(r), *[s] * len(kinds)]) + "\n" for r, s in enumerate(stamps))
    b.add_partition(["2"], {"000000_0": lines.encode()}, fmt="text",
                    columns=[("rid", "int"), *[(n, "timestamp") for n, _ in columns]])  # fmt: skip
    table = f"{b.db}.{b.name}"
    (hive,) = hive_answers(metastore_uri, [(f"select * from {table}", {})])
    frames = both_readers(spark, client, table, replace(settings, hive_version="2.3"))
    differ = []
    for reader, frame in frames.items():
        rows = {r["rid"]: r for r in frame.collect()}
        for line in hive:
            for index, (name, kind) in enumerate(columns, start=1):
                mine = _shown(rows[int(line[0])][name])
                if not _same(mine, line[index], kind):
                    differ.append((reader, stamps[int(line[0])], kind, line[index], mine))
    assert len(hive) == ROWS and differ == [], "\n".join(map(str, differ[:40]))


def test_timestamps_before_1970_read_as_dates_as_hive_2_3_9_shows(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """The fixed cases of ``STAMPS_AS_DATES``, asked of Hive itself, which runs ORC 1.9 here
    (the ORC 1.6+ rule: a second later before 1970): its answer is theirs, and both readers
    read it (``orc_date_parser = "exact"``)."""
    table = build_stamps_as_dates(spark, client, tables_root)
    (hive,) = hive_answers(metastore_uri, [(f"select rid, d from {table}", {})])
    shown = {int(row[0]): row[1] for row in hive}
    assert shown == {i: day for i, (_, day) in enumerate(STAMPS_AS_DATES)}
    chosen = replace(settings, hive_version="2.3", orc_date_parser="exact")
    for reader, frame in both_readers(spark, client, table, chosen).items():
        read = {r["rid"]: r["d"] and r["d"].isoformat() for r in frame.collect()}
        assert read == shown, reader


def _by_partition_row(
    metastore_uri: str, table: str, row: str, column: str, zone: str
) -> dict[tuple[str, int], str | None]:
    """What Hive 2.3.9 with its JVM in ``zone`` prints for ``column`` of each (``dt``,
    ``row``) of ``table``."""
    (hive,) = hive_answers(metastore_uri, [(f"select {row}, {column}, dt from {table}", {})], zone)
    return {(r[2], int(r[0])): r[1] for r in hive}


def test_files_naming_no_writer_zone_read_as_hive_2_3_9_in_new_york_shows(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """``test_writer_zone``'s table asked of Hive itself with its JVM in New York: a file
    naming no writer zone shows its summer values an hour later, the other as written; both
    readers read that with ``hive_time_zone`` set to New York."""
    table = build_zoneless_table(client, tables_root)
    shown = _by_partition_row(metastore_uri, table, "i", "t", ZONE)
    # as java.sql.Timestamp prints them: fraction digits to the last that is not 0
    printed = {k: v and v.isoformat(sep=" ") for k, v in expected_rows(ZONE).items()}
    assert shown == {k: v and (v.rstrip("0") if "." in v else v) for k, v in printed.items()}
    chosen = replace(settings, hive_time_zone=ZONE)
    for reader, frame in both_readers(spark, client, table, chosen).items():
        read = {(r["dt"], r["i"]): r["t"] for r in frame.collect()}
        assert read == expected_rows(ZONE), reader


def test_conversions_in_new_york_read_as_hive_2_3_9_there_shows(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """``test_hive_zone``'s table asked of Hive itself with its JVM in New York. Its text
    partition (Hive 2.3.9's own converters and text SerDe) shows ``test_hive_zone``'s
    expectations for Hive 2.3; its ORC partition is read here by ORC 1.9 without
    ``useUTCTimestamp`` (which Hive 2.3.9 does not know), whose conversions count a timestamp's
    seconds and parse text in the JVM's zone but read numbers as in UTC
    (``hive.types.zone_rule``), and both readers read it so with ``hive_time_zone`` set to New
    York."""
    table = build_zone_table(client, tables_root)
    (hive,) = hive_answers(metastore_uri, [(f"select * from {table}", {})], HIVE_ZONE)
    names = ["rid", *(c for c, _, _ in ZONE_COLUMNS), "dt"]
    answered = {(row[-1], int(row[0])): dict(zip(names, row, strict=True)) for row in hive}
    text = {k: {c: _shown(v) for c, v in row.items()} for k, row in zoned_rows("2.3").items()}
    differ = [
        (key, column, answered[key][column], value)
        for key, row in text.items()
        if key[0] == "text"
        for column, value in row.items()
        if not _same(value, answered[key][column], dict((c, t) for c, t, _ in ZONE_COLUMNS)[column])
    ]
    assert differ == [], differ
    chosen = replace(
        settings, hive_version="2.3", orc_date_parser="exact", hive_time_zone=HIVE_ZONE
    )
    stamps = {c for c, t, _ in ZONE_COLUMNS if t == "timestamp"}
    for reader, frame in both_readers(spark, client, table, chosen).items():
        # as Spark prints them: ORC 1.6+ read an integer as seconds, past Python's years
        frame = frame.selectExpr(
            *(f"CAST({c} AS STRING) AS {c}" if c in stamps else c for c in frame.columns)
        )
        for r in frame.collect():
            for column, table_type, _ in ZONE_COLUMNS:
                mine, shown = _shown(r[column]), answered[(r["dt"], r["rid"])][column]
                if not _same(mine, shown, table_type) and not _documented(
                    table_type, shown, mine, None
                ):
                    differ.append((reader, r["dt"], r["rid"], column, shown, mine))
    assert differ == [], "\n".join(map(str, differ))


def test_parquet_int96_read_as_hive_2_3_9_in_new_york_shows(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """``test_hive_zone``'s INT96 table asked of Hive with its JVM in New York: a Spark file's
    UTC instants shown in New York (1850 by the raw -5:00), pyarrow's as stored."""
    table = build_int96_table(spark, client, tables_root)
    shown = _by_partition_row(metastore_uri, table, "rid", "t", HIVE_ZONE)
    expected = {k: _shown(v) for k, v in int96_rows("2.3").items()}
    assert shown == expected


def test_timestamp_keys_read_as_hive_2_3_9_in_new_york_shows(
    client: MetastoreClient, tables_root: Path, metastore_uri: str
) -> None:
    """``test_hive_zone``'s timestamp keys asked of Hive with its JVM in New York: the
    skipped hour's key shows past the gap, the others as written (1883 too)."""
    table = build_key_table(client, tables_root)
    (hive,) = hive_answers(metastore_uri, [(f"select i, k from {table}", {})], HIVE_ZONE)
    shown = {int(row[0]): row[1] for row in hive}
    assert shown == {i: _shown(v) for i, v in enumerate(KEYS_SHOWN)}
    assert len(shown) == len(KEY_TEXTS)


def test_a_date_at_a_midnight_havana_skips_shows_the_time_hive_2_3_9_runs(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    """``test_hive_zone``'s midnight table asked of Hive with its JVM in Havana: a date read
    as a timestamp is midnight, except on 2020-03-08, whose midnight Havana's clocks skip:
    ``DateWritable.daysToMillis`` then falls back to ``Calendar.set(y, m, d)``, which keeps
    the calendar's own time of day (the query's). That value cannot be reproduced; both
    readers show midnight (README, Limits)."""
    table = build_midnight_table(client, tables_root)
    shown = _by_partition_row(metastore_uri, table, "rid", "t", HAVANA)
    midnights = {
        (p, i): d and _shown(dt.datetime(d.year, d.month, d.day))
        for p in ("text", "parquet")
        for i, d in enumerate(MIDNIGHT_DAYS)
    }
    skipped = {("text", 0), ("parquet", 0)}
    assert {k: v for k, v in shown.items() if k not in skipped} == {
        k: v for k, v in midnights.items() if k not in skipped
    }
    for key in skipped:  # the same day, at some time of day other than midnight
        assert shown[key].startswith("2020-03-08 ") and shown[key] != midnights[key], shown[key]
    chosen = replace(settings, hive_version="2.3", hive_time_zone=HAVANA)
    for reader, frame in both_readers(spark, client, table, chosen).items():
        read = {(r["dt"], r["rid"]): r["t"] and _shown(r["t"]) for r in frame.collect()}
        assert read == midnights, reader
