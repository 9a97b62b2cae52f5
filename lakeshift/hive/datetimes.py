"""Java's date and time parsers as Hive's readers call them, on text (one value at a time).

Hive turns text into dates and timestamps in four places, each with its own rules:

* its ObjectInspector converters (``PrimitiveObjectInspectorUtils.getDate`` and
  ``getTimestampFromString``): partition key values, and a partition's string column that the
  table declares a date or timestamp (model A);
* its text SerDe (``LazyDate``, ``LazyTimestamp``): a text file's date and timestamp fields.

and the parsers under them changed in Hive 3.0: Hive 1.2/2.x call ``java.sql.Date.valueOf`` and
``java.sql.Timestamp.valueOf`` (fixed-width year, month 1..12, day 1..31, then the fields
resolved leniently in the hybrid Julian/Gregorian calendar), Hive 3.x call Hive's own ``Date``
and ``Timestamp`` classes (``java.time`` formatters with a LENIENT resolver, in the proleptic
calendar), falling back to ISO ``LocalDateTime.parse`` and, for the converters, to a zoned
reading and to the date alone. Each parser below returns the fields as written; ``instant``
resolves them (a day past the month's end, an hour past the day's, carry over).

Restated from Hive 2.3.7's and 3.1.3's source (``PrimitiveObjectInspectorUtils``,
``LazyDate``, ``LazyTimestamp``, ``common.type.Date``/``Timestamp``/``TimestampTZUtil``)
and JDK 8's ``java.sql``; checked value by value against Hive 2.3.9 reading files
(``tests/integration/test_orc_conversions.py``) and against Hive 3.1.3's parsing classes
(``tests/unit/test_hive_datetime.py``, whose expectations are that code's output). Hive 4
(``ResolverStyle.STRICT``) is read as Hive 3 (README, "Limits"). Hand-written: no Python
library reproduces Java's lenient parsers or the hybrid calendar. The Spark reader's SQL for
the same rules is ``datetime_sql``, written separately.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta, timezone
from functools import cache
from importlib import resources
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from lakeshift.hive.java_zones import JAVA_ZONE_IDS

#: (year, month, day, hour, minute, second, nanosecond) as written, before resolution.
Fields = tuple[int, int, int, int, int, int, int]
#: (days since 1970-01-01 in the parser's calendar, microseconds into the day)
Instant = tuple[int, int]

_BLANKS = "".join(chr(c) for c in range(0x21))  # String.trim: every char <= ' '
#: The digits ``Character.digit(c, 10)`` reads, which ``Integer.parseInt`` (java.sql's
#: parsers) takes: every decimal digit (Unicode Nd) of the Basic Multilingual Plane (a digit
#: beyond it is two UTF-16 chars to Java, neither a digit). ``int()`` reads each as Java does.
JAVA_DIGITS = "".join(chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) == "Nd")
_INT = re.compile(f"[+-]?[{JAVA_DIGITS}]+")  # Integer.parseInt
_INT_RANGE = range(-(2**31), 2**31)
# Hive 3's Date/Timestamp formatter: year 1..10 digits, other fields 1..2, '-' signs allowed
# (SignStyle.NORMAL in a strict parse), an optional " h:m:s[.f{1,9}]", the whole text.
_HIVE3_DATE = r"(-?[0-9]{1,10})-(-?[0-9]{1,2})-(-?[0-9]{1,2})"
_HIVE3_DATE_ONLY = re.compile(_HIVE3_DATE, re.ASCII)
_HIVE3_STAMP = re.compile(
    _HIVE3_DATE + r"(?: (-?[0-9]{1,2}):(-?[0-9]{1,2}):(-?[0-9]{1,2})(?:\.([0-9]{1,9}))?)?",
    re.ASCII,
)
# Hive 4's Timestamp.getTimestampFromTime: HH:mm[:ss[.f]] (ISO_LOCAL_TIME), hours 0..23.
_TIME_ONLY = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]{0,9})?)?", re.ASCII)
# ISO_LOCAL_DATE_TIME, strict: 4 digits of year (more need a sign), 2 for every other field.
_ISO = re.compile(
    r"((?:[+-][0-9]{5,10})|-?[0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{0,9}))?)?",
    re.ASCII,
)
# TimestampTZUtil: yyyy-MM-dd[ HH:mm:ss[.f]][ ]zone (a zone is required to read a time). The
# zone's text is captured here and checked by ``zone_known``.
ZONE = r"([A-Za-z0-9_/:+-]+)"
# An offset as java.time's zone parser reads it ("+HH:MM:ss"), alone or after UTC, GMT or UT.
_OFFSET = re.compile(r"(?:UTC|GMT|UT)?[+-]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?", re.ASCII)
#: The ids java.time's zone parser looks up in its tree of region ids: text starting with UT or
#: GMT never reaches the tree (``ZoneIdPrinterParser`` reads it as a prefix and an offset).
TREE_ZONE_IDS = frozenset(z for z in JAVA_ZONE_IDS if not z.startswith(("UT", "GMT")))
#: Zone texts accepted as they are besides the tree's ids.
BARE_ZONES = ("Z", "UTC", "GMT", "UT", "GMT0")
_ZONED = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?: ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?)? ?" + ZONE,
    re.ASCII,
)
UNIX_JDN = 2440588  # Julian day number of 1970-01-01
SWITCH_JDN = 2299161  # Julian day number of 1582-10-15, the hybrid calendar's switch
SWITCH_DAY = SWITCH_JDN - UNIX_JDN  # -141427: 1582-10-15 in days since 1970-01-01
#: Days since 1970-01-01 of 0001-01-01 and 9999-12-31: the days lakeshift's readers hold
#: (Python's dates and the targets' Python readers hold no other years).
FIRST_DAY = {True: -719164, False: -719162}  # hybrid (Julian 0001-01-01), proleptic
LAST_DAY = 2932896


def java_trim(text: str) -> str:
    return text.strip(_BLANKS)


def _nanos(fraction: str | None) -> int:
    return int(((fraction or "") + "000000000")[:9])


def _java_int(text: str) -> int | None:
    if not _INT.fullmatch(text):
        return None
    value = int(text)
    return value if value in _INT_RANGE else None


def _sql_date_part(text: str) -> tuple[int, int, int] | None:
    """The date checks ``java.sql.Date.valueOf`` and ``Timestamp.valueOf`` share: a year of
    exactly four characters, month and day of one or two, each parsed as an int, month 1..12
    and day 1..31 (resolved leniently afterwards)."""
    first = text.find("-")
    second = text.find("-", first + 1)
    if first <= 0 or second <= 0 or second >= len(text) - 1:
        return None
    parts = text[:first], text[first + 1 : second], text[second + 1 :]
    if len(parts[0]) != 4 or not 1 <= len(parts[1]) <= 2 or not 1 <= len(parts[2]) <= 2:
        return None
    year, month, day = (_java_int(p) for p in parts)
    if year is None or month is None or day is None:
        return None
    return (year, month, day) if 1 <= month <= 12 and 1 <= day <= 31 else None


def sql_date(text: str) -> Fields | None:
    """``java.sql.Date.valueOf`` (no trimming)."""
    found = _sql_date_part(text)
    return (*found, 0, 0, 0, 0) if found else None


def sql_timestamp(text: str) -> Fields | None:
    """``java.sql.Timestamp.valueOf``: trimmed; ``date time``; the time ``h:m:s`` of any ints,
    an optional fraction of one to nine digits starting with a digit."""
    text = java_trim(text)
    space = text.find(" ")
    if space < 0:
        return None
    day = _sql_date_part(text[:space])
    time = text[space + 1 :]
    first = time.find(":")
    second = time.find(":", first + 1)
    if day is None or first <= 0 or second <= 0 or second >= len(time) - 1:
        return None
    period = time.find(".", second + 1)
    nanos = 0
    if 0 < period < len(time) - 1:
        fraction = time[period + 1 :]
        if len(fraction) > 9 or fraction[0] not in JAVA_DIGITS or _java_int(fraction) is None:
            return None
        seconds = _java_int(time[second + 1 : period])
        nanos = int(fraction) * 10 ** (9 - len(fraction))
    elif period > 0:
        return None
    else:
        seconds = _java_int(time[second + 1 :])
    hours, minutes = _java_int(time[:first]), _java_int(time[first + 1 : second])
    if hours is None or minutes is None or seconds is None:
        return None
    return (*day, hours, minutes, seconds, nanos)


def hive3_date(text: str) -> Fields | None:
    """Hive 3's ``Date.valueOf``: trimmed, cut at the first space, the date formatter."""
    text = java_trim(text).partition(" ")[0]
    match = _HIVE3_DATE_ONLY.fullmatch(text)
    if not match or _minus_zero(match.groups()):
        return None
    year, month, day = (int(g) for g in match.groups())
    return year, month, day, 0, 0, 0, 0


