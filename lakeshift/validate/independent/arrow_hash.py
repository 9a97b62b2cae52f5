"""The canonical row fingerprint of ``lakeshift.validate.canonical``, computed on Arrow.

``canonical.py`` defines what is hashed (and computes it in Spark SQL); this module computes the
same value from Arrow arrays without Spark, so the independent reader's fingerprint can be
compared with the backfill's and the target's. Spark's ``xxhash64`` of the canonical form is a
chain: every non-NULL value is hashed with the previous hash as its seed (NULLs are skipped).
The canonical form hashes, per column, its NULL flag then its value, where

* a struct is never NULL itself: each field contributes its NULL flag, then its value;
* an array contributes, per element, the element's NULL flag then its value;
* a map contributes its entries sorted by key, each as key, value NULL flag, value;
* a floating point value contributes itself (-0.0 hashed as 0, NaN canonical), and a zero
  also the text of its sign ("0.0" or "-0.0");
* a decimal contributes its unscaled value (a long up to precision 18, else the big-endian
  two's complement bytes of Java's ``BigInteger.toByteArray``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakeshift.hive.types import HiveType
from lakeshift.validate.canonical import SALTS, Fingerprint
from lakeshift.validate.independent.xxh64 import (
    SPARK_SEED,
    hash_int,
    hash_long,
    hash_variable,
)

_INTS = {"tinyint", "smallint", "int", "date"}
_LONGS = {"bigint", "timestamp"}
_BYTES = {"string", "char", "varchar", "binary"}
_ZERO_TEXT = {False: np.frombuffer(b"0.0", np.uint8), True: np.frombuffer(b"-0.0", np.uint8)}
#: The rows of a column that hold a value: their indices, or every row (a slice: no copies).
Rows = np.ndarray | slice


def _valid(array: pa.Array) -> np.ndarray:
    if array.null_count == 0:
        return np.ones(len(array), bool)
    return np.asarray(array.is_valid().to_numpy(zero_copy_only=False), bool)


def null_flags(array: pa.Array) -> np.ndarray:
    """1 where the value is NULL (the canonical form's ``IS NULL`` flags)."""
    return (~_valid(array)).astype(np.int32)


def _numbers(array: pa.Array, as_type: pa.DataType, dtype: type) -> np.ndarray:
    viewed = array.view(as_type) if array.type != as_type else array
    return np.asarray(viewed.fill_null(0).to_numpy(zero_copy_only=False), dtype)


def _decimal_words(array: pa.Array) -> np.ndarray:
    """(rows, 2) int64 words (low, high) of the 128-bit unscaled values."""
    words = np.frombuffer(array.buffers()[1], "<i8").reshape(-1, 2)
    return words[array.offset : array.offset + len(array)]


def _java_bytes(value: int) -> bytes:
    """``BigInteger.toByteArray``: minimal big-endian two's complement."""
    bits = value.bit_length() if value >= 0 else (~value).bit_length()
    return value.to_bytes(bits // 8 + 1, "big", signed=True)


def _hash_decimal(array: pa.Array, hive: HiveType, rows: Rows, seeds: np.ndarray) -> None:
    words = _decimal_words(array)[rows]
    if hive.params[0] <= 18:
        seeds[..., rows] = hash_long(words[:, 0], seeds[..., rows])
        return
    unscaled = [int(lo) % (1 << 64) + (int(hi) << 64) for lo, hi in words]
    blobs = [_java_bytes(v) for v in unscaled]
    _hash_blobs(blobs, rows, seeds)


def _hash_blobs(blobs: Sequence[bytes], rows: Rows, seeds: np.ndarray) -> None:
    lengths = np.array([len(b) for b in blobs], np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    data = np.frombuffer(b"".join(blobs), np.uint8)
    seeds[..., rows] = hash_variable(data, starts, lengths, seeds[..., rows])


def _hash_bytes(array: pa.Array, rows: Rows, seeds: np.ndarray) -> None:
    if pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type):
        array = array.cast(pa.binary() if pa.types.is_large_binary(array.type) else pa.string())
    offsets = np.frombuffer(array.buffers()[1], "<i4")[array.offset : array.offset + len(array) + 1]
    buffer = array.buffers()[2]
    data = np.frombuffer(buffer, np.uint8) if buffer is not None else np.zeros(0, np.uint8)
    starts = offsets[:-1][rows].astype(np.int64)
    lengths = (offsets[1:] - offsets[:-1])[rows].astype(np.int64)
    seeds[..., rows] = hash_variable(data, starts, lengths, seeds[..., rows])


def _hash_float(array: pa.Array, double: bool, rows: Rows, seeds: np.ndarray) -> None:
    values = _numbers(array, array.type, np.float64 if double else np.float32)[rows]
    bits = values.view(np.int64 if double else np.int32).copy()
    bits[values == 0] = 0  # Spark hashes -0.0 as 0
    bits[np.isnan(values)] = 0x7FF8000000000000 if double else 0x7FC00000  # floatToIntBits
    hashed = hash_long(bits, seeds[..., rows]) if double else hash_int(bits, seeds[..., rows])
    seeds[..., rows] = hashed
    zeros = np.nonzero(values == 0)[0]
    for negative in (False, True):  # zeros also hash their text, which keeps the sign
        chosen = zeros[np.signbit(values[zeros]) == negative]
        if len(chosen):
            text = _ZERO_TEXT[negative]
            matrix_rows = chosen if isinstance(rows, slice) else rows[chosen]
            seeds[..., matrix_rows] = hash_variable(
                text,
                np.zeros(len(chosen), np.int64),
                np.full(len(chosen), len(text), np.int64),
                seeds[..., matrix_rows],
            )


def _hash_primitive(array: pa.Array, hive: HiveType, seeds: np.ndarray) -> np.ndarray:
    out = seeds.copy()
    if array.null_count == len(array) or hive.kind == "void":
        return out
    # every row (a slice: no copies of the values and seeds) or the rows that hold a value
    rows: Rows = slice(None) if array.null_count == 0 else np.flatnonzero(_valid(array))
    kind = hive.kind
    if kind == "boolean":
        out[..., rows] = hash_int(
            _numbers(array.cast(pa.int32()), pa.int32(), np.int32)[rows], out[..., rows]
        )
    elif kind in _INTS:
        as_type = pa.int32() if kind == "date" else array.type
        out[..., rows] = hash_int(_numbers(array, as_type, np.int64)[rows], out[..., rows])
    elif kind in _LONGS:
        as_type = pa.int64() if kind == "timestamp" else array.type
        out[..., rows] = hash_long(_numbers(array, as_type, np.int64)[rows], out[..., rows])
    elif kind in ("float", "double"):
        _hash_float(array, kind == "double", rows, out)
    elif kind == "decimal":
        _hash_decimal(array, hive, rows, out)
    elif kind in _BYTES:
        _hash_bytes(array, rows, out)
    else:
        raise ValueError(f"no canonical hash for Hive type {hive}")
    return out


def compact(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Per row of a list or map array: its length (0 when NULL), and the child indices of all
    its elements in row order (values under NULL slots are never visited)."""
    offsets = np.asarray(array.offsets.to_numpy(zero_copy_only=False), np.int64)
    lengths = np.where(_valid(array), offsets[1:] - offsets[:-1], 0)
    total = int(lengths.sum())
    first = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    indices = np.repeat(offsets[:-1] - first, lengths) + np.arange(total, dtype=np.int64)
    return lengths, indices


def _by_position(lengths: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per element position j: (element indices at j, their rows), rows each once."""
    total = int(lengths.sum())
    parents = np.repeat(np.arange(len(lengths)), lengths)
    first = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    positions = np.arange(total, dtype=np.int64) - np.repeat(first, lengths)
    order = np.argsort(positions, kind="stable")
    counts = np.bincount(positions, minlength=int(lengths.max(initial=0)))
    out = []
    start = 0
    for count in counts:
        chosen = order[start : start + count]
        out.append((chosen, parents[chosen]))
        start += count
    return out


def _hash_array(array: pa.Array, hive: HiveType, seeds: np.ndarray) -> np.ndarray:
    lengths, indices = compact(array)
    elements = array.values.take(pa.array(indices))
    element_type = hive.fields[0][1]
    flags = null_flags(elements)
    out = seeds.copy()
    for chosen, parents in _by_position(lengths):
        s = hash_int(flags[chosen], out[..., parents])
        out[..., parents] = hash_canonical(elements.take(pa.array(chosen)), element_type, s)
    return out


def _sorted_entries(array: pa.Array, key_type: HiveType) -> tuple[np.ndarray, pa.Array, pa.Array]:
    """Lengths, keys and values of a map array, entries sorted by key within each row (the
    order of Spark's ``array_sort`` on the canonical entries: -0.0 before 0.0)."""
    lengths, indices = compact(array)
    take = pa.array(indices)
    keys, items = array.keys.take(take), array.items.take(take)
    parents = np.repeat(np.arange(len(lengths)), lengths)
    columns = {"parent": pa.array(parents), "key": keys}
    sort_keys = [("parent", "ascending"), ("key", "ascending")]
    if key_type.kind in ("float", "double"):
        values = _numbers(keys, keys.type, np.float64)
        columns["zero_sign"] = pa.array(~np.signbit(values))
        sort_keys.append(("zero_sign", "ascending"))
    order = pc.sort_indices(pa.table(columns), sort_keys=sort_keys)
    return lengths, keys.take(order), items.take(order)


def _hash_map(array: pa.Array, hive: HiveType, seeds: np.ndarray) -> np.ndarray:
    key_type, value_type = hive.fields[0][1], hive.fields[1][1]
    lengths, keys, items = _sorted_entries(array, key_type)
    flags = null_flags(items)
    out = seeds.copy()
    for chosen, parents in _by_position(lengths):
        take = pa.array(chosen)
        s = hash_canonical(keys.take(take), key_type, out[..., parents])
        s = hash_int(flags[chosen], s)
        out[..., parents] = hash_canonical(items.take(take), value_type, s)
    return out


def hash_canonical(array: pa.Array, hive: HiveType, seeds: np.ndarray) -> np.ndarray:
    """Chain the canonical form of every value of ``array`` (Hive type ``hive``) into its
    row's seed; returns the new seeds."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if hive.kind == "struct":
        if not hive.fields:
            return hash_int(np.zeros(len(array), np.int32), seeds)
        out = seeds
        for (_, field_type), child in zip(hive.fields, array.flatten(), strict=True):
            out = hash_int(null_flags(child), out)
            out = hash_canonical(child, field_type, out)
        return out
    if hive.kind == "array":
        return _hash_array(array, hive, seeds)
    if hive.kind == "map":
        return _hash_map(array, hive, seeds)
    return _hash_primitive(array, hive, seeds)


def row_hashes(
    columns: Sequence[tuple[pa.Array, HiveType]], rows: int, salts: Sequence[int]
) -> np.ndarray:
    """``xxhash64(salt, flag1, value1, ...)`` of every row, as signed 64-bit integers, one
    row of them per salt: the chains of all salts at once, so that each column's values are
    prepared (grouped, gathered, converted) once, not once a salt."""
    seeds = np.full((len(salts), rows), SPARK_SEED, np.uint64)
    seeds = hash_int(np.asarray(salts, np.int64)[:, None], seeds)
    for array, hive in columns:
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        seeds = hash_int(null_flags(array), seeds)
        seeds = hash_canonical(array, hive, seeds)
    return seeds.view(np.int64)


def exact_sum(values: np.ndarray) -> int:
    """The exact sum of signed 64-bit integers (numpy's own sum would wrap)."""
    high = (values >> 32).astype(np.int64)
    low = (values & 0xFFFFFFFF).astype(np.int64)
    return int(high.sum()) * (1 << 32) + int(low.sum())


#: Rows hashed at a time: each step's arrays then stay in the core's cache (a 250,000-row
#: file of five columns: 74 ms in one block, 41 ms in blocks of 32,768; measured).
BLOCK_ROWS = 1 << 15


def fingerprint(columns: Sequence[tuple[pa.Array, HiveType]], rows: int) -> Fingerprint:
    """The canonical fingerprint of these rows (count and the two salted hash sums)."""
    sums = [0] * len(SALTS)
    for start in range(0, rows, BLOCK_ROWS):
        count = min(BLOCK_ROWS, rows - start)
        block = [(array.slice(start, count), hive) for array, hive in columns]
        for i, hashes in enumerate(row_hashes(block, count, SALTS)):
            sums[i] += exact_sum(hashes)
    return Fingerprint(rows, str(sums[0]), str(sums[1]))


def _chunks(array: pa.Array | pa.ChunkedArray) -> list[pa.Array]:
    return list(array.chunks) if isinstance(array, pa.ChunkedArray) else [array]


def fingerprints(
    sets: Sequence[Sequence[tuple[pa.Array, HiveType]]], counts: Sequence[int]
) -> list[Fingerprint]:
    """The fingerprint of each of several row sets (each: columns as ``fingerprint``'s, the
    same types in the same order; ``counts``: their rows). Sets smaller than a block are
    hashed together, one pass for all of them (a 200-row file's checksum alone costs about as
    much as 30,000 rows'; the hashing's cost is per step, not per row), then summed apart."""
    found: dict[int, Fingerprint] = {}
    small = [i for i, n in enumerate(counts) if 0 < n < BLOCK_ROWS]
    for i, n in enumerate(counts):
        if not 0 < n < BLOCK_ROWS:
            found[i] = fingerprint(sets[i], n)
    groups: list[list[int]] = [[]]
    rows = 0
    for i in small:  # each group closes once it holds a block's rows
        if rows >= BLOCK_ROWS:
            groups.append([])
            rows = 0
        groups[-1].append(i)
        rows += counts[i]
    for group in (g for g in groups if g):
        found.update(zip(group, _together([sets[j] for j in group], [counts[j] for j in group])))
    return [found[i] for i in range(len(counts))]


def _together(
    sets: Sequence[Sequence[tuple[pa.Array, HiveType]]], counts: Sequence[int]
) -> list[Fingerprint]:
    """``fingerprints`` of sets that fit a block or two together: one array per column, one
    hash of every row, exact sums per set (a set's high and low halves summed apart: below
    2^48 each for at most 2^16 rows)."""
    columns = [
        (pa.chunked_array([c for s in sets for c in _chunks(s[k][0])], sets[0][k][0].type), hive)
        for k, (_, hive) in enumerate(sets[0])
    ]
    hashes = row_hashes(columns, sum(counts), SALTS)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    high = np.add.reduceat(hashes >> 32, starts, axis=1)
    low = np.add.reduceat(hashes & 0xFFFFFFFF, starts, axis=1)
    return [
        Fingerprint(
            n,
            *(str(int(high[s, i]) * (1 << 32) + int(low[s, i])) for s in range(len(SALTS))),
        )
        for i, n in enumerate(counts)
    ]
