"""``erase_records``: find, delete, purge and audit, each step recorded before the next.

Rows are found in the lake table (the public name after cutover) by a SQL predicate or a file of
record keys, deleted by record key in one commit, then everything that still holds them is
purged and every file under the table location is audited. The Hive source is never modified:
its matching rows are counted and reported as what lakeshift cannot reach.

Rows without a record key (the Hive source's own files, where the lake table adopted them,
hold no ``uuid``) are deleted by the predicate itself; a file outside the table's location is
only dropped from the table (its other rows rewritten into the location) and stays the Hive
table's, named in the report, until ``lakeshift retire --delete-files``. A keys file cannot
name such rows: the report says which partitions hold them.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakeshift.erase import state as erasure
from lakeshift.erase.audit import audit_files, predicate_hits
from lakeshift.erase.report import legacy_note
from lakeshift.erase.state import AUDITED, DELETED, PLANNED, PURGED, ErasureState
from lakeshift.errors import AuditFailed, NotFound, RefusedInput, UsageError
from lakeshift.formats import FormatServices, TargetFormat, format_of, require_target
from lakeshift.hive.reader import read_partitions
from lakeshift.inspect.inspector import inspect_table, split_table_name
from lakeshift.metastore.partition_names import partition_name, partition_name_of_path
from lakeshift.migrate.journal import Journal
from lakeshift.route.cutover import is_cut_over
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN, UUID_COLUMN, build_mapping
from lakeshift.storage import Store

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Row

log = logging.getLogger(__name__)
Progress = Callable[[str], None]


@dataclass(frozen=True)
class EraseRequest:
    """What to erase from ``table`` (the Hive name users know).

    Attributes:
        where: a SQL predicate over the table's columns, e.g. ``customer_id = 'c-17'``.
        keys_file: a file of record keys (``uuid`` values), one per line.
        dry_run: find and count only.
        lake_only: also erase from partitions still served from Hive (readers of those keep
            seeing the rows until they are switched; the Hive source is never changed).
        all_matching: allow a predicate that matches every row of the table.
    """

    table: str
    where: str | None = None
    keys_file: Path | None = None
    dry_run: bool = False
    lake_only: bool = False
    all_matching: bool = False

    @property
    def selector(self) -> str:
        return self.where if self.where is not None else f"keys from {self.keys_file}"


def _names(journal: Journal, source: str, services: FormatServices) -> tuple[str, str | None]:
    """(lake table, Hive table now) for ``source``: after cutover the lake table holds the
    public name and the Hive table its legacy one (or none once retired)."""
    route = journal.route(source) or {}
    if is_cut_over(route):
        legacy = str(route.get("legacy") or f"{source}_hive_legacy")
        return source, legacy if format_of(services.client, legacy) == "hive" else None
    targets = {r.target for r in journal.partitions(source).values() if r.target}
    target = route.get("target") or (targets.pop() if len(targets) == 1 else None)
    if not target:
        raise NotFound(
            f"{source} has not been migrated by lakeshift here (no target in the journal).",
            hint="Run `lakeshift migrate` first, or point --home at the migration's state.",
        )
    return str(target), source


def _matches(frame: DataFrame, request: EraseRequest) -> DataFrame:
    from pyspark.errors import AnalysisException, ParseException
    from pyspark.sql import functions as F

    if request.keys_file is not None:
        keys = [k.strip() for k in request.keys_file.read_text().splitlines() if k.strip()]
        wanted = frame.sparkSession.createDataFrame([(k,) for k in keys], f"{UUID_COLUMN} STRING")
        return frame.join(wanted, UUID_COLUMN, "left_semi")
    try:
        matched = frame.where(F.expr(str(request.where)))
        matched.schema  # noqa: B018 - analysis happens here: unknown columns fail now
    except (AnalysisException, ParseException) as e:
        raise UsageError(
            f"the predicate {request.where!r} does not apply to {request.table}: "
            # Spark's parse errors start with an empty line: the first line with text.
            + next((line.strip() for line in str(e).splitlines() if line.strip()), repr(e)),
            hint="Use SQL over the table's columns, e.g. --where \"customer_id = 'c-17'\".",
        ) from e
    return matched


def _referenced(columns: list[str], predicate: str | None) -> list[str]:
    """Columns the predicate names (their erased values are audited too)."""
    if predicate is None:
        return []
    return [
        c
        for c in columns
        if re.search(rf"(?<![\w`]){re.escape(c)}(?![\w`])|`{re.escape(c)}`", predicate, re.I)
    ]


def _hive_matching(
    services: FormatServices, hive_table: str | None, request: EraseRequest
) -> dict[str, int | None]:
    """Matching rows in the Hive table lakeshift cannot (and never does) change."""
    if hive_table is None or request.where is None:
        return {} if hive_table is None else {hive_table: None}
    settings = services.settings
    inventory = inspect_table(services.client, hive_table, settings)
    mapping = build_mapping(inventory, None, settings.hive)
    frame = read_partitions(services.spark, inventory, mapping)
    try:
        return {hive_table: _matches(frame, request).count()}
    except UsageError:
        return {hive_table: None}


def _plan(
    services: FormatServices,
    journal: Journal,
    fmt: TargetFormat,
    lake: str,
    hive_table: str | None,
    source: str,
    request: EraseRequest,
) -> tuple[ErasureState, list[str], list[str]]:
    from pyspark.sql import functions as F

    frame = fmt.frame(lake)
    matched = _matches(frame, request)
    referenced = _referenced([c for c in frame.columns], request.where)
    mapping = fmt.stored_mapping(lake)
    keys_of = [k.name for k in mapping.partition_keys] if mapping else []
    columns = list(dict.fromkeys([UUID_COLUMN, PARTITIONPATH_COLUMN, *referenced, *keys_of]))
    rows = matched.select(*columns, F.input_file_name().alias(_FILE)).collect()
    per_partition: dict[str, int] = {}
    for row in rows:
        name = _partition_of(row, keys_of)
        per_partition[name] = per_partition.get(name, 0) + 1
    total = frame.select(F.count(F.lit(1))).first()[0]  # type: ignore[index]
    if rows and len(rows) == total and not request.all_matching:
        raise RefusedInput(
            f"{request.selector!r} matches every row of {request.table} ({total:,}).",
            hint="Pass --all-matching if you really mean to empty the table.",
        )
    route = journal.route(source) or {}
    if not is_cut_over(route) and not request.lake_only:
        switched = set(route.get("switched") or [])
        on_hive = sorted(set(per_partition) - switched)
        if on_hive:
            raise RefusedInput(
                f"{len(on_hive)} partition(s) holding matching rows are still served from Hive "
                f"(e.g. {on_hive[0]}); erasing the lake copy would not erase what readers see, "
                "and lakeshift never modifies the Hive source.",
                hint="Switch or cut over first, or pass --lake-only to erase the lake copy only.",
            )
    keys = [str(r[UUID_COLUMN]) for r in rows if r[UUID_COLUMN] is not None]
    values = sorted({str(r[c]) for r in rows for c in referenced if r[c] is not None})
    location = fmt.location(lake)
    own = Store(location) if location else None
    legacy = Counter(
        str(r[_FILE]) for r in rows if r[UUID_COLUMN] is None and _outside(own, r[_FILE])
    )
    notes = []
    if request.keys_file is not None:
        notes = _keys_cannot_reach(frame, keys_of)
    plan = ErasureState(
        erase_id=f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}",
        source=source,
        lake_table=lake,
        format=fmt.name,
        selector=request.selector,
        step=PLANNED,
        matched=per_partition,
        hive_matching=_hive_matching(services, hive_table, request),
        keyless=len(rows) - len(keys),
        legacy_files=dict(sorted(legacy.items())),
        notes=notes,
    )
    return plan, keys, values


#: The column a matched row's file is read into (Spark's ``input_file_name``).
_FILE = "__lakeshift_file"


def _outside(own: Store | None, file: str | None) -> bool:
    """Whether a row's file lies outside the lake table's location (a file it adopted)."""
    return bool(file) and own is not None and own.relative(str(file)) is None


def _partition_of(row: Row, keys: list[str]) -> str:
    """A matched row's partition: its ``partitionpath``; for a row without one (a file the
    lake table adopted from the Hive source holds none), the Hive directory its file is in, or
    else its key values' name."""
    if row[PARTITIONPATH_COLUMN] is not None:
        return str(row[PARTITIONPATH_COLUMN])
    from_path = partition_name_of_path(str(row[_FILE] or ""), keys)
    if from_path is not None:
        return from_path
    return partition_name(keys, [None if row[k] is None else str(row[k]) for k in keys])


