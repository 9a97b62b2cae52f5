"""Values Hive's Parquet reader changes on the way: it builds each value for the *table's*
type (``ETypeConverter``) before the partition's declared type reads it, and how it builds
them differs by version (``lakeshift.hive.parquet_reading.built``).

Expected rows from the source of ``ETypeConverter`` (2.3.7, 3.1.3, 4.0.1; cited per
partition); Hive 2.3.9 itself agrees on the ``float`` partition and the ``2.3`` rows of the
others (``tests/differential/test_parquet_writables.py``). Both readers under every version,
then one migration under the default (3.1) into every format, read back by each format's
own reader and proven by both validation levels.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from lakeshift.validate.model import EQUAL
from tests.helpers.hive_tables import HiveTableBuilder, unique_name, with_rids
from tests.helpers.lake import read_lake
from tests.helpers.migration import migrate_and_validate
from tests.helpers.readers import both_readers, by_partition

pytestmark = pytest.mark.slow

TABLE = [
    ("rid", "int"),
    ("d", "double"),
    ("n", "int"),
    ("s", "smallint"),
    ("a", "array<double>"),
    ("f", "float"),
    ("b", "bigint"),
    ("g", "float"),
]
COLUMNS = [name for name, _ in TABLE[1:]]
BIG = 16777217  # 2**24 + 1: the least int a float cannot hold
HALF = "1.000000059604644775390625"  # 1 + 2**-24: halfway between the floats 1.0 and the next


@pytest.fixture(scope="module")
def built_table(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(client, tables_root, "pqvalues", unique_name("v"), TABLE)
    as_table = dict(TABLE)
    # an INT32 column the table (and, after CASCADE, the partition) reads as a double
    b.add_partition(["float"], {"000000_0": with_rids(d=pa.array([BIG, 3], pa.int32()))},
                    fmt="parquet")  # fmt: skip
    # bigint and int columns a CASCADE narrowed to int and smallint, and an array<int>
    # widened to array<double>
    narrow = with_rids(
        n=pa.array([5000000001, 7], pa.int64()),
        s=pa.array([40000, 5], pa.int32()),
        a=pa.array([[BIG, 1], None], pa.list_(pa.int32())),
    )
    b.add_partition(["narrow"], {"000000_0": narrow},
                    columns=[*TABLE[:3], ("s", "int"), *TABLE[4:]], fmt="parquet")  # fmt: skip
    # an int column the table narrowed to smallint without CASCADE
    b.add_partition(["wrap"], {"000000_0": with_rids(s=pa.array([40000, 5], pa.int32()))},
                    columns=[(n, "int" if n == "s" else as_table[n]) for n, _ in TABLE],
                    fmt="parquet")  # fmt: skip
    # doubles the table (and partition) now read as float and bigint
    # and decimals it reads as float: just past the halfway point between two floats, and on it
    doubles = with_rids(
        f=pa.array([0.0, 1.5, 1e-40], pa.float64()),
        b=pa.array([2.0, 2.5, 1e19], pa.float64()),
        g=pa.array([Decimal(HALF + "000001"), Decimal(HALF), None], pa.decimal128(38, 30)),
    )
    b.add_partition(["hive4"], {"000000_0": doubles}, fmt="parquet")
    return f"{b.db}.{b.name}"


#: partition -> {column: values by rid} (columns not listed: NULL)
FLOAT_ROUNDED = {"d": [16777216.0, 3.0]}  # new DoubleWritable((float) value)
NARROW_NULL = {  # 3.1.3+: NULL out of the table type's range (getMinValue/getMaxValue)
    "n": [None, 7], "s": [None, 5], "a": [[16777216.0, 1.0], None],
}  # fmt: skip
EXPECTED: dict[str, dict[str, dict[str, list[Any]]]] = {
    # no table type given to the converters: the int arrives as an int
    "1.2": {"wrap": {"s": [-25536, 5]}},  # then Hive's int -> smallint converter wraps
    "2.3": {"float": FLOAT_ROUNDED, "wrap": {"s": [-25536, 5]}},
    "3.1": {"float": FLOAT_ROUNDED, "narrow": NARROW_NULL, "wrap": {"s": [None, 5]}},
    "4": {
        "float": FLOAT_ROUNDED,
        "narrow": NARROW_NULL,
        "wrap": {"s": [None, 5]},
        # EDOUBLE_CONVERTER: a float needs a float's normal exponent (zero too: NULL); a
        # bigint a whole number in range
        "hive4": {
            "f": [None, 1.5, None],
            "b": [2, None, None],
            # BigDecimal.floatValue: the decimal rounded once (its double is the halfway
            # point, which would round to even: 1.0)
            "g": [1.0000001192092896, 1.0, None],
        },
    },
}


def _rows(frame: Any) -> dict[str, dict[str, list[Any]]]:
    return by_partition(frame.collect(), COLUMNS)


@pytest.mark.parametrize("version", ["1.2", "2.3", "3.1", "4"])
def test_each_version_builds_parquet_values_as_its_reader_does(
    version: str, built_table: str, client: MetastoreClient, settings: Settings, spark: Any
) -> None:
    chosen = replace(settings, hive_version=version)
    held = {p.values[0] for p in inspect_table(client, built_table, chosen).partitions
            if not p.migratable}  # fmt: skip
    # what each version refuses: a writable the declared type cannot read (ClassCastException)
    assert held == {"float", "narrow", "wrap", "hive4"} - set(EXPECTED[version]), version
    readers = both_readers(spark, client, built_table, chosen)
    for name, frame in readers.items():
        assert _rows(frame) == EXPECTED[version], (version, name)


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_the_default_version_migrates_them_into_every_format(
    fmt: str,
    built_table: str,
    client: MetastoreClient,
    settings: Settings,
    spark: Any,
    lakeshift_home: Path,
) -> None:
    chosen = replace(settings, hive_version="3.1")
    target = f"{built_table}_{fmt}"
    result, report = migrate_and_validate(
        spark, client, chosen, lakeshift_home / f"pqvalues-{fmt}.sqlite", built_table, target, fmt
    )
    assert sorted(result.backfilled) == ["dt=float", "dt=narrow", "dt=wrap"], result
    migrated = {p.partition: p.status for p in report.partitions if p.status == EQUAL}
    assert migrated == {f"dt={v}": EQUAL for v in ("float", "narrow", "wrap")}
    assert by_partition(read_lake(client, target).to_pylist(), COLUMNS) == EXPECTED["3.1"]


@pytest.mark.parametrize(
    "options",
    [{}, {"orc_file": True}, {"orc_file": True, "orc_sql_dates": True}, {"text_file": True}],
)
def test_an_int_read_as_a_float_stays_rounded_on_its_way_to_a_double(
    options: dict[str, bool], spark: Any
) -> None:
    """Every reading of an int as a float (a partition declaring ``float`` under a ``double``
    table, in any file format) keeps the float's rounding through the second step: Spark's
    optimizer folds CAST(CAST(int AS FLOAT) AS DOUBLE) into an exact cast."""
    from lakeshift.hive.spark_sql import convert
    from lakeshift.hive.types import parse_hive_type

    src, mid, dst = (parse_hive_type(t) for t in ("int", "float", "double"))
    as_float = convert("x", src, mid, by_name=False, **options)
    as_double = convert(as_float, mid, dst, by_name=False)
    rows = spark.createDataFrame([(BIG,), (-BIG - 2,), (None,)], "x INT").selectExpr(
        f"{as_double} AS y"
    )
    assert [r["y"] for r in rows.collect()] == [16777216.0, -16777220.0, None], as_double
