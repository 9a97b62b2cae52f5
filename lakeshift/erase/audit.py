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
from typing import TYPE_CHECKING, Any

from lakeshift.hive.source_frame import TargetType
from lakeshift.hive.spark_sql import spark_type
from lakeshift.hive.types import parse_hive_type
from lakeshift.schema_map.mapping import UUID_COLUMN
from lakeshift.schema_map.model import FieldMapping
from lakeshift.storage import Store

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
    #: Files outside the table location that held erased rows (the Hive source's own, which
    #: the lake table had adopted): not the table's, so neither read nor deleted here.
    legacy_files: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed}


def _is_metadata(relative: str) -> bool:
    return any(part in METADATA_DIRS for part in relative.split("/")[:-1])


def _data_keys(store: Store, relative: str) -> set[str] | None:
    import pyarrow.parquet as pq

    path = store.path(relative)
    schema = pq.read_schema(path, filesystem=store.fs)
    if UUID_COLUMN not in schema.names:
        return None
    table = pq.read_table(path, columns=[UUID_COLUMN], filesystem=store.fs)
    return {k for k in table.column(0).to_pylist() if k}


def _text_of(store: Store, relative: str) -> str:
    """A metadata file's content as searchable text, decoded by its format."""
    if relative.endswith(".parquet"):
        import pyarrow.parquet as pq

        return str(pq.read_table(store.path(relative), filesystem=store.fs).to_pylist())
    if relative.endswith(".avro"):
        import fastavro

        with store.open_input(relative) as handle:
            return str(list(fastavro.reader(handle)))
    return store.read_bytes(relative).decode("utf-8", errors="replace")


def audit_files(
    store: Store,
    keys: Iterable[str],
    values: Iterable[str],
) -> AuditResult:
    """Search every file under ``store``'s root for the erased ``keys`` and ``values``."""
    wanted_keys = set(keys)
    searched = sorted({v for v in values if len(v) >= MIN_SEARCHED})
    result = AuditResult(keys_searched=len(wanted_keys), values_searched=len(searched))
    for stored in store.list_files():
        relative = stored.path
        if relative.endswith(".parquet") and not _is_metadata(relative):
            result.data_files += 1
            found = _data_keys(store, relative)
            if found is None:
                result.notes.append(f"{relative}: no uuid column; covered by the predicate check")
            elif found & wanted_keys:
                result.findings.append(f"{relative}: holds {len(found & wanted_keys)} erased keys")
            continue
        result.metadata_files += 1
        text = _text_of(store, relative)
        hits = [k for k in wanted_keys if k in text] + [v for v in searched if v in text]
        if hits:
            result.findings.append(f"{relative}: mentions {len(hits)} erased keys or values")
    return result


def predicate_hits(
    spark: SparkSession,
    store: Store,
    mapping: FieldMapping,
    target_type: TargetType,
    predicate: str,
    *,
    with_partition_columns: bool,
    by_field_id: bool = True,
) -> dict[str, int] | None:
    """Rows matching ``predicate`` per data file under ``store``, columns resolved by field ID
    (``by_field_id``; else by name, for files that carry no IDs).

    None when the predicate cannot be evaluated on the files alone (it names a partition column
    a format keeps only in its metadata); the record-key check still covers those rows.
    """
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructField, StructType, _parse_datatype_string

    files = [
        store.uri(f.path)
        for f in store.list_files()
        if f.path.endswith(".parquet")
        and not _is_metadata(f.path)
        and not f.path.rsplit("/", 1)[-1].startswith((".", "_"))
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
