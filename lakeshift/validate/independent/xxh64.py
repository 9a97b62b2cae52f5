"""XXH64 over numpy arrays, one independent seed per row, as Spark's ``xxhash64`` chains it.

Hand-written: no dependency of lakeshift computes XXH64 (the ``xxhash`` package is not one),
and Spark's variant must be matched bit for bit: ``hashInt`` and ``hashLong`` are XXH64 of the
4 or 8 little-endian bytes of the value, ``hashUnsafeBytes`` is XXH64 of the bytes, and every
value's hash is the seed of the next one. All arithmetic is on ``uint64`` (wrapping).
"""

from __future__ import annotations

import numpy as np

U64 = np.uint64
PRIME1 = U64(0x9E3779B185EBCA87)
PRIME2 = U64(0xC2B2AE3D27D4EB4F)
PRIME3 = U64(0x165667B19E3779F9)
PRIME4 = U64(0x85EBCA77C2B2AE63)
PRIME5 = U64(0x27D4EB2F165667C5)
SPARK_SEED = 42  # the seed of Spark's xxhash64()
_LOW32 = U64(0xFFFFFFFF)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    """``x`` rotated left by ``r`` bits, in place (``x`` must be a fresh array)."""
    high = x >> U64(64 - r)
    x <<= U64(r)
    x |= high
    return x


def _fmix(h: np.ndarray) -> np.ndarray:
    """XXH64's final avalanche, in place (``h`` must be a fresh array)."""
    h ^= h >> U64(33)
    h *= PRIME2
    h ^= h >> U64(29)
    h *= PRIME3
    h ^= h >> U64(32)
    return h


def _one_word(
    seeds: np.ndarray, length: int, word: np.ndarray, rotation: int, times: U64, plus: U64
) -> np.ndarray:
    """XXH64 of an input of one 4- or 8-byte word (``word`` already mixed by its prime): the
    seed's start for ``length`` bytes, the word folded in, one rotate-multiply-add, the
    avalanche."""
    with np.errstate(over="ignore"):
        h = seeds + (PRIME5 + U64(length))
        h ^= word
        h = _rotl(h, rotation)
        h *= times
        h += plus
        return _fmix(h)


def hash_int(values: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """Spark's ``hashInt``: ``values`` are 32-bit integers (any integer dtype, sign-extended).
    ``seeds`` may hold several seeds per value (any leading axes: one chain per salt)."""
    with np.errstate(over="ignore"):
        v = values.astype(np.int64).view(U64) & _LOW32
        v *= PRIME1
    return _one_word(seeds, 4, v, 23, PRIME2, PRIME3)


def hash_long(values: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """Spark's ``hashLong``: ``values`` are 64-bit integers (``seeds`` as ``hash_int``'s)."""
    with np.errstate(over="ignore"):
        v = values.astype(np.int64).view(U64)  # a copy: changed in place below
        v *= PRIME2
        v = _rotl(v, 31)
        v *= PRIME1
    return _one_word(seeds, 8, v, 27, PRIME1, PRIME4)


def _words(matrix: np.ndarray, start: int, size: int) -> np.ndarray:
    """Little-endian words of ``size`` bytes at byte ``start`` of every row."""
    dtype = "<u8" if size == 8 else "<u4"
    return np.ascontiguousarray(matrix[:, start : start + size]).view(dtype)[:, 0].astype(U64)


def _round(acc: np.ndarray, word: np.ndarray) -> np.ndarray:
    """One XXH64 round, in place on ``acc`` (a fresh array)."""
    acc += word * PRIME2
    acc = _rotl(acc, 31)
    acc *= PRIME1
    return acc


def hash_bytes(matrix: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """Spark's ``hashUnsafeBytes`` (standard XXH64) of rows of equal length.

    ``matrix`` is ``uint8`` of shape (rows, length); callers group values by length.
    ``seeds`` as ``hash_int``'s: its last axis is the rows.
    """
    length = matrix.shape[1]
    with np.errstate(over="ignore"):
        offset = 0
        if length >= 32:
            v1 = seeds + PRIME1 + PRIME2
            v2 = seeds + PRIME2
            v3 = seeds.copy()
            v4 = seeds - PRIME1
            while offset <= length - 32:
                v1 = _round(v1, _words(matrix, offset, 8))
                v2 = _round(v2, _words(matrix, offset + 8, 8))
                v3 = _round(v3, _words(matrix, offset + 16, 8))
                v4 = _round(v4, _words(matrix, offset + 24, 8))
                offset += 32
            h = _rotl(v1.copy(), 1)
            h += _rotl(v2.copy(), 7)
            h += _rotl(v3.copy(), 12)
            h += _rotl(v4.copy(), 18)
            for v in (v1, v2, v3, v4):
                h ^= _round(np.zeros_like(v), v)
                h *= PRIME1
                h += PRIME4
        else:
            h = seeds + PRIME5
        h += U64(length)
        while offset <= length - 8:
            h ^= _round(np.zeros_like(h), _words(matrix, offset, 8))
            h = _rotl(h, 27)
            h *= PRIME1
            h += PRIME4
            offset += 8
        if offset <= length - 4:
            h ^= _words(matrix, offset, 4) * PRIME1
            h = _rotl(h, 23)
            h *= PRIME2
            h += PRIME3
            offset += 4
        while offset < length:
            h ^= matrix[:, offset].astype(U64) * PRIME5
            h = _rotl(h, 11)
            h *= PRIME1
            offset += 1
        return _fmix(h)


def _lengths_present(lengths: np.ndarray) -> np.ndarray:
    """The distinct values of ``lengths``, ascending: by counting where they are short (one
    pass, where ``np.unique`` sorts every row)."""
    if not len(lengths):
        return lengths
    longest = int(lengths.max())
    if longest <= 1 << 16:
        return np.flatnonzero(np.bincount(lengths, minlength=longest + 1))
    return np.unique(lengths)


def hash_variable(
    data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, seeds: np.ndarray
) -> np.ndarray:
    """XXH64 of byte strings ``data[start:start+length]``, one per seed (grouped by length;
    ``seeds`` as ``hash_int``'s)."""
    present = _lengths_present(lengths)
    if len(present) == 1:  # one length (a constant, keys, codes): no regrouping
        length = int(present[0])
        return hash_bytes(data[starts[:, None] + np.arange(length)], seeds)
    out = seeds.copy()
    for length in present:
        rows = np.flatnonzero(lengths == length)
        matrix = data[starts[rows, None] + np.arange(int(length))]
        out[..., rows] = hash_bytes(matrix, seeds[..., rows])
    return out
