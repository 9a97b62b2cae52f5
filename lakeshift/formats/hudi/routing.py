"""The Hudi table's routing side: directories holding exactly the current file slices.

A Hudi partition directory holds every file slice, so a plain Parquet reader of it would read
them all; the routing table's partitions point at directories holding exactly the current
slices instead (one per partition and instant). The store fills them the cheapest way it can
(``Store.copy``): hard links on a local disk, a server-side copy on an object store, which has
no links (the copies cost storage until the grace period below lets them go).
"""

from __future__ import annotations

import posixpath
import time
from typing import Any

from lakeshift.storage import Store

#: A routing directory no longer current is kept this long: a query planned on it may still be
#: reading (locally its hard links also keep replaced files' data on disk until then).
ROUTE_GRACE_SECONDS = 3600


def drop_old_route_dirs(
    root: Store, base: str, current: set[str], cutoff: float | None = None
) -> list[str]:
    """Remove routing directories under ``base`` (relative to ``root``) that are not
    ``current`` and whose files were all written before ``cutoff`` (epoch seconds; default:
    the grace period ago); returns their locations."""
    if cutoff is None:
        cutoff = time.time() - ROUTE_GRACE_SECONDS
    newest: dict[str, int] = {}
    for stored in root.list_files(base):
        directory = posixpath.dirname(stored.path)
        newest[directory] = max(newest.get(directory, 0), stored.mtime_ns)
    removed = []
    for directory, mtime_ns in sorted(newest.items()):
        if directory not in current and mtime_ns / 1e9 < cutoff:
            root.delete_dir(directory)
            removed.append(root.uri(directory))
    return removed


def link_slices(root: Store, relative: str, slices: list[Any]) -> None:
    """Put each slice's base file into ``relative`` (kept if already there)."""
    present = {f.name for f in root.list_files(relative, recursive=False)}
    for file_slice in slices:
        if file_slice.base_file_name not in present:
            root.copy(
                file_slice.base_file_relative_path(),
                posixpath.join(relative, file_slice.base_file_name),
            )
