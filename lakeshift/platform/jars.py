"""Locate the jars lakeshift runs with; every one comes from a PyPI package."""

from __future__ import annotations

from pathlib import Path

from lakeshift.errors import EnvironmentProblem

ICEBERG_RUNTIME_JAR = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"


def spark_home() -> Path:
    """The pyspark installation directory (it bundles Hive 2.3.9 and Derby jars)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def spark_jars_glob() -> str:
    return str(spark_home() / "jars" / "*")


def iceberg_runtime_jar() -> Path:
    """The Apache Iceberg 1.10.2 Spark runtime jar from ``snowpark-connect-deps-iceberg``."""
    try:
        import snowpark_connect_deps_iceberg as deps

        return Path(deps.get_jar_path(ICEBERG_RUNTIME_JAR))
    except (ImportError, FileNotFoundError) as e:
        raise EnvironmentProblem(
            f"the Iceberg Spark runtime jar {ICEBERG_RUNTIME_JAR} is missing",
            hint="Install the pinned package: pip install 'snowpark-connect-deps-iceberg==1.0.2' "
            "(1.0.3 ships a broken jar).",
        ) from e
