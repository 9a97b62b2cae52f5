"""Java's ``Double.toString``/``Float.toString`` as Hive and Spark print floating point on JDK 8
to 18 (``text_rules.java_float_text``): the expectations are JDK 17's own output for each value
(run here), not the author's reading. Integral values up to 2^62 print their exact integer
rounded to the significant digits (JDK-4511638), and the digit loop's own quirks (floats of
magnitude 1e25 and beyond cut rather than rounded, subnormals, 1.0E23) are kept: none of these
are the shortest digits. ``tests/integration/test_java_float_text.py`` checks many more values
against the JVM itself."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.validate.independent.casts import convert_primitive
from lakeshift.validate.independent.java_float_text import java_float_text

# (d: double / f: float, the value in Java's hexadecimal notation, JDK 17's text)
JAVA = [
    ("d", "0x1.9b94cba2b4724p58", "4.6339927102834509E17"),
    ("d", "0x1.f67ea69ed3795p57", "2.82879384806159008E17"),
    ("d", "0x1.0p53", "9.007199254740992E15"),
    ("d", "0x1.52d02c7e14af6p76", "9.999999999999999E22"),
    ("d", "0x1.b69b4ba630f35p56", "1.2345678901234568E17"),
    ("d", "0x1.0p63", "9.223372036854776E18"),
    ("d", "0x1.0p64", "1.8446744073709552E19"),
    ("d", "0x1.999999999999ap-4", "0.1"),
    ("d", "0x1.4f8b588e368f1p-17", "1.0E-5"),
    ("d", "0x1.312dp23", "1.0E7"),
    ("d", "0x1.312cfep23", "9999999.0"),
    ("d", "0x1.81cd6c8b43958p13", "12345.678"),
    ("d", "0x0.0000000000001p-1022", "4.9E-324"),
    ("d", "0x1.0624dd2f1a9fcp-9", "0.002"),
    ("d", "0x1.fffffffffffffp1023", "1.7976931348623157E308"),
    ("d", "0x1.aa535d3d0cp54", "3.0E16"),
    ("d", "0x1.0p56", "7.2057594037927936E16"),
    ("d", "-0x1.9b94cba2b4724p58", "-4.6339927102834509E17"),
    ("d", "0x1.91p6", "100.25"),
    ("d", "0x1.b1ae4d6e2ef5p69", "1.0E21"),
    ("f", "0x1.62906p26", "9.2946816E7"),
    ("f", "0x1.00c0fcp53", "9.0337228E15"),
    ("f", "0x1.0p24", "1.6777216E7"),
    ("f", "0x1.fffffep127", "3.4028235E38"),
    ("f", "0x1.99999ap-4", "0.1"),
    ("f", "0x1.2a05f2p33", "1.0E10"),
    ("f", "0x1.531c74p29", "7.1116762E8"),
    ("f", "0x1.e240cap16", "123456.79"),
    ("f", "0x0.000002p-126", "1.4E-45"),
    ("f", "0x1.0p24", "1.6777216E7"),
    ("f", "0x1.0624dep-10", "0.001"),
    ("f", "0x1.4c0b04p85", "5.0176923E25"),
    ("f", "-0x1.97feeep85", "-6.1654584E25"),
    ("f", "0x1.112e44p85", "4.1281903E25"),
    ("f", "0x1.cp-146", "2.0E-44"),
    ("d", "0x0.0000000000003p-1022", "1.5E-323"),
]  # fmt: skip


@pytest.mark.parametrize("kind,hexadecimal,text", JAVA, ids=[t for _, _, t in JAVA])
def test_floating_point_text_is_javas(kind: str, hexadecimal: str, text: str) -> None:
    value = float.fromhex(hexadecimal)
    single = kind == "f"
    if single:
        value = float(np.float32(value))
    assert java_float_text(value, single) == text


def test_a_double_past_a_float_s_range_is_its_infinity() -> None:
    assert java_float_text(1e39, single=True) == "Infinity"  # (float) 1e39 in Java
    assert java_float_text(-1e39, single=True) == "-Infinity"


def test_doubles_become_decimals_through_their_java_text() -> None:
    """Hive's HiveDecimal.create(double) parses Double.toString's text (as Spark's CAST does)."""
    value = float.fromhex("0x1.9b94cba2b4724p58")  # 463399271028345088 exactly
    found = convert_primitive(
        pa.array([value]), HiveType("double"), parse_hive_type("decimal(38,0)")
    )
    assert found.to_pylist() == [Decimal("463399271028345090")]
