"""Many tiny partitions with the default batch limits (issue 13: 2,000 x 5 rows ran out of heap).

(a) bare copy ``spark.read.orc(files).write.parquet(...)`` of the same files, then (d) ``lakeshift
migrate`` with nothing but a target: the default rows, bytes, files and partitions per batch.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from benchmarks.measure import jvm_peak_mb, python_peak_mb, timed
from benchmarks.synthetic import SyntheticTable
from lakeshift.config import Settings
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal


def run(
    spark: Any, ctx: Any, settings: Settings, table: SyntheticTable, scratch: Path
) -> dict[str, Any]:
    source, size, rows = table.qualified_name, table.bytes, table.rows
    copy_dir = scratch / "tiny-copy"
    shutil.rmtree(copy_dir, ignore_errors=True)
    paths = [str(p) for p in table.location.glob("p=*/*")]
    a = timed("a_bare_copy", rows, size, lambda: spark.read.orc(paths).write.parquet(str(copy_dir)))
    target = f"{source}_lakeshift"
    spark.sql(f"DROP TABLE IF EXISTS {target} PURGE")
    journal_path = scratch / "tiny-journal.sqlite"
    journal_path.unlink(missing_ok=True)
    journal = Journal(journal_path)
    results = []
    d = timed(
        "d_lakeshift_migrate",
        rows,
        size,
        lambda: results.append(
            migrate(
                spark,
                ctx.metastore,
                ctx.catalog,
                settings,
                journal,
                source,
                MigrateOptions(target=target),
            )
        ),
    )
    journal.close()
    result = results[0]
    return {
        "scenario": "tiny",
        "partitions": table.partitions,
        "rows": rows,
        "bytes": size,
        "driver_memory": settings.spark_driver_memory,
        "a_bare_copy": a.to_json(),
        "d_lakeshift_migrate": d.to_json(),
        "batches": len(result.plan.batches),
        "backfilled_partitions": len(result.backfilled),
        "failed_partitions": len(result.failed),
        "ratio_d_over_a": round(d.seconds / a.seconds, 2),
        "seconds_per_batch": round(d.seconds / max(len(result.plan.batches), 1), 2),
        "python_peak_mb": python_peak_mb(),
        "jvm_peak_mb": jvm_peak_mb(spark),
    }
