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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from lakeshift.formats.hudi.bloom import BLOOM_ENTRIES, BLOOM_TYPE, BloomFilter
from lakeshift.storage import Store, filesystem_for

COMMIT_TIME = "_hoodie_commit_time"
COMMIT_SEQNO = "_hoodie_commit_seqno"
RECORD_KEY = "_hoodie_record_key"
PARTITION_PATH = "_hoodie_partition_path"
FILE_NAME = "_hoodie_file_name"
META_COLUMNS = (COMMIT_TIME, COMMIT_SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME)


@dataclass(frozen=True)
class BaseFileWritten:
    name: str
    path: str  # the file's location
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


#: Compression levels as parquet-mr writes them unless told (zlib's default 6; ZSTD level
#: 3): pyarrow's own GZIP default, 9, takes five times as long for a file 0.2% smaller. A
#: level given (``hudi_gzip_level``) is used instead: it is not stored in the file.
CODEC_LEVELS = {"gzip": 6, "zstd": 3}
#: Columns whose every value differs: lakeshift's record key (``uuid``) and Hudi's copies.
_UNIQUE_PER_ROW = frozenset({COMMIT_SEQNO, RECORD_KEY, "uuid"})


def write_base_file(
    rows: pa.Table,
    directory: Store | str | os.PathLike[str],
    *,
    partition_path: str,
    instant: str,
    file_id: str,
    write_token: str,
    avro_schema: dict[str, Any],
    key_column: str = "uuid",
    seqno_prefix: str = "0",
    codec: str = "gzip",
    level: int | None = None,
) -> BaseFileWritten:
    """Write ``rows`` (the data columns, the record key column included) as one base file.

    Raises:
        ValueError: more rows than one bloom filter row holds, or NULL record keys.
    """
    import numpy as np
    import pyarrow.compute as pc

    if rows.num_rows > BLOOM_ENTRIES:
        raise ValueError(f"{rows.num_rows} rows in one base file; at most {BLOOM_ENTRIES}")
    keys = rows.column(key_column).cast(pa.string()).combine_chunks()
    if keys.null_count:
        raise ValueError(f"NULL record keys in {key_column}")
    name = base_file_name(file_id, write_token, instant)
    n = rows.num_rows
    # Whole columns at once, not a Python string per row: ``{instant}_{prefix}_{i}``.
    numbers = pa.array(np.arange(n, dtype=np.int64)).cast(pa.string())
    meta = {
        COMMIT_TIME: pa.repeat(pa.scalar(instant, pa.string()), n),
        COMMIT_SEQNO: pc.binary_join_element_wise(f"{instant}_{seqno_prefix}_", numbers, ""),
        RECORD_KEY: keys,
        PARTITION_PATH: pa.repeat(pa.scalar(partition_path, pa.string()), n),
        FILE_NAME: pa.repeat(pa.scalar(name, pa.string()), n),
    }
    data = [c for c in rows.column_names if c not in META_COLUMNS]
    table = pa.table({**meta, **{c: rows.column(c) for c in data}})
    schema_json = json.dumps(avro_schema, separators=(",", ":"))
    return _write(
        table, Store.of(directory), name, partition_path, file_id, schema_json, codec, level
    )


