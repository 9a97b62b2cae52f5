"""Iceberg data files as Iceberg's own JSON (``ContentFileParser``), so that the Arrow path
hands the JVM a whole batch's files in one string instead of building each through py4j.

Building one ``DataFile`` in the JVM through py4j took about ten round trips (the builder's
calls, the partition's, reading the footer again in Java): 6.4 s of a 9.6 s migration of
1,000 one-file partitions. Here the tasks that write a file also describe it (its metrics from
the footer they just wrote, by Iceberg's rules for Parquet: ``pyiceberg``'s implementation,
with each column's metrics mode as the table's ``MetricsConfig`` gives it), the driver adds
path, size and partition, and Java parses the batch's JSON once; each file is then one
``fromJson`` and one ``addFile``. Only what Iceberg's JSON holds is written: what cannot be
(a NaN or infinite float as a partition value) raises :class:`Unboxable`, and a file whose
metrics the tasks could not describe is described by Java (``ParquetUtil.fileMetrics``), as
before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from lakeshift.formats.iceberg_java import Unboxable, internal_value, java_items

if TYPE_CHECKING:
    import pyarrow.parquet as pq

_EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class MetricsPlan:
    """What a task needs to describe a file's metrics as Iceberg's Java writer would: the
    table's schema (Iceberg's JSON) and each column's metrics mode (``MetricsConfig``'s, as
    text: ``none``, ``counts``, ``truncate(16)``, ``full``). Built on the driver, pickled into
    the tasks."""

    schema_json: str
    modes: tuple[tuple[str, str], ...]

    def describe(self, metadata: pq.FileMetaData) -> str:
        """The metrics of a Parquet file with footer ``metadata``, as the members of a
        ``ContentFileParser`` JSON object (without braces, path, size or partition); "" when
        they cannot be described here (then the driver asks Java)."""
        try:
            return _metrics_members(self, metadata)
        except Exception:  # any value Iceberg's rules here do not cover: Java describes it
            return ""


@lru_cache(maxsize=8)
def _statistics_plan(plan: MetricsPlan) -> tuple[dict[int, Any], dict[str, int]]:
    """pyiceberg's statistics plan for ``plan``'s schema with the table's own modes, and the
    files' column paths to field IDs (once per task and batch, not per file)."""
    from pyiceberg.io.pyarrow import (
        StatisticsCollector,
        compute_statistics_plan,
        match_metrics_mode,
        parquet_path_to_id_mapping,
    )
    from pyiceberg.schema import Schema
    from pyiceberg.types import BinaryType, StringType

    schema = Schema.model_validate_json(plan.schema_json)
    modes = dict(plan.modes)
    stats: dict[int, Any] = {}
    for field_id, collector in compute_statistics_plan(schema, {}).items():
        mode = match_metrics_mode(modes[collector.column_name])
        # Iceberg truncates only strings and binary: other types' bounds are whole
        if mode.length is not None and not isinstance(
            collector.iceberg_type, (StringType, BinaryType)
        ):
            mode = match_metrics_mode("full")
        stats[field_id] = StatisticsCollector(
            field_id, collector.iceberg_type, mode, collector.column_name
        )
    return stats, parquet_path_to_id_mapping(schema)


def _metrics_members(plan: MetricsPlan, metadata: pq.FileMetaData) -> str:
    from pyiceberg.io.pyarrow import data_file_statistics_from_parquet_metadata

    stats, paths = _statistics_plan(plan)
    found = data_file_statistics_from_parquet_metadata(metadata, stats, paths)
    lower: dict[int, bytes] = {}
    upper: dict[int, bytes] = {}
    for field_id, aggregate in found.column_aggregates.items():
        low, high = aggregate.min_as_bytes(), aggregate.max_as_bytes()
        if low is not None:
            lower[field_id] = low
        if high is not None:
            upper[field_id] = high
    # pyiceberg sizes every column; Iceberg's Java writer none of mode "none"
    sizes = {i: n for i, n in found.column_sizes.items() if stats[i].mode.type.value != "none"}
    members = {
        "record-count": found.record_count,
        "column-sizes": _counts(sizes),
        "value-counts": _counts(found.value_counts),
        "null-value-counts": _counts(found.null_value_counts),
        "nan-value-counts": _counts(found.nan_value_counts),
        "lower-bounds": _bounds(lower),
        "upper-bounds": _bounds(upper),
    }
    return json.dumps(members, separators=(",", ":"))[1:-1]


def _counts(counts: dict[int, int]) -> dict[str, list[int]]:
    keys = sorted(counts)
    return {"keys": keys, "values": [counts[k] for k in keys]}


def _bounds(bounds: dict[int, bytes]) -> dict[str, list[Any]]:
    keys = sorted(bounds)  # Iceberg's JSON holds binary as upper-case hex
    return {"keys": keys, "values": [bounds[k].hex().upper() for k in keys]}


