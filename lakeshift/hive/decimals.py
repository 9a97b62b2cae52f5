"""Text read as a decimal as each Hive reads it: ``HiveDecimal.create(String)``, then
``enforcePrecisionScale``.

Every Hive reader of text calls these (a text file's ``LazyHiveDecimal``, the converter's
``getHiveDecimal`` for strings and for a float's or double's ``toString``, a partition key's
value), and the grammar changed in Hive 2.2 when ``HiveDecimal`` became ``FastHiveDecimal``:

- Hive 2.2+ (``FastHiveDecimalImpl.fastSetFromBytes``, read in Hive 2.3.7's and 3.1.3's
  source and checked against Hive 2.3.9): ASCII digits, an exponent of at most two digits
  past its leading zeros; spaces (only) around it where ``HiveDecimal.create`` calls it with
  ``trimBlanks`` (the converter, ORC, partition keys), none in a text file's own field
  (``LazyHiveDecimal``: ``setFromBytes`` without ``trimBlanks``).
- Hive 1.2 (``new BigDecimal(text.trim())``, kept in Hive 2's storage-api as
  ``HiveDecimalV1``): every character up to U+0020 trimmed, any digit ``Character.digit``
  reads (every decimal digit of the BMP, the exponent's too), an exponent and a scale an int
  holds; then ``normalize``: NULL past 38 integer digits, else rounded half up to at most 38
  digits, before the type's own rounding.

Hand-written: no library parses Java's or Hive's decimal grammars. The partition key values
and the independent reader use this module; the Spark reader writes the same rules in SQL
(``spark_sql``) and is checked against them.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

from lakeshift.hive.datetimes import JAVA_DIGITS, java_trim
from lakeshift.hive.types import DECIMAL_38

# FastHiveDecimalImpl.fastSetFromBytes, as a grammar: integer digits, an optional dot and
# fraction digits, an optional exponent of at most two digits past its zeros (with blanks
# trimmed, an exponent without digits before a blank is 0: "1e " is 1); or, without integer
# digits, a dot and fraction digits and nothing after them (".5 " and ".5e1" are NULL).
_FAST = re.compile(
    r" *(?P<sign>[+-]?)(?:(?P<int>\d+)\.?(?P<frac>\d*)"
    r"(?:[eE](?P<exp>[+-]?0*\d{1,2}|[+-]?(?= )))? *|\.(?P<dotfrac>\d+))",
    re.ASCII,
)
_FAST_UNTRIMMED = re.compile(
    r"(?P<sign>[+-]?)(?:(?P<int>\d+)\.?(?P<frac>\d*)(?:[eE](?P<exp>[+-]?0*\d{1,2}))?"
    r"|\.(?P<dotfrac>\d+))",
    re.ASCII,
)
_D = JAVA_DIGITS
_BIG = re.compile(f"([+-]?(?:[{_D}]+\\.?[{_D}]*|\\.[{_D}]+))(?:[eE]([+-]?[{_D}]+))?")
_MAX_DIGITS = 38  # HiveDecimal's precision and scale limit
_INT_RANGE = range(-(2**31), 2**31)


def create(text: str, big_decimal: bool = False, trim_blanks: bool = True) -> Decimal | None:
    """``HiveDecimal.create(text)``: Hive 1.2's (``big_decimal``) or Hive 2.2+'s (spaces
    around it allowed only with ``trim_blanks``); None where it gives NULL."""
    if big_decimal:
        return _big_decimal(text)
    return _fast_decimal(text, _FAST if trim_blanks else _FAST_UNTRIMMED)


def enforce(value: Decimal, precision: int, scale: int) -> Decimal | None:
    """``enforcePrecisionScale``: rounded half up to ``scale``, None past ``precision``; zero
    without a sign (a BigDecimal has no -0)."""
    if not value.is_finite():
        return None
    limit = Decimal(10) ** (precision - scale)
    if abs(value) >= limit:  # rounding only grows a value; quantize cannot hold a huge one
        return None
    rounded = value.quantize(Decimal(1).scaleb(-scale), ROUND_HALF_UP, DECIMAL_38)
    if abs(rounded) >= limit:
        return None
    return abs(rounded) if rounded.is_zero() else rounded


def _fast_decimal(text: str, grammar: re.Pattern[str]) -> Decimal | None:
    """Digits past 38 (counting the fraction's from the dot) rounded half up first, then the
    exponent applied (past 38 integer digits NULL, past a scale of 38 rounded half up)."""
    match = grammar.fullmatch(text)
    if not match:
        return None
    whole = (match["int"] or "").lstrip("0")
    fraction = match["frac"] if match["int"] is not None else match["dotfrac"]
    if len(whole) > _MAX_DIGITS:
        return None
    mantissa = Decimal(f"{match['sign']}{whole or 0}.{fraction or 0}")
    mantissa = _round_places(mantissa, _MAX_DIGITS - len(whole))
    if mantissa.is_zero():  # zero whatever its exponent (checked before the exponent)
        return Decimal(0)
    exponent = int(match["exp"]) if match["exp"] and match["exp"] not in "+-" else 0
    value = mantissa.scaleb(exponent, DECIMAL_38)
    if value.adjusted() + 1 > _MAX_DIGITS:
        return None
    return _round_places(value, _MAX_DIGITS)


def _round_places(value: Decimal, places: int) -> Decimal:
    """``value`` rounded half up to at most ``places`` fraction digits."""
    if -int(value.as_tuple().exponent) <= places:
        return value
    return value.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP, DECIMAL_38)


def _big_decimal(text: str) -> Decimal | None:
    """Java's exact ``BigDecimal``, then ``normalize``: NULL past 38 integer digits, else
    rounded half up to at most 38 digits (``min(38, 38 - integer digits)`` places)."""
    match = _BIG.fullmatch(java_trim(text))
    if not match:
        return None
    digits = "".join(str(int(c)) if c.isdigit() else c for c in match.group(1))
    exponent = int(match.group(2)) if match.group(2) else 0  # int() reads Java's digits
    fraction = len(digits.partition(".")[2])
    if exponent not in _INT_RANGE or fraction - exponent not in _INT_RANGE:
        return None  # BigDecimal: exponent or scale overflow
    value = Decimal(f"{digits}E{exponent}")  # exact
    if value.is_zero():
        return Decimal(0)
    whole = value.adjusted() + 1  # digits left of the point (BigDecimal precision - scale)
    if whole > _MAX_DIGITS:
        return None
    return _round_places(value, min(_MAX_DIGITS, _MAX_DIGITS - whole))
