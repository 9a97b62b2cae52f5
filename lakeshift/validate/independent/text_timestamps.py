"""The ``timestamp.formats`` rule for the independent text reader, restated apart from the
Spark reader's (which translates Joda patterns to ``strptime``): each pattern of numeric Joda
letters becomes a regex with named groups, and the match is assembled into Hive's default
timestamp form; ``millis`` reads epoch milliseconds; a zone gives the UTC wall clock.
"""

from __future__ import annotations

import datetime as dt
import re

from lakeshift.errors import RefusedInput

# Joda letter runs as regex groups (restated for this reader: a regex per pattern, not strptime).
_JODA = {
    "yyyy": r"(?P<Y>\d{4})",
    "yy": r"(?P<y>\d{2})",
    "MM": r"(?P<m>\d{1,2})",
    "M": r"(?P<m>\d{1,2})",
    "dd": r"(?P<d>\d{1,2})",
    "d": r"(?P<d>\d{1,2})",
    "HH": r"(?P<H>\d{1,2})",
    "H": r"(?P<H>\d{1,2})",
    "mm": r"(?P<M>\d{1,2})",
    "m": r"(?P<M>\d{1,2})",
    "ss": r"(?P<S>\d{1,2})",
    "s": r"(?P<S>\d{1,2})",
    "Z": r"(?P<z>Z|[+-]\d{2}:?\d{2})",
    "ZZ": r"(?P<z>Z|[+-]\d{2}:?\d{2})",
}


def _joda_regex(pattern: str) -> re.Pattern[str] | None:
    """A regex for a Joda pattern of the numeric letters (None for others: names, AM/PM, day
    of year, which this reader does not check)."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            end = pattern.find("'", i + 1)
            literal = pattern[i + 1 : end] if end > i else ""
            out.append(re.escape(literal) if literal else "'")
            i = (end if end > i else i) + 1
            continue
        run = ch
        while i + len(run) < len(pattern) and pattern[i + len(run)] == ch:
            run += ch
        i += len(run)
        if ch == "S":
            out.append(r"(?P<f>\d{1,9})")
        elif ch.isalpha():
            if run not in _JODA:
                return None
            out.append(_JODA[run])
        else:
            out.append(re.escape(run))
    return re.compile("".join(out))


def hive_timestamp(text: str, formats: list[str]) -> str:
    """The field in Hive's default timestamp form when a timestamp.formats pattern matches."""
    for pattern in formats:
        if pattern == "millis":
            if re.fullmatch(r"[+-]?[0-9]+", text.strip()):
                moment = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=int(text))
                return moment.isoformat(sep=" ", timespec="microseconds")
            continue
        regex = _joda_regex(pattern)
        if regex is None:
            raise RefusedInput(
                f"timestamp.formats pattern {pattern!r}: the independent reader checks only "
                "numeric Joda letters (y M d H m s S Z).",
                hint="Validate this table at the checksum level.",
            )
        found = regex.fullmatch(text)
        if not found:
            continue
        g = found.groupdict()
        year = int(g["Y"]) if g.get("Y") else 2000 + int(g["y"]) if g.get("y") else 1970
        try:
            moment = dt.datetime(
                year,
                int(g.get("m") or 1),
                int(g.get("d") or 1),
                int(g.get("H") or 0),
                int(g.get("M") or 0),
                int(g.get("S") or 0),
                int(((g.get("f") or "") + "000000")[:6]),
            )
        except ValueError:
            continue
        zone = g.get("z")
        if zone and zone != "Z":
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            moment -= sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        return moment.isoformat(sep=" ", timespec="microseconds")
    return text
