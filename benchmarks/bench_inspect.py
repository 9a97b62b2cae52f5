"""Inspection of many partitions: lakeshift vs a per-partition, single-threaded baseline.

The baseline is the same code with the choices a hand-written script makes: one metastore call
per partition and one thread. Both run on the same partitions in the same run.
"""

from __future__ import annotations

import resource
import time
from dataclasses import replace
from typing import Any

from benchmarks.measure import process_cpu_seconds
from benchmarks.synthetic import SyntheticTable
from lakeshift.config import Settings
from lakeshift.inspect import inspect_table
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient

SUBSET = 1000


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(client: MetastoreClient, settings: Settings, table: SyntheticTable) -> dict[str, Any]:
    # The embedded metastore's process: its CPU in the same inspection is the other half of
    # what this machine's 2 cores share (its first fetch of a just-built table compiles every
    # statement anew).
    metastore_pid = settings.home / "metastore" / "metastore.pid"
    metastore_cpu = process_cpu_seconds(metastore_pid)
    cpu = _cpu_seconds()
    started = time.monotonic()
    inventory = inspect_table(client, table.qualified_name, settings)
    lakeshift_seconds = time.monotonic() - started
    # The driver's own work (this process: every thread), apart from the metastore's and from
    # whatever else the machine runs: on a shared machine the wall time varies far more.
    cpu = _cpu_seconds() - cpu
    metastore_after = process_cpu_seconds(metastore_pid)
    if metastore_cpu is not None and metastore_after is not None:
        metastore_cpu = round(metastore_after - metastore_cpu, 2)
    assert inventory.summary()["rows"] == table.rows

    # The baseline makes one metastore call per partition (minutes for 10,000 on Derby), so
    # both are compared on the same subset of the table, in the same run.
    subset = min(table.partitions, SUBSET)
    wanted = PartitionFilter.parse(f"p=0..{subset - 1}")
    started = time.monotonic()
    inspect_table(client, table.qualified_name, settings, partition_filter=wanted)
    subset_seconds = time.monotonic() - started
    baseline_settings = replace(settings, partition_batch=1, inspect_workers=1)
    started = time.monotonic()
    baseline = inspect_table(
        client, table.qualified_name, baseline_settings, partition_filter=wanted
    )
    baseline_seconds = time.monotonic() - started
    assert len(baseline.partitions) == subset
    files = table.partitions * table.files_per_partition
    return {
        "scenario": "inspect",
        "partitions": table.partitions,
        "files": files,
        "lakeshift_seconds": round(lakeshift_seconds, 2),
        "lakeshift_driver_cpu_seconds": round(cpu, 2),
        "metastore_cpu_seconds": metastore_cpu,  # the embedded metastore's (None: no pid)
        "subset_partitions": subset,
        "subset_lakeshift_seconds": round(subset_seconds, 2),
        "subset_baseline_seconds": round(baseline_seconds, 2),
        "ratio_baseline_over_lakeshift": round(baseline_seconds / subset_seconds, 2),
        "partitions_per_second": round(table.partitions / lakeshift_seconds),
        "files_per_second": round(files / lakeshift_seconds),
    }
