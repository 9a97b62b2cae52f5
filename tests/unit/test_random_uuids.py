"""The Arrow path's record keys: random version 4 UUIDs in their canonical text."""

from __future__ import annotations

import uuid

from lakeshift.formats.arrow_path import random_uuids


def test_keys_are_canonical_version_4_uuids_each_different() -> None:
    keys = random_uuids(20_000).to_pylist()
    parsed = [uuid.UUID(k) for k in keys]
    assert all(str(u) == k for u, k in zip(parsed, keys))  # lowercase, hyphens in place
    assert {u.version for u in parsed} == {4}
    assert {u.variant for u in parsed} == {uuid.RFC_4122}
    assert len(set(keys)) == len(keys)


def test_no_rows_no_keys() -> None:
    empty = random_uuids(0)
    assert len(empty) == 0 and str(empty.type) == "string"
