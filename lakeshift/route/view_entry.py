"""The routing view's metastore entry: created and replaced in one Thrift call each."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lakeshift.metastore.catalog import CatalogClient
from lakeshift.route.view_sql import Key

if TYPE_CHECKING:
    from hive_metastore.ttypes import Table

DIGEST_PARAM = "lakeshift.routing-digest"
SOURCE_PARAM = "lakeshift.source"


def digest(switched: Sequence[str]) -> str:
    """Identifies a switched set (metastore parameters cannot hold long lists)."""
    return hashlib.sha256(json.dumps(sorted(switched)).encode()).hexdigest()[:24]


def view_table(
    view: str, columns: Sequence[Key], sql: str, source: str, switched: Sequence[str]
) -> Table:
    from hive_metastore.ttypes import FieldSchema, SerDeInfo, StorageDescriptor, Table

    db, _, name = view.partition(".")
    sd = StorageDescriptor(
        cols=[FieldSchema(n, t, None) for n, t in columns],
        location=None,
        inputFormat="org.apache.hadoop.mapred.SequenceFileInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat",
        compressed=False,
        numBuckets=-1,
        serdeInfo=SerDeInfo(None, None, {}),
        bucketCols=[],
        sortCols=[],
        parameters={},
        storedAsSubDirectories=False,
    )
    return Table(
        tableName=name,
        dbName=db,
        owner="lakeshift",
        createTime=0,
        lastAccessTime=0,
        retention=0,
        sd=sd,
        partitionKeys=[],
        viewOriginalText=sql,
        viewExpandedText=sql,
        tableType="VIRTUAL_VIEW",
        parameters={
            DIGEST_PARAM: digest(switched),
            SOURCE_PARAM: source,
            "comment": f"lakeshift routing view for {source}",
        },
    )


def current_digest(client: CatalogClient, view: str) -> str | None:
    db, _, name = view.partition(".")
    if not client.table_exists(db, name):
        return None
    return (client.get_table(db, name).parameters or {}).get(DIGEST_PARAM)


def put_view(client: CatalogClient, table: Table) -> None:
    """Create the view, or replace its definition atomically (one ``alter_table``)."""
    if client.table_exists(table.dbName, table.tableName):
        client.alter_table(table.dbName, table.tableName, table)
    else:
        client.create_table(table)
