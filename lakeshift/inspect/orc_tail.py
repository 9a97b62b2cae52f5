"""The calendar an ORC file's dates and timestamps were written in, from its footer.

ORC writers store dates as day numbers. Hive 2.x and other Java writers before ORC's calendar
support counted them in the hybrid Julian/Gregorian calendar (``java.sql.Date``); Hive 3.1+
(Hive 3.1 without writing a calendar field), ORC's C++ writer (pyarrow, Impala) and Trino
count them in the proleptic Gregorian calendar.
The two agree from 1582-10-15 on. Java writers since ORC 1.5.? record which one in the footer
(``Footer.calendar``, field 11); pyarrow does not expose that field, so the file tail is read
here: the PostScript (plain protobuf), then the footer (protobuf in the file's compression
chunks). Hand-written: no installed library decodes ORC's footer protobuf.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import cached_property, lru_cache

import pyarrow as pa

from lakeshift.hive.datetimes import SWITCH_DAY

HYBRID = "hybrid"
PROLEPTIC = "proleptic"
_CALENDARS = {1: HYBRID, 2: PROLEPTIC}
# Writers (Footer.writer / pyarrow's ``writer``) that never wrote hybrid day numbers.
_PROLEPTIC_WRITERS = frozenset({"ORC_CPP", "PRESTO", "TRINO", "SCRITCHLEY_GO", "CUDF"})
_TAIL = 16 << 10
GREGORIAN_START_MILLIS = SWITCH_DAY * 86_400_000


def _varint(data: bytes, position: int) -> tuple[int, int]:
    byte = data[position]
    if byte < 0x80:  # most keys and lengths: one byte
        return byte, position + 1
    value, shift = byte & 0x7F, 7
    position += 1
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7


def _fields(message: bytes, wanted: frozenset[int] | None = None) -> dict[int, list[int | bytes]]:
    """Protobuf wire format: field number -> values (varints as ints, others as bytes); only
    the ``wanted`` fields (default all), the others skipped without being copied (a footer
    holds one entry per stripe and per type, which the calendar check never needs)."""
    # inspect's hot loop (every file's PostScript, footer and date statistics): one-byte
    # varints inline, length-delimited fields (most of a footer's) tested first
    out: dict[int, list[int | bytes]] = {}
    position = 0
    end = len(message)
    while position < end:
        key = message[position]
        if key < 0x80:
            position += 1
        else:
            key, position = _varint(message, position)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 2:
            length = message[position]
            if length < 0x80:
                position += 1
            else:
                length, position = _varint(message, position)
            if wanted is not None and number not in wanted:
                position += length
                continue
            value = message[position : position + length]
            position += length
        elif wire == 0:
            value = message[position]
            if value < 0x80:
                position += 1
            else:
                value, position = _varint(message, position)
            if wanted is not None and number not in wanted:
                continue
        elif wire == 1 or wire == 5:
            width = 8 if wire == 1 else 4
            value, position = message[position : position + width], position + width
            if wanted is not None and number not in wanted:
                continue
        else:
            raise ValueError(f"protobuf wire type {wire} is not expected in an ORC tail")
        found = out.get(number)
        if found is None:
            out[number] = [value]
        else:
            found.append(value)
    return out


#: footerLength, compression, compressionBlockSize, writerVersion
_POSTSCRIPT_FIELDS = frozenset({1, 2, 3, 6})
_BLOCK_SIZE = 256 << 10  # ORC's default compressionBlockSize
_STRIPES = 3  # Footer.stripes
_TYPES = 4  # Footer.types
_ROWS = 6  # Footer.numberOfRows
_WRITER = 9  # Footer.writer
_SOFTWARE = 12  # Footer.softwareVersion
#: statistics, calendar, types (kept undecoded), and what pyarrow's reader names (rows, writer,
#: software version)
_FOOTER_FIELDS = frozenset({7, 11, _TYPES, _ROWS, _WRITER, _SOFTWARE})
_STRIPE_FIELDS = frozenset({1, 2, 3, 4})  # offset, indexLength, dataLength, footerLength
_WRITER_ZONE = frozenset({3})  # StripeFooter.writerTimezone
#: PostScript writer versions from before ORC recorded the writer's time zone (HIVE-8746,
#: Hive 1.0): only their files' stripe footers are read for it.
OLD_WRITER_VERSIONS = frozenset({"ORIGINAL", "HIVE_8732", "HIVE_4243"})
_COLUMN_FIELDS = frozenset({7, 9})  # DateStatistics, TimestampStatistics
_DATE_KEY, _STAMP_KEY = bytes([7 << 3 | 2]), bytes([9 << 3 | 2])  # their one-byte keys
_MINIMUM_FIELDS = frozenset({1, 3})  # minimum, minimumUtc
_STAMP_FIELDS = frozenset({1, 3, 5, 6})  # minimum, minimumUtc, minimumNanos, maximumNanos


def _snappy(chunk: bytes) -> bytes:
    size, _ = _varint(chunk, 0)  # raw snappy starts with the uncompressed length
    return pa.Codec("snappy").decompress(chunk, decompressed_size=size).to_pybytes()


def _zstd(chunk: bytes, block_size: int) -> bytes:
    # Not pyarrow's codec: it needs the exact decompressed size, which ORC does not store (a
    # chunk holds at most the PostScript's compressionBlockSize).
    import zstandard

    try:
        return zstandard.ZstdDecompressor().decompress(chunk, max_output_size=block_size)
    except zstandard.ZstdError as e:
        raise ValueError(f"ZSTD chunk: {e}") from e


def _decompress(data: bytes, kind: int, block_size: int = _BLOCK_SIZE) -> bytes | None:
    """ORC's chunked stream: 3-byte headers (length << 1 | original). None: codec not read
    here (LZO, LZ4: their raw blocks do not carry their size, and no installed library
    decodes them without it)."""
    if kind == 0:
        return data
    out = bytearray()
    position = 0
    while position + 3 <= len(data):
        header = int.from_bytes(data[position : position + 3], "little")
        position += 3
        length, original = header >> 1, header & 1
        chunk = data[position : position + length]
        position += length
        if original:
            out += chunk
        elif kind == 1:
            out += zlib.decompress(chunk, -15)
        elif kind == 2:
            out += _snappy(chunk)
        elif kind == 5:
            out += _zstd(chunk, block_size)
        else:
            return None
    return bytes(out)


@dataclass(frozen=True)
class OrcTail:
    """What the footer says that pyarrow does not: the calendar field (``None`` when absent)
    and whether a date or timestamp column's minimum falls before 1582-10-15."""

    calendar: str | None
    pre_gregorian: bool | None
    sub_micros: bool | None = None  # a timestamp minimum or maximum finer than a microsecond
    zoneless: bool | None = None  # the first stripe names no writer time zone (None: unread)


