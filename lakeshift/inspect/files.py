"""List a partition's data files the way Hive's readers do, and fingerprint them.

Hive skips any path component starting with ``_`` or ``.`` (``_SUCCESS``, ``_tmp*``,
``.hive-staging*``) and empty files, and reads subdirectories (Tez ``HIVE_UNION_SUBDIR_n``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow.fs as pafs


@dataclass(frozen=True)
class ListedFile:
    path: str  # relative to the partition location, '/'-separated
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Listing:
    exists: bool
    files: tuple[ListedFile, ...]
    skipped: int
    error: str | None = None


def is_hidden(relative_path: str) -> bool:
    """Hive's hidden-file rule, applied to every component below the partition directory."""
    return any(part.startswith(("_", ".")) for part in relative_path.split("/"))


def list_partition(fs: pafs.FileSystem, root: str) -> Listing:
    """List ``root`` recursively with Hive's skip rules; never raises for a missing directory.

    The listing comes first and the existence check only when it finds nothing: on an object
    store each is a request, and most partitions have files.
    """
    try:
        entries = fs.get_file_info(pafs.FileSelector(root, recursive=True, allow_not_found=True))
        if not entries:
            info = fs.get_file_info(root)
            if info.type == pafs.FileType.NotFound:
                # A missing directory reads as empty in Hive; a missing bucket fails its queries.
                bucket = _missing_bucket(fs, root)
                error = f"bucket {bucket!r} does not exist" if bucket else None
                return Listing(exists=False, files=(), skipped=0, error=error)
            if info.type != pafs.FileType.Directory:
                return Listing(exists=True, files=(), skipped=0, error=f"{root} is not a directory")
    except NotADirectoryError:
        return Listing(exists=True, files=(), skipped=0, error=f"{root} is not a directory")
    except PermissionError as e:
        return Listing(exists=True, files=(), skipped=0, error=f"permission denied: {e}")
    except OSError as e:
        return Listing(exists=True, files=(), skipped=0, error=str(e))
    files, skipped = [], 0
    prefix = root.rstrip("/") + "/"
    for entry in entries:
        if entry.type != pafs.FileType.File:
            continue
        relative = entry.path[len(prefix) :] if entry.path.startswith(prefix) else entry.base_name
        if is_hidden(relative) or not entry.size:
            skipped += 1
            continue
        mtime = entry.mtime_ns if entry.mtime_ns is not None else 0
        files.append(ListedFile(relative, int(entry.size), int(mtime)))
    files.sort(key=lambda f: f.path)
    return Listing(exists=True, files=tuple(files), skipped=skipped)


def _missing_bucket(fs: pafs.FileSystem, root: str) -> str | None:
    """The bucket of ``root`` when ``fs`` is an object store and the bucket is not there."""
    if fs.type_name not in ("s3", "gcs"):
        return None
    bucket = root.split("/", 1)[0]
    return bucket if fs.get_file_info(bucket).type == pafs.FileType.NotFound else None


def fingerprint(files: Sequence[ListedFile]) -> str:
    """Stable hash of a partition's sorted relative paths, sizes and modification times."""
    digest = hashlib.sha256()
    for f in sorted(files, key=lambda f: f.path):
        digest.update(f"{f.path}\t{f.size}\t{f.mtime_ns}\n".encode())
    return "sha256:" + digest.hexdigest()
