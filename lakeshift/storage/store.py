"""One table location, read and written through its file system.

Every file lakeshift reads or writes under a table location goes through a ``Store``: callers
name files relative to the location and never branch on the scheme. Two things differ between a
local disk (or HDFS) and an object store, and both are decided here:

* **Replacing a file** (``write``): locally a temporary file renamed over the name, so a reader
  sees the old content or the new; on an object store one PUT, which is atomic by itself.
* **Creating a file once** (``create``, the commit primitive): locally a temporary file
  hard-linked to the name (the link fails if the name exists, and the file is whole before it
  is visible); on S3 a conditional PUT (``If-None-Match: *``), which the store refuses with
  412 when the key exists. Neither relies on rename or directories.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs

from lakeshift.errors import EnvironmentProblem, LakeshiftError, NotFound, first_line
from lakeshift.storage.location import Location, filesystem_for, parse, relative_to
from lakeshift.storage.options import StorageOptions, current

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoredFile:
    """A file below a store's root: its '/'-separated relative path, size and mtime."""

    path: str
    size: int
    mtime_ns: int

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


class StorageUnavailable(EnvironmentProblem):
    """The store refused or could not be reached (credentials, permissions, network)."""


class Store:
    """The files below one location (a table's root, a partition directory).

    Args:
        location: the location as the catalog holds it (``file:/``, ``s3a://``, ``hdfs://``...).
        options: object-store options; default: this process's (``storage.configure``).
    """

    def __init__(self, location: str, options: StorageOptions | None = None) -> None:
        self.location = location.rstrip("/") or location
        self.options = options or current()
        self.where: Location = parse(self.location)
        self.fs, root = filesystem_for(self.location, self.options)
        self.root = root.rstrip("/") or root

    @classmethod
    def of(cls, where: Store | str | os.PathLike[str]) -> Store:
        """``where`` as a Store (a location string or a local path is opened)."""
        return where if isinstance(where, Store) else cls(os.fspath(where))

    def __repr__(self) -> str:
        return f"Store({self.location!r})"

    def __str__(self) -> str:
        return self.location

    # -- names ------------------------------------------------------------------------------

    def uri(self, relative: str = "") -> str:
        """The location of ``relative`` in the catalog's spelling (scheme kept)."""
        return f"{self.location}/{relative}" if relative else self.location

    def path(self, relative: str = "") -> str:
        """The file system's path of ``relative`` (for pyarrow readers)."""
        return f"{self.root}/{relative}" if relative else self.root

    def child(self, relative: str) -> Store:
        return Store(self.uri(relative), self.options)

    def relative(self, location: str) -> str | None:
        """``location``'s path below this store's root, or None (``location.relative_to``)."""
        return relative_to(location, self.location)

    def table_uri(self) -> str:
        """The root as the Rust readers (delta-rs, hudi-rs) name it: a plain local path, or
        ``s3://bucket/key`` (their object store knows ``s3``, not Hadoop's ``s3a``/``s3n``)."""
        if self.where.is_local:
            return self.root
        if self.where.kind in ("s3", "gs"):
            return f"{self.where.kind}://{self.root}"
        return self.location

    def object_store_options(self) -> dict[str, str]:
        """Storage options for delta-rs and hudi-rs at this location (none on local disks)."""
        return self.options.object_store() if self.where.kind == "s3" else {}

    # -- reading ----------------------------------------------------------------------------

    def exists(self, relative: str = "") -> bool:
        with self._translated(relative):
            return self.fs.get_file_info(self.path(relative)).type != pafs.FileType.NotFound

    def info(self, relative: str) -> StoredFile | None:
        """One file's size and modification time (None when there is no such file)."""
        with self._translated(relative):
            found = self.fs.get_file_info(self.path(relative))
        if found.type != pafs.FileType.File:
            return None
        return StoredFile(relative, int(found.size or 0), int(found.mtime_ns or 0))

    def is_file(self, relative: str) -> bool:
        with self._translated(relative):
            return self.fs.get_file_info(self.path(relative)).type == pafs.FileType.File

    def read_bytes(self, relative: str) -> bytes:
        with self._translated(relative), self.fs.open_input_stream(self.path(relative)) as f:
            return bytes(f.read())

    def read_text(self, relative: str) -> str:
        return self.read_bytes(relative).decode("utf-8")

    def read_text_if_exists(self, relative: str) -> str | None:
        try:
            return self.read_text(relative)
        except NotFound:
            return None

    def open_input(self, relative: str) -> pa.NativeFile:
        """A random-access reader (footers and tails are read by range)."""
        with self._translated(relative):
            return self.fs.open_input_file(self.path(relative))

    def list_files(self, relative: str = "", recursive: bool = True) -> list[StoredFile]:
        """Files below ``relative`` (hidden ones included), paths relative to the root; an
        absent directory lists as empty."""
        base = self.path(relative)
        with self._translated(relative):
            selector = pafs.FileSelector(base, recursive=recursive, allow_not_found=True)
            infos = self.fs.get_file_info(selector)
        prefix = self.root + "/"
        out = [
            StoredFile(
                i.path[len(prefix) :] if i.path.startswith(prefix) else i.base_name,
                int(i.size or 0),
                int(i.mtime_ns or 0),
            )
            for i in infos
            if i.type == pafs.FileType.File
        ]
        return sorted(out, key=lambda f: f.path)

    # -- writing ----------------------------------------------------------------------------

    def write(self, relative: str, data: bytes | str) -> None:
        """Write ``relative`` whole: a reader sees the previous content or this one."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        target = self.path(relative)
        with self._translated(relative):
            if not self.where.is_local:
                self._ensure_parent(target)
                with self.fs.open_output_stream(target) as out:
                    out.write(payload)
                return
            # Local disks: a temporary file renamed over the name (rename is atomic there).
            os.makedirs(os.path.dirname(target), exist_ok=True)
            partial = f"{os.path.dirname(target)}/.{os.path.basename(target)}.{uuid.uuid4().hex}"
            with open(partial, "wb") as out:
                out.write(payload)
            os.replace(partial, target)

    def create(self, relative: str, data: bytes | str) -> bool:
        """Create ``relative`` with ``data`` only if no such file exists; False if one does.

        The commit primitive: two writers creating one name, exactly one succeeds, and no
        reader ever sees the file half-written.
        """
        payload = data.encode("utf-8") if isinstance(data, str) else data
        target = self.path(relative)
        with self._translated(relative):
            if self.where.is_local:
                return _create_local(target, payload)
            if self.where.kind == "s3":
                return _create_s3(self.where, self.path(relative), payload, self.options)
        raise StorageUnavailable(
            f"cannot create {self.uri(relative)} exactly once: lakeshift's commits on "
            f"{self.where.scheme}:// stores are not implemented.",
            hint="Keep Delta and Hudi targets on S3, HDFS-mounted or local storage, or use "
            "Iceberg (its commits go through the catalog).",
        )

    def copy(self, source: str, target: str) -> None:
        """Copy ``source`` to ``target`` (both relative). On a local disk a hard link (the
        files are never modified after writing, so sharing the blocks is safe); on object
        stores the store's own server-side copy."""
        src, dst = self.path(source), self.path(target)
        with self._translated(target):
            if self.where.is_local:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                try:
                    os.link(src, dst)
                except FileExistsError:
                    pass
                except OSError:  # another device, or links not allowed: a real copy
                    self.fs.copy_file(src, dst)
                return
            self.fs.copy_file(src, dst)

    def delete(self, relative: str) -> bool:
        """Delete one file; False when it was not there."""
        with self._translated(relative):
            try:
                self.fs.delete_file(self.path(relative))
            except FileNotFoundError:
                return False
        return True

    def delete_dir(self, relative: str) -> None:
        """Delete a directory (a prefix) and everything below it; absent is fine."""
        with self._translated(relative):
            try:
                self.fs.delete_dir(self.path(relative))
            except FileNotFoundError:
                return

    def make_dirs(self, relative: str) -> None:
        """Create a directory where there are directories (object stores have none)."""
        if not self.where.is_object_store:
            with self._translated(relative):
                self.fs.create_dir(self.path(relative), recursive=True)

    @contextlib.contextmanager
    def open_output(self, relative: str) -> Iterator[pa.NativeFile]:
        """A stream that writes ``relative`` whole. Locally a temporary file renamed into
        place on success; on object stores the upload, which becomes visible when complete
        (a failed upload may leave a file no commit names: table formats never read it)."""
        target = self.path(relative)
        with self._translated(relative):
            if not self.where.is_local:
                self._ensure_parent(target)
                with self.fs.open_output_stream(target) as out:
                    yield out
                return
            os.makedirs(os.path.dirname(target), exist_ok=True)
            partial = f"{os.path.dirname(target)}/.{os.path.basename(target)}.{uuid.uuid4().hex}"
            try:
                with self.fs.open_output_stream(partial) as out:
                    yield out
                os.replace(partial, target)
            finally:
                if os.path.exists(partial):
                    os.unlink(partial)

    def _ensure_parent(self, target: str) -> None:
        if self.where.is_object_store:
            return  # object stores have no directories to make
        self.fs.create_dir(target.rsplit("/", 1)[0], recursive=True)

    @contextlib.contextmanager
    def _translated(self, relative: str) -> Iterator[None]:
        """pyarrow's and boto3's errors as lakeshift's, naming the object."""
        try:
            yield
        except FileNotFoundError as e:
            raise NotFound(
                f"{self.uri(relative)} does not exist ({e}).",
                hint="Check the location in the catalog and that the bucket or directory exists.",
            ) from e
        except PermissionError as e:
            raise StorageUnavailable(
                f"access to {self.uri(relative)} was denied ({e}).",
                hint="Grant this identity read/write on the location, or configure other "
                "credentials (AWS environment or profile, fs.s3a.* settings).",
            ) from e
        except OSError as e:
            translated = translate(e)
            if translated is not None:
                raise translated from e
            raise


