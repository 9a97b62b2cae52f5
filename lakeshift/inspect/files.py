"""List a partition's data files the way Hive's readers do, and fingerprint them.

Hive skips any path component starting with ``_`` or ``.`` (``_SUCCESS``, ``_tmp*``,
``.hive-staging*``) and empty files, and reads subdirectories (Tez ``HIVE_UNION_SUBDIR_n``).
Every skipped object is classed (``SKIP_KINDS``) so a user can see what was not read, and a
listing names the paths that show a write still under way (``in_progress``): a writer that
follows Hadoop's or Hive's commit protocols leaves them until it commits. Objects the store
keeps in an archive class (S3 Glacier, Deep Archive) are set apart before anything is read
(``archived``): Hive's reader would fail on them, and what becomes of their partition is the
``archived_objects`` setting's to say (``anomalies``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

import pyarrow.fs as pafs

from lakeshift.inspect.model import ArchivedObject
from lakeshift.storage.objects import StoredObject, list_tree, with_restore_status


@dataclass(frozen=True)
class ListedFile:
    path: str  # relative to the partition location, '/'-separated
    size: int
    mtime_ns: int


#: Classes of skipped objects, as ``inspect`` reports them.
MARKER = "marker"  # an object store's directory marker (``dir_$folder$``, ``dir/``)
HIDDEN = "hidden"  # a path component starting with ``_`` or ``.`` (``_SUCCESS``)
EMPTY = "empty"  # a zero-byte file
SKIP_KINDS = (MARKER, HIDDEN, EMPTY)
EXAMPLES = 3  # paths named per class

# Names that writers leave only while a write is under way: Hadoop's FileOutputCommitter
# (``_temporary``), Hive's staging and temporary files, Spark's dynamic-overwrite staging,
# ``hadoop fs -put``/distcp copies before their rename (``name._COPYING_``, which Hive would
# read: the name is not hidden), Flink's in-progress part files. Matched as a component of a
# relative path, in one search of the whole path (a partition's listing asks it of every object).
_IN_PROGRESS = re.compile(
    r"(?:^|/)(?:_temporary|\.hive-staging[^/]*|_tmp[^/]*|\.spark-staging[^/]*|\.distcp\.tmp[^/]*"
    r"|[^/]*\._COPYING_|[^/]*\.inprogress[^/]*)(?:/|$)"
)


@dataclass(frozen=True)
class Listing:
    exists: bool
    files: tuple[ListedFile, ...]
    skipped: int
    error: str | None = None
    #: skipped objects per class (``SKIP_KINDS``), and up to ``EXAMPLES`` paths of each
    skipped_kinds: dict[str, int] = field(default_factory=dict)
    skipped_examples: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: paths that show a write under way, or what a failed one left (up to ``EXAMPLES``)
    in_progress: tuple[str, ...] = ()
    #: the newest modification time of anything listed (files, skipped objects, directories)
    newest_mtime_ns: int = 0
    #: data files in an archive class, not restored: never read (not in ``files``)
    archived: tuple[ArchivedObject, ...] = ()


def is_marker(relative_path: str) -> bool:
    """A directory marker: S3A's and EMRFS's ``name_$folder$`` or a key ending in ``/``."""
    return relative_path.endswith(("_$folder$", "/"))


def in_progress(relative_path: str) -> bool:
    """Whether a path shows a write under way (``_IN_PROGRESS``)."""
    return _IN_PROGRESS.search(relative_path) is not None


def skip_kind(relative_path: str, size: int) -> str | None:
    """Why Hive skips the object, or None when it reads it."""
    if is_marker(relative_path):
        return MARKER
    if is_hidden(relative_path):
        return HIDDEN
    return None if size else EMPTY


def is_hidden(relative_path: str) -> bool:
    """Hive's hidden-file rule, applied to every component below the partition directory."""
    # a component starts the path or follows a "/"
    return relative_path.startswith(("_", ".")) or "/_" in relative_path or "/." in relative_path


@dataclass(frozen=True)
class TableTree:
    """One recursive listing of a table's root, split into its partition-depth directories.

    On an object store a listing is one request per 1,000 keys, while listing each partition
    alone costs a request per partition even when it holds one file: a table of 10,000
    one-file partitions lists in 10 requests instead of 10,000. A partition whose directory
    is not in the tree (a location elsewhere, at another depth, or no object under it) is
    listed alone, as before.

    Attributes:
        root: the table root, as the file system names it (no trailing ``/``).
        directories: every directory ``depth`` levels below the root, mapped to what is
            below it (its own marker key left out, as a partition's own listing leaves it out;
            empty for an empty directory, which a partition then lists alone).
    """

    root: str
    directories: dict[str, tuple[StoredObject, ...]]
    #: the file system's kind (``s3``, ``gcs``...): a partition on another store is not in it
    store: str = ""

    def entries(self, fs: pafs.FileSystem, partition_root: str) -> tuple[StoredObject, ...] | None:
        """What the tree holds below ``partition_root``; None when it must be listed alone
        (:meth:`held`, then :meth:`restored`)."""
        return self.restored(self.held(fs, partition_root))

    def holds(self, fs: pafs.FileSystem, partition_root: str) -> bool:
        """Whether :meth:`entries` gives ``partition_root`` its listing (no request made)."""
        return self.held(fs, partition_root) is not None

    def held(self, fs: pafs.FileSystem, partition_root: str) -> tuple[StoredObject, ...] | None:
        """What the tree holds below ``partition_root`` as listed (no request made); None
        when it must be listed alone."""
        if fs.type_name != self.store:
            return None
        return self.directories.get(partition_root.rstrip("/")) or None

    @staticmethod
    def restored(found: tuple[StoredObject, ...] | None) -> tuple[StoredObject, ...] | None:
        """``found`` with the restore status of its archived objects asked.

        It costs a request (a HEAD) each, so it is asked only for the objects of a partition
        that is read, not for every object under the root, and where that partition is read
        (a Spark task, on the spread path)."""
        if found and any(e.archived for e in found):
            found = tuple(with_restore_status(e) if e.archived else e for e in found)
        return found


