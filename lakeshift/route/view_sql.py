"""The routing view's SQL: identifiers quoted, values escaped, long lists compressed (pure).

A range is used only where it is exact for *every* value it admits, not just the known ones:
runs of consecutive integers (integer keys, or digit strings of one width such as
``yyyymmdd``) and of consecutive dates. A partition Hive adds later inside a switched range
therefore cannot exist (its value was switched), so no row can hide between the two branches.
Everything else is an explicit ``IN`` list. The Hive branch is ``NOT coalesce(predicate, false)``
so NULL partition values stay on the Hive side unless the NULL partition itself was switched.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Sequence

from lakeshift.formats.base import LakeSide
from lakeshift.hive.spark_sql import quote, spark_type, string_literal
from lakeshift.hive.types import parse_hive_type

INTEGER_TYPES = ("tinyint", "smallint", "int", "bigint")
IN_CHUNK = 500

Key = tuple[str, str]  # (name, Hive type)
Values = tuple[str | None, ...]


def literal(value: str, hive_type: str) -> str:
    kind = parse_hive_type(hive_type).kind
    if kind in INTEGER_TYPES and _is_int(value):
        return str(int(value))
    if kind == "string" or kind in ("char", "varchar"):
        return string_literal(value)
    return (
        f"CAST({string_literal(value)} AS {spark_type(parse_hive_type(hive_type), physical=True)})"
    )


def _is_int(value: str) -> bool:
    try:
        int(value)
    except ValueError:
        return False
    return True


def _runs(values: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for v in sorted(set(values)):
        if runs and v == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    return runs


def _split(
    ordinals: list[int], show: Callable[[int], str]
) -> tuple[list[tuple[str, str]], list[str]]:
    """Runs of three or more consecutive values become ranges; the rest stay single."""
    ranges: list[tuple[str, str]] = []
    singles: list[str] = []
    for lo, hi in _runs(ordinals):
        if hi - lo >= 2:
            ranges.append((show(lo), show(hi)))
        else:
            singles.extend(show(x) for x in range(lo, hi + 1))
    return ranges, singles


def _last_key_predicate(name: str, hive_type: str, values: list[str | None]) -> str:
    column = quote(name)
    terms = [f"{column} IS NULL"] if any(v is None for v in values) else []
    present = sorted({v for v in values if v is not None})
    kind = parse_hive_type(hive_type).kind
    guard = ""  # a condition every value admitted by a range must also meet
    lit: Callable[[str], str]
    if kind in INTEGER_TYPES and all(_is_int(v) for v in present):
        ranges, singles = _split([int(v) for v in present], str)
        lit = str
    elif (
        kind == "string"
        and present
        and len({len(v) for v in present}) == 1
        and all(v.isascii() and v.isdigit() for v in present)
    ):
        width = len(present[0])
        ranges, singles = _split([int(v) for v in present], lambda x: f"{x:0{width}d}")
        lit = string_literal
        # Only digit strings of this width lie between two such strings numerically.
        guard = f"length({column}) = {width} AND {column} RLIKE '^[0-9]+$' AND "
    elif kind == "date" and all(_is_date(v) for v in present):
        ranges, singles = _split(
            [dt.date.fromisoformat(v).toordinal() for v in present],
            lambda x: dt.date.fromordinal(x).isoformat(),
        )
        lit = lambda v: f"DATE {string_literal(v)}"  # noqa: E731
    else:
        ranges, singles = [], present
        lit = lambda v: literal(v, hive_type)  # noqa: E731
    terms += [f"({guard}{column} BETWEEN {lit(a)} AND {lit(b)})" for a, b in ranges]
    for start in range(0, len(singles), IN_CHUNK):
        chunk = singles[start : start + IN_CHUNK]
        terms.append(f"{column} IN ({', '.join(lit(v) for v in chunk)})")
    return " OR ".join(terms) if terms else "false"


def _is_date(value: str) -> bool:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def partition_predicate(keys: Sequence[Key], partitions: Sequence[Values]) -> str:
    """A predicate true exactly for rows of ``partitions`` (NULL where a key is NULL)."""
    if not partitions:
        return "false"
    if not keys:
        return "true"
    groups: dict[Values, list[str | None]] = defaultdict(list)
    for values in partitions:
        groups[tuple(values[:-1])].append(values[-1])
    clauses = []
    for leading, last_values in sorted(groups.items(), key=lambda kv: repr(kv[0])):
        parts = []
        for (name, hive_type), value in zip(keys[:-1], leading):
            parts.append(
                f"{quote(name)} IS NULL"
                if value is None
                else f"{quote(name)} = {literal(value, hive_type)}"
            )
        parts.append(f"({_last_key_predicate(*keys[-1], last_values)})")
        clauses.append("(" + " AND ".join(parts) + ")")
    return " OR ".join(clauses)


def table_ref(qualified: str) -> str:
    db, _, table = qualified.partition(".")
    return f"{quote(db)}.{quote(table)}"


def lake_select(every: Sequence[Key], lake: LakeSide) -> str:
    """The lake side's columns cast to the types the Hive branch shows, under Hive's names.

    Casting a struct is positional in Spark, so a lake side that keeps nested fields under
    other (physical) names still lines up with the Hive struct.
    """
    return ", ".join(
        f"CAST({quote(lake.columns.get(n, n))} AS "
        f"{spark_type(parse_hive_type(t), physical=True)}) AS {quote(n)}"
        for n, t in every
    )


def routing_view_sql(
    columns: Sequence[Key],
    keys: Sequence[Key],
    hive_table: str,
    lake: LakeSide,
    switched: Sequence[Values],
) -> str:
    """``SELECT`` switched partitions from the lake side ``UNION ALL`` the rest from Hive.

    Lake columns are cast to the types the Hive branch shows, so both branches agree.
    """
    every = [*columns, *keys]
    hive_select = ", ".join(quote(n) for n, _ in every)
    lake_table = lake.table
    predicate = partition_predicate(keys, switched)
    if predicate == "false":
        return f"SELECT {hive_select} FROM {table_ref(hive_table)}"
    return (
        f"SELECT {lake_select(every, lake)} FROM {table_ref(lake_table)} WHERE {predicate}\n"
        f"UNION ALL\n"
        f"SELECT {hive_select} FROM {table_ref(hive_table)} "
        f"WHERE NOT coalesce(({predicate}), false)"
    )
