"""The row fingerprint tells apart every difference that matters, and ignores row order."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lakeshift.validate.canonical import Fingerprint, aggregate_sql, from_metrics


def fingerprints(spark: Any, sets: dict[str, list[tuple[Any, ...]]], ddl: str) -> dict[str, Any]:
    """Fingerprints of several row sets in one Spark job (grouped by a label column)."""
    from pyspark.sql import functions as F

    labelled = [(label, *row) for label, rows in sets.items() for row in rows]
    frame = spark.createDataFrame(labelled, f"__label STRING, {ddl}")
    fields = [f for f in frame.schema.fields if f.name != "__label"]
    found = {
        r["__label"]: from_metrics(r.asDict())
        for r in frame.groupBy("__label").agg(*[F.expr(e) for e in aggregate_sql(fields)]).collect()
    }
    return {label: found.get(label, Fingerprint(0, "0", "0")) for label in sets}


PAIRS = {
    "NULL vs empty string": ("s STRING", [(None,)], [("",)]),
    "NULL vs empty array": ("a ARRAY<INT>", [(None,)], [([],)]),
    "NULL vs empty map": ("m MAP<STRING,INT>", [(None,)], [({},)]),
    "NULL position in a row": ("a STRING, b STRING", [("x", None)], [(None, "x")]),
    "NULL element position": ("a ARRAY<INT>", [([1, None],)], [([None, 1],)]),
    "array NULL element vs missing": ("a ARRAY<INT>", [([1, None],)], [([1],)]),
    "NaN vs NULL": ("d DOUBLE", [(float("nan"),)], [(None,)]),
    "-0.0 vs 0.0": ("d DOUBLE", [(-0.0,)], [(0.0,)]),
    "+Inf vs -Inf": ("d DOUBLE", [(float("inf"),)], [(float("-inf"),)]),
    "decimal value": ("d DECIMAL(10,2)", [(Decimal("1.10"),)], [(Decimal("1.01"),)]),
    "timestamp wall clock": (
        "t TIMESTAMP_NTZ",
        [(dt.datetime(2022, 1, 1, 0, 0),)],
        [(dt.datetime(2022, 1, 1, 1, 0),)],
    ),
    "map value": ("m MAP<STRING,INT>", [({"a": 1, "b": 2},)], [({"a": 2, "b": 1},)]),
    "map NULL value vs missing key": ("m MAP<STRING,INT>", [({"a": None},)], [({},)]),
    "nested struct field": (
        "s STRUCT<a: INT, b: STRUCT<c: STRING>>",
        [((1, ("x",)),)],
        [((1, ("y",)),)],
    ),
    "NULL struct vs struct of NULLs": ("s STRUCT<a: INT>", [(None,)], [((None,),)]),
    "CHAR padding kept": ("s STRING", [("ab  ",)], [("ab",)]),
    "binary": ("b BINARY", [(bytearray(b"\x00"),)], [(bytearray(b""),)]),
    "values swapped between rows": ("a INT, b STRING", [(1, "x"), (2, "y")], [(1, "y"), (2, "x")]),
}


@pytest.mark.parametrize("case", list(PAIRS), ids=list(PAIRS))
def test_difference_changes_fingerprint(spark: Any, case: str) -> None:
    ddl, left, right = PAIRS[case]
    found = fingerprints(spark, {"left": left, "right": right}, ddl)
    assert found["left"] != found["right"]


def test_map_entry_order_and_row_order_do_not_matter(spark: Any) -> None:
    ddl = "id INT, m MAP<STRING,INT>"
    rows = [(1, {"a": 1, "b": 2}), (2, {"c": 3}), (3, None)]
    shuffled = [(3, None), (2, {"c": 3}), (1, {"b": 2, "a": 1})]
    found = fingerprints(spark, {"rows": rows, "shuffled": shuffled}, ddl)
    assert found["rows"] == found["shuffled"]


rows_strategy = st.lists(
    st.tuples(st.integers(-5, 5) | st.none(), st.sampled_from(["a", "b", "", None])),
    min_size=0,
    max_size=8,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=rows_strategy, seed=st.randoms())
def test_order_independence_and_duplicates_count(spark: Any, rows: list[Any], seed: Any) -> None:
    ddl = "a INT, s STRING"
    shuffled = list(rows)
    seed.shuffle(shuffled)
    sets = {"base": rows, "shuffled": shuffled}
    if rows:
        sets["dup"] = [*rows, rows[0]]
        sets["dup2"] = [*rows, rows[0], rows[0]]
    found = fingerprints(spark, sets, ddl)
    assert found["shuffled"] == found["base"]
    if rows:
        # A duplicated row is never cancelled out (no XOR): twice the row is a new fingerprint.
        assert found["dup"] != found["base"] and found["dup2"] not in (found["base"], found["dup"])


def test_the_split_bigint_sums_are_the_exact_decimal_sums(spark: Any) -> None:
    """The hash sums are taken as three bigint sums (cheaper than decimal(38,0)); put
    together they must be the exact sum of the signed 64-bit hashes, which journals recorded
    before hold (so no fingerprint changes)."""
    from pyspark.sql import functions as F

    from lakeshift.validate.canonical import SALTS, row_hash

    frame = spark.range(0, 200_000, 1, 4).selectExpr("id", "CAST(id % 97 AS STRING) s")
    fields = frame.schema.fields
    split = from_metrics(frame.agg(*[F.expr(e) for e in aggregate_sql(fields)]).first().asDict())
    exact = frame.agg(
        F.expr(f"sum({row_hash(fields, SALTS[0])})"), F.expr(f"sum({row_hash(fields, SALTS[1])})")
    ).first()
    assert split == Fingerprint(200_000, str(int(exact[0])), str(int(exact[1])))
    assert abs(int(split.sum1)) > 2**63  # past a bigint: the parts matter
    assert from_metrics(
        frame.where("false").agg(*[F.expr(e) for e in aggregate_sql(fields)]).first().asDict()
    ) == Fingerprint(0, "0", "0")
