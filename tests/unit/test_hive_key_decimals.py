"""Decimal partition keys as each Hive version's converter reads the metastore's text.

Hive 2.2+ (``HiveDecimal.create(String)`` = ``FastHiveDecimalImpl.fastSetFromBytes`` with
``trimBlanks``, read in Hive 2.3.7's source; Hive 2.3.9's own answers for the shared texts are in
``tests/integration/test_hive_key_values.py``): spaces only around it, ASCII digits, an exponent
of at most two digits past its leading zeros; nothing after a fraction without integer digits
(``tests/integration/test_hive_decimals.py`` holds the grammar against Hive 2.3.9). Hive 1.2
(``HiveDecimal.create(String)``: ``new BigDecimal(dec.trim())``, kept in Hive 2's storage-api
as ``HiveDecimalV1``): every character up to U+0020 trimmed, any digit ``Character.digit``
reads, any exponent an int holds, then ``normalize`` (38 digits, half up) and
``enforcePrecisionScale``."""

from __future__ import annotations

from decimal import Decimal

import pytest

from lakeshift.hive.key_values import hive_value
from lakeshift.hive.types import parse_hive_type

D42 = parse_hive_type("decimal(4,2)")
CASES = [
    # (text, Hive 1.2, Hive 2.3 / 3.1 / 4)
    (" 1.5 ", "1.50", "1.50"),
    ("\t1.5", "1.50", None),  # Java's trim() takes a tab, fastSetFromBytes only spaces
    ("1.5\n", "1.50", None),
    ("\u0661\u0665", "15.00", None),  # Arabic-Indic 15: BigDecimal reads any Unicode digit
    ("1e\u0661", "10.00", None),  # in the exponent too
    ("1e-100", "0.00", None),  # three exponent digits: Hive 2.2+ refuses
    ("1E-002", "0.01", "0.01"),  # leading zeros of the exponent do not count
    ("+.5", "0.50", "0.50"),
    ("+.5 ", "0.50", None),  # no integer digit: nothing may follow the fraction
    (".5e1", "5.00", None),
    ("1e ", None, "1.00"),  # an exponent without digits before a blank is 0
    ("1e", None, None),
    ("5.", "5.00", "5.00"),
    ("-0", "0.00", "0.00"),  # no negative zero
    ("99.995", None, None),  # rounds to 100.00: past the precision
    ("99.994", "99.99", "99.99"),
    ("1_0", None, None),
    ("0e50", "0.00", "0.00"),  # zero whatever the exponent
    ("1e99999999999", None, None),  # BigDecimal: exponent overflow
    ("NaN", None, None),
    ("", None, None),
]


@pytest.mark.parametrize("text,old,new", CASES, ids=[repr(c[0]) for c in CASES])
def test_decimal_keys_read_as_each_version_reads_them(
    text: str, old: str | None, new: str | None
) -> None:
    assert hive_value(text, D42, "1.2") == (None if old is None else Decimal(old))
    for version in ("2.3", "3.1", "4"):
        assert hive_value(text, D42, version) == (None if new is None else Decimal(new))


def test_hive_1_2_rounds_to_38_digits_before_the_scale() -> None:
    """``normalize`` rounds a text of more than 38 digits half up to 38 first (to 0.5), then
    ``enforcePrecisionScale`` to the scale: 1, where one rounding would give 0."""
    text = "0." + "4" + "9" * 40
    assert hive_value(text, parse_hive_type("decimal(38,0)"), "1.2") == Decimal(1)
    assert hive_value("1" * 39, parse_hive_type("decimal(38,0)"), "1.2") is None
