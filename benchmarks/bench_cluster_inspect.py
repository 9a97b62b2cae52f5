"""Inspection of many one-file partitions on the driver alone, and spread over the executors of
a Spark standalone cluster's two workers (``inspect_on = "spark"``), on the same files.

The table (``BENCH_CLUSTERINSPECT_FILES`` partitions of one ORC file each, 100,000 by default)
is built by the bench's process; the inspections run in a process of their own, whose Spark
session is the cluster's (the bench's own session, on ``local[2]``, is that process's only one).
Reported: seconds of each, their ratio, the seconds and the file-system operations (listings
and footer reads, from the inventory) per file, the metastore's share (fetching every partition,
which both pay on the driver), the cluster session's start and the executors' first tasks
(untimed warm-up) apart; and, for ``auto``'s choice, the same spread inspection on a
``local[2]`` session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.measure import timed_profiled
from benchmarks.synthetic import build_table
from lakeshift.config import Settings, load_settings
from lakeshift.context import Context
from lakeshift.inspect import TableInventory, inspect_table
from lakeshift.inspect.partition_filter import PartitionFilter

WORKERS = 2


def _inventory_facts(inventory: TableInventory) -> TableInventory:
    return replace(inventory, inspected_at="", seconds=0.0)


def _timed_inspect(ctx: Context, table: str, settings: Settings) -> tuple[float, TableInventory]:
    started = time.monotonic()
    inventory = inspect_table(ctx.metastore, table, settings, spark=lambda: ctx.spark)
    return time.monotonic() - started, inventory


def _spread(ctx: Context, table: str) -> tuple[float, float, TableInventory, dict[str, Any]]:
    """Session start (with an untimed first inspection, which starts the executors' Python
    workers), then the timed spread inspection, profiled: its Spark jobs' share."""
    started = time.monotonic()
    spreading = replace(ctx.settings, inspect_on="spark")
    warm = PartitionFilter.parse("p=0..99")
    inspect_table(ctx.metastore, table, spreading, partition_filter=warm, spark=lambda: ctx.spark)
    start_seconds = time.monotonic() - started
    found: list[TableInventory] = []
    timing, profile = timed_profiled(
        "spread",
        0,
        0,
        lambda: found.append(_timed_inspect(ctx, table, spreading)[1]),
        ctx.spark,
    )
    row = next(r for r in profile["phases"] if r["phase"] == "spread")
    jobs = {
        "spark_jobs": row["spark_jobs"],
        "tasks": row["tasks"],
        "spark_seconds": row["spark_seconds"],  # while any of its Spark jobs ran
        "driver_only_seconds": row["driver_seconds"],  # before the first, after the last
        "task_seconds": row["task_seconds"],  # the executors' run time, summed
    }
    return start_seconds, timing.seconds, found[0], jobs


def _child(metastore_uri: str, table: str, master: str, home: Path) -> dict[str, Any]:
    conf = {
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.executor.memory": "1g",
        "spark.executor.cores": "1",
        "spark.cores.max": str(WORKERS),
    }
    base = {"home": home, "metastore_uri": metastore_uri, "shuffle_partitions": 2}
    settings = load_settings({**base, "spark_master": master, "spark_conf": conf}, env={})
    ctx = Context(settings)
    # The metastore's share, which both paths pay on the driver (spread: before any task).
    started = time.monotonic()
    db, name = table.split(".")
    names = ctx.metastore.partition_names(db, name)
    fetched = sum(1 for _ in ctx.metastore.partitions_by_names(db, name, names, 500))
    metastore_seconds = time.monotonic() - started
    driver_seconds, on_driver = _timed_inspect(ctx, table, replace(settings, inspect_on="driver"))
    start_seconds, spread_seconds, spread, spread_jobs = _spread(ctx, table)
    assert _inventory_facts(spread) == _inventory_facts(on_driver), "the inventories differ"
    cores = ctx.spark.sparkContext.defaultParallelism
    ctx.spark.stop()
    ctx.close()
    local = Context(load_settings({**base, "spark_master": "local[2]"}, env={}))
    _, local_seconds, _, local_jobs = _spread(local, table)
    local.spark.stop()
    local.close()
    files = sum(len(p.files) for p in on_driver.partitions)
    assert fetched == len(on_driver.partitions)
    operations = on_driver.listings + files  # one listing per partition, one read per file
    return {
        "scenario": "clusterinspect",
        "partitions": len(on_driver.partitions),
        "files": files,
        "workers": WORKERS,
        "executor_cores": cores,
        "driver_seconds": round(driver_seconds, 2),
        "spread_seconds": round(spread_seconds, 2),
        "ratio_spread_over_driver": round(spread_seconds / driver_seconds, 2),
        "driver_ms_per_file": round(driver_seconds * 1000 / files, 3),
        "spread_ms_per_file": round(spread_seconds * 1000 / files, 3),
        "operations_per_file": round(operations / files, 2),
        "metastore_fetch_seconds": round(metastore_seconds, 2),
        "cluster_start_and_warm_up_seconds": round(start_seconds, 2),
        "spread_profile": spread_jobs,
        "spread_local2_seconds": round(local_seconds, 2),
        "spread_local2_profile": local_jobs,
        "ratio_spread_local2_over_driver": round(local_seconds / driver_seconds, 2),
    }


def run(ctx: Context, tables: Path, home: Path) -> dict[str, Any]:
    """Build the table, start the cluster, inspect in a child process; the row."""
    from tests.cluster.standalone import StandaloneCluster

    files = int(os.environ.get("BENCH_CLUSTERINSPECT_FILES", "100000"))
    table = build_table(
        ctx.metastore,
        tables,
        f"clusterinspect_{files}",
        partitions=files,
        files_per_partition=1,
        rows_per_file=2,
    )
    print(f"built {table.qualified_name} in {table.seconds_to_build}s", flush=True)
    cluster = StandaloneCluster(home / "clusterinspect-cluster", workers=WORKERS).start()
    out = home / "clusterinspect.json"
    out.unlink(missing_ok=True)
    command = [sys.executable, "-m", "benchmarks.bench_cluster_inspect", ctx.metastore_uri]
    command += [table.qualified_name, cluster.master_url, str(home / "clusterinspect"), str(out)]
    try:
        subprocess.run(command, check=True)
    finally:
        cluster.stop()
    result: dict[str, Any] = json.loads(out.read_text())
    result["seconds_to_build"] = table.seconds_to_build
    return result


if __name__ == "__main__":
    _uri, _table, _master, _home, _out = sys.argv[1:]
    Path(_out).write_text(json.dumps(_child(_uri, _table, _master, Path(_home))))
