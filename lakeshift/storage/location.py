"""A metastore location's file system, chosen by its scheme.

Hive locations are Hadoop paths, not strict URIs: spaces stay raw and ``%XX`` sequences are
literal characters of escaped partition directory names. So a path is never percent-decoded;
only the scheme and authority choose the file system. ``s3``, ``s3a`` and ``s3n`` name one
bucket the same way (clusters wrote all three into catalogs over the years).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pyarrow.fs as pafs

from lakeshift.errors import EnvironmentProblem
from lakeshift.storage.options import StorageOptions, current

#: Schemes of one store kind (pyarrow's name for it).
STORE_KINDS = {
    "s3": "s3",
    "s3a": "s3",
    "s3n": "s3",
    "gs": "gs",
    "gcs": "gs",
    "abfs": "abfs",
    "abfss": "abfs",
    "hdfs": "hdfs",
    "viewfs": "hdfs",
}


@dataclass(frozen=True)
class Location:
    """A location split into its store kind, authority (bucket, container, namenode) and path.

    ``path`` is the file system's own path: ``bucket/key`` on object stores, ``/a/b`` locally
    and on HDFS.
    """

    kind: str  # "local", "s3", "gs", "abfs", "hdfs"
    scheme: str  # as written ("" for a bare local path)
    authority: str
    path: str

    @property
    def is_local(self) -> bool:
        return self.kind == "local"

    @property
    def is_object_store(self) -> bool:
        return self.kind in ("s3", "gs", "abfs")


def parse(location: str) -> Location:
    """Split a metastore location (``file:/x``, ``/x``, ``s3a://bucket/k``, ``hdfs://nn/x``)."""
    scheme, sep, rest = location.partition(":")
    if not sep or len(scheme) == 1 or scheme.lower() == "file":
        path = rest if sep else location
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        return Location("local", scheme if sep and len(scheme) > 1 else "", "", path)
    authority, _, path = (
        rest[2:].partition("/") if rest.startswith("//") else ("", "", rest.lstrip("/"))
    )
    kind = STORE_KINDS.get(scheme.lower(), scheme.lower())
    if kind in ("s3", "gs", "abfs"):
        # ADLS names ``container@account.dfs.core.windows.net``; pyarrow's paths start at the
        # container (the account comes with the file system).
        bucket = authority.split("@", 1)[0]
        return Location(kind, scheme, authority, f"{bucket}/{path}".rstrip("/"))
    return Location(kind, scheme, authority, "/" + path)


def relative_to(location: str, root: str) -> str | None:
    """``location``'s path below ``root``, or None when it lies anywhere else.

    Spellings of one place are one place (``file:/x``, ``file:///x`` and ``/x``; ``s3a://``
    and ``s3://``; a trailing slash). Another authority (an HDFS namenode, an ADLS account) is
    elsewhere, even where one side names none: callers delete only what this says is below the
    root, so a doubt must answer None.
    """
    where, base = parse(location), parse(root)
    if where.kind != base.kind:
        return None
    # Buckets are the first segment of an object store's path; other authorities are not.
    if (
        where.kind not in ("local", "s3", "gs")
        and where.authority.lower() != base.authority.lower()
    ):
        return None
    prefix = base.path.rstrip("/") + "/"
    path = where.path.rstrip("/")
    return path[len(prefix) :] if path.startswith(prefix) else None


def place(location: str) -> tuple[str, str, str]:
    """One key for every spelling of one place (as ``relative_to`` reads them): store kind,
    authority (none for object stores, whose bucket starts the path) and path."""
    where = parse(location)
    authority = "" if where.kind in ("local", "s3", "gs") else where.authority.lower()
    return where.kind, authority, where.path.rstrip("/")


def filesystem_for(
    location: str, options: StorageOptions | None = None
) -> tuple[pafs.FileSystem, str]:
    """The pyarrow file system and its path for a metastore location."""
    where = parse(location)
    if where.is_local:
        return pafs.LocalFileSystem(), where.path
    try:
        fs = _remote_filesystem(where.kind, where.authority, options or current())
    except (ValueError, OSError, ImportError) as e:
        raise EnvironmentProblem(
            f"cannot open the file system of {location!r} ({e}).",
            hint="lakeshift reaches stores through pyarrow: configure the store's client "
            "(S3: spark.hadoop.fs.s3a.* settings or the AWS environment; HDFS: libhdfs and "
            "HADOOP_HOME) on this machine.",
        ) from e
    return fs, where.path


@functools.lru_cache(maxsize=32)
def _remote_filesystem(kind: str, authority: str, options: StorageOptions) -> pafs.FileSystem:
    if kind == "s3":
        return pafs.S3FileSystem(**options.pyarrow_s3())
    if kind == "hdfs":
        host, _, port = authority.partition(":")
        return pafs.HadoopFileSystem(host or "default", int(port or 0))
    return pafs.FileSystem.from_uri(f"{kind}://{authority}/")[0]