def list_table_tree(fs: pafs.FileSystem, table_root: str, depth: int) -> TableTree:
    """List ``table_root`` once, recursively, grouping objects by their directory ``depth``
    levels down (the partition directories of a table with ``depth`` partition keys).

    Raises:
        OSError: the store failed the listing (the caller then lists partitions alone).
    """
    base = table_root.rstrip("/")
    entries = list_tree(fs, base, restore_status=False)
    return TableTree(base, _group(entries, base, depth), fs.type_name)


def _group(
    entries: Iterable[StoredObject], base: str, depth: int
) -> dict[str, tuple[StoredObject, ...]]:
    groups: dict[str, list[StoredObject]] = {}
    prefix = base + "/"
    for entry in entries:
        if not entry.path.startswith(prefix):
            continue
        parts = entry.path[len(prefix) :].split("/")
        if len(parts) == depth and not entry.is_file:
            groups.setdefault(prefix + "/".join(parts), [])  # an (empty) directory, not a key
            continue
        if len(parts) <= depth:
            continue  # at or above the partition directories (a file in the root, a directory)
        directory = prefix + "/".join(parts[:depth])
        if len(parts) == depth + 1 and not parts[-1]:
            groups.setdefault(directory, [])  # the partition directory's own marker key
            continue
        groups.setdefault(directory, []).append(entry)
    return {d: tuple(e) for d, e in groups.items()}


def list_partition(
    fs: pafs.FileSystem, root: str, listed: Sequence[StoredObject] | None = None
) -> Listing:
    """List ``root`` recursively with Hive's skip rules; never raises for a missing directory.

    The listing comes first and the existence check only when it finds nothing: on an object
    store each is a request, and most partitions have files. On S3 the listing names each
    object's storage class, so archived objects are known before any of them is read.
    ``listed`` is what a :class:`TableTree` already holds below ``root``: no request at all.
    """
    try:
        entries = list(listed) if listed else list_tree(fs, root)
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
    files: list[ListedFile] = []
    archived: list[ArchivedObject] = []
    kinds: dict[str, int] = {}
    examples: dict[str, list[str]] = {}
    writing: list[str] = []
    newest = 0
    prefix = root.rstrip("/") + "/"
    for entry in entries:
        newest = max(newest, entry.mtime_ns)
        relative = (
            entry.path[len(prefix) :]
            if entry.path.startswith(prefix)
            else entry.path.rstrip("/").rsplit("/", 1)[-1]
        )
        if in_progress(relative) and len(writing) < EXAMPLES:
            writing.append(relative)
        if not entry.is_file:
            continue
        kind = skip_kind(relative, entry.size)
        if kind is not None:
            kinds[kind] = kinds.get(kind, 0) + 1
            if len(examples.setdefault(kind, [])) < EXAMPLES:
                examples[kind].append(relative)
            continue
        if entry.archived:
            archived.append(ArchivedObject(relative, entry.size, entry.storage_class))
            continue
        files.append(ListedFile(relative, entry.size, entry.mtime_ns))
    files.sort(key=lambda f: f.path)
    archived.sort(key=lambda f: f.path)
    return Listing(
        exists=True,
        files=tuple(files),
        skipped=sum(kinds.values()),
        skipped_kinds=kinds,
        skipped_examples={k: tuple(v) for k, v in examples.items()},
        in_progress=tuple(writing),
        newest_mtime_ns=newest,
        archived=tuple(archived),
    )


def _missing_bucket(fs: pafs.FileSystem, root: str) -> str | None:
    """The bucket of ``root`` when ``fs`` is an object store and the bucket is not there."""
    if fs.type_name not in ("s3", "gcs"):
        return None
    bucket = root.split("/", 1)[0]
    return bucket if fs.get_file_info(bucket).type == pafs.FileType.NotFound else None


def fingerprint(files: Sequence[ListedFile]) -> str:
    """Stable hash of a partition's sorted relative paths, sizes and modification times."""
    # one digest of the joined lines: the same value as one update per line, in fewer calls
    ordered = sorted(files, key=attrgetter("path"))
    lines = "".join(f"{f.path}\t{f.size}\t{f.mtime_ns}\n" for f in ordered)
    return "sha256:" + hashlib.sha256(lines.encode()).hexdigest()
