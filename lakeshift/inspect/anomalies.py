"""Classify what makes a partition's migration non-trivial (pure logic, unit-tested).

Each anomaly has a stable ``code``, a severity and the action to take. ``error`` severity means
the partition is not migrated until the cause is fixed; the others are handled by lakeshift.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from statistics import median

from lakeshift.config import CALENDAR_RULES
from lakeshift.errors import RefusedInput
from lakeshift.hive import projection
from lakeshift.hive.conversions import numbers_as_timestamps, unreadable
from lakeshift.hive.parquet_reading import keys_rebuilt, parquet_unreadable
from lakeshift.hive.semantics import HiveSemantics
from lakeshift.hive.types import parse_hive_type
from lakeshift.inspect.archived import archived_anomaly
from lakeshift.inspect.codecs import unreadable_codec, unreadable_encoding
from lakeshift.inspect.model import (
    SEVERITY_ERROR,
    SEVERITY_INFO,
    SEVERITY_WARNING,
    Anomaly,
    Column,
    FileInfo,
    PartitionInfo,
    integer_decimals_of,
)
from lakeshift.inspect.orc_tail import proleptic_writer
from lakeshift.inspect.version_sensitivity import version_sensitivity
from lakeshift.inspect.zone_sensitivity import zone_sensitivity
from lakeshift.listing import first_few
from lakeshift.metastore.partition_names import DEFAULT_PARTITION_NAME
from lakeshift.text.layout import read_as_text


@dataclass(frozen=True)
class Rules:
    """Settings that change how partitions are classified."""

    hive: HiveSemantics = field(default_factory=HiveSemantics)  # how the user's Hive reads it
    small_file_bytes: int = 8 * 1024 * 1024
    small_file_count: int = 16  # small files in one partition that make it `small-files`
    many_files: int = 1000  # data files in a table that make it `many-small-files` if small
    zone_chosen: bool = False  # hive_time_zone was set (even to UTC), not left to default
    archived_objects: str = "refuse"  # archived objects: refuse the partition, or skip them

    @property
    def calendar(self) -> str:  # whose reading of dates before 1582 is reproduced
        return self.hive.calendar


#: A float, double or decimal read as a timestamp: Hive's converter and ORC's schema evolution
#: take the nanoseconds from the number's digits, the targets keep microseconds.
TIMESTAMP_FROM_NUMBER = "timestamp-from-number"
_FINER_ACTION = (
    "Migrated at microseconds. Both validation levels count the values with digits past a "
    "microsecond in top-level columns and report their partitions as differing unless "
    "timestamp_precision = truncate; inside a struct, array or map they are not counted: "
    "check such fields (docs/guide/hive-versions.md, 'Timestamps finer than a microsecond')."
)


_DRIFT = frozenset(
    {
        "file-extra-columns",
        "file-missing-columns",
        "file-reordered-columns",
        "file-type-differs",
        "file-type-incompatible",
        "name-case-differs",
        "positional-files",
        "partition-columns-ignored",
    }
)


def _key(name: str, case_sensitive: bool) -> str:
    return name if case_sensitive else name.lower()


def _anomaly(
    p: PartitionInfo, code: str, severity: str, message: str, action: str, **details: object
) -> Anomaly:
    return Anomaly(
        code=code,
        severity=severity,
        message=message,
        action=action,
        partition=p.name,
        details=dict(details),
    )


def classify_partition(
    p: PartitionInfo,
    table_columns: Sequence[Column],
    table_format: str,
    rules: Rules,
    listing_error: str | None = None,
) -> list[Anomaly]:
    """Every anomaly of one partition, in a stable order."""
    found: list[Anomaly] = []
    if listing_error:
        found.append(
            _anomaly(
                p,
                "unreadable-directory",
                SEVERITY_ERROR,
                f"cannot list {p.location}: {listing_error}",
                "Grant read access to the directory, then inspect again.",
            )
        )
    if not p.location_exists:
        found.append(
            _anomaly(
                p,
                "missing-directory",
                SEVERITY_WARNING,
                f"registered partition has no directory at {p.location}; Hive reads it as empty.",
                "Nothing to migrate; drop the partition in Hive if it is stale.",
            )
        )
    elif not p.files and not p.archived and not listing_error:
        found.append(
            _anomaly(
                p,
                "empty-partition",
                SEVERITY_INFO,
                "partition holds no data files; it migrates as empty.",
                "None needed.",
            )
        )
    if DEFAULT_PARTITION_NAME in p.name:
        found.append(
            _anomaly(
                p,
                "null-partition",
                SEVERITY_INFO,
                "partition value is NULL (__HIVE_DEFAULT_PARTITION__).",
                "Migrated with a NULL partition value, as Hive shows it.",
            )
        )
    if p.outside_table_root:
        found.append(
            _anomaly(
                p,
                "outside-table-root",
                SEVERITY_INFO,
                f"partition is stored outside the table root at {p.location}.",
                "Migrated from its own location; do not delete it before cutover.",
            )
        )
    if p.format != table_format:
        readable = readable_format(p)
        found.append(
            _anomaly(
                p,
                "partition-format-differs",
                SEVERITY_WARNING if readable else SEVERITY_ERROR,
                f"partition is stored as {p.format} ({p.serde or p.input_format}), the table as "
                f"{table_format}.",
                "Read with the partition's own format, as Hive reads it."
                if readable
                else "Not migrated: lakeshift reads ORC, Parquet and LazySimpleSerDe text "
                "partitions; convert it in Hive.",
            )
        )
    archived = archived_anomaly(p, rules.archived_objects)
    if archived is not None:
        found.append(archived)
    if p.skipped_files:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(p.skipped_kinds.items()))
        found.append(
            _anomaly(
                p,
                "skipped-files",
                SEVERITY_INFO,
                f"{p.skipped_files} object(s) skipped, as Hive skips them"
                + (f" ({kinds})" if kinds else "")
                + ".",
                "None needed.",
                count=p.skipped_files,
                kinds=dict(p.skipped_kinds),
                examples={k: list(v) for k, v in p.skipped_examples.items()},
                writes=list(p.in_progress),
            )
        )
    found.extend(_file_anomalies(p, table_columns, rules))
    found.extend(_calendar_anomalies(p, rules))
    found.extend(_precision_anomalies(p))
    found.extend(_zone_anomalies(p, rules))
    if readable_format(p):
        found.extend(zone_sensitivity(p, table_columns, rules.hive, rules.zone_chosen))
    if rules.hive.reads_into_table(p.format):
        found.extend(_declared_columns_ignored(p, table_columns, rules))
    else:
        found.extend(_partition_vs_table(p, table_columns))
    # Where the table's columns read the files by name and nothing differs from them, every
    # Hive version reads the partition alike (skipping the comparison keeps inspect fast).
    hive = rules.hive
    differs = (
        not hive.reads_into_table(p.format)
        or hive.orc_positional
        or any(a.code in _DRIFT for a in found)
    )
    found.extend(version_sensitivity(p, table_columns, hive, files=differs))
    found.extend(_stale_array_tails(p, table_columns, table_format, hive))
    found.extend(_size_and_stats(p, rules))
    return found


def _precision_anomalies(p: PartitionInfo) -> list[Anomaly]:
    """ORC files and Parquet ``INT64`` nanosecond columns whose statistics show timestamps
    finer than the microseconds targets keep."""
    finer = [f for f in p.files if f.sub_micros and not f.error]
    if not finer:
        return []
    return [
        _anomaly(
            p,
            "timestamp-nanoseconds",
            SEVERITY_WARNING,
            f"{len(finer)} file(s) hold timestamps finer than a microsecond (their statistics "
            "say so; Hive shows the nanoseconds), which Iceberg, Delta and Hudi tables cannot "
            "keep.",
            "Migrated truncated to microseconds; validation reports the partition as differing "
            "until you accept it (docs/guide/hive-versions.md, 'Timestamps finer than a "
            "microsecond').",
            files=[f.path for f in finer],
        )
    ]


def _zone_anomalies(p: PartitionInfo, rules: Rules) -> list[Anomaly]:
    """ORC files naming no writer time zone, whose timestamps Hive reads in its JVM's zone."""
    zoneless = [f for f in p.files if f.format == "orc" and f.zoneless and not f.error]
    if not zoneless:
        return []
    zone = rules.hive.time_zone
    return [
        _anomaly(
            p,
            "writer-zone-missing",
            SEVERITY_WARNING,
            f"{len(zoneless)} ORC file(s) name no writer time zone (writers before Hive 1.0): "
            "every ORC reader takes their timestamps as written in its own JVM's zone, so "
            "what Hive shows depends on the zone it runs in (a summer value written in New "
            "York reads an hour earlier in UTC).",
            f"Read as a Hive running in {zone} reads them; set hive_time_zone to your Hive's "
            "JVM zone (user.timezone) if it differs.",
            files=[f.path for f in zoneless],
        )
    ]