def _minus_zero(groups: tuple[str | None, ...]) -> bool:
    """A strict java.time parse refuses a negative zero (``-0``, ``-00``)."""
    return any(g is not None and g.startswith("-") and int(g) == 0 for g in groups)


def hive3_timestamp(text: str) -> Fields | None:
    """Hive 3's ``Timestamp.valueOf``: trimmed; its lenient formatter with a time (a date
    alone is no ``LocalDateTime``), else ISO's strict ``LocalDateTime.parse``."""
    text = java_trim(text)
    match = _HIVE3_STAMP.fullmatch(text)
    if match and match.group(4) is not None and not _minus_zero(match.groups()[:6]):
        y, mo, d, h, mi, s, fraction = match.groups()
        return int(y), int(mo), int(d), int(h), int(mi), int(s), _nanos(fraction)
    return _iso(text)


def hive4_date(text: str) -> Fields | None:
    """Hive 4's ``Date.valueOf`` (HIVE-25306, HIVE-27586): trimmed, ``y-m-d`` read from the
    start and whatever follows ignored (``2020-01-01T10:00`` is a date), resolved strictly (an
    invalid date such as ``2020-02-30`` is NULL; nothing carries over)."""
    match = _HIVE3_DATE_ONLY.match(java_trim(text))
    if not match or _minus_zero(match.groups()):
        return None
    year, month, day = (int(g) for g in match.groups())
    fields = (year, month, day, 0, 0, 0, 0)
    return fields if _valid(fields, hour_24=False) else None


