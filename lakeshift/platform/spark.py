"""Build the one Spark session a lakeshift process uses."""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lakeshift.config import Settings
from lakeshift.errors import ConfigError, EnvironmentProblem
from lakeshift.platform.jars import iceberg_runtime_jar
from lakeshift.platform.java import find_java
from lakeshift.platform.pyfiles import build_package_zip, package_zip_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

_LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = {path}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{ISO8601}} %p %c{{1}}: %m%n
logger.iceberg.name = org.apache.iceberg
logger.iceberg.level = warn
"""


PYFILES = "spark.submit.pyFiles"
PYSPARK_PYTHON = "spark.pyspark.python"
SESSION_TIME_ZONE = "spark.sql.session.timeZone"
WORKER_DISTUTILS = "spark.executorEnv.SETUPTOOLS_USE_DISTUTILS"
#: The driver JVM's own stdout and stderr, beside log4j's ``spark.log``.
JVM_OUTPUT_LOG = "spark-jvm.log"
DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"
EXECUTOR_JAVA_OPTIONS = "spark.executor.extraJavaOptions"
JAVA_OPTIONS = (DRIVER_JAVA_OPTIONS, EXECUTOR_JAVA_OPTIONS)
#: Names of UTC itself that a user may write for the zone lakeshift requires.
UTC_NAMES = frozenset({"UTC", "Etc/UTC", "GMT", "Etc/GMT", "Z"})


def is_local_master(master: str) -> bool:
    """``local``/``local[...]`` run executors inside the driver's JVM; every other master
    (``spark://``, ``yarn``, ``k8s://``, ``local-cluster[...]``) runs them in other processes."""
    return master == "local" or master.startswith("local[")


def executor_python(settings: Settings) -> str:
    """The Python executors start: ``spark.pyspark.python`` if configured, else
    ``PYSPARK_PYTHON``, else this interpreter (right on one machine; on YARN or Kubernetes
    configure the path of a Python that exists on the executors' hosts or image)."""
    import sys

    configured = settings.spark_conf.get(PYSPARK_PYTHON) or os.environ.get("PYSPARK_PYTHON")
    return configured or sys.executable


#: Tasks of the job Spark lists many input paths with (set once Spark knows its cores).
LISTING_PARALLELISM = "spark.sql.sources.parallelPartitionDiscovery.parallelism"


def spark_conf(
    settings: Settings, metastore_uri: str | None, warehouse: Path | None
) -> dict[str, str]:
    """The Spark configuration lakeshift runs with (shown in every plan).

    Everything executors need travels in it, so it works where they are other processes on
    other hosts: the Iceberg runtime jar in ``spark.jars``, lakeshift's code in
    ``spark.submit.pyFiles`` (non-local masters), the Python to run in ``spark.pyspark.python``.
    """
    log_dir = settings.log_dir.resolve()
    java_opts = (
        f"-Duser.timezone=UTC -Dlog4j.configurationFile=file:{log_dir / 'log4j2.properties'}"
    )
    conf = {
        "spark.master": settings.spark_master,
        "spark.app.name": "lakeshift",
        "spark.jars": str(iceberg_runtime_jar()),
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        SESSION_TIME_ZONE: "UTC",
        # The default INFER_AND_SAVE writes into the source table's metastore entry.
        "spark.sql.hive.caseSensitiveInferenceMode": "NEVER_INFER",
        "spark.sql.shuffle.partitions": str(settings.shuffle_partitions),
        "spark.driver.memory": settings.spark_driver_memory,
        DRIVER_JAVA_OPTIONS: java_opts,
        EXECUTOR_JAVA_OPTIONS: "-Duser.timezone=UTC",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.adaptive.enabled": "true",
        # Hive's read rules become SQL nested one lambda (Spark's only LET) inside another: a
        # text read as a timestamp in Hive's zone and counted as seconds passes the default
        # of 100 analyzer rounds. The analyzer stops at its fixed point, so only such columns
        # take more.
        "spark.sql.analyzer.maxIterations": "1000",
        # Bulk runs migrate several tables at once; FAIR shares the executors between them.
        "spark.scheduler.mode": "FAIR",
        # Lake tables hold proleptic Gregorian days (Iceberg's, Delta's and Hudi's Parquet);
        # Spark's default refuses to write or read dates before 1582-10-15 (and INT96
        # timestamps before 1900) in Parquet files without its own metadata rather than pick.
        # Values are written and read as they are; Parquet *source* partitions choose per read.
        "spark.sql.parquet.datetimeRebaseModeInWrite": "CORRECTED",
        "spark.sql.parquet.int96RebaseModeInWrite": "CORRECTED",
        "spark.sql.parquet.datetimeRebaseModeInRead": "CORRECTED",
        "spark.sql.parquet.int96RebaseModeInRead": "CORRECTED",
    }
    if sys.version_info < (3, 12):
        # PySpark's Arrow tasks import ``distutils.version`` (``to_arrow_type``). setuptools'
        # shim answers that with its own copy and imports setuptools for it: 0.19 s in each
        # new Python worker, against 4 ms for the standard library's, which Python has up
        # to 3.11. PySpark runs the driver's Python version on the executors too, so the
        # driver's says which. A user's own value in [spark_conf] wins.
        conf[WORKER_DISTUTILS] = "stdlib"
    if metastore_uri is not None:
        conf.update(
            {
                "spark.sql.catalog.spark_catalog": "org.apache.iceberg.spark.SparkSessionCatalog",
                "spark.sql.catalog.spark_catalog.type": "hive",
                "spark.sql.catalog.spark_catalog.uri": metastore_uri,
                "spark.hadoop.hive.metastore.uris": metastore_uri,
                "spark.sql.catalogImplementation": "hive",
            }
        )
    else:
        # On Glue Spark needs no session catalog of its own (see Context.spark).
        conf["spark.sql.catalogImplementation"] = "in-memory"
    if warehouse is not None:
        conf["spark.sql.warehouse.dir"] = warehouse.resolve().as_uri()
    conf[PYSPARK_PYTHON] = executor_python(settings)
    if not is_local_master(settings.spark_master):
        conf[PYFILES] = str(package_zip_path(settings.home / "spark"))
    shipped = {k: conf[k] for k in ("spark.jars", PYFILES) if k in conf}
    jvm = {k: conf[k] for k in JAVA_OPTIONS}
    _refuse_other_time_zones(settings.spark_conf)
    conf.update(settings.spark_conf)
    # Files the user ships as well are added to lakeshift's, never replace them.
    for key, ours in shipped.items():
        theirs = settings.spark_conf.get(key)
        if theirs and ours not in theirs.split(","):
            conf[key] = f"{ours},{theirs}"
    # So are JVM options: the user's go after lakeshift's (the JVM takes the last of a repeated
    # -D), so their own log4j file, agents or GC flags win, and UTC stays (checked above).
    for key, ours in jvm.items():
        theirs = settings.spark_conf.get(key, "").strip()
        if theirs:
            conf[key] = f"{ours} {theirs}"
    return conf


def _refuse_other_time_zones(user_conf: Mapping[str, str]) -> None:
    """Refuse a ``[spark_conf]`` that moves the JVM or Spark session off UTC.

    lakeshift reads and writes timestamps as Hive stores them (wall-clock values with no zone);
    a driver or executor in another zone would shift every value it turns into an instant.
    """
    for key in JAVA_OPTIONS:
        try:
            options = shlex.split(user_conf.get(key, ""))
        except ValueError as e:  # an unclosed quote
            raise ConfigError(f"[spark_conf] {key} cannot be split into options: {e}") from e
        for option in options:
            name, _, value = option.partition("=")
            if name == "-Duser.timezone" and value not in UTC_NAMES:
                raise ConfigError(
                    f"[spark_conf] {key} sets {option}: lakeshift runs every JVM in UTC",
                    hint=f"Remove -Duser.timezone from {key}; lakeshift adds -Duser.timezone=UTC "
                    "itself and keeps the rest of your options.",
                )
    zone = user_conf.get(SESSION_TIME_ZONE)
    if zone is not None and zone not in UTC_NAMES:
        raise ConfigError(
            f"[spark_conf] {SESSION_TIME_ZONE} = {zone!r}: lakeshift runs Spark in UTC",
            hint=f"Remove {SESSION_TIME_ZONE} from [spark_conf]; lakeshift sets it to UTC.",
        )


def _launch_jvm(conf: Mapping[str, str], output: Path) -> None:
    """Start the driver's JVM with its stdout and stderr in ``output``, unless this process
    has one already (PySpark keeps it across sessions).

    Without this the JVM writes to the terminal whatever reaches its own streams, and not only
    through log4j: Spark copies its Python workers' stderr there. A worker whose task was
    killed by a cancelled job (Ctrl-C) prints PySpark's ``EOFError`` traceback, which told the
    user of a failure that was not one. PySpark starts the JVM with the same ``launch_gateway``
    given the streams here; its session builder takes the gateway it finds, and its own
    options (``enableHiveSupport`` too) override what the JVM was started with."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    with SparkContext._lock:
        if SparkContext._gateway is not None:
            return
        spark_conf = SparkConf(loadDefaults=False)
        for key, value in conf.items():
            spark_conf.set(key, value)
        with output.open("ab") as stream:
            gateway = launch_gateway(
                spark_conf, popen_kwargs={"stdout": stream, "stderr": subprocess.STDOUT}
            )
        SparkContext._gateway = gateway
        SparkContext._jvm = gateway.jvm


def create_spark_session(
    settings: Settings, metastore_uri: str | None, warehouse: Path | None = None
) -> SparkSession:
    """Create (or return the running) Spark session wired to the metastore and Iceberg."""
    find_java()
    settings.log_dir.mkdir(parents=True, exist_ok=True)
    (settings.log_dir / "log4j2.properties").write_text(
        _LOG4J2.format(path=(settings.log_dir / "spark.log").resolve())
    )
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:  # pragma: no cover - pyspark is a hard dependency
        raise EnvironmentProblem("pyspark is not installed", hint="pip install lakeshift") from e
    conf = spark_conf(settings, metastore_uri, warehouse)
    # PySpark takes the executors' Python from the driver's environment, not from the conf.
    os.environ["PYSPARK_PYTHON"] = conf[PYSPARK_PYTHON]
    if not is_local_master(settings.spark_master):
        build_package_zip(package_zip_path(settings.home / "spark"))
        if warehouse is not None:
            log.warning(
                "Spark master %s with the embedded metastore: its warehouse %s is a local "
                "directory, which executors on other hosts cannot see; pass --metastore-uri "
                "of a metastore whose locations the cluster shares",
                settings.spark_master,
                warehouse.resolve(),
            )
    builder = SparkSession.builder
    for key, value in conf.items():
        builder = builder.config(key, value)
    log.info("starting Spark (%s) against %s", settings.spark_master, metastore_uri)
    try:
        _launch_jvm(conf, settings.log_dir / JVM_OUTPUT_LOG)
        session = builder.enableHiveSupport().getOrCreate()
    except Exception as e:  # Py4J/launcher failures surface as plain exceptions
        raise EnvironmentProblem(
            f"Spark could not start ({e}).",
            hint=f"See {settings.log_dir / 'spark.log'} and {settings.log_dir / JVM_OUTPUT_LOG}; "
            "check Java 17 and spark conf values.",
        ) from e
    if not session.sparkContext.getConf().contains(LISTING_PARALLELISM):
        # A batch reads its files by name, and Spark lists more than 32 names in a job of one
        # task per name (up to 10,000): 200 tasks took 0.5-0.8 s per batch of 200 one-file
        # partitions here. A few tasks per core list the same names in a fraction of that
        # (at least 32: an object store's listing waits on the network, not the cores).
        parallelism = max(32, 4 * session.sparkContext.defaultParallelism)
        session.conf.set(LISTING_PARALLELISM, str(parallelism))
    return session
