"""The Delta log of a lakeshift target: create, evolve, commit batches, read back (no Spark).

Batches are committed with delta-rs (``create_write_transaction``): it writes the log with
optimistic concurrency. Two kinds of commit are written by hand, because delta-rs refuses them:
version 0 (delta-rs will not take our own column-mapping IDs and physical names) and
metadata-only schema changes (it has no API to rename or drop a column-mapped field). Both are
put-if-absent, as the Delta protocol requires of every commit.

Paths handed to delta-rs (``AddAction``/``RemoveAction``) are plain: delta-rs percent-encodes
them into the log itself, and ``get_add_actions`` returns them encoded.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import pyarrow.fs as pafs

from lakeshift.errors import (
    ConcurrentCommit,
    CorruptFile,
    LakeshiftError,
    NotFound,
    RefusedInput,
    SchemaMappingError,
)
from lakeshift.formats.commit_metadata import RUN_ID, TARGET_SOURCE_PROPERTY
from lakeshift.formats.delta.schema import (
    PHYSICAL_NAME_KEY,
    canonical_partition_value,
    max_column_id,
    partition_text,
    physical_names,
    struct_fields,
    type_changes,
    uses_timestamp_ntz,
)
from lakeshift.formats.foreign import foreign_commit_error
from lakeshift.storage import Store

if TYPE_CHECKING:
    from deltalake import DeltaTable

log = logging.getLogger(__name__)

LOG_DIR = "_delta_log"
MAPPING_MODE_KEY = "delta.columnMapping.mode"
MAX_COLUMN_ID_KEY = "delta.columnMapping.maxColumnId"
#: Custom commit metadata must live under this prefix: it cannot collide with the keys Delta
#: itself puts in ``commitInfo``, and :func:`lakeshift_commits` returns exactly these keys.
METADATA_PREFIX = "lakeshift."
ENGINE_INFO = "lakeshift"
#: Every commit lakeshift has delta-rs write carries this key (its hand-written ones say so in
#: ``engineInfo``): a commit without either is another writer's.
WRITER_KEY = f"{METADATA_PREFIX}writer"

PartitionValues = Mapping[str, "str | None"]


@dataclass(frozen=True)
class DeltaState:
    """The current metadata of a Delta table.

    Attributes:
        version: the latest commit version.
        schema: the parsed ``schemaString`` (logical names, column-mapping metadata).
        partition_columns: logical names, in partition order.
        configuration: the table properties.
    """

    version: int
    schema: dict[str, Any]
    partition_columns: tuple[str, ...]
    configuration: dict[str, str]


@dataclass(frozen=True)
class NewFile:
    """A Parquet file Spark wrote under the table root, to be added by :func:`commit_batch`.

    Attributes:
        path: relative to the table root, plain (not URL-encoded), ``/``-separated.
        partition_values: keyed by the LOGICAL partition column name; Delta's serialization
            (``"2024-01-31"``, ``"42"``), None for a null partition value.
    """

    path: str
    partition_values: PartitionValues


@dataclass(frozen=True)
class DataFile:
    """A file of the table's current version.

    Attributes:
        path: relative to the table root and decoded (absolute URI for a file elsewhere).
        size: bytes.
        rows: records in the file.
        partition_values: keyed by LOGICAL partition column name, as strings (None for null).
    """

    path: str
    size: int
    rows: int
    partition_values: dict[str, str | None]


@dataclass(frozen=True)
class CommitOutcome:
    """What :func:`commit_batch` did: ``committed`` False means the batch was already in the
    table (a retry); ``version`` is then the table's current version."""

    version: int
    committed: bool


# -- reading --------------------------------------------------------------------------------


def open_table(root: Store) -> DeltaTable:
    """delta-rs's view of the table at ``root``, reaching its store as lakeshift does."""
    from deltalake import DeltaTable

    return DeltaTable(root.table_uri(), storage_options=root.object_store_options())


def _load(root: Store) -> DeltaTable:
    from deltalake.exceptions import DeltaError, TableNotFoundError

    try:
        return open_table(root)
    except TableNotFoundError as e:
        raise NotFound(f"no Delta table at {root}.") from e
    except (DeltaError, OSError) as e:
        raise CorruptFile(
            f"the Delta log at {root}/{LOG_DIR} cannot be read: {e}",
            hint="Check the log's files (and storage permissions); lakeshift will not write "
            "to a table it cannot read.",
        ) from e


