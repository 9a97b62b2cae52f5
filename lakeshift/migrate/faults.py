"""Crash points for tests: ``LAKESHIFT_FAULT=point:batch`` kills the process with SIGKILL there.

Points: ``before-commit`` (the batch's Spark job is planned, nothing committed),
``before-log-commit`` (Delta: Spark's files are written, the log does not name them yet),
``after-commit`` (the commit landed, the journal does not know yet), ``between-batches``
(journal updated, next batch not started). Unset in normal use; costs one dict lookup.
``LAKESHIFT_FAULT_SIGNAL=SIGSTOP`` freezes the process at the point instead.

``LAKESHIFT_TASK_FAULT=first-attempt`` makes every Spark task computing a batch's rows fail on
its first attempt (retries succeed): with ``spark.task.maxFailures`` > 1 (a cluster, or a
``local[N,F]`` master) the batch completes, and must hold each row once.
"""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

ENV = "LAKESHIFT_FAULT"
SIGNAL_ENV = "LAKESHIFT_FAULT_SIGNAL"
TASK_ENV = "LAKESHIFT_TASK_FAULT"
FIRST_ATTEMPT = "first-attempt"


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
    """``frame`` unchanged, or (``LAKESHIFT_TASK_FAULT=first-attempt``) filtered through a Python
    function that fails each task's first attempt. The function runs on the executors, pickled
    by reference to this module: it also shows lakeshift's code reaches them."""
    if os.environ.get(TASK_ENV) != FIRST_ATTEMPT:
        return frame
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType

    # Nondeterministic: Spark must neither cache, reorder nor fold the check away.
    check = F.udf(fail_first_attempt, BooleanType()).asNondeterministic()
    return frame.where(check(F.col(column)))


def fail_first_attempt(value: object) -> bool:
    """Raise in a task's first attempt; pass every row in its retries."""
    from pyspark import TaskContext

    task = TaskContext.get()
    if task is not None and task.attemptNumber() == 0:
        raise InjectedTaskFault(
            f"{TASK_ENV}: injected failure of task {task.partitionId()} "
            f"of stage {task.stageId()}, attempt 0"
        )
    return True
