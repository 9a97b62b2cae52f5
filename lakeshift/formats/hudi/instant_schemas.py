"""The Avro records of Hudi's timeline from table version 8: what a commit, a replacecommit and
a requested replace (an insert_overwrite's or a clustering plan) hold.

From table version 8 Hudi writes instants as Avro container files (no codec) and Java reads
each with the writer schema the file carries, resolved against its own generated classes. So
the record and field names, types, defaults and order below are Hudi's (``HoodieCommitMetadata``,
``HoodieReplaceCommitMetadata``, ``HoodieRequestedReplaceMetadata`` in
``org.apache.hudi.avro.model``, as Hudi 1.0 writes them); a golden test compares them with the
schemas in real v8 and v9 tables' files. Strings carry ``avro.java.string`` as Hudi's do.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any

NAMESPACE = "org.apache.hudi.avro.model"
STRING: dict[str, Any] = {"type": "string", "avro.java.string": "String"}
_LONGS = (
    "numWrites",
    "numDeletes",
    "numUpdateWrites",
    "totalWriteBytes",
    "totalWriteErrors",
)


def _optional(name: str, kind: Any) -> dict[str, Any]:
    return {"name": name, "type": ["null", kind], "default": None}


def _version(default: int = 1) -> dict[str, Any]:
    return {"name": "version", "type": ["int", "null"], "default": default}


def _string_map(values: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "map", "values": values, "avro.java.string": "String", **extra}


_RUNTIME_STATS = {
    "type": "record",
    "name": "HoodieRuntimeStats",
    "fields": [
        _optional(n, "long") for n in ("totalScanTime", "totalCreateTime", "totalUpsertTime")
    ],
}
WRITE_STAT_FIELDS: list[dict[str, Any]] = [
    _optional("fileId", STRING),
    _optional("path", STRING),
    _optional("prevCommit", STRING),
    *(_optional(n, "long") for n in _LONGS),
    _optional("partitionPath", STRING),
    *(
        _optional(n, "long")
        for n in (
            "totalLogRecords",
            "totalLogFiles",
            "totalUpdatedRecordsCompacted",
            "numInserts",
            "totalLogBlocks",
            "totalCorruptLogBlock",
            "totalRollbackBlocks",
            "fileSizeInBytes",
        )
    ),
    _optional("logVersion", "int"),
    _optional("logOffset", "long"),
    _optional("baseFile", STRING),
    _optional("logFiles", {"type": "array", "items": STRING, "default": None}),
    _optional("cdcStats", _string_map("long", default=None)),
    _optional("prevBaseFile", STRING),
    _optional("minEventTime", "long"),
    _optional("maxEventTime", "long"),
    _optional("runtimeStats", _RUNTIME_STATS),
    *(
        _optional(n, "long")
        for n in ("totalLogFilesCompacted", "totalLogReadTimeMs", "totalLogSizeCompacted")
    ),
    _optional("tempPath", STRING),
    _optional("numUpdates", "long"),
]
_WRITE_STAT = {"type": "record", "name": "HoodieWriteStat", "fields": WRITE_STAT_FIELDS}


def _commit_fields(extra_default: bool) -> list[dict[str, Any]]:
    extra = _string_map(STRING, **({"default": None} if extra_default else {}))
    return [
        _optional("partitionToWriteStats", _string_map({"type": "array", "items": _WRITE_STAT})),
        _optional("compacted", "boolean"),
        _optional("extraMetadata", extra),
        _version(),
        _optional("operationType", STRING),
    ]


COMMIT_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "HoodieCommitMetadata",
    "namespace": NAMESPACE,
    "fields": _commit_fields(extra_default=True),
}
REPLACE_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "HoodieReplaceCommitMetadata",
    "namespace": NAMESPACE,
    "fields": [
        *_commit_fields(extra_default=False),
        _optional("partitionToReplaceFileIds", _string_map({"type": "array", "items": STRING})),
    ],
}
_EXTRA = _optional("extraMetadata", _string_map(STRING))
_SLICE = {
    "type": "record",
    "name": "HoodieSliceInfo",
    "fields": [
        _optional("dataFilePath", STRING),
        _optional("deltaFilePaths", {"type": "array", "items": STRING}),
        {"name": "fileId", "type": ["null", STRING]},
        _optional("partitionPath", STRING),
        _optional("bootstrapFilePath", STRING),
        _version(),
    ],
}
_CLUSTERING_GROUP = {
    "type": "record",
    "name": "HoodieClusteringGroup",
    "fields": [
        _optional("slices", {"type": "array", "items": _SLICE}),
        _optional("metrics", _string_map("double")),
        {"name": "numOutputFileGroups", "type": ["int", "null"], "default": 1},
        _EXTRA,
        _version(),
    ],
}
_PLAN_FIELDS: list[dict[str, Any]] = [
    _optional("inputGroups", {"type": "array", "items": _CLUSTERING_GROUP}),
    _optional(
        "strategy",
        {
            "type": "record",
            "name": "HoodieClusteringStrategy",
            "fields": [
                _optional("strategyClassName", STRING),
                _optional("strategyParams", _string_map(STRING)),
                _version(),
            ],
        },
    ),
    _EXTRA,
    _version(),
    _optional("preserveHoodieMetadata", "boolean"),
    # Hudi 1.0 added this field; Hudi 0.14/0.15 (table version 6) files do not have it.
    _optional("missingSchedulePartitions", {"type": "array", "items": STRING}),
]


def requested_replace_schema(version: int) -> dict[str, Any]:
    """``HoodieRequestedReplaceMetadata`` as the Hudi release of table ``version`` writes it."""
    plan = _PLAN_FIELDS if version >= 8 else _PLAN_FIELDS[:-1]
    return {
        "type": "record",
        "name": "HoodieRequestedReplaceMetadata",
        "namespace": NAMESPACE,
        "fields": [
            _optional("operationType", STRING),
            _optional(
                "clusteringPlan",
                {"type": "record", "name": "HoodieClusteringPlan", "fields": plan},
            ),
            _EXTRA,
            _version(),
        ],
    }


REQUESTED_REPLACE_SCHEMA = requested_replace_schema(8)
#: Hudi's default clustering execution strategy (sizes file groups; lakeshift sorts nothing).
CLUSTERING_STRATEGY = (
    "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
)
_METRICS = (
    "TOTAL_LOG_FILES",
    "TOTAL_IO_MB",
    "TOTAL_IO_READ_MB",
    "TOTAL_LOG_FILES_SIZE",
    "TOTAL_IO_WRITE_MB",
)


def avro_bytes(schema: dict[str, Any], record: dict[str, Any]) -> bytes:
    """One record as an Avro container file without codec, as Hudi's ``TimelineMetadataUtils``
    writes it: the header holds only ``avro.schema``, spelled as the schema is given.

    Hand-written container around fastavro's record encoding: fastavro's own writer puts its
    parsed form of the schema (full names) and ``avro.codec`` in the header, so the file would
    differ from Hudi's although Java would read it.
    """
    import fastavro

    body = io.BytesIO()
    fastavro.schemaless_writer(body, fastavro.parse_schema(schema), record)
    data = body.getvalue()
    sync = os.urandom(16)
    text = json.dumps(schema, separators=(",", ":")).encode()
    header = _long(1) + _bytes(b"avro.schema") + _bytes(text) + _long(0)
    return b"Obj\x01" + header + sync + _long(1) + _long(len(data)) + data + sync


def _long(value: int) -> bytes:
    """Avro's zig-zag variable-length long."""
    n = (value << 1) ^ (value >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _bytes(value: bytes) -> bytes:
    return _long(len(value)) + value


#: v8 write-stat fields a v6-shaped stat lacks whose value Hudi writes as 0, not null.
_ZERO_STATS = {"totalLogReadTimeMs": 0, "numUpdates": 0}


def avro_write_stat(stat: dict[str, Any]) -> dict[str, Any]:
    """A write stat (as ``commit_metadata.write_stat`` builds it) with every v8 field."""
    return {f["name"]: stat.get(f["name"], _ZERO_STATS.get(f["name"])) for f in WRITE_STAT_FIELDS}


def avro_commit(metadata: dict[str, Any], replace: bool) -> bytes:
    """A completed (or, without stats, inflight) commit or replacecommit as Hudi 1.x writes it."""
    record = {
        "partitionToWriteStats": {
            partition: [avro_write_stat(s) for s in stats]
            for partition, stats in (metadata.get("partitionToWriteStats") or {}).items()
        },
        "compacted": bool(metadata.get("compacted", False)),
        "extraMetadata": dict(metadata.get("extraMetadata") or {}),
        "version": None,
        "operationType": metadata.get("operationType"),
    }
    if replace:
        record["partitionToReplaceFileIds"] = metadata.get("partitionToReplaceFileIds") or {}
        return avro_bytes(REPLACE_SCHEMA, record)
    return avro_bytes(COMMIT_SCHEMA, record)


def requested_replace(version: int, clustering: list[list[dict[str, Any]]] | None = None) -> bytes:
    """A replace's requested file: empty of content for an insert_overwrite (as Hudi writes
    it), or a clustering plan with one input group per new file group (``clustering``: lists
    of ``{dataFilePath, fileId, partitionPath}`` slices)."""
    schema = requested_replace_schema(version)
    if clustering is None:
        empty = dict.fromkeys(("operationType", "clusteringPlan", "extraMetadata", "version"))
        return avro_bytes(schema, empty)
    groups = [
        {
            "slices": [
                {**s, "deltaFilePaths": [], "bootstrapFilePath": "", "version": 1} for s in group
            ],
            "metrics": dict.fromkeys(_METRICS, 0.0),
            "numOutputFileGroups": 1,
            "extraMetadata": None,
            "version": 1,
        }
        for group in clustering
    ]
    plan: dict[str, Any] = {
        "inputGroups": groups,
        "strategy": {"strategyClassName": CLUSTERING_STRATEGY, "strategyParams": {}, "version": 1},
        "extraMetadata": {},
        "version": 1,
        "preserveHoodieMetadata": True,
    }
    if version >= 8:
        plan["missingSchedulePartitions"] = []
    record = {"operationType": "CLUSTER", "clusteringPlan": plan, "extraMetadata": {}, "version": 1}
    return avro_bytes(schema, record)
