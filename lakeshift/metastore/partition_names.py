"""Hive partition names and directory escaping (Hive's ``FileUtils.escapePathName`` rules).

Hand-written: the rules are Hive's Java code; no Python library implements them.
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"

# Characters Hive escapes as %XX in partition directory names (non-Windows).
_ESCAPED = {chr(c) for c in range(0x01, 0x20)} | set("\"#%'*/:=?\\\x7f{[]^")


def escape_path_name(value: str) -> str:
    """Escape one partition key or value as Hive does in directory names."""
    return "".join(f"%{ord(ch):02X}" if ch in _ESCAPED else ch for ch in value)


def unescape_path_name(text: str) -> str:
    """Inverse of :func:`escape_path_name` (invalid escapes are kept as written, as in Hive)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%" and _is_hex(text[i + 1 : i + 3]):
            out.append(chr(int(text[i + 1 : i + 3], 16)))
            i += 3
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _is_hex(pair: str) -> bool:
    return len(pair) == 2 and all(c in "0123456789abcdefABCDEF" for c in pair)


def partition_name(
    keys: Sequence[str], values: Sequence[str | None], default_name: str = DEFAULT_PARTITION_NAME
) -> str:
    """``k1=v1/k2=v2`` with Hive escaping; ``None`` or empty values become the default name."""
    parts = []
    for key, value in zip(keys, values, strict=True):
        shown = default_name if value is None or value == "" else escape_path_name(value)
        parts.append(f"{escape_path_name(key)}={shown}")
    return "/".join(parts)


def parse_partition_name(name: str) -> list[tuple[str, str | None]]:
    """Split ``k1=v1/k2=v2`` into unescaped (key, value) pairs; the default name becomes None."""
    pairs: list[tuple[str, str | None]] = []
    for part in name.split("/"):
        key, _, value = part.partition("=")
        raw = unescape_path_name(value)
        pairs.append((unescape_path_name(key), None if raw == DEFAULT_PARTITION_NAME else raw))
    return pairs


def partition_name_of_path(path: str, keys: Sequence[str]) -> str | None:
    """The partition name a file's Hive-style directories spell (``.../k1=v1/k2=v2/file``),
    or None when the directories holding it are not named for ``keys`` in order (a partition
    at a custom location, a file in a subdirectory)."""
    directories = path.rstrip("/").split("/")[:-1]
    if not keys or len(directories) < len(keys):
        return None
    tail = directories[-len(keys) :]
    for key, segment in zip(keys, tail):
        name, sep, _ = segment.partition("=")
        if not sep or unescape_path_name(name).lower() != key.lower():
            return None
    return "/".join(tail)
