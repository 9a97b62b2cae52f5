"""The legacy Hive table's files: listed in a manifest, then (on request) deleted.

The manifest (``HOME/retired/DB.TABLE-<time>.json``) is written before the metastore entry is
dropped, so lakeshift still knows the files afterwards; deletion reads only the manifest and
deletes a file only while its size and modification time are what the manifest says (a file
rewritten since belongs to someone else now and is kept).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.fs as pafs

from lakeshift.errors import RefusedInput
from lakeshift.inspect.model import TableInventory
from lakeshift.storage import filesystem_for, parse

MANIFEST_VERSION = 1
WRITTEN, DELETING, DELETED = "written", "deleting", "deleted"


def retired_dir(home: Path) -> Path:
    path = home / "retired"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _join(location: str, relative: str) -> str:
    return location.rstrip("/") + "/" + relative


def listed_files(inventory: TableInventory) -> list[dict[str, Any]]:
    """Every data file of the table as Hive reads it (hidden and empty files are not data)."""
    return [
        {
            "partition": p.name,
            "path": _join(p.location, f.path),
            "size": f.size,
            "mtime_ns": f.mtime_ns,
            "mtime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(f.mtime_ns / 1e9)),
        }
        for p in inventory.partitions
        for f in p.files
    ]


def check_outside(files: list[dict[str, Any]], lake_location: str | None) -> None:
    """Refuse to delete anything under the lake table's location (it may hold its data)."""
    if lake_location is None:
        return
    lake_fs, lake_root = filesystem_for(lake_location)
    prefix = lake_root.rstrip("/") + "/"
    inside = [
        f["path"]
        for f in files
        if type(filesystem_for(f["path"])[0]) is type(lake_fs)
        and filesystem_for(f["path"])[1].startswith(prefix)
    ]
    if inside:
        raise RefusedInput(
            f"{len(inside)} file(s) of the legacy table lie under the lake table's location "
            f"{lake_location} (e.g. {inside[0]}); lakeshift will not delete them.",
            hint="Retire without --delete-files and remove the legacy files by hand.",
        )


def check_not_read(files: list[dict[str, Any]], lake_files: list[str], lake: str) -> None:
    """Refuse to delete a file the lake table still reads: one it adopted from the legacy
    table (zero-copy) is the legacy table's and the lake table's data at once."""
    read = {_place(p) for p in lake_files}
    held = [f["path"] for f in files if _place(f["path"]) in read]
    if held:
        raise RefusedInput(
            f"{len(held)} file(s) of the legacy table are data files of {lake}, which adopted "
            f"them instead of copying (e.g. {held[0]}); deleting them would lose those rows "
            "from the lake table. Nothing was deleted.",
            hint="Retire without --delete-files (the files stay and serve the lake table), or "
            "first rewrite those partitions into the lake table's location (Spark: CALL "
            "system.rewrite_data_files with a where naming them), then retire again.",
        )


def _place(location: str) -> tuple[str, str, str]:
    """One spelling of a location (``file:/x``, ``file:///x`` and ``/x`` are one place)."""
    where = parse(location)
    return where.kind, where.authority.lower(), where.path.rstrip("/")


def _write(path: Path, document: dict[str, Any]) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(document, indent=1, ensure_ascii=False))
    os.replace(temporary, path)


def write_manifest(
    home: Path,
    source: str,
    legacy: str,
    inventory: TableInventory,
    files: list[dict[str, Any]],
    lake_label: str,
    validation: dict[str, int],
) -> Path:
    """Write the manifest of ``files`` before anything is dropped; returns its path.

    ``source`` is the public name (now the lake table's), ``legacy`` the Hive table about to be
    dropped.
    """
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    path = retired_dir(home) / f"{source}-{stamp}-{time.time_ns() % 1_000_000:06d}.json"
    _write(
        path,
        {
            "version": MANIFEST_VERSION,
            "source": source,
            "legacy": legacy,
            "lake_table": f"{lake_label} {source}",
            "table_location": inventory.location,
            "partition_locations": [p.location for p in inventory.partitions],
            "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "validation": validation,
            "status": WRITTEN,
            "files": files,
        },
    )
    return path


def latest_manifest(home: Path, source: str) -> Path | None:
    found = sorted((home / "retired").glob(f"{source}-*.json"))
    return found[-1] if found else None


def read_manifest(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    return document


@dataclass
class Deletion:
    deleted: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    removed_dirs: list[str] = field(default_factory=list)


def delete_listed(path: Path) -> Deletion:
    """Delete the manifest's files that are unchanged since it was written, then the
    directories left without any file; records the outcome in the manifest."""
    document = read_manifest(path)
    document["status"] = DELETING
    _write(path, document)
    outcome = Deletion(
        deleted=list(document.get("deleted", [])), absent=list(document.get("absent", []))
    )
    done = set(outcome.deleted) | set(outcome.absent)
    for entry in document["files"]:
        if entry["path"] in done:
            continue
        fs, local = filesystem_for(entry["path"])
        info = fs.get_file_info(local)
        if info.type == pafs.FileType.NotFound:
            outcome.absent.append(entry["path"])
        elif info.size != entry["size"] or info.mtime_ns != entry["mtime_ns"]:
            outcome.changed.append(entry["path"])
        else:
            fs.delete_file(local)
            outcome.deleted.append(entry["path"])
    directories = sorted(
        {*document["partition_locations"], document["table_location"]}, key=len, reverse=True
    )
    outcome.removed_dirs = [d for d in directories if _remove_if_no_files(d)]
    document.update(
        status=DELETED,
        deleted_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        deleted=outcome.deleted,
        kept_changed=outcome.changed,
        absent=outcome.absent,
        removed_dirs=outcome.removed_dirs,
    )
    _write(path, document)
    return outcome


def _remove_if_no_files(location: str) -> bool:
    """Remove a directory that holds no file at any depth (only empty directories)."""
    fs, local = filesystem_for(location)
    if fs.get_file_info(local).type != pafs.FileType.Directory:
        return False
    entries = fs.get_file_info(pafs.FileSelector(local, recursive=True))
    if any(e.type != pafs.FileType.Directory for e in entries):
        return False
    fs.delete_dir(local)
    return True
