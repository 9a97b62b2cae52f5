"""Build the one Spark session a lakeshift process uses."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from lakeshift.config import Settings
from lakeshift.errors import EnvironmentProblem
from lakeshift.platform.jars import iceberg_runtime_jar
from lakeshift.platform.java import find_java

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


def spark_conf(settings: Settings, metastore_uri: str, warehouse: Path | None) -> dict[str, str]:
    """The Spark configuration lakeshift runs with (shown in every plan)."""
    log_dir = settings.log_dir.resolve()
    java_opts = (
        f"-Duser.timezone=UTC -Dlog4j.configurationFile=file:{log_dir / 'log4j2.properties'}"
    )
    conf = {
        "spark.master": settings.spark_master,
        "spark.app.name": "lakeshift",
        "spark.jars": str(iceberg_runtime_jar()),
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.spark_catalog": "org.apache.iceberg.spark.SparkSessionCatalog",
        "spark.sql.catalog.spark_catalog.type": "hive",
        "spark.sql.catalog.spark_catalog.uri": metastore_uri,
        "spark.hadoop.hive.metastore.uris": metastore_uri,
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.session.timeZone": "UTC",
        # The default INFER_AND_SAVE writes into the source table's metastore entry.
        "spark.sql.hive.caseSensitiveInferenceMode": "NEVER_INFER",
        "spark.sql.shuffle.partitions": str(settings.shuffle_partitions),
        "spark.driver.memory": settings.spark_driver_memory,
        "spark.driver.extraJavaOptions": java_opts,
        "spark.executor.extraJavaOptions": "-Duser.timezone=UTC",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.adaptive.enabled": "true",
        # Bulk runs migrate several tables at once; FAIR shares the executors between them.
        "spark.scheduler.mode": "FAIR",
    }
    if warehouse is not None:
        conf["spark.sql.warehouse.dir"] = warehouse.resolve().as_uri()
    conf.update(settings.spark_conf)
    return conf


def create_spark_session(
    settings: Settings, metastore_uri: str, warehouse: Path | None = None
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
    os.environ.setdefault("PYSPARK_PYTHON", _python())
    builder = SparkSession.builder
    for key, value in spark_conf(settings, metastore_uri, warehouse).items():
        builder = builder.config(key, value)
    log.info("starting Spark (%s) against %s", settings.spark_master, metastore_uri)
    try:
        return builder.enableHiveSupport().getOrCreate()
    except Exception as e:  # Py4J/launcher failures surface as plain exceptions
        raise EnvironmentProblem(
            f"Spark could not start ({e}).",
            hint=f"See {settings.log_dir / 'spark.log'}; check Java 17 and spark conf values.",
        ) from e


def _python() -> str:
    import sys

    return sys.executable
