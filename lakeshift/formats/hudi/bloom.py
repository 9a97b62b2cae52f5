"""Hudi's record-key bloom filter (``DYNAMIC_V0``), as base-file footers carry it.

Hand-written: no Python library implements Hadoop's Bloom filter with Hadoop's MurmurHash and
Hudi's dynamic-filter serialization, and Hudi's bloom index (later upserts and deletes by
Java Hudi) reads exactly these bytes. The layout is in ``../shared/HUDI.md``; the tests decode
every footer of real Hudi tables with it and rebuild them byte for byte.
"""

from __future__ import annotations

import base64
import math
import struct
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

BLOOM_ENTRIES = 60_000
BLOOM_FPP = 1e-9
BLOOM_TYPE = "DYNAMIC_V0"
#: Hadoop's ``Hash.MURMUR_HASH``.
_MURMUR = 1
_VERSION = -1
_M = 0x5BD1E995
_MASK = 0xFFFFFFFF


def _bits(entries: int, fpp: float) -> int:
    return math.ceil(entries * -math.log(fpp) / (math.log(2) ** 2))


VECTOR_BITS = _bits(BLOOM_ENTRIES, BLOOM_FPP)  # 2,587,966
HASHES = math.ceil(math.log(2) * VECTOR_BITS / BLOOM_ENTRIES)  # 30


def _signed(value: int) -> int:
    value &= _MASK
    return value - (1 << 32) if value & 0x80000000 else value


def _sbyte(value: int) -> int:
    return value - 256 if value > 127 else value


def murmur_hash(data: bytes, seed: int) -> int:
    """Hadoop's ``MurmurHash.hash(data, data.length, seed)`` as a signed 32-bit int.

    Unlike canonical MurmurHash2, the 1-3 tail bytes are taken counting from the end of the
    buffer and sign-extended (Java bytes).
    """
    length = len(data)
    h = (seed ^ length) & _MASK
    whole = length >> 2
    for i in range(whole):
        k = int.from_bytes(data[i * 4 : i * 4 + 4], "little")
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
    left = length - (whole << 2)
    if left:
        if left >= 3:
            h ^= (_sbyte(data[length - 3]) << 16) & _MASK
        if left >= 2:
            h ^= (_sbyte(data[length - 2]) << 8) & _MASK
        h ^= _sbyte(data[length - 1]) & _MASK
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return _signed(h)


def positions(key: str, bits: int = VECTOR_BITS, hashes: int = HASHES) -> list[int]:
    """The bit positions of ``key`` (Hadoop's ``HashFunction.hash``: each hash seeds the next,
    position = |h mod bits| with Java's remainder, which takes the dividend's sign)."""
    data = key.encode("utf-8")
    out = []
    h = 0
    for _ in range(hashes):
        h = murmur_hash(data, h)
        out.append(abs(int(math.fmod(h, bits))))
    return out


def _murmur_many(data: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """``murmur_hash`` of many keys of one byte length at once (``data``: one row of bytes per
    key; ``seeds``: uint32 bit patterns). uint32 arithmetic wraps as Java's int does."""
    import numpy as np

    m = np.uint32(_M)
    length = data.shape[1]
    h = seeds ^ np.uint32(length)
    whole = length >> 2
    if whole:
        words = np.ascontiguousarray(data[:, : whole * 4]).view("<u4")
        for i in range(whole):
            k = words[:, i] * m
            k ^= k >> np.uint32(24)
            k *= m
            h = h * m
            h ^= k
    left = length - (whole << 2)
    if left:
        # Hadoop's tail: counted from the end of the buffer, each byte sign-extended.
        tail = data[:, length - left :].view(np.int8).astype(np.int32).view(np.uint32)
        if left >= 3:
            h ^= tail[:, -3] << np.uint32(16)
        if left >= 2:
            h ^= tail[:, -2] << np.uint32(8)
        h ^= tail[:, -1]
        h = h * m
    h ^= h >> np.uint32(13)
    h = h * m
    h ^= h >> np.uint32(15)
    return h


def _positions_many(keys: list[str]) -> Iterator[np.ndarray]:
    """``positions`` of every key, vectorised over the keys of each byte length (a file's
    60,000 keys cost about 0.04 s instead of 7 s of Python arithmetic)."""
    import numpy as np

    by_length: dict[int, list[bytes]] = {}
    for key in keys:
        encoded = key.encode("utf-8")
        by_length.setdefault(len(encoded), []).append(encoded)
    for length, group in by_length.items():
        matrix = np.frombuffer(b"".join(group), dtype=np.uint8).reshape(len(group), length)
        h = np.zeros(len(group), dtype=np.uint32)
        for _ in range(HASHES):
            h = _murmur_many(matrix, h)
            yield np.abs(h.view(np.int32).astype(np.int64)) % VECTOR_BITS


def _positions_of_array(keys: pa.Array) -> Iterator[np.ndarray]:
    """``_positions_many`` of a string array's values, the keys of each byte length taken
    from the array's own buffer (no Python string per key)."""
    import numpy as np
    import pyarrow as pa

    array = keys.cast(pa.string())
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32)[
        array.offset : array.offset + len(array) + 1
    ]
    data = np.frombuffer(array.buffers()[2] or b"", dtype=np.uint8)
    starts, lengths = offsets[:-1], np.diff(offsets)
    for length in np.unique(lengths):
        chosen = starts[lengths == length]
        matrix = data[chosen[:, None] + np.arange(int(length))] if length else None
        h = np.zeros(len(chosen), dtype=np.uint32)
        rows = matrix if matrix is not None else np.zeros((len(chosen), 0), dtype=np.uint8)
        for _ in range(HASHES):
            h = _murmur_many(rows, h)
            yield np.abs(h.view(np.int32).astype(np.int64)) % VECTOR_BITS