def _write(
    table: pa.Table,
    directory: Store,
    name: str,
    partition_path: str,
    file_id: str,
    schema_json: str,
    codec: str,
    level: int | None = None,
) -> BaseFileWritten:
    """Write ``table`` (meta columns first, ``_hoodie_file_name`` already ``name``) with the
    footers Hudi's index reads, computed from its record keys."""
    import pyarrow.compute as pc

    keys = table.column(RECORD_KEY).combine_chunks()
    # (UTF-8 byte order is code point order: the bounds Python's sort gave)
    bounds = pc.min_max(keys).as_py() if table.num_rows else None
    footer = {
        "parquet.avro.schema": schema_json,
        "writer.model.name": "avro",
        "org.apache.hudi.bloomfilter": BloomFilter.for_array(keys).serialize(),
        "hoodie_bloom_filter_type_code": BLOOM_TYPE,
        **(
            {"hoodie_min_record_key": bounds["min"], "hoodie_max_record_key": bounds["max"]}
            if bounds
            else {}
        ),
    }
    # Avro's logical types: timestamps as microseconds, decimals as fixed-size bytes. No
    # ARROW:schema footer (parquet-avro writes none); with store_schema=False pyarrow also drops
    # the schema's metadata, so the footer entries are added to the writer itself.
    with directory.open_output(name) as sink:
        with pq.ParquetWriter(
            sink,
            table.schema,
            coerce_timestamps="us",
            store_decimal_as_integer=False,
            compression=codec,
            compression_level=CODEC_LEVELS.get(codec) if level is None else level,
            # Dictionaries for every column but the ones unique per row (as Hudi's own v9
            # writer: PLAIN record keys and seqnos, dictionary partition paths and file
            # names): building a dictionary that overflows and falls back is pure cost
            # (10% of a base file's write, measured on 60,000 rows).
            use_dictionary=[c for c in table.column_names if c not in _UNIQUE_PER_ROW],
            store_schema=False,
        ) as writer:
            writer.write_table(table)
            writer.add_key_value_metadata(footer)
        size = sink.tell()
    return BaseFileWritten(
        name,
        directory.uri(name),
        partition_path,
        file_id,
        table.num_rows,
        size,
        bounds["min"] if bounds else None,
        bounds["max"] if bounds else None,
    )


def rewrite_base_files(
    sources: Sequence[str | os.PathLike[str]],
    directory: Store | str | os.PathLike[str],
    *,
    partition_path: str,
    instant: str,
    file_id: str,
    write_token: str,
    drop_keys: frozenset[str] = frozenset(),
    codec: str = "gzip",
    level: int | None = None,
) -> tuple[BaseFileWritten, int]:
    """Copy-on-write rewrite of base files into one new file: the rows of ``sources`` whose
    record key is not in ``drop_keys``, each keeping its commit time and seqno (as Hudi's merge
    and clustering with preserved commit metadata do), ``_hoodie_file_name`` set to the new
    file. Files written before a column was added get it as NULL; the Avro schema footer is the
    widest input's. Returns the file written and the number of rows dropped.
    """
    import pyarrow.compute as pc

    if not sources:
        raise ValueError("nothing to rewrite")
    tables = [pq.read_table(path, filesystem=fs) for path, fs in map(_opened, sources)]
    widest = max(range(len(tables)), key=lambda i: tables[i].num_columns)
    schema = tables[widest].schema
    path, fs = _opened(sources[widest])
    metadata = pq.read_metadata(path, filesystem=fs).metadata
    footer = (metadata or {}).get(b"parquet.avro.schema", b"")
    aligned = []
    for table in tables:
        columns = {
            f.name: table.column(f.name)
            if f.name in table.column_names
            else pa.nulls(table.num_rows, f.type)
            for f in schema
        }
        aligned.append(pa.table(columns, schema=schema.remove_metadata()))
    rows = pa.concat_tables(aligned)
    before = rows.num_rows
    if drop_keys:
        gone = pc.is_in(rows.column(RECORD_KEY), pa.array(sorted(drop_keys), pa.string()))
        rows = rows.filter(pc.invert(pc.fill_null(gone, False)))
    if rows.num_rows > BLOOM_ENTRIES:
        raise ValueError(f"{rows.num_rows} rows in one base file; at most {BLOOM_ENTRIES}")
    name = base_file_name(file_id, write_token, instant)
    index = rows.schema.get_field_index(FILE_NAME)
    rows = rows.set_column(index, FILE_NAME, pa.repeat(pa.scalar(name, pa.string()), rows.num_rows))
    written = _write(
        rows, Store.of(directory), name, partition_path, file_id, footer.decode(), codec, level
    )
    return written, before - rows.num_rows


def _opened(location: str | os.PathLike[str]) -> tuple[str, pafs.FileSystem]:
    fs, path = filesystem_for(os.fspath(location))
    return path, fs
