"""Java's ``Double.toString`` and ``Float.toString`` as JDK 8 to 18 print them.

Hive prints a float or double read as a string (or as a decimal or a timestamp, through its
text) with these methods, and the JVMs Hive runs on (8, 11, 17) all use the same digit
generator, ``FloatingDecimal``. Its digits are not always the shortest that read back as the
value (JDK-4511638, changed in JDK 19), and no Python library prints them: Python's ``repr``
and numpy print the shortest. So this module restates that generator, hand-written from its
behaviour, which is:

- A value at most 2^62 with no fraction bits is printed as its exact integer, rounded half up
  to the decimal digits its binary exponent leaves significant (the "long" path).
- Every other value is divided out digit by digit as ``B / S`` with ``M`` half a unit in the
  last place (Steele and White's free-format method), starting from an estimated decimal
  exponent, and stops once the remainder is within ``M`` of either neighbour. The stopping
  test differs by the width the JDK computes in: in 32 or 64-bit integers (chosen from a
  rough bit count) the upper test is strict and overflows wrap; in big integers it is not
  strict. An E-form value always gets a second digit. The last digit is then rounded by
  which neighbour the remainder is nearer (ties to an even digit), and a carry out of
  ``9.99`` keeps its digit count (``1.00``).
- The text: plain between 10^-3 and 10^7, else ``d.ddddE±n``.

Checked against the JVM itself on random values of every exponent
(``tests/integration/test_java_float_text.py``).
"""

from __future__ import annotations

import math
import struct

import numpy as np

#: ceil(log2(5^i)), roughly, as the JDK tabulates it to choose the width it computes in.
_FIVE_BITS = (0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47,
              49, 52, 54, 56, 59, 61)  # fmt: skip
#: Decimal digits of 2^p that are below a value's precision (the count of times 2^p can be
#: divided by ten while at least ten), for p up to 63.
_INSIGNIFICANT = tuple(len(str(1 << p)) - 1 for p in range(64))
_LONG_FIVES = 27  # powers of five a long holds: 5^0 .. 5^26
_SMALLEST_EXACT = -21  # the binary exponents of the long path: -(63 // 3) .. 62
_LARGEST_EXACT = 62


def java_float_text(value: float, single: bool) -> str:
    """``Float.toString`` (``single``) or ``Double.toString`` of ``value`` (a float is first
    narrowed to single precision)."""
    if single:  # narrowed first: a double past a float's range is its Infinity
        with np.errstate(over="ignore"):
            value = float(np.float32(value))
    if value != value:
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if single:
        bits = int(np.float32(value).view(np.uint32))
        negative, exponent, fraction, width = bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF, 23
    else:
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
        negative, exponent = bits >> 63, (bits >> 52) & 0x7FF
        fraction, width = bits & ((1 << 52) - 1), 52
    sign = "-" if negative else ""
    if exponent == 0 and fraction == 0:
        return sign + "0.0"
    if exponent == 0:  # subnormal: normalise, counting only the bits it has
        significant = fraction.bit_length()
        shift = width + 1 - significant
        fraction <<= shift
        exponent = 1 - shift
    else:
        fraction |= 1 << width
        significant = width + 1
    exponent -= 127 if single else 1023
    digits, point = _digits(exponent, fraction << (52 - width), significant)
    return sign + _layout(digits, point)


def _digits(exponent: int, fraction: int, significant: int) -> tuple[str, int]:
    """(digits, position of the decimal point) of ``fraction * 2^(exponent - 52)``, where
    ``fraction`` has its top bit at 2^52 and ``significant`` bits of precision."""
    trailing = (fraction & -fraction).bit_length() - 1
    used = 53 - trailing  # bits of the fraction that are set or between set ones
    tiny = max(0, used - exponent - 1)  # of them, those right of the binary point
    if (
        _SMALLEST_EXACT <= exponent <= _LARGEST_EXACT
        and tiny == 0
        and used < 64  # (tiny == 0: the JDK's width test reduces to this)
    ):
        whole = fraction << (exponent - 52) if exponent >= 52 else fraction >> (52 - exponent)
        drop = _INSIGNIFICANT[exponent - significant - 1] if exponent > significant + 2 else 0
        return _integral(whole, drop)
    return _free_format(exponent, fraction >> trailing, used, significant, tiny)


def _integral(whole: int, drop: int) -> tuple[str, int]:
    """An integral value's digits, its last ``drop`` digits rounded off half up, trailing
    zeros removed."""
    point = 0
    if drop:
        scale = 10**drop
        whole, residue = divmod(whole, scale)
        point = drop
        whole += residue >= scale // 2
    text = str(whole)
    return text.rstrip("0"), len(text) + point


