"""Crash points for tests: ``LAKESHIFT_FAULT=point:batch`` kills the process with SIGKILL there.

Points: ``before-commit`` (the batch's Spark job is planned, nothing committed),
``before-log-commit`` (Delta: Spark's files are written, the log does not name them yet),
``after-commit`` (the commit landed, the journal does not know yet), ``between-batches``
(journal updated, next batch not started); ``before-view-update`` (a switch or rollback: the
journal holds the intended set, the view is not updated yet). Unset in normal use; costs one
dict lookup.
``LAKESHIFT_FAULT_SIGNAL=SIGSTOP`` freezes the process at the point instead.

``LAKESHIFT_TASK_FAULT=first-attempt`` makes every Spark task computing a batch's rows (the
Spark path's and the Arrow path's) fail on its first attempt (retries succeed): with
``spark.task.maxFailures`` > 1 (a cluster, or a ``local[N,F]`` master) the batch completes,
and must hold each row once.
``LAKESHIFT_TASK_FAULT=kill-executor`` kills the executor JVM running a first attempt instead
(on a cluster; the cluster manager starts another executor and the tasks run again).
"""

from __future__ import annotations

import os
import signal
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

ENV = "LAKESHIFT_FAULT"
SIGNAL_ENV = "LAKESHIFT_FAULT_SIGNAL"
TASK_ENV = "LAKESHIFT_TASK_FAULT"
FIRST_ATTEMPT = "first-attempt"
KILL_EXECUTOR = "kill-executor"
TASK_MODES = (FIRST_ATTEMPT, KILL_EXECUTOR)


class InjectedTaskFault(RuntimeError):
    """Raised inside a Spark task by the test hook (never in normal use)."""


def crash_point(point: str, batch: int) -> None:
    wanted = os.environ.get(ENV)
    if wanted and wanted in (point, f"{point}:{batch}"):
        os.kill(os.getpid(), _signal())


def _signal() -> signal.Signals:
    """SIGKILL, or the signal ``LAKESHIFT_FAULT_SIGNAL`` names (``SIGSTOP`` freezes the process
    there, holding what it holds, until a test sends ``SIGCONT``)."""
    name = os.environ.get(SIGNAL_ENV, "SIGKILL")
    return signal.Signals[name]


def with_task_fault(frame: DataFrame, column: str) -> DataFrame:
    """``frame`` unchanged, or (``LAKESHIFT_TASK_FAULT`` set) filtered through a Python function
    that breaks each task's first attempt. The function runs on the executors, pickled by
    reference to this module: it also shows lakeshift's code reaches them."""
    mode = task_fault_mode()
    if mode is None:
        return frame
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType

    # Nondeterministic: Spark must neither cache, reorder nor fold the check away.
    check = F.udf(partial(first_attempt_fault, mode), BooleanType()).asNondeterministic()
    return frame.where(check(F.col(column)))


def task_fault_mode() -> str | None:
    """``LAKESHIFT_TASK_FAULT``'s mode, read on the driver (None: unset). The Arrow path's
    tasks take it with them and call :func:`first_attempt_fault` before each source file."""
    mode = os.environ.get(TASK_ENV)
    if mode is not None and mode not in TASK_MODES:
        raise ValueError(f"{TASK_ENV} must be one of {TASK_MODES}, got {mode!r}")
    return mode


def first_attempt_fault(mode: str, value: object) -> bool:
    """In a task's first attempt: raise (``first-attempt``) or SIGKILL the executor JVM running
    it (``kill-executor``; where there is none, as in local mode, raise instead). Pass every
    row in the task's retries."""
    from pyspark import TaskContext

    task = TaskContext.get()
    if task is None or task.attemptNumber() > 0:
        return True
    where = f"task {task.partitionId()} of stage {task.stageId()}, attempt 0"
    if mode == KILL_EXECUTOR:
        executor = _executor_pid()
        if executor is not None:
            os.kill(executor, signal.SIGKILL)
            where += f", executor pid {executor} killed"
    raise InjectedTaskFault(f"{TASK_ENV}: injected failure of {where}")


def _executor_pid() -> int | None:
    """The executor JVM this Python worker serves: the nearest ancestor process running
    ``CoarseGrainedExecutorBackend`` (Linux ``/proc``; ``None`` elsewhere or in local mode)."""
    pid = os.getpid()
    for _ in range(5):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rpartition(")")[2].split()[1])
            if pid <= 1:
                return None
            if b"CoarseGrainedExecutorBackend" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except (OSError, ValueError, IndexError):
            return None
    return None
