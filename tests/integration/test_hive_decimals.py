"""Text read as a decimal as each Hive version reads it (``lakeshift.hive.decimals``):
a text file's own decimal field (``LazyHiveDecimal``), a string partition column and a double
one read as the table's decimal (Hive's converter: ``HiveDecimal.create`` of the string, of
``Double.toString``), and ORC's schema evolution (``HiveDecimal.create`` too, in ORC 1.3-1.5).

Hive 2.2+ (``FastHiveDecimalImpl``): spaces only around the text, ASCII digits, an exponent of
at most two digits; Hive 2.3.9 (``hive_oracle``) shows exactly that for the text partition.
Hive 1.2 (``new BigDecimal(text.trim())``, ``HiveDecimalV1`` in Hive 2's storage-api, read in
its source; no Hive 1.2 runs here): any blank trimmed, any Unicode digit, any exponent, so a
tiny double's ``1.0E-100`` is 0.00 where Hive 2.2+ shows NULL. Both of lakeshift's readers must
give each version's rows."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.hive import decimals as hive_decimal
from lakeshift.hive import spark_sql
from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.independent.casts import convert_primitive
from tests.helpers.hive_oracle import hive_answers
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow

# (text, a double, Hive 1.2's text and double as decimal(6,2), Hive 2.2+'s; spaces around a
# text file's own decimal field make it NULL since Hive 2.2: LazyHiveDecimal parses without
# trimBlanks, where the converter and ORC call HiveDecimal.create, which trims spaces)
ROWS = [
    ("\t1.5", 1e-100, "1.50", "0.00", None, None),
    ("\u0661\u0665", 1.5, "15.00", "1.50", None, "1.50"),
    ("1e-100", 5e-324, "0.00", "0.00", None, None),
    ("1.5e1", 12.345, "15.00", "12.35", "15.00", "12.35"),
    ("abc", 1e300, None, None, None, None),
    (" 2.5 ", -0.001, "2.50", "0.00", "2.50", "0.00"),
    ("1E-002", 0.005, "0.01", "0.01", "0.01", "0.01"),
    ("9999.995", 9999.995, None, None, None, None),
    ("1.5\x0b", 1e-5, "1.50", "0.00", None, "0.00"),
    ("+.5 ", 0.0, "0.50", "0.00", None, "0.00"),  # no integer digit: nothing may follow
    ("0e50", 0.0, "0.00", "0.00", "0.00", "0.00"),  # zero whatever the exponent
]


def _text_file() -> bytes:
    lines = [f"{i}\x01{text}\x01{text}\x01{number!r}" for i, (text, number, *_) in enumerate(ROWS)]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def decimals(client: MetastoreClient, tables_root: Path) -> str:
    """``t decimal(6,2)`` from text, ``d decimal(6,2)`` from a double, in a text partition
    (``t`` declared decimal: the text SerDe; ``s`` string, ``d`` double: the converter) and
    an ORC one (schema evolution under Hive 2.x, the converter under 1.2)."""
    table = [("rid", "int"), ("t", "decimal(6,2)"), ("s", "decimal(6,2)"), ("d", "decimal(6,2)")]
    b = HiveTableBuilder(client, tables_root, "decimals", unique_name("dec"), table)
    declared = [("rid", "int"), ("t", "decimal(6,2)"), ("s", "string"), ("d", "double")]
    b.add_partition(["text"], {"000000_0": _text_file()}, columns=declared, fmt="text")
    orc_file = pa.table(
        {
            "rid": pa.array(range(len(ROWS)), pa.int32()),
            "t": pa.array([r[0] for r in ROWS]),
            "s": pa.array([r[0] for r in ROWS]),
            "d": pa.array([r[1] for r in ROWS], pa.float64()),
        }
    )
    orc_declared = [("rid", "int"), ("t", "string"), ("s", "string"), ("d", "double")]
    b.add_partition(["orc"], {"f.orc": orc_file}, columns=orc_declared)
    return f"{b.db}.{b.name}"


def _expected(version: str, part: str) -> dict[int, tuple[Decimal | None, ...]]:
    """(t, s, d) per row: ``t`` of the text partition is the text file's own field."""

    def value(text: str | None) -> Decimal | None:
        return None if text is None else Decimal(text)

    old = version == "1.2"
    rows = {}
    for rid, (text, _, old_text, old_double, new_text, new_double) in enumerate(ROWS):
        converted = value(old_text if old else new_text)
        lazy = not old and part == "text" and text != text.strip(" ")
        rows[rid] = (
            None if lazy else converted,
            converted,
            value(old_double if old else new_double),
        )
    return rows


