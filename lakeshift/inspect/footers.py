"""Read file footers (ORC, Parquet) with pyarrow, without reading data."""

from __future__ import annotations

import json
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.orc as orc
import pyarrow.parquet as pq

from lakeshift.errors import LakeshiftError
from lakeshift.hive.types import (
    ORC_TYPES,
    PARQUET_TYPES,
    SCAN_TYPES,
    from_arrow,
    stored_type,
)
from lakeshift.inspect.codecs import PARQUET_NAMES
from lakeshift.inspect.files import ListedFile
from lakeshift.inspect.model import Column, FileInfo
from lakeshift.inspect.orc_tail import (
    OLD_WRITER_VERSIONS,
    OrcFooter,
    OrcTail,
    read_orc_footer,
    tail_facts,
)
from lakeshift.text.layout import TextLayout
from lakeshift.text.lines import compression_of, count_records


@dataclass(frozen=True)
class TextPartition:
    """What reading a text partition's files needs: its SerDe and table parameters and its
    declared columns. The layout is built once for all its files (a bad parameter raises for
    each file, which then records the error)."""

    serde_parameters: dict[str, str]
    table_parameters: dict[str, str]
    columns: tuple[Column, ...]
    container: str = "text"  # or sequence

    @cached_property
    def layout(self) -> TextLayout:
        return TextLayout.from_parameters(
            self.serde_parameters, self.table_parameters, self.container
        )


def sniff_format(handle: pa.NativeFile, size: int) -> str:
    """ORC files start with ``ORC``; Parquet files end with ``PAR1``; anything else is text."""
    head = handle.read(4)
    if head[:3] == b"ORC":
        return "orc"
    if size >= 8:
        handle.seek(size - 4)
        if handle.read(4) == b"PAR1":
            return "parquet"
    return "text"


#: What the hand-written tail reader fails with on a tail it cannot decode (pyarrow read the
#: footer, so only the facts it does not give stay unknown then).
_TAIL_ERRORS = (ValueError, IndexError, OSError, pa.ArrowException, zlib.error)


def _orc_footer(handle: pa.NativeFile, size: int) -> OrcFooter | None:
    try:  # with the stripes' entries: counted, and an old writer's first one is read
        return read_orc_footer(handle, size, stripes=True)
    except _TAIL_ERRORS:
        return None


def _tail(
    handle: pa.NativeFile, footer: OrcFooter | None, dates: bool, stripe_zone: bool
) -> OrcTail:
    if footer is None:
        return OrcTail(None, None)
    try:
        return tail_facts(handle, footer, dates=dates, stripe_zone=stripe_zone)
    except _TAIL_ERRORS:
        return OrcTail(None, None)


class _Named(NamedTuple):
    """What pyarrow's ORC reader says of a file beyond its footer's counts: its schema's facts
    (``_schema_facts``' columns and dates) and its names for the file's compression, writer and
    versions."""

    columns: tuple[Column, ...]
    dates: bool
    compression: str
    writer: str
    writer_version: str
    software_version: str