def _keys_cannot_reach(frame: DataFrame, keys: list[str]) -> list[str]:
    """Why ``--keys`` leaves rows of some partitions out: rows without a record key (the Hive
    source's own files the lake table adopted hold none) cannot be named by one."""
    from pyspark.sql import functions as F

    keyless = (
        frame.where(F.col(UUID_COLUMN).isNull())
        .select(PARTITIONPATH_COLUMN, *keys, F.input_file_name().alias(_FILE))
        .distinct()
        .collect()
    )
    names = sorted({_partition_of(r, keys) for r in keyless})
    if not names:
        return []
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return [
        f"{len(names)} partition(s) hold rows without a record key (uuid), which --keys cannot "
        f"name: {shown}. They are rows of files adopted from the Hive source (or another "
        "writer's); erase those with --where PREDICATE."
    ]


def erase_records(
    services: FormatServices,
    journal: Journal,
    request: EraseRequest,
    progress: Progress | None = None,
) -> ErasureState:
    """Erase, purge and audit; resumes an unfinished erasure of the same selection."""
    say = progress or (lambda _: None)
    db, name = split_table_name(request.table)
    source = f"{db}.{name}"
    home = services.settings.home
    lake, hive_table = _names(journal, source, services)
    fmt = require_target(services, lake, source)
    if not request.dry_run:
        journal.acquire_lease(source, f"lakeshift erase {request.selector}")
    try:
        current = erasure.unfinished(home, source, request.selector)
        if current is None:
            say("finding matching rows")
            current, keys, values = _plan(services, journal, fmt, lake, hive_table, source, request)
            if request.dry_run or not current.matched:
                return current
            erasure.save_targets(home, current.erase_id, keys, values)
            erasure.save(home, current)
        keys, values = erasure.load_targets(home, current.erase_id)
        return _finish(services, fmt, current, keys, values, request, say)
    finally:
        if not request.dry_run:
            journal.release_lease(source)


