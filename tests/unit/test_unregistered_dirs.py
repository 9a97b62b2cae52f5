"""Partition-like directories under a table's root that the metastore does not register, at
every key level, read from a local disk entry by entry."""

from __future__ import annotations

from pathlib import Path

from lakeshift.inspect.inspector import _unregistered_dirs


def test_only_unregistered_partition_directories_at_the_keys_depth(tmp_path: Path) -> None:
    root = tmp_path / "t"
    for relative in ("y=1/m=1", "y=1/m=2", "y=2/m=1", "y=2/.m=3", "y=2/_tmp", "_y=3/m=1"):
        (root / relative).mkdir(parents=True)
    (root / "y=1" / "m=9").write_text("a file, not a directory")
    (root / "y=1" / "m=9.crc").write_text("")
    registered = {str(root / "y=1" / "m=1")}
    found = _unregistered_dirs(str(root), 2, registered)
    # hidden directories (. and _) and files are not partitions; one level is not the depth
    assert found == ["y=1/m=2", "y=2/m=1"]
    assert _unregistered_dirs(str(root), 1, {str(root / "y=1")}) == ["y=2"]
    assert _unregistered_dirs(str(root / "missing"), 2, set()) == []
