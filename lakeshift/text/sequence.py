"""The values of a Hadoop SequenceFile, for Hive tables STORED AS SEQUENCEFILE whose rows are
text (LazySimpleSerDe reads each value as one record; the key is ignored, as Hive ignores it).

Layout (Hadoop ``SequenceFile``, version 6): ``SEQ``, a version byte, the key and value class
names, two flags (compressed, block-compressed), the codec class name when compressed,
metadata pairs and a 16-byte sync marker; then records (``int`` record length, ``int`` key
length, key, value; a length of -1 introduces a sync marker) or, block-compressed, blocks of
record count, key lengths, keys, value lengths and values, each compressed. A ``Text`` value
is a variable-length integer and UTF-8 bytes; a ``BytesWritable`` value is an ``int`` length
and bytes. Hand-written: no Python library reads SequenceFiles.
"""

from __future__ import annotations

import bz2
import gzip
import zlib
from collections.abc import Callable, Iterator
from typing import IO

import pyarrow as pa

from lakeshift.errors import RefusedInput

MAGIC = b"SEQ"
_TEXT = "org.apache.hadoop.io.Text"
_BYTES = "org.apache.hadoop.io.BytesWritable"


class _Reader:
    def __init__(self, data: bytes, name: str) -> None:
        self.data = data
        self.at = 0
        self.name = name

    def take(self, count: int) -> bytes:
        if count < 0 or self.at + count > len(self.data):
            raise RefusedInput(
                f"{self.name}: the SequenceFile ends inside a record (truncated or corrupt).",
                hint="Repair or remove the file in Hive, then inspect again.",
            )
        chunk = self.data[self.at : self.at + count]
        self.at += count
        return chunk

    def int32(self) -> int:
        return int.from_bytes(self.take(4), "big", signed=True)

    def vint(self) -> int:
        """Hadoop's ``WritableUtils.readVInt`` (zero-compressed, sign in the first byte)."""
        first = int.from_bytes(self.take(1), "big", signed=True)
        if first >= -112:
            return first
        negative = first < -120
        length = (-120 - first) if negative else (-112 - first)  # bytes after the first
        value = int.from_bytes(self.take(length), "big")
        return ~value if negative else value

    def text(self) -> str:
        return self.take(self.vint()).decode("utf-8")

    @property
    def done(self) -> bool:
        return self.at >= len(self.data)


def _hadoop_blocks(decompress: Callable[[bytes, int], bytes]) -> Callable[[bytes], bytes]:
    """Hadoop's BlockCompressorStream framing (Snappy, LZ4): blocks of an ``int`` raw length,
    then ``int``-length-prefixed compressed chunks adding up to it."""

    def run(data: bytes) -> bytes:
        reader, out = _Reader(data, "block"), bytearray()
        while not reader.done:
            raw_length, produced = reader.int32(), 0
            while produced < raw_length:
                chunk = decompress(reader.take(reader.int32()), raw_length - produced)
                out += chunk
                produced += len(chunk)
        return bytes(out)

    return run


def _snappy(chunk: bytes, _: int) -> bytes:
    size, shift, at = 0, 0, 0
    while True:  # raw snappy starts with its uncompressed length as a varint
        byte = chunk[at]
        size |= (byte & 0x7F) << shift
        at += 1
        shift += 7
        if byte < 0x80:
            break
    return pa.Codec("snappy").decompress(chunk, decompressed_size=size).to_pybytes()


def _lz4(chunk: bytes, size: int) -> bytes:
    return pa.Codec("lz4_raw").decompress(chunk, decompressed_size=size).to_pybytes()


_CODECS: dict[str, Callable[[bytes], bytes]] = {
    "org.apache.hadoop.io.compress.DefaultCodec": zlib.decompress,
    "org.apache.hadoop.io.compress.DeflateCodec": zlib.decompress,
    "org.apache.hadoop.io.compress.GzipCodec": gzip.decompress,
    "org.apache.hadoop.io.compress.BZip2Codec": bz2.decompress,
    "org.apache.hadoop.io.compress.SnappyCodec": _hadoop_blocks(_snappy),
    "org.apache.hadoop.io.compress.Lz4Codec": _hadoop_blocks(_lz4),
}


def _value(raw: bytes, value_class: str, name: str) -> bytes:
    reader = _Reader(raw, name)
    if value_class == _BYTES:
        return reader.take(reader.int32())
    return reader.take(reader.vint())


def sequence_values(handle: IO[bytes], name: str) -> Iterator[bytes]:
    """Every value of the SequenceFile in ``handle``, in order (the whole file is read)."""
    reader = _Reader(handle.read(), name)
    if reader.take(3) != MAGIC:
        raise RefusedInput(f"{name} is not a SequenceFile.", hint="Check the partition's format.")
    version = reader.take(1)[0]
    if version < 6:
        raise RefusedInput(
            f"{name} is a SequenceFile of version {version}; lakeshift reads version 6.",
            hint="Rewrite the partition in Hive (INSERT OVERWRITE), or convert it to ORC.",
        )
    reader.text()  # key class: Hive ignores keys
    value_class = reader.text()
    if value_class not in (_TEXT, _BYTES):
        raise RefusedInput(
            f"{name} holds {value_class} values; Hive's text SerDe reads Text or BytesWritable.",
            hint="Convert the partition to ORC in Hive.",
        )
    compressed, block = bool(reader.take(1)[0]), bool(reader.take(1)[0])
    decompress: Callable[[bytes], bytes] = bytes
    if compressed:
        codec = reader.text()
        if codec not in _CODECS:
            raise RefusedInput(
                f"{name} is compressed with {codec}, which lakeshift cannot read.",
                hint="Convert the partition to ORC in Hive.",
            )
        decompress = _CODECS[codec]
    for _ in range(reader.int32()):  # metadata pairs
        reader.text()
        reader.text()
    sync = reader.take(16)
    while not reader.done:
        length = reader.int32()
        if length == -1:
            if reader.take(16) != sync:
                raise RefusedInput(
                    f"{name}: a SequenceFile sync marker does not match (corrupt file).",
                    hint="Repair or remove the file in Hive, then inspect again.",
                )
            if block:
                yield from _block(reader, decompress, value_class, name)
            continue
        key_length = reader.int32()
        reader.take(key_length)
        raw = reader.take(length - key_length)
        yield _value(decompress(raw) if compressed else raw, value_class, name)


def _block(
    reader: _Reader, decompress: Callable[[bytes], bytes], value_class: str, name: str
) -> Iterator[bytes]:
    count = reader.vint()
    for _ in range(2):  # key lengths, then keys: not needed
        reader.take(reader.vint())
    lengths = _Reader(decompress(reader.take(reader.vint())), name)
    values = _Reader(decompress(reader.take(reader.vint())), name)
    for _ in range(count):
        yield _value(values.take(lengths.vint()), value_class, name)
