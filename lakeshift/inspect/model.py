"""The inventory records: small frozen dataclasses that serialise to JSON.

An inventory holds every partition and file of a table at once (100,000 partitions and more),
so its records are compact: slotted, and their texts that repeat from one partition to the next
(formats, SerDe names, parameter names, writer strings, Hive's file names) are one shared string
each, as are equal SerDe parameter mappings (``_shared``). Sharing equal immutable values
changes nothing a reader can see: the records compare, copy and serialise as before.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, TypeVar

INVENTORY_VERSION = 1

SEVERITY_INFO = "info"
SEVERITY_WARNING = "warning"
SEVERITY_ERROR = "error"  # the partition cannot be migrated until it is fixed

_T = TypeVar("_T")


def _intern(text: Any) -> Any:
    """``text`` as the one shared string of its value (``sys.intern``: freed once no record
    holds it); anything not a plain string (None, a str subclass) as it is."""
    return sys.intern(text) if type(text) is str else text


def _interned_mapping(mapping: dict[str, str]) -> dict[str, str]:
    """A copy of ``mapping`` whose keys and values are shared strings, in the same order."""
    return {_intern(k): _intern(v) for k, v in mapping.items()}


#: Equal values met while building records, kept once (bounded: emptied when full, so a long
#: process inspecting many tables keeps only the latest few thousand).
_SHARED: dict[Hashable, Any] = {}
_SHARED_LIMIT = 4096


def _shared(key: Hashable, value: _T) -> _T:
    """The value first met under ``key`` (``value`` when none was): partitions whose SerDe
    parameters are equal then hold one mapping. Safe only for values nobody changes (the
    records are frozen; their mappings are read, never written)."""
    found = _SHARED.get(key)
    if found is None:
        if len(_SHARED) >= _SHARED_LIMIT:
            _SHARED.clear()
        found = _SHARED.setdefault(key, value)
    return found  # type: ignore[no-any-return]


def _set(record: object, name: str, value: object) -> None:
    object.__setattr__(record, name, value)  # a frozen record, while it is being built


def _restore(record: object, state: list[Any]) -> None:
    """Unpickle a slotted record (a Spark task's results reach the driver pickled) through its
    ``__post_init__``, so the driver shares their repeated texts too."""
    for f, value in zip(fields(record), state):  # type: ignore[arg-type]
        _set(record, f.name, value)
    record.__post_init__()  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str

    def __post_init__(self) -> None:
        _set(self, "name", _intern(self.name))
        _set(self, "type", _intern(self.type))

    def __setstate__(self, state: list[Any]) -> None:
        _restore(self, state)


#: FileInfo's texts that repeat across a table's files (not ``error``, which names the file).
_FILE_TEXTS = (
    "path",  # Hive names a file for its task (000000_0): most partitions repeat the names
    "format",
    "compression",
    "writer",
    "writer_version",
    "software_version",
    "calendar",
    "writer_zone",
    "encodings",
)


@dataclass(frozen=True, slots=True)
class FileInfo:
    """One data file of a partition as Hive reads it, with what its footer says.

    Attributes:
        path: path relative to the partition location (``HIVE_UNION_SUBDIR_1/000000_0``).
        format: ``orc``, ``parquet``, ``text`` or ``unknown``.
        columns: top-level physical columns (names as written, Hive type strings); for a text
            file, the partition's declared columns (a text file has no schema of its own).
        rows: row count from the footer; for a text file, the records Hive reads from it
            (``None`` for unreadable files).
        error: why the footer could not be read, if it could not.
    """

    path: str
    size: int
    mtime_ns: int
    format: str
    columns: tuple[Column, ...] = ()
    rows: int | None = None
    stripes: int | None = None
    compression: str | None = None
    writer: str | None = None
    writer_version: str | None = None
    software_version: str | None = None
    error: str | None = None
    calendar: str | None = None  # an ORC footer's calendar: hybrid, proleptic, None if unsaid
    pre_gregorian: bool | None = None  # a date/timestamp minimum before 1582-10-15 (ORC stats)
    sub_micros: bool | None = None  # a timestamp minimum/maximum finer than 1 us (ORC stats)
    zoneless: bool | None = None  # an old ORC writer's file naming no writer time zone
    int96: tuple[str, ...] = ()  # a Parquet file's top-level columns holding INT96 timestamps
    writer_zone: str | None = None  # a Parquet file's writer.time.zone (Hive 3.1+ writers)
    zone_legacy: bool | None = None  # its writer.zone.conversion.legacy (Hive 4 writers)
    # a Parquet file's top-level columns Spark must be asked for as another type than
    # ``columns`` gives (as Hive reads them): UINT_32 and UINT_64 leaves (signed int, bigint
    # there) typed to hold their values (bigint, decimal(20,0)), nanosecond INT64 timestamps
    # as their bigint count (``hive.types.SCAN_TYPES``)
    scanned: tuple[Column, ...] = ()
    # a Parquet file's decimals stored as INT32/INT64: (column, path inside it), lower case
    # (``footers.integer_decimals``)
    integer_decimals: tuple[tuple[str, str], ...] = ()
    # a Parquet file's top-level columns holding INT64 timestamps: (column, finest unit, any
    # adjusted to UTC) (``footers.int64_timestamps``)
    int64_timestamps: tuple[tuple[str, str, bool], ...] = ()
    # a Parquet file's encodings, every column chunk's, comma-separated
    # (``footers.parquet_encodings``)
    encodings: str | None = None

    def __post_init__(self) -> None:
        # _intern and _set inlined, and absent texts (most of a file's) left as they are: one
        # of these is built per file of a table
        for name in _FILE_TEXTS:
            text = getattr(self, name)
            if type(text) is str:
                object.__setattr__(self, name, sys.intern(text))

    def __setstate__(self, state: list[Any]) -> None:
        _restore(self, state)

    @property
    def positional(self) -> bool:
        """Files from old Hive writers name their columns ``_col0.._colN``."""
        return positional_names(self.columns)


def integer_decimals_of(file: FileInfo, column: str) -> frozenset[str]:
    """The paths inside ``column`` (``""`` for itself) where ``file`` stores a decimal as an
    integer (``FileInfo.integer_decimals``)."""
    name = column.lower()
    return frozenset(at for owner, at in file.integer_decimals if owner == name)


def positional_names(columns: tuple[Column, ...]) -> bool:
    """A file's columns as old Hive writers name them: ``_col0.._colN``."""
    # the first name decides for most files, without a generator
    if not columns or not is_positional_name(columns[0].name):
        return False
    return all(is_positional_name(c.name) for c in columns)


def is_positional_name(name: str) -> bool:
    return name.startswith("_col") and name[4:].isdigit()


@dataclass(frozen=True, slots=True)
class ArchivedObject:
    """A data file kept in an archive storage class (S3 Glacier Flexible Retrieval, Deep
    Archive) and not restored: no reader can open it, so it is never read (``archived_objects``
    says whether its partition is refused or migrated without it)."""

    path: str  # relative to the partition location
    size: int
    storage_class: str


@dataclass(frozen=True, slots=True)
class Anomaly:
    """Something a migration must know about, with what to do.

    ``code`` values are stable and documented (README "Anomalies").
    """

    code: str
    severity: str
    message: str
    action: str
    partition: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    """One registered partition with its own storage descriptor."""

    name: str
    values: tuple[str | None, ...]
    location: str
    location_exists: bool
    outside_table_root: bool
    format: str
    input_format: str
    serde: str
    columns: tuple[Column, ...]
    parameters: dict[str, str]
    files: tuple[FileInfo, ...]
    skipped_files: int
    fingerprint: str
    anomalies: tuple[Anomaly, ...] = ()
    serde_parameters: dict[str, str] = field(default_factory=dict)
    #: skipped objects per class (``files.SKIP_KINDS``) and some paths of each
    skipped_kinds: dict[str, int] = field(default_factory=dict)
    skipped_examples: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: paths showing a write under way or a failed one's leftovers (``files.in_progress``)
    in_progress: tuple[str, ...] = ()
    #: newest modification time of anything in the partition's listing: ``follow`` copies a
    #: partition only once it is older than the quiet period
    newest_mtime_ns: int = 0
    #: data files in an archive storage class, not restored: not in ``files``, never read
    archived: tuple[ArchivedObject, ...] = ()

    def __post_init__(self) -> None:
        for name in ("format", "input_format", "serde"):
            _set(self, name, _intern(getattr(self, name)))
        # Partitions of a table name the same parameters (transient_lastDdlTime, numRows, ...)
        # and mostly declare the same SerDe parameters.
        _set(self, "parameters", _interned_mapping(self.parameters))
        serde = _interned_mapping(self.serde_parameters)
        _set(self, "serde_parameters", _shared(("serde", *serde.items()), serde))
        # Most partitions skip nothing: their empty mappings are one (64 bytes each apart).
        for name in ("parameters", "skipped_kinds", "skipped_examples"):
            if not getattr(self, name):
                _set(self, name, _shared(("empty mapping",), getattr(self, name)))

    def __setstate__(self, state: list[Any]) -> None:
        _restore(self, state)

    @property
    def rows(self) -> int:
        """Rows the readable footers count (files whose footer is unreadable count 0)."""
        return sum(f.rows or 0 for f in self.files)

    @property
    def footer_rows(self) -> int | None:
        """Rows by the footers, or ``None`` when some data file's footer could not be read
        (then nobody knows the count without repairing the file: never show a wrong one)."""
        if any(f.rows is None for f in self.files):
            return None
        return self.rows

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def stats_num_rows(self) -> int | None:
        raw = self.parameters.get("numRows")
        try:
            value = int(raw) if raw is not None else None
        except ValueError:
            return None
        return None if value is None or value < 0 else value

    @property
    def migratable(self) -> bool:
        return not any(a.severity == SEVERITY_ERROR for a in self.anomalies)

    @property
    def refusal(self) -> str | None:
        """Why the partition is not migrated (its first error anomaly), or ``None``."""
        errors = [a for a in self.anomalies if a.severity == SEVERITY_ERROR]
        return f"{errors[0].code}: {errors[0].message}" if errors else None


def with_anomalies(partition: PartitionInfo, anomalies: tuple[Anomaly, ...]) -> PartitionInfo:
    """``partition``, just built and not yet shared, given its ``anomalies`` in place (they
    are classified from the record itself). ``dataclasses.replace`` would build the record
    again, and share its texts again: 9 us of a partition's 190 in an inspection."""
    _set(partition, "anomalies", anomalies)
    return partition


def partition_json(partition: PartitionInfo) -> dict[str, Any]:
    """One partition as the inventory JSON holds it."""
    raw = asdict(partition)
    raw["rows"] = partition.rows
    raw["bytes"] = partition.bytes
    return raw


@dataclass(frozen=True)
class TableInventory:
    """What a Hive table really holds, partition by partition (versioned JSON record)."""

    database: str
    table: str
    location: str
    table_type: str
    format: str
    input_format: str
    serde: str
    columns: tuple[Column, ...]
    partition_keys: tuple[Column, ...]
    parameters: dict[str, str]
    partitions: tuple[PartitionInfo, ...]
    unregistered_dirs: tuple[str, ...]
    anomalies: tuple[Anomaly, ...]
    metastore_uri: str
    inspected_at: str
    seconds: float
    version: int = INVENTORY_VERSION
    #: directory listings made for the partitions: one for the table root when an object
    #: store's table was listed at once, one per partition listed alone (``files.TableTree``)
    listings: int = 0

    @property
    def qualified_name(self) -> str:
        return f"{self.database}.{self.table}"

    @property
    def all_anomalies(self) -> list[Anomaly]:
        return [*self.anomalies, *(a for p in self.partitions for a in p.anomalies)]

    def partition(self, name: str) -> PartitionInfo:
        for candidate in self.partitions:
            if candidate.name == name:
                return candidate
        raise KeyError(name)

    def summary(self) -> dict[str, Any]:
        files = [f for p in self.partitions for f in p.files]
        schemas = {tuple(f.columns) for f in files if f.columns}
        return {
            "partitions": len(self.partitions),
            "files": len(files),
            "rows": sum(p.rows for p in self.partitions),
            "bytes": sum(p.bytes for p in self.partitions),
            "physical_schemas": len(schemas),
            "anomalies": len(self.all_anomalies),
            "errors": sum(1 for a in self.all_anomalies if a.severity == SEVERITY_ERROR),
            "skipped": self.skipped_kinds(),
        }

    def skipped_kinds(self) -> dict[str, int]:
        """Objects Hive does not read, per class (``files.SKIP_KINDS``), over all partitions."""
        total: dict[str, int] = {}
        for p in self.partitions:
            for kind, count in p.skipped_kinds.items():
                total[kind] = total.get(kind, 0) + count
        return total

    def to_json(self) -> dict[str, Any]:
        data = self.head_json()
        data["partitions"] = [partition_json(p) for p in self.partitions]
        return data

    def head_json(self) -> dict[str, Any]:
        """:meth:`to_json` without the partitions (their key holds an empty list)."""
        data = asdict(replace(self, partitions=()))
        data["summary"] = self.summary()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableInventory:
        def cols(raw: list[dict[str, str]]) -> tuple[Column, ...]:
            return tuple(Column(**c) for c in raw)

        def anomalies(raw: list[dict[str, Any]]) -> tuple[Anomaly, ...]:
            return tuple(Anomaly(**a) for a in raw)

        partitions = tuple(
            PartitionInfo(
                **{
                    k: v
                    for k, v in p.items()
                    if k
                    not in (
                        "files",
                        "columns",
                        "anomalies",
                        "values",
                        "rows",
                        "bytes",
                        "skipped_examples",
                        "in_progress",
                        "archived",
                    )
                },
                archived=tuple(ArchivedObject(**a) for a in p.get("archived", ())),
                values=tuple(p["values"]),
                skipped_examples={k: tuple(v) for k, v in p.get("skipped_examples", {}).items()},
                in_progress=tuple(p.get("in_progress", ())),
                columns=cols(p["columns"]),
                anomalies=anomalies(p["anomalies"]),
                files=tuple(
                    FileInfo(
                        **{
                            **{k: v for k, v in f.items() if k != "unsigned"},
                            "columns": cols(f["columns"]),
                            "int96": tuple(f.get("int96", ())),
                            # (``unsigned``: inventories written before nanoseconds were read)
                            "scanned": cols(f.get("scanned", f.get("unsigned", []))),
                            "integer_decimals": tuple(
                                (c, at) for c, at in f.get("integer_decimals", ())
                            ),
                            "int64_timestamps": tuple(
                                (c, unit, utc) for c, unit, utc in f.get("int64_timestamps", ())
                            ),
                        }
                    )
                    for f in p["files"]
                ),
            )
            for p in data["partitions"]
        )
        plain = {
            k: v
            for k, v in data.items()
            if k
            not in (
                "partitions",
                "columns",
                "partition_keys",
                "anomalies",
                "summary",
                "unregistered_dirs",
            )
        }
        return cls(
            **plain,
            columns=cols(data["columns"]),
            partition_keys=cols(data["partition_keys"]),
            partitions=partitions,
            unregistered_dirs=tuple(data["unregistered_dirs"]),
            anomalies=anomalies(data["anomalies"]),
        )