def _calendar_anomalies(p: PartitionInfo, rules: Rules) -> list[Anomaly]:
    """ORC files holding dates or timestamps before 1582-10-15, by how their days are read."""
    old = [f for f in p.files if f.format == "orc" and f.pre_gregorian and not f.error]
    if not old:
        return []
    found = []
    shifted = [f for f in old if f.calendar != "proleptic" and proleptic_writer(f.writer)]
    if shifted and rules.calendar != "proleptic":  # Apache Hive 3.1 shows them as written
        found.append(
            _anomaly(
                p,
                "calendar-shifted-dates",
                SEVERITY_WARNING,
                f"{len(shifted)} file(s) written by {shifted[0].writer} hold dates or timestamps "
                "before 1582-10-15 in the proleptic calendar but say no calendar, so Hive and "
                "Spark count their days as hybrid: such values show shifted from what the "
                "writer was given (1000-01-01 shows as 0999-12-27).",
                "Migrated as Hive shows them; check these values in Hive before switching.",
                files=[f.path for f in shifted],
            )
        )
    proleptic = [f for f in old if f.calendar == "proleptic"]
    hybrid = [f for f in old if f.calendar != "proleptic"]
    follows = CALENDAR_RULES[rules.calendar]
    found.append(
        _anomaly(
            p,
            "calendar-before-1582",
            SEVERITY_INFO,
            f"{len(old)} file(s) hold dates or timestamps before 1582-10-15 ({len(hybrid)} "
            f"counted in the hybrid Julian/Gregorian calendar, {len(proleptic)} in the "
            f"proleptic Gregorian one); lakeshift shows them as {follows} does.",
            'Set calendar to the Hive your users read this table with: "hive2" (Hive 2.x), '
            '"proleptic" (Apache Hive 3.1: files Hive 2.x wrote show shifted) or "hive3" '
            "(Hive 4, Spark, Hive 3.1 builds with HIVE-22589).",
            hybrid=len(hybrid),
            proleptic=len(proleptic),
        )
    )
    return found


