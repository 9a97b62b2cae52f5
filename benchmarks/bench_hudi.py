"""Apache Hudi beside Iceberg and Delta on the same table, in the same run.

(i) ``lakeshift migrate --format hudi`` (table version 6); (j) (i)'s ``validate``; in the
``large`` scenario also (k) the same migration into a table version 8 target and (l) with
``hudi_parquet_codec = zstd`` instead of Hudi's default GZIP. There is no naive
Hudi baseline here (no Hudi jars can be installed): ratios are against the run's own bare copy
(a) and lakeshift's Delta migration (g) of the same rows, written by the same Spark.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.measure import timed
from benchmarks.synthetic import SyntheticTable, drop_lake_table
from lakeshift.config import Settings
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table


def _migrate(
    spark: Any, ctx: Any, settings: Settings, scratch: Path, source: str, target: str
) -> Any:
    drop_lake_table(ctx.metastore, target, scratch / f"{target}-journal.sqlite")
    journal = Journal(scratch / f"{target}-journal.sqlite")
    options = MigrateOptions(target=target, batch_rows=5_000_000, format="hudi")
    try:
        return migrate(spark, ctx.metastore, None, settings, journal, source, options)
    finally:
        journal.close()


def run(
    spark: Any,
    ctx: Any,
    settings: Settings,
    table: SyntheticTable,
    scratch: Path,
    scenario: str,
    bare_copy_seconds: float,
    delta_seconds: float,
) -> dict[str, Any]:
    source, size, rows = table.qualified_name, table.bytes, table.rows
    target = f"{source}_lakeshift_hudi"
    i = timed(
        "i_lakeshift_hudi",
        rows,
        size,
        lambda: _migrate(spark, ctx, settings, scratch, source, target),
    )
    journal = Journal(scratch / f"{target}-journal.sqlite")
    j = timed(
        "validate_hudi",
        rows,
        size,
        lambda: validate_table(spark, ctx.metastore, None, settings, journal, source, target),
    )
    journal.close()
    out: dict[str, Any] = {
        "i_lakeshift_hudi": i.to_json(),
        "validate_hudi": j.to_json(),
        "ratio_i_over_a": round(i.seconds / bare_copy_seconds, 2),
        "ratio_i_over_g": round(i.seconds / delta_seconds, 2),
        "ratio_i_plus_validate_over_a": round((i.seconds + j.seconds) / bare_copy_seconds, 2),
    }
    if scenario == "large":
        v8 = replace(settings, hudi_table_version=8)
        k = timed(
            "k_lakeshift_hudi_v8",
            rows,
            size,
            lambda: _migrate(spark, ctx, v8, scratch, source, f"{source}_lakeshift_hudi8"),
        )
        out["k_lakeshift_hudi_v8"] = k.to_json()
        out["ratio_k_over_i"] = round(k.seconds / i.seconds, 2)
        zstd = replace(settings, hudi_parquet_codec="zstd")
        z = timed(
            "l_lakeshift_hudi_zstd",
            rows,
            size,
            lambda: _migrate(spark, ctx, zstd, scratch, source, f"{source}_lakeshift_hudiz"),
        )
        out["l_lakeshift_hudi_zstd"] = z.to_json()
        out["ratio_l_over_i"] = round(z.seconds / i.seconds, 2)
        out["ratio_l_over_g"] = round(z.seconds / delta_seconds, 2)
    return out
