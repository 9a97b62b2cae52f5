"""Read a lake target with its format's own independent reader (never lakeshift's Spark path)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.formats import format_of
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.storage import StorageOptions, Store, parse

#: (format, Hudi table version) for tests that cover every format: Hudi in both versions.
FORMAT_CASES = [
    pytest.param("iceberg", 6, id="iceberg"),
    pytest.param("delta", 6, id="delta"),
    pytest.param("hudi", 6, id="hudi"),
    pytest.param("hudi", 8, id="hudi-v8"),
]


def local_path(location: str) -> Path:
    """A ``file:`` location as a local path (tests on the local disk)."""
    where = parse(location)
    assert where.is_local, location
    return Path(where.path)


def delta_root(client: CatalogClient, target: str) -> str:
    db, _, name = target.partition(".")
    return Store(client.get_table(db, name).sd.location).table_uri()


def read_lake(
    client: CatalogClient, target: str, storage: StorageOptions | None = None
) -> pa.Table:
    """Every row of ``target``: pyiceberg for Iceberg, delta-rs (QueryBuilder) for Delta,
    hudi-rs for Hudi, each reaching an object store with ``storage``'s options."""
    storage = storage or StorageOptions()
    kind = format_of(client, target)
    if kind == "iceberg":
        from pyiceberg.catalog import Catalog
        from pyiceberg.catalog.glue import GlueCatalog
        from pyiceberg.catalog.hive import HiveCatalog

        catalog: Catalog
        if client.kind == "glue":
            catalog = GlueCatalog("tests", client=client.glue, **storage.pyiceberg())
        else:
            catalog = HiveCatalog("tests", uri=client.uri, **storage.pyiceberg())
        return catalog.load_table(target).scan().to_arrow()
    db, _, name = target.partition(".")
    entry = client.get_table(db, name)
    if kind == "delta":
        from deltalake import DeltaTable, QueryBuilder

        root = Store(entry.sd.location, storage)
        table = DeltaTable(root.table_uri(), storage_options=root.object_store_options())
        reader = QueryBuilder().register("t", table).execute("SELECT * FROM t")
        return pa.table(reader.read_all())
    if kind == "hudi":
        import hudi

        root = Store(entry.sd.serdeInfo.parameters["path"], storage)
        builder = hudi.HudiTableBuilder.from_base_uri(root.table_uri())
        read = builder.with_storage_options(root.object_store_options()).build().read()
        return pa.Table.from_batches(read) if read else pa.table({})
    raise AssertionError(f"{target} is not a lake table ({kind})")


def datafusion_counts(client: CatalogClient, target: str) -> dict[str, int]:
    """Rows per ``partitionpath`` counted by DataFusion over the Delta table (a second engine)."""
    import datafusion
    from deltalake import DeltaTable

    ctx = datafusion.SessionContext()
    ctx.register_table("t", DeltaTable(delta_root(client, target)))
    rows = ctx.sql("SELECT partitionpath, count(*) AS n FROM t GROUP BY partitionpath")
    return {r["partitionpath"]: r["n"] for r in rows.to_pylist()}


def _plain(value: Any) -> Any:
    """A value in a form both sides agree on: maps as sorted items, structs as sorted items."""
    if isinstance(value, dict):
        return tuple(sorted((k, _plain(v)) for k, v in value.items()))
    if isinstance(value, list):
        if value and all(isinstance(x, tuple) and len(x) == 2 for x in value):
            return tuple(sorted((k, _plain(v)) for k, v in value))
        return tuple(_plain(v) for v in value)
    if isinstance(value, Decimal):
        return value.normalize()
    return value


def row_multiset(rows: list[dict[str, Any]], columns: list[str]) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(_plain(r.get(c)) for c in columns) for r in rows)


def unique_keys(table: pa.Table) -> bool:
    keys = table.column("uuid").to_pylist()
    return None not in keys and len(set(keys)) == len(keys)


def naive_clock(value: Any) -> Any:
    """A value read back from a lake table with a timestamp as a naive wall clock (Hudi's
    reader labels its microseconds UTC)."""
    return value.replace(tzinfo=None) if isinstance(value, dt.datetime) else value
