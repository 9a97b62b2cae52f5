"""``make bench``: lakeshift against baselines on the same data, in one run.

Writes ``benchmarks/results/<timestamp>.json``, appends to ``history.jsonl`` and prints a
Markdown table. Sizes come from environment variables (defaults in parentheses):
``BENCH_INSPECT_PARTITIONS`` (10000), ``BENCH_INSPECT_FILES`` (2).
"""

from __future__ import annotations

import json
import os
import platform
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks import bench_inspect
from benchmarks.synthetic import build_table
from lakeshift.config import load_settings
from lakeshift.context import Context

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


def markdown(results: list[dict[str, Any]]) -> str:
    lines = []
    for result in results:
        lines.append(f"### {result['scenario']}\n")
        lines.append("| metric | value |\n|---|---|")
        lines.extend(f"| {k} | {v} |" for k, v in result.items() if k != "scenario")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    home = Path(os.environ.get("BENCH_HOME", ".lakeshift-bench")).resolve()
    settings = load_settings({"home": home, "spark_master": "local[2]"})
    ctx = Context(settings)
    partitions = int(os.environ.get("BENCH_INSPECT_PARTITIONS", "10000"))
    files = int(os.environ.get("BENCH_INSPECT_FILES", "2"))
    table = build_table(
        ctx.metastore,
        home / "tables",
        f"inspect_{partitions}",
        partitions=partitions,
        files_per_partition=files,
        rows_per_file=50,
    )
    print(f"built {table.qualified_name} in {table.seconds_to_build}s")
    results = [bench_inspect.run(ctx.metastore, settings, table)]
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    document = {"at": stamp, "machine": machine(), "results": results, "epoch": time.time()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{stamp}.json").write_text(json.dumps(document, indent=1) + "\n")
    with (RESULTS / "history.jsonl").open("a") as history:
        history.write(json.dumps(document) + "\n")
    report = markdown(results)
    (RESULTS / "latest.md").write_text(f"# Benchmarks {stamp}\n\n{machine()}\n\n{report}\n")
    print(report)


if __name__ == "__main__":
    main()