def hive4_timestamp(text: str) -> Fields | None:
    """Hive 4's ``Timestamp.valueOf``: trimmed; the whole text ``y-m-d h:m:s[.f]`` (the time
    required), else ISO's ``LocalDateTime.parse``, both strict (``24:00:00``, ``10:61:00``,
    ``2020-02-30`` are NULL)."""
    text = java_trim(text)
    match = _HIVE3_STAMP.fullmatch(text)  # the same form, the time required
    if match and match.group(4) is not None and not _minus_zero(match.groups()[:6]):
        y, mo, d, h, mi, s, fraction = match.groups()
        fields = (int(y), int(mo), int(d), int(h), int(mi), int(s), _nanos(fraction))
        if _valid(fields, hour_24=False):
            return fields
    return _iso(text)


def _iso(text: str) -> Fields | None:
    """``LocalDateTime.parse`` (ISO_LOCAL_DATE_TIME, strict)."""
    match = _ISO.fullmatch(text)
    if not match:
        return None
    y, mo, d, h, mi, s, fraction = match.groups()
    fields = (int(y), int(mo), int(d), int(h), int(mi), int(s or 0), _nanos(fraction))
    return fields if _valid(fields, hour_24=False) else None


def zone_known(zone: str) -> bool:
    """Whether java.time's zone parser (``ZoneIdPrinterParser``, as Hive's formatter calls it
    through ``appendZoneText(TextStyle.NARROW)``) reads the whole of ``zone``: an offset of at
    most 18 hours, UTC, GMT or UT alone or followed by one, GMT0, a region id of Java's
    time-zone database (case-sensitive), or Z. Checked against JDK 17's own parser on 16,512
    texts (every id and ~16,000 offset forms)."""
    if zone in BARE_ZONES or zone in TREE_ZONE_IDS:
        return True
    match = _OFFSET.fullmatch(zone)
    if not match:
        return False
    hours, minutes, seconds = int(match[1]), int(match[2]), int(match[3] or 0)
    return minutes <= 59 and seconds <= 59 and hours * 3600 + minutes * 60 + seconds <= 64800


