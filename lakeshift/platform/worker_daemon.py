"""PySpark's worker daemon, with the modules lakeshift's tasks use imported once before it forks.

Spark starts one daemon per executor (``pyspark.daemon``) and forks a Python worker from it for
tasks; each worker imports what its tasks use on its first task. lakeshift's tasks use pyarrow's
ORC and Parquet modules, pyiceberg's Parquet metrics (which import ``pyarrow.dataset`` and
pandas) and lakeshift's own writers and readers: about 1 s of CPU for every new worker,
measured (``pyiceberg.io.pyarrow`` alone 0.68 s). A worker idle for a minute is stopped, so a
migration's next step, or the next table of a bulk run, pays it again; on 1,000 small
partitions the imports were a quarter to a half of the Arrow write's task time (py-spy of the
workers). Imported in the daemon, every fork starts with them.

Spark runs the module that ``spark.python.daemon.module`` names. lakeshift names this one only
for local masters, whose executors run the driver's own Python environment; on a cluster
lakeshift's code reaches the executors with the tasks, after their daemon has started. A module
that does not import here is left to the task that needs it, as without this daemon.
Hand-written: PySpark offers the setting, no library a daemon for it.
"""

from __future__ import annotations

import importlib

#: What lakeshift's Spark tasks import: the Arrow write (Iceberg's metrics, Delta's files),
#: Hudi's base files, the independent reader, the spread inspection.
PRELOADED = (
    # PySpark's own: ``to_arrow_type`` imports it in every worker's first Arrow task, and with
    # setuptools' distutils shim that imports setuptools and pkg_resources (0.3-0.5 s)
    "distutils.version",
    "pyarrow.orc",
    "pyarrow.parquet",
    "pyarrow.compute",
    "pyiceberg.io.pyarrow",
    "lakeshift.formats.arrow_path",
    "lakeshift.formats.iceberg_files",
    "lakeshift.formats.hudi.task_writer",
    "lakeshift.validate.independent.task",
    "lakeshift.inspect.spread",
)


def preload(names: tuple[str, ...] = PRELOADED) -> list[str]:
    """Import ``names``; the ones that failed (left to the tasks)."""
    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # the task that needs it imports it again, and reports the error
            failed.append(name)
    return failed


if __name__ == "__main__":
    preload()
    from pyspark import daemon

    daemon.manager()
