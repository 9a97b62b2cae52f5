"""Two lakeshift processes on one table: the second is refused with the lease's exit code and
touches nothing; the first, frozen meanwhile between two batches, finishes unharmed."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from lakeshift.errors import EXIT_CONFLICT
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import ENV, SIGNAL_ENV
from tests.faults._tables import assert_exact, small_table, wait_until_stopped
from tests.helpers.cli import lakeshift_command
from tests.helpers.lake import read_lake

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    "fmt", ["iceberg", *(pytest.param(f, marks=pytest.mark.faults) for f in ("delta", "hudi"))]
)
def test_second_process_is_refused_and_the_first_finishes(
    fmt: str, client: MetastoreClient, metastore_uri: str, tables_root: Path, tmp_path: Path
) -> None:
    b, expected = small_table(client, tables_root, "lease")
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    args = ["migrate", source, "--target", target, "--format", fmt, "--batch-rows", "90"]
    cmd = [*lakeshift_command(tmp_path, metastore_uri), *args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKESHIFT_")}
    # The first process freezes after its first batch, holding the table's lease.
    first = subprocess.Popen(
        cmd,
        env={**env, ENV: "between-batches:1", SIGNAL_ENV: "SIGSTOP"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_until_stopped(first), "the first process never reached its second batch"
        landed = read_lake(client, target).num_rows
        assert 0 < landed < sum(expected.values())

        second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == EXIT_CONFLICT, second.stdout[-2000:] + second.stderr[-2000:]
        assert f"{source} is being migrated by lakeshift migrate" in second.stderr
        assert f"pid {first.pid}" in second.stderr
        assert read_lake(client, target).num_rows == landed  # the second wrote nothing

        first.send_signal(signal.SIGCONT)
        out, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
            first.send_signal(signal.SIGCONT)
            first.wait(timeout=30)
    assert first.returncode == 0, out[-2000:] + err[-2000:]
    assert_exact(client, target, expected)
