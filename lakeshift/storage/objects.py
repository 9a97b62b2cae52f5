"""A recursive listing that carries what a store says of each object beyond its size.

pyarrow's ``FileInfo`` has no storage class, and on S3 the storage class decides whether an
object can be read at all: one in an archive class (S3 Glacier Flexible Retrieval, Deep
Archive; lifecycle rules move old partitions there) answers every GET with
``InvalidObjectState`` until it is restored. So S3 locations are listed with boto3's
``ListObjectsV2``, which names the class of every object on the same pages (no extra request),
and only an archived object costs one HEAD more, for its restore status (``x-amz-restore``).
Other stores are listed by pyarrow, as before.
"""

from __future__ import annotations

import calendar
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import pyarrow.fs as pafs

from lakeshift.storage.options import StorageOptions, current

#: S3's archive classes: not readable until restored (GLACIER_IR, "instant retrieval", is).
ARCHIVE_CLASSES = ("GLACIER", "DEEP_ARCHIVE")
#: A finished restore, as ``x-amz-restore`` (and ListObjectsV2's ``RestoreStatus``) say it.
RESTORED = 'ongoing-request="false"'
#: Attempts per request: throttling (503 SlowDown) and dropped connections are retried with
#: AWS's standard backoff, not reported; an endpoint that never answers fails in about a minute.
ATTEMPTS = 5
CONNECT_SECONDS = 10


@dataclass(frozen=True)
class StoredObject:
    """One entry of a recursive listing.

    Attributes:
        path: the file system's path (``bucket/key`` on S3; a key ending in ``/``, a
            directory marker, keeps its ``/``).
        is_file: False for a directory (S3 has none: its markers are objects).
        storage_class: the store's class of the object (``""`` where stores have none).
        restored: an archived object whose restored copy can be read now.
    """

    path: str
    size: int
    mtime_ns: int
    is_file: bool = True
    storage_class: str = ""
    restored: bool = False

    @property
    def archived(self) -> bool:
        """Unreadable until restored: an archive class and no finished restore."""
        return self.storage_class in ARCHIVE_CLASSES and not self.restored


def list_tree(
    fs: pafs.FileSystem,
    root: str,
    options: StorageOptions | None = None,
    *,
    restore_status: bool = True,
) -> list[StoredObject]:
    """Everything below ``root`` (recursively); an absent directory lists as empty.

    ``restore_status=False`` leaves archived objects' restore status unasked (they list as
    not restored): :func:`with_restore_status` asks it for the ones that are used.

    Raises:
        PermissionError: the store refused the listing.
        OSError: any other failure of the store.
    """
    if fs.type_name == "s3":
        return list(_s3_objects(root, options or current(), restore_status))
    entries = fs.get_file_info(pafs.FileSelector(root, recursive=True, allow_not_found=True))
    return [
        StoredObject(
            e.path,
            int(e.size or 0),
            int(e.mtime_ns or 0),
            is_file=e.type == pafs.FileType.File,
        )
        for e in entries
    ]


def with_restore_status(entry: StoredObject, options: StorageOptions | None = None) -> StoredObject:
    """``entry`` with its restore status asked (one HEAD; S3 archived objects only)."""
    if entry.storage_class not in ARCHIVE_CLASSES:
        return entry
    bucket, _, key = entry.path.partition("/")
    return replace(entry, restored=_restored(s3_client(options or current()), bucket, key))


def _s3_objects(
    root: str, options: StorageOptions, restore_status: bool = True
) -> Iterator[StoredObject]:
    from botocore.exceptions import BotoCoreError, ClientError

    bucket, _, key = root.rstrip("/").partition("/")
    prefix = f"{key}/" if key else ""
    client = s3_client(options)
    try:
        pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        for page in pages:
            for item in page.get("Contents", ()):
                name = item["Key"]
                if name == prefix:
                    continue  # the directory's own marker
                storage_class = item.get("StorageClass") or "STANDARD"
                restored = (
                    restore_status
                    and storage_class in ARCHIVE_CLASSES
                    and _restored(client, bucket, name)
                )
                yield StoredObject(
                    f"{bucket}/{name}",
                    int(item.get("Size", 0)),
                    _nanoseconds(item["LastModified"]),
                    storage_class=storage_class,
                    restored=restored,
                )
    except ClientError as e:
        code = e.response.get("Error", {}).get("Code", "")
        if code == "NoSuchBucket":
            return  # the caller tells a missing bucket from an empty directory
        message = f"AWS Error {code or 'unknown'} listing s3://{bucket}/{prefix}: {e}"
        if code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "403"):
            raise PermissionError(message) from e
        raise OSError(message) from e
    except BotoCoreError as e:
        raise OSError(f"listing s3://{bucket}/{prefix}: {e}") from e


def _restored(client: Any, bucket: str, key: str) -> bool:
    """Whether an archived object's restored copy is there (one HEAD, archived objects only:
    ListObjectsV2's ``RestoreStatus`` needs ``OptionalObjectAttributes``, which S3-compatible
    stores and moto do not all answer)."""
    head = client.head_object(Bucket=bucket, Key=key)
    return RESTORED in (head.get("Restore") or "")


def _nanoseconds(moment: datetime) -> int:
    """``LastModified`` as pyarrow's listing gives it (integer nanoseconds since the epoch),
    so fingerprints taken before this listing existed still match."""
    seconds = calendar.timegm(moment.utctimetuple())
    return seconds * 1_000_000_000 + moment.microsecond * 1000


_clients: dict[StorageOptions, Any] = {}
_creating = threading.Lock()


def s3_client(options: StorageOptions) -> Any:
    """One boto3 S3 client per set of options. A client is thread-safe; creating one from
    boto3's default session is not, and ``inspect`` lists from several threads at once."""
    with _creating:
        client = _clients.get(options)
        if client is None:
            import boto3
            from botocore.config import Config

            config = Config(
                retries={"mode": "standard", "max_attempts": ATTEMPTS},
                connect_timeout=CONNECT_SECONDS,
            )
            client = boto3.session.Session().client("s3", config=config, **options.boto3_s3())
            _clients[options] = client
    return client
