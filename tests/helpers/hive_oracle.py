"""Ask Hive 2.3.9 itself what a table shows (``../shared/HIVE-READ-MODEL.md`` section 8).

PySpark bundles ``hive-exec-2.3.9``: Spark's Hive client runs a query through Hive's own Driver
and FetchOperator (``runSqlHive``) against the test metastore, with no Hive installation. Spark
allows that call only in testing mode (``SPARK_TESTING``). It runs in a process of its own: Hive's
Driver closes the class loaders of the session it ran in, after which the test session's Spark
could no longer load its formats' classes. Expectations taken from here come from Hive's code,
not from the test's author.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from typing import Any

Query = tuple[str, dict[str, str]]  # SQL, session settings for it alone


def hive_answers(
    metastore_uri: str,
    queries: list[Query],
    time_zone: str | None = None,
    allow_errors: bool = False,
) -> list[Any]:
    """The rows Hive 2.3.9 prints for each query (its text; ``NULL`` as None); ``time_zone``:
    its JVM's default zone (``TZ``), else this process's. A query Hive refuses fails the
    call, or with ``allow_errors`` answers ``{"error": message}``."""
    env = {**os.environ, "SPARK_TESTING": "1", **({"TZ": time_zone} if time_zone else {})}
    done = subprocess.run(
        [sys.executable, "-m", "tests.helpers.hive_oracle", metastore_uri],
        input=json.dumps(queries),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"the Hive oracle failed:\n{done.stderr[-4000:]}")
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    refused = [a["error"] for a in answers if isinstance(a, dict)]
    if refused and not allow_errors:
        raise AssertionError(f"Hive refused a query:\n{refused[0]}")
    return answers  # type: ignore[no-any-return]


def _main(uri: str) -> None:
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.sql.catalogImplementation", "hive")
        .config("spark.hadoop.hive.metastore.uris", uri)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "512m")
        .enableHiveSupport()
        .getOrCreate()
    )
    client = spark._jsparkSession.sharedState().externalCatalog().unwrapped().client()
    answers: list[Any] = []
    conf = client.conf()  # the session's HiveConf, which `set` writes
    for sql, settings in json.loads(sys.stdin.read()):
        before = {key: conf.get(key) for key in settings}
        for key, value in settings.items():
            client.runSqlHive(f"set {key}={value}")
        try:
            printed = client.runSqlHive(sql)
        except Exception as error:  # Hive refused the query: say so, go on with the next
            answers.append({"error": str(error)[:2000]})
        else:
            lines = [printed.apply(i) for i in range(printed.size())]
            answers.append(
                [[None if v == "NULL" else v for v in line.split("\t")] for line in lines]
            )
        for key, value in before.items():  # `set key=` would leave "", which ORC reads as false
            if value is None:
                conf.unset(key)
            else:
                conf.set(key, value)
    print(json.dumps(answers))
    spark.stop()


def _json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json(v) for v in value]
    if isinstance(value, Decimal):
        return float(value)
    return value


def hive_text(value: Any) -> str | None:
    """A value read from a lake table as Hive prints it in a query result (``NULL`` is None;
    structs, arrays and maps as Hive's JSON text)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, dict | list):
        return json.dumps(_json(value), separators=(",", ":"))
    return str(value)


if __name__ == "__main__":
    _main(sys.argv[1])