def _zoned(text: str) -> Fields | None:
    """``TimestampTZUtil.parse``'s wall clock (SMART resolver: a day past the month's end is
    its last day, ``24:00:00`` the next midnight); None without a zone Java knows."""
    text = re.sub(r"([+-])([0-9]:[0-9]{2})", r"\g<1>0\g<2>", text, count=1)
    match = _ZONED.fullmatch(text)
    if not match or not zone_known(match[8]):
        return None
    y, mo, d, h, mi, s, fraction, _ = match.groups()
    year, month, day = int(y), int(mo), int(d)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    day = min(day, _month_days(year, month))
    fields = (year, month, day, int(h or 0), int(mi or 0), int(s or 0), _nanos(fraction))
    if not _valid(fields, hour_24=True):
        return None
    gap = _gap_seconds(fields, match[8])
    return (*fields[:5], fields[5] + gap, fields[6]) if gap else fields


@cache
def _zone_rules(zone: str) -> ZoneInfo | None:
    """The zone's rules from the ``tzdata`` package (the same database on every executor;
    ``ZoneInfo(zone)`` would prefer the OS's files), else the OS's."""
    try:
        with resources.files("tzdata.zoneinfo").joinpath(*zone.split("/")).open("rb") as data:
            return ZoneInfo.from_file(data, key=zone)
    except (OSError, ValueError):
        pass
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return None


#: 1900-01-01 00:00 UTC in seconds since 1970: java.util.TimeZone keeps no zone change
#: before it (``sun.util.calendar.ZoneInfoFile``) and gives every earlier instant the zone's
#: raw offset (``java_raw_offset``).
JAVA_ZONE_TABLE_START = -2_208_988_800
_SYSTEM_V = re.compile(r"SystemV/[A-Z]{3}([0-9]+)(?:[A-Z]{3})?")


@cache
def java_raw_offset(zone: str) -> int:
    """The offset in seconds java.util.TimeZone gives region ``zone`` before 1900: the zone's
    standard offset today (``getRawOffset``; New York's -5:00 where java.time has its local
    mean time, -4:56:02), as Hive 1.2/2.x's ``java.sql.Timestamp`` and ORC's readers count
    it (Hive 2.3.9 in New York shows it): the lesser of its January and July offsets in 2024
    (Java's database keeps summer time positive, as in Dublin), or a ``SystemV/`` id's hours.
    0 for a zone Python does not know."""
    system_v = _SYSTEM_V.fullmatch(zone)
    if system_v:
        return -3600 * int(system_v[1])
    rules = _zone_rules(zone)
    if rules is None:
        return 0
    offsets = [datetime(2024, m, 15, tzinfo=timezone.utc).astimezone(rules) for m in (1, 7)]
    return int(min(o.utcoffset() or timedelta(0) for o in offsets).total_seconds())


def _gap_seconds(fields: Fields, zone: str) -> int:
    """How far ``ZonedDateTime.of`` moves a wall clock that falls in a daylight-saving gap of
    the region ``zone`` (Hive shows the zoned reading's ``toLocalDateTime()``: later by the
    gap's length); 0 outside gaps, for offsets, and for years Python's dates do not hold. The
    rules are Python's time-zone database (``zoneinfo``); the Spark reader uses the JVM's."""
    rules = _zone_rules(zone) if zone in TREE_ZONE_IDS else None
    year, month, day, hour, minute, second, _ = fields
    if rules is None or not 1 <= year <= 9999:
        return 0
    try:
        wall = datetime(year, month, day) + timedelta(hours=hour, minutes=minute, seconds=second)
        # fold=0 in a gap takes the offset before it, so the round trip lands past the gap
        shown = wall.replace(tzinfo=rules).astimezone(timezone.utc).astimezone(rules)
    except (OverflowError, ValueError):
        return 0
    return int((shown.replace(tzinfo=None) - wall).total_seconds())


