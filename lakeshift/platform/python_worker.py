"""Spark's Python workers: the cost of handing each a task.

PySpark's worker calls ``importlib.invalidate_caches()`` at the start of every task (so that
Python files added since the last task are found), and on Python 3.11 a zip importer told so
reads its archive's whole directory again. A worker's path holds archives: Spark's
``pyspark.zip`` and py4j's, the ``spark-core`` jar (14.7 MB, a directory of 0.5 MB) and
lakeshift's own code for the executors. Measured here (strace of a worker): the jar's
directory alone took 51 ms of each task, all of them about 70 ms; a job of 8 trivial
``mapInArrow`` tasks took 0.96 s, and 0.41-0.48 s with the archives kept.

An archive on the path does not change while an application runs (Spark refuses a file of a
name it already has), so each task replaces the importers of the archives found so far by
ones that keep what they read; the next tasks of the same worker skip the re-reads. A path
entry that appears later (a file added later) is found as Python finds it.

Hand-written: PySpark has no setting for it, and no library does it.
"""

from __future__ import annotations

import sys
import zipimport


class _SteadyArchive(zipimport.zipimporter):
    """A zip importer that keeps the archive's directory it read."""

    def invalidate_caches(self) -> None:
        """Nothing to read again: the archive does not change while the application runs."""


def keep_archives() -> None:
    """Replace the worker's importers of archives by ones that are not re-read per task.
    Cheap to call at every task's start (a look at each path entry's importer)."""
    cache = sys.path_importer_cache
    for entry, finder in list(cache.items()):
        if type(finder) is zipimport.zipimporter:
            cache[entry] = _SteadyArchive(entry)
