"""A text partition's file, read a second way: the whole file at once, split by a byte mask.

The rules are LazySimpleSerDe's (docs/concepts.md), restated from Hive's classes and
written without the Spark reader's parser: a file is decompressed whole and cut at LF, CR and
CR LF; one pass marks the bytes an escape byte protects; a value is then cut at the unprotected
separator bytes of its nesting level. Leaves stay text (booleans and binary excepted, whose text
rules differ from the converters'), to be converted by this package's own rules.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import gzip
import io
import re
import zlib
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from lakeshift.errors import RefusedInput
from lakeshift.hive.types import HiveType
from lakeshift.storage import filesystem_for
from lakeshift.text.sequence import sequence_values
from lakeshift.validate.independent.arrow_types import arrow_type
from lakeshift.validate.independent.text_timestamps import hive_timestamp

_LINE_END = re.compile(rb"\r\n|\r|\n")
_NESTING = bytes([*range(4, 9), 11, *range(14, 27), *range(28, 32), *range(128, 256)])
_BASE64_BYTES = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_= \t\r\n"
)


def _byte(value: str | None, default: int) -> int:
    if not value:
        return default
    body = value[1:] if value[0] in "+-" else value
    if body.isascii() and body.isdigit() and -128 <= int(value) <= 127:
        return int(value) % 256
    return ord(value[0]) % 256


def text_file_type(hive: HiveType) -> HiveType:
    """What a text file holds for a declared type: text, except booleans and binary."""
    if hive.kind in ("boolean", "binary", "string", "char", "varchar"):
        return hive if hive.kind in ("boolean", "binary") else HiveType("string")
    if not hive.fields:
        return HiveType("string")
    return HiveType(hive.kind, hive.params, tuple((n, text_file_type(t)) for n, t in hive.fields))


class _Serde:
    def __init__(self, params: Mapping[str, str]) -> None:
        self.levels = (
            bytes(
                [
                    _byte(params.get("field.delim") or params.get("serialization.format"), 1),
                    _byte(params.get("collection.delim") or params.get("colelction.delim"), 2),
                    _byte(params.get("mapkey.delim"), 3),
                ]
            )
            + _NESTING
        )
        self.null = params.get("serialization.null.format", "\\N").encode()
        escape = params.get("escape.delim")
        self.escape = None if escape is None else _byte(escape, 92)
        self.crlf = str(params.get("serialization.escape.crlf", "")).lower() == "true"
        self.rest = str(params.get("serialization.last.column.takes.rest", "")).lower() == "true"
        self.encoding = params.get("serialization.encoding") or "utf-8"
        self.formats = [
            f.replace("\\,", ",").strip()
            for f in re.split(r"(?<!\\),", params.get("timestamp.formats") or "")
            if f.strip()
        ]
        self.header = int(params.get("skip.header.line.count") or 0)
        self.footer = int(params.get("skip.footer.line.count") or 0)

    def protected(self, data: bytes) -> list[bool]:
        """Per byte: does an escape byte before it make it literal?"""
        mask = [False] * len(data)
        if self.escape is None:
            return mask
        i = 0
        while i < len(data) - 1:
            if data[i] == self.escape:
                mask[i + 1] = True
                i += 2
            else:
                i += 1
        return mask

    def cut(self, data: bytes, level: int, most: int | None = None) -> list[bytes]:
        separator = self.levels[level]
        mask = self.protected(data)
        pieces: list[bytes] = []
        start = 0
        for i, byte in enumerate(data):
            if most is not None and len(pieces) == most:
                break
            if byte == separator and not mask[i]:
                pieces.append(data[start:i])
                start = i + 1
        pieces.append(data[start:])
        return pieces

    def literal(self, data: bytes) -> bytes:
        mask = self.protected(data)
        out = bytearray()
        for i, byte in enumerate(data):
            if i + 1 < len(data) and mask[i + 1] and not mask[i]:
                continue  # the escape byte itself
            if mask[i] and self.crlf and byte in (ord("r"), ord("n")):
                byte = 13 if byte == ord("r") else 10
            out.append(byte)
        return bytes(out)


def _boolean(raw: bytes) -> bool | None:
    return {b"true": True, b"false": False}.get(raw.lower())


def _binary(raw: bytes) -> bytes:
    if any(b not in _BASE64_BYTES for b in raw):
        return raw
    text = bytes(b for b in raw if b not in b" \t\r\n").partition(b"=")[0]
    text = text.translate(bytes.maketrans(b"-_", b"+/"))
    usable = len(text) - (1 if len(text) % 4 == 1 else 0)
    try:
        return base64.b64decode(text[:usable] + b"=" * (-usable % 4))
    except binascii.Error:
        return raw


def _value(serde: _Serde, raw: bytes | None, hive: HiveType, level: int) -> Any:
    if raw is None or raw == serde.null:
        return None
    if hive.kind in ("string", "char", "varchar"):
        return serde.literal(raw).decode("utf-8", "replace")
    if hive.kind == "boolean":
        return _boolean(raw)
    if hive.kind == "binary":
        return _binary(raw)
    if hive.kind == "timestamp" and serde.formats:
        return hive_timestamp(raw.decode("utf-8", "replace"), serde.formats)
    if hive.kind == "array":
        return (
            [_value(serde, e, hive.fields[0][1], level + 1) for e in serde.cut(raw, level)]
            if raw
            else []
        )
    if hive.kind == "map":
        out, seen = [], set()
        for entry in serde.cut(raw, level) if raw else []:
            key, *value = serde.cut(entry, level + 1, most=1)
            typed_key = _value(serde, key, hive.fields[0][1], level + 2)
            if typed_key is not None and typed_key not in seen:  # LazyMap: NULL keys go,
                seen.add(typed_key)  # a repeated key keeps its first value
                value_type = hive.fields[1][1]
                out.append(
                    (typed_key, _value(serde, value[0] if value else None, value_type, level + 2))
                )
        return out  # keys that read NULL or repeat once typed are settled by the conversion
    if hive.kind == "struct":
        return _struct(serde, raw, hive, level)
    return raw.decode("utf-8", "replace")


def _struct(serde: _Serde, raw: bytes, hive: HiveType, level: int) -> dict[str, Any]:
    count = len(hive.fields)
    pieces = serde.cut(raw, level, most=count - 1 if serde.rest else None)
    return {
        name: _value(serde, pieces[i] if i < len(pieces) else None, kind, level + 1)
        for i, (name, kind) in enumerate(hive.fields)
    }


def _whole(path: str) -> bytes:
    fs, inner = filesystem_for(path)
    with fs.open_input_stream(inner, compression=None) as handle:
        data = handle.read()
    name = path.lower()
    if name.endswith(".gz"):
        return gzip.decompress(data)
    if name.endswith(".bz2"):
        return bz2.decompress(data)
    if name.endswith(".deflate"):
        return zlib.decompress(data)
    if name.endswith(".zst"):
        return pa.CompressedInputStream(pa.BufferReader(data), "zstd").read()
    if name.endswith((".snappy", ".lz4", ".lzo")):
        raise RefusedInput(f"{path}: its codec cannot be read.", hint="Convert it in Hive.")
    return data


def read_text_file(
    path: str,
    params: Mapping[str, str],
    columns: list[tuple[str, HiveType]],
    *,
    sequence: bool = False,
) -> pa.Table:
    """The file's rows in the text types of the declared ``columns`` (``sequence``: the
    records are a SequenceFile's values; its container is decoded by the shared reader, the
    SerDe rules here are this module's own)."""
    serde = _Serde(params)
    data = _whole(path)
    if sequence:
        lines = list(sequence_values(io.BytesIO(data), path))
    else:
        lines = _LINE_END.split(data)
        if lines and lines[-1] == b"":
            lines.pop()  # the last terminator ends the last line, it does not start one
    lines = lines[serde.header : len(lines) - serde.footer]
    if serde.encoding.lower().replace("-", "").replace("_", "") != "utf8":
        lines = [line.decode(serde.encoding, "replace").encode() for line in lines]
    row_type = HiveType("struct", fields=tuple((name, kind) for name, kind in columns))
    rows = [_struct(serde, line, row_type, 0) for line in lines]
    return pa.table(
        {
            name: pa.array([r[name] for r in rows], arrow_type(text_file_type(kind)))
            for name, kind in columns
        }
    )