def _has_log(root: Store) -> bool:
    names = (f.path.rsplit("/", 1)[-1] for f in root.list_files(LOG_DIR, recursive=False))
    return any(n.endswith((".json", ".parquet")) and n[:20].isdigit() for n in names)


def _state_of(table: DeltaTable) -> DeltaState:
    metadata = table.metadata()
    return DeltaState(
        version=table.version(),
        schema=json.loads(table.schema().to_json()),
        partition_columns=tuple(metadata.partition_columns),
        configuration=dict(metadata.configuration),
    )


def table_state(root: Store) -> DeltaState | None:
    """The table's current metadata, or None when ``root`` has no Delta log yet."""
    if not _has_log(root):
        return None
    return _state_of(_load(root))


def snapshot(root: Store) -> tuple[DeltaState, list[DataFile]] | None:
    """The current version's metadata and files from one read of the log (None when ``root``
    has no Delta log yet)."""
    if not _has_log(root):
        return None
    table = _load(root)
    state = _state_of(table)
    return state, _active_files(root, table, state)


def current_files(root: Store) -> list[DataFile]:
    """The files of the table's current version."""
    table = _load(root)
    return _active_files(root, table, _state_of(table))


def _active_files(root: Store, table: DeltaTable, state: DeltaState) -> list[DataFile]:
    import pyarrow as pa

    actions = pa.table(table.get_add_actions(flatten=False)).to_pylist()
    out = []
    for action in actions:
        path = unquote(action["path"])
        rows = action.get("num_records")
        if rows is None:
            # No stats in the log (a file lakeshift did not add): the footer knows.
            rows = _footer_rows(root, path)
        # get_add_actions keys partition values by LOGICAL name, typed by the schema.
        typed = action.get("partition") or {}
        values = {k: partition_text(typed.get(k)) for k in state.partition_columns}
        out.append(DataFile(path, int(action["size_bytes"]), int(rows), values))
    return out


def _footer_rows(root: Store, path: str) -> int:
    import pyarrow.parquet as pq

    try:
        return int(pq.read_metadata(root.path(path), filesystem=root.fs).num_rows)
    except (OSError, ValueError) as e:
        raise CorruptFile(f"cannot read the Parquet footer of {root.uri(path)}: {e}") from e


def partition_row_counts(root: Store) -> dict[tuple[str | None, ...], int]:
    """Rows per partition (values in partition-column order) from the log (no data scan)."""
    table = _load(root)
    state = _state_of(table)
    counts: dict[tuple[str | None, ...], int] = {}
    for f in _active_files(root, table, state):
        key = tuple(f.partition_values[k] for k in state.partition_columns)
        counts[key] = counts.get(key, 0) + f.rows
    return counts


def lakeshift_commits(root: Store) -> list[dict[str, str]]:
    """The lakeshift metadata of every commit carrying a run id, newest first.

    Each dict holds the commit's ``lakeshift.*`` entries and its ``version`` (as a string).
    Commits whose log files were cleaned up are no longer listed.
    """
    out = []
    for entry in _load(root).history():
        if RUN_ID not in entry:
            continue
        props = {
            k: v
            for k, v in entry.items()
            if k.startswith(METADATA_PREFIX) and k != WRITER_KEY and isinstance(v, str)
        }
        props["version"] = str(entry["version"])
        out.append(props)
    return out


def is_lakeshift_commit(entry: Mapping[str, Any]) -> bool:
    """Whether a ``commitInfo`` (as ``history()`` returns it) is one lakeshift wrote."""
    return entry.get("engineInfo") == ENGINE_INFO or WRITER_KEY in entry or RUN_ID in entry


@dataclass(frozen=True)
class ForeignCommit:
    """A commit another writer made after lakeshift's newest one."""

    version: int
    operation: str
    engine: str

    def describe(self) -> str:
        return f"version {self.version} ({self.operation or 'no operation'} by {self.engine})"


