"""What an Iceberg table owns: the files under its own location, and only those.

A table holding files adopted from its Hive source (zero-copy adoption registers the source's
ORC files where Hive wrote them) references data files outside its location. They belong to
the Hive table until ``lakeshift retire --delete-files``: nothing else may delete them, not
even once the Iceberg table no longer references them (an erasure or a rewrite drops them from
its metadata only). Iceberg's own expiry and orphan removal delete whatever they find
unreferenced, wherever it lies, so adoption sets ``gc.enabled=false`` and those refuse to run
("GC is disabled"). For such tables lakeshift expires snapshots in metadata only and then
deletes, itself, the files under the table's location that nothing left references.

A file is *adopted* (foreign) when the table references it, now or in any snapshot it still
keeps, and its path is not below the table's ``location()`` (``Store.relative``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from lakeshift.storage import Store, parse

if TYPE_CHECKING:
    from pyiceberg.table import Table

log = logging.getLogger(__name__)
#: Iceberg's switch for engines' file deletion; adoption turns it off.
GC_PROPERTY = "gc.enabled"


@dataclass(frozen=True)
class References:
    """Every file an Iceberg table's metadata references, as its metadata spells them.

    Attributes:
        live: data and delete files live (added or existing) in some snapshot.
        entries: data and delete files any manifest entry names, deleted entries included.
        manifests: manifest lists, manifests and statistics files of the snapshots.
        metadata_files: the current metadata file and those its log names.
    """

    live: frozenset[str]
    entries: frozenset[str]
    manifests: frozenset[str]
    metadata_files: frozenset[str]

    @property
    def everything(self) -> frozenset[str]:
        return self.entries | self.manifests | self.metadata_files


def references(table: Table) -> References:
    """The files ``table``'s snapshots and metadata reference (each manifest read once)."""
    from pyiceberg.manifest import ManifestEntryStatus

    io = table.io
    live: set[str] = set()
    entries: set[str] = set()
    manifests = {s.statistics_path for s in table.metadata.statistics}
    manifests |= {s.statistics_path for s in table.metadata.partition_statistics}
    read: set[str] = set()
    for snapshot in table.metadata.snapshots:
        manifests.add(snapshot.manifest_list)
        for manifest in snapshot.manifests(io):
            manifests.add(manifest.manifest_path)
            if manifest.manifest_path in read:
                continue
            read.add(manifest.manifest_path)
            for entry in manifest.fetch_manifest_entry(io, discard_deleted=False):
                entries.add(entry.data_file.file_path)
                if entry.status != ManifestEntryStatus.DELETED:
                    live.add(entry.data_file.file_path)
    metadata_files = {table.metadata_location}
    metadata_files |= {entry.metadata_file for entry in table.metadata.metadata_log}
    return References(
        frozenset(live), frozenset(entries), frozenset(manifests), frozenset(metadata_files)
    )


def foreign_files(table: Table) -> list[str]:
    """Data files ``table`` references (in any snapshot it keeps) outside its location."""
    store = Store(table.location())
    return sorted(p for p in references(table).entries if store.relative(p) is None)


def gc_disabled(table: Table) -> bool:
    """Whether ``table`` forbids engines to delete files (``gc.enabled=false``)."""
    return table.properties.get(GC_PROPERTY, "true").strip().lower() == "false"


def needs_own_cleanup(table: Table) -> bool:
    """Whether Iceberg's own expiry and orphan removal must not run on ``table``: they refuse
    (gc off), or they would delete a file outside its location (one it holds or held)."""
    return gc_disabled(table) or bool(foreign_files(table))


def expire_own(table: Table, older_than: datetime) -> list[str]:
    """Drop the snapshots older than ``older_than`` (never the current one, nor a branch's or
    tag's head) from the metadata, then delete the files under the table's location that only
    they reached (data and delete files, manifests, manifest lists); returns their locations.

    A file outside the location is never deleted, reached or not.
    """
    store = Store(table.location())
    current = table.current_snapshot()
    cutoff = older_than.timestamp() * 1000
    old = [
        s.snapshot_id
        for s in table.metadata.snapshots
        if s.timestamp_ms < cutoff and (current is None or s.snapshot_id != current.snapshot_id)
    ]
    if not old:
        return []
    before = references(table)
    # Metadata only: pyiceberg's expiry deletes no file (Iceberg's Java one refuses gc off).
    table.maintenance.expire_snapshots().older_than(older_than).commit()
    table = table.refresh()
    after = references(table)
    # As Iceberg's own expiry: metadata files are not its to delete (orphan removal takes
    # those the log no longer names).
    unreached = (before.entries | before.manifests) - (after.live | after.manifests)
    return _delete_own(
        store, unreached, _paths(after.live | after.manifests | after.metadata_files)
    )


def remove_own_orphans(table: Table, older_than: datetime) -> list[str]:
    """Delete the files under the table's location that its metadata does not reference and
    that were last modified before ``older_than`` (hidden paths, such as lakeshift's
    ``_lakeshift/`` records, are skipped as Iceberg's own action skips them)."""
    store = Store(table.location())
    found = references(table)
    # Compared by path alone: a referenced file spelled with another scheme or authority
    # must count as referenced here (the doubt keeps the file).
    kept = _paths(found.everything)
    cutoff = older_than.timestamp() * 1_000_000_000
    orphans = {
        store.uri(f.path)
        for f in store.list_files()
        if f.mtime_ns < cutoff and not _hidden(f.path) and store.path(f.path) not in kept
    }
    return _delete_own(store, orphans, kept)


def _paths(locations: frozenset[str]) -> set[str]:
    return {parse(location).path.rstrip("/") for location in locations}


def _delete_own(store: Store, locations: set[str] | frozenset[str], kept: set[str]) -> list[str]:
    """Delete each of ``locations`` below ``store``'s root, none whose path ``kept`` names
    (another spelling of a file still referenced)."""
    deleted = []
    for location in sorted(locations):
        relative = store.relative(location)
        if relative is None:  # outside the table's location: not the table's to delete
            continue
        if store.path(relative) in kept:
            continue
        if store.delete(relative):
            deleted.append(store.uri(relative))
    log.info("%s: deleted %d file(s) of its own that nothing references", store, len(deleted))
    return deleted


def _hidden(relative: str) -> bool:
    """Iceberg's hidden-path rule: a segment starting with ``.`` or ``_`` (not ``_k=v``)."""
    return any(
        part.startswith(".") or (part.startswith("_") and "=" not in part)
        for part in relative.split("/")
    )
