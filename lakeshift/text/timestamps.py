"""The ``timestamp.formats`` SerDe parameter: Hive's alternative timestamp patterns for text.

Hive (``TimestampParser``) tries each comma-separated Joda-Time pattern, and ``millis`` (epoch
milliseconds), before its default ``yyyy-MM-dd HH:mm:ss[.fffffffff]``; a pattern with a zone
gives the UTC wall-clock time (Hive timestamps are zone-free). A field that matches a pattern is
rewritten here in the default form, so the reader's usual timestamp conversion then applies;
one that matches none is left for the default rule. Hand-written: Python has no Joda parser;
the pattern letters are translated to ``strptime``.
"""

from __future__ import annotations

import datetime as dt
import re

from lakeshift.errors import RefusedInput

MILLIS = "millis"
# Joda letter runs -> strptime directives (the letters Hive users put in timestamp.formats).
_LETTERS = {
    "yyyy": "%Y",
    "yy": "%y",
    "MMMM": "%B",
    "MMM": "%b",
    "MM": "%m",
    "M": "%m",
    "dd": "%d",
    "d": "%d",
    "HH": "%H",
    "H": "%H",
    "hh": "%I",
    "h": "%I",
    "mm": "%M",
    "m": "%M",
    "ss": "%S",
    "s": "%S",
    "a": "%p",
    "EEEE": "%A",
    "EEE": "%a",
    "DDD": "%j",
    "Z": "%z",
    "ZZ": "%z",
}
_RUN = re.compile(r"'([^']*)'|([A-Za-z])\2*|(.)", re.S)


def split_formats(value: str | None) -> tuple[str, ...]:
    """``timestamp.formats`` split at unescaped commas (``\\,`` is a literal comma)."""
    if not value:
        return ()
    parts = re.split(r"(?<!\\),", value)
    return tuple(p.replace("\\,", ",").strip() for p in parts if p.strip())


def to_strptime(pattern: str) -> str:
    """A Joda-Time pattern as a ``strptime`` format; fractions of a second (``S``) become %f."""
    out = []
    for match in _RUN.finditer(pattern):
        quoted, letter, other = match.groups()
        if quoted is not None:
            out.append(quoted.replace("%", "%%") if quoted else "'")
        elif letter is not None:
            run = match.group(0)
            if letter == "S":
                out.append("%f")
            elif run in _LETTERS:
                out.append(_LETTERS[run])
            else:
                raise RefusedInput(
                    f"timestamp.formats pattern {pattern!r} uses {run!r}, which lakeshift does "
                    "not translate.",
                    hint="Use the letters y M d H h m s S a E D Z, or convert the partition to "
                    "ORC in Hive.",
                )
        else:
            out.append(other.replace("%", "%%"))
    return "".join(out)


def compile_formats(formats: tuple[str, ...]) -> tuple[str, ...]:
    """The strptime forms of the patterns (``millis`` kept as is); raises for unknown letters."""
    return tuple(f if f == MILLIS else to_strptime(f) for f in formats)


def rewrite(text: str, compiled: tuple[str, ...]) -> str:
    """``text`` in Hive's default form when a pattern matches it, else unchanged."""
    for form in compiled:
        try:
            if form == MILLIS:
                if not re.fullmatch(r"[+-]?\d+", text.strip()):
                    continue
                moment = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=int(text))
            else:
                moment = dt.datetime.strptime(text, form)
                if moment.tzinfo is not None:
                    moment = moment.astimezone(dt.timezone.utc).replace(tzinfo=None)
        except (ValueError, OverflowError):
            continue
        return moment.strftime("%Y-%m-%d %H:%M:%S.%f")
    return text