def foreign_commits(table: DeltaTable) -> list[ForeignCommit]:
    """The commits after lakeshift's newest one that lakeshift did not write, oldest first.

    The log is the ground truth of who wrote what, whichever process asks: a commit whose
    ``commitInfo`` is not lakeshift's is another writer's (Delta's ``commitInfo`` is optional,
    so a commit without one is too). A table lakeshift has never committed to (adopted) has
    none until it does.
    """
    current = table.version()
    limit = 8
    while True:
        entries = table.history(limit)
        found: list[ForeignCommit] = []
        for entry in entries:  # newest first
            version = int(entry.get("version", -1))
            if is_lakeshift_commit(entry):
                return found[::-1]
            found.append(
                ForeignCommit(
                    version,
                    str(entry.get("operation") or ""),
                    str(entry.get("engineInfo") or entry.get("clientVersion") or "unknown"),
                )
            )
        if len(entries) < limit or limit > current:
            # No commit of lakeshift's in what the log keeps: a table it never wrote to.
            return []
        limit *= 4


def refuse_foreign_commits(root: Store, table: DeltaTable) -> None:
    """Raise :class:`ConcurrentCommit` naming every foreign commit since lakeshift's newest."""
    found = foreign_commits(table)
    if found:
        raise foreign_commit_error(f"the Delta table at {root}", [f.describe() for f in found])


# -- hand-written commits -------------------------------------------------------------------


def _put_if_absent(root: Store, version: int, actions: Sequence[dict[str, Any]]) -> bool:
    """Write commit ``version``; False when it already exists (another writer won).

    The store's create-once primitive (a conditional PUT on S3): readers never see a
    half-written commit, and of two writers of one version exactly one succeeds.
    """
    text = "".join(json.dumps(a, separators=(",", ":")) + "\n" for a in actions)
    return root.create(f"{LOG_DIR}/{version:020d}.json", text)


def _commit_info(operation: str) -> dict[str, Any]:
    return {
        "commitInfo": {
            "timestamp": _now_ms(),
            "operation": operation,
            "operationParameters": {},
            "engineInfo": ENGINE_INFO,
        }
    }


def _now_ms() -> int:
    return int(time.time() * 1000)


def _features(schema: dict[str, Any], current: Iterable[str] = ()) -> list[str]:
    # timestampNtz only when a field needs it: every feature listed is one more a reader must
    # support, and update_metadata adds it when a later schema brings a timestamp.
    needed = {"columnMapping", *current}
    if uses_timestamp_ntz(schema):
        needed.add("timestampNtz")
    return sorted(needed)


def _protocol(features: list[str]) -> dict[str, Any]:
    return {
        "protocol": {
            "minReaderVersion": 3,
            "minWriterVersion": 7,
            "readerFeatures": features,
            "writerFeatures": features,
        }
    }


def _mapping_configuration(
    schema: dict[str, Any], configuration: Mapping[str, str], previous_max: int = 0
) -> dict[str, str]:
    highest = max(previous_max, max_column_id(schema), int(configuration.get(MAX_COLUMN_ID_KEY, 0)))
    return {**configuration, MAPPING_MODE_KEY: "name", MAX_COLUMN_ID_KEY: str(highest)}


def create_table(
    root: Store, schema: dict[str, Any], partition_columns: list[str], configuration: dict[str, str]
) -> None:
    """Write version 0: protocol (column mapping), schema with our IDs, table properties.

    ``configuration`` must name the source (``lakeshift.source``). A version 0 that already
    exists for the same source is left as it is (a re-run after a crash).

    Raises:
        RefusedInput: ``root`` holds a Delta table lakeshift did not create for this source.
        SchemaMappingError: a partition column is not a top-level field of ``schema``.
    """
    source = configuration.get(TARGET_SOURCE_PROPERTY)
    if not source:
        raise LakeshiftError(f"create_table({root}) needs {TARGET_SOURCE_PROPERTY!r}.")
    names = [f["name"] for f in schema["fields"]]
    missing = [c for c in partition_columns if c not in names]
    if missing:
        raise SchemaMappingError(f"partition columns {missing} are not in the schema of {root}.")
    if not _has_log(root):
        metadata = {
            "id": str(uuid.uuid4()),
            "format": {"provider": "parquet", "options": {}},
            "schemaString": json.dumps(schema),
            "partitionColumns": list(partition_columns),
            "configuration": _mapping_configuration(schema, configuration),
            "createdTime": _now_ms(),
        }
        actions = [_commit_info("CREATE TABLE"), _protocol(_features(schema))]
        if _put_if_absent(root, 0, [*actions, {"metaData": metadata}]):
            log.info("created Delta log at %s", root)
            return
    existing = table_state(root)
    owner = existing.configuration.get(TARGET_SOURCE_PROPERTY) if existing else None
    if owner != source:
        raise RefusedInput(
            f"{root} already holds a Delta table "
            + (f"lakeshift created for {owner}" if owner else "that lakeshift did not create")
            + f"; it will not be used for {source}.",
            hint="Pick another target location, or remove that table if it is not needed.",
        )
    log.info("Delta log at %s already exists for %s; left as it is", root, source)