def partition_json(fields: list[tuple[int, str]], kinds: list[str], values: list[Any]) -> str:
    """A partition as ``ContentFileParser``'s JSON object: each partition field's ID and its
    value as Iceberg's ``SingleValueParser`` reads it back for the field's Iceberg type
    (``fields``: ID and type, in spec order; ``kinds``: the keys' Hive types as the target
    holds them; ``values``: typed values).

    Raises:
        Unboxable: a float that JSON cannot hold (NaN, infinity).
    """
    members = {
        str(field_id): _single_value(iceberg_type, kind, value)
        for (field_id, iceberg_type), kind, value in zip(fields, kinds, values)
    }
    return json.dumps(members, separators=(",", ":"), allow_nan=False)


def _single_value(iceberg_type: str, kind: str, value: Any) -> Any:
    internal = internal_value(kind, value)
    if internal is None:
        return None
    if iceberg_type == "date":
        return (_EPOCH.date() + timedelta(days=internal)).isoformat()
    if iceberg_type in ("timestamp", "timestamptz"):
        text = (_EPOCH + timedelta(microseconds=internal)).isoformat(timespec="microseconds")
        return text + ("+00:00" if iceberg_type == "timestamptz" else "")
    if isinstance(internal, Decimal):
        return str(internal)
    if isinstance(internal, float) and (internal != internal or abs(internal) == float("inf")):
        raise Unboxable(f"{iceberg_type} {value} has no JSON form")
    return internal


def data_file_json(path: str, size: int, partition: str, metrics: str, spec_id: int) -> str:
    """One data file as ``ContentFileParser``'s JSON (Parquet, with ``metrics``' members)."""
    head = json.dumps(
        {
            "spec-id": spec_id,
            "content": "DATA",
            "file-path": path,
            "file-format": "PARQUET",
            "file-size-in-bytes": size,
        },
        separators=(",", ":"),
    )[:-1]
    return f'{head},"partition":{partition},{metrics},"sort-order-id":0}}'


#: The members of a file that stands only for its partition (Java keeps its partition).
_NO_METRICS = '"record-count":0'


def partition_fields(spec: Any) -> list[tuple[int, str]]:
    """Each partition field of the Java ``spec``: its ID and Iceberg type, in spec order (what
    ``partition_json`` takes)."""
    return [(int(f.fieldId()), str(f.type())) for f in java_items(spec.partitionType().fields())]


def java_partitions(jvm: Any, spec: Any, partitions: list[str]) -> list[Any]:
    """Each ``partition_json`` text as Iceberg's Java ``PartitionData`` of ``spec``: one JSON
    parse for all, then two calls a partition."""
    if not partitions:
        return []
    spec_id = int(spec.specId())
    files = [data_file_json("lakeshift-partition", 0, p, _NO_METRICS, spec_id) for p in partitions]
    tree = jvm.org.apache.iceberg.util.JsonUtil.mapper().readTree(f"[{','.join(files)}]")
    parser = jvm.org.apache.iceberg.ContentFileParser
    return [parser.fromJson(tree.get(i), spec).partition() for i in range(len(partitions))]


def java_data_files(
    jvm: Any,
    table: Any,
    written: list[Any],
    partitions: dict[str, str],
    java_partition: dict[str, Any],
) -> list[Any]:
    """The Arrow path's written files (``arrow_path.Written``) as Java ``DataFile``s of the
    table's current spec: those the tasks described from one JSON parse, the others with
    their metrics read by Java (``partitions``: each partition's JSON; ``java_partition``:
    its ``PartitionData``)."""
    iceberg = jvm.org.apache.iceberg
    spec = table.spec()
    spec_id = int(spec.specId())
    described = [w for w in written if w.description]
    by_path: dict[str, Any] = {}
    if described:
        files = [
            data_file_json(w.path, w.size, partitions[w.partition], w.description, spec_id)
            for w in described
        ]
        tree = iceberg.util.JsonUtil.mapper().readTree(f"[{','.join(files)}]")
        parser = iceberg.ContentFileParser
        for i, w in enumerate(described):
            by_path[w.path] = parser.fromJson(tree.get(i), spec)
    rest = [w for w in written if not w.description]
    if rest:
        config, io = iceberg.MetricsConfig.forTable(table), table.io()
        parquet_util, parquet = iceberg.parquet.ParquetUtil, iceberg.FileFormat.PARQUET
        for w in rest:
            by_path[w.path] = (
                iceberg.DataFiles.builder(spec)
                .withPath(w.path)
                .withFormat(parquet)
                .withFileSizeInBytes(w.size)
                .withPartition(java_partition[w.partition])
                .withMetrics(parquet_util.fileMetrics(io.newInputFile(w.path), config))
                .build()
            )
    return [by_path[w.path] for w in written]


def metrics_plan(jvm: Any, table: Any) -> MetricsPlan:
    """The table's schema and each top-level column's metrics mode, from Java (its
    ``MetricsConfig`` applies the table's properties and their defaults)."""
    config = jvm.org.apache.iceberg.MetricsConfig.forTable(table)
    schema = table.schema()
    names = [str(f.name()) for f in java_items(schema.columns())]
    modes = tuple((name, str(config.columnMode(name))) for name in names)
    return MetricsPlan(str(jvm.org.apache.iceberg.SchemaParser.toJson(schema)), modes)
