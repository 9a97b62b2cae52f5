"""The Arrow fingerprint equals Spark's canonical fingerprint on the same rows.

The expected values were computed by Spark (``lakeshift.validate.canonical.aggregate_sql`` over
``spark.createDataFrame(ROWS, DDL)``, Spark 3.5, session time zone UTC): per column and for the
whole row, so a difference names the type that drifted. The integration test
``test_independent.py`` compares the two live on migrated tables.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.validate.canonical import Fingerprint
from lakeshift.validate.independent.arrow_hash import exact_sum, fingerprint
from lakeshift.validate.independent.arrow_types import arrow_type
from lakeshift.validate.independent.xxh64 import hash_bytes

COLUMNS = [
    ("b", "boolean"),
    ("t", "tinyint"),
    ("sm", "smallint"),
    ("i", "int"),
    ("l", "bigint"),
    ("f", "float"),
    ("d", "double"),
    ("dec", "decimal(10,2)"),
    ("big", "decimal(30,5)"),
    ("s", "string"),
    ("bin", "binary"),
    ("dt", "date"),
    ("ts", "timestamp"),
    ("a", "array<int>"),
    ("ast", "array<struct<x:int,y:string>>"),
    ("m", "map<string,int>"),
    ("md", "map<double,string>"),
    ("st", "struct<a:int,b:struct<c:string>,f:double>"),
    ("ad", "array<double>"),
    ("mm", "map<int,array<string>>"),
]
LONG = "x" * 45 + "é€" + "y" * 33
ROWS: list[tuple[Any, ...]] = [
    (
        True, 1, -2, 3, -4, 1.5, 2.25, Decimal("1.10"), Decimal("-123456789012345678901.12345"),
        "abc", b"\x00\x01", dt.date(2022, 4, 1), dt.datetime(1999, 12, 31, 23, 59, 59, 123456),
        [1, None, 3], [{"x": 1, "y": "p"}, None, {"x": None, "y": None}],
        {"b": 2, "a": None, "c": 3}, {0.0: "nz", 1.5: None, float("nan"): "nan"},
        {"a": 1, "b": {"c": "q"}, "f": -0.0}, [0.0, -0.0, None, float("inf")],
        {2: ["x", None], 1: None, 3: []},
    ),
    (
        False, -128, 32767, -2147483648, 9223372036854775807, -0.0, float("nan"),
        Decimal("0.00"), Decimal("0.00001"), LONG, b"", dt.date(1970, 1, 1),
        dt.datetime(1970, 1, 1), [], [], {}, {}, {"a": None, "b": None, "f": None}, [], {},
    ),
    (None,) * 20,
    (
        True, None, None, 0, None, 0.0, -0.0, Decimal("-99999999.99"), Decimal("1" * 25), "",
        b"x" * 40, dt.date(1, 1, 1), dt.datetime(2262, 4, 11, 23, 47, 16, 854775), [None],
        [None], {"k": None}, {-1.0: None}, {"a": None, "b": {"c": None}, "f": float("-inf")},
        [None, None], {0: [None]},
    ),
]  # fmt: skip
SPARK = {
    "*": ("-10317787808428008478", "7806216228052853869"),
    "b": ("-11095923219145614729", "9684740124804382705"),
    "t": ("-784390771513603171", "12235680151138702827"),
    "sm": ("-6262081656708433419", "14507959392529845698"),
    "i": ("10251889381493494835", "9300438262822571797"),
    "l": ("20343110123063896127", "4622145372018014701"),
    "f": ("3712096930860552009", "292839484406242998"),
    "d": ("26454039927374063024", "3303218285490792592"),
    "dec": ("-4978590693408881517", "6192575558867207501"),
    "big": ("13947995609445099566", "4812253590806371663"),
    "s": ("-8590757644841799013", "-4436265979868789135"),
    "bin": ("6919509743146237241", "24795713629210213769"),
    "dt": ("337402126208698733", "19708138498508083599"),
    "ts": ("14635565446843583112", "12724153171157872572"),
    "a": ("-10145634133021987111", "10349065085176882265"),
    "ast": ("960483334600440673", "5785805208638243008"),
    "m": ("2767219482987568125", "6165348747221801813"),
    "md": ("-1098368154305065492", "862236034037033933"),
    "st": ("14108797670208949227", "-8821375086109717929"),
    "ad": ("1716194092836994631", "13352735899523646636"),
    "mm": ("-5894704841148696055", "-4050939383830902932"),
}


def _column(position: int) -> tuple[pa.Array, HiveType]:
    hive = parse_hive_type(COLUMNS[position][1])
    values = [row[position] for row in ROWS]
    if hive.kind == "map":
        values = [None if v is None else list(v.items()) for v in values]
    return pa.array(values, arrow_type(hive)), hive


@pytest.mark.parametrize("name", list(SPARK), ids=list(SPARK))
def test_arrow_fingerprint_equals_spark(name: str) -> None:
    positions = range(len(COLUMNS)) if name == "*" else [[c for c, _ in COLUMNS].index(name)]
    found = fingerprint([_column(p) for p in positions], len(ROWS))
    assert found == Fingerprint(len(ROWS), *SPARK[name])


def test_row_order_and_slicing_do_not_matter() -> None:
    columns = [_column(p) for p in range(len(COLUMNS))]
    order = pa.array([3, 1, 0, 2])
    shuffled = [(a.take(order), h) for a, h in columns]
    assert fingerprint(shuffled, 4) == Fingerprint(4, *SPARK["*"])
    # Sliced arrays (offsets into shared buffers) hash as their own values.
    padded = [(pa.concat_arrays([a, a]).slice(4, 4), h) for a, h in columns]
    assert fingerprint(padded, 4) == Fingerprint(4, *SPARK["*"])


def test_null_at_every_depth_changes_the_fingerprint() -> None:
    hive = parse_hive_type("array<struct<x:int,m:map<string,array<int>>>>")
    variants = [
        None,
        [],
        [None],
        [{"x": None, "m": None}],
        [{"x": None, "m": []}],
        [{"x": None, "m": [("k", None)]}],
        [{"x": None, "m": [("k", [])]}],
        [{"x": None, "m": [("k", [None])]}],
    ]
    prints = {fingerprint([(pa.array([v], arrow_type(hive)), hive)], 1) for v in variants}
    assert len(prints) == len(variants)


def test_xxh64_known_vectors_and_exact_sums() -> None:
    def xxh(data: bytes) -> int:
        matrix = np.frombuffer(data, np.uint8).reshape(1, len(data))
        return int(hash_bytes(matrix, np.zeros(1, np.uint64))[0])

    assert xxh(b"") == 0xEF46DB3751D8E999
    assert xxh(b"a") == 0xD24EC4F1A98C6E5B
    assert xxh(b"abc") == 0x44BC2CF5AD770999
    big = np.array([2**63 - 1, 2**63 - 1, -(2**63)], np.int64)
    assert exact_sum(big) == 2 * (2**63 - 1) - 2**63


@pytest.mark.parametrize("block_rows", [3, 1 << 15], ids=["cut-mid-row-group", "default"])
def test_rows_hashed_in_blocks_sum_to_sparks_value(
    block_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fingerprint hashes a block of rows at a time (and all salts at once): wherever the
    blocks cut, n copies of the rows sum to n times Spark's value."""
    import lakeshift.validate.independent.arrow_hash as arrow_hash

    monkeypatch.setattr(arrow_hash, "BLOCK_ROWS", block_rows)
    copies = 5 if block_rows < len(ROWS) else (3 * block_rows) // len(ROWS) + 1
    columns = [_column(p) for p in range(len(COLUMNS))]
    tiled = [(pa.concat_arrays([a] * copies), h) for a, h in columns]
    found = fingerprint(tiled, copies * len(ROWS))
    whole = SPARK["*"]
    assert found == Fingerprint(
        copies * len(ROWS), str(copies * int(whole[0])), str(copies * int(whole[1]))
    )


def test_small_sets_hashed_together_equal_each_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Row sets smaller than a block are hashed together and summed apart: each one's
    fingerprint is Spark's value for its rows, whatever it was grouped with (a group that
    fills a block closes, a set of a block or more goes alone)."""
    import lakeshift.validate.independent.arrow_hash as arrow_hash

    monkeypatch.setattr(arrow_hash, "BLOCK_ROWS", 6)
    columns = [_column(p) for p in range(len(COLUMNS))]
    whole = SPARK["*"]
    copies = [1, 2, 0, 1, 3, 1]  # the 4 rows, n times: sets of 4, 8, 0, 4, 12, 4 rows
    sets = [
        [(pa.concat_arrays([a] * n) if n else a.slice(0, 0), h) for a, h in columns] for n in copies
    ]
    found = arrow_hash.fingerprints(sets, [4 * n for n in copies])
    assert found == [
        Fingerprint(4 * n, str(n * int(whole[0])), str(n * int(whole[1]))) for n in copies
    ]