def update_metadata(
    root: Store,
    schema: dict[str, Any],
    configuration: dict[str, str],
    expected_version: int,
    *,
    guard: bool = True,
    operation: str = "UPDATE SCHEMA",
) -> int:
    """Commit a new schema and table properties (no data change) at ``expected_version + 1``.

    ``configuration`` is merged over the current properties. Renamed partition columns are
    renamed in ``partitionColumns`` too. Returns the new version.

    ``guard`` also refuses commits of other writers since lakeshift's newest
    (:func:`refuse_foreign_commits`); ``operation`` names the commit in ``commitInfo``.

    Raises:
        SchemaMappingError: a field changed type, or a kept field changed physical name.
        ConcurrentCommit: the table is no longer at ``expected_version``, or (``guard``)
            another writer committed since lakeshift's newest commit.
    """
    table = _load(root)
    state = _state_of(table)
    _check_version(root, state.version, expected_version)
    if guard:
        refuse_foreign_commits(root, table)
    _check_evolution(root, state.schema, schema)
    metadata = table.metadata()
    new_metadata = {
        "id": metadata.id,
        "name": metadata.name,
        "description": metadata.description,
        "format": {"provider": "parquet", "options": {}},
        "schemaString": json.dumps(schema),
        "partitionColumns": _renamed_partition_columns(root, state, schema),
        "configuration": _mapping_configuration(
            schema,
            {**state.configuration, **configuration},
            int(state.configuration.get(MAX_COLUMN_ID_KEY, 0)),
        ),
        "createdTime": metadata.created_time,
    }
    actions = [_commit_info(operation)]
    current = set(table.protocol().writer_features or [])
    features = _features(schema, current)
    if set(features) != current:
        actions.append(_protocol(sorted({*features, *(table.protocol().reader_features or [])})))
    version = expected_version + 1
    if not _put_if_absent(root, version, [*actions, {"metaData": new_metadata}]):
        raise _conflict(root, expected_version, version)
    return version


def _check_evolution(root: Store, old: dict[str, Any], new: dict[str, Any]) -> None:
    changes = type_changes(old, new)
    if changes:
        raise SchemaMappingError(
            f"Delta table {root} cannot change column types in place: " + "; ".join(changes),
            hint="Restore the Hive type, or migrate into a new --target.",
        )
    # Files are read by physical name: a kept field that moved to another name would read
    # another column's data (or nulls).
    before = {f["metadata"].get("delta.columnMapping.id"): f for f in struct_fields(old)}
    moved = [
        f["name"]
        for f in struct_fields(new)
        if (b := before.get(f["metadata"].get("delta.columnMapping.id"))) is not None
        and b["metadata"].get(PHYSICAL_NAME_KEY) != f["metadata"].get(PHYSICAL_NAME_KEY)
    ]
    if moved:
        raise SchemaMappingError(
            f"the new schema of Delta table {root} changes the physical names of {moved}.",
            hint="This is a lakeshift bug: please report it with the log file.",
        )


def _renamed_partition_columns(root: Store, state: DeltaState, schema: dict[str, Any]) -> list[str]:
    def ids(s: dict[str, Any]) -> dict[str, Any]:
        return {f["name"]: f["metadata"].get("delta.columnMapping.id") for f in s["fields"]}

    old_ids = ids(state.schema)
    new_names = {v: k for k, v in ids(schema).items()}
    out = []
    for column in state.partition_columns:
        if old_ids.get(column) not in new_names:
            raise SchemaMappingError(
                f"partition column {column!r} of the Delta table at {root} is missing from the new "
                "schema; Delta cannot drop a partition column.",
                hint="Migrate into a new --target.",
            )
        out.append(new_names[old_ids[column]])
    return out


def _check_version(root: Store, current: int, expected: int | None) -> None:
    if expected is not None and current != expected:
        raise _conflict(root, expected, current)


def _conflict(root: Store, expected: int, found: int) -> ConcurrentCommit:
    return ConcurrentCommit(
        f"another writer committed to the Delta table at {root}: lakeshift read version "
        f"{expected}, the table is now at version {found}.",
        hint="Nothing was committed by this step. Make sure no other job writes to the table, "
        "then re-run the same command (it resumes).",
    )