class BloomFilter:
    """One or more rows of ``VECTOR_BITS`` bits; a row holds ``BLOOM_ENTRIES`` keys."""

    def __init__(self, rows: list[bytearray] | None = None, current: int = 0) -> None:
        self.rows = rows or [bytearray((VECTOR_BITS + 7) // 8)]
        self.current = current  # keys in the last row

    @classmethod
    def for_keys(cls, keys: Iterable[str]) -> BloomFilter:
        """The filter of ``keys`` (what ``add`` of each in turn builds, computed at once)."""
        import numpy as np

        ordered = list(keys)
        rows = []
        for start in range(0, max(len(ordered), 1), BLOOM_ENTRIES):
            bits = np.zeros(VECTOR_BITS, dtype=bool)
            for found in _positions_many(ordered[start : start + BLOOM_ENTRIES]):
                bits[found] = True
            rows.append(bytearray(np.packbits(bits, bitorder="little").tobytes()))
        last = len(ordered) - BLOOM_ENTRIES * (len(rows) - 1)
        return cls(rows, last)

    @classmethod
    def for_array(cls, keys: pa.Array) -> BloomFilter:
        """``for_keys`` of a string array's values, in order (no NULLs), at NumPy speed."""
        import numpy as np

        rows = []
        for start in range(0, max(len(keys), 1), BLOOM_ENTRIES):
            bits = np.zeros(VECTOR_BITS, dtype=bool)
            for found in _positions_of_array(keys.slice(start, BLOOM_ENTRIES)):
                bits[found] = True
            rows.append(bytearray(np.packbits(bits, bitorder="little").tobytes()))
        return cls(rows, len(keys) - BLOOM_ENTRIES * (len(rows) - 1))

    def add(self, key: str) -> None:
        if self.current >= BLOOM_ENTRIES:
            self.rows.append(bytearray((VECTOR_BITS + 7) // 8))
            self.current = 0
        row = self.rows[-1]
        for bit in positions(key):
            row[bit >> 3] |= 1 << (bit & 7)
        self.current += 1

    def might_contain(self, key: str) -> bool:
        wanted = positions(key)
        return any(all(row[b >> 3] & (1 << (b & 7)) for b in wanted) for row in self.rows)

    def serialize(self) -> str:
        """The footer's Base64 text (Java ``DataOutput``, big-endian)."""
        header = struct.pack(">iibi", _VERSION, HASHES, _MURMUR, VECTOR_BITS)
        parts = [header, struct.pack(">iii", BLOOM_ENTRIES, self.current, len(self.rows))]
        for row in self.rows:
            parts += [header, bytes(row)]
        return base64.b64encode(b"".join(parts)).decode("ascii")

    @classmethod
    def deserialize(cls, text: str) -> BloomFilter:
        data = base64.b64decode(text)
        header = struct.calcsize(">iibi")
        version, hashes, kind, bits = struct.unpack_from(">iibi", data, 0)
        if (version, hashes, kind, bits) != (_VERSION, HASHES, _MURMUR, VECTOR_BITS):
            raise ValueError(
                f"unsupported bloom filter: version {version}, {hashes} hashes, hash type "
                f"{kind}, {bits} bits (lakeshift reads Hudi's default DYNAMIC_V0 filter)"
            )
        entries, current, count = struct.unpack_from(">iii", data, header)
        if entries != BLOOM_ENTRIES:
            raise ValueError(f"unsupported bloom filter row capacity {entries}")
        offset = header + 12
        size = (VECTOR_BITS + 7) // 8
        rows = []
        for _ in range(count):
            offset += header
            rows.append(bytearray(data[offset : offset + size]))
            offset += size
        return cls(rows, current)
