"""Crash points for tests: ``LAKESHIFT_FAULT=point:batch`` kills the process with SIGKILL there.

Points: ``before-commit`` (the batch's Spark job is planned, nothing committed),
``before-log-commit`` (Delta: Spark's files are written, the log does not name them yet),
``after-commit`` (the commit landed, the journal does not know yet), ``between-batches``
(journal updated, next batch not started). Unset in normal use; costs one dict lookup.
"""

from __future__ import annotations

import os
import signal

ENV = "LAKESHIFT_FAULT"


def crash_point(point: str, batch: int) -> None:
    wanted = os.environ.get(ENV)
    if wanted and wanted in (point, f"{point}:{batch}"):
        os.kill(os.getpid(), signal.SIGKILL)
