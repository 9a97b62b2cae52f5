"""Partitions whose rows differ between Hive versions (pure): the plan names them, with the
columns, so the user chooses ``hive_version`` knowingly.

Three readings of an ORC file are plausible (``lakeshift.hive.semantics``): Hive 1.2
(the partition's columns by position, then the table's by position), Hive 2.x/3.1 (the table's
columns by name, case-sensitively) and Hive 4 (the table's columns by position). A table column
differs when the readings take it from different file columns (or one shows NULL), or when
the partition declares another type than the table (Hive 1.2 converts through it, schema
evolution does not). In any partition, a string read as a boolean, a date or a timestamp
differs between Hive 2 and 3; in an ORC file, a string read as a date or timestamp by schema
evolution differs between Hive 2.x/3.1 (ORC 1.3/1.5: java.sql's parsers) and 4 (ORC 1.6+).
In a Parquet file, Hive's Parquet reader builds each value for the table's type, which Hive
1.2, 2.x, 3.1 and 4 do differently (``parquet_reading``): a version may fail on the
partition, another read some values as NULL or round them; unsigned integers past the signed
range read negative in 1.2 and 2.x and NULL from 3.1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from lakeshift.errors import RefusedInput
from lakeshift.hive.parquet_reading import (
    built,
    holds_unsigned,
    nested_pairs,
    parquet_unreadable,
    unsigned_nulls,
)
from lakeshift.hive.projection import column_pairs
from lakeshift.hive.semantics import HIVE_VERSIONS, HiveSemantics
from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.inspect.model import (
    SEVERITY_WARNING,
    Anomaly,
    Column,
    FileInfo,
    PartitionInfo,
    integer_decimals_of,
)

_POSITIONAL = re.compile(r"_col\d+")
_STRINGS = ("string", "char", "varchar")


def _source(physical: Sequence[Column], name: str, position: int, by_name: bool) -> str:
    if by_name:
        found = [c.name for c in physical if c.name == name]
        return f"file column {found[0]}" if found else "NULL"
    return f"file column {physical[position].name}" if position < len(physical) else "NULL"


@lru_cache(maxsize=256)
def _differing(
    physical: tuple[Column, ...], declared: tuple[Column, ...], table: tuple[Column, ...]
) -> tuple[tuple[str, dict[str, str]], ...]:
    """The table columns the readings take from different places, with what each reads
    (cached: a table's partitions share a few schemas)."""
    readings = _readings(physical, declared, table)
    out = []
    for position, column in enumerate(table):
        seen = {version: sources[position] for version, sources in readings.items()}
        if len(set(seen.values())) > 1:
            out.append((column.name, seen))
    return tuple(out)


def _readings(
    physical: Sequence[Column], declared: Sequence[Column], table: Sequence[Column]
) -> dict[str, list[str]]:
    """Per reading, where each table column comes from in a file with ``physical`` columns."""
    positional_file = bool(physical) and all(_POSITIONAL.fullmatch(c.name) for c in physical)
    out: dict[str, list[str]] = {"1.2": [], "2.x/3.1": [], "4": []}
    for position, column in enumerate(table):
        if position < len(declared):
            old = _source(physical, "", position, by_name=False)
            if declared[position].type != column.type and old != "NULL":
                old += f" as {declared[position].type}"
        else:
            old = "NULL"
        out["1.2"].append(old)
        out["2.x/3.1"].append(_source(physical, column.name, position, not positional_file))
        out["4"].append(_source(physical, column.name, position, by_name=False))
    return out


@lru_cache(maxsize=256)
def _orc_converted(
    physical: tuple[Column, ...], table: tuple[Column, ...], to: tuple[str, ...], of: str
) -> tuple[str, ...]:
    """Table columns of a type in ``to`` that ORC's schema evolution reads from a file column
    whose type the pattern ``of`` matches (cached, as ``_differing``)."""
    positional_file = bool(physical) and all(_POSITIONAL.fullmatch(c.name) for c in physical)
    out = []
    for position, column in enumerate(table):
        if column.type.split("(")[0] not in to:
            continue
        if positional_file:
            found = [physical[position]] if position < len(physical) else []
        else:
            found = [c for c in physical if c.name == column.name]
        if found and re.match(of, found[0].type):
            out.append(column.name)
    return tuple(out)


#: ORC's conversions that ORC 1.3/1.5 (Hive 2.x/3.1) and 1.6+ (Hive 4) do differently: (table
#: types, file type pattern, what each reads)
_ORC_RELEASES: tuple[tuple[tuple[str, ...], str, dict[str, str]], ...] = (
    (
        ("date", "timestamp"),
        "(string|char|varchar)",
        {
            "2.x/3.1": "ORC 1.3/1.5 parse the file's text by java.sql's Date/Timestamp.valueOf "
            "('2020-1-1' read, '2020-02-30' is March 1)",
            "4": "ORC 1.6+ take only yyyy-MM-dd[ HH:mm:ss[.f]] ('2020-02-30' is February 29)",
        },
    ),
    (
        _STRINGS,
        "timestamp$",
        {
            "2.x/3.1": "ORC 1.3/1.5 print the file's timestamps by java.sql's toString (a "
            "whole second as '10:00:00.0')",
            "4": "ORC 1.6+ print '10:00:00'",
        },
    ),
    (
        ("timestamp",),
        "(tinyint|smallint|int|bigint|boolean)$",
        {
            "2.x/3.1": "ORC 1.3/1.5 read the file's integers as milliseconds since 1970",
            "4": "ORC 1.6+ read them as seconds",
        },
    ),
    (
        ("double",),
        "float$",
        {
            "2.x/3.1": "ORC 1.3/1.5 read the file's floats through their text (74.72 stays 74.72)",
            "4": "ORC 1.6+ widen them exactly (74.72000122070312)",
        },
    ),
    (
        ("date",),
        "timestamp$",
        {
            "2.x/3.1": "ORC 1.3/1.5 give a timestamp's day as written",
            "4": "ORC 1.6+ read one before 1970 a second later (1969-12-30 23:59:59.5 is "
            "1969-12-31)",
        },
    ),
    (
        ("binary",),
        "(string|char|varchar)",
        {
            "2.x/3.1": "ORC 1.3/1.5 never read the file's text as binary (every query of the "
            "partition fails)",
            "4": "ORC 1.6+ read its UTF-8 bytes (a dictionary-encoded stripe fails)",
        },
    ),
)


@lru_cache(maxsize=1024)
def _parquet_readings(
    file_type: str,
    asked_type: str,
    table_type: str,
    int96: bool,
    unsigned: bool = False,
    decimals: frozenset[str] = frozenset(),
) -> tuple[tuple[str, str], ...]:
    """What each Hive version's Parquet reader does with a file column of ``file_type`` that
    the partition declares as ``asked_type`` (as the reader asks for it) and the table as
    ``table_type`` (``unsigned``: it holds 32- or 64-bit unsigned integers; ``decimals``: the
    paths in it of decimals stored as integers), versions that
    agree in one entry; ``()`` where all agree (cached: a table's files share a few
    schemas)."""
    try:
        file, asked, table = map(parse_hive_type, (file_type, asked_type, table_type))
    except RefusedInput:  # named by the checks that parse types
        return ()
    readings = [
        _parquet_reading(file, asked, table, v, int96, unsigned, decimals) for v in HIVE_VERSIONS
    ]
    if len(set(readings)) < 2:
        return ()
    seen: dict[str, str] = {}
    labels = {"2.3": "2.x"}
    for version, reading in zip(HIVE_VERSIONS, readings):
        label = labels.get(version, version)
        last = next(reversed(seen), None)
        if last is not None and seen[last] == reading:
            seen[f"{last}/{label}"] = seen.pop(last)
        else:
            seen[label] = reading
    return tuple(seen.items())


def _holds_unsigned(file: FileInfo, physical: Column) -> bool:
    scanned = next((c.type for c in file.scanned if c.name == physical.name), None)
    if scanned is None:
        return False
    try:
        return holds_unsigned(parse_hive_type(physical.type), parse_hive_type(scanned))
    except RefusedInput:  # named by the checks that parse types
        return False


def _parquet_reading(
    file: HiveType,
    asked: HiveType,
    table: HiveType,
    version: str,
    int96: bool,
    unsigned: bool,
    decimals: frozenset[str],
) -> str:
    """What Hive ``version``'s Parquet reader does with a file column (``asked``: the
    partition's declared type as the reader asks for it)."""
    why = parquet_unreadable(
        file, asked, table, version=version, int96=int96, integer_decimals=decimals
    )
    if why and why.failure:
        return f"fails on every query of it ({why.failure}: not migrated)"
    if why:
        return "shows the file's decimals at the table's scale (not migrated)"
    rules = [_built_rule(file, table, version)]
    if unsigned:
        rules.insert(
            0,
            "reads the file's unsigned integers past the signed range as NULL"
            if unsigned_nulls(version)
            else "reads the file's unsigned integers signed (4294967295 is -1)",
        )
    return "; ".join(filter(None, rules)) or "reads the file's values as they are"


def _built_rule(file: HiveType, table: HiveType, version: str) -> str | None:
    if file.is_primitive:
        change = built(file, table, version)
        if change is None:
            return None
        return {
            "float": "builds the file's int through a float (16777217 reads 16777216.0)",
            "range": f"reads the file's {file} out of the table's {table} range as NULL",
            "integral": f"reads the file's {file} as NULL unless a whole number in the "
            f"table's {table} range",
            "magnitude": f"reads the file's {file} as NULL past a float's range"
            + ("" if change.zero else ", and zero and subnormal values"),
            "convert": f"rounds the file's {file} to the table's {table} first",
        }[change.rule]
    if file.kind != table.kind or file.kind not in ("struct", "array", "map"):
        return None
    rules = (_built_rule(child, inner, version) for child, inner in nested_pairs(file, table))
    return next((rule for rule in rules if rule), None)


def version_sensitivity(
    p: PartitionInfo, table: Sequence[Column], hive: HiveSemantics, *, files: bool = True
) -> list[Anomaly]:
    """A ``hive-version-sensitive`` anomaly when Hive versions show this partition's rows
    differently, naming the columns and what each version reads (``files``: compare the
    readings of its ORC files; the caller may know they cannot differ)."""
    details: dict[str, dict[str, str]] = {}
    if p.format == "orc" and files:
        for file in p.files:
            if file.format != "orc" or not file.columns or file.error:
                continue
            for name, seen in _differing(file.columns, tuple(p.columns), tuple(table)):
                details.setdefault(name, dict(seen))
            found, columns = tuple(file.columns), tuple(table)
            for to, of, seen in _ORC_RELEASES:
                for name in _orc_converted(found, columns, to, of):
                    known = details.setdefault(name, {})
                    for version, reading in seen.items():  # after where it is read from
                        if reading not in known.get(version, ""):
                            known[version] = "; ".join(filter(None, (known.get(version), reading)))
    for file in p.files if files else ():
        if file.format != "parquet" or not file.columns or file.error:
            continue
        pairs = column_pairs(p.columns, file.columns, False, table, table_names=True)
        for (index, asked), column in zip(pairs, table):
            if index is None or asked is None:
                continue
            physical = file.columns[index]
            readings = _parquet_readings(
                physical.type,
                asked.type,
                column.type,
                physical.name in file.int96,
                _holds_unsigned(file, physical),
                integer_decimals_of(file, physical.name),
            )
            if readings:
                details.setdefault(column.name, dict(readings))
    # Hive's converter reads a non-ORC partition's declared strings (and, under 1.2, an ORC
    # one's, which the file comparison above already names).
    converted = table[: len(p.columns)] if p.format != "orc" else ()
    for position, column in enumerate(converted):
        declared = p.columns[position]
        if column.type == "boolean" and declared.type.split("(")[0] in _STRINGS:
            details.setdefault(
                column.name,
                {
                    "1.2/2.x": "any non-empty string is true",
                    "3.1/4": "'false', 'off', 'no', '0' and '' are false",
                },
            )
        if column.type in ("date", "timestamp") and declared.type.split("(")[0] in _STRINGS:
            details.setdefault(
                column.name,
                {
                    "1.2/2.x": f"parses the text by java.sql's {column.type} (hybrid calendar)",
                    "3.1": "parses it by java.time leniently (proleptic calendar; ISO 'T' "
                    "forms, '-' signs and months past 12 accepted)",
                    "4": "parses it by java.time strictly ('2020-02-30' NULL; the date at the "
                    "start of any text read)",
                },
            )
    if not details:
        return []
    shown = "; ".join(
        f"{name}: " + ", ".join(f"Hive {v} {s}" for v, s in seen.items())
        for name, seen in list(details.items())[:4]
    ) + (f" (+{len(details) - 4} more columns)" if len(details) > 4 else "")
    return [
        Anomaly(
            code="hive-version-sensitive",
            severity=SEVERITY_WARNING,
            message=f"Hive versions show this partition's rows differently: {shown}.",
            action=f"Read as {hive.label}; if your Hive differs, set hive_version "
            "(docs/guide/hive-versions.md).",
            partition=p.name,
            details={"columns": details},
        )
    ]
