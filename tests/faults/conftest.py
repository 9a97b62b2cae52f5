"""With ``LAKESHIFT_FAULTS_SUMMARY=FILE`` (``make faults``), a Markdown summary of the fault
cases: the random-kill points as they happen (written by that test), then the outcome and
duration of every test under ``tests/faults`` and ``tests/cluster`` (pytest calls report hooks
only from the conftests on a test's path: ``tests/cluster/conftest.py`` imports the one below)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

_rows: list[str] = []


def _summary() -> Path | None:
    path = os.environ.get("LAKESHIFT_FAULTS_SUMMARY")
    return Path(path) if path else None


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the file (after collection: this conftest is not loaded at session start)."""
    path = _summary()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        path.write_text(f"# Fault injection, {now}\n")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not (report.when == "call" or report.failed):
        return
    _rows.append(f"| `{report.nodeid}` | {report.outcome} | {report.duration:.0f}s |")


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = _summary()
    if path is None or not _rows:
        return
    failed = sum("| failed |" in r for r in _rows)
    with path.open("a") as handle:
        handle.write(f"\n## Outcomes: {len(_rows) - failed} passed, {failed} failed\n\n")
        handle.write("| case | outcome | time |\n|---|---|---|\n")
        handle.write("\n".join(_rows) + "\n")
