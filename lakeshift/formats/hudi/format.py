"""Apache Hudi copy-on-write: Spark tasks write base files with pyarrow, the driver writes the
timeline (no Hudi jars can be had here).

Each batch is one instant: ``commit`` (BULK_INSERT) for partitions new to the table, else
``replacecommit`` (INSERT_OVERWRITE) naming the partitions' current file groups, whose files a
clean removes once the retention has passed (Hudi's automatic cleaner). Files a task attempt wrote
but the job did not report are deleted before the instant completes (Hudi's marker
reconciliation), and an instant left pending by a crash is rolled back by the next write.
Current file slices are planned by hudi-rs. Engines without Hudi (this machine's Spark) read
the routing table: a plain Parquet table whose partitions point at directories holding exactly
the current slices (hard links locally, server-side copies on object stores), one directory per
partition and instant.
"""

from __future__ import annotations

import json
import logging
import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from lakeshift import profiling
from lakeshift.errors import RefusedInput, SchemaMappingError
from lakeshift.formats.arrow_path import FileReader, finer_counts, task_count
from lakeshift.formats.base import (
    Backfilled,
    BatchResult,
    CommitRecord,
    EntryLocations,
    FormatServices,
    LakeSide,
    SyncResult,
    TargetFormat,
    catalog_entry,
)
from lakeshift.formats.commit_metadata import (
    TARGET_SOURCE_PROPERTY,
    commit_properties,
    latest_backfills,
)
from lakeshift.formats.delta.route_table import route_table_name, sync_route_table
from lakeshift.formats.foreign import foreign_commit_error
from lakeshift.formats.hudi import cleaning, hive_sync, properties
from lakeshift.formats.hudi.avro_schema import avro_schema, create_schema, with_meta_fields
from lakeshift.formats.hudi.base_file import (
    FILE_NAME,
    META_COLUMNS,
    PARTITION_PATH,
    RECORD_KEY,
    file_id_of,
    instant_of,
)
from lakeshift.formats.hudi.clean import clean as write_clean
from lakeshift.formats.hudi.commit_metadata import (
    BULK_INSERT,
    DELETE,
    INSERT_OVERWRITE,
    commit_metadata,
    inflight_metadata,
    write_stat,
)
from lakeshift.formats.hudi.instant_schemas import requested_replace
from lakeshift.formats.hudi.routing import ROUTE_GRACE_SECONDS, drop_old_route_dirs, link_slices
from lakeshift.formats.hudi.task_writer import (
    ARROW_STATS_DDL,
    REWRITE_DDL,
    STATS_DDL,
    arrow_task_writer,
    rewrite_task,
    task_writer,
)
from lakeshift.formats.hudi.timeline import (
    COMMIT,
    COMPLETED,
    REPLACE,
    Instant,
    Timeline,
    marker_dir,
)
from lakeshift.hive.types import HiveType
from lakeshift.inspect.model import TableInventory
from lakeshift.metastore import ddl
from lakeshift.metastore.partition_names import parse_partition_name
from lakeshift.schema_map.mapping import (
    PARTITIONPATH_COLUMN,
    UUID_COLUMN,
    build_mapping,
    save_mapping,
)
from lakeshift.schema_map.model import FieldMapping
from lakeshift.storage import Store
from lakeshift.validate.canonical import Fingerprint

if TYPE_CHECKING:
    import pyarrow as pa
    from hive_metastore.ttypes import Table
    from pyspark.sql import DataFrame

log = logging.getLogger(__name__)
SIDECAR = f"{properties.HOODIE}/.lakeshift"
#: The sidecar's list of other writers' completed instants lakeshift was told to accept.
ACCEPTED_KEY = "accepted_instants"
#: Actions whose completed instants carry ``extraMetadata`` (where lakeshift's record is).
_WRITE_ACTIONS = (COMMIT, REPLACE)
ROUTE_DIR = f"{SIDECAR}/route"
ROUTE_TABLE_PARAM = "lakeshift.route-table"
#: Rows per base file at most: one bloom-filter row (Hudi's DYNAMIC_V0 default capacity).
MAX_FILE_ROWS = 60_000
#: Slices a later instant superseded or replaced stay this long, then the clean after a later
#: commit removes them (Hudi's automatic KEEP_LATEST_BY_HOURS cleaner): a Hudi reader planned
#: on them may still be reading, and time travel reaches them meanwhile. The routing view's link
#: directories to them are kept as long.
CLEAN_RETAIN = timedelta(seconds=ROUTE_GRACE_SECONDS)


@dataclass
class _ArrowRows:
    """A batch's rows as the Arrow path writes them: the tasks' reader of the source files,
    the base files' schema, and (once written) each source file's observed fingerprint."""

    reader: FileReader
    schema: pa.Schema
    sums: list[Fingerprint] = field(default_factory=list)
    #: partition -> its source timestamps the tasks cut to microseconds (``arrow_path``)
    finer: dict[str, int] = field(default_factory=dict)

    def collect(self, stats: DataFrame) -> list[Any]:
        """Run the write; keep each source file's fingerprint and count of timestamps cut,
        give back every file's stats."""
        rows = stats.collect()
        firsts = [r for r in rows if r["source"] is not None]
        self.sums = [Fingerprint(r["source_rows"], r["sum1"], r["sum2"]) for r in firsts]
        files = self.reader.files
        self.finer = finer_counts(
            files, ((files[r["source"]].partition, r["finer"]) for r in firsts)
        )
        return rows

    def observed(self) -> Fingerprint:
        from lakeshift.validate.fingerprints import combined

        return combined(self.sums)


