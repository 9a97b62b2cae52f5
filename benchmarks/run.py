"""``make bench``: lakeshift against baselines on the same data, in one run.

Writes ``benchmarks/results/<timestamp>.json``, appends to ``history.jsonl`` and prints a
Markdown table. Scenarios (``BENCH_SCENARIOS``, default
``large,small,inspect,tiny,bulk,independent,text``) and sizes come from environment variables
(defaults in parentheses):

* ``large``: few large partitions, ``BENCH_LARGE_PARTITIONS`` (4) x ``BENCH_LARGE_ROWS``
  (500000) rows in 2 files each; Iceberg (``bench_migrate``), Delta (``bench_delta``) then Hudi
  (``bench_hudi``, table versions 6 and 8) on the same table, and adoption of its files into
  Iceberg and of a twin with four times the rows per file (``bench_adopt``);
* ``small``: many small partitions, ``BENCH_SMALL_PARTITIONS`` (1000) x ``BENCH_SMALL_ROWS``
  (200) rows; the same three formats (Hudi: version 6) and adoption;
* ``inspect``: ``BENCH_INSPECT_PARTITIONS`` (10000) x ``BENCH_INSPECT_FILES`` (2) files;
* ``tiny``: ``BENCH_TINY_PARTITIONS`` (10000) x ``BENCH_TINY_ROWS`` (5) rows, migrated with the
  default batch limits (``bench_tiny``);
* ``bulk``: ``BENCH_BULK_TABLES`` (4) tables of ``BENCH_BULK_PARTITIONS`` (20) x
  ``BENCH_BULK_ROWS`` (5000) rows, migrated and validated with ``parallel = 1`` and ``= N``;
* ``independent``: ``BENCH_INDEPENDENT_PARTITIONS`` (20) x ``BENCH_INDEPENDENT_ROWS`` (50000)
  rows, migrated once, then validated at ``checksum`` and ``independent`` (``bench_independent``);
* ``text``: ``BENCH_TEXT_PARTITIONS`` (4) x ``BENCH_TEXT_ROWS`` (100000) rows as ORC and as a
  LazySimpleSerDe text twin, both migrated, and a bare Spark copy of the text (``bench_text``);
* ``s3inspect``: a table of 100 and one of 1000 partitions on moto's S3, inspected; requests
  (counted by the server) and seconds per partition (``bench_s3``; needs `make test`'s jars);
* ``arrow`` (not in the default list): tables of the large and the small shape, with row q,
  the Arrow write path prototype (``bench_arrow``), beside p, b and d;
* ``scale`` (not in the default list: about 15 minutes here): ``BENCH_SCALE_SIZES``
  (10000,100000) partitions of one 2-row file each through inspect, plan and migrate; seconds
  per 10,000 partitions and the driver's peak memory after each size (``bench_scale``);
* ``clusterinspect`` (not in the default list): ``BENCH_CLUSTERINSPECT_FILES`` (100000)
  partitions of one file each, inspected on the driver alone and spread over a Spark standalone
  cluster's two workers (``bench_cluster_inspect``).
"""

from __future__ import annotations