# HiveDecimal.create's grammar (FastHiveDecimalImpl), as Hive 2.3.9's CAST calls it
GRAMMAR = [
    "+.5", ".5", "+.5 ", " +.5", "5.", "-.5", ".5e1", "5.e1", "-0", ".", "+.", "1e+02",
    "1e-02", "1e005", "1e0005", "1e100", "00.5", "1.5 ", " 1.5", "1 .5", "1e 2", "1e-9",
    "1" * 39, "1.2345678901234567890123456789012345678912", "-", "e5", ".e5", "1e ", "1e",
    "1e+ ", "1e+", "1e- ", "1.e5", "1e-50", "12.5e-1 ", "-.5e1", "5.5e+99", "1.5E 1",
    "\t1", "1\n", "\uff11", "0x10", "1,5", "1_0", "Infinity", "5d", "0e50", "-0.0e99",
    "0e", "0e ", "00.00 ", ".0e5",
    # more than 38 digits: rounded half up to 38 first, then to the scale (twice: 1e-18)
    "0." + "0" * 18 + "4" + "9" * 25, "-1." + "0" * 18 + "4" + "9" * 30,
    "1." + "0" * 17 + "4" + "9" * 30 + "e-1", " 2." + "0" * 18 + "4" + "9" * 30 + " ",
]  # fmt: skip


@pytest.fixture(scope="module")
def oracle(decimals: str, metastore_uri: str) -> list[list[list[str | None]]]:
    """Hive 2.3.9's rows of the table (no partition filter: Hive 2.3.9's metastore pruning
    fails on Java 17) and its CAST of each GRAMMAR text to decimal(38,18)."""
    casts = ", ".join(f"cast('{t}' as decimal(38,18))" for t in GRAMMAR)
    chars = ", ".join(f"cast(cast('{t}' as char(10)) as decimal(38,18))" for t in CHARS)
    return hive_answers(
        metastore_uri,
        [
            (f"select rid, t, s, d, dt from {decimals}", {}),
            (f"select {casts}", {}),
            (f"select {chars}", {}),
        ],
    )


# A CHAR read as a decimal: its stripped value (getString's getStrippedValue), so a bare
# fraction padded to the CHAR's width reads (make differential found it)
CHARS = ["-.5", ".5", "1.5", " 2", ".5e1"]


def test_a_char_reads_as_a_decimal_by_its_stripped_value(oracle: list[Any], spark: Any) -> None:
    shown = [None if v is None else Decimal(v) for v in oracle[2][0]]
    assert shown[:2] == [Decimal("-0.5"), Decimal("0.5")]
    char, d38 = parse_hive_type("char(10)"), parse_hive_type("decimal(38,18)")
    padded = [t.ljust(10) for t in CHARS]
    frame = spark.createDataFrame(list(enumerate(padded)), "i INT, c STRING")
    expr = spark_sql.convert("c", char, d38, by_name=False)
    spark_values = [r["v"] for r in frame.selectExpr("i", f"{expr} AS v").orderBy("i").collect()]
    independent = convert_primitive(pa.array(padded), char, d38, converter=True).to_pylist()
    assert spark_values == shown
    assert independent == shown


def test_hive_decimal_grammar_is_hive_2_3_s(oracle: list[Any], spark: Any) -> None:
    shown = [None if v is None else Decimal(v) for v in oracle[1][0]]
    d38 = parse_hive_type("decimal(38,18)")
    created = [hive_decimal.create(t) for t in GRAMMAR]
    mine = [None if v is None else hive_decimal.enforce(v, 38, 18) for v in created]
    frame = spark.createDataFrame([(i, t) for i, t in enumerate(GRAMMAR)], "i INT, s STRING")
    expr = spark_sql.convert("s", HiveType("string"), d38, by_name=False)
    spark_rows = dict(frame.selectExpr("i", f"{expr} AS v").collect())
    spark_values = [spark_rows[i] for i in range(len(GRAMMAR))]
    assert list(zip(GRAMMAR, mine)) == list(zip(GRAMMAR, shown))
    assert list(zip(GRAMMAR, spark_values)) == list(zip(GRAMMAR, shown))


def test_the_text_partition_is_what_hive_2_3_shows(oracle: list[Any]) -> None:
    rows = oracle[0]
    shown = {
        int(r[0] or 0): tuple(None if v is None else Decimal(v) for v in r[1:4])
        for r in rows
        if r[4] == "text"
    }
    assert shown == _expected("2.3", "text")


@pytest.mark.parametrize("version", ["1.2", "2.3"])
def test_both_readers_read_decimals_as_the_version_does(
    version: str, decimals: str, client: MetastoreClient, settings: Settings, spark: Any
) -> None:
    frames = both_readers(spark, client, decimals, replace(settings, hive_version=version))
    for reader, frame in frames.items():
        for part in ("text", "orc"):
            rows = frame.where(f"dt = '{part}'").collect()
            found = {r["rid"]: (r["t"], r["s"], r["d"]) for r in rows}
            assert found == _expected(version, part), (reader, part)
