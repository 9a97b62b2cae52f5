"""The lakeshift command line as a subprocess, the way a user's shell runs it."""

from __future__ import annotations

import sys
from pathlib import Path


def lakeshift_command(
    home: Path, metastore_uri: str, *args: str, spark_master: str = "local[1]"
) -> list[str]:
    """``python -m lakeshift`` with the test metastore and a small Spark, then ``args``."""
    return [
        sys.executable,
        "-m",
        "lakeshift",
        "--home",
        str(home),
        "--metastore-uri",
        metastore_uri,
        "--spark-master",
        spark_master,
        "--conf",
        "spark.sql.shuffle.partitions=2",
        "--conf",
        "spark.driver.memory=768m",
        *args,
    ]
