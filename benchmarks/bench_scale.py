"""Scale: tables of many tiny partitions (10,000 and 100,000 by default) through inspect, plan
and migrate, in one process, smallest first.

Reported per size: seconds of each step and of the driver phases that grow with the partition
count (the journal, planning, the source frame, the commit), each also per 10,000 partitions, so
constant per-partition costs show as equal figures at every size; and the peak resident memory
of the driver's Python and JVM while each size ran (both are reset to what the processes hold
when a size starts, ``python_start_mb``, so that neither the earlier scenarios of the run nor
the smaller size set the larger one's figure), and the Python peak after each step of a size
(``python_peak_mb_after``: the step that raised it). ``ratio_python_peak`` is the largest
size's Python peak over the smallest's: the issue's "within 1.5x" figure (absent where the
peaks could not be reset).
"""

from __future__ import annotations

import gc
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.measure import jvm_peak_mb, python_peak_mb, reset_peaks, timed, timed_profiled
from benchmarks.synthetic import build_table, drop_lake_table
from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.migrate.backfill import MigrateOptions, migrate, plan_migration
from lakeshift.migrate.journal import Journal

#: Driver phases whose cost grows with the partitions (profile paths, summed over batches). A
#: batch on the Spark path builds a source frame; one on the Arrow path (the default) has its
#: tasks write and commits their files: a run reports the phases its batches went through.
PER_PARTITION_PHASES = (
    "inspect",
    "plan",
    "batch/journal",
    "batch/write/source frame",
    "batch/write/arrow write",
    "batch/write/commit",
    "batch/write/find commit",
)


def _per_10k(seconds: float, partitions: int) -> float:
    return round(seconds * 10_000 / partitions, 2)


def _one_size(
    ctx: Any, settings: Settings, home: Path, partitions: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    spark = ctx.spark
    table = build_table(
        ctx.metastore,
        home / "tables",
        f"scale_{partitions}",
        partitions=partitions,
        files_per_partition=1,
        rows_per_file=2,
    )
    print(f"built {table.qualified_name} in {table.seconds_to_build}s", flush=True)
    source, rows, size = table.qualified_name, table.rows, table.bytes
    target = f"{source}_lakeshift"
    journal_path = home / f"scale-{partitions}-journal.sqlite"
    drop_lake_table(ctx.metastore, target, journal_path)
    journal = Journal(journal_path)
    gc.collect()
    reset = reset_peaks(spark)
    start = python_peak_mb()
    peaks: dict[str, float] = {}  # the peak so far after each step: which step raised it
    inspected = timed("inspect", rows, size, lambda: inspect_table(ctx.metastore, source, settings))
    peaks["inspect"] = python_peak_mb()
    options = MigrateOptions(target=target)
    inventory = inspect_table(ctx.metastore, source, settings)
    dry_run = partial(plan_migration, {}, ctx.formats, inventory, settings, options, journal)
    planned = timed("plan", rows, size, dry_run)
    peaks["plan"] = python_peak_mb()
    # The dry run's inventory is the benchmark's own: ``migrate`` inspects the table itself,
    # and a second inventory of the table held beside its own would be measured as its peak.
    del inventory, dry_run
    results: list[Any] = []
    migrated, profile = timed_profiled(
        "migrate",
        rows,
        size,
        lambda: results.append(
            migrate(spark, ctx.metastore, ctx.catalog, settings, journal, source, options)
        ),
        spark,
    )
    journal.close()
    peaks["migrate"] = python_peak_mb()
    phases = {row["phase"]: row for row in profile["phases"]}
    steps = {
        "inspect": inspected.seconds,
        "plan (dry run)": planned.seconds,
        "migrate": migrated.seconds,
    }
    for path in PER_PARTITION_PHASES:  # under the phase timed_profiled wraps the call in
        if f"migrate/{path}" in phases:
            steps[f"migrate: {path}"] = phases[f"migrate/{path}"]["seconds"]
    figures = {
        "partitions": partitions,
        "batches": len(results[0].plan.batches),
        "backfilled": len(results[0].backfilled),
        "seconds": {k: round(v, 2) for k, v in steps.items()},
        "seconds_per_10k_partitions": {k: _per_10k(v, partitions) for k, v in steps.items()},
        "python_start_mb": start,
        "peaks_reset_at_start": reset,
        "python_peak_mb": python_peak_mb(),
        "python_peak_mb_after": peaks,
        "jvm_peak_mb": jvm_peak_mb(spark),
    }
    return figures, profile


def run(ctx: Any, settings: Settings, home: Path, sizes: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"scenario": "scale", "sizes": sizes, "profiles": {}}
    for partitions in sorted(sizes):
        figures, profile = _one_size(ctx, settings, home, partitions)
        out[str(partitions)] = figures
        out["profiles"][f"migrate of {partitions:,} partitions"] = profile
    smallest, largest = out[str(min(sizes))], out[str(max(sizes))]
    # Without a reset, each peak is the process's since it started: their ratio says nothing.
    if len(sizes) > 1 and smallest["peaks_reset_at_start"] and largest["peaks_reset_at_start"]:
        out["ratio_python_peak"] = round(largest["python_peak_mb"] / smallest["python_peak_mb"], 2)
    return out
