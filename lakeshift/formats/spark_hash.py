"""Spark's hash partitioning of an int, so that a shuffle can send each partition of a batch
to a task of its own (``TargetFormat.clustered``).

Hand-written: Spark's ``HashPartitioning`` sends a row to task ``pmod(hash(key), n)``, where
``hash`` is ``Murmur3Hash`` with seed 42 (``Murmur3_x86_32.hashInt`` for an int); no Python
library exposes that function with Spark's seed and sign conventions, and asking Spark would
cost a job per batch. ``tests/integration`` checks it against Spark's own ``hash``.
"""

from __future__ import annotations

from functools import lru_cache

_MASK = 0xFFFFFFFF
SEED = 42  # Spark's HashPartitioning seed


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (32 - bits))) & _MASK


def spark_hash_int(value: int, seed: int = SEED) -> int:
    """Spark's ``hash(value)`` of an int (``Murmur3_x86_32.hashInt``), as a signed int."""
    k1 = (value & _MASK) * 0xCC9E2D51 & _MASK
    k1 = _rotl(k1, 15) * 0x1B873593 & _MASK
    h1 = (seed & _MASK) ^ k1
    h1 = (_rotl(h1, 13) * 5 + 0xE6546B64) & _MASK
    h1 ^= 4  # the length in bytes
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & _MASK
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & _MASK
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


@lru_cache(maxsize=64)
def keys_for_tasks(tasks: int) -> tuple[int, ...]:
    """For each task ``0 .. tasks - 1``, the smallest non-negative int Spark's hash
    partitioning into ``tasks`` tasks sends there."""
    keys: dict[int, int] = {}
    candidate = 0
    while len(keys) < tasks:
        keys.setdefault(spark_hash_int(candidate) % tasks, candidate)  # Python's % is pmod
        candidate += 1
    return tuple(keys[t] for t in range(tasks))
