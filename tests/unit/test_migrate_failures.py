"""Root causes of failed batches, adoption differences, the quarantine key, the Ctrl-C flag."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc

from lakeshift.bulk.spec import parse_bulk_spec
from lakeshift.cli.interrupts import stop_on_interrupt
from lakeshift.migrate.adopt import column_differences
from lakeshift.migrate.failures import root_cause, unreadable_files

_TRACE = "\n".join(
    [
        "An error occurred while calling o412.overwritePartitions.",
        ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 failed",
        "\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAG.scala:2856)",
        "Caused by: org.apache.spark.SparkException: Encountered error while reading file "
        "file:///data/t/dt=1/000000_0. Details:",
        "\tat org.apache.spark.sql.errors.QueryExecutionErrors$.cannotReadFilesError(Q.scala:863)",
        "Caused by: java.io.EOFException: Read past end of RLE integer from compressed stream "
        "Stream for column 1 kind DATA position: 12",
        "\tat org.apache.orc.impl.RunLengthIntegerReaderV2.readValues(RLE.java:61)",
    ]
)


def test_root_cause_is_the_deepest_java_exception_with_its_file() -> None:
    cause = root_cause(RuntimeError(_TRACE))
    assert cause.exception == "EOFException"
    assert cause.message.startswith("Read past end of RLE integer")
    assert "overwritePartitions" not in cause.text()


def test_root_cause_of_a_python_error_chain() -> None:
    try:
        try:
            raise KeyError("inner")
        except KeyError as e:
            raise ValueError("outer") from e
    except ValueError as e:
        cause = root_cause(e)
    assert cause.exception == "KeyError" and "inner" in cause.message


def test_unreadable_files_reads_every_stripe(tmp_path: Path) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    table = pa.table({"id": pa.array(range(5000), pa.int64())})
    orc.write_table(table, str(good))
    orc.write_table(table, str(bad))
    data = bytearray(bad.read_bytes())
    data[3:200] = b"\xff" * 197
    bad.write_bytes(bytes(data))
    found = unreadable_files(str(tmp_path), [("good", "orc"), ("bad", "orc")])
    assert list(found) == [str(bad)]


def test_column_differences_name_each_one() -> None:
    expected = [("id", "bigint"), ("v", "string"), ("dt", "string"), ("uuid", "string")]
    assert column_differences(expected, [("id", "bigint"), ("v", "string"), ("dt", "string")]) == []
    assert column_differences(expected, [("id", "int"), ("w", "string"), ("dt", "string")]) == [
        "column id: target int, source bigint",
        "column v (string) is missing in the target",
        "column w (string) is not in the source",
    ]
    assert column_differences(expected, [("v", "string"), ("id", "bigint"), ("dt", "string")]) == [
        "column order: target (v, id, dt), source (id, v, dt)"
    ]


def test_bulk_quarantine_key_is_a_boolean(tmp_path: Path) -> None:
    spec = parse_bulk_spec(
        {"bulk": {"quarantine": True}, "tables": [{"source": "a.b"}]}, tmp_path / "f.toml"
    )
    assert spec.tables[0].quarantine is True


def test_first_ctrl_c_sets_the_stop_flag_and_cancels() -> None:
    # Whatever handler was there before (Python's default, or SparkContext's own once a test
    # session started Spark) must be back afterwards.
    before = signal.getsignal(signal.SIGINT)
    cancelled: list[bool] = []
    with stop_on_interrupt(lambda: cancelled.append(True)) as stopping:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100):
            if cancelled:
                break
            time.sleep(0.01)
        assert stopping.is_set() and cancelled == [True]
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before
