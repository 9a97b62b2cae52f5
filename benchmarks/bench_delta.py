"""Delta Lake beside Iceberg on the same table, in the same run.

(f) naive Delta: one Spark write of the whole table (``uuid()``, ``partitionpath``, partitioned
by ``p``) plus one delta-rs commit of every file it wrote; (g) ``lakeshift migrate --format
delta``; then (g)'s ``validate``. Ratios are against the run's own bare copy (a) and (f).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from benchmarks.measure import timed_profiled
from benchmarks.synthetic import SyntheticTable, drop_lake_table
from lakeshift.config import Settings
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table


def _naive_delta(spark: Any, source: str, root: Path) -> None:
    from deltalake.transaction import AddAction, create_table_with_add_actions

    # INT64 timestamps, as Delta readers expect (Spark's default INT96 is not Delta's).
    key = "spark.sql.parquet.outputTimestampType"
    previous = spark.conf.get(key)
    spark.conf.set(key, "TIMESTAMP_MICROS")
    try:
        spark.sql(
            f"SELECT uuid() AS uuid, concat('p=', p) AS partitionpath, * FROM {source}"
        ).write.mode("overwrite").partitionBy("p").parquet(str(root))
    finally:
        spark.conf.set(key, previous)
    actions, schema = [], None
    now = int(time.time() * 1000)
    for path in sorted(root.glob("p=*/*.parquet")):
        meta = pq.read_metadata(path)
        schema = schema or pq.read_schema(path)
        actions.append(
            AddAction(
                str(path.relative_to(root)),
                os.path.getsize(path),
                {"p": path.parent.name.partition("=")[2]},
                now,
                True,
                json.dumps({"numRecords": meta.num_rows}),
            )
        )
    assert schema is not None
    import pyarrow as pa
    from deltalake import Schema

    full = Schema.from_arrow(pa.schema([*schema, pa.field("p", pa.int32())]))
    create_table_with_add_actions(str(root), full, actions, mode="overwrite", partition_by=["p"])


def run(
    spark: Any,
    ctx: Any,
    settings: Settings,
    table: SyntheticTable,
    scratch: Path,
    scenario: str,
    bare_copy_seconds: float,
) -> dict[str, Any]:
    source, size, rows = table.qualified_name, table.bytes, table.rows
    naive_root = scratch / f"{scenario}-naive-delta"
    shutil.rmtree(naive_root, ignore_errors=True)
    f, f_profile = timed_profiled(
        "f_naive_delta", rows, size, lambda: _naive_delta(spark, source, naive_root), spark
    )
    target = f"{source}_lakeshift_delta"
    drop_lake_table(ctx.metastore, target, scratch / f"{scenario}-delta-journal.sqlite")
    journal = Journal(scratch / f"{scenario}-delta-journal.sqlite")
    options = MigrateOptions(target=target, batch_rows=5_000_000, format="delta")
    g, g_profile = timed_profiled(
        "g_lakeshift_delta",
        rows,
        size,
        lambda: migrate(spark, ctx.metastore, None, settings, journal, source, options),
        spark,
    )
    v, v_profile = timed_profiled(
        "validate_delta",
        rows,
        size,
        lambda: validate_table(spark, ctx.metastore, None, settings, journal, source, target),
        spark,
    )
    journal.close()
    return {
        "f_naive_delta": f.to_json(),
        "g_lakeshift_delta": g.to_json(),
        "validate_delta": v.to_json(),
        "ratio_g_over_a": round(g.seconds / bare_copy_seconds, 2),
        "ratio_g_over_f": round(g.seconds / f.seconds, 2),
        "ratio_g_plus_validate_over_a": round((g.seconds + v.seconds) / bare_copy_seconds, 2),
        "profiles": {
            "f (naive Delta)": f_profile,
            "g (Delta migrate)": g_profile,
            "validate (Delta)": v_profile,
        },
    }
