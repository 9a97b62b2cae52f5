"""Backfill against the naive migrations on the same data, in the same run.

(a) bare copy ``spark.read.orc(...).write.parquet(...)`` (the ceiling here);
(b) the naive single statement ``INSERT INTO iceberg SELECT uuid(), concat(...), * FROM hive``;
(c) the naive per-partition loop (one Spark job and commit per partition);
(d) ``lakeshift migrate`` (backfill); (e) (d) followed by ``validate``;
(p) the physical reference: one Python process reading each ORC file with pyarrow and writing
it as ZSTD Parquet with a ``partitionpath`` column, no Spark: what this hardware does with the
same bytes, so the distance of every Spark path to it stays on the page.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from benchmarks.measure import jvm_peak_mb, python_peak_mb, timed, timed_profiled
from benchmarks.synthetic import SyntheticTable
from lakeshift.config import Settings
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table


def _drop(spark: Any, target: str) -> None:
    spark.sql(f"DROP TABLE IF EXISTS {target} PURGE")


def _iceberg_like(spark: Any, target: str, source: str) -> None:
    spark.sql(
        f"CREATE TABLE {target} USING iceberg PARTITIONED BY (p) "
        "TBLPROPERTIES ('format-version'='2') AS SELECT CAST(NULL AS STRING) AS uuid, "
        f"CAST(NULL AS STRING) AS partitionpath, * FROM {source} WHERE false"
    )


def pyarrow_copy(paths: list[str], target: Path) -> None:
    """Row p: every ORC file read by pyarrow and written as ZSTD Parquet, with the partition's
    name as a ``partitionpath`` column, in this one process."""
    import pyarrow as pa
    import pyarrow.orc as orc
    import pyarrow.parquet as pq

    target.mkdir(parents=True, exist_ok=True)
    for number, path in enumerate(paths):
        rows = orc.ORCFile(path).read()
        partition = Path(path).parent.name
        rows = rows.append_column("partitionpath", pa.array([partition] * rows.num_rows))
        pq.write_table(rows, str(target / f"part-{number:05d}.parquet"), compression="zstd")


def run(
    spark: Any, ctx: Any, settings: Settings, table: SyntheticTable, scratch: Path, scenario: str
) -> dict[str, Any]:
    source, size, rows = table.qualified_name, table.bytes, table.rows
    out: dict[str, Any] = {
        "scenario": scenario,
        "partitions": table.partitions,
        "rows": rows,
        "bytes": size,
    }
    copy_dir = scratch / f"{scenario}-copy"
    shutil.rmtree(copy_dir, ignore_errors=True)
    paths = [str(p) for p in table.location.glob("p=*/*")]
    a = timed("a_bare_copy", rows, size, lambda: spark.read.orc(paths).write.parquet(str(copy_dir)))
    physical_dir = scratch / f"{scenario}-pyarrow"
    shutil.rmtree(physical_dir, ignore_errors=True)
    physical = timed("p_pyarrow_copy", rows, size, lambda: pyarrow_copy(paths, physical_dir))
    naive = f"{source}_naive"
    _drop(spark, naive)
    _iceberg_like(spark, naive, source)
    b, b_profile = timed_profiled(
        "b_naive_insert",
        rows,
        size,
        lambda: spark.sql(f"INSERT INTO {naive} SELECT uuid(), concat('p=', p), * FROM {source}"),
        spark,
    )
    loop = f"{source}_loop"
    _drop(spark, loop)
    _iceberg_like(spark, loop, source)
    loop_partitions = min(table.partitions, 100)

    def per_partition() -> None:
        for index in range(loop_partitions):
            spark.sql(
                f"INSERT INTO {loop} SELECT uuid(), concat('p=', p), * FROM {source} "
                f"WHERE p = {index}"
            )

    c = timed(
        "c_per_partition_loop",
        rows * loop_partitions // table.partitions,
        size * loop_partitions // table.partitions,
        per_partition,
    )
    target = f"{source}_lakeshift"
    _drop(spark, target)
    journal = Journal(scratch / f"{scenario}-journal.sqlite")
    options = MigrateOptions(target=target, batch_rows=5_000_000)
    d, d_profile = timed_profiled(
        "d_lakeshift_migrate",
        rows,
        size,
        lambda: migrate(spark, ctx.metastore, ctx.catalog, settings, journal, source, options),
        spark,
    )
    v, v_profile = timed_profiled(
        "validate",
        rows,
        size,
        lambda: validate_table(
            spark, ctx.metastore, ctx.catalog, settings, journal, source, target
        ),
        spark,
    )
    c_seconds_full = c.seconds * table.partitions / loop_partitions
    out.update(
        {
            "a_bare_copy": a.to_json(),
            "b_naive_insert": b.to_json(),
            "c_per_partition_loop": {
                **c.to_json(),
                "partitions_timed": loop_partitions,
                "extrapolated_seconds": round(c_seconds_full, 1),
            },
            "d_lakeshift_migrate": d.to_json(),
            "validate": v.to_json(),
            "e_migrate_plus_validate": {"seconds": round(d.seconds + v.seconds, 2)},
            "ratio_d_over_b": round(d.seconds / b.seconds, 2),
            "ratio_e_over_b": round((d.seconds + v.seconds) / b.seconds, 2),
            "ratio_e_over_a": round((d.seconds + v.seconds) / a.seconds, 2),
            "ratio_d_over_a": round(d.seconds / a.seconds, 2),
            "ratio_c_over_d": round(c_seconds_full / d.seconds, 2),
            "p_pyarrow_copy": physical.to_json(),
            "ratio_d_over_p": round(d.seconds / physical.seconds, 2),
            "ratio_a_over_p": round(a.seconds / physical.seconds, 2),
            "ratio_validate_over_backfill": round(v.seconds / d.seconds, 2),
            "python_peak_mb": python_peak_mb(),
            "jvm_peak_mb": jvm_peak_mb(spark),
            "profiles": {
                "b (naive Iceberg insert)": b_profile,
                "d (Iceberg migrate)": d_profile,
                "validate (Iceberg)": v_profile,
            },
        }
    )
    journal.close()
    return out