def _free_format(
    exponent: int, fraction: int, used: int, significant: int, tiny: int
) -> tuple[str, int]:
    """The digit loop: ``fraction`` holds the value's ``used`` bits (its last one set)."""
    decimal = _estimate_exponent(fraction << (53 - used), exponent)
    b5 = max(0, -decimal)
    b2 = b5 + tiny + exponent - (used - 1)
    s5 = max(0, decimal)
    s2 = s5 + tiny
    m5, m2 = b5, b5 + tiny + exponent - significant
    common = min(b2, s2)
    b2, s2, m2 = b2 - common, s2 - common, m2 - common
    if used == 1:  # a power of two: the neighbour below is half as far
        m2 -= 1
    if m2 < 0:
        b2, s2, m2 = b2 - m2, s2 - m2, 0
    b_bits = used + b2 + (_FIVE_BITS[b5] if b5 < len(_FIVE_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_FIVE_BITS[s5 + 1] if s5 + 1 < len(_FIVE_BITS) else (s5 + 1) * 3)
    width = 32 if b_bits < 32 and ten_s_bits < 32 else 64 if b_bits < 64 and ten_s_bits < 64 else 0
    b, s, m = (fraction * 5**b5) << b2, 5**s5 << s2, 5**m5 << m2
    tens = s * 10
    wrap = _WRAP[width or 64]
    # The first digit: an estimate one too high gives a zero, which is dropped.
    q, b = divmod(b, s)
    b, m = b * 10, m * 10
    if width:
        m = wrap(m)
        low, high = b < m, wrap(b + m) > tens
    else:
        low, high = b < m, b + m >= tens
    out = [q]
    if q == 0 and not high:
        out, decimal = [], decimal - 1
    if decimal < -3 or decimal >= 8:  # E-form has at least two digits
        low = high = False
    if width:
        # b, s and tens fit the width (that is how it was chosen); m and b + m may not.
        top = 1 << (width - 1)
        while not low and not high:
            q, b = divmod(b, s)
            b, m = b * 10, m * 10
            if m >= top:
                m = wrap(m)
            if m > 0:
                both = b + m
                low, high = b < m, (wrap(both) if both >= top else both) > tens
            else:  # m overflowed: the JDK stops here
                low = high = True
            out.append(q)
        below = wrap(wrap(b << 1) - tens)
    else:
        while not low and not high:
            q, b = divmod(b, s)
            b, m = b * 10, m * 10
            low, high = b < m, b + m >= tens
            out.append(q)
        below = (b << 1) - tens
    if high and (not low or below > 0 or (below == 0 and out[-1] % 2)):
        return _round_up(out, decimal + 1)
    return "".join(map(str, out)), decimal + 1


def _round_up(digits: list[int], point: int) -> tuple[str, int]:
    """One added to the last digit; a carry out of all nines makes the first digit 1, the
    others 0, and keeps their count."""
    at = len(digits) - 1
    while at > 0 and digits[at] == 9:
        digits[at] = 0
        at -= 1
    if digits[at] == 9:
        digits[at] = 1  # at == 0
        point += 1
    else:
        digits[at] += 1
    return "".join(map(str, digits)), point


def _estimate_exponent(fraction: int, exponent: int) -> int:
    """floor(log10(value)), estimated in doubles as the JDK does (it may be one too high)."""
    mantissa = struct.unpack("<d", struct.pack("<Q", (1023 << 52) | (fraction & ((1 << 52) - 1))))[
        0
    ]
    return math.floor((mantissa - 1.5) * 0.289529654 + 0.176091259 + exponent * 0.301029995663981)


class _Fixed:
    """Two's-complement wrap-around of Java's int (32) or long (64) arithmetic."""

    def __init__(self, bits: int) -> None:
        self.mask, self.top = (1 << bits) - 1, 1 << (bits - 1)

    def __call__(self, value: int) -> int:
        value &= self.mask
        return value - (self.mask + 1) if value & self.top else value


_WRAP = {32: _Fixed(32), 64: _Fixed(64)}


def _layout(digits: str, point: int) -> str:
    """``d.dddE±n``, or plain for a point between -2 and 7 (a value in [0.001, 10^7))."""
    if 0 < point < 8:
        whole = digits[:point].ljust(point, "0")
        return f"{whole}.{digits[point:] or '0'}"
    if -3 < point <= 0:
        return f"0.{'0' * -point}{digits}"
    return f"{digits[0]}.{digits[1:] or '0'}E{point - 1}"
