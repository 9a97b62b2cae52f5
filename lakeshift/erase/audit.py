"""Prove erased rows are gone: read every file under the table location, referenced or not.

Independent of the write path: data files are read with pyarrow (record keys) and, for the
predicate, with Spark resolving columns by their Parquet field IDs (so files written before a
rename are read correctly); metadata and log files are decoded by format (JSON text, Parquet
checkpoints, Avro manifests) and searched for the erased keys and values.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakeshift.schema_map.hive_types import parse_hive_type
from lakeshift.schema_map.mapping import UUID_COLUMN
from lakeshift.schema_map.model import FieldMapping
from lakeshift.schema_map.source_frame import TargetType
from lakeshift.schema_map.spark_sql import spark_type

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)
METADATA_DIRS = ("_delta_log", "metadata")
#: Shorter values would match by chance inside unrelated bytes; they are checked in data only.
MIN_SEARCHED = 3


@dataclass
class AuditResult:
    """What the audit read and what it found (``findings`` empty means proven gone)."""

    data_files: int = 0
    metadata_files: int = 0
    keys_searched: int = 0
    values_searched: int = 0
    predicate_checked: bool = False
    findings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed}


def _is_metadata(path: Path, root: Path) -> bool:
    return any(part in METADATA_DIRS for part in path.relative_to(root).parts[:-1])


def _data_keys(path: Path) -> set[str] | None:
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    if UUID_COLUMN not in schema.names:
        return None
    return {k for k in pq.read_table(path, columns=[UUID_COLUMN]).column(0).to_pylist() if k}


def _text_of(path: Path) -> str:
    """A metadata file's content as searchable text, decoded by its format."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return str(pq.read_table(path).to_pylist())
    if path.suffix == ".avro":
        import fastavro

        with path.open("rb") as handle:
            return str(list(fastavro.reader(handle)))
    return path.read_bytes().decode("utf-8", errors="replace")


def audit_files(
    root: Path,
    keys: Iterable[str],
    values: Iterable[str],
) -> AuditResult:
    """Search every file under ``root`` for the erased ``keys`` and ``values``."""
    wanted_keys = set(keys)
    searched = sorted({v for v in values if len(v) >= MIN_SEARCHED})
    result = AuditResult(keys_searched=len(wanted_keys), values_searched=len(searched))
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root)
        if path.suffix == ".parquet" and not _is_metadata(path, root):
            result.data_files += 1
            found = _data_keys(path)
            if found is None:
                result.notes.append(f"{relative}: no uuid column; covered by the predicate check")
            elif found & wanted_keys:
                result.findings.append(f"{relative}: holds {len(found & wanted_keys)} erased keys")
            continue
        result.metadata_files += 1
        text = _text_of(path)
        hits = [k for k in wanted_keys if k in text] + [v for v in searched if v in text]
        if hits:
            result.findings.append(f"{relative}: mentions {len(hits)} erased keys or values")
    return result


def predicate_hits(
    spark: SparkSession,
    root: Path,
    mapping: FieldMapping,
    target_type: TargetType,
    predicate: str,
    *,
    with_partition_columns: bool,
    by_field_id: bool = True,
) -> dict[str, int] | None:
    """Rows matching ``predicate`` per data file under ``root``, columns resolved by field ID
    (``by_field_id``; else by name, for files that carry no IDs).

    None when the predicate cannot be evaluated on the files alone (it names a partition column
    a format keeps only in its metadata); the record-key check still covers those rows.
    """
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructField, StructType, _parse_datatype_string

    files = [
        str(p)
        for p in sorted(root.rglob("*.parquet"))
        if not _is_metadata(p, root) and not p.name.startswith((".", "_"))
    ]
    if not files:
        return {}
    fields = [
        StructField(
            f.name,
            _parse_datatype_string(spark_type(target_type(parse_hive_type(f.type)))),
            True,
            metadata={"parquet.field.id": f.id} if by_field_id else {},
        )
        for f in mapping.fields
        if with_partition_columns or f not in mapping.partition_keys
    ]
    key = "spark.sql.parquet.fieldId.read.enabled"
    previous = spark.conf.get(key, "false") or "false"
    spark.conf.set(key, "true" if by_field_id else "false")
    try:
        frame = spark.read.schema(StructType(fields)).parquet(*files)
        matched = frame.where(F.expr(predicate)).groupBy(F.input_file_name()).count().collect()
    except AnalysisException as e:
        log.info("predicate not evaluable on data files alone: %s", e)
        return None
    finally:
        spark.conf.set(key, previous)
    return {str(r[0]): int(r[1]) for r in matched}