class HudiFormat(TargetFormat):
    """Hudi copy-on-write tables (table version 6, or 8 by setting), written by lakeshift."""

    name = "hudi"
    label = "Hudi table"
    files_hold_partition_columns = True
    files_hold_field_ids = False
    has_arrow_path = True

    def __init__(self, services: FormatServices) -> None:
        super().__init__(services)
        self._locations = EntryLocations(self.client)
        # Per table location: unmarked completed instants found to be an older lakeshift's.
        self._known_own: dict[str, set[str]] = {}

    # -- where the table is -----------------------------------------------------------

    def _entry(self, target: str) -> Table | None:
        return catalog_entry(self.client, target)

    def location(self, target: str) -> str:
        return self._locations.of(target, lambda: self._entry(target))

    def root(self, target: str) -> Store:
        return Store(self.location(target))

    def _sidecar(self, target: str) -> dict[str, Any]:
        text = self.root(target).read_text_if_exists(f"{SIDECAR}/table.json")
        return dict(json.loads(text)) if text is not None else {}

    def _write_sidecar(self, target: str, content: dict[str, Any]) -> None:
        self.root(target).write(f"{SIDECAR}/table.json", json.dumps(content, indent=1))

    # -- identity and schema --------------------------------------------------------------

    def exists(self, target: str) -> bool:
        return self.root(target).is_file(f"{properties.HOODIE}/{properties.PROPERTIES}")

    def describe(self, target: str) -> str:
        """Copy-on-write and the table version: the table's own, else what it will be made."""
        if self.exists(target):
            version, _ = properties.layout_of(self.root(target).child(properties.HOODIE))
        else:
            version = self.services.settings.hudi_table_version
        return f"Hudi copy-on-write, table version {version}"

    def owner(self, target: str) -> str | None:
        value = self._sidecar(target).get("source")
        return str(value) if value else None

    def stored_mapping(self, target: str) -> FieldMapping | None:
        raw = self._sidecar(target).get("mapping")
        return FieldMapping.from_json(raw) if raw else None

    def target_type(self, hive: HiveType) -> HiveType:
        from lakeshift.formats.iceberg import iceberg_hive_type

        # Avro has no 8/16-bit integers, CHAR or VARCHAR: the same rule as Iceberg's.
        return iceberg_hive_type(hive)

    def sync(self, target: str, inventory: TableInventory, *, source: str) -> SyncResult:
        settings = self.services.settings
        sidecar = self._sidecar(target)  # read once: the mapping, and the properties written
        previous = FieldMapping.from_json(sidecar["mapping"]) if sidecar.get("mapping") else None
        mapping = build_mapping(
            inventory,
            previous,
            semantics=settings.hive,
        )
        if previous is not None:
            _check_evolution(target, previous, mapping)
        root = self.root(target)
        created = not self.exists(target)
        if created:
            db, _, name = target.partition(".")
            schema = avro_schema(name, self._arrow_schema(inventory, mapping))
            version = settings.hudi_table_version
            props = properties.table_properties(db, name, create_schema(schema), version)
            properties.init_table(root, props)
            log.info("created Hudi table %s (table version %d) at %s", target, version, root)
        else:
            current = self._check_writable(target, sidecar)
            version = int(current[properties.VERSION_KEY])
            if version != settings.hudi_table_version:
                log.warning(
                    "Hudi table %s keeps its table version %d (setting hudi_table_version=%d "
                    "applies to new tables)",
                    target,
                    version,
                    settings.hudi_table_version,
                )
        # What lakeshift wrote (or, for a table an older lakeshift made, what it found first):
        # any later change means another writer or an upgrade (see _check_writable).
        written = sidecar.get("properties") or properties.read_properties(
            root.child(properties.HOODIE)
        )
        accepted = list(sidecar.get(ACCEPTED_KEY) or [])
        if not created and not sidecar.get("source"):
            # Adopted: the instants found are the table as lakeshift takes it.
            accepted += [i.time for i in self._foreign(target, sidecar) if i.state == COMPLETED]
        self._write_sidecar(
            target,
            {
                "source": source,
                "mapping": mapping.to_json(),
                "properties": written,
                ACCEPTED_KEY: sorted(set(accepted)),
            },
        )
        self._register(target, source, inventory, mapping)
        save_mapping(mapping, settings.home)
        return SyncResult(mapping, created, previous is not None and previous != mapping)

    def _arrow_schema(self, inventory: TableInventory, mapping: FieldMapping) -> Any:
        from pyspark.sql.pandas.types import to_arrow_schema

        frame = self.batch_frame(inventory, mapping, [], "uuid")[0]
        return to_arrow_schema(frame.schema)

    def _register(
        self, target: str, source: str, inventory: TableInventory, mapping: FieldMapping
    ) -> None:
        """The metastore entry Hudi's Hive sync writes (``hive_sync``); its columns follow
        columns added later. Partitions are synced after every commit."""
        from pyspark.sql.pandas.types import from_arrow_schema

        columns = [
            (f.name, str(self.target_type(_hive(f.type))))
            for f in mapping.fields
            if f.name != PARTITIONPATH_COLUMN
        ]
        spark_fields = [
            {"name": c, "type": "string", "nullable": True, "metadata": {}} for c in META_COLUMNS
        ] + from_arrow_schema(self._arrow_schema(inventory, mapping)).jsonValue()["fields"]
        entry = self._entry(target)
        if entry is None:
            wanted = hive_sync.table_entry(
                target,
                self.location(target),
                columns,
                spark_fields,
                {TARGET_SOURCE_PROPERTY: source, ROUTE_TABLE_PARAM: route_table_name(target)},
            )
            self.client.create_table(wanted)
            return
        known = [(c.name, c.type) for c in entry.sd.cols][len(META_COLUMNS) :]
        if entry.partitionKeys and known != columns:  # columns added at the end
            db, _, name = target.partition(".")
            entry.sd.cols = ddl.storage_descriptor(
                [*((c, "string") for c in META_COLUMNS), *columns], entry.sd.location, "parquet"
            ).cols
            entry.parameters = {
                **(entry.parameters or {}),
                **hive_sync.spark_schema_parameters(spark_fields),
            }
            self.client.alter_table(db, name, entry)

    def _hive_sync(
        self, target: str, instant: str, completed_at: str, current: dict[str, list[Any]]
    ) -> None:
        """Hive sync after a commit: the entry lists exactly the table's partitions
        (``current``: the slices per partition, as ``current_slices`` plans them)."""
        if self._entry(target) is None:
            return
        paths = sorted(p for p in current if p)
        location = self.location(target)
        hive_sync.sync_partitions(self.client, target, location, paths, instant, completed_at)

    # -- commits --------------------------------------------------------------------------

    def _timeline(self, target: str) -> Timeline:
        return Timeline(self.root(target), own=True)

    def _foreign(self, target: str, sidecar: dict[str, Any] | None = None) -> list[Instant]:
        """Instants on the timeline lakeshift did not write, oldest first: pending ones
        anywhere, completed ones unless accepted (``ACCEPTED_KEY``). lakeshift's own are
        marked when it starts them (``Timeline.own_times``); a completed commit of an older
        lakeshift, unmarked, is known by the lakeshift keys of its ``extraMetadata``."""
        timeline = self._timeline(target)
        own = timeline.own_times()
        record = self._sidecar(target) if sidecar is None else sidecar
        accepted = set(record.get(ACCEPTED_KEY) or [])
        known = self._known_own.setdefault(self.location(target), set())
        instants = timeline.instants()
        # An instant's requested and inflight files belong to its completed one, if any.
        completed = {i.time: i for i in instants if i.state == COMPLETED}
        out: dict[str, Instant] = {}
        for instant in instants:
            if instant.time in own or instant.time in known or instant.time in out:
                continue
            final = completed.get(instant.time, instant)
            if final.state == COMPLETED:
                if final.time in accepted:
                    continue
                if final.action in _WRITE_ACTIONS and _is_lakeshift_commit(
                    timeline.metadata(final)
                ):
                    known.add(final.time)
                    continue
            out[final.time] = final
        return list(out.values())

    def foreign_commits(self, target: str) -> list[str]:
        return [_describe(i) for i in self._foreign(target)]

    def accept_foreign_commits(self, target: str) -> list[str]:
        """Other writers' completed instants go into the sidecar's accepted list; a pending
        one (a write still running, or crashed) is never accepted."""
        sidecar = self._sidecar(target)
        found = self._foreign(target, sidecar)
        completed = [i for i in found if i.state == COMPLETED]
        if completed:
            accepted = {*(sidecar.get(ACCEPTED_KEY) or []), *(i.time for i in completed)}
            self._write_sidecar(target, {**sidecar, ACCEPTED_KEY: sorted(accepted)})
            log.warning(
                "Hudi table %s: accepted other writers' instants: %s",
                target,
                [_describe(i) for i in completed],
            )
        return [_describe(i) for i in completed]

    def _refuse_foreign(self, target: str, *, pending_only: bool = False) -> None:
        """Refuse other writers' instants (``pending_only``: only their pending ones, which
        any write would otherwise roll back)."""
        found = [i for i in self._foreign(target) if not pending_only or i.state != COMPLETED]
        if found:
            raise foreign_commit_error(f"Hudi table {target}", [_describe(i) for i in found])

    def backfilled(self, target: str) -> dict[str, Backfilled]:
        if not self.exists(target):
            return {}
        timeline = self._timeline(target)
        commits = []
        for instant in timeline.completed({COMMIT, REPLACE}):
            extra = timeline.metadata(instant).get("extraMetadata") or {}
            commits.append((int(instant.time), {k: str(v) for k, v in extra.items()}))
        return latest_backfills(reversed(commits))  # newest first

    def _check_writable(self, target: str, sidecar: dict[str, Any] | None = None) -> dict[str, str]:
        """Refuse to write into a table a real Hudi writer has touched: one with a metadata
        table (lakeshift would leave it stale, and Hudi readers that use it would miss
        lakeshift's commits), or whose ``hoodie.properties`` changed since lakeshift wrote it
        (another writer, a Hudi upgrade to another table version). Returns the properties;
        ``sidecar``: lakeshift's record when the caller has read it already."""
        hoodie = self.root(target).child(properties.HOODIE)
        current = properties.read_properties(hoodie)
        if hoodie.exists("metadata") or current.get("hoodie.table.metadata.partitions"):
            raise RefusedInput(
                f"Hudi table {target} has a metadata table (.hoodie/metadata): a Hudi writer with "
                "hoodie.metadata.enable=true wrote to it. lakeshift writes no metadata table, so "
                "its commits would leave that one stale and Hudi readers using it would miss them.",
                hint="Keep writing this table with Hudi, or delete its metadata table with Hudi "
                "(a write with hoodie.metadata.enable=false) before lakeshift writes again.",
            )
        expected = (self._sidecar(target) if sidecar is None else sidecar).get("properties")
        if not expected:
            return current
        changed = sorted(k for k in {*expected, *current} if expected.get(k) != current.get(k))
        if changed:
            shown = ", ".join(
                f"{k}: {expected.get(k, '(none)')} -> {current.get(k, '(none)')}"
                for k in changed[:4]
            )
            raise RefusedInput(
                f"hoodie.properties of Hudi table {target} changed since lakeshift wrote it "
                f"({shown}): another writer or a Hudi upgrade changed the table.",
                hint="Keep writing this table with Hudi, or migrate into a new --target; "
                "lakeshift writes only the table version it created.",
            )
        return current

    def _rollback_pending(self, target: str, *, guard: bool = False) -> None:
        """Remove what lakeshift's crashed writes left: their pending instants and every file
        carrying their instant time (never visible: readers take completed instants only).
        First of every write: it refuses tables another writer changed (``_check_writable``)
        and another writer's pending instant, which it never touches; ``guard`` (a
        migration's writes) refuses other writers' completed instants too."""
        self._check_writable(target)
        self._refuse_foreign(target, pending_only=not guard)
        root = self.root(target)
        timeline = self._timeline(target)
        for instant in timeline.pending():
            for stored in root.list_files():
                if stored.name.endswith(f"_{instant.time}.parquet") and properties.HOODIE not in (
                    stored.path.split("/")
                ):
                    root.delete(stored.path)
            timeline.remove_pending(instant)
            log.info("rolled back pending Hudi instant %s of %s", instant.time, target)

    def current_slices(self, target: str) -> dict[str, list[Any]]:
        """Latest file slices per partition path, planned by hudi-rs."""
        import hudi

        root = self.root(target)
        builder = hudi.HudiTableBuilder.from_base_uri(root.table_uri())
        table = builder.with_storage_options(root.object_store_options()).build()
        out: dict[str, list[Any]] = {}
        for file_slice in table.get_file_slices():
            out.setdefault(file_slice.partition_path, []).append(file_slice)
        return out

    def write_batch(
        self,
        target: str,
        inventory: TableInventory,
        mapping: FieldMapping,
        partitions: list[str],
        *,
        key_mode: str,
        record: CommitRecord,
    ) -> BatchResult:
        with profiling.phase("timeline"):
            self._rollback_pending(target, guard=True)
        wanted = set(partitions)  # (once: rebuilt per partition, a batch cost O(table x batch))
        size = sum(p.bytes for p in inventory.partitions if p.name in wanted)
        rows = sum(p.rows for p in inventory.partitions if p.name in wanted)
        per_file = min(MAX_FILE_ROWS, self.rows_per_file(rows, size) or MAX_FILE_ROWS)
        with profiling.phase("source frame"):
            frame, checksum = self.batch_frame(
                inventory,
                mapping,
                partitions,
                key_mode,
                cluster=self.batch_clustering(inventory, partitions, key_mode),
            )
        arrow = (
            self._arrow_rows(target, frame, inventory, mapping, partitions, key_mode, record)
            if self.services.settings.write_path == "arrow"
            else None
        )
        instant = self._write(
            target,
            frame if arrow is None else arrow,
            partitions,
            commit_properties(record),
            per_file,
            BULK_INSERT,
            record.batch,
            guard=True,
        )
        if arrow is not None:
            # the tasks' checksum of what they wrote: validation need not scan the source
            return BatchResult(arrow.observed(), True, int(instant), "arrow", arrow.finer)
        return BatchResult(checksum(), True, int(instant))

    def _arrow_rows(
        self,
        target: str,
        frame: DataFrame,
        inventory: TableInventory,
        mapping: FieldMapping,
        partitions: list[str],
        key_mode: str,
        record: CommitRecord,
    ) -> _ArrowRows | None:
        """The batch's rows through the Arrow path (``arrow_path``): tasks read the ORC files
        with pyarrow and write the base files themselves, with the schema of the Spark path's
        frame (``frame``, never run), so the files are the same; None when the batch must
        take the Spark path."""
        from pyspark.sql.pandas.types import to_arrow_schema

        from lakeshift.formats.arrow_path import arrow_plan, out_columns

        plan, why = arrow_plan(inventory, mapping, partitions, self.target_type, key_mode)
        schema = to_arrow_schema(frame.schema)
        if plan is not None:
            wanted = {n for n, _ in (*plan.data, *plan.keys)} | {UUID_COLUMN, PARTITIONPATH_COLUMN}
            if set(schema.names) != wanted or len(schema.names) != len(wanted):
                plan, why = None, "the frame has columns the source does not fill"
        if plan is None:
            log.info("%s: batch %s takes the Spark path: %s", target, record.batch, why)
            return None
        zoned = {f.name for f in schema if getattr(f.type, "tz", None)}
        columns = out_columns(plan, {}, {n: i for i, n in enumerate(schema.names)}, zoned)
        return _ArrowRows(FileReader(plan, columns), schema)

    def _write(
        self,
        target: str,
        frame: DataFrame | _ArrowRows | None,
        partitions: Sequence[str],
        extra: dict[str, str],
        per_file: int,
        operation: str,
        batch: int = 0,
        *,
        guard: bool,
    ) -> str:
        """One instant replacing ``partitions`` with ``frame``'s rows (None: with nothing).
        ``guard``: refused before it completes when another writer's instant appeared on the
        timeline meanwhile (it stays pending, and the next write rolls it back)."""
        from pyspark.sql.pandas.types import to_arrow_schema

        from lakeshift.migrate import faults

        with profiling.phase("timeline"):
            root = self.root(target)
            timeline = self._timeline(target)
            current = self.current_slices(target)
            replaced = {p: [s.file_id for s in current[p]] for p in partitions if p in current}
            action = REPLACE if replaced else COMMIT
            if replaced and operation == BULK_INSERT:
                operation = INSERT_OVERWRITE
            instant = timeline.new_instant_time()
            requested = requested_replace(timeline.version) if replaced else b""
            timeline.write_requested(instant, action, requested)
            timeline.write_inflight(instant, action, inflight_metadata(operation))
        _, _, name = target.partition(".")
        stats: list[Any] = []
        # A commit writing no rows (emptied partitions) still names the table's schema, as
        # Hudi's delete_partition does: readers take the newest commit's ("{}" broke hudi-rs).
        schema: dict[str, Any] = self.latest_schema(target) if frame is None else {}
        if isinstance(frame, _ArrowRows):
            schema = avro_schema(name, frame.schema)
            codec, level = self._compression()
            writer = arrow_task_writer(
                frame.reader,
                frame.schema,
                root.location,
                instant,
                with_meta_fields(schema),
                per_file,
                codec,
                level,
            )
            files = len(frame.reader.files)
            with profiling.phase("arrow write"):
                stats = frame.collect(
                    self.spark.range(0, files, 1, task_count(self.spark, files)).mapInArrow(
                        writer, ARROW_STATS_DDL
                    )
                )
        elif frame is not None:
            schema = avro_schema(name, to_arrow_schema(frame.schema))
            codec, level = self._compression()
            writer = task_writer(
                root.location, instant, with_meta_fields(schema), per_file, codec, level
            )
            with profiling.phase("spark write"):
                stats = frame.mapInArrow(writer, STATS_DDL).collect()
        written = {(s["partition"], s["name"]) for s in stats}
        _drop_unreported(root, partitions, instant, written)
        for partition in partitions:
            directory = root.child(partition) if partition else root
            if any(p == partition for p, _ in written):
                depth = len(parse_partition_name(partition)) or 1
                properties.write_partition_metadata(directory, instant, depth)
        write_stats = [
            write_stat(
                file_id=s["file_id"],
                path=f"{s['partition']}/{s['name']}",
                partition=s["partition"],
                rows=s["rows"],
                size=s["size"],
            )
            for s in stats
        ]
        metadata = commit_metadata(
            write_stats, schema, operation, extra, replaced if action == REPLACE else None
        )
        # Files in place, instant not completed (Delta's point of the same name).
        faults.crash_point("before-log-commit", batch)
        if guard:
            self._refuse_foreign(target)
        with profiling.phase("complete instant"):
            self._complete(target, instant, action, metadata)
        return instant

    def _complete(self, target: str, instant: str, action: str, metadata: dict[str, Any]) -> None:
        """Complete ``instant`` (the one write that makes it visible), then what follows every
        commit: markers removed (as Hudi does), the automatic clean of slices superseded more
        than ``CLEAN_RETAIN`` ago, Hive sync, routing."""
        timeline = self._timeline(target)
        done = timeline.write_completed(instant, action, metadata)
        timeline.base.delete_dir(marker_dir(instant))
        cutoff = datetime.now(timezone.utc) - CLEAN_RETAIN
        self._clean(target, timeline, cleaning.superseded(timeline.base, timeline, cutoff))
        current = self.current_slices(target)  # planned once for both
        self._hive_sync(target, instant, timeline.completion_time(done), current)
        self.sync_routing(target, current)

    def _clean(self, target: str, timeline: Timeline, files: list[cleaning.BaseFile]) -> list[str]:
        """Delete ``files`` under a ``clean`` instant of ``timeline`` (the earliest commit kept
        is the oldest one whose files all remain); returns their paths."""
        if not files:
            return []
        gone = {(f.partition, f.name) for f in files}
        present = {f.path for f in timeline.base.list_files()}
        retained = [
            i
            for i in timeline.completed({COMMIT, REPLACE})
            if not any(
                (s["partitionPath"], posixpath.basename(s["path"])) in gone
                or s["path"].lstrip("/") not in present
                for stats in (timeline.metadata(i).get("partitionToWriteStats") or {}).values()
                for s in stats
            )
        ]
        write_clean(timeline, self.location(target), files, retained[0] if retained else None)
        return [timeline.base.uri(f.path) for f in files]

    def delete_partitions(
        self, target: str, inventory: TableInventory, partitions: Sequence[str]
    ) -> None:
        self._rollback_pending(target, guard=True)
        self._write(
            target,
            None,
            list(partitions),
            {"lakeshift.operation": "delete-partitions"},
            MAX_FILE_ROWS,
            INSERT_OVERWRITE,
            guard=True,
        )

    # -- validation -----------------------------------------------------------------------

    def row_counts(self, target: str, inventory: TableInventory) -> dict[str, int]:
        """From the completed instants' write stats of the current slices' files."""
        written = cleaning.written_rows(self._timeline(target))
        names = {p.name for p in inventory.partitions}
        return {
            partition: sum(written[s.base_file_relative_path()] for s in slices)
            for partition, slices in self.current_slices(target).items()
            if partition in names
        }

    def current_files(self, target: str) -> list[tuple[str, str, int, int]]:
        """(partition, path relative to the root, bytes, rows) of every current slice."""
        sizes = {f.path: f.size for f in self.root(target).list_files()}
        rows = cleaning.written_rows(self._timeline(target))
        return [
            (
                p,
                s.base_file_relative_path(),
                sizes.get(s.base_file_relative_path(), 0),
                rows.get(s.base_file_relative_path(), 0),
            )
            for p, group in self.current_slices(target).items()
            for s in group
        ]

    def _current_paths(self, target: str) -> list[str]:
        root = self.root(target)
        return [
            root.uri(s.base_file_relative_path())
            for slices in self.current_slices(target).values()
            for s in slices
        ]

    def frame(self, target: str, inventory: TableInventory | None = None) -> DataFrame:
        """Exactly the latest file slices; Hive column names as written (no meta columns)."""
        from lakeshift.hive.reader import glob_escaped

        mapping = self.stored_mapping(target)
        paths = self._current_paths(target)
        if mapping is None or not paths:
            raise RefusedInput(f"Hudi table {target} has no data files yet.")
        files = [glob_escaped(p) for p in paths]
        frame = self.spark.read.parquet(*files)
        # Readers take the table's schema, not a file's: files written before a column was
        # added lack it (NULL there), and Spark takes one file's footer for the whole read.
        missing = [f for f in mapping.fields if f.name not in set(frame.columns)]
        if missing:
            from pyspark.sql import functions as F
            from pyspark.sql.types import StructType

            added = self.spark.range(0).select(
                *[
                    F.lit(None).cast(str(self.target_type(_hive(f.type)))).alias(f.name)
                    for f in missing
                ]
            )
            schema = StructType([*frame.schema.fields, *added.schema.fields])
            frame = self.spark.read.schema(schema).parquet(*files)
        return frame.drop(*META_COLUMNS)

    # -- routing and cutover --------------------------------------------------------------

    def sync_routing(self, target: str, current: dict[str, list[Any]] | None = None) -> str:
        """Point the routing table's partitions at directories of the current slices (a plain
        Parquet reader of the partition directory would see every slice; see ``routing``);
        ``current``: the slices already planned, else planned here."""
        root = self.root(target)
        mapping = self.stored_mapping(target)
        if mapping is None:
            raise RefusedInput(f"Hudi table {target} was not created by lakeshift.")
        keys = [(k.name, k.type) for k in mapping.partition_keys]
        key_names = {k for k, _ in keys}
        columns = [
            (f.name, str(self.target_type(_hive(f.type))))
            for f in mapping.fields
            if f.name not in key_names
        ]
        dirs: dict[tuple[str | None, ...], str] = {}
        slices_by_partition = self.current_slices(target) if current is None else current
        for partition, slices in slices_by_partition.items():
            relative = _route_dir(partition, slices)
            link_slices(root, relative, slices)
            values = tuple(v for _, v in parse_partition_name(partition)) if keys else ()
            dirs[values] = relative
        entry = self._entry(target)
        # The name given at creation, kept through cutover renames (as for Delta).
        name = ((entry.parameters or {}) if entry else {}).get(ROUTE_TABLE_PARAM)
        name = name or route_table_name(target)
        sync_route_table(self.client, name, target, self.location(target), columns, keys, dirs)
        drop_old_route_dirs(root, ROUTE_DIR, set(dirs.values()))
        return name

    def lake_side(self, target: str) -> LakeSide:
        return LakeSide(self.sync_routing(target))

    def rename(self, old: str, new: str) -> None:
        entry = self._entry(old)
        if entry is None:
            raise RefusedInput(f"Hudi table {old} is not in the metastore.")
        db, _, name = old.partition(".")
        entry.dbName, _, entry.tableName = new.partition(".")
        self.client.alter_table(db, name, entry)

    # -- after cutover: erasure and table services ------------------------------------------

    def _compression(self) -> tuple[str, int | None]:
        """The base files' codec and its level (``hudi_gzip_level`` for GZIP; the rest at
        parquet-mr's defaults)."""
        settings = self.services.settings
        codec = settings.hudi_parquet_codec
        return codec, settings.hudi_gzip_level if codec == "gzip" else None

    def latest_schema(self, target: str) -> dict[str, Any]:
        """The write schema of the newest completed commit (Avro, without meta fields)."""
        timeline = self._timeline(target)
        for instant in reversed(timeline.completed({COMMIT, REPLACE})):
            schema = (timeline.metadata(instant).get("extraMetadata") or {}).get("schema")
            if schema:
                return dict(json.loads(schema))
        raise RefusedInput(f"Hudi table {target} has no completed commit with a schema.")

    def rewrite_file_groups(
        self,
        target: str,
        jobs: list[dict[str, Any]],
        *,
        operation: str,
        drop_keys: frozenset[str] = frozenset(),
        replaced: dict[str, list[str]] | None = None,
    ) -> str:
        """One instant of copy-on-write rewrites, written by Spark tasks (one per job).

        Each job is ``{partition, file_id, sources, prev}`` (see ``rewrite_task``). Without
        ``replaced`` the instant is a ``commit`` whose files are new slices of existing file
        groups (an erasure: ``DELETE``); with it, a ``replacecommit`` whose new file groups
        replace the named ones (clustering). Superseded and replaced slices stay until the
        automatic clean after ``CLEAN_RETAIN``, or ``expire``.
        """
        self._rollback_pending(target)
        root = self.root(target)
        timeline = self._timeline(target)
        action = REPLACE if replaced is not None else COMMIT
        instant = timeline.new_instant_time()
        if replaced is None:
            timeline.write_requested(instant, COMMIT)
            timeline.write_inflight(instant, COMMIT, inflight_metadata(operation))
        else:  # a clustering: its plan first (v8 names the pending instant "clustering")
            plan = self._clustering_plan(target, jobs, timeline.version)
            timeline.write_requested(instant, timeline.clustering_action, plan)
            timeline.write_inflight(instant, timeline.clustering_action)
        frame = self.spark.createDataFrame(
            jobs, "partition string, file_id string, sources array<string>, prev string"
        ).repartition(max(1, len(jobs)))
        stats = frame.mapInArrow(
            rewrite_task(root.location, instant, drop_keys, *self._compression()), REWRITE_DDL
        )
        done = stats.collect()
        written = {(s["partition"], s["name"]) for s in done}
        _drop_unreported(root, {j["partition"] for j in jobs}, instant, written)
        sources = {(j["partition"], j["file_id"]): j["sources"] for j in jobs}
        write_stats = [
            write_stat(
                file_id=s["file_id"],
                path=f"{s['partition']}/{s['name']}",
                partition=s["partition"],
                rows=s["rows"],
                size=s["size"],
                prev_commit=s["prev"],
                num_deletes=s["dropped"],
                num_inserts=s["rows"] if s["prev"] == "null" else 0,
                prev_base_file=(
                    posixpath.basename(sources[(s["partition"], s["file_id"])][0])
                    if timeline.avro and s["prev"] != "null"
                    else None
                ),
            )
            for s in done
        ]
        extra = {"lakeshift.operation": operation.lower()}
        metadata = commit_metadata(
            write_stats, self.latest_schema(target), operation, extra, replaced
        )
        self._complete(target, instant, action, metadata)
        return instant

    def _clustering_plan(self, target: str, jobs: list[dict[str, Any]], version: int) -> bytes:
        """The requested clustering's plan: one input group (the slices it merges) per job."""
        location = self.location(target).rstrip("/")
        groups = [
            [
                {
                    "dataFilePath": f"{location}/{path.lstrip('/')}",
                    "fileId": file_id_of(posixpath.basename(path)),
                    "partitionPath": job["partition"],
                }
                for path in job["sources"]
            ]
            for job in jobs
        ]
        return requested_replace(version, groups)

    def delete_rows(
        self,
        target: str,
        partitions: list[str],
        keys: DataFrame,
        *,
        keyless_where: str | None = None,
    ) -> int:
        """A ``DELETE`` commit: every current slice holding one of ``keys`` is rewritten
        without those rows (same file group, rows keep their commit time and seqno)."""
        from pyspark.sql import functions as F

        if keyless_where is not None:  # Hudi requires record keys; it adopts no files
            raise self.keyless_refusal(target)

        from lakeshift.hive.reader import glob_escaped
        from lakeshift.schema_map.mapping import UUID_COLUMN

        self._rollback_pending(target)
        root = self.root(target)
        current = self.current_slices(target)
        slices = {(p, s.base_file_name): s for p in partitions for s in current.get(p, [])}
        if not slices:
            return 0
        wanted = keys.select(F.col(UUID_COLUMN).alias(RECORD_KEY)).distinct()
        files = self.spark.read.parquet(
            *[glob_escaped(root.uri(s.base_file_relative_path())) for s in slices.values()]
        )
        hit = (
            files.select(RECORD_KEY, PARTITION_PATH, FILE_NAME)
            .join(wanted, RECORD_KEY, "left_semi")
            .select(PARTITION_PATH, FILE_NAME)
            .distinct()
            .collect()
        )
        affected = [slices[(r[0], r[1])] for r in hit if (r[0], r[1]) in slices]
        if not affected:
            return 0  # nothing current holds the keys (e.g. a re-run after the commit)
        drop = frozenset(str(r[0]) for r in wanted.collect())
        jobs = [
            {
                "partition": s.partition_path,
                "file_id": s.file_id,
                "sources": [s.base_file_relative_path()],
                "prev": instant_of(s.base_file_name),
            }
            for s in affected
        ]
        return int(self.rewrite_file_groups(target, jobs, operation=DELETE, drop_keys=drop))

    def expire(self, target: str, older_than: datetime) -> list[str]:
        """Hudi's clean: delete the slices superseded before ``older_than`` (older versions of
        rewritten file groups, replaced file groups), and routing link directories no longer
        current (they hold old slices: hard links locally, copies on object stores)."""
        self._rollback_pending(target)
        root = self.root(target)
        timeline = self._timeline(target)
        removed = self._clean(target, timeline, cleaning.superseded(root, timeline, older_than))
        current = set(self._route_dirs(target))
        removed += drop_old_route_dirs(root, ROUTE_DIR, current, older_than.timestamp())
        return removed

    def _route_dirs(self, target: str) -> list[str]:
        return [_route_dir(p, group) for p, group in self.current_slices(target).items()]

    def remove_orphans(self, target: str, older_than: datetime) -> list[str]:
        """Base files no completed instant wrote, and markers of completed instants."""
        self._rollback_pending(target)
        root = self.root(target)
        timeline = self._timeline(target)
        removed = []
        for f in cleaning.orphans(root, timeline, older_than):
            root.delete(f.path)
            removed.append(root.uri(f.path))
        for instant in timeline.completed():
            markers = marker_dir(instant.time)
            if root.list_files(markers):
                root.delete_dir(markers)
                removed.append(root.uri(markers))
        return removed