def readable_format(p: PartitionInfo) -> bool:
    """ORC, Parquet, and text or SequenceFile read by LazySimpleSerDe (not CSV, JSON or regex
    SerDes)."""
    return p.format in ("orc", "parquet") or read_as_text(p.format, p.serde)


def _file_anomalies(
    p: PartitionInfo, table_columns: Sequence[Column], rules: Rules
) -> list[Anomaly]:
    found: list[Anomaly] = []
    corrupt = [f for f in p.files if f.error]
    if corrupt:
        found.append(
            _anomaly(
                p,
                "corrupt-file",
                SEVERITY_ERROR,
                f"{len(corrupt)} file(s) cannot be read: {p.location.rstrip('/')}/"
                f"{corrupt[0].path}: {corrupt[0].error}",
                _SOUND_BUT_UNREAD
                if all(f.error.startswith(RefusedInput.__name__) for f in corrupt if f.error)
                else "Repair or remove the file in Hive (on an object store, restore an archived "
                "object first), then inspect again; the partition is skipped.",
                files=[f.path for f in corrupt],
            )
        )
    wrong = [f for f in p.files if not f.error and f.format != p.format]
    if wrong:
        found.append(
            _anomaly(
                p,
                "file-format-differs",
                SEVERITY_ERROR,
                f"{len(wrong)} file(s) are not {p.format}: {wrong[0].path} is {wrong[0].format}.",
                "Hive cannot read them either; remove them or fix the partition's format.",
                files=[f.path for f in wrong],
            )
        )
    version = rules.hive.version
    unopenable = (
        (
            "compression-unreadable",
            "a codec",
            lambda f: unreadable_codec(f.format, f.compression, rules.hive),
            "with a codec your Hive reads (SNAPPY, ZLIB or GZIP)",
        ),
        (
            "encoding-unreadable",
            "an encoding",
            lambda f: unreadable_encoding(f.format, f.encodings, version),
            "without it (pyarrow: use_byte_stream_split=False, its default)",
        ),
    )
    for code, what, why_not, rewrite in unopenable:
        unopened = [(f, why) for f in p.files if not f.error and (why := why_not(f))]
        if unopened:
            found.append(
                _anomaly(
                    p,
                    code,
                    SEVERITY_ERROR,
                    f"{len(unopened)} file(s) use {what} your Hive cannot open: "
                    f"{unopened[0][0].path} is {unopened[0][1]}.",
                    "Not migrated (every Hive query of the partition fails too, or, as the "
                    f"message says, lakeshift cannot read it): rewrite the files {rewrite}, or "
                    "set hive_version to the Hive your users run if it opens them; then inspect "
                    "again.",
                    files=[f.path for f, _ in unopened],
                )
            )
    readable = [f for f in p.files if not f.error and f.format == p.format and f.columns]
    positional = [f for f in readable if f.positional]
    if positional:
        found.append(
            _anomaly(
                p,
                "positional-files",
                SEVERITY_WARNING,
                f"{len(positional)} file(s) name columns _col0.._colN (old Hive writer); "
                "Hive maps them by position.",
                "Mapped by position onto the "
                + ("table's" if rules.hive.reads_into_table(p.format) else "partition's")
                + " columns.",
                files=[f.path for f in positional],
            )
        )
    diffs: dict[str, list[str]] = {}
    into_table = rules.hive.reads_into_table(p.format)
    whose = "table" if into_table else "partition"
    for f in readable:
        by_position = projection.by_position(f, rules.hive)
        sensitive = projection.name_match_is_case_sensitive(f.format, rules.hive)
        wanted = table_columns if into_table else p.columns
        if projection.asks_table_names(f.format):
            wanted = [projection.asked(d, t) for d, t in zip(p.columns, table_columns)]
        legacy_orc = f.format == "orc" and rules.hive.orc_sql_dates  # ORC 1.3-1.5 reads it
        compared = _file_vs_columns(f.columns, tuple(wanted), by_position, sensitive, legacy_orc)
        for code, detail in compared:
            diffs.setdefault(code, []).append(f"{f.path}: {detail}")
        if projection.asks_table_names(f.format):
            for detail in _parquet_refusals(p, f, table_columns, rules.hive.version):
                diffs.setdefault("file-type-incompatible", []).append(f"{f.path}: {detail}")
            for detail in _parquet_map_keys(p, f, table_columns, rules.hive.version):
                diffs.setdefault("map-keys-as-written", []).append(f"{f.path}: {detail}")
    texts = {
        "file-extra-columns": (
            SEVERITY_INFO,
            f"file holds columns the {whose} does not declare",
            "Ignored, as Hive ignores them.",
        ),
        "file-missing-columns": (
            SEVERITY_WARNING,
            f"file lacks columns the {whose} declares",
            "Read as NULL, as Hive does.",
        ),
        "name-case-differs": (
            SEVERITY_WARNING,
            f"file column names differ from the {whose}'s only in letter case",
            f"Hive {rules.hive.version} matches ORC names case-sensitively "
            "(orc.schema.evolution.case.sensitive): they read NULL, as there."
            if into_table and rules.hive.case_sensitive
            else "Matched regardless of case, as Hive reads them.",
        ),
        "file-reordered-columns": (
            SEVERITY_INFO,
            "file orders columns differently",
            "Matched by name.",
        ),
        "file-type-differs": (
            SEVERITY_WARNING,
            f"file column types differ from the {whose}'s",
            "Converted as Hive converts on read (unconvertible values: NULL).",
        ),
        "file-type-incompatible": (
            SEVERITY_ERROR,
            f"file column types Hive's reader cannot convert to the {whose}'s",
            "Not migrated (Hive fails on this partition too, or shows other values than the "
            "file holds): rewrite the file or fix the declared type in Hive, then inspect again.",
        ),
        "map-keys-as-written": (
            SEVERITY_WARNING,
            "Parquet map keys Hive builds for the table's key type, which lakeshift reads as "
            "the file holds them",
            "Migrated with the file's keys: where Hive's rebuilt keys collide or read NULL, it "
            "shows one entry or a NULL key, which a lake map cannot hold. Declare the table's "
            "key type as the file's to read them alike, or check those maps after migrating.",
        ),
        TIMESTAMP_FROM_NUMBER: (
            SEVERITY_WARNING,
            "numbers read as timestamps, whose digits Hive shows to the nanosecond",
            _FINER_ACTION,
        ),
    }
    for code, entries in diffs.items():
        severity, what, action = texts[code]
        found.append(
            _anomaly(
                p,
                code,
                severity,
                f"{what}: {first_few(entries, 1)}",
                action,
                files=entries,
            )
        )
    return found


