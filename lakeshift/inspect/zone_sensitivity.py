"""Partitions whose rows depend on the time zone Hive's JVMs run in (pure): the plan names
them, with the columns, so the user sets ``hive_time_zone`` knowingly.

lakeshift reads as a Hive in ``hive_time_zone`` (default UTC) shows a table, and nothing in a
metastore or a file says which zone the user's Hive runs in (its ``user.timezone``). Which
conversions that zone changes is the readers' own rule, ``hive.types.zone_dependence``, walked
here over each file's columns as the readers pair them: the file's type read as the
partition's declared type (or, under ORC's schema evolution, the table's), then the declared
type read as the table's. Parquet ``INT96`` timestamps that Hive shows in its JVM's zone
(``hive.semantics.int96_reading``) count too. ORC files naming no writer zone have their own
anomaly (``writer-zone-missing``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from lakeshift.errors import RefusedInput
from lakeshift.hive import projection
from lakeshift.hive.conversions import primitive_pairs
from lakeshift.hive.semantics import HiveSemantics, int96_reading
from lakeshift.hive.types import holds_instant, parse_hive_type, zone_dependence
from lakeshift.inspect.model import (
    SEVERITY_INFO,
    SEVERITY_WARNING,
    Anomaly,
    Column,
    PartitionInfo,
    positional_names,
)
from lakeshift.text.fields import text_type
from lakeshift.text.layout import TEXT_FORMATS

#: What each rule of ``zone_dependence`` (and ``INT96``) does to the rows, for the message
EFFECTS = {
    "instant shown": "numbers read as timestamps show their instant's wall clock in Hive's "
    "zone (0 is 1969-12-31 19:00 in New York)",
    "instant counted": "timestamps read as numbers count the instant of their wall clock in "
    "Hive's zone",
    "parsed in zone": "text read as timestamps moves wall clocks in an hour the zone's clocks "
    "skip (02:30 on the spring change shows 03:30 in New York)",
    "parsed as instant": "text and dates read as timestamps are wall clocks in Hive's zone, "
    "shown in UTC (10:00 shows 14:00 in a New York summer)",
    "wall clock read": "timestamps read as text or dates give their wall clock in Hive's "
    "zone (2020-06-01 02:00 is the day before in New York)",
    "INT96 shown": "Parquet INT96 timestamps hold UTC instants, which Hive shows in its zone",
}
_PROBE = "Hive's JVM zone"
#: The one rule that changes only values in an hour a zone skips
_GAP_ONLY = frozenset({"parsed in zone"})


@lru_cache(maxsize=1024)
def _column_rules(
    file_type: str,
    declared: str,
    table: str,
    *,
    text: bool,
    orc_file: bool,
    into_table: bool,
    nested_by_name: bool,
    case_sensitive: bool,
    hive3_converters: bool,
    orc_sql_dates: bool,
) -> tuple[tuple[str, str], ...]:
    """(path inside the column, rule) for each conversion of one column that Hive's zone
    changes, in the readers' two steps (cached: a table's files share a few schemas)."""
    try:
        source = parse_hive_type(file_type)
        source = text_type(source) if text else source
        declared_type, table_type = parse_hive_type(declared), parse_hive_type(table)
    except RefusedInput:  # the inspector refuses such a partition as unreadable
        return ()
    if holds_instant(source, declared_type, table_type):
        return ()  # a number read as a timestamp and back keeps its instant (zone=None)
    steps = [(source, declared_type, orc_file, nested_by_name)]
    if not into_table:  # Hive's converters, by position, from the partition's to the table's
        steps.append((declared_type, table_type, False, False))
    found: list[tuple[str, str]] = []
    for src, dst, orc, by_name in steps:
        for inner_src, inner_dst, path in primitive_pairs(
            src, dst, by_name=by_name, case_sensitive=case_sensitive
        ):
            rule = zone_dependence(
                inner_src,
                inner_dst,
                orc_file=orc,
                hive3_converters=hive3_converters,
                orc_sql_dates=orc_sql_dates,
            )
            if rule and (path, rule) not in found:
                found.append((path, rule))
    return tuple(found)


@lru_cache(maxsize=1024)
def _file_rules(
    file_format: str,
    file_columns: tuple[Column, ...],
    declared: tuple[Column, ...],
    table: tuple[Column, ...],
    hive: HiveSemantics,
    int96_shown: tuple[str, ...],
) -> tuple[tuple[str, str], ...]:
    """(table column and path inside it, rule) for each conversion Hive's zone changes in a
    file of ``file_columns`` read through a partition declaring ``declared`` (and INT96
    ``int96_shown`` columns shown in the JVM's zone). Cached: a table's files mostly share a
    few schemas, and its partitions their declared columns."""
    into_table = hive.reads_into_table(file_format)  # as the readers decide, file by file
    sensitive = projection.name_match_is_case_sensitive(file_format, hive)
    positional = projection.reads_by_position(file_format, positional_names(file_columns), hive)
    pairs = projection.column_pairs(
        declared,
        file_columns,
        positional,
        table,
        into_table=into_table,
        case_sensitive=sensitive,
        table_names=projection.asks_table_names(file_format),
    )
    found: list[tuple[str, str]] = []
    for (index, column), table_column in zip(pairs, table):
        if index is None or column is None:
            continue
        physical, name = file_columns[index], table_column.name
        rules = _column_rules(
            physical.type,
            column.type,
            table_column.type,
            text=file_format in TEXT_FORMATS,
            orc_file=file_format == "orc",
            into_table=into_table,
            nested_by_name=projection.nested_by_name(file_format, into_table),
            case_sensitive=sensitive,
            hive3_converters=hive.hive3_converters,
            orc_sql_dates=hive.orc_sql_dates,
        )
        found.extend((name + path, rule) for path, rule in rules)
        if physical.name in int96_shown:
            found.append((name, "INT96 shown"))
    return tuple(found)


def zone_sensitivity(
    p: PartitionInfo, table: Sequence[Column], hive: HiveSemantics, zone_chosen: bool = False
) -> list[Anomaly]:
    """A ``hive-zone-sensitive`` anomaly when the zone Hive runs in changes what it shows of
    this partition's rows, naming the columns and how: a warning while ``hive_time_zone`` is
    not set (``zone_chosen``) unless only an hour the zone skips is concerned, else
    information."""
    columns: dict[str, list[str]] = {}
    table = tuple(table)
    for f in p.files:
        if f.error or not f.columns or f.format not in projection.READABLE_FORMATS:
            continue
        # Whether Hive shows the file's INT96 columns in its JVM's zone (any zone given for
        # it comes back), rather than as stored or in the file's own writer.time.zone
        shown: tuple[str, ...] = ()
        if f.int96:
            reading = int96_reading(_PROBE, hive.version, f.writer, f.writer_zone, f.zone_legacy)
            shown = f.int96 if reading is not None and reading.zone == _PROBE else ()
        for path, rule in _file_rules(f.format, f.columns, p.columns, table, hive, shown):
            known = columns.setdefault(path, [])
            if rule not in known:
                known.append(rule)
    if not columns:
        return []
    rules_seen = {rule for found in columns.values() for rule in found}
    shown_text = "; ".join(
        f"{path}: " + ", ".join(EFFECTS[r] for r in found)
        for path, found in list(columns.items())[:3]
    ) + (f" (+{len(columns) - 3} more columns)" if len(columns) > 3 else "")
    severity = SEVERITY_WARNING if not zone_chosen and rules_seen - _GAP_ONLY else SEVERITY_INFO
    return [
        Anomaly(
            code="hive-zone-sensitive",
            severity=severity,
            message=f"What Hive {hive.version} shows of this partition depends on the time "
            f"zone its JVMs run in: {shown_text}.",
            action=f"Read as a Hive running in {hive.time_zone} shows it; set hive_time_zone "
            "to your Hive's JVM zone (user.timezone) if it differs (docs/guide/hive-versions.md, "
            "'Conversions in Hive's time zone').",
            partition=p.name,
            details={"columns": columns},
        )
    ]
