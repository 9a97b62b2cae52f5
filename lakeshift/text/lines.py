"""A text file's records as Hadoop's TextInputFormat gives them to Hive.

Hadoop picks the decompression codec from the file name's extension; a line ends at LF, CR or
CR LF (``LineRecordReader`` without a custom delimiter); the last line needs no terminator.
Hive then drops ``skip.header.line.count`` lines at the start and ``skip.footer.line.count``
at the end of every file. Hand-written: no library reads Hadoop text files this way.
"""

from __future__ import annotations

import bz2
import gzip
import zlib
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, cast

import pyarrow.fs as pafs

from lakeshift.errors import RefusedInput
from lakeshift.text.layout import TextLayout
from lakeshift.text.sequence import sequence_values

_CHUNK = 8 << 20
# Hadoop codecs whose framing pyarrow and the standard library do not read.
_UNREADABLE_CODECS = {".snappy": "Snappy", ".lz4": "LZ4 (Hadoop block framing)", ".lzo": "LZO"}


def codec_problem(path: str) -> str | None:
    """Why a file's compression cannot be read, or ``None`` (plain, gzip, bzip2, deflate, zstd)."""
    for suffix, name in _UNREADABLE_CODECS.items():
        if path.lower().endswith(suffix):
            return f"{path} is compressed with Hadoop's {name} codec, which lakeshift cannot read"
    return None


_CODECS = {".gz": "gzip", ".bz2": "bzip2", ".deflate": "deflate", ".zst": "zstd"}


def compression_of(path: str) -> str | None:
    """The codec Hadoop picks for a file name, or ``None`` for plain text."""
    lower = path.lower()
    return next((name for suffix, name in _CODECS.items() if lower.endswith(suffix)), None)


class _Inflate:
    """Hadoop's DefaultCodec (``.deflate``) is a zlib stream; read it as a file."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._inflater = zlib.decompressobj()

    def read(self, size: int) -> bytes:
        while True:
            block = self._raw.read(size)
            if not block:
                return self._inflater.flush()
            out = self._inflater.decompress(block)
            if out:
                return out


@contextmanager
def open_text(fs: pafs.FileSystem, path: str) -> Iterator[IO[bytes]]:
    """The decompressed bytes of one text file."""
    problem = codec_problem(path)
    if problem:
        raise RefusedInput(problem + ".", hint="Convert the partition to ORC in Hive.")
    lower = path.lower()
    if lower.endswith(".zst"):
        with fs.open_input_stream(path, compression="zstd") as stream:
            yield cast(IO[bytes], stream)
        return
    with fs.open_input_stream(path, compression=None) as raw:
        handle = cast(IO[bytes], raw)
        if lower.endswith(".gz"):
            with gzip.GzipFile(fileobj=handle) as inner:  # reads every gzip member, as Hadoop
                yield cast(IO[bytes], inner)
        elif lower.endswith(".bz2"):
            with bz2.BZ2File(handle) as inner:
                yield cast(IO[bytes], inner)
        elif lower.endswith(".deflate"):
            yield cast(IO[bytes], _Inflate(handle))
        else:
            yield handle


def _raw_lines(handle: IO[bytes]) -> Iterator[bytes]:
    """Lines without terminators; LF, CR and CR LF each end one line."""
    carry = b""
    while True:
        chunk = handle.read(_CHUNK)
        if not chunk:
            break
        lines = (carry + chunk).splitlines(keepends=True)
        # The last piece may be cut mid-line, or be a CR whose LF is in the next chunk.
        carry = lines.pop() if lines and not lines[-1].endswith(b"\n") else b""
        for line in lines:
            yield line[:-2] if line.endswith(b"\r\n") else line[:-1]
    if carry:
        yield carry[:-1] if carry.endswith(b"\r") else carry


def records(fs: pafs.FileSystem, path: str, layout: TextLayout) -> Iterator[bytes]:
    """The records Hive reads from one file, as UTF-8 bytes (headers and footers skipped,
    other encodings transcoded as Hive's encoding-aware SerDe does)."""
    with open_text(fs, path) as handle:
        lines = (
            sequence_values(handle, path) if layout.container == "sequence" else _raw_lines(handle)
        )
        for _ in range(layout.skip_header):
            if next(lines, None) is None:
                return
        held: deque[bytes] = deque()
        for line in lines:
            held.append(line)
            if len(held) > layout.skip_footer:
                yield _utf8(held.popleft(), layout.encoding)


def _utf8(line: bytes, encoding: str) -> bytes:
    if encoding.replace("-", "").lower() in ("utf8", "utf_8"):
        return line
    return line.decode(encoding, errors="replace").encode("utf-8")


def count_records(fs: pafs.FileSystem, path: str, layout: TextLayout) -> int:
    """How many rows Hive shows for one text file (the text file's "footer count")."""
    return sum(1 for _ in records(fs, path, layout))