def _finish(
    services: FormatServices,
    fmt: TargetFormat,
    current: ErasureState,
    keys: list[str],
    values: list[str],
    request: EraseRequest,
    say: Progress,
) -> ErasureState:
    home = services.settings.home
    lake = current.lake_table
    if current.step == PLANNED:
        say(f"deleting {sum(current.matched.values()):,} rows")
        frame = services.spark.createDataFrame([(k,) for k in keys], f"{UUID_COLUMN} STRING")
        # Rows without a record key are found again by the predicate (keys cannot name them).
        keyless_where = request.where if current.keyless else None
        commit = fmt.delete_rows(lake, sorted(current.matched), frame, keyless_where=keyless_where)
        current = current.advance(DELETED, commit_id=commit)
        erasure.save(home, current)
    if current.step == DELETED:
        say("purging old snapshots and unreferenced files")
        now = datetime.now(timezone.utc)
        purged = fmt.expire(lake, now) + fmt.remove_orphans(lake, now)
        current = current.advance(PURGED, purged=sorted(set(purged)))
        erasure.save(home, current)
    say("auditing every file under the table location")
    result = _audit(services, fmt, current, keys, values, request)
    current = current.advance(AUDITED if result["passed"] else PURGED, audit=result)
    erasure.save(home, current)
    if not result["passed"]:
        raise AuditFailed(
            f"the erasure audit of {lake} found erased data in {len(result['findings'])} "
            f"file(s), e.g. {result['findings'][0]}.",
            hint="Re-run the same command to purge and audit again; if it persists, the file "
            "is outside what the table format references: remove it by hand.",
        )
    erasure.forget_values(home, current.erase_id)
    return current


def _audit(
    services: FormatServices,
    fmt: TargetFormat,
    current: ErasureState,
    keys: list[str],
    values: list[str],
    request: EraseRequest,
) -> dict[str, Any]:
    lake = current.lake_table
    location = fmt.location(lake)
    if location is None:
        raise NotFound(f"{fmt.label} {lake} has no location to audit.")
    store = Store(location)
    result = audit_files(store, keys, values)
    if current.legacy_files:
        result.legacy_files = sorted(current.legacy_files)
        result.notes.append(legacy_note(current))
    mapping = fmt.stored_mapping(lake)
    if request.where is not None and mapping is not None:
        hits = predicate_hits(
            services.spark,
            store,
            mapping,
            fmt.target_type,
            request.where,
            with_partition_columns=fmt.files_hold_partition_columns,
            by_field_id=fmt.files_hold_field_ids,
        )
        if hits is None:
            result.notes.append("the predicate names a column kept only in table metadata")
        else:
            result.predicate_checked = True
            result.findings += [f"{path}: {n} rows match the predicate" for path, n in hits.items()]
    return result.to_json()
