"""Delta Lake: Spark writes Parquet files, the driver commits them with delta-rs.

No delta-spark jar can be had here (PyPI only), so Spark never talks Delta: each batch is one
Spark job writing Parquet (physical column names, field IDs) into a directory of its own under
the table, then one delta-rs commit adds those files and removes the batch partitions' old
ones. The metastore entry is the one delta-spark writes (``spark.sql.sources.provider=delta``),
so clusters with Delta read the table under its name; engines without Delta read the routing
table kept in step with the log (:mod:`lakeshift.formats.delta.route_table`).
"""

from __future__ import annotations

import json
import logging
import posixpath
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakeshift.errors import EnvironmentProblem, RefusedInput, SchemaMappingError
from lakeshift.formats.base import (
    Backfilled,
    BatchResult,
    CommitRecord,
    FormatServices,
    LakeSide,
    SyncResult,
    TargetFormat,
)
from lakeshift.formats.commit_metadata import (
    TARGET_SOURCE_PROPERTY,
    commit_properties,
    latest_backfills,
)
from lakeshift.formats.delta import log as delta_log
from lakeshift.formats.delta.route_table import ROUTE_OF, route_table_name, sync_route_table
from lakeshift.formats.delta.schema import (
    DELTA_MAPPING_PROPERTY,
    canonical_partition_value,
    delta_schema,
    delta_type,
)
from lakeshift.formats.delta.types import (
    COLUMN_ID,
    delta_hive_type,
    logical_spark_type,
    physical_hive_type,
    physical_name,
    physical_spark_type,
)
from lakeshift.inspect.model import TableInventory
from lakeshift.migrate import faults
from lakeshift.schema_map.hive_types import HiveType, parse_hive_type
from lakeshift.schema_map.mapping import (
    PARTITIONPATH_COLUMN,
    build_mapping,
    save_mapping,
)
from lakeshift.schema_map.model import FieldMapping
from lakeshift.schema_map.reader import spark_file_path
from lakeshift.schema_map.spark_sql import quote, spark_type
from lakeshift.validate.counts import counts_by_partition

if TYPE_CHECKING:
    from hive_metastore.ttypes import Table
    from pyspark.sql import DataFrame

log = logging.getLogger(__name__)
PROVIDER = "spark.sql.sources.provider"
ROUTE_TABLE_PARAM = "lakeshift.route-table"
#: The column Spark partitions a batch's files by: the partition's index in the batch.
BATCH_PART = "part"
_FILE = "__lakeshift_file"
_INTEGERS = ("tinyint", "smallint", "int", "bigint")


def local_path(location: str) -> Path:
    """A Hadoop ``file:`` location as a local path (other file systems are not written yet)."""
    scheme, sep, rest = location.partition(":")
    if not sep or len(scheme) == 1:
        return Path(location)
    if scheme.lower() != "file":
        raise EnvironmentProblem(
            f"Delta targets on {scheme}:// locations are not supported yet ({location}).",
            hint="Put the target database on a local or mounted file system, or use Iceberg.",
        )
    return Path("/" + rest.lstrip("/"))


def partition_value(value: str | None, hive_type: str) -> str | None:
    """A Hive partition value as the Delta protocol serializes it for the column's type; a
    value Hive reads as NULL (e.g. ``abc`` in an int partition column) is NULL here too."""
    try:
        return canonical_partition_value(value, delta_type(hive_type))
    except RefusedInput:
        return None


