"""Hudi base files: Parquet with the five ``_hoodie_*`` meta columns and the footers Hudi's
index reads (bloom filter, min/max record key, the Avro schema).

Spark's Parquet writer cannot add per-file footer entries, so these are written with pyarrow,
one call per file, inside Spark tasks (``mapInArrow``) or anywhere else: this module imports
only pyarrow, the standard library and lakeshift's Hudi file modules.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from lakeshift.formats.hudi.bloom import BLOOM_ENTRIES, BLOOM_TYPE, BloomFilter

COMMIT_TIME = "_hoodie_commit_time"
COMMIT_SEQNO = "_hoodie_commit_seqno"
RECORD_KEY = "_hoodie_record_key"
PARTITION_PATH = "_hoodie_partition_path"
FILE_NAME = "_hoodie_file_name"
META_COLUMNS = (COMMIT_TIME, COMMIT_SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME)


@dataclass(frozen=True)
class BaseFileWritten:
    name: str
    path: Path
    partition_path: str
    file_id: str
    rows: int
    size: int
    min_key: str | None
    max_key: str | None


def new_file_id() -> str:
    """A new file group's id (``<uuid>-0``, as Hudi names the first file of a group)."""
    return f"{uuid.uuid4()}-0"


def base_file_name(file_id: str, write_token: str, instant: str) -> str:
    return f"{file_id}_{write_token}_{instant}.parquet"


def instant_of(file_name: str) -> str:
    """The commit time a base file's name carries."""
    return file_name.rsplit("_", 1)[-1].removesuffix(".parquet")


def file_id_of(file_name: str) -> str:
    return file_name.split("_", 1)[0]


def write_base_file(
    rows: pa.Table,
    directory: Path,
    *,
    partition_path: str,
    instant: str,
    file_id: str,
    write_token: str,
    avro_schema: dict[str, Any],
    key_column: str = "uuid",
    seqno_prefix: str = "0",
) -> BaseFileWritten:
    """Write ``rows`` (the data columns, the record key column included) as one base file.

    Raises:
        ValueError: more rows than one bloom filter row holds, or NULL record keys.
    """
    if rows.num_rows > BLOOM_ENTRIES:
        raise ValueError(f"{rows.num_rows} rows in one base file; at most {BLOOM_ENTRIES}")
    keys = rows.column(key_column).to_pylist()
    if any(k is None for k in keys):
        raise ValueError(f"NULL record keys in {key_column}")
    name = base_file_name(file_id, write_token, instant)
    n = rows.num_rows
    meta = {
        COMMIT_TIME: pa.array([instant] * n, pa.string()),
        COMMIT_SEQNO: pa.array([f"{instant}_{seqno_prefix}_{i}" for i in range(n)], pa.string()),
        RECORD_KEY: pa.array(keys, pa.string()),
        PARTITION_PATH: pa.array([partition_path] * n, pa.string()),
        FILE_NAME: pa.array([name] * n, pa.string()),
    }
    data = [c for c in rows.column_names if c not in META_COLUMNS]
    table = pa.table({**meta, **{c: rows.column(c) for c in data}})
    ordered = sorted(keys)
    footer = {
        "parquet.avro.schema": json.dumps(avro_schema, separators=(",", ":")),
        "writer.model.name": "avro",
        "org.apache.hudi.bloomfilter": BloomFilter.for_keys(keys).serialize(),
        "hoodie_bloom_filter_type_code": BLOOM_TYPE,
        **(
            {"hoodie_min_record_key": ordered[0], "hoodie_max_record_key": ordered[-1]} if n else {}
        ),
    }
    table = table.replace_schema_metadata(footer)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / name
    partial = directory / f".{name}.{os.getpid()}.tmp"
    # Avro's logical types: timestamps as microseconds, decimals as fixed-size bytes.
    pq.write_table(
        table,
        partial,
        coerce_timestamps="us",
        store_decimal_as_integer=False,
        compression="gzip",
        store_schema=False,  # no ARROW:schema footer: parquet-avro writes none
    )
    os.replace(partial, target)
    return BaseFileWritten(
        name,
        target,
        partition_path,
        file_id,
        n,
        target.stat().st_size,
        ordered[0] if n else None,
        ordered[-1] if n else None,
    )