def _is_lakeshift_commit(metadata: dict[str, Any]) -> bool:
    extra = metadata.get("extraMetadata") or {}
    return any(str(k).startswith("lakeshift.") for k in extra)


def _describe(instant: Instant) -> str:
    return f"instant {instant.time} ({instant.action}, {instant.state})"


def _route_dir(partition: str, slices: Sequence[Any]) -> str:
    """A partition's routing link directory (relative to the root): one per newest instant."""
    newest = max(instant_of(s.base_file_name) for s in slices)
    return posixpath.join(ROUTE_DIR, partition, newest)


def _drop_unreported(
    root: Store, partitions: Iterable[str], instant: str, written: set[tuple[str, str]]
) -> None:
    """Delete the instant's files the job did not report (a failed task attempt's): they carry
    the instant's time, so they would be read once it completes (Hudi's marker reconciliation)."""
    for partition in partitions:
        for stored in root.list_files(partition, recursive=False):
            if stored.name.endswith(f"_{instant}.parquet") and (
                (partition, stored.name) not in written
            ):
                root.delete(stored.path)


def _hive(text: str) -> HiveType:
    from lakeshift.hive.types import parse_hive_type

    return parse_hive_type(text)


def _check_evolution(target: str, previous: FieldMapping, mapping: FieldMapping) -> None:
    """Hudi here takes added columns only: lakeshift writes no Hudi schema-evolution
    metadata, so a rename, drop, reorder or type change would be misread by Hudi readers."""
    before = [(f.name, f.type) for f in previous.columns]
    after = [(f.name, f.type) for f in mapping.columns]
    keys = [(f.name, f.type) for f in previous.partition_keys]
    if after[: len(before)] != before or keys != [(f.name, f.type) for f in mapping.partition_keys]:
        raise SchemaMappingError(
            f"Hudi table {target}: the Hive schema changed other than by adding columns at the "
            f"end ({before} -> {after}).",
            hint="lakeshift applies only added columns to Hudi tables; migrate into a new "
            "--target, or to Iceberg or Delta, which keep field IDs.",
        )
