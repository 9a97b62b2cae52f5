"""A small partitioned Hive table whose expected rows are known exactly, and checks of a lake
target against them (per-partition multisets, unique record keys)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa

from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake, unique_keys

Rows = Counter[tuple[Any, ...]]


def small_table(
    client: MetastoreClient, root: Path, prefix: str, partitions: int = 4, rows: int = 40
) -> tuple[HiveTableBuilder, Rows]:
    """``partitions`` partitions ``dt=0..``, each two ORC files (the second repeats 5 rows)."""
    b = HiveTableBuilder(
        client, root, "fault_cases", unique_name(prefix), [("id", "bigint"), ("v", "string")]
    )
    expected: Rows = Counter()
    for p in range(partitions):
        ids = list(range(p * rows, (p + 1) * rows))
        table = pa.table({"id": pa.array(ids, pa.int64()), "v": [f"v{i % 3}" for i in ids]})
        b.add_partition([str(p)], {"000000_0": table, "000001_0": table.slice(0, 5)})
        for part in (table, table.slice(0, 5)):
            ids, values = part["id"].to_pylist(), part["v"].to_pylist()
            expected.update((f"dt={p}", i, v) for i, v in zip(ids, values, strict=True))
    return b, expected


def assert_exact(client: MetastoreClient, target: str, expected: Rows) -> int:
    """The lake table holds exactly ``expected`` (each partition's rows as a multiset) with a
    distinct, non-null record key per row; returns the number of rows compared."""
    rows = read_lake(client, target)
    found = Counter(
        (r["partitionpath"], r["id"], r["v"])
        for r in rows.select(["partitionpath", "id", "v"]).to_pylist()
    )
    missing, extra = expected - found, found - expected
    assert not missing and not extra, f"missing {dict(missing)}, extra {dict(extra)}"
    assert unique_keys(rows), "duplicated or null record keys"
    return rows.num_rows


def stopped(pid: int) -> bool:
    """True once the process is stopped by a signal (state T in /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] == "T"


def wait_until_stopped(
    process: subprocess.Popen[str] | subprocess.Popen[bytes], seconds: float = 240
) -> bool:
    """Wait until ``process`` is stopped at a fault point (or has ended, or time is up);
    whether it is stopped."""
    deadline = time.monotonic() + seconds
    while not stopped(process.pid) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    return stopped(process.pid)


def resume_to_the_end(
    process: subprocess.Popen[str] | subprocess.Popen[bytes], seconds: float = 300
) -> None:
    """Let a process stopped at fault points run to its end: continue it at every stop (a
    split batch stops again at each part); killed if it has not ended in ``seconds``."""
    deadline = time.monotonic() + seconds
    try:
        while process.poll() is None and time.monotonic() < deadline:
            if stopped(process.pid):
                process.send_signal(signal.SIGCONT)
            time.sleep(0.2)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.send_signal(signal.SIGCONT)
            process.wait(timeout=30)