def _create_local(target: str, payload: bytes) -> bool:
    # Hand-written: POSIX has no "write whole, then appear only if absent" call. A hard link
    # of a finished temporary file is atomic and fails when the name exists.
    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    partial = f"{directory}/.{os.path.basename(target)}.{uuid.uuid4().hex}.tmp"
    with open(partial, "wb") as out:
        out.write(payload)
    try:
        os.link(partial, target)
    except FileExistsError:
        return False
    finally:
        os.unlink(partial)
    return True


def _create_s3(where: Location, path: str, payload: bytes, options: StorageOptions) -> bool:
    from botocore.exceptions import ClientError

    bucket, _, key = path.partition("/")
    try:
        _s3_client(options).put_object(Bucket=bucket, Key=key, Body=payload, IfNoneMatch="*")
    except ClientError as e:
        code = e.response.get("Error", {}).get("Code", "")
        if code in ("PreconditionFailed", "ConditionalRequestConflict", "412"):
            return False
        if code in ("NoSuchBucket",):
            raise NotFound(
                f"bucket {bucket!r} does not exist (creating s3://{path}).",
                hint="Check the target database's location.",
            ) from e
        raise StorageUnavailable(
            f"could not create s3://{path} ({code or e}).",
            hint="Check the credentials and the identity's s3:PutObject permission.",
        ) from e
    return True


