"""Build metastore objects for Hive ORC external tables the way Hive itself registers them.

Used by ``lakeshift sample load`` and by test helpers; never on a source table being migrated.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lakeshift.metastore.catalog import CatalogClient

if TYPE_CHECKING:
    from hive_metastore.ttypes import Partition, StorageDescriptor, Table

ORC_INPUT = "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"
ORC_OUTPUT = "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat"
ORC_SERDE = "org.apache.hadoop.hive.ql.io.orc.OrcSerde"
PARQUET_INPUT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"
PARQUET_OUTPUT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
TEXT_INPUT = "org.apache.hadoop.mapred.TextInputFormat"
TEXT_OUTPUT = "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat"
TEXT_SERDE = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
SEQUENCE_INPUT = "org.apache.hadoop.mapred.SequenceFileInputFormat"
SEQUENCE_OUTPUT = "org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat"
FORMATS = {
    "orc": (ORC_INPUT, ORC_OUTPUT, ORC_SERDE),
    "parquet": (PARQUET_INPUT, PARQUET_OUTPUT, PARQUET_SERDE),
    "text": (TEXT_INPUT, TEXT_OUTPUT, TEXT_SERDE),
    "sequence": (SEQUENCE_INPUT, SEQUENCE_OUTPUT, TEXT_SERDE),
}
Columns = Sequence[tuple[str, str]]


def location_uri(path: Path) -> str:
    """Hive's spelling of a local path: ``file:/abs/path``."""
    return "file:" + str(path.resolve())


def storage_descriptor(
    columns: Columns,
    location: str,
    fmt: str = "orc",
    parameters: Mapping[str, str] | None = None,
    serde_parameters: Mapping[str, str] | None = None,
) -> StorageDescriptor:
    from hive_metastore.ttypes import FieldSchema, SerDeInfo, StorageDescriptor

    input_format, output_format, serde = FORMATS[fmt]
    return StorageDescriptor(
        cols=[FieldSchema(name=n, type=t, comment=None) for n, t in columns],
        location=location,
        inputFormat=input_format,
        outputFormat=output_format,
        compressed=False,
        numBuckets=-1,
        serdeInfo=SerDeInfo(
            name=None,
            serializationLib=serde,
            parameters={"serialization.format": "1", **(serde_parameters or {})},
        ),
        bucketCols=[],
        sortCols=[],
        parameters=dict(parameters or {}),
        storedAsSubDirectories=False,
    )


def ensure_database(client: CatalogClient, name: str, location: str | None = None) -> None:
    from hive_metastore.ttypes import Database

    if name not in client.get_all_databases():
        client.create_database(
            Database(name=name, description=None, locationUri=location, parameters={})
        )


def external_table(
    db: str,
    name: str,
    columns: Columns,
    partition_keys: Columns,
    location: str,
    fmt: str = "orc",
    parameters: Mapping[str, str] | None = None,
) -> Table:
    from hive_metastore.ttypes import FieldSchema, PrincipalType, Table

    now = int(time.time())
    return Table(
        tableName=name,
        dbName=db,
        owner="hive",
        createTime=now,
        lastAccessTime=0,
        retention=0,
        sd=storage_descriptor(columns, location, fmt),
        partitionKeys=[FieldSchema(name=n, type=t, comment=None) for n, t in partition_keys],
        parameters={"EXTERNAL": "TRUE", "transient_lastDdlTime": str(now), **(parameters or {})},
        tableType="EXTERNAL_TABLE",
        ownerType=PrincipalType.USER,
    )


def partition(
    db: str,
    table: str,
    values: Sequence[str],
    columns: Columns,
    location: str,
    fmt: str = "orc",
    parameters: Mapping[str, str] | None = None,
    serde_parameters: Mapping[str, str] | None = None,
) -> Partition:
    """A partition with its own storage descriptor (its own columns and format)."""
    from hive_metastore.ttypes import Partition

    now = int(time.time())
    return Partition(
        values=list(values),
        dbName=db,
        tableName=table,
        createTime=now,
        lastAccessTime=0,
        sd=storage_descriptor(columns, location, fmt, serde_parameters=serde_parameters),
        parameters={"transient_lastDdlTime": str(now), **(parameters or {})},
    )