# -- batch commits --------------------------------------------------------------------------


def commit_batch(
    root: Store,
    files: list[NewFile],
    *,
    replace: list[dict[str, str | None]] | None,
    app_id: str,
    app_version: int,
    metadata: dict[str, str],
    expected_version: int | None,
    guard: bool = True,
) -> CommitOutcome:
    """Add ``files`` (and remove the current files of the ``replace`` partitions) in one commit.

    The commit records ``Transaction(app_id, app_version)``: a batch whose app version is
    already recorded is not committed again (delta-rs would accept the replay and duplicate
    rows). Files are checked (exist, Parquet footer, partition) before anything is written.
    ``guard`` refuses to commit on top of another writer's commits since lakeshift's newest
    (:func:`refuse_foreign_commits`); the commit itself goes to the next version only (no
    rebase), so one landing meanwhile is refused too.

    Raises:
        ConcurrentCommit: the table is not at ``expected_version`` (or moved during the
            commit), or (``guard``) another writer committed since lakeshift's newest commit.
        NotFound: a file does not exist.
        CorruptFile: a file's Parquet footer cannot be read.
        RefusedInput: bad metadata, path, partition values or columns of a file.
    """
    _check_metadata(root, metadata)
    table = _load(root)
    recorded = table.transaction_version(app_id)
    if recorded is not None and recorded >= app_version:
        log.info("batch %s/%s is already committed to %s", app_id, app_version, root)
        return CommitOutcome(table.version(), committed=False)
    state = _state_of(table)
    _check_version(root, state.version, expected_version)
    if guard:
        refuse_foreign_commits(root, table)
    keys = _replace_keys(root, state, replace)
    current = _active_files(root, table, state)
    adds = _add_actions(root, state, files, keys, {f.path for f in current})
    removes = _remove_actions(state, current, keys) if keys is not None else []
    return _commit(root, table, state, [*removes, *adds], app_id, app_version, metadata)


def _commit(
    root: Store,
    table: DeltaTable,
    state: DeltaState,
    actions: list[Any],
    app_id: str,
    app_version: int,
    metadata: dict[str, str],
) -> CommitOutcome:
    from deltalake.exceptions import CommitFailedError, DeltaError
    from deltalake.transaction import CommitProperties, PostCommitHookProperties, Transaction

    properties = CommitProperties(
        custom_metadata={**metadata, WRITER_KEY: ENGINE_INFO},
        # No silent rebase onto another writer's commit: the checks above hold for this
        # version only, so losing the race is an error (see the handler).
        max_commit_retries=0,
        app_transactions=[Transaction(app_id, app_version)],
    )
    # lakeshift_commits reads the history: keep it rather than let a commit expire old logs.
    hooks = PostCommitHookProperties(cleanup_expired_logs=False)
    try:
        table.create_write_transaction(
            actions,
            mode="append",
            schema=table.schema(),
            partition_by=list(state.partition_columns),
            commit_properties=properties,
            post_commithook_properties=hooks,
        )
    except CommitFailedError as e:
        reloaded = _load(root)
        recorded = reloaded.transaction_version(app_id)
        if recorded is not None and recorded >= app_version:
            return CommitOutcome(reloaded.version(), committed=False)
        raise _conflict(root, state.version, reloaded.version()) from e
    except DeltaError as e:
        raise RefusedInput(
            f"delta-rs refused the commit to the Delta table at {root}: {e}",
            hint="Nothing was committed. Check the table's protocol and the log.",
        ) from e
    return CommitOutcome(state.version + 1, committed=True)


def lakeshift_commit_properties(operation: str) -> Any:
    """delta-rs ``CommitProperties`` marking a commit (e.g. vacuum's) as lakeshift's."""
    from deltalake.transaction import CommitProperties

    return CommitProperties(
        custom_metadata={WRITER_KEY: ENGINE_INFO, f"{METADATA_PREFIX}operation": operation}
    )


def _check_metadata(root: Store, metadata: Mapping[str, str]) -> None:
    bad = [
        k
        for k, v in metadata.items()
        if not k.startswith(METADATA_PREFIX) or not isinstance(v, str)
    ]
    if bad:
        raise RefusedInput(
            f"commit metadata for {root} must be strings under keys starting with "
            f"{METADATA_PREFIX!r}; refused: {bad}."
        )


