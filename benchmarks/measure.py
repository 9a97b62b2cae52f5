"""Timing and memory probes for benchmarks (wall time, driver and JVM peak RSS)."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _jvm_pid(spark: Any) -> int | None:
    try:
        return int(spark._jvm.java.lang.ProcessHandle.current().pid())
    except Exception:
        return None


def _peak_mb(pid: int | str) -> float | None:
    """VmHWM of a process, in MB: its peak resident memory since it started or since
    :func:`reset_peaks`."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def process_cpu_seconds(pid_file: Path) -> float | None:
    """CPU seconds (user and system, every thread) of the process whose pid ``pid_file``
    holds, from ``/proc/<pid>/stat``; None where there is no such process."""
    try:
        pid = int(pid_file.read_text().strip())
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, ValueError):
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime (proc(5): 14, 15)


def jvm_peak_mb(spark: Any) -> float | None:
    """Peak resident memory of the Spark driver JVM (VmHWM), in MB."""
    pid = _jvm_pid(spark)
    return None if pid is None else _peak_mb(pid)


def python_peak_mb() -> float:
    """Peak resident memory of this Python process (VmHWM), in MB; ``ru_maxrss`` where /proc
    has no answer."""
    peak = _peak_mb("self")
    if peak is not None:
        return peak
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def reset_peaks(spark: Any) -> bool:
    """Reset the peak resident memory of this process and of the driver JVM to what each holds
    now (Linux's ``clear_refs`` 5), so that a peak read later is the peak of what ran since,
    not of an earlier scenario in the same process. False where the kernel does not allow it
    (the peaks then stay process-wide)."""
    done = True
    for pid in ("self", _jvm_pid(spark)):
        if pid is None:
            done = False
            continue
        try:
            Path(f"/proc/{pid}/clear_refs").write_text("5")
        except OSError:
            done = False
    return done


@dataclass(frozen=True)
class Timing:
    name: str
    seconds: float
    rows: int
    bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "seconds": round(self.seconds, 2),
            "rows_per_second": round(self.rows / self.seconds) if self.seconds else None,
            "mb_per_second": round(self.bytes / 1e6 / self.seconds, 2) if self.seconds else None,
        }


def timed(name: str, rows: int, size: int, fn: Callable[[], Any]) -> Timing:
    started = time.monotonic()
    fn()
    return Timing(name, time.monotonic() - started, rows, size)


def timed_profiled(
    name: str, rows: int, size: int, fn: Callable[[], Any], spark: Any
) -> tuple[Timing, dict[str, Any]]:
    """``timed`` with lakeshift's profile of the same call (its breakdown by phase and Spark
    job); joining Spark's jobs to the phases happens after the clock stopped."""
    from lakeshift import profiling

    def run() -> Any:
        with profiling.phase(name):
            return fn()

    profile = profiling.start(name, spark.sparkContext)
    try:
        timing = timed(name, rows, size, run)
    finally:
        profiling.stop()
    return timing, profile.to_json()
