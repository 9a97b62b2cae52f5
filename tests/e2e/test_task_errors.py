"""Errors raised inside Spark tasks keep their meaning through the real CLI: a lakeshift error
in backfill task code is the partition's stated reason (not a JVM trace, never exit 1), and a
file the independent reader cannot read leaves its partition "not proven" (exit 3), not a
crashed validation."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.errors import EXIT_PARTIAL
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import ENV, SIGNAL_ENV
from tests.faults._tables import resume_to_the_end, wait_until_stopped
from tests.helpers.cli import lakeshift_command
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake

pytestmark = pytest.mark.slow


def _text(value: str) -> bytes:
    data = value.encode()
    assert len(data) < 112  # Hadoop's vint: one byte below that
    return bytes([len(data)]) + data


def _sequence_file(values: list[str]) -> bytes:
    """A SequenceFile (version 6, BytesWritable keys, Text values, uncompressed) as Hadoop's
    ``SequenceFile.Writer`` lays it out."""
    sync = bytes(range(16))
    out = b"SEQ\x06" + _text("org.apache.hadoop.io.BytesWritable")
    out += _text("org.apache.hadoop.io.Text") + b"\x00\x00" + (0).to_bytes(4, "big") + sync
    for value in values:
        key, body = (0).to_bytes(4, "big"), _text(value)
        out += (len(key) + len(body)).to_bytes(4, "big") + len(key).to_bytes(4, "big")
        out += key + body
    return out


def _rows(ids: range) -> pa.Table:
    return pa.table({"id": pa.array(list(ids), pa.int64()), "name": [f"n{i}" for i in ids]})


def test_a_lakeshift_error_in_a_backfill_task_is_the_partitions_reason(
    client: MetastoreClient, metastore_uri: str, tables_root: Path, tmp_path: Path
) -> None:
    b = HiveTableBuilder(
        client, tables_root, "task_errors", unique_name("t"), [("id", "bigint"), ("name", "string")]
    )
    b.add_partition(["0"], {"000000_0": _rows(range(5))})
    lines = [f"{i}\x01s{i}" for i in range(10, 15)]
    sequence = b.add_partition(["1"], {"000000_0": _sequence_file(lines)}, fmt="sequence")
    path = sequence / "000000_0"
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_lake"
    cmd = [
        *lakeshift_command(tmp_path, metastore_uri),
        *("--output", "json", "migrate", source, "--target", target),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKESHIFT_")}
    # Frozen after inspecting (the file was whole then), before the batch's Spark job reads it.
    out_file, err_file = tmp_path / "stdout", tmp_path / "stderr"
    with out_file.open("w") as stdout, err_file.open("w") as stderr:
        process = subprocess.Popen(
            cmd,
            env={**env, ENV: "before-commit", SIGNAL_ENV: "SIGSTOP"},
            stdout=stdout,
            stderr=stderr,
        )
    try:
        assert wait_until_stopped(process), "the migration never reached its batch"
        # The last record now claims more bytes than the file holds (same size and time, so
        # the source's fingerprint does not change).
        data, stat = bytearray(path.read_bytes()), path.stat()
        last = len(data) - len(_text(lines[-1])) - 4 - 4 - 4
        data[last : last + 4] = (10_000).to_bytes(4, "big")
        path.write_bytes(bytes(data))
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    finally:
        resume_to_the_end(process)  # continued at each later batch part's stop too (split)
    out, err = out_file.read_text(), err_file.read_text()
    assert process.returncode == EXIT_PARTIAL, out[-3000:] + err[-3000:]
    document = json.loads(out)
    reason = document["failed"]["dt=1"]
    assert reason.startswith("RefusedInput: "), reason
    assert str(path) in reason and "ends inside a record" in reason, reason
    assert "PythonException" not in reason and "internal error" not in out + err
    assert "dt=0" in document["backfilled"]
    assert set(read_lake(client, target).column("partitionpath").to_pylist()) == {"dt=0"}


def test_a_file_the_independent_reader_cannot_read_leaves_its_partition_not_proven(
    client: MetastoreClient, metastore_uri: str, tables_root: Path, tmp_path: Path, spark: Any
) -> None:
    b = HiveTableBuilder(
        client, tables_root, "task_errors", unique_name("t"), [("id", "bigint"), ("name", "string")]
    )
    for value in ("0", "1"):
        directory = b.add_partition([value])
        orc.write_table(_rows(range(20_000)), str(directory / "000000_0"), compression="zlib")
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_lake"
    base = ["--home", str(tmp_path), "--metastore-uri", metastore_uri, "--output", "json"]
    migrated = CliRunner().invoke(cli, [*base, "migrate", source, "--target", target])
    assert migrated.exit_code == 0, migrated.output

    # The stripe's compressed streams are overwritten after the migration (the file is nearly
    # all stripe); the tail, the size and the time stay (the inspector and the source's
    # fingerprint see no change).
    path = b.partition_dir(["1"]) / "000000_0"
    data, stat = bytearray(path.read_bytes()), path.stat()
    end = len(data) * 3 // 4
    data[3:end] = b"\xff" * (end - 3)
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    args = ["validate", source, "--target", target, "--level", "independent"]
    result = CliRunner().invoke(cli, [*base, *args])
    assert result.exit_code == EXIT_PARTIAL, result.output
    document = json.loads(result.output)
    statuses = {p["partition"]: p for p in document["partitions"]}
    assert statuses["dt=0"]["status"] == "equal"
    unproven = statuses["dt=1"]
    assert unproven["status"] == "not-proven", unproven
    assert document["totals"]["not-proven"] == 1 and document["totals"]["equal"] == 1
    assert str(path) in unproven["detail"] and "cannot read" in unproven["detail"]
    assert "not proven" in document["error"]["message"]
    assert "internal error" not in result.output
