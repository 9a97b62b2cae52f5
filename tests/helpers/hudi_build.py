"""Build small Hudi tables from lakeshift's Hudi file layer alone (no Spark), for tests that
compare them with real Hudi tables and read them back with hudi-rs."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from lakeshift.formats.hudi import properties
from lakeshift.formats.hudi.avro_schema import avro_schema, create_schema, with_meta_fields
from lakeshift.formats.hudi.base_file import new_file_id, write_base_file
from lakeshift.formats.hudi.commit_metadata import (
    BULK_INSERT,
    INSERT_OVERWRITE,
    commit_metadata,
    inflight_metadata,
    write_stat,
)
from lakeshift.formats.hudi.instant_schemas import requested_replace
from lakeshift.formats.hudi.timeline import COMMIT, REPLACE, Timeline

ARROW_SCHEMA = pa.schema([("uuid", pa.string()), ("v", pa.int64()), ("partitionpath", pa.string())])


def new_table(base: Path, version: int = 6) -> Timeline:
    """An empty copy-on-write table of ``version`` at ``base``; its timeline."""
    schema = create_schema(avro_schema("t", ARROW_SCHEMA))
    properties.init_table(base, properties.table_properties("db", "t", schema, version))
    return Timeline(base)


def commit_rows(
    base: Path,
    partitions: dict[str, list[str]],
    timeline: Timeline,
    replaced: dict[str, list[str]] | None = None,
    codec: str = "gzip",
) -> str:
    """One instant writing a file per partition with these record keys: a ``commit``, or a
    ``replacecommit`` replacing the file groups ``replaced`` names; returns its time."""
    instant = timeline.new_instant_time()
    action = REPLACE if replaced else COMMIT
    operation = INSERT_OVERWRITE if replaced else BULK_INSERT
    requested = requested_replace(timeline.version) if replaced else b""
    timeline.write_requested(instant, action, requested)
    timeline.write_inflight(instant, action, inflight_metadata(operation))
    schema = avro_schema("t", ARROW_SCHEMA)
    stats = []
    for partition, keys in partitions.items():
        rows = pa.table(
            {"uuid": keys, "v": list(range(len(keys))), "partitionpath": [partition] * len(keys)},
            schema=ARROW_SCHEMA,
        )
        properties.write_partition_metadata(base / partition, instant, partition.count("/") + 1)
        written = write_base_file(
            rows,
            base / partition,
            partition_path=partition,
            instant=instant,
            file_id=new_file_id(),
            write_token="0-1-0",
            avro_schema=with_meta_fields(schema),
            codec=codec,
        )
        stats.append(
            write_stat(
                file_id=written.file_id,
                path=f"{partition}/{written.name}",
                partition=partition,
                rows=written.rows,
                size=written.size,
            )
        )
    metadata = commit_metadata(stats, schema, operation, {"lakeshift.batch": "1"}, replaced)
    timeline.write_completed(instant, action, metadata)
    return instant


def foreign_commit(base: Path, partition: str, rows: dict[str, list[object]]) -> str:
    """Another writer's completed ``commit`` on a lakeshift-written table at ``base``: one base
    file of ``rows`` (column -> values, the table's data columns and its record key) in
    ``partition``, written the way :func:`commit_rows` writes one, with no lakeshift record.
    Column types come from the table's ``hoodie.table.create.schema``; returns the instant."""
    import json

    create = json.loads(properties.read_properties(base / ".hoodie")["hoodie.table.create.schema"])
    kinds = {"int": pa.int32(), "long": pa.int64(), "string": pa.string()}
    fields = []
    for field in create["fields"]:
        if field["name"].startswith("_hoodie_"):
            continue
        kind = field["type"]
        kind = next(t for t in kind if t != "null") if isinstance(kind, list) else kind
        fields.append(pa.field(field["name"], kinds[kind]))
    schema = pa.schema(fields)
    table = pa.table({f.name: rows[f.name] for f in fields}, schema=schema)
    timeline = Timeline(base)  # not lakeshift's own: no instant mark
    instant = timeline.new_instant_time()
    timeline.write_requested(instant, COMMIT)
    timeline.write_inflight(instant, COMMIT, inflight_metadata(BULK_INSERT))
    avro = avro_schema(create["name"].removesuffix("_record"), schema)
    properties.write_partition_metadata(base / partition, instant, partition.count("/") + 1)
    written = write_base_file(
        table,
        base / partition,
        partition_path=partition,
        instant=instant,
        file_id=new_file_id(),
        write_token="0-1-0",
        avro_schema=with_meta_fields(avro),
    )
    stat = write_stat(
        file_id=written.file_id,
        path=f"{partition}/{written.name}",
        partition=partition,
        rows=written.rows,
        size=written.size,
    )
    timeline.write_completed(instant, COMMIT, commit_metadata([stat], avro, BULK_INSERT, {}))
    return instant