def _partition_key(
    root: Store, state: DeltaState, values: PartitionValues, what: str
) -> tuple[str | None, ...]:
    """The values in partition-column order, checked: every column, canonical text."""
    if set(values) != set(state.partition_columns):
        raise RefusedInput(
            f"{what} has partition values for {sorted(values)}, but the Delta table at {root} "
            f"is partitioned by {list(state.partition_columns)}."
        )
    by_name = {f["name"]: f for f in state.schema["fields"]}
    key = []
    for column in state.partition_columns:
        value = values[column]
        canonical = canonical_partition_value(value, by_name[column]["type"])
        if canonical != value:
            raise RefusedInput(
                f"{what}: partition value {value!r} of {column!r} is not in Delta's form "
                f"({by_name[column]['type']}: {canonical!r}).",
                hint="Pass partition values as Delta serializes them.",
            )
        key.append(value)
    return tuple(key)


def _replace_keys(
    root: Store, state: DeltaState, replace: list[dict[str, str | None]] | None
) -> set[tuple[str | None, ...]] | None:
    if replace is None:
        return None
    return {_partition_key(root, state, values, "a replaced partition") for values in replace}


def _checked_path(root: Store, path: str) -> str:
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or ".." in parts or parts[0] == LOG_DIR:
        raise RefusedInput(f"file path {path!r} is not a relative path inside {root}.")
    return "/".join(parts)


