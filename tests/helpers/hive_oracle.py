"""Ask Hive 2.3.9 itself what a table shows (``../shared/HIVE-READ-MODEL.md`` section 8).

PySpark bundles ``hive-exec-2.3.9``: Spark's Hive client runs a query through Hive's own Driver
and FetchOperator (``runSqlHive``) against the test metastore, with no Hive installation. Spark
allows that call only in testing mode (``SPARK_TESTING``). It runs in a process of its own: Hive's
Driver closes the class loaders of the session it ran in, after which the test session's Spark
could no longer load its formats' classes. That process is kept for the test session (one per
metastore and time zone) and answers each call's queries in turn: starting it (a JVM, Spark,
Hive's session) took 12-20 s of every call. Hive's ORC footer cache, which could serve a
rewritten file's old footer to a later call, is off in it. Expectations taken from here come
from Hive's code, not from the test's author.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from decimal import Decimal
from typing import IO, Any

Query = tuple[str, dict[str, str]]  # SQL, session settings for it alone
#: Marks the oracle's answer line among whatever else its JVM prints to stdout.
ANSWER = "hive-oracle-answer: "
#: Seconds one call's queries may take (as the one-process-per-call oracle allowed).
CALL_SECONDS = 300


class _Oracle:
    """One oracle process, asked one call's queries at a time over its stdin and stdout."""

    def __init__(self, metastore_uri: str, time_zone: str | None) -> None:
        env = {**os.environ, "SPARK_TESTING": "1", **({"TZ": time_zone} if time_zone else {})}
        # the JVM's chatter, for failures; open as long as the process (closed by close())
        self.log: IO[str] = tempfile.TemporaryFile("w+")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.hive_oracle", metastore_uri],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")  # the process ended

    def ask(self, queries: list[Query]) -> list[Any]:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(queries) + "\n")
            self.process.stdin.flush()
            while True:
                line = self.lines.get(timeout=CALL_SECONDS)
                if not line:
                    raise self._failed("it ended")
                if line.startswith(ANSWER):
                    return json.loads(line[len(ANSWER) :])  # type: ignore[no-any-return]
        except (BrokenPipeError, queue.Empty) as e:
            raise self._failed(repr(e)) from e

    def _failed(self, why: str) -> AssertionError:
        """The failure to raise, with the JVM's last words, read before the log is closed."""
        told = self._stderr()
        self.close()
        return AssertionError(f"the Hive oracle failed ({why}):\n{told}")

    def _stderr(self) -> str:
        self.log.seek(0)
        return self.log.read()[-4000:]

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            try:
                self.process.stdin.close()  # the oracle stops its Spark and ends
                self.process.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
        self.log.close()


_oracles: dict[tuple[str, str | None], _Oracle] = {}


@atexit.register
def _close_all() -> None:
    for oracle in _oracles.values():
        oracle.close()
    _oracles.clear()


def hive_answers(
    metastore_uri: str,
    queries: list[Query],
    time_zone: str | None = None,
    allow_errors: bool = False,
) -> list[Any]:
    """The rows Hive 2.3.9 prints for each query (its text; ``NULL`` as None); ``time_zone``:
    its JVM's default zone (``TZ``), else this process's. A query Hive refuses fails the
    call, or with ``allow_errors`` answers ``{"error": message}``."""
    key = (metastore_uri, time_zone)
    oracle = _oracles.get(key)
    if oracle is None or oracle.process.poll() is not None:
        oracle = _oracles[key] = _Oracle(metastore_uri, time_zone)
    try:
        answers = oracle.ask(queries)
    except AssertionError:
        _oracles.pop(key, None)  # the next call starts a new one
        raise
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
        # no footer kept from one call to the next: a test may rewrite a file in between
        .config("spark.hadoop.hive.orc.cache.stripe.details.mem.size", "0")
        .enableHiveSupport()
        .getOrCreate()
    )
    client = spark._jsparkSession.sharedState().externalCatalog().unwrapped().client()
    conf = client.conf()  # the session's HiveConf, which `set` writes
    for line in sys.stdin:  # one call's queries a line, until the test session closes stdin
        answers = _answers(client, conf, json.loads(line))
        print(ANSWER + json.dumps(answers), flush=True)
    spark.stop()


def _answers(client: Any, conf: Any, queries: list[Query]) -> list[Any]:
    answers: list[Any] = []
    for sql, settings in queries:
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
    return answers


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