_clients: dict[StorageOptions, Any] = {}


def _s3_client(options: StorageOptions) -> Any:
    client = _clients.get(options)
    if client is None:
        import boto3

        client = boto3.client("s3", **options.boto3_s3())
        _clients[options] = client
    return client


#: What object-store clients (pyarrow's AWS SDK, boto3, delta-rs, pyiceberg, Spark's S3A) say when
#: the store refused or could not be reached, and what lakeshift makes of it.
_DENIED = (
    "ACCESS_DENIED",
    "AccessDenied",
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "ExpiredToken",
    "NoCredentialsError",
    "Unable to locate credentials",
    "InvalidObjectState",  # an archived storage class (Glacier): restore it first
)
_UNREACHABLE = (
    "NETWORK_CONNECTION",
    "Could not resolve host",
    "Connection refused",
    # botocore's (lakeshift's S3 listing): EndpointConnectionError, ConnectTimeoutError,
    # ReadTimeoutError, ConnectionClosedError
    "Could not connect to the endpoint URL",
    "Connect timeout on endpoint URL",
    "Read timeout on endpoint URL",
    "Connection was closed before we received a valid response",
    # S3's own answers that a later attempt may not get (after the SDK's retries)
    "AWS Error SlowDown",
    "AWS Error InternalError",
    "AWS Error ServiceUnavailable",
    "AWS Error RequestTimeout",
)
_MISSING = ("NoSuchBucket", "UnknownStoreException", "NO_SUCH_BUCKET")


def unreachable(error: BaseException | str) -> bool:
    """Whether a client's failure (or a message quoting it) says the store could not be
    reached or failed on its side (a later attempt may succeed), rather than refused or did
    not find what was asked."""
    text = str(error)
    return any(word in text for word in _UNREACHABLE) or "HTTP status 5" in text


def translate(error: BaseException) -> LakeshiftError | None:
    """An object-store failure from any client as lakeshift's error (None: not one).

    The clients' own messages name the bucket and key; credentials never appear in them.
    """
    text = str(error)
    first = first_line(error, 600)
    if any(word in text for word in _MISSING):
        return NotFound(
            f"an object store has no such bucket: {first}",
            hint="Check the bucket in the table's (or database's) location in the catalog.",
        )
    if any(word in text for word in _DENIED):
        return StorageUnavailable(
            f"the object store refused access: {first}",
            hint="Check the credentials lakeshift and Spark use (AWS environment or profile, "
            "spark.hadoop.fs.s3a.* settings) and the identity's permissions on the location; "
            "an archived object (Glacier) must be restored first.",
        )
    if unreachable(error):
        return StorageUnavailable(
            f"the object store did not answer properly: {first}",
            hint="Check spark.hadoop.fs.s3a.endpoint (and the region), the network, and the "
            "credentials; then re-run the same command (it resumes).",
        )
    return None
