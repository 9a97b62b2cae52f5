"""The calendar an ORC file's dates and timestamps were written in, from its footer.

ORC writers store dates as day numbers. Hive 2.x and other Java writers before ORC's calendar
support counted them in the hybrid Julian/Gregorian calendar (``java.sql.Date``); Hive 3.1+,
ORC's C++ writer (pyarrow, Impala) and Trino count them in the proleptic Gregorian calendar.
The two agree from 1582-10-15 on. Java writers since ORC 1.5.? record which one in the footer
(``Footer.calendar``, field 11); pyarrow does not expose that field, so the file tail is read
here: the PostScript (plain protobuf), then the footer (protobuf in the file's compression
chunks). Hand-written: no installed library decodes ORC's footer protobuf.
"""

from __future__ import annotations

import zlib

import pyarrow as pa
import pyarrow.fs as pafs

HYBRID = "hybrid"
PROLEPTIC = "proleptic"
_CALENDARS = {1: HYBRID, 2: PROLEPTIC}
# Writers (Footer.writer / pyarrow's ``writer``) that never wrote hybrid day numbers.
_PROLEPTIC_WRITERS = frozenset({"ORC_CPP", "PRESTO", "TRINO", "SCRITCHLEY_GO", "CUDF"})
_TAIL = 16 << 10


def _varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7


def _fields(message: bytes) -> dict[int, list[int | bytes]]:
    """Protobuf wire format: field number -> values (varints as ints, others as bytes)."""
    out: dict[int, list[int | bytes]] = {}
    position = 0
    while position < len(message):
        key, position = _varint(message, position)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, position = _varint(message, position)
        elif wire == 2:
            length, position = _varint(message, position)
            value = message[position : position + length]
            position += length
        elif wire == 1:
            value, position = message[position : position + 8], position + 8
        elif wire == 5:
            value, position = message[position : position + 4], position + 4
        else:
            raise ValueError(f"protobuf wire type {wire} is not expected in an ORC tail")
        out.setdefault(number, []).append(value)
    return out


def _snappy(chunk: bytes) -> bytes:
    size, _ = _varint(chunk, 0)  # raw snappy starts with the uncompressed length
    return pa.Codec("snappy").decompress(chunk, decompressed_size=size).to_pybytes()


def _decompress(data: bytes, kind: int) -> bytes | None:
    """ORC's chunked stream: 3-byte headers (length << 1 | original). None: codec not read
    here (LZO, LZ4, ZSTD: their raw blocks do not carry their size)."""
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
        else:
            return None
    return bytes(out)


def footer_calendar(fs: pafs.FileSystem, path: str, size: int) -> str | None:
    """``hybrid`` or ``proleptic`` when the footer says so, else ``None``."""
    with fs.open_input_file(path) as handle:
        start = max(0, size - _TAIL)
        handle.seek(start)
        tail = handle.read(size - start)
    postscript_length = tail[-1]
    postscript = _fields(tail[-1 - postscript_length : -1])
    footer_length = int(postscript.get(1, [0])[0])  # type: ignore[arg-type]
    kind = int(postscript.get(2, [0])[0])  # type: ignore[arg-type]
    end = len(tail) - 1 - postscript_length
    if footer_length > end:  # a footer larger than the tail read: read it whole
        with fs.open_input_file(path) as handle:
            handle.seek(size - 1 - postscript_length - footer_length)
            raw = handle.read(footer_length)
    else:
        raw = tail[end - footer_length : end]
    footer = _decompress(raw, kind)
    if footer is None:
        return None
    calendar = _fields(footer).get(11)
    return _CALENDARS.get(int(calendar[0])) if calendar else None  # type: ignore[arg-type]


def file_calendar(footer: str | None, writer: str | None) -> str:
    """The calendar of a file's day numbers: its footer's word, else its writer's habit
    (Java writers without the field wrote hybrid days; C++, Presto and Trino never did)."""
    if footer:
        return footer
    return PROLEPTIC if (writer or "").upper() in _PROLEPTIC_WRITERS else HYBRID
