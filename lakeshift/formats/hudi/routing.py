"""The Hudi table's routing side: hard-link directories of the current file slices.

A Hudi partition directory holds every file slice, so a plain Parquet reader of it would read
them all; the routing table's partitions point at directories of hard links to exactly the
current slices instead (one per partition and instant).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

#: A routing directory no longer current is kept this long: a query planned on it may still be
#: reading (its hard links also keep replaced files' data on disk until then).
ROUTE_GRACE_SECONDS = 3600


def drop_old_route_dirs(base: Path, current: set[Path], cutoff: float | None = None) -> list[str]:
    """Remove link directories under ``base`` that are not ``current`` and were last modified
    before ``cutoff`` (epoch seconds; default: the grace period ago); returns them."""
    if not base.is_dir():
        return []
    if cutoff is None:
        cutoff = time.time() - ROUTE_GRACE_SECONDS
    removed = []
    for leaf in [p for p in base.rglob("*") if p.is_dir() and not any(p.iterdir())] + [
        p.parent for p in base.rglob("*.parquet")
    ]:
        if leaf not in current and leaf.exists() and leaf.stat().st_mtime < cutoff:
            shutil.rmtree(leaf, ignore_errors=True)
            removed.append(str(leaf))
    return removed


def link_slices(root: Path, relative: str, slices: list[Any]) -> None:
    """Hard-link each slice's base file into ``root/relative`` (kept if already there)."""
    directory = root / relative
    directory.mkdir(parents=True, exist_ok=True)
    for file_slice in slices:
        link = directory / file_slice.base_file_name
        if not link.exists():
            os.link(root / file_slice.base_file_relative_path(), link)
