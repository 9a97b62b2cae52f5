"""Files compressed with codecs, or Parquet files encoded with encodings, the user's Hive
cannot open (``lakeshift.inspect.codecs``): their partitions are refused under the versions
whose ORC or Parquet library lacks them and read under the others, by both readers."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.readers import both_readers

pytestmark = pytest.mark.slow

TABLE = [("rid", "int"), ("name", "string")]
DATA = pa.table({"rid": pa.array([1, 2], pa.int32()), "name": pa.array(["a", None])})
#: partition -> (file format, codec as pyarrow names it)
PARTITIONS = {
    "orc_snappy": ("orc", "snappy"),
    "orc_zstd": ("orc", "zstd"),
    "pq_lz4raw": ("parquet", "lz4"),
    "pq_zstd": ("parquet", "zstd"),
    "pq_brotli": ("parquet", "brotli"),
    "pq_bss": ("parquet", "byte_stream_split"),  # an encoding (parquet-mr 1.12+), snappy
}
REFUSED = {  # ORC 1.3.4/1.5.8 and parquet-mr 1.8.1/1.10.0/1.13.1 (lakeshift.inspect.codecs)
    "2.3": {"orc_zstd", "pq_lz4raw", "pq_zstd", "pq_brotli", "pq_bss"},
    "3.1": {"orc_zstd", "pq_lz4raw", "pq_brotli", "pq_bss"},
    "4": {"pq_brotli", "pq_bss"},  # (BYTE_STREAM_SPLIT: Spark 3.5 cannot read it)
}


def _encoded(fmt: str, codec: str) -> bytes:
    sink = io.BytesIO()
    if fmt == "orc":
        orc.write_table(DATA, sink, compression=codec)
    elif codec == "byte_stream_split":
        pq.write_table(DATA, sink, use_dictionary=False, use_byte_stream_split=["rid"])
    else:
        pq.write_table(DATA, sink, compression=codec)
    return sink.getvalue()


@pytest.fixture(scope="module")
def codecs_table(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(client, tables_root, "codecs", unique_name("c"), TABLE)
    for name, (fmt, codec) in PARTITIONS.items():
        b.add_partition([name], {"000000_0": _encoded(fmt, codec)}, fmt=fmt)
    return f"{b.db}.{b.name}"


@pytest.mark.parametrize("version", ["2.3", "3.1", "4"])
def test_partitions_are_refused_where_hive_cannot_open_their_codec(
    version: str, codecs_table: str, client: MetastoreClient, settings: Settings, spark: Any
) -> None:
    chosen = replace(settings, hive_version=version)
    inventory = inspect_table(client, codecs_table, chosen)
    refused = {p.values[0]: p for p in inventory.partitions if not p.migratable}
    assert set(refused) == REFUSED[version]
    for name, partition in refused.items():
        codes = {a.code for a in partition.anomalies if a.severity == "error"}
        code = "encoding-unreadable" if name == "pq_bss" else "compression-unreadable"
        assert codes == {code}, (name, codes)
    read = set(PARTITIONS) - REFUSED[version]
    for reader, frame in both_readers(spark, client, codecs_table, chosen).items():
        rows = sorted(((r["dt"], r["rid"], r["name"]) for r in frame.collect()), key=str)
        expected = [(p, 1, "a") for p in read] + [(p, 2, None) for p in read]
        assert rows == sorted(expected, key=str), reader