def _zigzag(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


#: Type.kind of TIMESTAMP, DATE and TIMESTAMP_INSTANT (orc_proto.proto)
_DATED_KINDS = frozenset({9, 15, 18})
_KIND = frozenset({1})  # Type.kind


@lru_cache(maxsize=256)
def dated_columns(types: tuple[int | bytes, ...]) -> tuple[int, ...] | None:
    """The column ids of a footer's date and timestamp columns, from its ``Type`` messages
    (a type's id is its place in that list, which the column statistics follow: one entry
    per type, in the same order); None when a type cannot be told. A table's files share a
    few schemas: each is decoded once."""
    found = []
    for column, raw in enumerate(types):
        if not isinstance(raw, bytes):
            return None
        kind = _fields(raw, _KIND).get(1, [0])[0]  # absent: BOOLEAN, proto2's default
        if kind in _DATED_KINDS:
            found.append(column)
    return tuple(found)


def _statistics(
    statistics: list[int | bytes], dated: tuple[int, ...] | None = None
) -> tuple[bool, bool]:
    """From the footer's column statistics: whether any date or timestamp minimum falls before
    1582-10-15, and whether any timestamp minimum or maximum holds digits below a microsecond
    (``minimumNanos``/``maximumNanos``, the nanoseconds within the millisecond plus one, which
    ORC 1.6+ writers record; older ones record none). ``dated``: the ids of the date and
    timestamp columns (``dated_columns``), whose statistics alone are then looked at (None:
    all are)."""
    early = finer = False
    if dated is not None:
        statistics = [statistics[column] for column in dated]
    for raw in statistics:
        # A field's key byte must occur in a message holding it: a column whose statistics
        # have neither DateStatistics' (7, length-delimited) nor TimestampStatistics' (9) key
        # byte holds neither, and is not decoded (most columns of a table; inspect's hot loop).
        if not isinstance(raw, bytes) or (_DATE_KEY not in raw and _STAMP_KEY not in raw):
            continue
        column = _fields(raw, _COLUMN_FIELDS)
        for date in column.get(7, []):  # DateStatistics.minimum: sint32 days
            minimum = _fields(date, _MINIMUM_FIELDS).get(1) if isinstance(date, bytes) else None
            if minimum and _zigzag(int(minimum[0])) < SWITCH_DAY:  # type: ignore[arg-type]
                early = True
        for stamp in column.get(9, []):  # TimestampStatistics: minimum(Utc), sint64 millis
            found = _fields(stamp, _STAMP_FIELDS) if isinstance(stamp, bytes) else {}
            minimum = found.get(3) or found.get(1)
            if minimum and _zigzag(int(minimum[0])) < GREGORIAN_START_MILLIS:  # type: ignore[arg-type]
                early = True
            nanos = [int(v) for key in (5, 6) for v in found.get(key, [])]  # type: ignore[arg-type]
            if any((value - 1) % 1000 for value in nanos):
                finer = True
    return early, finer


@dataclass(frozen=True)
class OrcFooter:
    """An ORC file's footer as its tail holds it (:func:`read_orc_footer`): the fields the tail
    checks need, and how the file's streams are compressed.

    Attributes:
        types: the footer's ``Type`` messages as written: the file's schema, byte for byte, so
            files with equal ``types`` have equal schemas (a cheap key for what a schema
            implies; a table's files mostly share one).
    """

    fields: dict[int, list[int | bytes]]
    kind: int
    block_size: int
    writer_version: int = 0  # PostScript.writerVersion (0 when absent, as ORC reads it)
    kept_stripes: bool = False  # the stripes' entries were kept (``read_orc_footer``)

    @cached_property  # asked for the cache key and for the dated columns
    def types(self) -> tuple[int | bytes, ...]:
        return tuple(self.fields.get(_TYPES, ()))

    @property
    def rows(self) -> int:
        """``numberOfRows``, as ORC's readers take it (0 when absent)."""
        return int(self.fields.get(_ROWS, [0])[0])  # type: ignore[arg-type]

    @property
    def stripes(self) -> int | None:
        """How many stripes the footer lists (None: their entries were not kept)."""
        return len(self.fields.get(_STRIPES, ())) if self.kept_stripes else None

    @property
    def writer(self) -> int | None:
        """``Footer.writer``, the writer's id (None when absent, as in old Java writers')."""
        found = self.fields.get(_WRITER)
        return int(found[0]) if found else None  # type: ignore[arg-type]

    @property
    def naming(self) -> tuple[int | bytes, ...]:
        """The raw values pyarrow's reader derives its names from: compression kind, writer
        version, writer id and software version (-1 for an absent one, which no varint or
        string is). Files with equal ``naming`` get equal names from pyarrow."""
        software = self.fields.get(_SOFTWARE)
        writer = self.writer
        return (
            self.kind,
            self.writer_version,
            -1 if writer is None else writer,
            software[0] if software else -1,
        )


def read_orc_footer(handle: pa.NativeFile, size: int, *, stripes: bool = False) -> OrcFooter | None:
    """The footer of the ORC file open as ``handle``; None when its codec is not read here
    (LZO, LZ4). ``stripes``: keep the stripes' entries too (``tail_facts``' ``stripe_zone``
    needs them; a footer holds one per stripe).

    Raises:
        ValueError, IndexError, OSError, zlib.error, pyarrow.ArrowException: a tail that is
            not an ORC tail.
    """
    start = max(0, size - _TAIL)
    handle.seek(start)
    tail = handle.read(size - start)
    postscript_length = tail[-1]
    postscript = _fields(tail[-1 - postscript_length : -1], _POSTSCRIPT_FIELDS)
    footer_length = int(postscript.get(1, [0])[0])  # type: ignore[arg-type]
    kind = int(postscript.get(2, [0])[0])  # type: ignore[arg-type]
    block_size = int(postscript.get(3, [_BLOCK_SIZE])[0])  # type: ignore[arg-type]
    writer_version = int(postscript.get(6, [0])[0])  # type: ignore[arg-type]
    end = len(tail) - 1 - postscript_length
    if footer_length > end:  # a footer larger than the tail read: read it whole
        handle.seek(size - 1 - postscript_length - footer_length)
        raw = handle.read(footer_length)
    else:
        raw = tail[end - footer_length : end]
    footer = _decompress(raw, kind, block_size)
    if footer is None:
        return None
    wanted = _FOOTER_FIELDS | {_STRIPES} if stripes else _FOOTER_FIELDS
    return OrcFooter(_fields(footer, wanted), kind, block_size, writer_version, stripes)


def tail_facts(
    handle: pa.NativeFile, footer: OrcFooter, *, dates: bool = True, stripe_zone: bool = False
) -> OrcTail:
    """What :class:`OrcTail` says of the file open as ``handle``, from its ``footer``
    (``dates``, ``stripe_zone``: as :func:`read_tail` takes them; ``stripe_zone`` needs a
    footer read with its ``stripes``)."""
    fields = footer.fields
    calendar = fields.get(11)
    early = finer = False
    if dates:
        statistics, types = fields.get(7, []), footer.types
        # by column id only where the footer holds one entry per type, as ORC's writers do
        dated = dated_columns(types) if len(statistics) == len(types) else None
        early, finer = _statistics(statistics, dated)
    stripes = fields.get(_STRIPES, [])
    zoneless = None
    if stripe_zone and stripes and isinstance(stripes[0], bytes):
        zoneless = _zoneless(handle, stripes[0], footer.kind, footer.block_size)
    return OrcTail(
        _CALENDARS.get(int(calendar[0])) if calendar else None,  # type: ignore[arg-type]
        early,
        finer,
        zoneless,
    )


def read_tail(
    handle: pa.NativeFile, size: int, *, dates: bool = True, stripe_zone: bool = False
) -> OrcTail:
    """The calendar field and the pre-1582 check of the ORC file open as ``handle``
    (``dates``: whether it has date or timestamp columns; without any, its column statistics
    need not be decoded and nothing in it is before 1582); ``stripe_zone``: also whether its
    first stripe's footer names the writer's time zone (``_zoneless``)."""
    footer = read_orc_footer(handle, size, stripes=stripe_zone)
    if footer is None:
        return OrcTail(None, None)
    return tail_facts(handle, footer, dates=dates, stripe_zone=stripe_zone)


def _zoneless(handle: pa.NativeFile, stripe: bytes, kind: int, block_size: int) -> bool | None:
    """Whether a stripe's footer (located by its ``StripeInformation``) has no writer time
    zone: files of Hive before 1.0 (HIVE-8746), whose timestamps every ORC reader counts from
    its own JVM's zone (``TimestampTreeReader``: ``TimeZone.getDefault()``)."""
    info = {k: int(v[0]) for k, v in _fields(stripe, _STRIPE_FIELDS).items()}  # type: ignore[arg-type]
    if 4 not in info:
        return None
    handle.seek(info.get(1, 0) + info.get(2, 0) + info.get(3, 0))
    footer = _decompress(handle.read(info[4]), kind, block_size)
    if footer is None:
        return None
    zone = _fields(footer, _WRITER_ZONE).get(3)
    return not zone or not zone[0]


def proleptic_writer(writer: str | None) -> bool:
    """Writers that count days in the proleptic calendar yet write no calendar field (so
    Java readers count their days as hybrid)."""
    return (writer or "").upper() in _PROLEPTIC_WRITERS
