"""Apache Hudi beside Iceberg and Delta on the same table, in the same run.

(h) a plain Spark write of the same rows (``uuid()``, ``partitionpath``, partitioned by ``p``)
as Parquet with Hudi's default codec, GZIP: the fair anchor, since Hudi's own bulk_insert
costs about 6% over plain Parquet (apache/hudi#5351); (i) ``lakeshift migrate --format hudi``
(table version 6), then (i)'s ``validate``; in the
``large`` scenario also (k) the same migration into a table version 8 target, (l) with
``hudi_parquet_codec = zstd`` instead of Hudi's default GZIP and (m) with GZIP at zlib's
level 6 (``hudi_gzip_level = 6``, parquet-mr's default) instead of lakeshift's level 1. No
Hudi jars can be installed here, so Hudi's own writer cannot run: ratios are against (h), the
run's own bare copy (a) and lakeshift's Delta migration (g) of the same rows, written by the
same Spark.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.measure import timed, timed_profiled
from benchmarks.synthetic import SyntheticTable, drop_lake_table
from lakeshift.config import Settings
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table


def _drop(ctx: Any, scratch: Path, target: str) -> None:
    """The previous run's table, dropped before the clock starts (as Iceberg's and Delta's
    rows do): dropping a Hudi table of 1,000 partitions and its routing table took 3-6 s of
    the metastore's time, which row i counted until session 68."""
    drop_lake_table(ctx.metastore, target, scratch / f"{target}-journal.sqlite")


def _migrate(
    spark: Any, ctx: Any, settings: Settings, scratch: Path, source: str, target: str
) -> Any:
    journal = Journal(scratch / f"{target}-journal.sqlite")
    options = MigrateOptions(target=target, batch_rows=5_000_000, format="hudi")
    try:
        return migrate(spark, ctx.metastore, None, settings, journal, source, options)
    finally:
        journal.close()


def _plain_parquet(spark: Any, source: str, root: Path, codec: str) -> None:
    spark.sql(
        f"SELECT uuid() AS uuid, concat('p=', p) AS partitionpath, * FROM {source}"
    ).write.mode("overwrite").option("compression", codec).partitionBy("p").parquet(str(root))


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
    plain_root = scratch / f"{scenario}-plain-gzip"
    shutil.rmtree(plain_root, ignore_errors=True)
    codec = settings.hudi_parquet_codec
    h, h_profile = timed_profiled(
        "h_plain_parquet_gzip",
        rows,
        size,
        lambda: _plain_parquet(spark, source, plain_root, codec),
        spark,
    )
    _drop(ctx, scratch, target)
    i, i_profile = timed_profiled(
        "i_lakeshift_hudi",
        rows,
        size,
        lambda: _migrate(spark, ctx, settings, scratch, source, target),
        spark,
    )
    journal = Journal(scratch / f"{target}-journal.sqlite")
    j, j_profile = timed_profiled(
        "validate_hudi",
        rows,
        size,
        lambda: validate_table(spark, ctx.metastore, None, settings, journal, source, target),
        spark,
    )
    journal.close()
    out: dict[str, Any] = {
        "h_plain_parquet_gzip": h.to_json(),
        "ratio_i_over_h": round(i.seconds / h.seconds, 2),
        "i_lakeshift_hudi": i.to_json(),
        "validate_hudi": j.to_json(),
        "ratio_i_over_a": round(i.seconds / bare_copy_seconds, 2),
        "ratio_i_over_g": round(i.seconds / delta_seconds, 2),
        "ratio_i_plus_validate_over_a": round((i.seconds + j.seconds) / bare_copy_seconds, 2),
        "profiles": {
            "h (plain Parquet, Hudi's codec)": h_profile,
            "i (Hudi migrate)": i_profile,
            "validate (Hudi)": j_profile,
        },
    }
    if scenario == "large":
        variants = (
            ("k_lakeshift_hudi_v8", "hudi8", {"hudi_table_version": 8}),
            ("l_lakeshift_hudi_zstd", "hudiz", {"hudi_parquet_codec": "zstd"}),
            ("m_lakeshift_hudi_gzip6", "hudig6", {"hudi_gzip_level": 6}),
        )
        for label, suffix, change in variants:
            variant, name = replace(settings, **change), f"{source}_lakeshift_{suffix}"
            run_variant = partial(_migrate, spark, ctx, variant, scratch, source, name)
            _drop(ctx, scratch, name)
            measured = timed(label, rows, size, run_variant)
            out[label] = measured.to_json()
            out[f"ratio_{label[0]}_over_i"] = round(measured.seconds / i.seconds, 2)
            out[f"ratio_{label[0]}_over_g"] = round(measured.seconds / delta_seconds, 2)
            out[f"ratio_{label[0]}_over_h"] = round(measured.seconds / h.seconds, 2)
    return out