def _parquet_refusals(
    p: PartitionInfo, f: FileInfo, table_columns: Sequence[Column], version: str
) -> list[str]:
    """The columns of a Parquet file whose values Hive's Parquet reader builds as writables
    the partition's declared types cannot read (``parquet_reading``)."""
    out: list[str] = []
    pairs = projection.column_pairs(p.columns, f.columns, False, table_columns, table_names=True)
    for (index, column), table_column in zip(pairs, table_columns):
        if index is None or column is None:
            continue
        physical = f.columns[index]
        try:
            reason = parquet_unreadable(
                parse_hive_type(physical.type),
                parse_hive_type(column.type),
                parse_hive_type(table_column.type),
                version=version,
                int96=physical.name in f.int96,
                integer_decimals=integer_decimals_of(f, physical.name),
            )
        except RefusedInput:  # named by the checks that parse types
            continue
        if reason:
            out.append(f"{table_column.name}: {reason}")
    return out


def _stale_array_tails(
    p: PartitionInfo, table_columns: Sequence[Column], table_format: str, hive: HiveSemantics
) -> list[Anomaly]:
    """A warning where Hive's converter writes this partition's arrays into an ORC table's
    rows, whose list inspector never shrinks a list (``OrcStruct.OrcListObjectInspector
    .resize``, the same in Hive 2.3.7, 3.1.3 and 4.0.1): a row whose array is shorter than an
    earlier row's shows that row's extra elements in Hive (seen in Hive 2.3.9). lakeshift
    writes each row's own elements (docs/guide/limits.md). The converter runs for every non-ORC
    partition of an ORC table, and for an ORC partition read with its declared columns (Hive
    1.2, or schema evolution off) whose declared type differs from the table's."""
    if table_format != "orc" or not readable_format(p) or not p.files:
        return []
    names = []
    for position, column in enumerate(table_columns):
        if "array<" not in column.type.lower():
            continue
        if p.format == "orc":
            declared = p.columns[position].type if position < len(p.columns) else column.type
            if hive.reads_into_table("orc") or declared == column.type:
                continue
        names.append(column.name)
    if not names:
        return []
    return [
        _anomaly(
            p,
            "stale-array-tails",
            SEVERITY_WARNING,
            "Hive shows an array shorter than an earlier row's with that row's extra elements "
            "here (its ORC table's list inspector never shrinks a list): "
            f"{first_few(names, 4)}.",
            "Migrated with each row's own elements, so Hive's display of such rows differs from "
            "the lake table's; check the arrays in Hive if you rely on what it shows.",
            columns=names,
        )
    ]


