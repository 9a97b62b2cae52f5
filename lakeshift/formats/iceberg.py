"""Apache Iceberg: the Iceberg Spark runtime writes and commits, pyiceberg reads metadata.

``overwritePartitions`` replaces exactly the partitions present in the written frame, so a
re-run of a batch after a crash replaces instead of duplicating. The snapshot summary carries
lakeshift's commit record (``snapshot-property.*`` writer options), atomically with the data.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from lakeshift import profiling
from lakeshift.formats import backfill_record
from lakeshift.formats.base import (
    Backfilled,
    BatchResult,
    CommitRecord,
    FormatServices,
    LakeSide,
    SyncResult,
    TargetFormat,
    catalog_entry,
)
from lakeshift.formats.commit_metadata import (
    TARGET_SOURCE_PROPERTY,
    commit_properties,
    is_commit_of,
    latest_backfills,
)
from lakeshift.formats.iceberg_adopt import holds_adopted_files
from lakeshift.formats.iceberg_files import (
    java_data_files,
    java_partitions,
    metrics_plan,
    partition_fields,
    partition_json,
)
from lakeshift.formats.iceberg_java import (
    Unboxable,
    _translated_conflict,
    iceberg_hive_type,
    internal_value,
    java_items,
)
from lakeshift.formats.iceberg_schema import stored_mapping
from lakeshift.formats.iceberg_sync import sync_iceberg_target
from lakeshift.hive.partition_values import typed_value
from lakeshift.hive.spark_sql import quote, string_literal
from lakeshift.hive.types import HiveType, parse_hive_type
from lakeshift.inspect.model import TableInventory
from lakeshift.metastore.glue import GlueCatalog
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN, UUID_COLUMN
from lakeshift.schema_map.model import FieldMapping
from lakeshift.storage import StorageOptions, Store
from lakeshift.validate.counts import counts_by_partition

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table
    from pyspark.sql import DataFrame

    from lakeshift.migrate.adoption import AdoptionDecision

log = logging.getLogger(__name__)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: The table property naming the snapshot up to which other writers' snapshots were accepted.
ACCEPTED_PROPERTY = "lakeshift.accepted-snapshot"


#: Bytes per read task of a target scan (Iceberg's ``read.split.target-size`` default); a file
#: counts as at least Iceberg's open cost (4 MB), so small files go 32 to a task.
READ_SPLIT_BYTES = 128 * 1024**2
#: Iceberg's ``read.split.open-file-cost`` default: what a file weighs, at least, in a split.
OPEN_COST_BYTES = 4 * 1024**2


def read_split_bytes(table: Table | None, parallelism: int) -> int:
    """Iceberg's split size for a scan of ``table``'s current snapshot: enough tasks for every
    core when the table is small (each file weighing at least the open cost, as Iceberg packs
    them), at most ``READ_SPLIT_BYTES`` each. Given, not Iceberg's adaptive sizing, which cut
    a target of 1,000 small files (7.5 KB each) into 250 tasks of 4 files for validation's
    scan, most of its 4 s; a fixed 128 MB read 8 files of 2 MB in one task, on one core."""
    snapshot = table.current_snapshot() if table is not None else None
    summary = _summary(snapshot) if snapshot is not None else {}
    if not summary:
        return READ_SPLIT_BYTES
    files = int(summary.get("total-data-files") or 0)
    size = int(summary.get("total-files-size") or 0)
    weight = max(size, files * OPEN_COST_BYTES)
    return min(READ_SPLIT_BYTES, max(OPEN_COST_BYTES, -(-weight // max(1, parallelism))))


def spark_identifier(target: str, catalog: str = "spark_catalog") -> str:
    db, _, table = target.partition(".")
    return f"{catalog}.{quote(db)}.{quote(table)}"


def _summary(snapshot: Any) -> dict[str, str]:
    summary = snapshot.summary
    if summary is None:
        return {}
    return dict(summary.additional_properties) if hasattr(summary, "additional_properties") else {}


def _ancestry(table: Table) -> list[tuple[int, dict[str, str]]]:
    """(snapshot id, summary) of the current snapshot and its ancestors, newest first."""
    out = []
    snapshot = table.current_snapshot()
    while snapshot is not None:
        out.append((int(snapshot.snapshot_id), _summary(snapshot)))
        parent = snapshot.parent_snapshot_id
        snapshot = table.metadata.snapshot_by_id(parent) if parent is not None else None
    return out


def _is_lakeshift_snapshot(summary: dict[str, str]) -> bool:
    return any(k.startswith("lakeshift.") for k in summary)


def foreign_snapshots(table: Table) -> list[str]:
    """Snapshots (described, oldest first) in the current snapshot's ancestry after
    lakeshift's newest one (or the accepted one, ``ACCEPTED_PROPERTY``) whose summary carries
    no lakeshift record; also a current snapshot set back past lakeshift's newest. A table
    lakeshift neither created (``lakeshift.source``) nor committed to has none (adopted)."""
    accepted = table.properties.get(ACCEPTED_PROPERTY)
    found: list[str] = []
    ancestry: set[int] = set()
    snapshot = table.current_snapshot()
    stopped = False
    while snapshot is not None:
        summary = _summary(snapshot)
        ancestry.add(int(snapshot.snapshot_id))
        if _is_lakeshift_snapshot(summary) or str(snapshot.snapshot_id) == accepted:
            stopped = True
            break
        operation = snapshot.summary.operation.value if snapshot.summary else "unknown"
        found.append(f"snapshot {snapshot.snapshot_id} ({operation})")
        parent = snapshot.parent_snapshot_id
        snapshot = table.metadata.snapshot_by_id(parent) if parent is not None else None
    if not stopped and TARGET_SOURCE_PROPERTY not in table.properties:
        return []
    while snapshot is not None:  # the rest of the ancestry, past an accepted snapshot too
        ancestry.add(int(snapshot.snapshot_id))
        parent = snapshot.parent_snapshot_id
        snapshot = table.metadata.snapshot_by_id(parent) if parent is not None else None
    own = [s for s in table.metadata.snapshots if _is_lakeshift_snapshot(_summary(s))]
    newest = max(own, key=lambda s: s.sequence_number or 0, default=None)
    if newest is not None and int(newest.snapshot_id) not in ancestry:
        current = table.current_snapshot()
        found.append(
            f"the current snapshot set to {current.snapshot_id if current else 'none'}, "
            f"leaving lakeshift's snapshot {newest.snapshot_id}"
        )
    return found[::-1]


def backfilled_partitions(table: Table) -> dict[str, Backfilled]:
    """Each partition's most recent lakeshift backfill in the current snapshot's ancestry."""
    return latest_backfills(_ancestry(table))


def hive_catalog(uri: str, storage: StorageOptions) -> Catalog:
    """pyiceberg's HiveCatalog on ``uri``; its FileIO reaches object stores as Spark does."""
    from pyiceberg.catalog.hive import HiveCatalog

    return HiveCatalog("lakeshift", uri=uri, **storage.pyiceberg())


