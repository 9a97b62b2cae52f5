"""The metastore entry of a Hudi table, as Hudi's Hive sync writes it (HMS mode,
``MultiPartKeysValueExtractor``), so that Hive, Presto, Trino and Spark with the Hudi bundle read
it under its name after cutover.

Hand-written: the sync tool is Java in the Hudi bundle, which cannot be installed here. What it
writes: an external table whose columns are the five ``_hoodie_*`` meta columns and the data
columns, partitioned by ``partitionpath string``; ``HoodieParquetInputFormat``,
``MapredParquetOutputFormat`` and ``ParquetHiveSerDe`` (serde parameter ``path`` = base path);
table parameters ``spark.sql.sources.provider=hudi``, Spark's schema split in parts
(partition column last), ``last_commit_time_sync``; one Hive partition per Hudi partition path at
its directory, whose value is the text after ``=`` of each path segment.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lakeshift.formats.hudi.base_file import META_COLUMNS
from lakeshift.metastore import ddl
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN

if TYPE_CHECKING:
    from hive_metastore.ttypes import Table

    from lakeshift.metastore.catalog import CatalogClient

INPUT_FORMAT = "org.apache.hudi.hadoop.HoodieParquetInputFormat"
LAST_SYNC = "last_commit_time_sync"
#: When that instant completed (Hudi 0.14+ syncs it too; incremental sync starts from it).
LAST_COMPLETION_SYNC = "last_commit_completion_time_sync"
#: Spark splits its schema JSON into parts of at most this many characters (its default).
SCHEMA_PART = 4000
Columns = Sequence[tuple[str, str]]


def partition_value(partition_path: str) -> str:
    """The Hive partition value of a Hudi partition path, as ``MultiPartKeysValueExtractor``
    reads it: the text after ``=`` in each segment (segments joined with ``/`` when a Hive
    table had several partition keys: Hudi's one partition field holds them all)."""
    return "/".join(s.split("=", 1)[-1] for s in partition_path.split("/"))


def spark_schema_parameters(spark_fields: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Spark's ``spark.sql.sources.schema.*`` table parameters (partition column last)."""
    ordered = [f for f in spark_fields if f["name"] != PARTITIONPATH_COLUMN] + [
        f for f in spark_fields if f["name"] == PARTITIONPATH_COLUMN
    ]
    text = json.dumps({"type": "struct", "fields": ordered}, separators=(",", ":"))
    parts = [text[i : i + SCHEMA_PART] for i in range(0, len(text), SCHEMA_PART)]
    out = {"spark.sql.sources.schema.numParts": str(len(parts))}
    out.update({f"spark.sql.sources.schema.part.{i}": p for i, p in enumerate(parts)})
    out["spark.sql.sources.schema.numPartCols"] = "1"
    out["spark.sql.sources.schema.partCol.0"] = PARTITIONPATH_COLUMN
    return out


def table_entry(
    target: str,
    location: str,
    columns: Columns,
    spark_fields: Sequence[dict[str, Any]],
    parameters: Mapping[str, str],
) -> Table:
    """The table entry: meta columns, then ``columns`` (data columns without partitionpath)."""
    db, _, name = target.partition(".")
    entry = ddl.external_table(
        db,
        name,
        [*((c, "string") for c in META_COLUMNS), *columns],
        [(PARTITIONPATH_COLUMN, "string")],
        location,
        fmt="parquet",
        parameters={
            "spark.sql.sources.provider": "hudi",
            **spark_schema_parameters(spark_fields),
            **parameters,
        },
    )
    entry.sd.inputFormat = INPUT_FORMAT
    entry.sd.serdeInfo.parameters = {
        "path": location,
        "hoodie.query.as.ro.table": "false",
        "serialization.format": "1",
    }
    return entry


def sync_partitions(
    client: CatalogClient,
    target: str,
    location: str,
    partition_paths: Sequence[str],
    last_commit: str,
    completed_at: str,
) -> None:
    """Make the entry's partitions exactly ``partition_paths`` (added, moved, dropped) and record
    the instant synced and its completion time, as Hive sync does after each commit."""
    db, _, name = target.partition(".")
    entry = client.get_table(db, name)
    if [k.name for k in entry.partitionKeys or []] != [PARTITIONPATH_COLUMN]:
        return  # an entry written before lakeshift registered partitions: left as it is
    columns = [(c.name, c.type) for c in entry.sd.cols]
    wanted = {partition_value(p): posixpath.join(location.rstrip("/"), p) for p in partition_paths}
    existing = {
        tuple(p.values): p
        for p in client.partitions_by_names(db, name, client.partition_names(db, name))
    }
    new = [
        _partition(db, name, value, where, columns)
        for value, where in wanted.items()
        if (value,) not in existing
    ]
    client.add_partitions(new)
    moved = []
    for value, where in wanted.items():
        part = existing.get((value,))
        if part is not None and part.sd.location != where:
            part.sd.location = where
            moved.append(part)
    client.alter_partitions(db, name, moved)
    for values in existing:
        if values[0] not in wanted:
            client.drop_partition(db, name, list(values))
    synced = {LAST_SYNC: last_commit, LAST_COMPLETION_SYNC: completed_at}
    entry.parameters = {**(entry.parameters or {}), **synced}
    client.alter_table(db, name, entry)


def _partition(db: str, name: str, value: str, where: str, columns: Columns) -> Any:
    part = ddl.partition(db, name, [value], columns, where, "parquet")
    part.sd.inputFormat = INPUT_FORMAT
    return part
