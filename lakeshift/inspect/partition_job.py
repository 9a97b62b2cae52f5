"""One partition's inspection: what it needs (plain records, no Thrift) and the work itself.

The same function runs on the driver's threads and inside Spark tasks (``spread``), so both
give the same :class:`PartitionInfo`. Its imports stay within pyarrow and lakeshift's own
inspection modules: an executor has pyarrow, not the metastore's client.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow.fs as pafs

from lakeshift.inspect.anomalies import Rules, classify_partition
from lakeshift.inspect.files import ListedFile, TableTree, fingerprint, list_partition
from lakeshift.inspect.footer_cache import FooterCache, Key
from lakeshift.inspect.footers import TextPartition, read_footer
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo, with_anomalies
from lakeshift.inspect.table_checks import storage_format
from lakeshift.storage import filesystem_for
from lakeshift.storage.objects import StoredObject
from lakeshift.text.layout import read_as_text

if TYPE_CHECKING:
    from hive_metastore.ttypes import StorageDescriptor


@dataclass(frozen=True)
class TableFacts:
    """What classifying any partition of one table needs from the table itself."""

    root: str
    columns: tuple[Column, ...]
    format: str
    rules: Rules
    parameters: dict[str, str]


@dataclass(frozen=True)
class PartitionJob:
    """One partition as its inspection needs it: its name and values, and from its storage
    descriptor only the location, formats, SerDe and columns (a Thrift object does not travel
    to a Spark task; these plain values do).

    Attributes:
        listed: what the table's one listing (``TableTree``) holds below the location, so the
            partition is not listed again (None: it lists itself).
    """

    name: str
    values: tuple[str | None, ...]
    location: str
    input_format: str
    serde: str
    serde_parameters: dict[str, str]
    columns: tuple[Column, ...]
    parameters: dict[str, str]
    listed: tuple[StoredObject, ...] | None = None


def columns_of(sd: StorageDescriptor | None) -> tuple[Column, ...]:
    """A storage descriptor's declared columns."""
    return tuple(Column(c.name, c.type) for c in (sd.cols if sd and sd.cols else []))


def partition_job(
    name: str,
    values: tuple[str | None, ...],
    sd: StorageDescriptor,
    parameters: dict[str, str],
    tree: TableTree | None = None,
    columns_seen: dict[tuple[tuple[str, str], ...], tuple[Column, ...]] | None = None,
) -> PartitionJob:
    """The job of a partition (or of an unpartitioned table) from its metastore entry.

    ``columns_seen``: declared columns already met in this table, by their names and types,
    so that partitions declaring the same ones share one tuple (most do), built once.
    Measured on the driver: 4 columns held apart cost 430 of a partition's 2,580 bytes, 100
    columns 20,600 bytes."""
    serde_info = sd.serdeInfo
    listed = tree.held(*filesystem_for(sd.location)) if tree is not None else None
    if columns_seen is None:
        columns = columns_of(sd)
    else:
        declared = tuple((c.name, c.type) for c in (sd.cols or ()))
        found = columns_seen.get(declared)
        if found is None:
            found = columns_seen[declared] = columns_of(sd)
        columns = found
    return PartitionJob(
        name=name,
        values=values,
        location=sd.location,
        input_format=sd.inputFormat or "",
        serde=serde_info.serializationLib or "" if serde_info else "",
        serde_parameters=dict(serde_info.parameters or {}) if serde_info else {},
        columns=columns,
        parameters=dict(parameters),
        listed=listed,
    )


def footer_key(
    fs: pafs.FileSystem, root: str, path: str, size: int, mtime_ns: int, reading: Hashable
) -> Key:
    """A file's identity in a :class:`FooterCache` (``reading``: a text partition's SerDe)."""
    return (f"{fs.type_name}:{root.rstrip('/')}/{path}", size, mtime_ns, reading)


def _footer(
    fs: pafs.FileSystem,
    root: str,
    listed: ListedFile,
    text: TextPartition | None,
    cache: FooterCache | None,
) -> FileInfo:
    if cache is None:
        return read_footer(fs, root, listed, text)
    reading = (
        None
        if text is None
        else (
            tuple(sorted(text.serde_parameters.items())),
            tuple(sorted(text.table_parameters.items())),
            text.columns,
            text.container,
        )
    )
    key = footer_key(fs, root, listed.path, listed.size, listed.mtime_ns, reading)
    return cache.get(key, lambda: read_footer(fs, root, listed, text))


def inspect_partition(
    job: PartitionJob, table: TableFacts, cache: FooterCache | None = None
) -> PartitionInfo:
    """List one partition, read its files' footers and classify it."""
    fs, root = filesystem_for(job.location)
    listing = list_partition(fs, root, TableTree.restored(job.listed))
    fmt = storage_format(job.input_format, job.serde)
    text = (
        TextPartition(job.serde_parameters, table.parameters, job.columns, fmt)
        if read_as_text(fmt, job.serde)
        else None
    )
    files = tuple(_footer(fs, root, f, text, cache) for f in listing.files)
    base = root.rstrip("/")
    partition = PartitionInfo(
        name=job.name,
        values=job.values,
        location=job.location,
        location_exists=listing.exists,
        outside_table_root=not (base + "/").startswith(table.root.rstrip("/") + "/"),
        format=fmt,
        input_format=job.input_format,
        serde=job.serde,
        columns=job.columns,
        parameters=job.parameters,
        files=files,
        skipped_files=listing.skipped,
        fingerprint=fingerprint(listing.files),
        serde_parameters=job.serde_parameters,
        skipped_kinds=listing.skipped_kinds,
        skipped_examples=listing.skipped_examples,
        in_progress=listing.in_progress,
        newest_mtime_ns=listing.newest_mtime_ns,
        archived=listing.archived,
    )
    anomalies = classify_partition(
        partition, table.columns, table.format, table.rules, listing.error
    )
    return with_anomalies(partition, tuple(anomalies))