def sql_gap_seconds(fields: Fields, zone: str) -> int:
    """How far ``java.sql.Timestamp.valueOf`` in a JVM running in ``zone`` moves a wall clock
    the zone's clocks skip (Hive 1.2/2.x's converter: java.util's ``getOffsetsByWall`` takes
    the instant by the offset before the gap, which shows past it); 0 outside gaps and before
    1900, where java.util's zones know no change (``java_raw_offset``)."""
    return _gap_seconds(fields, zone) if fields[0] >= 1900 else 0


def _month_days(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _valid(fields: Fields, hour_24: bool) -> bool:
    year, month, day, hour, minute, second, _ = fields
    if hour_24 and (hour, minute, second, fields[6]) == (24, 0, 0, 0):
        hour = 0
    return (
        1 <= month <= 12
        and 1 <= day <= _month_days(year, month)
        and 0 <= hour <= 23
        and 0 <= minute <= 59
        and 0 <= second <= 59
    )


def _trim_nanos(text: str, hive3: bool, hive4: bool = False) -> str:
    """``trimNanoTimestamp``: digits past nine after the first period are dropped (Hive 3
    keeps what follows a second space; Hive 4, without one, what follows the first ``+``
    after the first space)."""
    period = text.find(".")
    if period < 0:
        return text
    first = text.find(" ")
    second = text.find(" ", first + 1) if first >= 0 else -1
    if hive4 and first >= 0 and second < 0:
        second = text.find("+", first + 1)
    end = len(text) if second < 0 or not hive3 else second
    if end - period > 9:
        return text[: period + 10] + (text[end:] if hive3 else "")
    return text


def converter_timestamp(text: str, hive3: bool, hive4: bool = False) -> Fields | None:
    """``getTimestampFromString``: Hive 2 appends ``00:00:00`` to a bare date; Hive 3 tries
    its timestamp, then a zoned reading, then the date alone at midnight. Hive 4
    (``TimestampUtils.stringToTimestamp``): a text of 10 characters is a date only; else its
    timestamp, the zoned reading, a time alone (Hive shows it on the day the query runs:
    NULL here, no fixed value exists), the date at the start at midnight."""
    text = _trim_nanos(java_trim(text), hive3, hive4)
    if not hive3:
        return sql_timestamp(text if " " in text else text + " 00:00:00")
    if not hive4:
        return hive3_timestamp(text) or _zoned(text) or hive3_date(text)
    if not text:
        return None
    if len(text.encode("utf-16-le")) == 20:  # String.length() == 10
        return hive4_date(text)
    if _TIME_ONLY.fullmatch(text):
        return None
    return hive4_timestamp(text) or _zoned(text) or hive4_date(text)


def converter_date(text: str, hive3: bool, hive4: bool = False) -> Fields | None:
    """``getDate``: the trimmed text as a date, else the date of its timestamp; Hive 4: a
    text of 10 characters as a date only, any other as the date of its timestamp."""
    text = java_trim(text)
    if hive4:
        if len(text.encode("utf-16-le")) == 20:
            return hive4_date(text)
        return converter_timestamp(text, True, True)  # its date: the caller takes the day
    found = hive3_date(text) if hive3 else sql_date(text)
    if found is None:
        found = converter_timestamp(text, hive3)
    return found


def _date_maybe(text: str) -> bool:
    """``LazyUtils.isDateMaybe``: at least eight bytes (shorter text is NULL unparsed)."""
    return len(text.encode()) >= 8


def lazy_date(text: str, hive3: bool, hive4: bool = False) -> Fields | None:
    """A text file's DATE field (``LazyDate``): java.sql's parser untrimmed, or Hive 3's, or
    Hive 4's."""
    if not _date_maybe(text):
        return None
    if hive4:
        return hive4_date(text)
    return hive3_date(text) if hive3 else sql_date(text)


def lazy_timestamp(text: str, hive3: bool, hive4: bool = False) -> Fields | None:
    """A text file's TIMESTAMP field (``LazyTimestamp`` without ``timestamp.formats``): the
    version's ``Timestamp.valueOf`` alone (no bare dates, no fraction cut, no zone)."""
    if not _date_maybe(text) or text == "NULL":
        return None
    if hive4:
        return hive4_timestamp(text)
    return hive3_timestamp(text) if hive3 else sql_timestamp(text)


def day_number(year: int, month: int, day: int, julian: bool) -> int:
    """The Julian day number of a date in the Julian calendar or the proleptic Gregorian one
    (fields past their range carry over)."""
    a = (14 - month) // 12
    y, m = year + 4800 - a, month + 12 * a - 3
    base = day + (153 * m + 2) // 5 + 365 * y + y // 4
    return base - 32083 if julian else base - y // 100 + y // 400 - 32045


def instant(fields: Fields | None, hybrid: bool, bounded: bool = True) -> Instant | None:
    """Fields resolved leniently (months past 12 carry into years, days past the month's end
    and time past the day's into the next), counted in the hybrid calendar (java.sql) or the
    proleptic one (java.time); ``bounded``: None outside 0001-01-01..9999-12-31 of that
    calendar."""
    if fields is None:
        return None
    year, month, day, hours, minutes, seconds, nanos = fields
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    extra, rest = divmod(hours * 3600 + minutes * 60 + seconds, 86400)
    gregorian = day_number(year, month, day, julian=False) + extra
    days = gregorian - UNIX_JDN
    if hybrid:
        # java.util.Date's rule: the fields counted in the written year's calendar (Julian
        # before 1582), recounted in the other one where the result crosses 1582-10-15
        # (1582-10-10 is ten days later, 1582-10-14 24:00 is 1582-10-15).
        julian = day_number(year, month, day, julian=True) + extra
        if year >= 1582:
            days = (gregorian if gregorian >= SWITCH_JDN else julian) - UNIX_JDN
        else:
            days = (julian if julian < SWITCH_JDN else gregorian) - UNIX_JDN
    if bounded and not FIRST_DAY[hybrid] <= days <= LAST_DAY:
        return None
    return days, rest * 1_000_000 + nanos // 1000


def label(days: int, hybrid: bool) -> tuple[int, int, int]:
    """(year, month, day) of a day number in the hybrid calendar (Julian before 1582-10-15;
    a year before 1 shown by its era's year, 1 BC as 0001) or the proleptic one."""
    julian = days + UNIX_JDN
    if hybrid and julian < SWITCH_JDN:
        c = julian + 32082
        d = (4 * c + 3) // 1461
        e = c - 1461 * d // 4
    else:
        a = julian + 32044
        b = (4 * a + 3) // 146097
        c = a - 146097 * b // 4
        d = (4 * c + 3) // 1461
        e = c - 1461 * d // 4
        d += 100 * b
    m = (5 * e + 2) // 153
    day = e - (153 * m + 2) // 5 + 1
    month = m + 3 - 12 * (m // 10)
    year = d - 4800 + m // 10
    return (1 - year if hybrid and year < 1 else year), month, day


def converted(text: str, kind: str, hive3: bool, hive4: bool = False) -> Instant | None:
    """``text`` read by Hive's converter as a ``date`` or ``timestamp`` (Hive 3.0+'s rules
    when ``hive3``, Hive 4's when also ``hive4``): see ``converter_date``/
    ``converter_timestamp`` and ``instant``."""
    parse = converter_date if kind == "date" else converter_timestamp
    return instant(parse(text, hive3, hive4), hybrid=not hive3)


def text_field(text: str, kind: str, hive3: bool, hive4: bool = False) -> Instant | None:
    """A text file's field read by Hive's text SerDe as a ``date`` or ``timestamp``."""
    parse = lazy_date if kind == "date" else lazy_timestamp
    return instant(parse(text, hive3, hive4), hybrid=not hive3)
