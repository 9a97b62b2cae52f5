"""The independent reader prints floats and doubles as the JVM does (``Double.toString`` and
``Float.toString``, which Hive calls to read a float or double as a string, a decimal or a
timestamp): each value below is printed by the test session's own JVM (Java 17, whose digits
are those of JDK 8 to 18) through Spark's ``java_method``, and by
``java_float_text`` in Python. Random bit patterns cover every exponent, subnormals included;
the other families are the ones where the JDK's digits are not the shortest."""

from __future__ import annotations

import random
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

from lakeshift.validate.independent.java_float_text import java_float_text

pytestmark = pytest.mark.integration


def _values(seed: int, count: int) -> tuple[list[float], list[float]]:
    rng = random.Random(seed)
    doubles = [float(np.uint64(rng.getrandbits(64)).view(np.float64)) for _ in range(count)]
    singles = [float(np.uint32(rng.getrandbits(32)).view(np.float32)) for _ in range(count)]
    for _ in range(count // 4):
        # integral values around 2^53..2^64 (the JDK's long path and where it ends)
        doubles.append(float(rng.getrandbits(rng.randrange(50, 66)) | 1))
        # short decimals of any magnitude, as tables hold them
        shown = f"{rng.randrange(1, 10 ** rng.randrange(1, 17))}e{rng.randrange(-40, 40)}"
        doubles.append(float(shown))
        singles.append(float(np.float32(float(shown))))
        # floats past 1e25, where the JDK cuts the last digit, and subnormals
        singles.append(float(np.float32(rng.uniform(1e25, 3e38))))
        singles.append(rng.getrandbits(rng.randrange(1, 23)) * 2.0**-149)
        doubles.append(rng.getrandbits(rng.randrange(1, 52)) * 2.0**-1074)
    singles = [v for v in singles if v == v and abs(v) != float("inf")]
    doubles = [v for v in doubles if v == v and abs(v) != float("inf")]
    return doubles, singles


def test_floating_point_text_is_the_jvms_for_every_exponent(spark) -> None:  # type: ignore[no-untyped-def]
    doubles, singles = _values(seed=25, count=20_000)
    table = pa.table(
        {
            "v": pa.array(doubles + [0.0] * (len(singles) - len(doubles)), pa.float64()),
            "f": pa.array(singles + [0.0] * (len(doubles) - len(singles)), pa.float32()),
        }
    )
    frame = spark.createDataFrame(table.to_pandas())
    rows = frame.selectExpr(
        "v",
        "f",
        "java_method('java.lang.Double', 'toString', v) AS v_text",
        "java_method('java.lang.Float', 'toString', CAST(f AS FLOAT)) AS f_text",
    ).collect()
    assert len(rows) == max(len(doubles), len(singles))
    wrong = [
        (value, kind, java, java_float_text(value, single))
        for row in rows
        for value, kind, java, single in (
            (row.v, "double", row.v_text, False),
            (row.f, "float", row.f_text, True),
        )
        if java_float_text(value, single) != java
    ]
    assert not wrong, wrong[:10]
    # Many of them are values whose JVM digits are not the shortest (numpy's): the check
    # above fails on a shortest-digits printer.
    not_shortest = sum(
        Decimal(row.f_text) != Decimal(np.format_float_scientific(np.float32(row.f), unique=True))
        or Decimal(row.v_text) != Decimal(np.format_float_scientific(row.v, unique=True))
        for row in rows
    )
    assert not_shortest > 1000
