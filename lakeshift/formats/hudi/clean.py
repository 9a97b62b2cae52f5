"""Hudi's ``clean`` instant: the record of which superseded file slices were deleted.

``<t>.clean.requested`` and ``<t>.clean.inflight`` hold the plan (Avro ``HoodieCleanerPlan``,
version 2: full paths of the files to delete per partition), ``<t>.clean`` the outcome (Avro
``HoodieCleanMetadata``, version 2: file names deleted per partition). Both are Avro container
files without compression, as Hudi's ``TimelineMetadataUtils`` writes them; Java reads them with
the writer schema they carry, so the schemas below spell Hudi's field names, types and defaults.
Written with fastavro (no Hudi jars here).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from lakeshift.errors import LakeshiftError
from lakeshift.formats.hudi.cleaning import BaseFile
from lakeshift.formats.hudi.instant_schemas import avro_bytes
from lakeshift.formats.hudi.timeline import (
    CLEAN,
    COMPLETED,
    INFLIGHT,
    REQUESTED,
    Instant,
    Timeline,
)

NAMESPACE = "org.apache.hudi.avro.model"
#: lakeshift keeps one slice per file group and deletes older ones once past a cutoff.
POLICY = "KEEP_LATEST_BY_HOURS"
VERSION = 2

_ACTION_INSTANT = {
    "type": "record",
    "name": "HoodieActionInstant",
    "fields": [
        {"name": "timestamp", "type": "string"},
        {"name": "action", "type": "string"},
        {"name": "state", "type": "string"},
    ],
}
PLAN_SCHEMA = {
    "namespace": NAMESPACE,
    "type": "record",
    "name": "HoodieCleanerPlan",
    "fields": [
        {"name": "earliestInstantToRetain", "type": ["null", _ACTION_INSTANT], "default": None},
        {"name": "policy", "type": "string"},
        {
            "name": "filesToBeDeletedPerPartition",
            "type": ["null", {"type": "map", "values": {"type": "array", "items": "string"}}],
            "default": None,
        },
        {"name": "version", "type": ["int", "null"], "default": 1},
        {
            "name": "filePathsToBeDeletedPerPartition",
            "type": [
                "null",
                {
                    "type": "map",
                    "values": {
                        "type": "array",
                        "items": {
                            "type": "record",
                            "name": "HoodieCleanFileInfo",
                            "fields": [
                                {"name": "filePath", "type": ["null", "string"], "default": None},
                                {
                                    "name": "isBootstrapBaseFile",
                                    "type": ["null", "boolean"],
                                    "default": None,
                                },
                            ],
                        },
                    },
                },
            ],
            "default": None,
        },
        {
            "name": "partitionsToBeDeleted",
            "type": ["null", {"type": "array", "items": "string"}],
            "default": None,
        },
    ],
}
_PARTITION_METADATA = {
    "type": "record",
    "name": "HoodieCleanPartitionMetadata",
    "fields": [
        {"name": "partitionPath", "type": "string"},
        {"name": "policy", "type": "string"},
        {"name": "deletePathPatterns", "type": {"type": "array", "items": "string"}},
        {"name": "successDeleteFiles", "type": {"type": "array", "items": "string"}},
        {"name": "failedDeleteFiles", "type": {"type": "array", "items": "string"}},
        {"name": "isPartitionDeleted", "type": ["null", "boolean"], "default": None},
    ],
}
METADATA_SCHEMA = {
    "namespace": NAMESPACE,
    "type": "record",
    "name": "HoodieCleanMetadata",
    "fields": [
        {"name": "policy", "type": "string", "default": ""},
        {"name": "startCleanTime", "type": "string"},
        {"name": "timeTakenInMillis", "type": "long"},
        {"name": "totalFilesDeleted", "type": "int"},
        {"name": "earliestCommitToRetain", "type": "string"},
        {"name": "lastCompletedCommitTimestamp", "type": "string", "default": ""},
        {"name": "partitionMetadata", "type": {"type": "map", "values": _PARTITION_METADATA}},
        {"name": "version", "type": ["int", "null"], "default": 1},
        {
            "name": "bootstrapPartitionMetadata",
            "type": ["null", {"type": "map", "values": "HoodieCleanPartitionMetadata"}],
            "default": None,
        },
    ],
}


def clean(
    timeline: Timeline,
    base_path: str,
    files: Sequence[BaseFile],
    earliest_to_retain: Instant | None,
) -> str | None:
    """Plan, delete and record ``files`` as one clean instant; returns its time (None when
    there is nothing to delete). ``base_path`` is the table location as readers name it;
    ``earliest_to_retain`` the oldest completed commit whose files all remain."""
    if not files:
        return None
    started = time.monotonic()
    instant = timeline.new_instant_time()
    by_partition: dict[str, list[BaseFile]] = {}
    for f in files:
        by_partition.setdefault(f.partition, []).append(f)
    retain = None
    if earliest_to_retain is not None:
        retain = {
            "timestamp": earliest_to_retain.time,
            "action": earliest_to_retain.action,
            "state": COMPLETED.upper(),  # Hudi's State enum name
        }
    plan: dict[str, Any] = {
        "earliestInstantToRetain": retain,
        "policy": POLICY,
        "filesToBeDeletedPerPartition": {},
        "version": VERSION,
        "filePathsToBeDeletedPerPartition": {
            partition: [
                {"filePath": _join(base_path, partition, f.name), "isBootstrapBaseFile": False}
                for f in group
            ]
            for partition, group in by_partition.items()
        },
        "partitionsToBeDeleted": [],
    }
    payload = avro_bytes(PLAN_SCHEMA, plan)
    timeline.write_state(instant, CLEAN, REQUESTED, payload)
    timeline.write_state(instant, CLEAN, INFLIGHT, payload)
    deleted: dict[str, list[str]] = {}
    failed: dict[str, list[str]] = {}
    for partition, group in by_partition.items():
        for f in group:
            try:
                timeline.base.delete(f.path)
                deleted.setdefault(partition, []).append(f.name)
            except (OSError, LakeshiftError):
                failed.setdefault(partition, []).append(f.name)
    commits = [i.time for i in timeline.completed() if i.action != CLEAN]
    metadata = {
        "policy": POLICY,
        "startCleanTime": instant,
        "timeTakenInMillis": int((time.monotonic() - started) * 1000),
        "totalFilesDeleted": sum(len(v) for v in deleted.values()),
        "earliestCommitToRetain": earliest_to_retain.time if earliest_to_retain else "",
        "lastCompletedCommitTimestamp": max(commits, default=""),
        "partitionMetadata": {
            partition: {
                "partitionPath": partition,
                "policy": POLICY,
                "deletePathPatterns": [f.name for f in group],
                "successDeleteFiles": deleted.get(partition, []),
                "failedDeleteFiles": failed.get(partition, []),
                "isPartitionDeleted": False,
            }
            for partition, group in by_partition.items()
        },
        "version": VERSION,
        "bootstrapPartitionMetadata": {},
    }
    timeline.write_state(instant, CLEAN, COMPLETED, avro_bytes(METADATA_SCHEMA, metadata))
    return instant


def _join(base: str, partition: str, name: str) -> str:
    return "/".join(p for p in (base.rstrip("/"), partition, name) if p)