def glue_catalog(glue: GlueCatalog, storage: StorageOptions) -> Catalog:
    """pyiceberg's GlueCatalog on lakeshift's own Glue client (same region, endpoint, catalog
    id and credentials); commits carry the ``VersionId`` read before them."""
    from pyiceberg.catalog.glue import GlueCatalog as PyicebergGlue

    properties = dict(storage.pyiceberg())
    if glue.catalog_id:
        properties["glue.id"] = glue.catalog_id
    return PyicebergGlue("lakeshift", client=glue.glue, **properties)


class IcebergFormat(TargetFormat):
    """Iceberg format v2 tables in the metastore's HiveCatalog."""

    name = "iceberg"
    label = "Iceberg table"
    has_arrow_path = True
    adoption_refusal = ""

    def __init__(self, services: FormatServices) -> None:
        super().__init__(services)
        #: target -> the table as last loaded: kept while the catalog still points at the
        #: same metadata file (which Iceberg never changes once written)
        self._loaded: dict[str, Table] = {}
        #: target -> (metadata file, snapshot) of lakeshift's last commit through Java
        #: (``_landed_through``). While the catalog still names that file, the current
        #: snapshot is that commit with nobody's on it, and the next base is known without
        #: loading the table: its metadata holds every batch's record, 9 MB at 100,000
        #: partitions, which pyiceberg parsed again before each batch.
        self._committed: dict[str, tuple[str, int]] = {}
        #: target -> the metadata file its base was last checked against
        self._checked: dict[str, str] = {}

    def describe(self, target: str) -> str:
        return "Iceberg format v2, Parquet, identity partitions"

    @property
    def catalog(self) -> Catalog:
        catalog = self.services.catalog
        if catalog is None:
            catalog = self._new_catalog()
            self.services.catalog = catalog
        return catalog

    def _new_catalog(self) -> Catalog:
        client, storage = self.client, self.services.settings.storage
        if isinstance(client, GlueCatalog):
            return glue_catalog(client, storage)
        return hive_catalog(client.uri, storage)

    @property
    def spark_catalog(self) -> str:
        """The Spark catalog holding the target: Spark's session catalog (Iceberg's
        SparkSessionCatalog on the Hive Metastore), or on Glue the REST bridge's."""
        client = self.client
        if not isinstance(client, GlueCatalog):
            return "spark_catalog"
        from lakeshift.formats.iceberg_rest import spark_catalog_for

        endpoint = client.glue.meta.endpoint_url
        return spark_catalog_for(self.spark, f"{client.uri} {endpoint}", self._new_catalog)

    def ident(self, target: str) -> str:
        """The target's name in Spark SQL."""
        return spark_identifier(target, self.spark_catalog)

    def table(self, target: str) -> Table | None:
        """The target as pyiceberg loads it, or None. The catalog's entry is read each time
        (one call on the client's open connection); the table is loaded again only when its
        entry names another metadata file (pyiceberg's load opened a metastore connection
        and read the metadata file each time: five times in one validation)."""
        return self._table_at(target, catalog_entry(self.client, target))

    def _table_at(self, target: str, entry: Any) -> Table | None:
        """``table`` for the catalog ``entry`` just read."""
        from pyiceberg.exceptions import NoSuchTableError

        if entry is None:
            self._loaded.pop(target, None)
            return None
        current = (entry.parameters or {}).get("metadata_location")
        known = self._loaded.get(target)
        if known is not None and current and known.metadata_location == current:
            return known
        try:
            table = self.catalog.load_table(target)
        except NoSuchTableError:
            return None
        self._loaded[target] = table
        return table

    def _require(self, target: str) -> Table:
        return self._required(target, self.table(target))

    @staticmethod
    def _required(target: str, table: Table | None) -> Table:
        from lakeshift.errors import NotFound

        if table is None:
            raise NotFound(f"Iceberg table {target} does not exist.")
        return table

    def exists(self, target: str) -> bool:
        return self.table(target) is not None

    def owner(self, target: str) -> str | None:
        table = self.table(target)
        return table.properties.get(TARGET_SOURCE_PROPERTY) if table is not None else None

    def stored_mapping(self, target: str) -> FieldMapping | None:
        table = self.table(target)
        return stored_mapping(table) if table is not None else None

    def target_type(self, hive: HiveType) -> HiveType:
        return iceberg_hive_type(hive)

    def foreign_commits(self, target: str) -> list[str]:
        table = self.table(target)
        return foreign_snapshots(table) if table is not None else []

    def accept_foreign_commits(self, target: str) -> list[str]:
        """The current snapshot goes into a table property (``ACCEPTED_PROPERTY``): the
        snapshots up to it are the table as lakeshift takes it."""
        table = self._require(target)
        found = foreign_snapshots(table)
        snapshot = table.current_snapshot()
        if found and snapshot is not None:
            with table.transaction() as change:
                change.set_properties({ACCEPTED_PROPERTY: str(snapshot.snapshot_id)})
            self.spark.sql(f"REFRESH TABLE {self.ident(target)}")
            log.warning("Iceberg table %s: accepted other writers' snapshots: %s", target, found)
        return found

    def _base_snapshot(self, target: str) -> int | None:
        """The snapshot a migration's commit goes on: the current one, refused when another
        writer made it (or any since lakeshift's newest). (The table is loaded once: each
        load is a metastore call and a metadata read, a fifth of an adoption's seconds. Right
        after lakeshift's own Java commit, while the catalog still names its metadata file,
        that commit is the base and nothing is loaded: ``_committed``.)"""
        from lakeshift.formats.foreign import foreign_commit_error

        entry = catalog_entry(self.client, target)
        location = (entry.parameters or {}).get("metadata_location") if entry else None
        committed = self._committed.get(target)
        if committed is not None and location == committed[0]:
            self._checked[target] = location
            return committed[1]
        table = self._required(target, self._table_at(target, entry))
        found = foreign_snapshots(table)
        if found:
            raise foreign_commit_error(f"{self.label} {target}", found)
        self._checked[target] = table.metadata_location
        snapshot = table.current_snapshot()
        return int(snapshot.snapshot_id) if snapshot is not None else None

    def _landed(self, target: str, base: int | None, record: CommitRecord) -> int | None:
        """After a commit: the snapshot id of ``record``'s commit, which must stand right on
        ``base`` (None when the current snapshot is not it). Iceberg retries a commit that lost
        the race on top of the winner (its conflict check keeps the batch's partitions clear
        of another writer's files), so another writer's snapshot in between is reported."""
        from lakeshift.formats.foreign import foreign_commit_error

        table = self._require(target)
        snapshot = table.current_snapshot()
        if snapshot is None or not is_commit_of(_summary(snapshot), record.run_id, record.batch):
            found = foreign_snapshots(table)
            if found:
                raise foreign_commit_error(f"{self.label} {target}", found)
            return None
        if snapshot.parent_snapshot_id != base:
            raise foreign_commit_error(
                f"Iceberg table {target}",
                [f"snapshot {snapshot.parent_snapshot_id} landed before batch {record.batch}"],
            )
        return int(snapshot.snapshot_id)

    def _landed_through(
        self, target: str, table: Any, base: int | None, record: CommitRecord
    ) -> int | None:
        """``_landed``, read from the Java ``table`` the commit went through: Iceberg refreshes
        it from the catalog after committing, so its current snapshot is the table's as it is
        now, with no second catalog lookup and metadata read (pyiceberg's load; about a tenth
        of an adoption's registration). Anything but the record's commit standing right on
        ``base`` is left to ``_landed``, which describes what landed instead. The commit
        found is remembered as the next batch's base (``_committed``).

        No ``REFRESH TABLE`` follows such a commit: ``table`` is the very object Spark's
        catalog caches (``java_table``), now refreshed, so the session's next read sees the
        commit; a refresh would only evict it and load the table again."""
        metadata = table.operations().current()
        snapshot = metadata.currentSnapshot()
        # the summary is asked for two keys: iterating a Java map costs a round trip an entry
        if snapshot is None or not is_commit_of(snapshot.summary(), record.run_id, record.batch):
            return self._landed(target, base, record)
        parent = snapshot.parentId()
        if (None if parent is None else int(parent)) != base:
            return self._landed(target, base, record)
        landed = int(snapshot.snapshotId())
        self._committed[target] = (str(metadata.metadataFileLocation()), landed)
        return landed

    def _as_checked(self, target: str, table: Any) -> None:
        """Brings the Java ``table`` (Spark's catalog caches it) to the metadata file that
        ``_base_snapshot`` just checked: refreshed only when it holds another one (a refresh
        is a catalog lookup and a metadata read)."""
        held = str(table.operations().current().metadataFileLocation())
        if self._checked.get(target) != held:
            table.refresh()

    def sync(self, target: str, inventory: TableInventory, *, source: str) -> SyncResult:
        settings = self.services.settings
        synced = sync_iceberg_target(
            self.catalog,
            target,
            inventory,
            home=settings.home,
            semantics=settings.hive,
            properties={
                TARGET_SOURCE_PROPERTY: source,
                # Other writers' distribution (erasure's and compaction's rewrites); the
                # backfill gathers small partitions itself and writes with mode none.
                "write.distribution-mode": "hash",
                "write.target-file-size-bytes": str(settings.target_file_bytes),
            },
        )
        self.spark.sql(f"REFRESH TABLE {self.ident(target)}")
        return SyncResult(synced.mapping, synced.created, synced.evolved)

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
        if self.services.settings.write_path == "arrow":
            written = self._write_arrow(target, inventory, mapping, partitions, key_mode, record)
            if written is not None:
                return written
        base = self._base_snapshot(target)
        cluster = self.batch_clustering(inventory, partitions, key_mode)
        with profiling.phase("source frame"):
            frame, checksum = self.batch_frame(
                inventory, mapping, partitions, key_mode, cluster=cluster
            )
        data_columns = [c.name for c in (*inventory.columns, *inventory.partition_keys)]
        frame = frame.select(
            *[quote(c) for c in (*data_columns, UUID_COLUMN, PARTITIONPATH_COLUMN)]
        )
        # Iceberg's default fanout writer keeps one Parquet writer (~1-2 MB of buffers) open per
        # partition a task meets: 500 tiny partitions ran a 1 GB driver out of heap. Without it,
        # Spark sorts each task's rows by partition and one file is open at a time. Where each
        # partition has a task of its own (clustered, random keys), one writer is open anyway:
        # no sort.
        fanout = cluster and self.one_task_each(len(partitions), key_mode)
        writer = frame.writeTo(self.ident(target)).option("fanout-enabled", str(fanout).lower())
        # The rows arrive clustered (or in partitions large enough to write from every task):
        # Iceberg adds no shuffle, only the sort by partition its one-open-file writer needs
        # (none with fanout).
        writer = writer.option("distribution-mode", "none")
        # Another writer's files in the batch's partitions since ``base`` fail the commit
        # (Iceberg's serializable check) instead of being replaced.
        writer = writer.option("isolation-level", "serializable")
        if base is not None:
            writer = writer.option("validate-from-snapshot-id", str(base))
        for key, value in commit_properties(record).items():
            writer = writer.option(f"snapshot-property.{key}", value)
        with profiling.phase("spark write and commit"):
            _translated_conflict(target, writer.overwritePartitions)
        with profiling.phase("find commit"):
            return BatchResult(checksum(), True, self._landed(target, base, record))

    def _write_arrow(
        self,
        target: str,
        inventory: TableInventory,
        mapping: FieldMapping,
        partitions: list[str],
        key_mode: str,
        record: CommitRecord,
    ) -> BatchResult | None:
        """The batch through the Arrow path (``arrow_path``): tasks write the Parquet files,
        then one replace-partitions commit through Iceberg's Java API with lakeshift's commit
        record, each file's metrics from the footer its task wrote, by Iceberg's rules
        (``iceberg_files``). None when the batch must take the Spark path (logged with the
        reason)."""
        from lakeshift.formats.arrow_path import (
            arrow_plan,
            file_name,
            finer_counts,
            observed,
            out_columns,
            write_files,
        )
        from lakeshift.migrate import faults

        plan, why = arrow_plan(inventory, mapping, partitions, self.target_type, key_mode)
        if plan is None:
            log.info("%s: batch %s takes the Spark path: %s", target, record.batch, why)
            return None
        base = self._base_snapshot(target)
        jvm: Any = self.spark.sparkContext._jvm
        try:
            table = self.java_table(target)
        except Exception as e:  # Spark's own writer resolves the table as Iceberg's
            if "is not an Iceberg table" not in str(e):
                raise
            log.info("%s: batch %s takes the Spark path: %s", target, record.batch, e)
            return None
        self._as_checked(target, table)  # the schema and spec as committed (sync may evolve)
        schema, spec = table.schema(), table.spec()
        columns = java_items(schema.columns())
        ids = {str(f.name()): int(f.fieldId()) for f in columns}
        zoned = {str(f.name()) for f in columns if str(f.type()) == "timestamptz"}
        wanted = {n for n, _ in (*plan.data, *plan.keys)} | {UUID_COLUMN, PARTITIONPATH_COLUMN}
        key_names = [n for n, _ in plan.keys]
        spec_fields = java_items(spec.fields())
        sources = [str(schema.findColumnName(f.sourceId())) for f in spec_fields]
        why = ""
        if set(ids) != wanted:
            why = "the target has columns the source does not fill"
        elif any(str(f.transform()) != "identity" for f in spec_fields) or sorted(
            sources
        ) != sorted(key_names):
            why = "the target's partitioning is not its keys' identity"
        if why:
            log.info("%s: batch %s takes the Spark path: %s", target, record.batch, why)
            return None
        # Every call through py4j is a round trip to the JVM: partitions and files cross as
        # one JSON text each (iceberg_files), not call by call.
        kinds = [plan.keys[key_names.index(source)][1] for source in sources]
        fields = partition_fields(spec)
        as_json: dict[str, str] = {}  # each partition's
        try:
            for item in plan.files:
                if item.partition not in as_json:
                    values = [item.keys[key_names.index(source)] for source in sources]
                    as_json[item.partition] = partition_json(fields, kinds, values)
        except Unboxable as e:
            log.info("%s: batch %s takes the Spark path: %s", target, record.batch, e)
            return None
        by_partition = dict(zip(as_json, java_partitions(jvm, spec, list(as_json.values()))))
        provider = table.locationProvider()
        locations = [
            str(
                provider.newDataLocation(
                    spec, by_partition[item.partition], file_name(record.run_id, record.batch, i)
                )
            )
            for i, item in enumerate(plan.files)
        ]
        with profiling.phase("arrow write"):
            columns = out_columns(plan, {}, ids, zoned)
            describe = metrics_plan(jvm, table).describe
            written = write_files(self.spark, plan, columns, locations, describe)
        # files landed, not committed: a kill here leaves files no snapshot references
        faults.crash_point("before-log-commit", record.batch)
        with profiling.phase("commit"):
            replace = table.newReplacePartitions()
            if base is not None:  # as the Spark path's serializable overwrite
                replace = replace.validateFromSnapshot(base)
            replace = replace.validateNoConflictingData().validateNoConflictingDeletes()
            for key, value in commit_properties(record).items():
                replace.set(key, value)
            for data_file in java_data_files(jvm, table, written, as_json, by_partition):
                replace.addFile(data_file)
            _translated_conflict(target, replace.commit)
        with profiling.phase("find commit"):
            landed = self._landed_through(target, table, base, record)
            # the tasks' checksum of what they wrote: validation need not scan the source
            return BatchResult(
                observed(written),
                True,
                landed,
                "arrow",
                finer_counts(plan.files, ((w.partition, w.finer) for w in written)),
            )

    def java_table(self, target: str) -> Any:
        """The target as Iceberg's Java ``Table`` in the session's JVM. Spark's session catalog
        can answer with the plain Hive entry of a table lakeshift just created (``V1Table``,
        "not an Iceberg table"; seen in bulk runs, whose migrations run in threads of their
        own, though the entry is Iceberg's): its cache is refreshed and the table loaded
        again; the Arrow path gives way to Spark's writer if it still does."""
        spark, ident = self.spark, self.ident(target)
        jvm: Any = spark.sparkContext._jvm
        utils = jvm.org.apache.iceberg.spark.Spark3Util
        try:
            return utils.loadIcebergTable(spark._jsparkSession, ident)
        except Exception as e:
            if "is not an Iceberg table" not in str(e):
                raise
        spark.sql(f"REFRESH TABLE {ident}")
        spark.catalog.clearCache()
        return utils.loadIcebergTable(spark._jsparkSession, ident)

    def delete_partitions(
        self, target: str, inventory: TableInventory, partitions: Sequence[str]
    ) -> None:
        """One delete commit through Iceberg's Java API, marked as lakeshift's (Spark SQL's
        DELETE cannot carry snapshot properties), refused on another writer's snapshots. It
        names the files it deletes (those of the snapshot checked): a retry on top of another
        writer's commit deletes none of that writer's files."""
        base = self._base_snapshot(target)
        if base is None:
            return
        by_name = {p.name: p for p in inventory.partitions}
        hive = self.key_reading(target)
        jvm: Any = self.spark.sparkContext._jvm
        expressions = jvm.org.apache.iceberg.expressions.Expressions
        both = getattr(expressions, "and")
        table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(
            self.spark._jsparkSession, self.ident(target)
        )
        table.refresh()
        where = expressions.alwaysFalse()
        for name in partitions:
            match = expressions.alwaysTrue()
            for key, value in zip(inventory.partition_keys, by_name[name].values):
                typed = typed_value(value, key.type, hive.version, hive.jvm_zone)
                kind = str(iceberg_hive_type(parse_hive_type(key.type)))
                term = (
                    expressions.isNull(key.name)
                    if typed is None
                    else expressions.equal(key.name, internal_value(kind, typed))
                )
                match = both(match, term)
            where = getattr(expressions, "or")(where, match)
        delete = table.newDelete().validateFilesExist()
        tasks = table.newScan().useSnapshot(base).filter(where).planFiles().iterator()
        count = 0
        while tasks.hasNext():
            delete = delete.deleteFile(tasks.next().file())
            count += 1
        if not count:
            return
        delete.set("lakeshift.operation", "delete-partitions")
        _translated_conflict(target, delete.commit)
        self.spark.sql(f"REFRESH TABLE {self.ident(target)}")

    def row_counts(self, target: str, inventory: TableInventory) -> dict[str, int]:
        keys = [k.name for k in inventory.partition_keys]
        table = self._require(target)
        if table.current_snapshot() is None:  # created, nothing committed yet (pyiceberg's
            return {}  # partitions table raises on a table without snapshots)
        rows = table.inspect.partitions().to_pylist()
        hive = self.key_reading(target)
        if not keys:  # unpartitioned: one row, no partition struct
            total = sum(r["record_count"] for r in rows)
            return counts_by_partition(inventory, [((), total)], hive)
        return counts_by_partition(
            inventory,
            [(tuple(r["partition"].get(k) for k in keys), r["record_count"]) for r in rows],
            hive,
        )

    def adopt_partitions(
        self,
        target: str,
        inventory: TableInventory,
        decisions: Sequence[AdoptionDecision],
        *,
        record: CommitRecord,
    ) -> BatchResult:
        from lakeshift.formats.iceberg_adopt import adopt_partitions

        workers = self.services.settings.inspect_workers
        return adopt_partitions(self, target, inventory, decisions, record, workers)

    def release_files(self, target: str, files: Sequence[Mapping[str, Any]]) -> list[str]:
        from lakeshift.formats.iceberg_adopt import release_files

        return release_files(self, target, files)

    def frame(self, target: str, inventory: TableInventory | None = None) -> DataFrame:
        self.spark.sql(f"REFRESH TABLE {self.ident(target)}")
        table = self.table(target)
        split = read_split_bytes(table, self.spark.sparkContext.defaultParallelism)
        frame = self.spark.read.option("split-size", str(split)).table(self.ident(target))
        if inventory is None or table is None or not holds_adopted_files(table):
            return frame
        from lakeshift.formats.iceberg_adopt import with_partition_paths

        return with_partition_paths(self.spark, frame, inventory)

    def lake_side(self, target: str) -> LakeSide:
        return LakeSide(target)

    def rename(self, old: str, new: str) -> None:
        if isinstance(self.client, GlueCatalog):
            # The catalog seam's rename: resumable when interrupted (pyiceberg's is not).
            db, _, name = old.partition(".")
            entry = self.client.get_table(db, name)
            entry.dbName, _, entry.tableName = new.partition(".")
            self.client.alter_table(db, name, entry)
            return
        self.catalog.rename_table(old, new)

    def location(self, target: str) -> str | None:
        table = self.table(target)
        return table.location() if table is not None else None

    # -- after cutover --------------------------------------------------------------------

    def backfilled(self, target: str) -> dict[str, Backfilled]:
        table = self.table(target)
        if table is None:
            return {}
        return backfill_record.merged(Store(table.location()), backfilled_partitions(table))

    def delete_rows(
        self,
        target: str,
        partitions: list[str],
        keys: DataFrame,
        *,
        keyless_where: str | None = None,
    ) -> int:
        view = f"lakeshift_erase_{uuid.uuid4().hex}"
        keys.select(UUID_COLUMN).createOrReplaceTempView(view)
        names = ", ".join(string_literal(p) for p in partitions)
        ident = self.ident(target)
        # Copy-on-write: the rows leave the data files themselves (no delete files to purge).
        self.spark.sql(
            f"ALTER TABLE {ident} SET TBLPROPERTIES ('write.delete.mode'='copy-on-write')"
        )
        if partitions and not keys.isEmpty():
            self.spark.sql(
                f"DELETE FROM {ident} WHERE {quote(PARTITIONPATH_COLUMN)} IN ({names}) "
                f"AND {quote(UUID_COLUMN)} IN (SELECT {quote(UUID_COLUMN)} FROM {view})"
            )
        self.spark.catalog.dropTempView(view)
        if keyless_where is not None:
            # Rows without a record key: a source file's own rows (adopted files hold no uuid)
            # or another writer's. Copy-on-write writes each such file's other rows into the
            # table's location and drops the file from the metadata only: an adopted file stays
            # where it is, the Hive table's (expiry and orphan removal delete only files under
            # the location). Spark's DELETE cannot name files (``_file``): the predicate does,
            # on lines of its own (a trailing ``--`` comment must not hide the parenthesis).
            self.spark.sql(
                f"DELETE FROM {ident} WHERE {quote(UUID_COLUMN)} IS NULL AND (\n{keyless_where}\n)"
            )
        snapshot = self._require(target).current_snapshot()
        return int(snapshot.snapshot_id) if snapshot is not None else 0

    def _procedure(self, name: str, target: str, older_than: datetime, extra: str = "") -> Any:
        stamp = older_than.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
        db, _, table = target.partition(".")
        return self.spark.sql(
            f"CALL {self.spark_catalog}.system.{name}(table => {string_literal(f'{db}.{table}')}, "
            f"older_than => TIMESTAMP {string_literal(stamp)}{extra})"
        ).collect()

    def expire(self, target: str, older_than: datetime) -> list[str]:
        from lakeshift.formats import iceberg_ownership as ownership

        table = self._require(target)
        store = Store(table.location())
        backfill_record.remember(store, self.backfilled(target))
        if ownership.needs_own_cleanup(table):
            # Iceberg's expiry refuses gc off, and would delete an adopted file the expired
            # snapshots alone reached: metadata-only expiry, then only the table's own files.
            removed = ownership.expire_own(table, older_than)
            self.spark.sql(f"REFRESH TABLE {self.ident(target)}")
            return removed
        before = {f.path for f in store.list_files()}
        self._procedure("expire_snapshots", target, older_than, ", retain_last => 1")
        after = {f.path for f in store.list_files()}
        return sorted(store.uri(path) for path in before - after)

    def remove_orphans(self, target: str, older_than: datetime) -> list[str]:
        from lakeshift.formats import iceberg_ownership as ownership

        table = self._require(target)
        if ownership.needs_own_cleanup(table):
            # Iceberg's action refuses gc off: lakeshift lists the location itself (the action
            # too lists only below it, so adopted files are never candidates).
            return sorted(ownership.remove_own_orphans(table, older_than))
        # Iceberg's own DeleteOrphanFiles action: the SQL procedure refuses margins under 24 h,
        # which an erasure's purge needs (the lease keeps other lakeshift writers out).
        jvm: Any = self.spark._jvm
        session = self.spark._jsparkSession
        java_table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(
            session, self.ident(target)
        )
        millis = int(older_than.timestamp() * 1000)
        result = (
            jvm.org.apache.iceberg.spark.actions.SparkActions.get(session)
            .deleteOrphanFiles(java_table)
            .olderThan(millis)
            .execute()
        )
        return sorted(str(location) for location in result.orphanFileLocations())
