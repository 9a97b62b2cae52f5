"""Read a lake target with its format's own independent reader (never lakeshift's Spark path)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.formats import format_of
from lakeshift.formats.paths import local_path
from lakeshift.metastore.client import MetastoreClient

#: (format, Hudi table version) for tests that cover every format: Hudi in both versions.
FORMAT_CASES = [
    pytest.param("iceberg", 6, id="iceberg"),
    pytest.param("delta", 6, id="delta"),
    pytest.param("hudi", 6, id="hudi"),
    pytest.param("hudi", 8, id="hudi-v8"),
]


def delta_root(client: MetastoreClient, target: str) -> str:
    db, _, name = target.partition(".")
    location = client.get_table(db, name).sd.location
    return "/" + location.partition(":")[2].lstrip("/")


def read_lake(client: MetastoreClient, target: str) -> pa.Table:
    """Every row of ``target``: pyiceberg for Iceberg, delta-rs (QueryBuilder) for Delta,
    hudi-rs for Hudi."""
    kind = format_of(client, target)
    if kind == "iceberg":
        from pyiceberg.catalog.hive import HiveCatalog

        return HiveCatalog("tests", uri=client.uri).load_table(target).scan().to_arrow()
    if kind == "delta":
        from deltalake import DeltaTable, QueryBuilder

        table = DeltaTable(delta_root(client, target))
        reader = QueryBuilder().register("t", table).execute("SELECT * FROM t")
        return pa.table(reader.read_all())
    if kind == "hudi":
        import hudi

        table = client.get_table(*target.split("."))
        root = local_path(table.sd.serdeInfo.parameters["path"])
        read = hudi.HudiTableBuilder.from_base_uri(str(root)).build().read()
        return pa.Table.from_batches(read) if read else pa.table({})
    raise AssertionError(f"{target} is not a lake table ({kind})")


def datafusion_counts(client: MetastoreClient, target: str) -> dict[str, int]:
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