class _ReaderFacts:
    """pyarrow's answers for ORC files (:class:`_Named`) by the footer bytes they derive from
    (``OrcFooter.types`` and ``OrcFooter.naming``), the most recently used ``size`` of them.
    A table's files mostly share a schema and a writer, so a file whose footer matches one
    already read is described from lakeshift's own decoding of its footer, without opening
    pyarrow's reader on it as well (which parses the same footer again and converts the
    schema to Arrow's: 12 of a file's 60 us on a local disk). Equal bytes are equal answers,
    so the names stay pyarrow's own; only rows and stripes are counted from the footer."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._facts: OrderedDict[tuple[Any, ...], _Named] = OrderedDict()
        self._lock = threading.Lock()  # the driver reads footers on several threads

    def known(self, footer: OrcFooter | None) -> _Named | None:
        """The answers for a file of this footer, when a file of equal footer bytes was read
        through pyarrow before (and its stripes were counted)."""
        if footer is None or footer.stripes is None:
            return None
        key = (footer.types, footer.naming)
        with self._lock:
            facts = self._facts.get(key)
            if facts is not None:
                self._facts.move_to_end(key)
            return facts

    def learn(self, reader: orc.ORCFile, footer: OrcFooter | None) -> _Named:
        """pyarrow's answers for the file open as ``reader`` (kept by ``footer``'s bytes)."""
        columns, dates, _ = _schema_facts(reader.schema)
        facts = _Named(
            columns,
            dates,
            str(reader.compression),
            _writer(reader, footer),
            str(reader.writer_version),
            str(reader.software_version),
        )
        if footer is not None:
            with self._lock:
                self._facts[(footer.types, footer.naming)] = facts
                if len(self._facts) > self._size:
                    self._facts.popitem(last=False)
        return facts


_orc_readers = _ReaderFacts()

#: ORC's writer ids (``Footer.writer``) that pyarrow does not name: it raises on them
#: (``pyarrow._orc``'s map stops at Trino's), though the file reads. cuDF writes 5 (Spark
#: RAPIDS' ORC files).
_UNNAMED_WRITERS = {5: "CUDF"}


def _writer(reader: orc.ORCFile, footer: OrcFooter | None) -> str:
    """pyarrow's name for the file's writer; for a writer id it does not know, ORC's own
    name of it, or ``UNKNOWN_WRITER_<id>``."""
    try:
        return str(reader.writer)
    except ValueError:
        number = footer.writer if footer is not None else None
        if number is None:
            raise
        return _UNNAMED_WRITERS.get(number, f"UNKNOWN_WRITER_{number}")


def _has_dates(kind: pa.DataType) -> bool:
    if pa.types.is_date(kind) or pa.types.is_timestamp(kind):
        return True
    return any(_has_dates(kind.field(i).type) for i in range(kind.num_fields))


@lru_cache(maxsize=256)
def _schema_facts(
    schema: pa.Schema, parquet: bool = False
) -> tuple[tuple[Column, ...], bool, tuple[Column, ...]]:
    """A file schema's columns as Hive types, whether any date or timestamp is in it, and
    (Parquet, read with INT96 timestamps at microseconds) its columns Spark scans as another
    type (``FileInfo.scanned``). The files of a table mostly share a few schemas: each is
    translated once."""
    how = PARQUET_TYPES if parquet else ORC_TYPES
    columns = tuple(Column(f.name, str(from_arrow(f.type, how))) for f in schema)
    scanned = tuple(
        Column(f.name, str(from_arrow(f.type, SCAN_TYPES)))
        for f in schema
        if parquet and from_arrow(f.type, SCAN_TYPES) != from_arrow(f.type, how)
    )
    return columns, any(_has_dates(f.type) for f in schema), scanned


#: Files up to this size are read whole, in one request, from object stores: reading a footer
#: by ranges there costs a request per read (the format sniff, the ORC postscript and footer,
#: lakeshift's own tail statistics).
WHOLE_READ_BYTES = 8 * 1024 * 1024


def open_listed(fs: pafs.FileSystem, path: str, size: int) -> pa.NativeFile:
    """A random-access reader of a listed file (small ones on object stores: in memory)."""
    if fs.type_name in ("s3", "gcs", "abfs") and size <= WHOLE_READ_BYTES:
        with fs.open_input_stream(path) as stream:
            return pa.BufferReader(stream.read())
    return fs.open_input_file(path)


def read_footer(
    fs: pafs.FileSystem, root: str, listed: ListedFile, text: TextPartition | None = None
) -> FileInfo:
    """Describe one file from its footer; an unreadable file gets ``error`` set, never raises.

    ``text``: the partition is a text partition; a file that is not ORC or Parquet is then
    read as Hive reads it (its records counted; its columns are the partition's).
    """
    full = f"{root.rstrip('/')}/{listed.path}"
    base: dict[str, Any] = {"path": listed.path, "size": listed.size, "mtime_ns": listed.mtime_ns}
    try:
        with open_listed(fs, full, listed.size) as handle:
            fmt = sniff_format(handle, listed.size)
            if fmt == "orc":
                footer = _orc_footer(handle, listed.size)
                named = _orc_readers.known(footer)
                if named is not None and footer is not None:
                    rows, stripes = footer.rows, footer.stripes
                else:  # pyarrow's reader reads the file (and raises on a corrupt one)
                    reader = orc.ORCFile(handle)
                    named = _orc_readers.learn(reader, footer)
                    rows, stripes = reader.nrows, reader.nstripes
                # only old writers' files may lack the writer's zone (their timestamps'
                # reading then depends on Hive's): only theirs are looked at
                old = named.writer_version in OLD_WRITER_VERSIONS
                tail = _tail(handle, footer, named.dates, stripe_zone=named.dates and old)
                return FileInfo(
                    **base,
                    format="orc",
                    columns=named.columns,
                    rows=rows,
                    stripes=stripes,
                    compression=named.compression,
                    writer=named.writer,
                    writer_version=named.writer_version,
                    software_version=named.software_version,
                    calendar=tail.calendar,
                    pre_gregorian=tail.pre_gregorian,
                    sub_micros=tail.sub_micros,
                    zoneless=tail.zoneless,
                )
            if fmt == "parquet":
                # INT96 timestamps at microseconds: only INT64 ones are nanoseconds then
                parquet = pq.ParquetFile(handle, coerce_int96_timestamp_unit="us")
                meta = parquet.metadata
                columns, _, scanned = _schema_facts(parquet.schema_arrow, parquet=True)
                leaves = parquet_leaves(parquet)
                return FileInfo(
                    **base,
                    format="parquet",
                    columns=columns,
                    scanned=scanned,
                    rows=meta.num_rows,
                    stripes=meta.num_row_groups,
                    writer=meta.created_by,
                    compression=parquet_codecs(meta),
                    encodings=parquet_encodings(meta),
                    int96=int96_columns(leaves),
                    integer_decimals=integer_decimals(leaves),
                    int64_timestamps=int64_timestamps(leaves),
                    sub_micros=parquet_sub_micros(leaves, meta),
                    writer_zone=writer_zone(meta),
                    zone_legacy=zone_legacy(meta),
                )
        if fmt == "text" and text is not None:
            return FileInfo(
                **base,
                format=text.container,
                columns=text.columns,
                rows=count_records(fs, full, text.layout),
                compression=compression_of(listed.path),
            )
        return FileInfo(**base, format="text")
    except (OSError, pa.ArrowException, ValueError, EOFError, LakeshiftError) as e:
        return FileInfo(**base, format="unknown", error=f"{type(e).__name__}: {e}")


class Leaf(NamedTuple):
    """One leaf column of a Parquet file: its top-level column, its path inside it (``""``,
    ``.field``, ``[]``, ``.key``, ``.value``), its number among the file's leaves and its
    Parquet schema."""

    column: str
    path: str
    number: int
    schema: pq.ColumnSchema


def parquet_leaves(parquet: pq.ParquetFile) -> list[Leaf]:
    """A Parquet file's leaf columns, in schema order (as Parquet numbers them)."""
    leaves: list[Leaf] = []
    for field in parquet.schema_arrow:
        for path in _leaf_paths(field.type):
            at = len(leaves)
            leaves.append(Leaf(field.name, path, at, parquet.schema.column(at)))
    return leaves


def int96_columns(leaves: list[Leaf]) -> tuple[str, ...]:
    """A Parquet file's top-level columns holding an INT96 leaf (of its ``parquet_leaves``)."""
    found = (leaf.column for leaf in leaves if leaf.schema.physical_type == "INT96")
    return tuple(dict.fromkeys(found))


def parquet_codecs(meta: pq.FileMetaData) -> str | None:
    """A Parquet file's compression codecs, by Parquet's names, comma-separated (each column
    chunk names its own; writers use one per file, but nothing says so)."""
    found = {
        meta.row_group(g).column(c).compression
        for g in range(meta.num_row_groups)
        for c in range(meta.num_columns)
    }
    return ",".join(sorted(PARQUET_NAMES.get(n, n) for n in found)) or None


def parquet_encodings(meta: pq.FileMetaData) -> str | None:
    """A Parquet file's encodings, every column chunk's, comma-separated."""
    found = {
        encoding
        for g in range(meta.num_row_groups)
        for c in range(meta.num_columns)
        for encoding in meta.row_group(g).column(c).encodings
    }
    return ",".join(sorted(found)) or None


def integer_decimals(leaves: list[Leaf]) -> tuple[tuple[str, str], ...]:
    """A Parquet file's decimals stored as ``INT32``/``INT64`` (as Spark writes those of up to
    18 digits; Hive 1.2-3.1 read a decimal only from binary): each as its top-level column and
    its path inside it, lower case, as ``parquet_reading.parquet_unreadable`` spells it (of
    its ``parquet_leaves``)."""
    return tuple(
        (leaf.column.lower(), leaf.path.lower())
        for leaf in leaves
        if leaf.schema.physical_type in ("INT32", "INT64")
        and leaf.schema.converted_type == "DECIMAL"
    )


#: Parquet's time units as ``int64_timestamps`` names them
_UNITS = {"milliseconds": "millis", "microseconds": "micros", "nanoseconds": "nanos"}


def _int64_timestamp(leaf: Leaf) -> tuple[str, bool] | None:
    """An ``INT64`` timestamp leaf's unit and whether it is adjusted to UTC, or None."""
    column = leaf.schema
    if column.physical_type != "INT64" or column.logical_type.type != "TIMESTAMP":
        return None
    facts = json.loads(column.logical_type.to_json())
    unit = _UNITS.get(str(facts.get("timeUnit")), "millis")
    return unit, bool(facts.get("isAdjustedToUTC", True))


def int64_timestamps(leaves: list[Leaf]) -> tuple[tuple[str, str, bool], ...]:
    """A Parquet file's top-level columns holding an ``INT64`` timestamp (not ``INT96``), each
    with its finest unit (``millis``, ``micros``, ``nanos``) and whether any is adjusted to UTC
    (``isAdjustedToUTC``, and every legacy ``TIMESTAMP_MILLIS``/``MICROS``): Hive 4 shows such
    a value in its JVM's zone, Spark as the instant (lakeshift's sessions run in UTC). Of the
    file's ``parquet_leaves``."""
    found: dict[str, tuple[str, bool]] = {}
    for leaf in leaves:
        facts = _int64_timestamp(leaf)
        if facts is None:
            continue
        unit, adjusted = facts
        seen_unit, seen_adjusted = found.get(leaf.column, ("millis", False))
        finest = max(seen_unit, unit, key=("millis", "micros", "nanos").index)
        found[leaf.column] = (finest, seen_adjusted or adjusted)
    return tuple((name, unit, adjusted) for name, (unit, adjusted) in found.items())


def parquet_sub_micros(leaves: list[Leaf], meta: pq.FileMetaData) -> bool | None:
    """Whether a Parquet file's statistics show a nanosecond ``INT64`` timestamp finer than a
    microsecond (a row group's minimum or maximum), as ``orc_tail`` reads ORC's: None where
    such a column has no statistics, False where the file holds none. (``INT96`` columns have
    no statistics Parquet defines: validation counts their nanoseconds by reading them.) Of the
    file's ``parquet_leaves`` and its metadata."""
    facts = {leaf.number: _int64_timestamp(leaf) for leaf in leaves}
    nanos = [number for number, held in facts.items() if held and held[0] == "nanos"]
    unknown = False
    for group in range(meta.num_row_groups):
        for number in nanos:
            stats = meta.row_group(group).column(number).statistics
            if stats is None or not stats.has_min_max:
                unknown = True
                continue
            if stats.min_raw % 1000 or stats.max_raw % 1000:
                return True
    return None if unknown else False


def _leaf_paths(kind: pa.DataType, at: str = "") -> list[str]:
    kind = stored_type(kind)
    if pa.types.is_struct(kind):
        return [p for i in range(kind.num_fields)
                for p in _leaf_paths(kind.field(i).type, f"{at}.{kind.field(i).name}")]  # fmt: skip
    if pa.types.is_map(kind):
        return _leaf_paths(kind.key_type, f"{at}.key") + _leaf_paths(kind.item_type, f"{at}.value")
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _leaf_paths(kind.value_type, f"{at}[]")
    return [at]


def writer_zone(meta: pq.FileMetaData) -> str | None:
    """A Parquet file's ``writer.time.zone`` (Hive 3.1+ writers record their zone there)."""
    zone = (meta.metadata or {}).get(b"writer.time.zone")
    return zone.decode("utf-8", "replace") if zone else None


def zone_legacy(meta: pq.FileMetaData) -> bool | None:
    """A Parquet file's ``writer.zone.conversion.legacy`` (Hive 4 writers record whether Hive
    converts its INT96 values by java.util's zones), or None where it does not say."""
    legacy = (meta.metadata or {}).get(b"writer.zone.conversion.legacy")
    return None if legacy is None else legacy.decode("utf-8", "replace").lower() == "true"