def _parquet_map_keys(
    p: PartitionInfo, f: FileInfo, table_columns: Sequence[Column], version: str
) -> list[str]:
    """The maps in a Parquet file whose keys Hive's Parquet reader builds for the table's key
    type (``parquet_reading.keys_rebuilt``), as ``column.path``."""
    out: list[str] = []
    pairs = projection.column_pairs(p.columns, f.columns, False, table_columns, table_names=True)
    scanned = {c.name: c.type for c in f.scanned}
    for (index, column), table_column in zip(pairs, table_columns):
        if index is None or column is None:
            continue
        physical = f.columns[index]
        try:
            file, table = parse_hive_type(physical.type), parse_hive_type(table_column.type)
            wide = scanned.get(physical.name)
            wide_type = parse_hive_type(wide) if wide else None
        except RefusedInput:  # named by the checks that parse types
            continue
        for at in keys_rebuilt(file, table, version, wide_type):
            out.append(f"{table_column.name}{at} ({file} read as {table})")
    return out


#: the action for files that read but hold a column type lakeshift has no Hive type for
_SOUND_BUT_UNREAD = (
    "Do not remove the file: it is sound. Rewrite the column with a type Hive declares into a "
    "copy of the partition, or leave the partition in Hive; the partition is skipped."
)