def _add_actions(
    root: Store,
    state: DeltaState,
    files: list[NewFile],
    replace: set[tuple[str | None, ...]] | None,
    current: set[str],
) -> list[Any]:
    from deltalake.transaction import AddAction

    paths = [f.path for f in files]
    repeated = sorted({p for p in paths if paths.count(p) > 1 or p in current})
    if repeated:
        raise RefusedInput(
            f"files {repeated[:5]} are listed twice or already in the Delta table at {root}; "
            "adding them again would duplicate rows."
        )
    physical = physical_names(state.schema)
    out = []
    for f in files:
        full = _checked_path(root, f.path)
        key = _partition_key(root, state, f.partition_values, f"file {f.path}")
        if replace is not None and key not in replace:
            raise RefusedInput(
                f"file {f.path} belongs to partition {key}, which this commit does not replace."
            )
        info = root.fs.get_file_info(root.path(full))
        if info.type != pafs.FileType.File:
            raise NotFound(
                f"file {root.uri(full)} to be committed to the Delta table at {root} does not "
                "exist.",
                hint="Nothing was committed; re-run the batch to write its files again.",
            )
        stats = file_stats(root, full, state.schema, state.partition_columns)
        out.append(
            AddAction(
                path=f.path,
                size=int(info.size or 0),
                # Keyed by the PHYSICAL name: keyed by the logical one the table stops loading.
                partition_values={physical[k]: v for k, v in f.partition_values.items()},
                modification_time=int((info.mtime_ns or 0) // 1_000_000),
                data_change=True,
                stats=json.dumps(stats, separators=(",", ":")),
            )
        )
    return out


def _remove_actions(
    state: DeltaState, current: list[DataFile], replace: set[tuple[str | None, ...]]
) -> list[Any]:
    from deltalake.transaction import RemoveAction

    physical = physical_names(state.schema)
    now = _now_ms()
    return [
        RemoveAction(
            path=f.path,
            data_change=True,
            deletion_timestamp=now,
            size=f.size,
            partition_values={physical[k]: v for k, v in f.partition_values.items()},
        )
        for f in current
        if tuple(f.partition_values[k] for k in state.partition_columns) in replace
    ]


# -- file statistics ------------------------------------------------------------------------

#: Delta types whose Parquet min/max go into the log. Floats are left out (NaN and -0.0 make
#: Parquet's bounds unreliable), decimals too (delta-rs itself keeps them as lossy JSON
#: floats), booleans and binary as Delta does; a missing bound only costs data skipping.
_BOUNDED = {"byte", "short", "integer", "long", "string", "date", "timestamp_ntz"}
#: Longer string bounds are cut (min) or left out (max): they would bloat the log.
_STRING_BOUND_LENGTH = 32
_EPOCH = datetime(1970, 1, 1)
#: Parquet timestamp unit -> (multiplier, divisor) to microseconds.
_TO_MICROS = {"milliseconds": (1000, 1), "microseconds": (1, 1), "nanoseconds": (1, 1000)}


def file_stats(
    root: Store, path: str, schema: dict[str, Any], partition_columns: Sequence[str]
) -> dict[str, Any]:
    """Delta ``stats`` of a Parquet file from its footer: numRecords, and per top-level
    primitive column (keyed by PHYSICAL name) nullCount, minValues and maxValues.

    Raises:
        CorruptFile: the footer cannot be read.
        RefusedInput: the file has a column the table does not (e.g. a logical name).
    """
    import pyarrow.parquet as pq

    try:
        footer = pq.read_metadata(root.path(path), filesystem=root.fs)
        top_level = footer.schema.to_arrow_schema().names
    except (OSError, ValueError) as e:
        raise CorruptFile(f"cannot read the Parquet footer of {root.uri(path)}: {e}") from e
    names = physical_names(schema)
    unknown = [n for n in top_level if n not in set(names.values())]
    if unknown:
        raise RefusedInput(
            f"file {path} has columns {unknown} that the Delta table does not have; its files "
            f"must use the physical column names {sorted(names.values())}."
        )
    types = {
        names[f["name"]]: f["type"]
        for f in schema["fields"]
        if f["name"] not in partition_columns and isinstance(f["type"], str)
    }
    stats: dict[str, Any] = {"numRecords": footer.num_rows}
    nulls: dict[str, int] = {}
    lows: dict[str, Any] = {}
    highs: dict[str, Any] = {}
    for i in range(footer.num_columns):
        column = footer.schema.column(i)
        # A top-level primitive's path is its own name; nested leaves get no stats.
        if column.path != column.name or column.name not in types:
            continue
        groups = [
            (footer.row_group(r).column(i).statistics, footer.row_group(r).num_rows)
            for r in range(footer.num_row_groups)
        ]
        if any(s is None or not s.has_null_count for s, _ in groups):
            continue
        nulls[column.name] = sum(s.null_count for s, _ in groups)
        low, high = _bounds(column, types[column.name], groups)
        if low is not None:
            lows[column.name] = low
        if high is not None:
            highs[column.name] = high
    if nulls:
        stats["nullCount"] = nulls
    if lows:
        stats["minValues"] = lows
    if highs:
        stats["maxValues"] = highs
    return stats


def _bounds(column: Any, delta: str, groups: list[tuple[Any, int]]) -> tuple[Any, Any]:
    """(min, max) in Delta's JSON form, each None when it cannot be given exactly."""
    # A row group of nulls only has no bounds, and needs none.
    valued = [s for s, rows in groups if s.null_count < rows]
    if delta not in _BOUNDED or not valued or not all(s.has_min_max for s in valued):
        return None, None
    logical = json.loads(column.logical_type.to_json()) if column.logical_type else {}
    kind = logical.get("Type", "None")
    if delta in ("byte", "short", "integer", "long"):
        if column.physical_type not in ("INT32", "INT64") or kind not in ("None", "Int"):
            return None, None
        if logical.get("isSigned") is False:
            return None, None
        return min(s.min for s in valued), max(s.max for s in valued)
    if delta == "string":
        if kind != "String":
            return None, None
        low, high = min(s.min for s in valued), max(s.max for s in valued)
        # A prefix is still a lower bound; a cut max would not be an upper bound.
        return low[:_STRING_BOUND_LENGTH], high if len(high) <= _STRING_BOUND_LENGTH else None
    if delta == "date":
        if kind != "Date":
            return None, None
        return min(s.min for s in valued).isoformat(), max(s.max for s in valued).isoformat()
    if kind != "Timestamp" or column.physical_type != "INT64":
        return None, None  # INT96 has no usable statistics
    multiplier, divisor = _TO_MICROS[logical["timeUnit"]]
    low_us = min(s.min_raw for s in valued) * multiplier // divisor
    high_us = -(-max(s.max_raw for s in valued) * multiplier // divisor)
    return _timestamp_bound(low_us, up=False), _timestamp_bound(high_us, up=True)


def _timestamp_bound(micros: int, *, up: bool) -> str | None:
    # Delta readers may keep only milliseconds: round outwards so the bound still holds.
    millis = -(-micros // 1000) if up else micros // 1000
    try:
        value = _EPOCH + timedelta(milliseconds=millis)
    except OverflowError:
        return None
    return value.isoformat(timespec="milliseconds")
