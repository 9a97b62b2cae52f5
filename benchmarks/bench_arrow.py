"""Row q: what an Arrow write path would cost, measured with a prototype (issue 29).

Spark keeps the scheduling, but each task reads its ORC files with pyarrow and writes the
Iceberg table's Parquet files itself (``mapInArrow``): the rows never enter the JVM's row
format. The driver then commits the files in one Iceberg append through Iceberg's Java API,
each file's column metrics read from its footer (``ParquetUtil.fileMetrics``), as Spark's own
write does. This is a measurement, not a lakeshift path: it has none of lakeshift's checks
(no Hive read model beyond files that already hold the table's columns, no observed checksum,
no journal, local files only), so it bounds from below what such a path could cost.

Timed in the same run on the same table: (p) pyarrow alone in one process, (b) the naive
insert, (d) ``lakeshift migrate`` and (q) the prototype, reported as q/p, q/d, q/b and d/p;
then lakeshift's own Arrow path as shipped (``write_path = "arrow"``): (r) into Iceberg with
its validation (which rescans the source), and into Delta beside the naive Delta write (f)
and lakeshift's Spark path into Delta (g): (t), reported as t/f and g/f.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.bench_delta import _naive_delta
from benchmarks.bench_migrate import _drop, _iceberg_like, pyarrow_copy
from benchmarks.measure import timed
from benchmarks.synthetic import SyntheticTable, drop_lake_table
from lakeshift.config import Settings
from lakeshift.formats.arrow_path import random_uuids
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table

# Iceberg's primitive type names -> Arrow types (the synthetic table's columns)
_ARROW = {
    "string": "string",
    "long": "int64",
    "int": "int32",
    "double": "float64",
    "timestamp": "timestamp[us]",
    "timestamptz": "timestamp[us]",  # with tz UTC, below
}


def _arrow(iceberg: str) -> Any:
    import pyarrow as pa

    kind = pa.type_for_alias(_ARROW[iceberg])
    return pa.timestamp("us", tz="UTC") if iceberg == "timestamptz" else kind


def arrow_path(spark: Any, target: str, files: list[tuple[str, str, str]]) -> int:
    """Write ``files`` ((ORC path, partition name, partition value)) into Iceberg table
    ``target`` through Arrow in Spark tasks, then commit them in one append; returns the rows."""
    import pyarrow as pa

    jvm = spark.sparkContext._jvm
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, target)
    fields = [(f.name(), f.fieldId(), str(f.type())) for f in table.schema().columns()]
    data = str(table.location()).removeprefix("file:") + "/data"

    def run(batches: Any) -> Any:
        import pyarrow.orc as orc
        import pyarrow.parquet as pq

        schema = pa.schema(
            [
                pa.field(name, _arrow(kind), metadata={"PARQUET:field_id": str(fid)})
                for name, fid, kind in fields
            ]
        )
        for batch in batches:
            for index in batch.column(0).to_pylist():
                path, partition, value = files[index]
                rows = orc.ORCFile(path).read()
                columns = {
                    "uuid": random_uuids(rows.num_rows),
                    "partitionpath": pa.array([partition] * rows.num_rows, pa.string()),
                    "p": pa.array([int(value)] * rows.num_rows, pa.int32()),
                }
                arrays = [
                    columns[f.name] if f.name in columns else rows.column(f.name).cast(f.type)
                    for f in schema
                ]
                out = f"{data}/{partition}/q-{index:05d}-{os.urandom(6).hex()}.parquet"
                Path(out).parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(pa.Table.from_arrays(arrays, schema=schema), out, compression="zstd")
                yield pa.RecordBatch.from_pydict(
                    {"path": [out], "partition": [partition], "rows": [rows.num_rows]}
                )

    slices = max(1, min(len(files), spark.sparkContext.defaultParallelism * 4))
    written = (
        spark.range(0, len(files), 1, slices)
        .mapInArrow(run, "path STRING, partition STRING, rows BIGINT")
        .collect()
    )
    iceberg = jvm.org.apache.iceberg
    config = iceberg.MetricsConfig.forTable(table)
    append = table.newAppend()
    for row in written:
        path = "file:" + row["path"]
        metrics = iceberg.parquet.ParquetUtil.fileMetrics(table.io().newInputFile(path), config)
        append.appendFile(
            iceberg.DataFiles.builder(table.spec())
            .withPath(path)
            .withFormat(iceberg.FileFormat.PARQUET)
            .withFileSizeInBytes(os.path.getsize(row["path"]))
            .withPartitionPath(row["partition"])
            .withMetrics(metrics)
            .build()
        )
    append.commit()
    return sum(int(r["rows"]) for r in written)


def run(
    spark: Any, ctx: Any, settings: Settings, table: SyntheticTable, scratch: Path, shape: str
) -> dict[str, Any]:
    source, size, rows = table.qualified_name, table.bytes, table.rows
    paths = sorted(str(p) for p in table.location.glob("p=*/*"))
    files = [(p, Path(p).parent.name, Path(p).parent.name.split("=", 1)[1]) for p in paths]
    physical_dir = scratch / f"arrow-{shape}-pyarrow"
    shutil.rmtree(physical_dir, ignore_errors=True)
    physical = timed("p_pyarrow_copy", rows, size, lambda: pyarrow_copy(paths, physical_dir))
    naive = f"{source}_naive"
    _drop(spark, naive)
    _iceberg_like(spark, naive, source)
    b = timed(
        "b_naive_insert",
        rows,
        size,
        lambda: spark.sql(f"INSERT INTO {naive} SELECT uuid(), concat('p=', p), * FROM {source}"),
    )
    target = f"{source}_lakeshift"
    journal_path = scratch / f"arrow-{shape}-journal.sqlite"
    drop_lake_table(ctx.metastore, target, journal_path)
    journal = Journal(journal_path)
    options = MigrateOptions(target=target, batch_rows=5_000_000)
    d = timed(
        "d_lakeshift_migrate",
        rows,
        size,
        lambda: migrate(spark, ctx.metastore, ctx.catalog, settings, journal, source, options),
    )
    # (r) lakeshift migrate with write_path = "arrow", then validate (the Spark reader rescans
    # the source: the Arrow path observes no checksum)
    real = f"{source}_lakeshift_arrow"
    real_journal_path = scratch / f"arrow-{shape}-real-journal.sqlite"
    drop_lake_table(ctx.metastore, real, real_journal_path)
    real_journal = Journal(real_journal_path)
    arrow_settings = replace(settings, write_path="arrow")
    r = timed(
        "r_lakeshift_arrow",
        rows,
        size,
        lambda: migrate(
            spark,
            ctx.metastore,
            ctx.catalog,
            arrow_settings,
            real_journal,
            source,
            MigrateOptions(target=real, batch_rows=5_000_000),
        ),
    )
    reports: list[Any] = []
    v = timed(
        "validate_arrow",
        rows,
        size,
        lambda: reports.append(
            validate_table(
                spark, ctx.metastore, ctx.catalog, arrow_settings, real_journal, source, real
            )
        ),
    )
    # Delta: (f) the naive Delta write, (g) lakeshift's Spark path, (t) its Arrow path
    naive_root = scratch / f"arrow-{shape}-naive-delta"
    shutil.rmtree(naive_root, ignore_errors=True)
    f = timed("f_naive_delta", rows, size, lambda: _naive_delta(spark, source, naive_root))
    delta_rows = {}
    for row, path in (("g_lakeshift_delta", "spark"), ("t_lakeshift_delta_arrow", "arrow")):
        delta_target = f"{source}_delta_{path}"
        delta_journal = scratch / f"arrow-{shape}-delta-{path}-journal.sqlite"
        drop_lake_table(ctx.metastore, delta_target, delta_journal)
        delta_settings = replace(settings, write_path=path)
        options = MigrateOptions(target=delta_target, batch_rows=5_000_000, format="delta")

        def delta_migrate(
            chosen: Settings = delta_settings, opts: Any = options, j: Any = delta_journal
        ) -> None:
            migrate(spark, ctx.metastore, ctx.catalog, chosen, Journal(j), source, opts)

        delta_rows[row] = timed(row, rows, size, delta_migrate)
    arrow_target = f"{source}_arrow"
    _drop(spark, arrow_target)
    _iceberg_like(spark, arrow_target, source)
    written: list[int] = []
    q = timed(
        "q_arrow_path", rows, size, lambda: written.append(arrow_path(spark, arrow_target, files))
    )
    # What the prototype wrote is the table's rows (not timed): counts and a content checksum
    # of the data columns, against the naive insert's copy of the same rows
    columns = "id, name, amount, ts, p, partitionpath"
    check = f"SELECT count(*), sum(xxhash64({columns})) FROM "
    same = spark.sql(check + arrow_target).collect()[0] == spark.sql(check + naive).collect()[0]
    if written != [rows] or not same:
        raise AssertionError(f"the Arrow prototype wrote {written} rows, equal content: {same}")
    return {
        "scenario": f"arrow ({shape})",
        "partitions": table.partitions,
        "rows": rows,
        "bytes": size,
        "p_pyarrow_copy": physical.to_json(),
        "b_naive_insert": b.to_json(),
        "d_lakeshift_migrate": d.to_json(),
        "q_arrow_path": q.to_json(),
        "r_lakeshift_arrow": r.to_json(),
        "validate_arrow": v.to_json(),
        "validate_arrow_equal": _all_equal(reports[0]),
        "ratio_r_over_b": round(r.seconds / b.seconds, 2),
        "ratio_r_over_d": round(r.seconds / d.seconds, 2),
        "ratio_r_over_p": round(r.seconds / physical.seconds, 2),
        "ratio_r_plus_validate_over_b": round((r.seconds + v.seconds) / b.seconds, 2),
        "ratio_q_over_p": round(q.seconds / physical.seconds, 2),
        "ratio_q_over_d": round(q.seconds / d.seconds, 2),
        "ratio_q_over_b": round(q.seconds / b.seconds, 2),
        "ratio_d_over_p": round(d.seconds / physical.seconds, 2),
        "f_naive_delta": f.to_json(),
        **{name: timing.to_json() for name, timing in delta_rows.items()},
        "ratio_g_over_f": round(delta_rows["g_lakeshift_delta"].seconds / f.seconds, 2),
        "ratio_t_over_f": round(delta_rows["t_lakeshift_delta_arrow"].seconds / f.seconds, 2),
    }


def _all_equal(report: Any) -> bool:
    """Whether validation found every partition equal."""
    return all(p.status == "equal" for p in report.partitions)