import json
import os
import platform
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks import (
    bench_adopt,
    bench_arrow,
    bench_bulk,
    bench_cluster_inspect,
    bench_delta,
    bench_follow,
    bench_hudi,
    bench_independent,
    bench_inspect,
    bench_migrate,
    bench_s3,
    bench_scale,
    bench_text,
    bench_tiny,
)
from benchmarks.synthetic import build_table, drop_lake_table
from lakeshift import profiling
from lakeshift.config import load_settings
from lakeshift.context import Context
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> dict[str, Any]:
    memory = ""
    try:
        memory = Path("/proc/meminfo").read_text().splitlines()[0].split(":")[1].strip()
    except OSError:
        memory = "unknown"
    return {
        "cpus": os.cpu_count(),
        "memory": memory,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _flat(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            out.extend(_flat(value, f"{prefix}{key}."))
        else:
            out.append((f"{prefix}{key}", value))
    return out


def markdown(results: list[dict[str, Any]]) -> str:
    lines = []
    for result in results:
        lines.append(f"### {result['scenario']}\n")
        lines.append("| metric | value |\n|---|---|")
        lines.extend(
            f"| {k} | {v} |"
            for k, v in _flat(result)
            if k != "scenario" and not k.startswith("profiles.")
        )
        lines.append("")
        for name, profile in (result.get("profiles") or {}).items():
            lines.append(f"#### Where the time went: {result['scenario']}, {name}\n")
            lines.append(profiling.render_markdown(profile))
    return "\n".join(lines)


def _warm_up(ctx: Context, tables: Path) -> None:
    """JIT and class loading before anything is timed, so that no timed row pays the JVM's
    start-up for the rest: every path the scenarios time runs once here, untimed, on a small
    table (the ORC scan and Parquet write, the naive Iceberg insert, lakeshift's migrate and
    validate into each format, and an adoption with its proof). Measured: the first lakeshift
    migration of a session took 11.1 s where the second and third of the same rows took 5.1
    and 4.3 s."""
    table = build_table(
        ctx.metastore, tables, "warmup", partitions=2, files_per_partition=1, rows_per_file=20_000
    )
    spark, source = ctx.spark, table.qualified_name
    paths = [str(p) for p in table.location.glob("p=*/*")]
    spark.read.orc(paths).write.mode("overwrite").parquet(str(tables / "warmup-copy"))
    spark.sql(f"SELECT count(*) FROM {source}").collect()
    naive = f"{source}_naive"
    spark.sql(f"DROP TABLE IF EXISTS {naive} PURGE")
    spark.sql(
        f"CREATE TABLE {naive} USING iceberg PARTITIONED BY (p) AS "
        f"SELECT uuid() AS uuid, concat('p=', p) AS partitionpath, * FROM {source}"
    )
    for fmt in ("iceberg", "delta", "hudi"):
        target = f"{source}_{fmt}"
        journal_path = tables / f"warmup-{fmt}.sqlite"
        drop_lake_table(ctx.metastore, target, journal_path)
        journal = Journal(journal_path)
        options = MigrateOptions(target=target, format=fmt)
        catalog = ctx.catalog if fmt == "iceberg" else None
        migrate(spark, ctx.metastore, catalog, ctx.settings, journal, source, options)
        validate_table(spark, ctx.metastore, catalog, ctx.settings, journal, source, target)
        journal.close()
    # Adoption: Iceberg's OrcMetrics, a replace-partitions commit, the independent reader.
    target = f"{source}_adopted"
    drop_lake_table(ctx.metastore, target, tables / "warmup-adopted.sqlite")
    journal = Journal(tables / "warmup-adopted.sqlite")
    options = MigrateOptions(target=target, adopt_files="auto")
    migrate(spark, ctx.metastore, ctx.catalog, ctx.settings, journal, source, options)
    journal.close()


def _env(name: str, default: int) -> int:
    return int(os.environ.get(name, str(default)))


def main() -> None:
    home = Path(os.environ.get("BENCH_HOME", ".lakeshift-bench")).resolve()
    settings = load_settings({"home": home, "spark_master": "local[2]", "shuffle_partitions": 4})
    ctx = Context(settings)
    scenarios = os.environ.get(
        "BENCH_SCENARIOS", "large,small,inspect,tiny,bulk,independent,text,s3inspect"
    ).split(",")
    tables = home / "tables"
    results = []
    _warm_up(ctx, tables)
    for scenario, partitions, files, rows in (
        ("large", _env("BENCH_LARGE_PARTITIONS", 4), 2, _env("BENCH_LARGE_ROWS", 500_000) // 2),
        ("small", _env("BENCH_SMALL_PARTITIONS", 1000), 1, _env("BENCH_SMALL_ROWS", 200)),
    ):
        if scenario not in scenarios:
            continue
        table = build_table(
            ctx.metastore,
            tables,
            f"{scenario}_{partitions}",
            partitions=partitions,
            files_per_partition=files,
            rows_per_file=rows,
        )
        print(f"built {table.qualified_name}: {table.rows:,} rows in {table.seconds_to_build}s")
        results.append(bench_migrate.run(ctx.spark, ctx, settings, table, home, scenario))
        bare_copy = float(results[-1]["a_bare_copy"]["seconds"])
        profiles = results[-1]["profiles"]
        results[-1].update(
            bench_delta.run(ctx.spark, ctx, settings, table, home, scenario, bare_copy)
        )
        profiles.update(results[-1]["profiles"])
        delta = float(results[-1]["g_lakeshift_delta"]["seconds"])
        results[-1].update(
            bench_hudi.run(ctx.spark, ctx, settings, table, home, scenario, bare_copy, delta)
        )
        profiles.update(results[-1]["profiles"])
        physical = float(results[-1]["p_pyarrow_copy"]["seconds"])
        results[-1].update(
            bench_adopt.run(ctx, settings, table, tables, home, scenario, bare_copy, physical)
        )
        profiles.update(results[-1]["profiles"])
        results[-1]["profiles"] = profiles
        for row, key in (("g", "g_lakeshift_delta"), ("i", "i_lakeshift_hudi")):
            if key in results[-1]:
                seconds = float(results[-1][key]["seconds"])
                results[-1][f"ratio_{row}_over_p"] = round(seconds / physical, 2)
        print(json.dumps(results[-1], indent=1))
    if "inspect" in scenarios:
        partitions = _env("BENCH_INSPECT_PARTITIONS", 10_000)
        table = build_table(
            ctx.metastore,
            tables,
            f"inspect_{partitions}",
            partitions=partitions,
            files_per_partition=_env("BENCH_INSPECT_FILES", 2),
            rows_per_file=50,
        )
        print(f"built {table.qualified_name} in {table.seconds_to_build}s")
        results.append(bench_inspect.run(ctx.metastore, settings, table))
    if "tiny" in scenarios:
        partitions = _env("BENCH_TINY_PARTITIONS", 10_000)
        table = build_table(
            ctx.metastore,
            tables,
            f"tiny_{partitions}",
            partitions=partitions,
            files_per_partition=1,
            rows_per_file=_env("BENCH_TINY_ROWS", 5),
        )
        print(f"built {table.qualified_name}: {table.rows:,} rows in {table.seconds_to_build}s")
        results.append(bench_tiny.run(ctx.spark, ctx, settings, table, home))
        print(json.dumps(results[-1], indent=1))
    if "bulk" in scenarios:
        count = _env("BENCH_BULK_TABLES", 4)
        bulk_tables = [
            build_table(
                ctx.metastore,
                tables,
                f"bulk_{index}",
                partitions=_env("BENCH_BULK_PARTITIONS", 20),
                files_per_partition=1,
                rows_per_file=_env("BENCH_BULK_ROWS", 5_000),
            )
            for index in range(count)
        ]
        results.append(bench_bulk.run(ctx, home, bulk_tables))
        print(json.dumps(results[-1], indent=1))
    if "independent" in scenarios:
        partitions = _env("BENCH_INDEPENDENT_PARTITIONS", 20)
        table = build_table(
            ctx.metastore,
            tables,
            f"independent_{partitions}",
            partitions=partitions,
            files_per_partition=1,
            rows_per_file=_env("BENCH_INDEPENDENT_ROWS", 50_000),
        )
        print(f"built {table.qualified_name}: {table.rows:,} rows in {table.seconds_to_build}s")
        results.append(bench_independent.run(ctx.spark, ctx, settings, table, home))
        print(json.dumps(results[-1], indent=1))
    if "text" in scenarios:
        table = build_table(
            ctx.metastore,
            tables,
            "text_source",
            partitions=_env("BENCH_TEXT_PARTITIONS", 4),
            files_per_partition=1,
            rows_per_file=_env("BENCH_TEXT_ROWS", 100_000),
        )
        results.append(bench_text.run(ctx.spark, ctx, settings, table, home))
        print(json.dumps(results[-1], indent=1))
    if "arrow" in scenarios:
        for shape, partitions, files, rows in (
            ("large", _env("BENCH_LARGE_PARTITIONS", 4), 2, _env("BENCH_LARGE_ROWS", 500_000) // 2),
            ("small", _env("BENCH_SMALL_PARTITIONS", 1000), 1, _env("BENCH_SMALL_ROWS", 200)),
        ):
            table = build_table(
                ctx.metastore,
                tables,
                f"arrow_{shape}",
                partitions=partitions,
                files_per_partition=files,
                rows_per_file=rows,
            )
            results.append(bench_arrow.run(ctx.spark, ctx, settings, table, home, shape))
            print(json.dumps(results[-1], indent=1))
    if "scale" in scenarios:
        sizes = [int(n) for n in os.environ.get("BENCH_SCALE_SIZES", "10000,100000").split(",")]
        results.append(bench_scale.run(ctx, settings, home, sizes))
        print(json.dumps({k: v for k, v in results[-1].items() if k != "profiles"}, indent=1))
    if "clusterinspect" in scenarios:
        results.append(bench_cluster_inspect.run(ctx, tables, home))
        print(json.dumps(results[-1], indent=1))
    if "follow" in scenarios:
        sizes = [int(n) for n in os.environ.get("BENCH_FOLLOW_SIZES", "1000,10000").split(",")]
        results.append(bench_follow.run_local(ctx, tables, sizes))
        print(json.dumps(results[-1], indent=1))
    if "s3follow" in scenarios:
        sizes = [int(n) for n in os.environ.get("BENCH_S3FOLLOW_SIZES", "1000,10000").split(",")]
        results.append(bench_follow.run_s3_process(home.with_name(home.name + "-s3follow"), sizes))
        print(json.dumps(results[-1], indent=1))
    if "s3inspect" in scenarios:
        results.append(bench_s3.run(home.with_name(home.name + "-s3")))
        print(json.dumps(results[-1], indent=1))
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    document = {"at": stamp, "machine": machine(), "results": results, "epoch": time.time()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{stamp}.json").write_text(json.dumps(document, indent=1) + "\n")
    with (RESULTS / "history.jsonl").open("a") as history:
        history.write(json.dumps(document) + "\n")
    report = markdown(results)
    (RESULTS / "latest.md").write_text(f"# Benchmarks {stamp}\n\n{machine()}\n\n{report}\n")
    print(report)
    if "spark" in ctx.__dict__:
        ctx.spark.stop()


if __name__ == "__main__":
    main()