@lru_cache(maxsize=1024)
def _file_vs_columns(
    file_columns: tuple[Column, ...],
    columns: tuple[Column, ...],
    by_position: bool,
    case_sensitive: bool,
    legacy_orc: bool = False,
) -> tuple[tuple[str, str], ...]:
    """How a file's columns differ from the columns that read it (the partition's, or under
    schema evolution the table's). Cached: a table's files mostly share a few schemas, and
    their partitions the declared columns."""
    return tuple(_compared(list(file_columns), columns, by_position, case_sensitive, legacy_orc))


def _compared(
    physical: list[Column],
    columns: Sequence[Column],
    by_position: bool,
    case_sensitive: bool,
    legacy_orc: bool,
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if by_position:
        if len(physical) > len(columns):
            out.append(("file-extra-columns", f"{len(physical) - len(columns)} trailing column(s)"))
        if len(physical) < len(columns):
            missing = [c.name for c in columns[len(physical) :]]
            out.append(("file-missing-columns", ", ".join(missing)))
        pairs = [(ph.type, c) for ph, c in zip(physical, columns)]
        return out + _retyped(
            pairs, by_name=False, case_sensitive=case_sensitive, legacy_orc=legacy_orc
        )
    by_name = {_key(c.name, case_sensitive): c for c in physical}
    declared = {_key(c.name, case_sensitive): c for c in columns}
    extra = [c.name for k, c in by_name.items() if k not in declared]
    missing = [c.name for k, c in declared.items() if k not in by_name]
    folded = {c.name.lower(): c.name for c in physical}
    case_only = [
        f"{folded[c.name.lower()]} (as {c.name})"
        for k, c in declared.items()
        if c.name.lower() in folded and folded[c.name.lower()] != c.name
    ]
    if case_only:
        out.append(("name-case-differs", ", ".join(case_only)))
    if extra:
        out.append(("file-extra-columns", ", ".join(extra)))
    if missing:
        out.append(("file-missing-columns", ", ".join(missing)))
    common_file = [k for k in by_name if k in declared]
    common_decl = [k for k in declared if k in by_name]
    if common_file != common_decl:
        out.append(("file-reordered-columns", ", ".join(by_name[k].name for k in common_file)))
    pairs = [(by_name[k].type, declared[k]) for k in common_decl]
    return out + _retyped(pairs, by_name=True, case_sensitive=case_sensitive, legacy_orc=legacy_orc)


def _retyped(
    pairs: Sequence[tuple[str, Column]], *, by_name: bool, case_sensitive: bool, legacy_orc: bool
) -> list[tuple[str, str]]:
    """``file-type-differs`` for changes Hive converts; ``file-type-incompatible`` for those
    its reader cannot (the one rule in ``lakeshift.hive.conversions``)."""
    out: list[tuple[str, str]] = []
    changed, broken, finer = [], [], []
    for file_type, column in pairs:
        if file_type == column.type:
            continue
        reason = _unreadable(file_type, column.type, by_name, case_sensitive, legacy_orc=legacy_orc)
        if reason:
            broken.append(f"{column.name}: {reason}")
        else:
            changed.append(f"{column.name}: {file_type} -> {column.type}")
            finer.extend(_finer(column.name, file_type, column.type, by_name, case_sensitive))
    if changed:
        out.append(("file-type-differs", "; ".join(changed)))
    if broken:
        out.append(("file-type-incompatible", "; ".join(broken)))
    if finer:
        out.append((TIMESTAMP_FROM_NUMBER, "; ".join(finer)))
    return out


def _finer(name: str, src: str, dst: str, by_name: bool, case_sensitive: bool) -> list[str]:
    """``numbers_as_timestamps`` of a readable column's type strings (which parse)."""
    return numbers_as_timestamps(
        parse_hive_type(src),
        parse_hive_type(dst),
        by_name=by_name,
        case_sensitive=case_sensitive,
        at=name,
    )


def _unreadable(
    src: str,
    dst: str,
    by_name: bool,
    case_sensitive: bool,
    converter: bool = False,
    legacy_orc: bool = False,
) -> str | None:
    try:
        source, declared = parse_hive_type(src), parse_hive_type(dst)
    except RefusedInput as e:
        return str(e)
    return unreadable(
        source,
        declared,
        by_name=by_name,
        case_sensitive=case_sensitive,
        converter=converter,
        legacy_orc=legacy_orc,
    )


def _declared_columns_ignored(
    p: PartitionInfo, table_columns: Sequence[Column], rules: Rules
) -> list[Anomaly]:
    """Under schema evolution Hive reads an ORC partition with the table's columns: the
    partition's own declaration does not change a value, but people should know it differs."""
    if [(c.name.lower(), c.type) for c in p.columns] == [
        (c.name.lower(), c.type) for c in table_columns
    ]:
        return []
    declared = ", ".join(f"{c.name} {c.type}" for c in p.columns) or "none"
    return [
        _anomaly(
            p,
            "partition-columns-ignored",
            SEVERITY_INFO,
            f"partition declares other columns than the table ({declared}); Hive "
            f"{rules.hive.version} reads its ORC files with the table's columns "
            "(hive.exec.schema.evolution).",
            "Read with the table's columns, as Hive does; set hive_version if your Hive "
            "is older (docs/guide/hive-versions.md).",
        )
    ]


def _partition_vs_table(p: PartitionInfo, table_columns: Sequence[Column]) -> list[Anomaly]:
    """Hive converts a partition's row to the table's columns by position."""
    found: list[Anomaly] = []
    if len(p.columns) < len(table_columns):
        added = [c.name for c in table_columns[len(p.columns) :]]
        found.append(
            _anomaly(
                p,
                "partition-behind-table",
                SEVERITY_WARNING,
                f"partition does not declare {', '.join(added)} (added to the table without "
                "CASCADE); Hive shows NULL for them here, even where files hold them.",
                "Migrated as NULL, as Hive shows them.",
                columns=added,
            )
        )
    if len(p.columns) > len(table_columns):
        extra = [c.name for c in p.columns[len(table_columns) :]]
        found.append(
            _anomaly(
                p,
                "partition-extra-columns",
                SEVERITY_WARNING,
                f"partition declares columns the table no longer has: {', '.join(extra)}.",
                "Not migrated, as Hive does not show them.",
                columns=extra,
            )
        )
    renamed = [
        (pc.name, tc.name)
        for pc, tc in zip(p.columns, table_columns)
        if pc.name.lower() != tc.name.lower()
    ]
    if renamed and projection.asks_table_names(p.format):
        found.append(
            _anomaly(
                p,
                "partition-column-renamed",
                SEVERITY_WARNING,
                "columns renamed on the table since this partition was written: "
                + ", ".join(f"{a} -> {b}" for a, b in renamed)
                + "; Hive's Parquet reader looks each up by the table's new name, so files "
                "that hold the old name show NULL there.",
                "Read by the table's names, as Hive does (docs/guide/hive-versions.md).",
                renames=[list(r) for r in renamed],
            )
        )
    elif renamed:
        found.append(
            _anomaly(
                p,
                "partition-column-renamed",
                SEVERITY_INFO,
                "columns renamed on the table since this partition was written: "
                + ", ".join(f"{a} -> {b}" for a, b in renamed)
                + "; Hive keeps their values.",
                "Mapped by position, as Hive does.",
                renames=[list(r) for r in renamed],
            )
        )
    retyped, incompatible, finer = [], [], []
    for pc, tc in zip(p.columns, table_columns):
        if pc.type == tc.type:
            continue
        reason = _unreadable(pc.type, tc.type, False, False, converter=True)
        if reason:
            incompatible.append(f"{pc.name}: {reason}")
        else:
            retyped.append(f"{pc.name}: {pc.type} -> {tc.type}")
            finer.extend(_finer(pc.name, pc.type, tc.type, False, False))
    if incompatible:
        found.append(
            _anomaly(
                p,
                "partition-type-incompatible",
                SEVERITY_ERROR,
                "column types changed on the table in a way Hive cannot convert: "
                + "; ".join(incompatible),
                "Not migrated (Hive fails on this partition too): fix the partition's or the "
                "table's declared type in Hive, then inspect again.",
                changes=incompatible,
            )
        )
    if retyped:
        found.append(
            _anomaly(
                p,
                "partition-type-differs",
                SEVERITY_WARNING,
                "column types changed on the table since this partition was written: "
                + "; ".join(retyped),
                "Converted as Hive converts on read.",
                changes=retyped,
            )
        )
    if finer:
        found.append(
            _anomaly(
                p,
                TIMESTAMP_FROM_NUMBER,
                SEVERITY_WARNING,
                "numbers the table reads as timestamps, whose digits Hive shows to the "
                "nanosecond: " + "; ".join(finer),
                _FINER_ACTION,
                changes=finer,
            )
        )
    return found


def _size_and_stats(p: PartitionInfo, rules: Rules) -> list[Anomaly]:
    found: list[Anomaly] = []
    small = [f for f in p.files if f.size < rules.small_file_bytes]
    if len(small) >= rules.small_file_count:
        found.append(
            _anomaly(
                p,
                "small-files",
                SEVERITY_INFO,
                f"{len(small)} files smaller than {rules.small_file_bytes // 1024} KiB.",
                "The target is written with fewer, larger files.",
                count=len(small),
            )
        )
    stats = p.stats_num_rows
    readable = all(f.rows is not None for f in p.files)
    if stats is not None and readable and stats != p.rows:
        found.append(
            _anomaly(
                p,
                "stats-mismatch",
                SEVERITY_WARNING,
                f"metastore numRows={stats} but file footers count {p.rows} rows.",
                "Footers are used; `ANALYZE TABLE ... COMPUTE STATISTICS` fixes Hive's stats.",
                metastore_rows=stats,
                footer_rows=p.rows,
            )
        )
    return found


def schema_drift(partitions: Sequence[PartitionInfo]) -> list[Anomaly]:
    """Table-level: how many distinct physical schemas the files use."""
    schemas: dict[tuple[Column, ...], int] = {}
    for p in partitions:
        for f in p.files:
            if f.columns:
                schemas[f.columns] = schemas.get(f.columns, 0) + 1
    if len(schemas) <= 1:
        return []
    return [
        Anomaly(
            code="schema-drift",
            severity=SEVERITY_INFO,
            message=f"files use {len(schemas)} distinct physical schemas.",
            action="Each group is read and mapped separately (see the plan).",
            details={"schemas": len(schemas)},
        )
    ]


def many_small_files(partitions: Sequence[PartitionInfo], rules: Rules) -> list[Anomaly]:
    """Table-level: many data files that are small on median, however they are spread.

    2,000 partitions of one 600-byte file each never trip the per-partition ``small-files``
    check, yet opening and planning that many files dominates a backfill.
    """
    sizes = [f.size for p in partitions for f in p.files]
    if len(sizes) < rules.many_files:
        return []
    typical = median(sizes)
    if typical >= rules.small_file_bytes:
        return []
    with_files = sum(1 for p in partitions if p.files)
    return [
        Anomaly(
            code="many-small-files",
            severity=SEVERITY_WARNING,
            message=f"{len(sizes):,} data files in {with_files:,} partitions, median size "
            f"{int(typical):,} bytes (under {rules.small_file_bytes // 1024:,} KiB); "
            "per-file work will dominate the backfill.",
            action="Expect the backfill to take longer than its row count suggests; the target "
            "is written with fewer, larger files.",
            details={
                "files": len(sizes),
                "partitions": with_files,
                "median_bytes": int(typical),
            },
        )
    ]