class DeltaFormat(TargetFormat):
    """Delta tables with column mapping (``name`` mode), committed by delta-rs."""

    name = "delta"
    label = "Delta table"

    def __init__(self, services: FormatServices) -> None:
        super().__init__(services)
        # The version each target was at after this process's own last change to it: a commit
        # expects it, so another writer committing between two batches is caught, never undone.
        self._expected: dict[str, int] = {}

    def _expected_version(self, target: str, state: delta_log.DeltaState) -> int:
        return self._expected.get(target, state.version)

    # -- where the table is -----------------------------------------------------------

    def _entry(self, target: str) -> Table | None:
        db, _, name = target.partition(".")
        if not self.client.table_exists(db, name):
            return None
        return self.client.get_table(db, name)

    def location(self, target: str) -> str:
        entry = self._entry(target)
        if entry is not None and entry.sd is not None and entry.sd.location:
            return str(entry.sd.location)
        db, _, name = target.partition(".")
        base = self.client.get_database(db).locationUri.rstrip("/")
        return f"{base}/{name}"

    def root(self, target: str) -> Path:
        return local_path(self.location(target))

    def _state(self, target: str) -> delta_log.DeltaState | None:
        return delta_log.table_state(self.root(target))

    def _require_state(self, target: str) -> delta_log.DeltaState:
        from lakeshift.errors import NotFound

        state = self._state(target)
        if state is None:
            raise NotFound(f"Delta table {target} has no _delta_log at {self.location(target)}.")
        return state

    # -- identity and schema --------------------------------------------------------------

    def exists(self, target: str) -> bool:
        return self._state(target) is not None

    def owner(self, target: str) -> str | None:
        state = self._state(target)
        return state.configuration.get(TARGET_SOURCE_PROPERTY) if state is not None else None

    def stored_mapping(self, target: str) -> FieldMapping | None:
        state = self._state(target)
        if state is None or DELTA_MAPPING_PROPERTY not in state.configuration:
            return None
        return FieldMapping.from_json(json.loads(state.configuration[DELTA_MAPPING_PROPERTY]))

    def target_type(self, hive: HiveType) -> HiveType:
        return delta_hive_type(hive)

    def sync(self, target: str, inventory: TableInventory, *, source: str) -> SyncResult:
        settings = self.services.settings
        root = self.root(target)
        state = delta_log.table_state(root)
        previous = self.stored_mapping(target)
        mapping = build_mapping(
            inventory,
            previous,
            mapping_mode=settings.mapping_mode,
            case_sensitive=settings.name_case_sensitive,
        )
        schema = delta_schema(mapping, state.schema if state else None)
        config = {
            TARGET_SOURCE_PROPERTY: source,
            DELTA_MAPPING_PROPERTY: json.dumps(mapping.to_json(), separators=(",", ":")),
        }
        keys = [k.name for k in inventory.partition_keys]
        created = evolved = False
        if state is None:
            root.mkdir(parents=True, exist_ok=True)
            delta_log.create_table(root, schema, keys, config)
            created = True
            log.info("created Delta table %s at %s", target, root)
        else:
            if list(state.partition_columns) != keys:
                raise SchemaMappingError(
                    f"Delta table {target} is partitioned by {list(state.partition_columns)}, "
                    f"but {source} by {keys}.",
                    hint="Delta cannot change partition columns in place; migrate into a new "
                    "--target.",
                )
            if previous != mapping:
                delta_log.update_metadata(
                    root, schema, {**state.configuration, **config}, state.version
                )
                evolved = True
                log.info("evolved Delta table %s to the current Hive schema", target)
        self._expected[target] = self._require_state(target).version
        self._register(target, source)
        save_mapping(mapping, settings.home)
        return SyncResult(mapping, created, evolved)

    def _register(self, target: str, source: str) -> None:
        """The metastore entry delta-spark itself would write (empty schema, ``path``)."""
        if self._entry(target) is not None:
            return
        from hive_metastore.ttypes import FieldSchema, SerDeInfo

        from lakeshift.metastore import ddl

        db, _, name = target.partition(".")
        location = self.location(target)
        entry = ddl.external_table(
            db,
            name,
            [],
            [],
            location,
            fmt="parquet",
            parameters={
                PROVIDER: "delta",
                "spark.sql.partitionProvider": "catalog",
                TARGET_SOURCE_PROPERTY: source,
                ROUTE_TABLE_PARAM: route_table_name(target),
            },
        )
        entry.sd.cols = [FieldSchema("col", "array<string>", "from deserializer")]
        entry.sd.inputFormat = "org.apache.hadoop.mapred.SequenceFileInputFormat"
        entry.sd.outputFormat = "org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat"
        entry.sd.serdeInfo = SerDeInfo(
            None,
            "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
            {"path": location, "serialization.format": "1"},
        )
        self.client.create_table(entry)

    # -- commits --------------------------------------------------------------------------

    def backfilled(self, target: str) -> dict[str, Backfilled]:
        if not self.exists(target):
            return {}
        commits = delta_log.lakeshift_commits(self.root(target))
        return latest_backfills((int(c["version"]), c) for c in commits)

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
        from pyspark.sql import functions as F

        state = self._require_state(target)
        root = self.root(target)
        frame, checksum = self.batch_frame(inventory, mapping, partitions, key_mode)
        index = F.create_map(*[x for i, n in enumerate(partitions) for x in (F.lit(n), F.lit(i))])
        frame = frame.withColumn(BATCH_PART, index[F.col(PARTITIONPATH_COLUMN)])
        frame = frame.select(*self._file_columns(state.schema, inventory), F.col(BATCH_PART))
        batch_dir = f"{record.run_id}-b{record.batch:05d}"
        frame.write.mode("errorifexists").partitionBy(BATCH_PART).parquet(
            spark_file_path(self.location(target), batch_dir)
        )
        observed = checksum()
        by_name = {p.name: p for p in inventory.partitions}
        keys = [(k.name, k.type) for k in inventory.partition_keys]
        values = {
            n: {k: partition_value(v, t) for (k, t), v in zip(keys, by_name[n].values)}
            for n in partitions
        }
        files = [
            delta_log.NewFile(posixpath.join(batch_dir, f"{BATCH_PART}={i}", f.name), values[n])
            for i, n in enumerate(partitions)
            for f in sorted((root / batch_dir / f"{BATCH_PART}={i}").glob("*.parquet"))
        ]
        faults.crash_point("before-log-commit", record.batch)
        outcome = delta_log.commit_batch(
            root,
            files,
            replace=list(values.values()),
            app_id=f"lakeshift-{record.run_id}",
            app_version=record.batch,
            metadata=commit_properties(record),
            expected_version=self._expected_version(target, state),
        )
        self._expected[target] = outcome.version
        self.sync_routing(target, inventory_keys=keys)
        return BatchResult(observed, True, int(outcome.version))

    def _file_columns(self, schema: dict[str, Any], inventory: TableInventory) -> list[Any]:
        """Data columns as the files hold them: physical names, field IDs, partition keys
        left out (Delta keeps partition values in the log)."""
        from pyspark.sql import functions as F

        keys = {k.name for k in inventory.partition_keys}
        out = []
        for field in schema["fields"]:
            if field["name"] in keys:
                continue
            out.append(
                F.expr(
                    f"CAST({quote(field['name'])} AS {physical_spark_type(field['type'])})"
                ).alias(
                    physical_name(field),
                    metadata={"parquet.field.id": int(field["metadata"][COLUMN_ID])},
                )
            )
        return out

    def delete_partitions(
        self, target: str, inventory: TableInventory, partitions: Sequence[str]
    ) -> None:
        state = self._require_state(target)
        by_name = {p.name: p for p in inventory.partitions}
        keys = [(k.name, k.type) for k in inventory.partition_keys]
        replace = [
            {k: partition_value(v, t) for (k, t), v in zip(keys, by_name[n].values)}
            for n in partitions
        ]
        outcome = delta_log.commit_batch(
            self.root(target),
            [],
            replace=replace,
            app_id=f"lakeshift-delete-{uuid.uuid4().hex}",
            app_version=1,
            metadata={},
            expected_version=self._expected_version(target, state),
        )
        self._expected[target] = outcome.version
        self.sync_routing(target, inventory_keys=keys)

    # -- validation -----------------------------------------------------------------------

    def row_counts(self, target: str, inventory: TableInventory) -> dict[str, int]:
        counts = delta_log.partition_row_counts(self.root(target))
        return counts_by_partition(inventory, list(counts.items()))

    def frame(self, target: str, inventory: TableInventory) -> DataFrame:
        """Exactly the current files, read by Spark; partition values from the log, physical
        names mapped back to Hive's (a struct cast is positional, so nested names follow)."""
        from pyspark.sql import functions as F

        state = self._require_state(target)
        location = self.location(target)
        keys = list(inventory.partition_keys)
        key_names = [k.name for k in keys]
        fields = [f for f in state.schema["fields"] if f["name"] not in set(key_names)]
        ddl = ", ".join(
            f"{quote(physical_name(f))} {physical_spark_type(f['type'])}" for f in fields
        )
        logical = ", ".join(f"{quote(f['name'])}:{logical_spark_type(f['type'])}" for f in fields)
        files = delta_log.current_files(self.root(target))
        lookup_rows: list[tuple[str | None, ...]] = [
            (spark_file_path(location, f.path), *[f.partition_values.get(k) for k in key_names])
            for f in files
        ]
        key_ddl = "".join(f", {quote(f'__k{i}')} STRING" for i in range(len(keys)))
        lookup = self.spark.createDataFrame(lookup_rows, f"{quote(_FILE)} STRING" + key_ddl)
        lookup = lookup.selectExpr(
            quote(_FILE),
            *[
                f"CAST({quote(f'__k{i}')} AS "
                f"{spark_type(delta_hive_type(parse_hive_type(k.type)))}) AS {quote(k.name)}"
                for i, k in enumerate(keys)
            ],
        )
        if not files:
            empty = self.spark.createDataFrame([], f"{ddl}, {quote(_FILE)} STRING")
            scan = empty
        else:
            paths = [_glob_escaped(str(row[0])) for row in lookup_rows]
            scan = self.spark.read.schema(ddl).parquet(*paths)
            scan = scan.withColumn(_FILE, F.expr("url_decode(_metadata.file_path)"))
        renamed = scan.select(
            F.col(_FILE),
            F.expr(f"CAST(struct(*) AS STRUCT<{logical}, {quote(_FILE)}:STRING>)").alias("r"),
        ).select("r.*")
        joined = renamed.join(F.broadcast(lookup), on=_FILE, how="inner")
        columns = [f["name"] for f in state.schema["fields"]]
        return joined.select(*[quote(c) for c in columns])

    # -- routing and cutover --------------------------------------------------------------

    def sync_routing(
        self, target: str, *, inventory_keys: Sequence[tuple[str, str]] | None = None
    ) -> str:
        """Bring the routing table in line with the log's current files; returns its name."""
        state = self._require_state(target)
        entry = self._entry(target)
        params = (entry.parameters or {}) if entry is not None else {}
        name = params.get(ROUTE_TABLE_PARAM) or route_table_name(target)
        keys_set = set(state.partition_columns)
        fields = [f for f in state.schema["fields"] if f["name"] not in keys_set]
        columns = [(physical_name(f), physical_hive_type(f["type"])) for f in fields]
        by_name = {f["name"]: f for f in state.schema["fields"]}
        keys = [(k, physical_hive_type(by_name[k]["type"])) for k in state.partition_columns]
        dirs: dict[tuple[str | None, ...], str] = {}
        for f in delta_log.current_files(self.root(target)):
            values = tuple(f.partition_values.get(k) for k in state.partition_columns)
            dirs[values] = posixpath.dirname(f.path)
        sync_route_table(self.client, name, target, self.location(target), columns, keys, dirs)
        return name

    def lake_side(self, target: str) -> LakeSide:
        name = self.sync_routing(target)
        state = self._require_state(target)
        renames = {
            f["name"]: physical_name(f)
            for f in state.schema["fields"]
            if physical_name(f) != f["name"]
        }
        return LakeSide(name, renames)

    def rename(self, old: str, new: str) -> None:
        entry = self._entry(old)
        if entry is None:
            raise RefusedInput(f"Delta table {old} is not in the metastore.")
        db, _, name = old.partition(".")
        entry.dbName, _, entry.tableName = new.partition(".")
        self.client.alter_table(db, name, entry)

    def is_route_table(self, entry: Any) -> bool:
        return ROUTE_OF in (entry.parameters or {})


def _glob_escaped(path: str) -> str:
    import re

    return re.sub(r"([{}\[\]*?\\])", r"\\\1", path)
